// Readers of what the tools print (objdump -t, objdump -dr, make-style dependency files, PTX) and of C++ names.
#include "grader/static_check.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <set>

namespace grader::static_check {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool is_hex(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Where the name of an operator that starts at `i` ends ("operator new[]", "operator<< ", "operator()").
std::size_t operator_end(const std::string& s, std::size_t i) {
  std::size_t j = i + 8;
  if (s.compare(j, 2, "()") == 0) return j + 2;
  if (j < s.size() && s[j] == ' ') {  // operator new, operator delete, operator bool
    ++j;
    while (j < s.size() && ident_char(s[j])) ++j;
  } else {
    while (j < s.size() && std::string_view("<>=!+-*/%^&|~,[]").find(s[j]) != std::string_view::npos) ++j;
  }
  if (s.compare(j, 2, "[]") == 0) j += 2;
  if (s.compare(j, 2, " <") == 0) ++j;  // "operator< <T>": the demangler's space before template arguments
  return j;
}

bool operator_at(const std::string& s, std::size_t i) {
  return s.compare(i, 8, "operator") == 0 && (i == 0 || !ident_char(s[i - 1])) &&
         (i + 8 == s.size() || !ident_char(s[i + 8]));
}

std::size_t matching_paren(const std::string& s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) return i;
  }
  return s.size();
}

// The name in a demangled declaration: the word before the outermost parameter list, looking inside declarator
// groups ("void (*name(int))(float)") and past decltype(...) return types.
std::string name_part(std::string s) {
  for (bool again = true; again;) {
    again = false;
    for (std::string_view q : {" const", " volatile", " &&", " &", " noexcept"}) {
      if (s.size() > q.size() && s.ends_with(q)) {
        s.resize(s.size() - q.size());
        again = true;
      }
    }
  }
  int depth = 0;
  std::size_t word = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (depth == 0 && operator_at(s, i)) {
      i = operator_end(s, i) - 1;
      continue;
    }
    const char c = s[i];
    if (c == '<' || c == '[' || c == '{') {
      ++depth;
    } else if (c == '>' || c == ']' || c == '}') {
      --depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '(') {
      if (depth == 0) {
        const auto before = trim(std::string_view(s).substr(0, i));
        if (before.ends_with("decltype")) {  // a return type: skip it
          i = matching_paren(s, i);
          continue;
        }
        if (i > word && s[i - 1] != ' ') return s.substr(word, i - word);
        const std::size_t close = matching_paren(s, i);
        std::string inner = s.substr(i + 1, close - i - 1);
        inner.erase(0, inner.find_first_not_of("*& "));
        return name_part(inner);
      }
      ++depth;
    } else if (c == ' ' && depth == 0) {
      word = i + 1;
    }
  }
  return s.substr(word);
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string demangle(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  int status = 0;
  const std::string copy(name);
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(copy.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
  return status == 0 && out ? std::string(out.get()) : copy;
}

std::string entity_of(std::string_view demangled) {
  std::string s(trim(demangled));
  for (bool again = true; again;) {
    again = false;
    for (std::string_view prefix :
         {"vtable for ", "typeinfo name for ", "typeinfo for ", "VTT for ", "construction vtable for ",
          "guard variable for ", "non-virtual thunk to ", "virtual thunk to ", "covariant return thunk to ",
          "TLS init function for ", "TLS wrapper function for ", "transaction clone for "}) {
      if (s.starts_with(prefix)) {
        s.erase(0, prefix.size());
        again = true;
      }
    }
  }
  while (s.ends_with("]")) {
    const auto clone = s.rfind(" [clone ");
    if (clone == std::string::npos) break;
    s.resize(clone);
  }
  for (auto tag = s.find("[abi:"); tag != std::string::npos; tag = s.find("[abi:"))
    s.erase(tag, s.find(']', tag) - tag + 1);
  // Parentheses that are no parameter list: hide them from the scan.
  replace_all(s, "(anonymous namespace)", "{anonymous namespace}");
  std::string name(trim(name_part(s)));
  replace_all(name, "{anonymous namespace}", "(anonymous namespace)");
  return name;
}

std::vector<Symbol> parse_symbol_table(std::string_view text) {
  // "0000000000000930 g     F .text\t000000000000009d _ZN...": address, 7 flag characters, section, a tab, size,
  // an optional visibility, the name.
  std::vector<Symbol> symbols;
  for (auto line : lines_of(text)) {
    const auto tab = line.find('\t');
    const auto space = line.find(' ');
    if (tab == std::string_view::npos || space == std::string_view::npos || space > tab ||
        !is_hex(line.substr(0, space)) || space + 9 > tab)
      continue;
    const auto flags = line.substr(space + 1, 7);
    if (flags[5] == 'd' || flags[6] == 'f') continue;  // section and file symbols
    Symbol s;
    s.section = std::string(trim(line.substr(space + 8, tab - space - 8)));
    auto rest = trim(line.substr(tab + 1));
    const auto size_end = rest.find(' ');
    if (size_end == std::string_view::npos) continue;
    rest = trim(rest.substr(size_end + 1));
    for (std::string_view visibility : {".hidden ", ".protected ", ".internal "})
      if (rest.starts_with(visibility)) rest.remove_prefix(visibility.size());
    s.name = std::string(rest);
    s.global = flags[0] == 'g' || flags[0] == 'u' || flags[0] == '!' || flags[1] == 'w' || s.section == "*COM*";
    s.weak = flags[1] == 'w' || flags[0] == 'u';  // unique globals are one-per-program copies, like weak ones
    s.indirect = flags[4] == 'i';
    if (!s.name.empty()) symbols.push_back(std::move(s));
  }
  return symbols;
}

std::vector<HostFunction> parse_disassembly(std::string_view text) {
  std::vector<HostFunction> functions;
  for (auto line : lines_of(text)) {
    // "0000000000000930 <_ZN...launch_scale...>:" starts a function.
    if (!line.empty() && line.front() != ' ' && line.ends_with(">:")) {
      const auto open = line.find(" <");
      if (open != std::string_view::npos && is_hex(line.substr(0, open))) {
        functions.push_back({std::string(line.substr(open + 2, line.size() - open - 4)), {}, {}, {}});
        continue;
      }
    }
    if (functions.empty()) continue;
    const auto body = trim(line);
    const auto colon = body.find(':');
    if (colon == std::string_view::npos || !is_hex(body.substr(0, colon))) continue;
    auto rest = trim(body.substr(colon + 1));
    if (rest.starts_with("R_")) {  // "96e: R_X86_64_PLT32\t__cudaPushCallConfiguration-0x4"
      const auto gap = rest.find_first_of(" \t");
      if (gap == std::string_view::npos) continue;
      auto target = trim(rest.substr(gap));
      const auto addend = target.find_last_of("+-");
      if (addend != std::string_view::npos && addend > 0 && target.substr(addend + 1).starts_with("0x"))
        target = target.substr(0, addend);
      functions.back().references.emplace_back(target);
      continue;
    }
    // An instruction: with raw bytes, "hex bytes\tmnemonic operands"; without, "mnemonic operands".
    const auto tab = rest.rfind('\t');
    auto instruction = trim(tab == std::string_view::npos ? rest : rest.substr(tab + 1));
    if (tab != std::string_view::npos) {
      const auto bytes = trim(rest.substr(0, tab));
      if (!bytes.empty() && bytes.find_first_not_of("0123456789abcdef ") != std::string_view::npos)
        instruction = rest;  // the tab separated mnemonic and operands, not bytes and mnemonic
    }
    functions.back().instructions.emplace_back(instruction);
    const auto mnemonic = instruction.substr(0, instruction.find_first_of(" \t"));
    const bool int80 = mnemonic == "int" && instruction.find("0x80") != std::string_view::npos;
    if (mnemonic == "syscall" || mnemonic == "sysenter" || mnemonic == "svc" || int80)
      functions.back().system_calls.emplace_back(trim(instruction));
  }
  return functions;
}

std::vector<Relocation> parse_relocations(std::string_view text) {
  std::vector<Relocation> relocations;
  std::string section;
  for (auto line : lines_of(text)) {
    // "RELOCATION RECORDS FOR [.text]:", then "0000000000000008 R_X86_64_PLT32    __cudaUnregisterFatBinary-0x0...4".
    if (line.starts_with("RELOCATION RECORDS FOR [")) {
      section = std::string(line.substr(24, line.find(']') - 24));
      continue;
    }
    const auto offset_end = line.find(' ');
    if (section.empty() || offset_end == std::string_view::npos || !is_hex(line.substr(0, offset_end))) continue;
    auto rest = trim(line.substr(offset_end));
    const auto type_end = rest.find_first_of(" \t");
    if (type_end == std::string_view::npos) continue;
    auto target = trim(rest.substr(type_end));
    const auto addend = target.find_last_of("+-");
    if (addend != std::string_view::npos && addend > 0 && target.substr(addend + 1).starts_with("0x"))
      target = target.substr(0, addend);
    relocations.push_back({section, std::string(target)});
  }
  return relocations;
}

std::vector<Section> parse_sections(std::string_view text) {
  // "  3 .init_array.00101 00000008  0000000000000000  0000000000000000  00000060  2**3": index, name, size, ...
  std::vector<Section> sections;
  for (auto line : lines_of(text)) {
    line = trim(line);
    const auto space = line.find(' ');
    if (space == std::string_view::npos || line.substr(0, space).find_first_not_of("0123456789") != std::string_view::npos)
      continue;
    const auto rest = trim(line.substr(space + 1));
    const auto name = rest.substr(0, rest.find(' '));
    if (!name.empty() && name.front() == '.') sections.push_back({std::string(name)});
  }
  return sections;
}

std::vector<std::string> parse_search_list(std::string_view text) {
  std::vector<std::string> dirs;
  bool in_list = false;
  for (auto line : lines_of(text)) {
    if (line.starts_with("#include <...> search starts here:")) {
      in_list = true;
    } else if (line.starts_with("End of search list.")) {
      in_list = false;
    } else if (in_list && line.starts_with(" ")) {
      auto dir = trim(line);
      if (dir.ends_with(" (framework directory)")) dir.remove_suffix(std::string_view(" (framework directory)").size());
      dirs.emplace_back(dir);
    }
  }
  return dirs;
}

std::vector<std::string> parse_depfile(std::string_view text) {
  std::vector<std::string> deps;
  std::set<std::string> seen;
  std::string token;
  bool in_targets = true, escaped = false;
  const auto flush = [&] {
    if (token.empty()) return;
    if (in_targets) {
      if (token.ends_with(':')) in_targets = false;  // "target:" or a lone ":"
    } else if (token.ends_with(':')) {
      in_targets = false;  // a phony rule's target (-MP): not a prerequisite
    } else if (seen.insert(token).second) {
      deps.push_back(token);
    }
    token.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (escaped) {
      escaped = false;
      if (c == '\n') {  // a continuation line
        flush();
        continue;
      }
      if (c != ' ' && c != '#' && c != '\\') token += '\\';
      token += c;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      token += '$';
      ++i;
    } else if (c == '\n') {
      flush();
      in_targets = true;  // the next rule starts with its targets
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else {
      token += c;
    }
  }
  flush();
  return deps;
}

PtxCode parse_ptx(std::string_view text) {
  PtxCode code;
  std::string current;
  for (auto raw : lines_of(text)) {
    auto line = trim(raw.substr(0, raw.find("//")));
    if (line.empty()) continue;
    // ".visible .entry name(", ".func (.param .b32 r) name(", ".extern .func name(": a function's name.
    for (std::string_view keyword : {".entry", ".func"}) {
      const auto at = line.find(keyword);
      if (at == std::string_view::npos || (at > 0 && line[at - 1] != ' ')) continue;
      auto rest = trim(line.substr(at + keyword.size()));
      if (rest.starts_with("(")) rest = trim(rest.substr(rest.find(')') + 1));
      const auto end = rest.find_first_of("( \t;");
      const auto name = std::string(rest.substr(0, end));
      if (name.empty()) continue;
      code.functions.push_back(name);
      if (line.find(".extern") == std::string_view::npos) current = name;
    }
    if (line.front() == '.') continue;
    // Statements: "{", "}", labels "$L__BB0_2:", and instructions "@%p1 bra $L__BB0_2;" (several per line in
    // inline assembly).
    std::size_t start = 0;
    while (start < line.size()) {
      const auto end = line.find(';', start);
      auto statement = trim(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
      start = end == std::string_view::npos ? line.size() : end + 1;
      while (!statement.empty() && (statement.front() == '{' || statement.front() == '}'))
        statement = trim(statement.substr(1));
      if (const auto label = statement.find(':');
          label != std::string_view::npos &&
          statement.substr(0, label).find_first_of(" \t") == std::string_view::npos &&
          statement.substr(0, label).find("::") == std::string_view::npos &&
          (label + 1 == statement.size() || statement[label + 1] != ':'))
        statement = trim(statement.substr(label + 1));
      if (statement.starts_with("@")) statement = trim(statement.substr(statement.find_first_of(" \t") + 1));
      // Declarations (.reg, .shared, ...) and the parentheses around a function's parameters.
      if (statement.empty() || statement.front() == '.' || statement.front() == '(' || statement.front() == ')')
        continue;
      const auto opcode = statement.substr(0, statement.find_first_of(" \t"));
      code.instructions.push_back({std::string(opcode), current});
    }
  }
  return code;
}

}  // namespace grader::static_check
