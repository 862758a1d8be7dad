//===- LoaderSupport.cpp - Helpers shared by the model-file loaders --------===//
//
// File access, error construction and element conversions shared by the
// llama2.c, GGUF and Hugging Face loaders.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/LoaderSupport.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tfmc::frontends {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
openFile(const std::string &path, llvm::StringRef what) {
  // Not null-terminated and not text: lets the buffer be an mmap of the file,
  // which matters for multi-gigabyte weights.
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(llvm::Twine("cannot read ") + what + " '" + path +
                     "': " + buffer.getError().message());
  return std::move(*buffer);
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

uint64_t numElements(const std::vector<int64_t> &shape) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return max;
    uint64_t extent = static_cast<uint64_t>(dim);
    if (extent != 0 && count > max / extent)
      return max;
    count *= extent;
  }
  return count;
}

std::string layerTensorName(int64_t layer, llvm::StringRef suffix) {
  return "layers." + std::to_string(layer) + "." + suffix.str();
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: value = mantissa * 2^-24, exact in f32.
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t out;
  if (exponent == 0x1f)
    out = sign | 0x7f800000u | (mantissa << 13); // inf / NaN keep payload
  else
    out = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  float value;
  std::memcpy(&value, &out, sizeof(value));
  return value;
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t out = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &out, sizeof(value));
  return value;
}

std::vector<float> readF32(const char *bytes, uint64_t count) {
  std::vector<float> values(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t raw = llvm::support::endian::read32le(bytes + 4 * i);
    std::memcpy(&values[i], &raw, sizeof(float));
  }
  return values;
}

std::vector<float> readF16(const char *bytes, uint64_t count) {
  std::vector<float> values(count);
  for (uint64_t i = 0; i < count; ++i)
    values[i] = halfToFloat(llvm::support::endian::read16le(bytes + 2 * i));
  return values;
}

std::vector<float> readBF16(const char *bytes, uint64_t count) {
  std::vector<float> values(count);
  for (uint64_t i = 0; i < count; ++i)
    values[i] = bfloat16ToFloat(llvm::support::endian::read16le(bytes + 2 * i));
  return values;
}

std::vector<float> transpose(const float *src, int64_t rows, int64_t cols) {
  std::vector<float> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[c * rows + r] = src[r * cols + c];
  return out;
}

std::string metaspaceToSpace(llvm::StringRef piece) {
  static const char kMetaspace[] = "\xE2\x96\x81"; // U+2581 in UTF-8
  std::string out;
  out.reserve(piece.size());
  while (!piece.empty()) {
    if (piece.consume_front(kMetaspace)) {
      out += ' ';
      continue;
    }
    out += piece.front();
    piece = piece.drop_front();
  }
  return out;
}

std::string fileName(llvm::StringRef path) {
  // "." and ".." say nothing about the model: name the real directory.
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(path, real))
    path = real;
  llvm::StringRef name = llvm::sys::path::filename(path.rtrim('/'));
  return name.empty() ? path.str() : name.str();
}

} // namespace tfmc::frontends
