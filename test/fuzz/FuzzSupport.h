//===- FuzzSupport.h - Shared pieces of the loader fuzz targets -*- C++ -*-===//
//
// The loaders take paths, so each target writes its input into files of a
// scratch directory of its own process. Targets whose format spans several
// files (a sharded safetensors checkpoint, vocab.json + merges.txt) or that
// also take a text to encode read their input as parts joined by
// kPartSeparator; the seed corpora are written that way
// (test/fuzz/make_seeds.py).
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_TEST_FUZZ_FUZZSUPPORT_H
#define TFMC_TEST_FUZZ_FUZZSUPPORT_H

#include "runtime/Tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tfm::fuzz {

/// Joins the files (and texts) of one multi-part input.
inline constexpr std::string_view kPartSeparator = "\n--8<--\n";

/// The input split at every kPartSeparator, at most `maxParts` parts (the
/// last one keeps any further separators).
std::vector<std::string_view> splitParts(const uint8_t *data, size_t size,
                                         size_t maxParts);

/// A directory private to this process, created on first use and removed
/// at exit.
const std::string &scratchDir();

/// Writes `bytes` to scratchDir()/`name` and returns the path.
std::string writeScratch(const std::string &name, std::string_view bytes);

/// Removes scratchDir()/`name` if present.
void removeScratch(const std::string &name);

/// What a compiled model does with its tokenizer: encodes `text` (with and
/// without special tokens), prints the ids back through the streaming
/// detokenizer and looks tokens up by id and by string. At most the first
/// 4 KiB of `text` are used, so one input stays fast.
void exerciseTokenizer(const rt::Tokenizer &tokenizer, std::string_view text);

/// A short text touching the usual tokenizer paths: spaces, digits,
/// punctuation, multi-byte UTF-8, a lone invalid byte.
inline constexpr std::string_view kSampleText =
    "Hello world! It's 2024, isn't it?  \t\n caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c"
    "\xac \xf0\x9f\x98\x80 \xff<s></s>[UNK]";

/// Reads every byte of [data, data + size), so that a view pointing outside
/// its buffer shows up under AddressSanitizer.
uint64_t touchBytes(const char *data, uint64_t size);

} // namespace tfm::fuzz

#endif // TFMC_TEST_FUZZ_FUZZSUPPORT_H
