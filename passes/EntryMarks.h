//===- EntryMarks.h - Argument marks tfm-kv-cache leaves for later passes -===//
#ifndef TFMC_PASSES_ENTRYMARKS_H
#define TFMC_PASSES_ENTRYMARKS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tfm {

/// On @prefill's `count`: 0 means the caller wants no logits.
inline constexpr llvm::StringLiteral kLogitsCountMark = "tfm.logits_count";
/// On an entry's KV-cache argument.
inline constexpr llvm::StringLiteral kKVCacheMark = "tfm.kv_cache";

} // namespace mlir::tfm

#endif // TFMC_PASSES_ENTRYMARKS_H
