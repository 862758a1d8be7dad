//===- TfmContracts.cpp - Verify and access the tfm IR contracts ----------===//
//
// The dialect checks every `tfm.*` attribute wherever it appears: module
// attributes must be the typed attribute of their name, entry symbols must
// name functions of the module, and an entry argument's mark must fit its
// type. Nothing downstream re-validates them.
//
//===----------------------------------------------------------------------===//
#include "dialect/TfmContracts.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::tfm;

//===----------------------------------------------------------------------===//
// Attribute verifiers
//===----------------------------------------------------------------------===//

LogicalResult ModelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t contextLength, ModelKind kind,
                                FlatSymbolRefAttr network) {
  if (contextLength <= 0)
    return emitError() << "context_length must be positive, got "
                       << contextLength;
  return success();
}

LogicalResult
EncodeBucketAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t rows, FlatSymbolRefAttr entry) {
  if (rows <= 0)
    return emitError() << "an encode bucket's rows must be positive, got "
                       << rows;
  return success();
}

/// `buckets`, #tfm.entries' encode_buckets: #tfm.encode_bucket's of
/// strictly increasing rows below the context.
static LogicalResult
verifyEncodeBuckets(function_ref<InFlightDiagnostic()> emitError,
                    ArrayAttr buckets, int64_t contextLength) {
  int64_t previous = 0;
  for (Attribute attribute : buckets) {
    auto bucket = dyn_cast<EncodeBucketAttr>(attribute);
    if (!bucket)
      return emitError() << "encode_buckets holds " << attribute
                         << ", which is not a #tfm.encode_bucket";
    if (bucket.getRows() <= previous)
      return emitError() << "encode_buckets' rows must increase, but "
                         << bucket.getRows() << " follows " << previous;
    if (bucket.getRows() >= contextLength)
      return emitError() << "an encode bucket of " << bucket.getRows()
                         << " rows is not shorter than context_length = "
                         << contextLength << ", which `encode` runs";
    previous = bucket.getRows();
  }
  return success();
}

LogicalResult EntriesAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  FlatSymbolRefAttr prefill,
                                  FlatSymbolRefAttr decode,
                                  FlatSymbolRefAttr encode,
                                  int64_t prefillChunk, int64_t contextLength,
                                  ArrayAttr encodeBuckets) {
  if (contextLength <= 0)
    return emitError() << "context_length must be positive, got "
                       << contextLength;
  if (encodeBuckets) {
    if (!encode)
      return emitError() << "encode_buckets are shorter copies of encode, "
                            "but the entries have no encode";
    if (failed(verifyEncodeBuckets(emitError, encodeBuckets, contextLength)))
      return failure();
  }
  // An encoder-decoder has all three: encode runs the source once, prefill
  // and decode the target.
  if (encode && !prefill && !decode) {
    if (prefillChunk != 0)
      return emitError() << "an encoder's entries (encode) take no prefill, "
                            "decode or prefill_chunk";
    return success();
  }
  if (!prefill || !decode)
    return emitError()
           << "entries need both prefill and decode symbols, or encode";
  if (prefillChunk <= 0 || prefillChunk > contextLength)
    return emitError() << "prefill_chunk must be in [1, context_length = "
                       << contextLength << "], got " << prefillChunk;
  return success();
}

SmallVector<FlatSymbolRefAttr, 3> EntriesAttr::getEntryPoints() const {
  SmallVector<FlatSymbolRefAttr, 3> entries;
  for (FlatSymbolRefAttr symbol : {getPrefill(), getDecode(), getEncode()})
    if (symbol)
      entries.push_back(symbol);
  for (EncodeBucketAttr bucket : getEncodeBucketList())
    entries.push_back(bucket.getEntry());
  return entries;
}

SmallVector<EncodeBucketAttr> EntriesAttr::getEncodeBucketList() const {
  SmallVector<EncodeBucketAttr> buckets;
  if (ArrayAttr list = getEncodeBuckets())
    for (Attribute bucket : list)
      buckets.push_back(cast<EncodeBucketAttr>(bucket));
  return buckets;
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef backend,
                                 TargetConfigAttrInterface config) {
  if (backend.empty())
    return emitError() << "a target needs a backend name";
  if (!config)
    return emitError() << "target '" << backend << "' needs a config";
  if (config.getBackendName() != backend)
    return emitError() << "target '" << backend << "' has the config of '"
                       << config.getBackendName() << "': " << config;
  return success();
}

LogicalResult
CpuTargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringRef triple, StringRef cpu, StringRef features,
                      int64_t vectorBits, int64_t vectorRegisters) {
  if (vectorBits < 32 || vectorBits % 32 != 0)
    return emitError() << "vector_bits must be a positive multiple of 32, got "
                       << vectorBits;
  if (vectorRegisters <= 0)
    return emitError() << "vector_registers must be positive, got "
                       << vectorRegisters;
  return success();
}

StringRef CpuTargetAttr::getBackendName() const { return "cpu"; }

/// The archs tfmc generates CUDA code for: Ampere and later, which have
/// mma.sync, cp.async and 16-byte vector loads.
static bool isKnownCudaArch(StringRef arch) {
  return llvm::is_contained({"sm_80", "sm_86", "sm_89", "sm_90"}, arch);
}

LogicalResult
CudaTargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringRef arch, StringRef cubins) {
  if (!isKnownCudaArch(arch))
    return emitError() << "unknown CUDA arch '" << arch
                       << "' (expected sm_80, sm_86, sm_89 or sm_90)";
  SmallVector<StringRef> archs;
  cubins.split(archs, ',', -1, false);
  for (StringRef cubin : archs)
    if (!isKnownCudaArch(cubin))
      return emitError() << "unknown CUDA arch '" << cubin
                         << "' in cubins (expected sm_80, sm_86, sm_89 or "
                            "sm_90)";
  return success();
}

StringRef CudaTargetAttr::getBackendName() const { return "cuda"; }

//===----------------------------------------------------------------------===//
// Dialect hooks
//===----------------------------------------------------------------------===//

namespace {

/// Checks that `attribute` has the typed form its name requires.
template <typename AttrT>
LogicalResult expectAttr(Operation *op, NamedAttribute attribute,
                         StringRef form) {
  if (!isa<AttrT>(attribute.getValue()))
    return op->emitError() << "'" << attribute.getName().getValue()
                           << "' must be a " << form << ", got "
                           << attribute.getValue();
  return success();
}

LogicalResult verifySymbol(ModuleOp module, StringRef attribute,
                           FlatSymbolRefAttr symbol, StringRef role) {
  if (!lookupEntry(module, symbol))
    return module.emitError()
           << attribute << " names " << symbol << " as " << role
           << ", but the module has no such function";
  return success();
}

/// The entries a network of `kind` has: a decoder prefill and decode, an
/// encoder encode, an encoder-decoder all three.
LogicalResult verifyEntriesFitKind(ModuleOp module, EntriesAttr entries,
                                   ModelKind kind) {
  bool encode = static_cast<bool>(entries.getEncode());
  bool generate = entries.getPrefill() && entries.getDecode();
  bool fits = kind == ModelKind::decoder   ? generate && !encode
              : kind == ModelKind::encoder ? encode && !generate
                                           : encode && generate;
  if (fits)
    return success();
  return module.emitError()
         << "tfm.entries " << entries << " do not fit tfm.model's kind "
         << stringifyModelKind(kind)
         << " (a decoder has prefill and decode, an encoder encode, an "
            "encoder_decoder all three)";
}

} // namespace

LogicalResult TfmDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  bool moduleAttribute = name == kModelAttrName || name == kEntriesAttrName ||
                         name == kTargetAttrName || name == kWeightsAttrName;
  if (!moduleAttribute)
    return op->emitError()
           << "unknown tfm attribute '" << name
           << "' (module attributes: tfm.model, tfm.entries, tfm.target, "
              "tfm.weights; entry arguments: tfm.entry_arg)";
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError() << "'" << name << "' belongs on a module";
  if (name == kModelAttrName) {
    if (failed(expectAttr<ModelAttr>(op, attribute, "#tfm.model")))
      return failure();
    FlatSymbolRefAttr network =
        cast<ModelAttr>(attribute.getValue()).getNetwork();
    return network ? verifySymbol(module, name, network, "the network")
                   : success();
  }
  if (name == kTargetAttrName)
    return expectAttr<TargetAttr>(op, attribute, "#tfm.target");
  if (name == kWeightsAttrName)
    return expectAttr<WeightsLayoutAttr>(op, attribute, "#tfm.weights_layout");
  if (failed(expectAttr<EntriesAttr>(op, attribute, "#tfm.entries")))
    return failure();
  auto entries = cast<EntriesAttr>(attribute.getValue());
  for (auto [symbol, role] : {std::pair{entries.getPrefill(), "prefill"},
                              std::pair{entries.getDecode(), "decode"},
                              std::pair{entries.getEncode(), "encode"}})
    if (symbol && failed(verifySymbol(module, name, symbol, role)))
      return failure();
  for (EncodeBucketAttr bucket : entries.getEncodeBucketList())
    if (failed(
            verifySymbol(module, name, bucket.getEntry(), "an encode bucket")))
      return failure();
  // The kind is decided once, by the builder in tfm.model; the entries
  // follow from it, so a reader of either sees the same kind.
  if (ModelAttr model = getModel(module))
    return verifyEntriesFitKind(module, entries, model.getKind());
  return success();
}

LogicalResult TfmDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name != kEntryArgAttrName)
    return op->emitError() << "unknown tfm argument attribute '" << name
                           << "' (expected tfm.entry_arg)";
  auto mark = dyn_cast<EntryArgAttr>(attribute.getValue());
  if (!mark)
    return op->emitError() << "'" << name << "' must be a #tfm.entry_arg, got "
                           << attribute.getValue();
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || regionIndex != 0)
    return op->emitError() << "'" << name
                           << "' belongs on a function's arguments";
  // Types are checked while they are tensors, memrefs or indices; the LLVM
  // dialect's pointers carry no shape to check.
  Type type = function.getArgumentTypes()[argIndex];
  auto shaped = dyn_cast<ShapedType>(type);
  auto fail = [&](StringRef expected) {
    return op->emitError() << "argument " << argIndex << " marked " << mark
                           << " must be " << expected << ", got " << type;
  };
  switch (mark.getValue()) {
  case EntryArg::tokens:
    if (shaped && (shaped.getRank() != 1 ||
                   !shaped.getElementType().isSignlessInteger(32)))
      return fail("a 1-D i32 tensor or memref");
    return success();
  case EntryArg::position:
  case EntryArg::count:
  case EntryArg::length:
    if (shaped)
      return fail("an index");
    return success();
  case EntryArg::scratch:
    if (shaped && (shaped.getRank() != 1 ||
                   !shaped.getElementType().isSignlessInteger(8)))
      return fail("a 1-D i8 memref");
    if (!shaped && isa<IndexType, IntegerType>(type))
      return fail("a memref");
    return success();
  case EntryArg::stream:
    if (!isa<LLVM::LLVMPointerType>(type))
      return fail("an !llvm.ptr");
    return success();
  case EntryArg::kv_cache:
  case EntryArg::weights:
    if (!shaped && !isa<IndexType, IntegerType>(type))
      return success();
    if (!shaped)
      return fail("a tensor or memref");
    return success();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

ModelAttr mlir::tfm::getModel(ModuleOp module) {
  return module->getAttrOfType<ModelAttr>(TfmDialect::kModelAttrName);
}

void mlir::tfm::setModel(ModuleOp module, ModelAttr model) {
  module->setAttr(TfmDialect::kModelAttrName, model);
}

std::optional<ModelKind> mlir::tfm::getModelKind(ModuleOp module) {
  if (ModelAttr model = getModel(module))
    return model.getKind();
  return std::nullopt;
}

EntriesAttr mlir::tfm::getEntries(ModuleOp module) {
  return module->getAttrOfType<EntriesAttr>(TfmDialect::kEntriesAttrName);
}

void mlir::tfm::setEntries(ModuleOp module, EntriesAttr entries) {
  module->setAttr(TfmDialect::kEntriesAttrName, entries);
}

TargetAttr mlir::tfm::getTarget(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  return module ? module->getAttrOfType<TargetAttr>(TfmDialect::kTargetAttrName)
                : TargetAttr();
}

void mlir::tfm::setTarget(ModuleOp module, TargetAttr target) {
  module->setAttr(TfmDialect::kTargetAttrName, target);
}

CpuTargetAttr mlir::tfm::getCpuTarget(TargetAttr target) {
  return target ? dyn_cast<CpuTargetAttr>(target.getConfig()) : CpuTargetAttr();
}

CudaTargetAttr mlir::tfm::getCudaTarget(TargetAttr target) {
  return target ? dyn_cast<CudaTargetAttr>(target.getConfig())
                : CudaTargetAttr();
}

CpuTargetAttr mlir::tfm::getCpuTarget(Operation *op) {
  return getCpuTarget(getTarget(op));
}

bool mlir::tfm::hasTargetFeature(TargetAttr target, StringRef feature) {
  CpuTargetAttr cpu = getCpuTarget(target);
  if (!cpu)
    return false;
  SmallVector<StringRef> features;
  cpu.getFeatures().split(features, ',');
  return llvm::is_contained(features, feature);
}

WeightsLayoutAttr mlir::tfm::getWeightsLayout(ModuleOp module) {
  return module->getAttrOfType<WeightsLayoutAttr>(TfmDialect::kWeightsAttrName);
}

void mlir::tfm::setWeightsLayout(ModuleOp module, WeightsLayoutAttr layout) {
  module->setAttr(TfmDialect::kWeightsAttrName, layout);
}

FunctionOpInterface mlir::tfm::lookupEntry(ModuleOp module,
                                           FlatSymbolRefAttr symbol) {
  if (!symbol)
    return {};
  return dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupSymbolIn(module, symbol.getAttr()));
}

void mlir::tfm::setEntryArg(FunctionOpInterface function, unsigned index,
                            EntryArg kind) {
  function.setArgAttr(index, TfmDialect::kEntryArgAttrName,
                      EntryArgAttr::get(function.getContext(), kind));
}

std::optional<unsigned> mlir::tfm::findEntryArg(FunctionOpInterface function,
                                                EntryArg kind) {
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    if (auto mark = function.getArgAttrOfType<EntryArgAttr>(
            i, TfmDialect::kEntryArgAttrName))
      if (mark.getValue() == kind)
        return i;
  return std::nullopt;
}

bool mlir::tfm::hasEntryArgs(FunctionOpInterface function) {
  for (unsigned index = 0, e = function.getNumArguments(); index < e; ++index)
    if (getEntryArg(function, index))
      return true;
  return false;
}

std::optional<EntryArg> mlir::tfm::getEntryArg(FunctionOpInterface function,
                                               unsigned index) {
  if (auto mark = function.getArgAttrOfType<EntryArgAttr>(
          index, TfmDialect::kEntryArgAttrName))
    return mark.getValue();
  return std::nullopt;
}

void mlir::tfm::clearEntryArgs(FunctionOpInterface function) {
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    function.removeArgAttr(i, TfmDialect::kEntryArgAttrName);
}
