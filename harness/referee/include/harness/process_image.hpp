#pragma once
/// @file process_image.hpp
/// @brief What a runner process has that could run code: its threads and its executable mappings, as /proc shows
/// them. The referee notes them when a runner has set itself up and compares them after each of its turns
/// (runner.hpp): a thread or a page of code that appeared since is the submission's, and is refused.
#include <sys/types.h>

#include <set>
#include <string>

namespace harness {

/// The threads and executable mappings of a process at one moment.
struct ProcessImage {
  std::set<std::string> threads;  ///< thread ids (/proc/PID/task)
  std::set<std::string> code;     ///< executable mappings, "start-end path" (/proc/PID/maps, `x` in the permissions)
  bool readable = false;          ///< /proc answered (the process exists and this one may read it)

  /// The image of process `pid` now (best read while it is stopped).
  static ProcessImage of(pid_t pid);
  /// What `now` has that this image had not, in words ("started 1 thread; mapped new code: 7f..-7f.. [anon]"), or ""
  /// when nothing appeared (threads that ended and mappings that went away are no one's concern).
  [[nodiscard]] std::string grown_in(const ProcessImage& now) const;
};

}  // namespace harness
