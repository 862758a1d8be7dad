//===- Safetensors.cpp - Tensors of .safetensors files --------------------===//
//
// Validates the JSON header up front (offsets, dtype sizes, shapes) so that
// a view handed out later can never run past the mapped file.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Safetensors.h"

#include "compiler/frontends/FrontendSupport.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <map>
#include <set>

using namespace tfmc;
using namespace tfmc::frontends;
using tfmc::weights::ElementType;

namespace {

struct Entry {
  std::string dtype;
  weights::Shape shape;
  uint64_t begin = 0; ///< absolute within the file
  uint64_t end = 0;
};

/// Bytes per element of a safetensors dtype; 0 when unknown.
uint64_t dtypeBytes(llvm::StringRef dtype) {
  return llvm::StringSwitch<uint64_t>(dtype)
      .Cases({"F64", "I64", "U64"}, 8)
      .Cases({"F32", "I32", "U32"}, 4)
      .Cases({"F16", "BF16", "I16", "U16"}, 2)
      .Cases({"I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2"}, 1)
      .Default(0);
}

std::optional<ElementType> elementType(llvm::StringRef dtype) {
  return llvm::StringSwitch<std::optional<ElementType>>(dtype)
      .Case("F32", ElementType::F32)
      .Case("F16", ElementType::F16)
      .Case("BF16", ElementType::BF16)
      .Default(std::nullopt);
}

llvm::Expected<Entry> parseEntry(const std::string &path, llvm::StringRef name,
                                 const llvm::json::Value &value,
                                 uint64_t dataStart, uint64_t fileSize) {
  auto fail = [&](const llvm::Twine &what) {
    return llvm::createStringError("safetensors file '" + path + "': tensor '" +
                                   name + "' " + what);
  };
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail("has a header entry that is not an object");
  Entry entry;
  auto dtype = object->getString("dtype");
  if (!dtype)
    return fail("lacks a string 'dtype'");
  entry.dtype = dtype->str();
  uint64_t elementBytes = dtypeBytes(*dtype);
  if (!elementBytes)
    return fail("has unknown dtype '" + *dtype + "'");
  const llvm::json::Array *shape = object->getArray("shape");
  if (!shape)
    return fail("lacks a 'shape' array");
  for (const llvm::json::Value &dim : *shape) {
    auto extent = dim.getAsInteger();
    if (!extent || *extent < 0)
      return fail("has a shape entry that is not a non-negative integer");
    entry.shape.push_back(*extent);
  }
  const llvm::json::Array *offsets = object->getArray("data_offsets");
  auto begin = offsets && offsets->size() == 2 ? (*offsets)[0].getAsUINT64()
                                               : std::nullopt;
  auto end = offsets && offsets->size() == 2 ? (*offsets)[1].getAsUINT64()
                                             : std::nullopt;
  if (!begin || !end || *begin > *end)
    return fail("needs 'data_offsets' [begin, end] with begin <= end");
  uint64_t dataSize = fileSize - dataStart;
  if (*end > dataSize)
    return fail("needs data bytes [" + llvm::Twine(*begin) + ", " +
                llvm::Twine(*end) + ") but the file has only " +
                llvm::Twine(dataSize) + " data bytes (file truncated?)");
  uint64_t count = weights::numElements(entry.shape);
  if (count > (*end - *begin) / elementBytes ||
      count * elementBytes != *end - *begin)
    return fail("has " + llvm::Twine(*end - *begin) + " bytes of data, but " +
                entry.dtype + " " + weights::shapeString(entry.shape) +
                " needs " +
                (count > UINT64_MAX / elementBytes
                     ? std::string("more")
                     : std::to_string(count * elementBytes)));
  entry.begin = dataStart + *begin;
  entry.end = dataStart + *end;
  return entry;
}

/// Shard file names from model.safetensors.index.json's weight_map.
llvm::Expected<std::vector<std::string>>
readShardIndex(const std::string &indexPath) {
  auto buffer = mapFile(indexPath, "safetensors index");
  if (!buffer)
    return buffer.takeError();
  auto json = parseJson((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError("malformed JSON in '" + indexPath +
                                   "': " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Object *map =
      root ? root->getObject("weight_map") : nullptr;
  if (!map)
    return llvm::createStringError("'" + indexPath +
                                   "' lacks the object 'weight_map'");
  // A set: an index may name as many files as tensors (a list made this
  // quadratic: 150,000 entries took minutes).
  std::set<std::string> shards;
  for (const auto &[tensor, file] : *map) {
    auto name = file.getAsString();
    if (!name || name->contains('/') || name->contains('\\'))
      return llvm::createStringError("'" + indexPath + "' maps tensor '" +
                                     llvm::StringRef(tensor) +
                                     "' to an invalid file name");
    shards.insert(name->str());
  }
  return std::vector<std::string>(shards.begin(), shards.end());
}

} // namespace

llvm::Error tfmc::frontends::addSafetensorsFile(const std::string &path,
                                                TensorTable &table) {
  auto mapped = mapFile(path, "safetensors file");
  if (!mapped)
    return mapped.takeError();
  std::shared_ptr<llvm::MemoryBuffer> buffer = std::move(*mapped);
  std::string name = "safetensors file '" + path + "'";
  uint64_t size = buffer->getBufferSize();
  if (size < 8)
    return llvm::createStringError(
        name + " has " + llvm::Twine(size) +
        " bytes, too few for its 8-byte header length");
  uint64_t headerLength =
      llvm::support::endian::read64le(buffer->getBufferStart());
  if (headerLength > size - 8)
    return llvm::createStringError(
        name + " declares a " + llvm::Twine(headerLength) +
        "-byte header but has only " + llvm::Twine(size - 8) +
        " bytes after the length");
  llvm::StringRef headerText(buffer->getBufferStart() + 8, headerLength);
  auto header = parseJson(headerText);
  if (!header)
    return llvm::createStringError(name + " has a malformed header: " +
                                   llvm::toString(header.takeError()));
  const llvm::json::Object *object = header->getAsObject();
  if (!object)
    return llvm::createStringError(name +
                                   " has a header that is not a JSON object");
  std::map<std::string, Entry> entries; // sorted by name
  std::vector<TensorBytes> ranges;
  for (const auto &[key, value] : *object) {
    if (key == "__metadata__")
      continue;
    auto entry = parseEntry(path, key, value, 8 + headerLength, size);
    if (!entry)
      return entry.takeError();
    ranges.push_back({key.str(), entry->begin, entry->end});
    entries[key.str()] = std::move(*entry);
  }
  if (llvm::Error error = checkDisjoint(std::move(ranges), name))
    return error;
  for (auto &[stored, entry] : entries) {
    // Legacy checkpoints (the original bert-base-uncased) name LayerNorm
    // parameters gamma and beta; transformers renames them on load.
    std::string tensor = stored;
    llvm::StringRef legacy(stored);
    if (legacy.consume_back("LayerNorm.gamma") &&
        !entries.count((legacy + "LayerNorm.weight").str()))
      tensor = (legacy + "LayerNorm.weight").str();
    legacy = stored;
    if (legacy.consume_back("LayerNorm.beta") &&
        !entries.count((legacy + "LayerNorm.bias").str()))
      tensor = (legacy + "LayerNorm.bias").str();
    TensorEntry added{tensor, entry.shape, name, {}, ""};
    if (std::optional<ElementType> type = elementType(entry.dtype))
      added.view = weights::TensorView(
          *type, entry.shape, buffer->getBufferStart() + entry.begin, buffer);
    else
      added.unreadable = name + ": tensor '" + stored + "' has dtype " +
                         entry.dtype + " (supported: F32, F16, BF16)";
    table.add(std::move(added));
  }
  return llvm::Error::success();
}

llvm::Expected<TensorTable>
tfmc::frontends::openSafetensorsCheckpoint(const std::string &directory) {
  std::string single = joinPath(directory, "model.safetensors");
  std::string index = joinPath(directory, "model.safetensors.index.json");
  std::vector<std::string> paths;
  std::string description;
  if (llvm::sys::fs::exists(single)) {
    paths.push_back(single);
    description = single;
  } else if (llvm::sys::fs::exists(index)) {
    auto shards = readShardIndex(index);
    if (!shards)
      return shards.takeError();
    for (const std::string &shard : *shards)
      paths.push_back(joinPath(directory, shard));
    description = index;
  } else {
    return llvm::createStringError("Hugging Face model directory '" +
                                   directory + "' has no model.safetensors");
  }
  TensorTable table("'" + description + "'");
  for (const std::string &path : paths)
    if (llvm::Error error = addSafetensorsFile(path, table))
      return std::move(error);
  return table;
}
