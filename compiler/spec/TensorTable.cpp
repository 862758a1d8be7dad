//===- TensorTable.cpp - The tensors of a model file, by the file's names -===//
#include "compiler/spec/TensorTable.h"

#include <algorithm>

using namespace tfmc;
using tfmc::weights::shapeString;

void TensorTable::add(TensorEntry entry) {
  if (index_.count(entry.name))
    return;
  index_[entry.name] = entries_.size();
  entries_.push_back(std::move(entry));
}

const TensorEntry *TensorTable::find(llvm::StringRef name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

llvm::Expected<weights::TensorView>
TensorTable::take(llvm::StringRef name, llvm::ArrayRef<int64_t> shape) {
  used_.insert(name);
  const TensorEntry *entry = find(name);
  if (!entry)
    return llvm::createStringError(description_ + " lacks tensor '" + name +
                                   "' (expected shape " + shapeString(shape) +
                                   ")" + closestTo(name));
  if (llvm::ArrayRef<int64_t>(entry->shape) != shape)
    return llvm::createStringError(entry->origin + ": tensor '" + name +
                                   "' has shape " + shapeString(entry->shape) +
                                   ", expected " + shapeString(shape));
  if (!entry->unreadable.empty())
    return llvm::createStringError(entry->unreadable);
  return entry->view;
}

std::string TensorTable::closestTo(llvm::StringRef name) const {
  // Names differ by a few characters when a checkpoint uses another
  // spelling (a prefix, a legacy suffix): the untaken tensor fewest edits
  // away, when it is reasonably close.
  // Among equally close ones, the one sharing the longest prefix: a
  // misspelt suffix ('q_proj.weights') before another layer's or
  // projection's name ('k_proj.weight').
  const TensorEntry *best = nullptr;
  unsigned bestDistance = std::max<unsigned>(4, name.size() / 3) + 1;
  size_t bestPrefix = 0;
  auto sharedPrefix = [&](llvm::StringRef other) {
    size_t n = 0;
    while (n < name.size() && n < other.size() && name[n] == other[n])
      ++n;
    return n;
  };
  for (const TensorEntry &entry : entries_) {
    if (used_.count(entry.name))
      continue;
    unsigned distance = name.edit_distance(entry.name, /*AllowReplacements=*/
                                           true, bestDistance);
    size_t prefix = sharedPrefix(entry.name);
    if (distance < bestDistance ||
        (best && distance == bestDistance && prefix > bestPrefix)) {
      bestDistance = distance;
      bestPrefix = prefix;
      best = &entry;
    }
  }
  if (!best)
    return "";
  return "; the closest it holds is '" + best->name + "' " +
         shapeString(best->shape);
}

const TensorEntry *TensorTable::leftover() const {
  for (const TensorEntry &entry : entries_)
    if (!used_.count(entry.name))
      return &entry;
  return nullptr;
}
