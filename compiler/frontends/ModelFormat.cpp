//===- ModelFormat.cpp - What kind of model file a path holds -------------===//
#include "compiler/frontends/ModelFormat.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdint>
#include <cstring>

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

constexpr const char *kReadable =
    "tfmc reads GGUF files, llama2.c checkpoints, Hugging Face model "
    "directories (config.json + safetensors) and .mlir files in the tfm "
    "dialect";

llvm::Error notAModel(const std::string &path, const llvm::Twine &what) {
  return llvm::createStringError("'" + path + "' is " + what + "; " +
                                 kReadable);
}

uint32_t readLE32(const char *bytes) {
  uint32_t value;
  std::memcpy(&value, bytes, 4);
  return value;
}

uint64_t readLE64(const char *bytes) {
  uint64_t value;
  std::memcpy(&value, bytes, 8);
  return value;
}

/// Whether `head` could start a llama2.c v0 checkpoint: seven small
/// int32 header fields (a text or another binary format reads as huge
/// ones: "modu" is 1969516397). The reader checks the fields exactly and
/// says what is wrong with a broken checkpoint; a file shorter than the
/// header is left to it too.
bool looksLikeLlama2c(llvm::StringRef head) {
  if (head.size() < 28)
    return true;
  constexpr int64_t kLimit = int64_t(1) << 24;
  for (int i = 0; i < 7; ++i) {
    int64_t field = static_cast<int32_t>(readLE32(head.data() + 4 * i));
    if (field < -kLimit || field > kLimit)
      return false;
  }
  return true;
}

/// Whether `head` reads as text: valid UTF-8 (a sequence cut by the end
/// of the slice included) without control characters besides whitespace.
bool isText(llvm::StringRef head) {
  size_t i = 0;
  while (i < head.size()) {
    unsigned char c = head[i];
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f')
        return false;
      ++i;
      continue;
    }
    int length = (c & 0xE0) == 0xC0   ? 2
                 : (c & 0xF0) == 0xE0 ? 3
                 : (c & 0xF8) == 0xF0 ? 4
                                      : 0;
    if (length == 0 || (length == 2 && c < 0xC2))
      return false;
    for (int k = 1; k < length; ++k) {
      if (i + k >= head.size())
        return true;
      if ((static_cast<unsigned char>(head[i + k]) & 0xC0) != 0x80)
        return false;
    }
    i += length;
  }
  return true;
}

/// The first non-blank character of `head`, or 0.
char firstNonBlank(llvm::StringRef head) {
  llvm::StringRef trimmed = head.ltrim(" \t\r\n");
  return trimmed.empty() ? 0 : trimmed.front();
}

} // namespace

llvm::Expected<ModelFormat>
frontends::detectModelFormat(const std::string &path) {
  if (llvm::sys::fs::is_directory(path))
    return ModelFormat::HuggingFace;
  // The GGUF reader explains what is wrong with a file named .gguf.
  if (llvm::sys::path::extension(path).equals_insensitive(".gguf"))
    return ModelFormat::Gguf;
  // Opening a FIFO would block: only regular files are read.
  if (!llvm::sys::fs::is_regular_file(path))
    return notAModel(path, "not a regular file");
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, size))
    return llvm::createStringError("cannot read '" + path +
                                   "': " + ec.message());
  auto buffer = llvm::MemoryBuffer::getFileSlice(
      path, std::min<uint64_t>(size, 4096), 0, /*IsVolatile=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read '" + path +
                                   "': " + buffer.getError().message());
  llvm::StringRef head = (*buffer)->getBuffer();
  llvm::StringRef name = llvm::sys::path::filename(path);

  if (head.starts_with("GGUF"))
    return ModelFormat::Gguf;
  // safetensors: an 8-byte header length, then the JSON header.
  if (head.size() >= 9 && head[8] == '{' && readLE64(head.data()) < size)
    return name.ends_with(".safetensors") ||
                   llvm::sys::fs::exists(
                       (llvm::sys::path::parent_path(path) + "/config.json")
                           .str())
               ? ModelFormat::HuggingFace
               : llvm::Expected<ModelFormat>(notAModel(
                     path, "a safetensors file without a config.json beside "
                           "it: pass its Hugging Face directory"));
  if (head.starts_with("PK\x03\x04") || head.starts_with("\x80\x02") ||
      head.starts_with("\x80\x04"))
    return notAModel(path, "a PyTorch checkpoint (torch.save's zip or "
                           "pickle); save it as safetensors (transformers' "
                           "save_pretrained) and pass the directory");
  // Text: JSON (a Hugging Face file other than config.json) or MLIR.
  if (isText(head)) {
    char first = firstNonBlank(head);
    if (first == '{' || first == '[') {
      if (name == "config.json")
        return ModelFormat::HuggingFace;
      if (head.contains("\"model\"") && head.contains("\"vocab\""))
        return notAModel(path, "a tokenizer, not a model: pass it with "
                               "--tokenizer beside the model");
      return notAModel(path, "a JSON file, not a model");
    }
    if (name.ends_with(".mlir") || head.contains("tfm.") ||
        head.ltrim(" \t\r\n").starts_with("module"))
      return ModelFormat::TfmIR;
    if (!head.empty())
      return notAModel(path, "a text file, not a model");
  }
  if (name.ends_with(".onnx"))
    return notAModel(path, "an ONNX model, which tfmc does not read");
  if (looksLikeLlama2c(head))
    return ModelFormat::Llama2c;
  return notAModel(path, "not a model file tfmc recognises (no GGUF magic, "
                         "no safetensors header, and not a llama2.c header)");
}
