//===- PackageCheck.h - A weights package against the compiled code -----===//
//
// A package is only usable with the code it was compiled for: the entries
// index the blob by offsets baked in at compile time (tfm_model). The
// produced executable and the C library check it the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_PACKAGECHECK_H
#define TFMC_RUNTIME_PACKAGECHECK_H

#include "runtime/Package.h"

#include <string>

namespace tfm::rt {

/// False, with "'NAME': why" in `error`, when the package was written for
/// other compiled code (ABI version, weights hash, weights size).
bool checkPackageMatchesModel(const Package &package, const std::string &name,
                              std::string &error);

/// The "token.bos"/"token.eos" record `key` as an id of the model's
/// vocabulary, -1 when absent; false with "'NAME': why" when malformed.
bool readPackageTokenId(const Package &package, const char *key,
                        const std::string &name, int &id, std::string &error);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_PACKAGECHECK_H
