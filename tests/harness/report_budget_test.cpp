// What `labN check` writes of its cases' messages (harness/report_budget.hpp): the report fits what the grader reads,
// and the first failure keeps its message.
#include <harness/report_budget.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>

using Catch::Matchers::ContainsSubstring;
using harness::ReportBudget;

TEST_CASE("a check report's lines and messages stay within what the grader reads, the first failure's whole",
          "[harness][report]") {
  // Every case of a plan failing with messages far longer than a comparison writes: a report of `cases` lines of
  // 110 bytes each (the longest a case's line takes without its message: a 20-digit seed, a 3-D shape) and their
  // messages. The largest plan of the course's labs has 219 cases (lab 06 row_sums, three seeds).
  for (const std::size_t cases : {std::size_t{3}, std::size_t{219}, std::size_t{350}}) {
    CAPTURE(cases);
    ReportBudget budget(cases);
    const std::string first = "output 'y': 4 of 4 elements differ; first at [0]: got 1, expected 2" +
                              std::string(80, '.');
    std::size_t report = cases * 110 + budget.take(first).size();
    for (std::size_t k = 1; k < cases; ++k) report += budget.take(std::string(5000, 'x')).size();
    CHECK(report <= 64 * 1024);
    if (cases > 3) {  // the budget was spent: once one is left out, every later one is, short
      CHECK_THAT(budget.take("late"), ContainsSubstring("left out"));
    } else {  // a few cases: every message whole (cut to kCaseBytes)
      CHECK(budget.take("late") == "late");
    }
    CHECK(budget.take("").empty());  // a passing case has no message to cut
  }
  ReportBudget budget(1000);  // lines alone fill the report: the first message still comes whole
  CHECK(budget.take("first") == "first");
}

TEST_CASE("a long first message is cut to one case's share, not dropped", "[harness][report]") {
  ReportBudget budget;
  const auto message = budget.take(std::string(10000, 'x'));
  CHECK(message.size() <= ReportBudget::kCaseBytes + 8);
  CHECK(message.starts_with(std::string(100, 'x')));
}
