//===- Transforms.cpp - Cast, transpose, stack: one library for all -------===//
//
// Elements are moved with fixed-size memcpy (one load and one store after
// optimisation): model-file views need not be aligned to their element size.
//
//===----------------------------------------------------------------------===//
#include "compiler/weights/Transforms.h"

#include "compiler/weights/Quantized.h"

#include "llvm/Support/SwapByteOrder.h"

#include <cassert>
#include <cstring>

using namespace tfmc::weights;

static_assert(llvm::sys::IsLittleEndianHost,
              "tensor bytes are little-endian and used in place");

namespace {

/// Element `i` of `data` (of type `type`) as a float, exactly.
float readElement(ElementType type, const char *data, uint64_t i) {
  if (type == ElementType::F32) {
    float value;
    std::memcpy(&value, data + i * sizeof(float), sizeof(float));
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, data + i * sizeof(bits), sizeof(bits));
  return type == ElementType::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
}

/// Writes `value` as element `i` of `data` (of type `type`), rounded to
/// nearest even when `type` is narrower.
void writeElement(ElementType type, char *data, uint64_t i, float value) {
  if (type == ElementType::F32) {
    std::memcpy(data + i * sizeof(float), &value, sizeof(float));
    return;
  }
  uint16_t bits =
      type == ElementType::F16 ? floatToHalf(value) : floatToBfloat16(value);
  std::memcpy(data + i * sizeof(bits), &bits, sizeof(bits));
}

template <unsigned Size>
void transposeElements(const char *in, int64_t rows, int64_t cols, char *out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(out + (c * rows + r) * Size, in + (r * cols + c) * Size,
                  Size);
}

} // namespace

llvm::Expected<TensorView> tfmc::weights::cast(const TensorView &tensor,
                                               ElementType to) {
  if (tensor.type() == to)
    return tensor;
  if (isBlockQuantized(to))
    return llvm::createStringError(llvm::Twine("cannot convert ") +
                                   elementTypeName(tensor.type()) + " to " +
                                   elementTypeName(to));
  if (isBlockQuantized(tensor.type())) {
    // Dequantized exactly (see Quantized.h), then narrowed if asked.
    TensorView wide =
        TensorView::create(ElementType::F32, tensor.shape(), [&](char *out) {
          dequantizeBlocks(tensor.type(), tensor.data(),
                           tensor.numElements() / blockElements(tensor.type()),
                           reinterpret_cast<float *>(out));
        });
    return cast(wide, to);
  }
  // Every scalar type widens to f32 exactly, so one rounding at most.
  return TensorView::create(to, tensor.shape(), [&](char *out) {
    for (uint64_t i = 0, count = tensor.numElements(); i < count; ++i)
      writeElement(to, out, i, readElement(tensor.type(), tensor.data(), i));
  });
}

TensorView tfmc::weights::transpose(const TensorView &matrix) {
  assert(!isBlockQuantized(matrix.type()) &&
         "blocks do not transpose: dequantize first");
  int64_t rows = matrix.shape()[0], cols = matrix.shape()[1];
  return TensorView::create(matrix.type(), {cols, rows}, [&](char *out) {
    if (blockBytes(matrix.type()) == 4)
      transposeElements<4>(matrix.data(), rows, cols, out);
    else
      transposeElements<2>(matrix.data(), rows, cols, out);
  });
}

llvm::Expected<TensorView>
tfmc::weights::stack(llvm::ArrayRef<TensorView> parts) {
  if (parts.empty())
    return llvm::createStringError("nothing to stack");
  if (parts.size() == 1)
    return parts.front();
  const TensorView &first = parts.front();
  Shape shape = first.shape();
  if (shape.empty())
    return llvm::createStringError("cannot stack scalars");
  shape[0] = 0;
  for (const TensorView &part : parts) {
    bool sameTail = part.rank() == first.rank() &&
                    std::equal(part.shape().begin() + 1, part.shape().end(),
                               first.shape().begin() + 1);
    if (part.type() != first.type() || !sameTail)
      return llvm::createStringError(
          llvm::Twine("cannot stack ") + elementTypeName(part.type()) + " " +
          shapeString(part.shape()) + " onto " + elementTypeName(first.type()) +
          " " + shapeString(first.shape()));
    shape[0] += part.shape()[0];
  }
  return TensorView::create(first.type(), shape, [&](char *out) {
    for (const TensorView &part : parts) {
      std::memcpy(out, part.data(), part.bytes());
      out += part.bytes();
    }
  });
}
