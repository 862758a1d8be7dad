//===- TensorView.h - Element type + shape + bytes of one tensor ----------===//
//
// A TensorView is what every stage passes weights around as: an element
// type, a shape (outermost first) and the tensor's bytes, which point into a
// memory-mapped model file or into owned storage (presets, transformed
// tensors). The bytes are kept alive by shared ownership, so a view may
// outlive the reader that made it and copying a view never copies data.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_TENSORVIEW_H
#define TFMC_COMPILER_WEIGHTS_TENSORVIEW_H

#include "compiler/weights/ElementType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tfmc::weights {

using Shape = std::vector<int64_t>;

/// Number of elements of `shape`, saturating at UINT64_MAX (negative extents
/// saturate too) so that corrupt headers fail size checks.
uint64_t numElements(llvm::ArrayRef<int64_t> shape);

/// "[64, 512]".
std::string shapeString(llvm::ArrayRef<int64_t> shape);

class TensorView {
public:
  TensorView() = default;
  /// Views `storageBytes(type, numElements(shape))` bytes at `data`, kept
  /// alive by `owner` (a mapped file, a buffer).
  TensorView(ElementType type, Shape shape, const char *data,
             std::shared_ptr<const void> owner);

  /// A tensor in fresh storage that `fill` writes (all of it).
  static TensorView create(ElementType type, Shape shape,
                           llvm::function_ref<void(char *)> fill);
  /// An f32 tensor holding `values` (moved, not copied).
  static TensorView fromF32(Shape shape, std::vector<float> values);

  ElementType type() const { return type_; }
  const Shape &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  uint64_t numElements() const { return weights::numElements(shape_); }
  uint64_t bytes() const { return storageBytes(type_, numElements()); }
  /// The bytes, little-endian; not necessarily aligned to the element size
  /// (a safetensors header may leave the data at any offset).
  const char *data() const { return data_; }

  /// Entry `index` of dimension 0, one rank lower (no copy).
  TensorView select(int64_t index) const;
  /// Entries [begin, begin + count) of dimension 0 (no copy).
  TensorView rows(int64_t begin, int64_t count) const;
  /// The same elements in the same order as a tensor of `shape` (no
  /// copy); `shape` holds as many elements.
  TensorView reshaped(Shape shape) const;

private:
  ElementType type_ = ElementType::F32;
  Shape shape_;
  const char *data_ = nullptr;
  std::shared_ptr<const void> owner_;
};

/// The index of the first NaN or infinity among the elements of `tensor`,
/// if any: one branch-free pass, cheap beside writing the bytes out.
std::optional<uint64_t> findNonFinite(const TensorView &tensor);

/// The index of the first element of magnitude 2^64 or more, if any (f32
/// and bf16; other types cannot hold one): two such values multiplied
/// overflow f32, so a network whose weights hold them likely computes
/// infinities.
std::optional<uint64_t> findBeyond2To64(const TensorView &tensor);

/// Element `index` of `tensor` as a float.
float elementAsFloat(const TensorView &tensor, uint64_t index);

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_TENSORVIEW_H
