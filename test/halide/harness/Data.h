//===- Data.h - Seeded inputs, stored weights, comparisons ------*- C++ -*-===//
#ifndef TFMC_TEST_HALIDE_HARNESS_DATA_H
#define TFMC_TEST_HALIDE_HARNESS_DATA_H

#include "compiler/backends/halide/KernelDescription.h"

#include "HalideBuffer.h"

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace tfmc::halide::harness {

/// Deterministic across runs and machines of one C++ library.
class Random {
public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  float uniform(float low, float high);
  int32_t integer(int32_t low, int32_t high);
  uint8_t byte();

private:
  std::mt19937_64 engine_;
};

/// A `[rows, features]` weight matrix as tfmc stores it (the bytes the
/// kernel reads) and the values compiler/weights reads from those bytes.
struct StoredMatrix {
  WeightType type = WeightType::F32;
  int64_t rows = 0, features = 0;
  std::vector<uint8_t> bytes;
  std::vector<float> values;

  float at(int64_t row, int64_t feature) const {
    return values[row * features + feature];
  }
};

/// Which edge values a 16-bit float matrix starts with.
enum class Specials {
  Finite, ///< subnormals, -0 and the largest finite values
  All,    ///< also infinities and NaN (tables copied, never summed)
};

/// Random values of magnitude about `scale`; the block-quantized types get
/// random quants and finite random scales. f16 and bf16 matrices start with
/// `specials`, so that every class of value is decoded.
StoredMatrix randomMatrix(Random &random, WeightType type, int64_t rows,
                          int64_t features, float scale,
                          Specials specials = Specials::Finite);

/// An f32 tensor of row-major `shape`, uniform in [low, high).
std::vector<float> randomTensor(Random &random, int64_t count, float low,
                                float high);

/// Named arguments of one kernel call; buffers are host memory, row-major
/// shapes are given outermost first.
class Arguments {
public:
  Halide::Runtime::Buffer<> &add(const std::string &name, halide_type_t type,
                                 const std::vector<int64_t> &shape);
  Halide::Runtime::Buffer<> &addFloats(const std::string &name,
                                       const std::vector<int64_t> &shape,
                                       const std::vector<float> &values);
  Halide::Runtime::Buffer<> &addMatrix(const std::string &name,
                                       const StoredMatrix &matrix);
  void setScalar(const std::string &name, int32_t value) {
    scalars_[name] = value;
  }
  Halide::Runtime::Buffer<> &buffer(const std::string &name) {
    return buffers_.at(name);
  }
  const float *floats(const std::string &name) {
    return static_cast<const float *>(buffers_.at(name).data());
  }

  /// Calls the kernel with the arguments its metadata names, in its order;
  /// false and a message when one is missing or of another type. Output
  /// buffers are copied back from the device where the kernel ran on one.
  bool call(int (*kernel)(void **), const halide_filter_metadata_t *metadata,
            int &status, std::string &error);

  /// Times `calls` calls of the kernel with its data resident where it
  /// runs: inputs are copied to the device once (an untimed first call)
  /// and each timed call ends when its outputs are ready
  /// (halide_device_sync), so a GPU kernel's time is its launch and its
  /// work, not the copies. `seconds` gets each call's time, sorted;
  /// `inputBytes` the bytes of the input buffers (what one call reads at
  /// least once). False and a message as for call().
  bool bench(int (*kernel)(void **), const halide_filter_metadata_t *metadata,
             int calls, std::vector<double> &seconds, int64_t &inputBytes,
             std::string &error);

private:
  /// The kernel's argument vector in its metadata's order; input buffers
  /// are marked host-dirty (copied to a device on the next call) when
  /// `inputsChanged`.
  bool collect(const halide_filter_metadata_t *metadata, bool inputsChanged,
               std::vector<void *> &args, std::vector<int32_t> &scalars,
               std::string &error);
  /// Copies the outputs back and frees every device copy.
  void finish(const halide_filter_metadata_t *metadata);

  std::map<std::string, Halide::Runtime::Buffer<>> buffers_;
  std::map<std::string, int32_t> scalars_;
};

/// Compares `got` with `want` normwise: max |got - want| <= tolerance *
/// max |want|. Prints one line naming `what`; true when it holds.
bool compare(const std::string &what, const float *got,
             const std::vector<double> &want, double tolerance);

/// The f32 element-for-element check: every value equal (NaN to NaN).
bool compareExact(const std::string &what, const float *got,
                  const std::vector<float> &want);

} // namespace tfmc::halide::harness

#endif // TFMC_TEST_HALIDE_HARNESS_DATA_H
