//===- FrontendSupport.h - File access shared by the format readers -------===//
//
// Internal to compiler/frontends: mapping a file so that tensor views can
// point into it, joining paths and the SentencePiece space marker.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_FRONTENDSUPPORT_H
#define TFMC_COMPILER_FRONTENDS_FRONTENDSUPPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace tfmc::frontends {

/// Maps `path` read-only, shared so that tensor views can keep the mapping
/// alive; `what` names the file's role in the error message ("GGUF file").
llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
mapFile(const std::string &path, llvm::StringRef what);

/// llvm::json::parse of untrusted text, which recurses once per nesting
/// level: text nested deeper than kMaxJsonDepth is rejected first, so a
/// `[[[[...` of any length is an error, not a stack overflow.
constexpr int kMaxJsonDepth = 128;
llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text);

/// The bytes [begin, end) of a file that tensor `name` occupies.
struct TensorBytes {
  std::string name;
  uint64_t begin = 0;
  uint64_t end = 0;
};

/// An error naming the first two tensors whose bytes overlap (aliased
/// weights are a corrupt or hostile file: writing through one would change
/// the other, and a checksum could not tell them apart); `where` names the
/// file ("GGUF file 'm.gguf'"). Empty tensors overlap nothing.
llvm::Error checkDisjoint(std::vector<TensorBytes> tensors,
                          llvm::StringRef where);

/// `directory`/`name`.
std::string joinPath(const std::string &directory, llvm::StringRef name);

/// Replaces every U+2581 (SentencePiece's visible space) with ' '.
std::string metaspaceToSpace(llvm::StringRef piece);

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_FRONTENDSUPPORT_H
