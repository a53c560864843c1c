// What `labN check` writes of its cases' messages (harness/report_budget.hpp): the report fits what the grader reads,
// and the first failure keeps its message.
#include <harness/report_budget.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>

using Catch::Matchers::ContainsSubstring;
using harness::ReportBudget;

TEST_CASE("a check report's messages stay within their budget, the first failure's whole", "[harness][report]") {
  ReportBudget budget;
  // Every case of the largest plan failing with the longest message a comparison writes (five mismatches), twice over.
  const std::string first = "output 'y': 4 of 4 elements differ; first at [0]: got 1, expected 2" + std::string(80, '.');
  CHECK(budget.take(first) == first);
  std::size_t total = first.size();
  for (int k = 0; k < 2000; ++k) total += budget.take(std::string(5000, 'x')).size();
  // Each later message cut to kCaseBytes (plus its marker) until the budget is spent, then a short note.
  CHECK(total <= ReportBudget::kTotalBytes + 2000 * 80);
  CHECK_THAT(budget.take("late"), ContainsSubstring("left out"));
  CHECK(budget.take("").empty());  // a passing case has no message to cut
}

TEST_CASE("a long first message is cut to one case's share, not dropped", "[harness][report]") {
  ReportBudget budget;
  const auto message = budget.take(std::string(10000, 'x'));
  CHECK(message.size() <= ReportBudget::kCaseBytes + 8);
  CHECK(message.starts_with(std::string(100, 'x')));
}
