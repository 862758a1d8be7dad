//===- Data.cpp - Seeded inputs, stored weights, comparisons --------------===//
#include "test/halide/harness/Data.h"

#include "compiler/weights/ElementType.h"
#include "compiler/weights/Quantized.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace tfmc::halide;
using namespace tfmc::halide::harness;
namespace weights = tfmc::weights;

float Random::uniform(float low, float high) {
  return std::uniform_real_distribution<float>(low, high)(engine_);
}

int32_t Random::integer(int32_t low, int32_t high) {
  return std::uniform_int_distribution<int32_t>(low, high)(engine_);
}

uint8_t Random::byte() { return static_cast<uint8_t>(engine_() & 0xff); }

namespace {

weights::ElementType elementType(WeightType type) {
  switch (type) {
  case WeightType::F32:
    return weights::ElementType::F32;
  case WeightType::F16:
    return weights::ElementType::F16;
  case WeightType::BF16:
    return weights::ElementType::BF16;
  case WeightType::Q8_0:
    return weights::ElementType::Q8_0;
  case WeightType::Q4_0:
    return weights::ElementType::Q4_0;
  case WeightType::Q4_K:
    return weights::ElementType::Q4_K;
  case WeightType::Q5_K:
    return weights::ElementType::Q5_K;
  case WeightType::Q6_K:
    return weights::ElementType::Q6_K;
  }
  return weights::ElementType::F32;
}

void putHalf(uint8_t *at, float value) {
  uint16_t bits = weights::floatToHalf(value);
  std::memcpy(at, &bits, 2);
}

} // namespace

StoredMatrix tfmc::halide::harness::randomMatrix(Random &random,
                                                 WeightType type, int64_t rows,
                                                 int64_t features, float scale,
                                                 Specials specials) {
  StoredMatrix m;
  m.type = type;
  m.rows = rows;
  m.features = features;
  m.values.resize(rows * features);
  const int64_t count = rows * features;
  switch (type) {
  case WeightType::F32:
    m.bytes.resize(count * 4);
    for (int64_t i = 0; i < count; ++i)
      m.values[i] = random.uniform(-scale, scale);
    std::memcpy(m.bytes.data(), m.values.data(), m.bytes.size());
    return m;
  case WeightType::F16:
  case WeightType::BF16: {
    m.bytes.resize(count * 2);
    for (int64_t i = 0; i < count; ++i) {
      float value = random.uniform(-scale, scale);
      uint16_t bits = type == WeightType::F16 ? weights::floatToHalf(value)
                                              : weights::floatToBfloat16(value);
      std::memcpy(&m.bytes[i * 2], &bits, 2);
    }
    // Subnormals (smallest, largest, negative), -0, large finite values
    // (f16's largest; bf16's would overflow the f32 sums); then infinities
    // and NaN.
    static const uint16_t kHalf[] = {0x0001, 0x03ff, 0x8001, 0x8000, 0x7bff,
                                     0xfbff, 0x7c00, 0xfc00, 0x7e00};
    static const uint16_t kBfloat[] = {0x0001, 0x007f, 0x8001, 0x8000, 0x5f7f,
                                       0xdf7f, 0x7f80, 0xff80, 0x7fc0};
    size_t edges = std::min<size_t>(specials == Specials::All ? 9 : 6, count);
    std::memcpy(m.bytes.data(), type == WeightType::F16 ? kHalf : kBfloat,
                edges * 2);
    for (int64_t i = 0; i < count; ++i) {
      uint16_t bits;
      std::memcpy(&bits, &m.bytes[i * 2], 2);
      m.values[i] = type == WeightType::F16 ? weights::halfToFloat(bits)
                                            : weights::bfloat16ToFloat(bits);
    }
    return m;
  }
  default:
    break;
  }
  // Random quants; then the f16 scales of each block made finite and of
  // the wanted magnitude.
  const int64_t blockElements = weightBlockElements(type);
  const int64_t blockBytes = weightBlockBytes(type);
  const int64_t blocks = count / blockElements;
  m.bytes.resize(blocks * blockBytes);
  for (uint8_t &byte : m.bytes)
    byte = random.byte();
  for (int64_t b = 0; b < blocks; ++b) {
    uint8_t *block = &m.bytes[b * blockBytes];
    switch (type) {
    case WeightType::Q8_0:
      putHalf(block, random.uniform(0.5f, 1.5f) * scale / 127.0f);
      break;
    case WeightType::Q4_0:
      putHalf(block, random.uniform(0.5f, 1.5f) * scale / 8.0f);
      break;
    case WeightType::Q4_K:
    case WeightType::Q5_K:
      putHalf(block, random.uniform(0.5f, 1.5f) * scale / (63.0f * 31.0f));
      putHalf(block + 2, random.uniform(0.0f, 1.0f) * scale / 63.0f);
      break;
    case WeightType::Q6_K:
      putHalf(block + 208, random.uniform(0.5f, 1.5f) * scale / (127.0f * 32));
      break;
    default:
      break;
    }
  }
  weights::dequantizeBlocks(elementType(type),
                            reinterpret_cast<const char *>(m.bytes.data()),
                            static_cast<uint64_t>(blocks), m.values.data());
  return m;
}

std::vector<float> tfmc::halide::harness::randomTensor(Random &random,
                                                       int64_t count, float low,
                                                       float high) {
  std::vector<float> out(count);
  for (float &value : out)
    value = random.uniform(low, high);
  return out;
}

Halide::Runtime::Buffer<> &Arguments::add(const std::string &name,
                                          halide_type_t type,
                                          const std::vector<int64_t> &shape) {
  std::vector<int> sizes(shape.rbegin(), shape.rend());
  Halide::Runtime::Buffer<> buffer(type, sizes);
  std::memset(buffer.data(), 0, buffer.size_in_bytes());
  return buffers_[name] = std::move(buffer);
}

Halide::Runtime::Buffer<> &
Arguments::addFloats(const std::string &name, const std::vector<int64_t> &shape,
                     const std::vector<float> &values) {
  Halide::Runtime::Buffer<> &buffer =
      add(name, halide_type_t(halide_type_float, 32), shape);
  std::memcpy(buffer.data(), values.data(), values.size() * sizeof(float));
  return buffer;
}

Halide::Runtime::Buffer<> &Arguments::addMatrix(const std::string &name,
                                                const StoredMatrix &matrix) {
  halide_type_t type(halide_type_uint, 8);
  int64_t columns = matrix.bytes.size() / matrix.rows;
  if (matrix.type == WeightType::F32) {
    type = halide_type_t(halide_type_float, 32);
    columns = matrix.features;
  } else if (matrix.type == WeightType::F16 ||
             matrix.type == WeightType::BF16) {
    type = halide_type_t(halide_type_uint, 16);
    columns = matrix.features;
  }
  Halide::Runtime::Buffer<> &buffer = add(name, type, {matrix.rows, columns});
  std::memcpy(buffer.data(), matrix.bytes.data(), matrix.bytes.size());
  return buffer;
}

bool Arguments::collect(const halide_filter_metadata_t *metadata,
                        bool inputsChanged, std::vector<void *> &args,
                        std::vector<int32_t> &scalars, std::string &error) {
  args.clear();
  scalars.assign(metadata->num_arguments, 0);
  for (int i = 0; i < metadata->num_arguments; ++i) {
    const halide_filter_argument_t &arg = metadata->arguments[i];
    if (arg.kind == halide_argument_kind_input_scalar) {
      auto found = scalars_.find(arg.name);
      if (found == scalars_.end()) {
        error = std::string("the kernel takes a scalar '") + arg.name +
                "' the harness does not provide";
        return false;
      }
      scalars[i] = found->second;
      args.push_back(&scalars[i]);
      continue;
    }
    auto found = buffers_.find(arg.name);
    if (found == buffers_.end()) {
      error = std::string("the kernel takes a buffer '") + arg.name +
              "' the harness does not provide";
      return false;
    }
    Halide::Runtime::Buffer<> &buffer = found->second;
    if (buffer.type() != arg.type || buffer.dimensions() != arg.dimensions) {
      error = std::string("buffer '") + arg.name +
              "' has another type or rank than the kernel's";
      return false;
    }
    if (inputsChanged && arg.kind == halide_argument_kind_input_buffer)
      buffer.set_host_dirty();
    args.push_back(buffer.raw_buffer());
  }
  return true;
}

void Arguments::finish(const halide_filter_metadata_t *metadata) {
  for (int i = 0; i < metadata->num_arguments; ++i) {
    const halide_filter_argument_t &arg = metadata->arguments[i];
    if (arg.kind == halide_argument_kind_output_buffer)
      buffers_.at(arg.name).copy_to_host();
  }
  // Free device copies now, while the device interface is alive.
  for (auto &entry : buffers_)
    entry.second.device_free();
}

bool Arguments::call(int (*kernel)(void **),
                     const halide_filter_metadata_t *metadata, int &status,
                     std::string &error) {
  std::vector<void *> args;
  std::vector<int32_t> scalars;
  if (!collect(metadata, /*inputsChanged=*/true, args, scalars, error))
    return false;
  status = kernel(args.data());
  finish(metadata);
  return true;
}

bool Arguments::bench(int (*kernel)(void **),
                      const halide_filter_metadata_t *metadata, int calls,
                      std::vector<double> &seconds, int64_t &inputBytes,
                      std::string &error) {
  std::vector<void *> args;
  std::vector<int32_t> scalars;
  inputBytes = 0;
  std::vector<Halide::Runtime::Buffer<> *> outputs;
  for (int i = 0; i < metadata->num_arguments; ++i) {
    const halide_filter_argument_t &arg = metadata->arguments[i];
    auto found = buffers_.find(arg.name);
    if (found == buffers_.end())
      continue;
    if (arg.kind == halide_argument_kind_input_buffer)
      inputBytes += found->second.size_in_bytes();
    else if (arg.kind == halide_argument_kind_output_buffer)
      outputs.push_back(&found->second);
  }
  auto callAndWait = [&]() {
    int status = kernel(args.data());
    for (Halide::Runtime::Buffer<> *output : outputs)
      if (status == 0)
        status = output->device_sync();
    if (status != 0)
      error = std::string("kernel ") + metadata->name + " returned " +
              std::to_string(status) + " while timed";
    return status == 0;
  };
  // The untimed first call copies the inputs to the device.
  if (!collect(metadata, /*inputsChanged=*/true, args, scalars, error) ||
      !callAndWait())
    return false;
  if (!collect(metadata, /*inputsChanged=*/false, args, scalars, error))
    return false;
  seconds.clear();
  for (int i = 0; i < calls; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (!callAndWait())
      return false;
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(seconds.begin(), seconds.end());
  finish(metadata);
  return true;
}

bool tfmc::halide::harness::compare(const std::string &what, const float *got,
                                    const std::vector<double> &want,
                                    double tolerance) {
  double maxError = 0, maxReference = 0;
  size_t worst = 0;
  bool finite = true;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i]))
      finite = false;
    double error = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(error <= maxError)) {
      maxError = error;
      worst = i;
    }
    maxReference = std::max(maxReference, std::fabs(want[i]));
  }
  double relative = maxReference > 0 ? maxError / maxReference : maxError;
  bool ok = finite && relative <= tolerance;
  std::printf("%s: %zu values, max error %.3g relative %.3g (tolerance %.3g) "
              "at %zu: %.9g vs %.9g: %s\n",
              what.c_str(), want.size(), maxError, relative, tolerance, worst,
              got[worst], want[worst], ok ? "ok" : "FAIL");
  return ok;
}

bool tfmc::halide::harness::compareExact(const std::string &what,
                                         const float *got,
                                         const std::vector<float> &want) {
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (!(got[i] == want[i]) && !(std::isnan(got[i]) && std::isnan(want[i]))) {
      if (!mismatches)
        first = i;
      ++mismatches;
    }
  if (mismatches)
    std::printf("%s: %zu of %zu values differ, first at %zu: %.9g vs %.9g: "
                "FAIL\n",
                what.c_str(), mismatches, want.size(), first, got[first],
                want[first]);
  else
    std::printf("%s: %zu values equal: ok\n", what.c_str(), want.size());
  return mismatches == 0;
}
