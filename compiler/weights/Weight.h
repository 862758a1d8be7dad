//===- Weight.h - A canonical weight: a stored tensor + transforms --------===//
//
// A model family maps each tensor of a model file to its canonical weight
// (`layers.3.attn.wq`, [out, in]) as the stored view plus the steps that turn
// it into the canonical form: a transpose for GPT-2's Conv1D weights, a row
// range for the Q, K and V parts of its c_attn. Nothing is computed until the
// package writer materialises the weight, one at a time, so compiling a
// model holds the mapped file and one tensor's scratch rather than a copy of
// every weight.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_WEIGHTS_WEIGHT_H
#define TFMC_COMPILER_WEIGHTS_WEIGHT_H

#include "compiler/weights/TensorView.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tfmc::weights {

/// One step from a stored tensor towards its canonical form.
struct Transform {
  enum class Kind {
    Transpose, ///< [rows, cols] -> [cols, rows]
    Rows,      ///< entries [begin, begin + count) of dimension 0
    /// entries [begin, begin + count) of every group of `stride` entries of
    /// dimension 0, the groups' in order (BLOOM's per-head Q/K/V rows)
    RowGroups,
  };
  Kind kind = Kind::Transpose;
  int64_t begin = 0;
  int64_t count = 0;
  int64_t stride = 0;

  static Transform transpose() { return {Kind::Transpose, 0, 0}; }
  static Transform rows(int64_t begin, int64_t count) {
    return {Kind::Rows, begin, count};
  }
  static Transform rowGroups(int64_t begin, int64_t count, int64_t stride) {
    return {Kind::RowGroups, begin, count, stride};
  }
};

class Weight {
public:
  Weight() = default;
  /// The stored tensor as it is; `origin` is its name in the model file,
  /// for messages (empty for generated weights).
  explicit Weight(TensorView source, std::string origin = {});

  /// This weight followed by `step`. The caller has checked the source's
  /// shape, so the step fits it (asserted).
  Weight then(Transform step) const;

  const TensorView &source() const { return source_; }
  const std::string &origin() const { return origin_; }
  const std::vector<Transform> &steps() const { return steps_; }
  /// The canonical shape: the source's after every step.
  const Shape &shape() const { return shape_; }

  /// Computes the canonical tensor in element type `type` (a view of the
  /// source itself when no step and no cast is needed).
  llvm::Expected<TensorView> materialize(ElementType type) const;

private:
  TensorView source_;
  std::string origin_;
  std::vector<Transform> steps_;
  Shape shape_;
};

} // namespace tfmc::weights

#endif // TFMC_COMPILER_WEIGHTS_WEIGHT_H
