//===- TensorTable.cpp - The tensors of a model file, by the file's names -===//
#include "compiler/spec/TensorTable.h"

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
                                   ")");
  if (llvm::ArrayRef<int64_t>(entry->shape) != shape)
    return llvm::createStringError(entry->origin + ": tensor '" + name +
                                   "' has shape " + shapeString(entry->shape) +
                                   ", expected " + shapeString(shape));
  if (!entry->unreadable.empty())
    return llvm::createStringError(entry->unreadable);
  return entry->view;
}

const TensorEntry *TensorTable::leftover() const {
  for (const TensorEntry &entry : entries_)
    if (!used_.count(entry.name))
      return &entry;
  return nullptr;
}
