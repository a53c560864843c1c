// The measures registry (measures.hpp) and the default ceiling, the device-to-device copy.
#include <harness/cuda_check.hpp>
#include <harness/measures.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace harness {
namespace {

std::map<std::string, Measures, std::less<>>& registry() {
  static std::map<std::string, Measures, std::less<>> measures;
  return measures;
}

class CopyCeiling final : public CeilingOp {
 public:
  explicit CopyCeiling(double bytes_moved)
      : half_(std::max<std::size_t>(static_cast<std::size_t>(bytes_moved / 2), 1 << 20)), src_(half_), dst_(half_) {
    CUDA_CHECK(cudaMemset(src_.get(), 1, half_));
  }
  void run(cudaStream_t s) override {
    CUDA_CHECK(cudaMemcpyAsync(dst_.get(), src_.get(), half_, cudaMemcpyDeviceToDevice, s));
  }
  [[nodiscard]] double amount() const override { return 2.0 * static_cast<double>(half_); }
  [[nodiscard]] std::string what() const override { return "device-to-device copy"; }

 private:
  std::size_t half_;
  DeviceBuffer<unsigned char> src_, dst_;
};

}  // namespace

std::unique_ptr<CeilingOp> copy_ceiling(double bytes_moved) { return std::make_unique<CopyCeiling>(bytes_moved); }

std::map<std::string, double> metric_errors(const std::function<std::map<std::string, double>(const Medians&)>& metrics,
                                            const Medians& medians, const Medians& log_errors) {
  const auto at = metrics(medians);
  std::map<std::string, double> variance;
  for (const auto& [name, value] : at) variance[name] = 0.0;
  for (const auto& [who, error] : log_errors) {
    const auto it = medians.find(who);
    if (it == medians.end() || !(error > 0)) continue;
    Medians moved = medians;
    moved[who] = it->second * std::exp(error);
    for (const auto& [name, value] : metrics(moved)) {
      const double change = value - at.at(name);
      variance[name] += std::isfinite(change) ? change * change : std::numeric_limits<double>::infinity();
    }
  }
  std::map<std::string, double> out;
  for (const auto& [name, v] : variance) out[name] = std::sqrt(v);
  return out;
}

const Measures& measures_of(std::string_view name) {
  static const Measures none;
  const auto it = registry().find(name);
  return it == registry().end() ? none : it->second;
}

MeasuresRegistrar::MeasuresRegistrar(const char* exercise, Measures measures) {
  if (!registry().emplace(exercise, std::move(measures)).second)
    throw std::logic_error(std::string("measures of exercise '") + exercise + "' registered twice");
}

}  // namespace harness
