#include <harness/report_budget.hpp>

namespace harness {

std::string ReportBudget::take(std::string message) {
  if (message.empty()) return message;
  if (message.size() > kCaseBytes) message = message.substr(0, kCaseBytes) + " [...]";
  // Once one is left out, every later one is: the report keeps its messages from the first case on.
  if (closed_ || (spent_ > 0 && spent_ + message.size() > kTotalBytes)) {
    closed_ = true;
    return "(message left out: the report keeps the first " + std::to_string(kTotalBytes / 1024) +
           " KiB of messages)";
  }
  spent_ += message.size();
  return message;
}

}  // namespace harness
