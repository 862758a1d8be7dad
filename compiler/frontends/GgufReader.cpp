//===- GgufReader.cpp - Parse GGUF files into metadata and tensors --------===//
//
// Every count, length and offset comes from the file, so each is checked
// against the bytes that remain before anything is allocated or read.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontends/Gguf.h"

#include "compiler/frontends/FrontendSupport.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace tfmc;
using namespace tfmc::frontends;
using tfmc::weights::ElementType;

namespace tfmc::frontends {

/// Bounds-checked little-endian reader. The first overrun latches `failed`
/// and later reads return zeros, so callers check once per item.
class GgufByteReader {
public:
  explicit GgufByteReader(llvm::StringRef bytes) : bytes(bytes) {}

  bool failed() const { return overrun; }
  uint64_t position() const { return pos; }
  uint64_t remaining() const { return overrun ? 0 : bytes.size() - pos; }

  const char *take(uint64_t count) {
    if (overrun || count > bytes.size() - pos) {
      overrun = true;
      return nullptr;
    }
    const char *data = bytes.data() + pos;
    pos += count;
    return data;
  }
  uint8_t u8() {
    const char *p = take(1);
    return p ? static_cast<uint8_t>(*p) : 0;
  }
  uint16_t u16() {
    const char *p = take(2);
    return p ? llvm::support::endian::read16le(p) : 0;
  }
  uint32_t u32() {
    const char *p = take(4);
    return p ? llvm::support::endian::read32le(p) : 0;
  }
  uint64_t u64() {
    const char *p = take(8);
    return p ? llvm::support::endian::read64le(p) : 0;
  }
  /// A length-prefixed string, pointing into the bytes.
  llvm::StringRef string() {
    uint64_t length = u64();
    const char *p = take(length);
    return p ? llvm::StringRef(p, length) : llvm::StringRef();
  }
  /// The bytes consumed since position `start`.
  llvm::StringRef since(uint64_t start) const {
    return bytes.slice(start, pos);
  }

private:
  llvm::StringRef bytes;
  uint64_t pos = 0;
  bool overrun = false;
};

} // namespace tfmc::frontends

namespace {

/// Deep enough for any real file; stops hostile nesting from blowing the stack.
constexpr int kMaxArrayDepth = 8;

/// The fewest bytes a value of `type` takes (a string its length, an array
/// its element type and count); 0 for an unknown type. Counts read from the
/// file are checked against these before anything is sized by them.
uint64_t minimumBytes(uint32_t type) {
  switch (type) {
  case kGgufUInt8:
  case kGgufInt8:
  case kGgufBool:
    return 1;
  case kGgufUInt16:
  case kGgufInt16:
    return 2;
  case kGgufUInt32:
  case kGgufInt32:
  case kGgufFloat32:
    return 4;
  case kGgufUInt64:
  case kGgufInt64:
  case kGgufFloat64:
  case kGgufString:
    return 8;
  case kGgufArray:
    return 12;
  default:
    return 0;
  }
}

/// A tensor info is at least a name length, a rank, a type and an offset.
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;

const char *ggmlTypeName(uint32_t type) {
  static const char *const kNames[] = {
      "F32",   "F16",   "Q4_0",    "Q4_1",   "Q4_2",    "Q4_3",  "Q5_0",
      "Q5_1",  "Q8_0",  "Q8_1",    "Q2_K",   "Q3_K",    "Q4_K",  "Q5_K",
      "Q6_K",  "Q8_K",  "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL",
      "IQ3_S", "IQ2_S", "IQ4_XS",  "I8",     "I16",     "I32",   "I64",
      "F64",   "IQ1_M", "BF16"};
  return type < sizeof(kNames) / sizeof(kNames[0]) ? kNames[type] : "unknown";
}

/// The element type of a ggml type the compiler reads.
std::optional<ElementType> elementType(uint32_t ggmlType) {
  switch (ggmlType) {
  case 0:
    return ElementType::F32;
  case 1:
    return ElementType::F16;
  case 2:
    return ElementType::Q4_0;
  case 8:
    return ElementType::Q8_0;
  case 12:
    return ElementType::Q4_K;
  case 13:
    return ElementType::Q5_K;
  case 14:
    return ElementType::Q6_K;
  case 30:
    return ElementType::BF16;
  default:
    return std::nullopt;
  }
}

struct TensorInfo {
  std::string name;
  std::vector<uint64_t> dims; ///< innermost first, as stored
  uint32_t type = 0;
  uint64_t offset = 0; ///< relative to the data section
};

llvm::Error truncated(const std::string &path, const llvm::Twine &what) {
  return llvm::createStringError("GGUF file '" + path + "' is truncated: " +
                                 what + " runs past the end of the file");
}

llvm::Error readValue(GgufByteReader &reader, uint32_t type, GgufValue &value,
                      int depth, const std::string &path, llvm::StringRef key) {
  value.type = type;
  switch (type) {
  case kGgufUInt8:
    value.uint = reader.u8();
    break;
  case kGgufInt8:
    value.sint = static_cast<int8_t>(reader.u8());
    break;
  case kGgufUInt16:
    value.uint = reader.u16();
    break;
  case kGgufInt16:
    value.sint = static_cast<int16_t>(reader.u16());
    break;
  case kGgufUInt32:
    value.uint = reader.u32();
    break;
  case kGgufInt32:
    value.sint = static_cast<int32_t>(reader.u32());
    break;
  case kGgufUInt64:
    value.uint = reader.u64();
    break;
  case kGgufInt64:
    value.sint = static_cast<int64_t>(reader.u64());
    break;
  case kGgufBool:
    value.uint = reader.u8() != 0;
    break;
  case kGgufString:
    value.string = reader.string();
    break;
  case kGgufFloat32: {
    uint32_t raw = reader.u32();
    float f;
    std::memcpy(&f, &raw, sizeof(f));
    value.real = f;
    break;
  }
  case kGgufFloat64: {
    uint64_t raw = reader.u64();
    std::memcpy(&value.real, &raw, sizeof(double));
    break;
  }
  case kGgufArray: {
    if (depth >= kMaxArrayDepth)
      return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                     path + "' nests arrays deeper than " +
                                     llvm::Twine(kMaxArrayDepth) + " levels");
    value.elementType = reader.u32();
    value.count = reader.u64();
    if (reader.failed())
      break;
    uint64_t elementBytes = minimumBytes(value.elementType);
    if (!elementBytes)
      return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                     path +
                                     "' has arrays of unknown value type " +
                                     llvm::Twine(value.elementType));
    if (value.count > reader.remaining() / elementBytes)
      return llvm::createStringError(
          "GGUF metadata key '" + key + "' in '" + path + "' declares " +
          llvm::Twine(value.count) + " " +
          ggufValueTypeName(value.elementType) + " elements of at least " +
          llvm::Twine(elementBytes) + " bytes each, more than the " +
          llvm::Twine(reader.remaining()) + " bytes left in the file hold");
    uint64_t start = reader.position();
    bool fixedSize =
        value.elementType != kGgufString && value.elementType != kGgufArray;
    if (fixedSize) {
      reader.take(value.count * elementBytes);
    } else {
      // Walked to validate and to find the end; nothing is kept.
      GgufValue element;
      for (uint64_t i = 0; i < value.count && !reader.failed(); ++i)
        if (auto err = readValue(reader, value.elementType, element, depth + 1,
                                 path, key))
          return err;
    }
    value.elementBytes = reader.since(start);
    break;
  }
  default:
    return llvm::createStringError("GGUF metadata key '" + key + "' in '" +
                                   path + "' has unknown value type " +
                                   llvm::Twine(type));
  }
  if (reader.failed())
    return truncated(path, "metadata key '" + key + "'");
  return llvm::Error::success();
}

} // namespace

void GgufValue::forEachElement(
    llvm::function_ref<void(const GgufValue &)> fn) const {
  GgufByteReader reader(elementBytes);
  GgufValue element;
  for (uint64_t i = 0; i < count; ++i) {
    // Cannot fail: the same bytes were read when the file was opened.
    llvm::consumeError(readValue(reader, elementType, element, 0, "", ""));
    fn(element);
  }
}

const char *tfmc::frontends::ggufValueTypeName(uint32_t type) {
  static const char *const kNames[] = {
      "uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
      "bool",  "string", "array",  "uint64", "int64",  "float64"};
  return type <= kGgufFloat64 ? kNames[type] : "unknown";
}

GgufFile::GgufFile(std::string path)
    : path_(std::move(path)), table_("GGUF file '" + path_ + "'") {}

const GgufValue *GgufFile::find(llvm::StringRef key) const {
  auto it = metadata_.find(key);
  return it == metadata_.end() ? nullptr : &it->second;
}

llvm::Error GgufFile::readMetadata(GgufByteReader &reader, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    std::string key = reader.string().str();
    uint32_t type = reader.u32();
    if (reader.failed())
      return truncated(path_, "metadata entry " + llvm::Twine(i));
    GgufValue value;
    if (auto err = readValue(reader, type, value, 0, path_, key))
      return err;
    metadata_[key] = std::move(value);
  }
  return llvm::Error::success();
}

llvm::Error GgufFile::readTensors(GgufByteReader &reader, uint64_t count) {
  if (count > reader.remaining() / kMinTensorInfoBytes)
    return llvm::createStringError(
        "GGUF file '" + path_ + "' declares " + llvm::Twine(count) +
        " tensors, more than the " + llvm::Twine(reader.remaining()) +
        " bytes left for tensor infos hold");
  std::vector<TensorInfo> infos;
  llvm::StringSet<> names;
  for (uint64_t i = 0; i < count; ++i) {
    TensorInfo info;
    info.name = reader.string().str();
    uint32_t rank = reader.u32();
    if (rank > 4 && !reader.failed())
      return llvm::createStringError("GGUF tensor '" + info.name + "' in '" +
                                     path_ + "' has " + llvm::Twine(rank) +
                                     " dimensions (at most 4 allowed)");
    for (uint32_t d = 0; d < rank; ++d)
      info.dims.push_back(reader.u64());
    info.type = reader.u32();
    info.offset = reader.u64();
    if (reader.failed())
      return truncated(path_, "tensor info " + llvm::Twine(i));
    if (!names.insert(info.name).second)
      return llvm::createStringError(
          "GGUF file '" + path_ + "' lists tensor '" + info.name + "' twice");
    infos.push_back(std::move(info));
  }

  auto align = integer("general.alignment", 32);
  if (!align || *align <= 0 || (*align & (*align - 1)) != 0) {
    if (!align)
      llvm::consumeError(align.takeError());
    return llvm::createStringError(
        "GGUF file '" + path_ +
        "' has invalid general.alignment (must be a power of two)");
  }
  uint64_t alignment = static_cast<uint64_t>(*align);
  uint64_t dataStart = llvm::alignTo(reader.position(), alignment);
  uint64_t size = buffer_->getBufferSize();

  std::vector<TensorBytes> ranges;
  for (const TensorInfo &info : infos) {
    TensorEntry entry;
    entry.name = info.name;
    entry.origin = table_.describe();
    // GGUF lists dims innermost first; shapes are outermost first.
    for (auto it = info.dims.rbegin(); it != info.dims.rend(); ++it) {
      if (*it > static_cast<uint64_t>(INT64_MAX))
        return llvm::createStringError("GGUF tensor '" + info.name + "' in '" +
                                       path_ + "' has an invalid dimension");
      entry.shape.push_back(static_cast<int64_t>(*it));
    }
    std::optional<ElementType> type = elementType(info.type);
    if (!type) {
      entry.unreadable = "GGUF tensor '" + info.name + "' in '" + path_ +
                         "' has ggml type " + ggmlTypeName(info.type) + " (" +
                         std::to_string(info.type) +
                         "); only F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K and "
                         "Q6_K are supported";
      table_.add(std::move(entry));
      continue;
    }
    // Blocks run along the innermost dimension: each row is whole blocks.
    uint32_t block = weights::blockElements(*type);
    if (block > 1 && (info.dims.empty() || info.dims[0] % block != 0))
      return llvm::createStringError(
          "GGUF tensor '" + info.name + "' in '" + path_ + "' has rows of " +
          llvm::Twine(info.dims.empty() ? 1 : info.dims[0]) +
          " elements, not a whole number of " + ggmlTypeName(info.type) +
          " blocks of " + llvm::Twine(block));
    if (info.offset % alignment != 0)
      return llvm::createStringError(
          "GGUF tensor '" + info.name + "' in '" + path_ + "' has offset " +
          llvm::Twine(info.offset) + ", not a multiple of the alignment " +
          llvm::Twine(alignment));
    uint64_t bytes =
        weights::storageBytes(*type, weights::numElements(entry.shape));
    uint64_t begin = dataStart + info.offset;
    bool overflow =
        info.offset > UINT64_MAX - dataStart || bytes > UINT64_MAX - begin;
    uint64_t end = overflow ? UINT64_MAX : begin + bytes;
    if (end > size)
      return llvm::createStringError(
          "GGUF file '" + path_ + "' is truncated: tensor '" + info.name +
          "' needs bytes [" + llvm::Twine(begin) + ", " + llvm::Twine(end) +
          ") but the file has " + llvm::Twine(size) + " bytes");
    entry.view = weights::TensorView(
        *type, entry.shape, buffer_->getBufferStart() + begin, buffer_);
    ranges.push_back({info.name, begin, end});
    table_.add(std::move(entry));
  }
  return checkDisjoint(std::move(ranges), describe());
}

llvm::Expected<std::unique_ptr<GgufFile>>
GgufFile::open(const std::string &path) {
  auto buffer = mapFile(path, "GGUF file");
  if (!buffer)
    return buffer.takeError();
  std::unique_ptr<GgufFile> file(new GgufFile(path));
  file->buffer_ = std::move(*buffer);
  GgufByteReader reader(file->buffer_->getBuffer());
  const char *magic = reader.take(4);
  if (!magic || std::memcmp(magic, "GGUF", 4) != 0)
    return llvm::createStringError("'" + path +
                                   "' is not a GGUF file (bad magic)");
  uint32_t version = reader.u32();
  uint64_t tensorCount = reader.u64();
  uint64_t metadataCount = reader.u64();
  if (reader.failed())
    return truncated(path, "the header");
  // v1 used 32-bit counts and lengths; v2 and v3 share this layout.
  if (version != 2 && version != 3)
    return llvm::createStringError("GGUF file '" + path +
                                   "' has unsupported version " +
                                   llvm::Twine(version) + " (supported: 2, 3)");
  // No up-front bound on the metadata count: each entry is allocated only
  // once its bytes were read, so the loop stops at the end of the file and
  // the error names the first entry that is cut off.
  if (auto err = file->readMetadata(reader, metadataCount))
    return std::move(err);
  if (auto err = file->readTensors(reader, tensorCount))
    return std::move(err);
  return file;
}
