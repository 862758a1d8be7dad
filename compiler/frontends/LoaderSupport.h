//===- LoaderSupport.h - Helpers shared by the model-file loaders ----------===//
//
// File access, error construction and element conversions that every
// frontend loader needs. Internal to compiler/frontends.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_COMPILER_FRONTENDS_LOADERSUPPORT_H
#define TFMC_COMPILER_FRONTENDS_LOADERSUPPORT_H

#include "compiler/frontends/ModelSpec.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tfmc::frontends {

/// An llvm::Error carrying `message` (loaders report user errors this way).
llvm::Error makeError(const llvm::Twine &message);

/// Maps `path` read-only; `what` names the file's role in the error message
/// ("GGUF file", "tokenizer", ...).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
openFile(const std::string &path, llvm::StringRef what);

/// "[64, 512]".
std::string shapeString(const std::vector<int64_t> &shape);

/// Number of elements of `shape`, saturating at UINT64_MAX so that absurd
/// shapes from corrupt headers fail size checks instead of wrapping.
uint64_t numElements(const std::vector<int64_t> &shape);

/// "layers.<layer>.<suffix>".
std::string layerTensorName(int64_t layer, llvm::StringRef suffix);

/// IEEE half -> float, exact for normals, subnormals, infinities and NaNs.
float halfToFloat(uint16_t bits);
/// bfloat16 -> float (the top 16 bits of an f32).
float bfloat16ToFloat(uint16_t bits);

/// Reads `count` little-endian f32 values starting at `bytes`.
std::vector<float> readF32(const char *bytes, uint64_t count);
/// Reads `count` little-endian f16 values starting at `bytes`, widened.
std::vector<float> readF16(const char *bytes, uint64_t count);
/// Reads `count` little-endian bf16 values starting at `bytes`, widened.
std::vector<float> readBF16(const char *bytes, uint64_t count);

/// Returns the [cols, rows] transpose of the row-major [rows, cols] `src`.
std::vector<float> transpose(const float *src, int64_t rows, int64_t cols);

/// Replaces every U+2581 (SentencePiece's visible space) with ' '.
std::string metaspaceToSpace(llvm::StringRef piece);

/// The last path component, for ModelSpec::description.
std::string fileName(llvm::StringRef path);

/// Reads a llama2.c tokenizer.bin holding `vocabSize` pieces into an "spm"
/// tokenizer with the given special ids (Llama2cLoader.cpp).
llvm::Expected<TokenizerSpec> loadLlama2cTokenizer(const std::string &path,
                                                   int64_t vocabSize, int bos,
                                                   int eos);

} // namespace tfmc::frontends

#endif // TFMC_COMPILER_FRONTENDS_LOADERSUPPORT_H
