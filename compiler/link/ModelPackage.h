//===- ModelPackage.h - Write the package a compiled model maps -*- C++ -*-===//
#ifndef TFMC_COMPILER_LINK_MODELPACKAGE_H
#define TFMC_COMPILER_LINK_MODELPACKAGE_H

#include "compiler/spec/ModelSpec.h"
#include "compiler/weights/WeightLayout.h"
#include "runtime/Package.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tfmc {

/// Told the bytes of the weights blob written so far and in all, after
/// each weight (a progress line on a terminal).
using PackageProgress = std::function<void(uint64_t written, uint64_t total)>;

/// How the package holds its weights blob.
struct PackageWeights {
  /// Set: the blob is not written; the program fills it from this seed
  /// when it loads (`tfmc compile --random-weights`,
  /// runtime/RandomWeights.h), so the file is small whatever the model's
  /// size, and the model's weights are never read.
  std::optional<uint64_t> randomSeed;
  /// Told the bytes written so far after each weight.
  PackageProgress progress;
};

/// Appends the package (weights in `layout` order, tokenizer, metadata) that
/// the executable maps at run time (runtime/Package.h) to `path` (created
/// if absent: a library's NAME.tfmpkg). The blob is written as a stream,
/// one weight materialised at a time (compiler/weights/SlotContents.h), so
/// this holds one weight's scratch, never a copy of the model.
/// `targetMetadata` (the backend's target.* keys) joins the spec's.
llvm::Error
appendModelPackage(const std::string &path, const ModelSpec &spec,
                   const mlir::tfm::WeightLayout &layout,
                   const tfm::rt::PackageMetadata &targetMetadata = {},
                   const PackageWeights &weights = {});

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_MODELPACKAGE_H
