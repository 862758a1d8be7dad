//===- PackageMetadata.h - What a package says besides the weights --------===//
#ifndef TFMC_COMPILER_LINK_PACKAGEMETADATA_H
#define TFMC_COMPILER_LINK_PACKAGEMETADATA_H

#include "compiler/spec/ModelSpec.h"
#include "runtime/Package.h"

namespace tfmc {

/// The metadata of `spec`'s package (runtime/PackageKeys.h): tokenizer,
/// special and stop ids, description, sampling and embedding defaults.
tfm::rt::PackageMetadata packageMetadata(const ModelSpec &spec);

} // namespace tfmc

#endif // TFMC_COMPILER_LINK_PACKAGEMETADATA_H
