//===- Safetensors.cpp - Read tensors from a .safetensors file -------------===//
//
// Validates the JSON header up front (offsets, dtype sizes, shapes) so that
// reading a tensor later can never run past the mapped file.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Safetensors.h"
#include "compiler/frontends/LoaderSupport.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace tfmc;
using namespace tfmc::frontends;

namespace {

/// Bytes per element of a safetensors dtype; 0 when unknown.
uint64_t dtypeBytes(llvm::StringRef dtype) {
  return llvm::StringSwitch<uint64_t>(dtype)
      .Cases({"F64", "I64", "U64"}, 8)
      .Cases({"F32", "I32", "U32"}, 4)
      .Cases({"F16", "BF16", "I16", "U16"}, 2)
      .Cases({"I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2"}, 1)
      .Default(0);
}

llvm::Expected<SafetensorsEntry>
parseEntry(const std::string &path, llvm::StringRef name,
           const llvm::json::Value &value, uint64_t dataStart,
           uint64_t fileSize) {
  auto fail = [&](const llvm::Twine &what) {
    return makeError("safetensors file '" + path + "': tensor '" + name +
                     "' " + what);
  };
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail("has a header entry that is not an object");
  SafetensorsEntry entry;
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
  uint64_t count = numElements(entry.shape);
  if (count > (*end - *begin) / elementBytes ||
      count * elementBytes != *end - *begin)
    return fail("has " + llvm::Twine(*end - *begin) + " bytes of data, but " +
                entry.dtype + " " + shapeString(entry.shape) + " needs " +
                (count > UINT64_MAX / elementBytes
                     ? std::string("more")
                     : std::to_string(count * elementBytes)));
  entry.begin = dataStart + *begin;
  entry.end = dataStart + *end;
  return entry;
}

} // namespace

llvm::Expected<SafetensorsFile>
SafetensorsFile::open(const std::string &path) {
  auto buffer = openFile(path, "safetensors file");
  if (!buffer)
    return buffer.takeError();
  uint64_t size = (*buffer)->getBufferSize();
  if (size < 8)
    return makeError("safetensors file '" + path + "' has " +
                     llvm::Twine(size) +
                     " bytes, too few for its 8-byte header length");
  uint64_t headerLength =
      llvm::support::endian::read64le((*buffer)->getBufferStart());
  if (headerLength > size - 8)
    return makeError("safetensors file '" + path + "' declares a " +
                     llvm::Twine(headerLength) + "-byte header but has only " +
                     llvm::Twine(size - 8) + " bytes after the length");
  llvm::StringRef headerText((*buffer)->getBufferStart() + 8, headerLength);
  auto header = llvm::json::parse(headerText);
  if (!header)
    return makeError("safetensors file '" + path + "' has a malformed header: " +
                     llvm::toString(header.takeError()));
  const llvm::json::Object *object = header->getAsObject();
  if (!object)
    return makeError("safetensors file '" + path +
                     "' has a header that is not a JSON object");
  SafetensorsFile file;
  file.filePath = path;
  for (const auto &[key, value] : *object) {
    if (key == "__metadata__")
      continue;
    auto entry = parseEntry(path, key, value, 8 + headerLength, size);
    if (!entry)
      return entry.takeError();
    file.entries[key] = std::move(*entry);
  }
  file.buffer = std::move(*buffer);
  return file;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> result;
  for (const auto &entry : entries)
    result.push_back(entry.getKey().str());
  std::sort(result.begin(), result.end());
  return result;
}

const SafetensorsEntry *SafetensorsFile::find(llvm::StringRef name) const {
  auto it = entries.find(name);
  return it == entries.end() ? nullptr : &it->second;
}

llvm::Expected<WeightTensor>
SafetensorsFile::read(llvm::StringRef name) const {
  const SafetensorsEntry *entry = find(name);
  if (!entry)
    return makeError("safetensors file '" + filePath + "' lacks tensor '" +
                     name + "'");
  const char *data = buffer->getBufferStart() + entry->begin;
  uint64_t count = numElements(entry->shape);
  WeightTensor tensor;
  tensor.shape = entry->shape;
  if (entry->dtype == "F32")
    tensor.data = readF32(data, count);
  else if (entry->dtype == "F16")
    tensor.data = readF16(data, count);
  else if (entry->dtype == "BF16")
    tensor.data = readBF16(data, count);
  else
    return makeError("safetensors file '" + filePath + "': tensor '" + name +
                     "' has dtype " + entry->dtype +
                     " (supported: F32, F16, BF16)");
  return tensor;
}

llvm::Expected<WeightTensor>
SafetensorsFile::read(llvm::StringRef name,
                      const std::vector<int64_t> &shape) const {
  const SafetensorsEntry *entry = find(name);
  if (entry && entry->shape != shape)
    return makeError("safetensors file '" + filePath + "': tensor '" + name +
                     "' has shape " + shapeString(entry->shape) +
                     ", expected " + shapeString(shape));
  return read(name);
}
