//===- ModelInfo.h - What an executable's --info prints ---------*- C++ -*-===//
//
// --info describes the compiled model without running it: its shapes and
// parameter count, what its weights blob holds (per storage type, the content
// checksum and the layout hash), its special ids, the machine it was compiled
// for and its generation or embedding defaults. Facts the code's
// tfm_model_info lacks come from the package (runtime/PackageKeys.h), so no
// byte of the weights is read.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_RUNTIME_MODELINFO_H
#define TFMC_RUNTIME_MODELINFO_H

#include "runtime/Package.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tfm::rt {

/// One entry of the package's "weights.types" record.
struct WeightTypeTotal {
  std::string type; ///< "f32", "q8_0", "kquant", ...
  uint64_t tensors = 0;
  uint64_t bytes = 0;
};

/// Parses "TYPE:TENSORS:BYTES,..." (empty text: no entries); false when an
/// entry has another form.
bool parseWeightTypes(std::string_view text,
                      std::vector<WeightTypeTotal> &totals);

/// "260.4 K", "1.24 M", "7.62 B": a count as people read parameter counts.
std::string humanCount(uint64_t count);

/// Prints --info for the compiled model and `package` (opened from
/// `path`), which runs on `threads` threads, to stdout; returns the exit
/// status (1 after printing an error about a malformed record).
int printModelInfo(const Package &package, const std::string &path,
                   int threads);

} // namespace tfm::rt

#endif // TFMC_RUNTIME_MODELINFO_H
