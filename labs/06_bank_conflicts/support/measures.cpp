// What the referee times beside lab 06's exercises: each ceiling on buffers of its own. The transposes' is a copy with
// the transpose's access pattern (same_pattern_copy.cu), the same shape as the transpose; row_sums' a read stream of
// the same bytes (read_stream.cu).
#include "support/read_stream.hpp"
#include "support/same_pattern_copy.hpp"

#include <harness/cuda_check.hpp>
#include <harness/device.hpp>
#include <harness/measures.hpp>

#include <string>

namespace lab06 {
namespace {

using harness::Shape;

class SamePatternCopy final : public harness::CeilingOp {
 public:
  explicit SamePatternCopy(const Shape& s) : rows_(s[0]), cols_(s[1]), in_(rows_ * cols_), out_(rows_ * cols_) {
    CUDA_CHECK(cudaMemset(in_.get(), 0x3f, in_.size() * sizeof(float)));
  }
  void run(cudaStream_t stream) override { launch_same_pattern_copy(in_.get(), out_.get(), rows_, cols_, stream); }
  [[nodiscard]] double amount() const override { return 8.0 * rows_ * cols_; }
  [[nodiscard]] std::string what() const override {
    return "copy with the transpose's access pattern (32x32 tiles, rows in, rows out)";
  }

 private:
  std::int64_t rows_, cols_;
  harness::DeviceBuffer<float> in_, out_;
};

class ReadStream final : public harness::CeilingOp {
 public:
  explicit ReadStream(const Shape& s)
      : n_(s[0] * s[1]), blocks_(read_stream_blocks()), in_(n_), partials_(read_stream_partials(blocks_)) {
    CUDA_CHECK(cudaMemset(in_.get(), 0x3f, in_.bytes()));
  }
  void run(cudaStream_t stream) override { launch_read_stream(in_.get(), n_, partials_.get(), blocks_, stream); }
  [[nodiscard]] double amount() const override { return 4.0 * n_ + 4.0 * partials_.size(); }
  [[nodiscard]] std::string what() const override {
    return "read-only stream of the same bytes (grid-stride float4 loads, one float per warp written)";
  }

 private:
  std::int64_t n_;
  int blocks_;
  harness::DeviceBuffer<float> in_, partials_;
};

std::unique_ptr<harness::CeilingOp> transpose_ceiling(const Shape& s) { return std::make_unique<SamePatternCopy>(s); }

}  // namespace

REGISTER_MEASURES("transpose_tiled", {.ceiling = transpose_ceiling});
REGISTER_MEASURES("transpose_padded", {.ceiling = transpose_ceiling});
REGISTER_MEASURES("row_sums", {.ceiling = [](const Shape& s) { return std::make_unique<ReadStream>(s); }});

}  // namespace lab06
