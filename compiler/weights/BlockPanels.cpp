//===- BlockPanels.cpp - Q8_0 / Q4_0 weights as column panels -------------===//
#include "compiler/weights/BlockPanels.h"

#include <cmath>
#include <cstring>

using namespace tfmc::weights;

namespace {

/// ggml's quantize_row_q8_0_ref for one block: d = max|x| / 127, q =
/// roundf(x * (1 / d)) (half away from zero).
void quantizeBlockQ8_0(const float *x, char *out) {
  float amax = 0.0f;
  for (int64_t j = 0; j < kQuantBlock; ++j)
    amax = std::max(amax, std::fabs(x[j]));
  float d = amax / 127.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  uint16_t bits = floatToHalf(d);
  std::memcpy(out, &bits, sizeof(bits));
  for (int64_t j = 0; j < kQuantBlock; ++j)
    out[2 + j] = static_cast<char>(static_cast<int8_t>(std::roundf(x[j] * id)));
}

/// ggml's quantize_row_q4_0_ref for one block: m = the value of largest
/// magnitude (the first on ties), d = m / -8, q = min(15, trunc(x * (1 / d)
/// + 8.5)); byte j holds q[j] low and q[j + 16] high.
void quantizeBlockQ4_0(const float *x, char *out) {
  float amax = 0.0f, max = 0.0f;
  for (int64_t j = 0; j < kQuantBlock; ++j)
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  float d = max / -8.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  uint16_t bits = floatToHalf(d);
  std::memcpy(out, &bits, sizeof(bits));
  for (int64_t j = 0; j < kQuantBlock / 2; ++j) {
    auto nibble = [&](float value) {
      return std::min<int>(15, static_cast<int8_t>(value * id + 8.5f));
    };
    out[2 + j] =
        static_cast<char>(nibble(x[j]) | (nibble(x[j + kQuantBlock / 2]) << 4));
  }
}

} // namespace

int64_t tfmc::weights::quantBytesPerBlock(ElementType format) {
  return format == ElementType::Q4_0 ? kQuantBlock / 2 : kQuantBlock;
}

llvm::Expected<TensorView> tfmc::weights::quantizeRows(const TensorView &matrix,
                                                       ElementType format) {
  if (!isBlockQuantized(format))
    return llvm::createStringError(llvm::Twine(elementTypeName(format)) +
                                   " is not a block-quantized type");
  if (matrix.type() != ElementType::F32 || matrix.rank() != 2 ||
      matrix.shape()[1] % kQuantBlock != 0)
    return llvm::createStringError(
        llvm::Twine("cannot quantize a ") + elementTypeName(matrix.type()) +
        " " + shapeString(matrix.shape()) + " tensor to " +
        elementTypeName(format) + ": its rows are not whole blocks of 32");
  uint64_t blocks = matrix.numElements() / kQuantBlock;
  return TensorView::create(format, matrix.shape(), [&](char *out) {
    const auto *values = reinterpret_cast<const float *>(matrix.data());
    std::vector<float> block(kQuantBlock);
    for (uint64_t b = 0; b < blocks; ++b, out += blockBytes(format)) {
      // The view's data need not be aligned for floats.
      std::memcpy(block.data(),
                  reinterpret_cast<const char *>(values) +
                      b * kQuantBlock * sizeof(float),
                  kQuantBlock * sizeof(float));
      if (format == ElementType::Q8_0)
        quantizeBlockQ8_0(block.data(), out);
      else
        quantizeBlockQ4_0(block.data(), out);
    }
  });
}

llvm::Expected<std::string>
tfmc::weights::packBlockPanels(const TensorView &blocks, int64_t panels,
                               int64_t width, bool scales,
                               int64_t bytesPerLane) {
  ElementType format = blocks.type();
  if (!isBlockQuantized(format) || blocks.rank() != 2 ||
      blocks.shape()[0] > panels * width)
    return llvm::createStringError(
        llvm::Twine("a ") + elementTypeName(format) + " " +
        shapeString(blocks.shape()) + " matrix does not fit " +
        llvm::Twine(panels) + " block-quantized panels of " +
        llvm::Twine(width) + " rows");
  int64_t rows = blocks.shape()[0];
  int64_t rowBlocks = blocks.shape()[1] / kQuantBlock;
  int64_t perBlock = quantBytesPerBlock(format);
  if (bytesPerLane < 1 || perBlock % bytesPerLane != 0)
    return llvm::createStringError(llvm::Twine("cannot pack ") +
                                   elementTypeName(format) + " quants " +
                                   llvm::Twine(bytesPerLane) + " bytes a lane");
  uint32_t size = blockBytes(format);
  // A padding row is all zero: scale 0, and quants that are the zero value
  // (0 for Q8_0, nibble 8 for Q4_0) so that even 0 * inf stays out.
  char zeroQuant = format == ElementType::Q4_0 ? char(0x88) : char(0);
  std::string out;
  out.resize(scales ? panels * rowBlocks * width * 2
                    : panels * rowBlocks * perBlock * width);
  char *next = out.data();
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t b = 0; b < rowBlocks; ++b) {
      if (scales) {
        for (int64_t j = 0; j < width; ++j, next += 2) {
          int64_t row = p * width + j;
          if (row < rows)
            std::memcpy(next, blocks.data() + (row * rowBlocks + b) * size, 2);
          else
            std::memset(next, 0, 2);
        }
        continue;
      }
      for (int64_t i = 0; i < perBlock; i += bytesPerLane)
        for (int64_t j = 0; j < width; ++j)
          for (int64_t t = 0; t < bytesPerLane; ++t, ++next) {
            int64_t row = p * width + j;
            *next =
                row < rows
                    ? blocks.data()[(row * rowBlocks + b) * size + 2 + i + t]
                    : zeroQuant;
          }
    }
  return out;
}
