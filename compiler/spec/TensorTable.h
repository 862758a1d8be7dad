//===- TensorTable.h - The tensors of a model file, by the file's names ---===//
//
// What a frontend hands a model family: every tensor of the file under the
// file's own name, with its shape and a view of its bytes, in file order.
// The family takes the tensors it maps (checking their shapes) and ignores
// the ones it knows to be useless; whatever is left over is an unexpected
// tensor. A tensor whose bytes the compiler cannot read (an element type it
// does not support) carries the reason instead of a view, reported only when
// a family takes it.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_SPEC_TENSORTABLE_H
#define TFMC_COMPILER_SPEC_TENSORTABLE_H

#include "compiler/weights/TensorView.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tfmc {

struct TensorEntry {
  std::string name;
  weights::Shape shape; ///< outermost first
  /// How messages name the file holding it: "safetensors file 'x'".
  std::string origin;
  weights::TensorView view; ///< valid when `unreadable` is empty
  /// Why the bytes cannot be read, as a complete message.
  std::string unreadable;
};

class TensorTable {
public:
  /// `description` names the whole table in messages:
  /// "'dir/model.safetensors'".
  explicit TensorTable(std::string description)
      : description_(std::move(description)) {}

  const std::string &describe() const { return description_; }

  /// Adds the next tensor in file order; a name already present is ignored
  /// (the first file of a sharded checkpoint that holds a tensor wins).
  void add(TensorEntry entry);

  bool contains(llvm::StringRef name) const { return index_.count(name); }
  const TensorEntry *find(llvm::StringRef name) const;
  const std::vector<TensorEntry> &entries() const { return entries_; }

  /// The view of `name`, which must have `shape`. Errors name the file, the
  /// tensor and both shapes, or say why its bytes cannot be read.
  llvm::Expected<weights::TensorView> take(llvm::StringRef name,
                                           llvm::ArrayRef<int64_t> shape);
  /// Marks `name` (if present) as read on purpose and not needed.
  void ignore(llvm::StringRef name) { used_.insert(name); }
  /// The first tensor in file order that was neither taken nor ignored.
  const TensorEntry *leftover() const;

private:
  /// "; the closest it holds is 'x' [shape]" for the untaken tensor nearest
  /// to `name` by edits, or "" when none is close.
  std::string closestTo(llvm::StringRef name) const;

  std::string description_;
  std::vector<TensorEntry> entries_;
  llvm::StringMap<size_t> index_;
  llvm::StringSet<> used_;
};

} // namespace tfmc

#endif // TFMC_COMPILER_SPEC_TENSORTABLE_H
