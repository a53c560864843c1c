#pragma once
/// @file report_budget.hpp
/// @brief How much of the cases' messages `labN check` writes, so that its report always fits what the grader reads.
///
/// The grader reads at most 64 KiB of a check's results (grader::ProcessOptions::capture_limit) and refuses a longer
/// report as unreadable, which once cost a plainly wrong scan its first mismatch. The report is capped where it is
/// made: every case still gets its line (shape, seed, ok), and messages share a budget.
#include <cstddef>
#include <string>

namespace harness {

/// Hands out the message of each case in turn, cut to fit.
class ReportBudget {
 public:
  /// At most this much of one case's message (the first few mismatches and the hint fit in it).
  static constexpr std::size_t kCaseBytes = 1024;
  /// At most this much of all messages together: with a line of about 150 bytes for each of a few hundred cases, the
  /// report stays well under the grader's 64 KiB.
  static constexpr std::size_t kTotalBytes = 24 * 1024;
  /// `message` as the report carries it: whole, cut to kCaseBytes, or, once the budget is spent, a note saying so
  /// (for it and every later one). The first failure's message always comes whole (up to kCaseBytes).
  std::string take(std::string message);

 private:
  std::size_t spent_ = 0;
  bool closed_ = false;  // a message was left out: so is every later one
};

}  // namespace harness
