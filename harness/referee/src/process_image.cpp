// ProcessImage (process_image.hpp): a process's threads and executable mappings, read from /proc.
#include <harness/process_image.hpp>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

ProcessImage ProcessImage::of(pid_t pid) {
  ProcessImage image;
  const std::string proc = "/proc/" + std::to_string(pid);
  if (DIR* tasks = ::opendir((proc + "/task").c_str())) {
    while (const dirent* entry = ::readdir(tasks))
      if (entry->d_name[0] != '.') image.threads.insert(entry->d_name);
    ::closedir(tasks);
  }
  std::ifstream maps(proc + "/maps");
  image.readable = !image.threads.empty() && maps.good();
  // "start-end perms offset dev inode path": the fourth character of perms is x for an executable mapping.
  for (std::string line; std::getline(maps, line);) {
    const auto space = line.find(' ');
    if (space == std::string::npos || line.size() < space + 4 || line[space + 3] != 'x') continue;
    const auto path = line.find_first_of("/[", space);
    std::string entry = line.substr(0, space);
    entry.append(path == std::string::npos ? std::string_view(" [anon]") : std::string_view(line).substr(path - 1));
    image.code.insert(std::move(entry));
  }
  return image;
}

std::string ProcessImage::grown_in(const ProcessImage& now) const {
  std::vector<std::string> threads, code;
  std::set_difference(now.threads.begin(), now.threads.end(), this->threads.begin(), this->threads.end(),
                      std::back_inserter(threads));
  std::set_difference(now.code.begin(), now.code.end(), this->code.begin(), this->code.end(),
                      std::back_inserter(code));
  std::string out;
  if (!threads.empty())
    out = "started " + std::to_string(threads.size()) + (threads.size() == 1 ? " thread" : " threads");
  if (!code.empty()) out += (out.empty() ? "" : "; ") + std::string("mapped new code: ") + code.front();
  return out;
}

}  // namespace harness
