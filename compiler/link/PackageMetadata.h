//===- PackageMetadata.h - What a package says besides the weights --------===//
#ifndef TFMC_COMPILER_LINK_PACKAGEMETADATA_H
#define TFMC_COMPILER_LINK_PACKAGEMETADATA_H

#include "compiler/spec/ModelSpec.h"
#include "compiler/weights/WeightLayout.h"
#include "runtime/Package.h"

namespace tfmc {

/// The metadata of `spec`'s package (runtime/PackageKeys.h): tokenizer,
/// special and stop ids, description, shapes and parameter count, sampling
/// and embedding defaults, and what `layout`'s blob holds per storage type.
tfm::rt::PackageMetadata packageMetadata(const ModelSpec &spec,
                                         const mlir::tfm::WeightLayout &layout);

/// The number of elements of `spec`'s model tensors (a tied LM head is not
/// among them, so it counts once).
uint64_t parameterCount(const ModelSpec &spec);

/// `layout`'s slots per storage type, as the "weights.types" record:
/// "TYPE:TENSORS:BYTES,...", types in the order they first occur.
std::string weightTypeSummary(const mlir::tfm::WeightLayout &layout);

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_PACKAGEMETADATA_H
