#include <harness/report_budget.hpp>

namespace harness {

std::string ReportBudget::take(std::string message) {
  if (message.empty()) return message;
  if (message.size() > kCaseBytes) message = message.substr(0, kCaseBytes) + " [...]";
  // Once one is left out, every later one is: the report keeps its messages from the first case on.
  if (closed_ || (spent_ > 0 && spent_ + message.size() > total_)) {
    closed_ = true;
    return "(left out: the report is full)";
  }
  spent_ += message.size();
  return message;
}

}  // namespace harness
