#pragma once
// A tiny JSON Schema (draft-07) validator for the keywords tests/grader/data/*.schema.json use: type, enum, required,
// properties, additionalProperties (false), items, minimum. A keyword it does not know fails validation, so that a
// schema can never pass a document because the validator skipped part of it.

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace grader_test {

namespace detail {

inline bool has_type(const nlohmann::json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "number") return value.is_number();
  if (type == "integer") return value.is_number_integer() || value.is_number_unsigned();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  return false;
}

inline void validate(const nlohmann::json& value, const nlohmann::json& schema, const std::string& at,
                     std::vector<std::string>& problems) {
  for (const auto& [keyword, rule] : schema.items()) {
    if (keyword == "$schema" || keyword == "$comment" || keyword == "title") continue;
    if (keyword == "type") {
      if (!has_type(value, rule)) problems.push_back(at + ": not of type " + rule.get<std::string>());
    } else if (keyword == "enum") {
      if (std::find(rule.begin(), rule.end(), value) == rule.end())
        problems.push_back(at + ": " + value.dump() + " is not one of " + rule.dump());
    } else if (keyword == "minimum") {
      if (value.is_number() && value.get<double>() < rule.get<double>())
        problems.push_back(at + ": below " + rule.dump());
    } else if (keyword == "required") {
      for (const auto& key : rule)
        if (value.is_object() && !value.contains(key)) problems.push_back(at + ": no key " + key.dump());
    } else if (keyword == "properties") {
      if (!value.is_object()) continue;
      for (const auto& [key, sub] : rule.items())
        if (value.contains(key)) validate(value[key], sub, at + "." + key, problems);
    } else if (keyword == "additionalProperties") {
      if (rule != false) problems.push_back(at + ": the validator knows only additionalProperties: false");
      if (!value.is_object()) continue;
      const auto known = schema.value("properties", nlohmann::json::object());
      for (const auto& [key, unused] : value.items())
        if (!known.contains(key)) problems.push_back(at + ": unknown key \"" + key + "\"");
    } else if (keyword == "items") {
      if (!value.is_array()) continue;
      for (std::size_t i = 0; i < value.size(); ++i)
        validate(value[i], rule, at + "[" + std::to_string(i) + "]", problems);
    } else {
      problems.push_back(at + ": the validator does not know the keyword " + keyword);
    }
  }
}

}  // namespace detail

/// Every way `value` breaks `schema`, one line each ("$.tests[1]: no key \"status\""); empty when it is valid.
inline std::vector<std::string> schema_problems(const nlohmann::json& value, const nlohmann::json& schema) {
  std::vector<std::string> problems;
  detail::validate(value, schema, "$", problems);
  return problems;
}

}  // namespace grader_test
