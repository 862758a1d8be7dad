//===- ModelInfo.cpp - The facts tfm_model publishes ----------------------===//
#include "compiler/backends/common/ModelInfo.h"

#include "dialect/TfmContracts.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace tfmc;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<tfm_model_info>
tfmc::describeModel(mlir::ModuleOp module, const ModelSpec &spec,
                    const mlir::tfm::WeightLayout &layout, uint32_t device) {
  mlir::tfm::EntriesAttr entries = mlir::tfm::getEntries(module);
  if (!entries)
    return makeError("the module has no #tfm.entries");
  tfm_model_info info{};
  info.abi_version = TFM_ABI_VERSION;
  info.vocab_size = uint32_t(spec.config.vocabSize);
  info.context_length = uint32_t(entries.getContextLength());
  info.weights_bytes = layout.totalBytes;
  info.weights_hash = layout.hash;
  info.weights_alignment = mlir::tfm::WeightLayout::kAlignment;
  info.hidden_size = uint32_t(spec.config.dim);
  info.device = device;
  std::optional<mlir::tfm::ModelKind> kind = mlir::tfm::getModelKind(module);
  if (!kind)
    return makeError("the module has no #tfm.model kind");
  if (*kind == mlir::tfm::ModelKind::encoder) {
    info.kind = TFM_KIND_ENCODER;
    info.encode_logits = spec.config.maskedLmHead ? 1 : 0;
    return info;
  }
  info.kind = TFM_KIND_DECODER;
  if (*kind == mlir::tfm::ModelKind::encoder_decoder) {
    info.kind = TFM_KIND_ENCODER_DECODER;
    info.decoder_start_token = uint32_t(spec.config.decoderStartToken);
  }
  auto decode = mlir::tfm::lookupEntry(module, entries.getDecode());
  if (!decode)
    return makeError("the module has no decode entry");
  std::optional<unsigned> cacheIndex =
      mlir::tfm::findEntryArg(decode, mlir::tfm::EntryArg::kv_cache);
  if (!cacheIndex)
    return makeError("the decode entry has no kv_cache argument");
  auto cacheType =
      mlir::dyn_cast<mlir::ShapedType>(decode.getArgumentTypes()[*cacheIndex]);
  if (!cacheType || !cacheType.hasStaticShape())
    return makeError("the decode entry's kv_cache argument has no static "
                     "shape (the model is described before it is lowered)");
  info.prefill_chunk = uint32_t(entries.getPrefillChunk());
  info.cache_element_bytes = uint32_t(cacheType.getElementTypeBitWidth() / 8);
  info.cache_bytes =
      uint64_t(cacheType.getNumElements()) * info.cache_element_bytes;
  return info;
}

llvm::Error tfmc::describeScratch(mlir::ModuleOp module, tfm_model_info &info) {
  uint64_t bytes = 0, alignment = 1;
  bool found = false;
  for (auto function : module.getOps<mlir::LLVM::LLVMFuncOp>()) {
    std::optional<unsigned> index =
        mlir::tfm::findEntryArg(function, mlir::tfm::EntryArg::scratch);
    if (!index)
      continue;
    found = true;
    if (auto size = function.getArgAttrOfType<mlir::IntegerAttr>(
            *index, mlir::LLVM::LLVMDialect::getDereferenceableAttrName()))
      bytes = std::max<uint64_t>(bytes, size.getInt());
    if (auto align = function.getArgAttrOfType<mlir::IntegerAttr>(
            *index, mlir::LLVM::LLVMDialect::getAlignAttrName()))
      alignment = std::max<uint64_t>(alignment, align.getInt());
  }
  if (!found)
    return makeError("the lowered module's entries have no scratch argument");
  info.scratch_bytes = bytes;
  info.scratch_alignment = alignment;
  return llvm::Error::success();
}
