//===- TensorView.cpp - Element type + shape + bytes of one tensor --------===//
#include "compiler/weights/TensorView.h"

#include "compiler/weights/Quantized.h"
#include "compiler/weights/StoragePool.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace tfmc::weights;

uint64_t tfmc::weights::numElements(llvm::ArrayRef<int64_t> shape) {
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

std::string tfmc::weights::shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

TensorView::TensorView(ElementType type, Shape shape, const char *data,
                       std::shared_ptr<const void> owner)
    : type_(type), shape_(std::move(shape)), data_(data),
      owner_(std::move(owner)) {}

TensorView TensorView::create(ElementType type, Shape shape,
                              llvm::function_ref<void(char *)> fill) {
  uint64_t size = storageBytes(type, weights::numElements(shape));
  std::shared_ptr<char> storage = allocateStorage(size);
  fill(storage.get());
  const char *data = storage.get();
  return TensorView(type, std::move(shape), data, std::move(storage));
}

TensorView TensorView::fromF32(Shape shape, std::vector<float> values) {
  assert(values.size() == weights::numElements(shape) &&
         "values do not fill the shape");
  auto storage = std::make_shared<std::vector<float>>(std::move(values));
  const char *data = reinterpret_cast<const char *>(storage->data());
  return TensorView(ElementType::F32, std::move(shape), data,
                    std::move(storage));
}

TensorView TensorView::select(int64_t index) const {
  assert(rank() >= 1 && index >= 0 && index < shape_[0] && "out of range");
  Shape inner(shape_.begin() + 1, shape_.end());
  uint64_t stride = storageBytes(type_, weights::numElements(inner));
  return TensorView(type_, std::move(inner), data_ + index * stride, owner_);
}

TensorView TensorView::rows(int64_t begin, int64_t count) const {
  assert(rank() >= 1 && begin >= 0 && count >= 0 &&
         begin + count <= shape_[0] && "out of range");
  Shape inner(shape_.begin() + 1, shape_.end());
  uint64_t stride = storageBytes(type_, weights::numElements(inner));
  Shape result = shape_;
  result[0] = count;
  return TensorView(type_, std::move(result), data_ + begin * stride, owner_);
}

TensorView TensorView::reshaped(Shape shape) const {
  assert(weights::numElements(shape) == numElements() &&
         "a reshape keeps the number of elements");
  return TensorView(type_, std::move(shape), data_, owner_);
}

namespace {

/// The first element whose bits `matches`. Blocks are scanned without an
/// early exit, so the compiler vectorises the common case of none.
template <typename Bits, typename Matches>
std::optional<uint64_t> firstMatching(const char *data, uint64_t count,
                                      Matches matches) {
  constexpr uint64_t kBlock = 1024;
  auto at = [&](uint64_t i) {
    Bits bits;
    std::memcpy(&bits, data + i * sizeof(Bits), sizeof(Bits));
    return matches(bits);
  };
  for (uint64_t start = 0; start < count; start += kBlock) {
    uint64_t end = std::min(count, start + kBlock);
    bool any = false;
    for (uint64_t i = start; i < end; ++i)
      any |= at(i);
    if (!any)
      continue;
    for (uint64_t i = start; i < end; ++i)
      if (at(i))
        return i;
  }
  return std::nullopt;
}

/// The first element whose exponent bits (`mask`) are all set: an infinity
/// or a NaN in every IEEE-style format.
template <typename Bits>
std::optional<uint64_t> firstAllOnesExponent(const char *data, uint64_t count,
                                             Bits mask) {
  return firstMatching<Bits>(
      data, count, [mask](Bits bits) { return (bits & mask) == mask; });
}

} // namespace

std::optional<uint64_t> tfmc::weights::findNonFinite(const TensorView &tensor) {
  uint64_t count = tensor.numElements();
  switch (tensor.type()) {
  case ElementType::F32:
    return firstAllOnesExponent<uint32_t>(tensor.data(), count, 0x7f800000u);
  case ElementType::F16:
    return firstAllOnesExponent<uint16_t>(tensor.data(), count, 0x7c00u);
  case ElementType::BF16:
    return firstAllOnesExponent<uint16_t>(tensor.data(), count, 0x7f80u);
  case ElementType::Q8_0:
  case ElementType::Q4_0:
  case ElementType::Q4_K:
  case ElementType::Q5_K:
  case ElementType::Q6_K: {
    // The integers are finite: a block is as finite as its scales.
    uint32_t block = blockElements(tensor.type());
    for (uint64_t b = 0, blocks = count / block; b < blocks; ++b)
      if (!blockScalesFinite(tensor.type(), tensor.data(), b))
        return b * block;
    return std::nullopt;
  }
  }
  return std::nullopt;
}

std::optional<uint64_t>
tfmc::weights::findBeyond2To64(const TensorView &tensor) {
  uint64_t count = tensor.numElements();
  // |v| >= 2^64: a biased exponent of at least 127 + 64, the sign aside
  // (bf16 keeps f32's exponent in its upper half).
  switch (tensor.type()) {
  case ElementType::F32:
    return firstMatching<uint32_t>(tensor.data(), count, [](uint32_t bits) {
      return (bits & 0x7fffffffu) >= 0x5f800000u;
    });
  case ElementType::BF16:
    return firstMatching<uint16_t>(tensor.data(), count, [](uint16_t bits) {
      return (bits & 0x7fffu) >= 0x5f80u;
    });
  default:
    // f16 stops at 65504, and the blocks' f16 scales times their integers
    // far below 2^64.
    return std::nullopt;
  }
}

float tfmc::weights::elementAsFloat(const TensorView &tensor, uint64_t index) {
  if (isBlockQuantized(tensor.type())) {
    uint32_t elements = blockElements(tensor.type());
    std::vector<float> block(elements);
    dequantizeBlocks(tensor.type(),
                     tensor.data() +
                         index / elements * blockBytes(tensor.type()),
                     1, block.data());
    return block[index % elements];
  }
  const char *at = tensor.data() + index * storageBytes(tensor.type(), 1);
  if (tensor.type() == ElementType::F32) {
    float value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, at, sizeof(bits));
  return tensor.type() == ElementType::F16 ? halfToFloat(bits)
                                           : bfloat16ToFloat(bits);
}
