#pragma once
/// @file report_budget.hpp
/// @brief How much of the cases' messages `labN check` writes, so that its report always fits what the grader reads.
///
/// The grader reads at most 64 KiB of a check's results an exercise (grader::ProcessOptions::capture_limit) and refuses
/// a longer report as unreadable, which once cost a plainly wrong scan its first mismatch. The report is capped where
/// it is made: every case still gets its line (shape, seed, ok), and each exercise's messages share a budget.
#include <cstddef>
#include <string>

namespace harness {

/// Hands out the message of each case in turn, cut to fit.
class ReportBudget {
 public:
  /// At most this much of one case's message (the first few mismatches and the hint fit in it).
  static constexpr std::size_t kCaseBytes = 1024;
  /// The whole report's target, under the grader's 64 KiB.
  static constexpr std::size_t kReportBytes = 56 * 1024;
  /// What a case's line takes without its message, at most (exercise, shape, a 20-digit seed, ok).
  static constexpr std::size_t kLineBytes = 160;
  /// A budget for a report of `cases` lines: what they leave of kReportBytes goes to their messages (the first
  /// failure's message comes whole whatever is left).
  explicit ReportBudget(std::size_t cases = 0)
      : total_(cases * kLineBytes < kReportBytes ? kReportBytes - cases * kLineBytes : 0) {}
  /// `message` as the report carries it: whole, cut to kCaseBytes, or, once the budget is spent, a note saying so
  /// (for it and every later one). The first failure's message always comes whole (up to kCaseBytes).
  std::string take(std::string message);

 private:
  std::size_t total_;
  std::size_t spent_ = 0;
  bool closed_ = false;  // a message was left out: so is every later one
};

}  // namespace harness
