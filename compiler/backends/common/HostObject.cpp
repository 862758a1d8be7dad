//===- HostObject.cpp - The ABI of a model's host object ------------------===//
#include "compiler/backends/common/HostObject.h"

#include "compiler/backends/common/ModelInfoFields.h"
#include "dialect/TfmContracts.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Verifier.h"

#include <cassert>
#include <cstring>
#include <optional>

using namespace tfmc;
using mlir::tfm::EntryArg;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// What a parameter of an ABI entry carries (runtime/ModelABI.h).
enum class Role {
  Weights,
  Tokens,
  Position,
  Count,
  Length,
  Cache,
  Hidden,
  Logits,
  Scratch,
  Stream,
};

struct AbiParam {
  Role role;
  const char *name;
};

/// An entry of runtime/ModelABI.h: its symbol, the lowered entry it wraps
/// and its parameters, in order.
struct AbiEntry {
  const char *name;
  mlir::FlatSymbolRefAttr (mlir::tfm::EntriesAttr::*lowered)() const;
  llvm::ArrayRef<AbiParam> params;
};

constexpr AbiParam kPrefill[] = {
    {Role::Weights, "weights"}, {Role::Tokens, "tokens"},
    {Role::Position, "pos"},    {Role::Count, "count"},
    {Role::Cache, "cache"},     {Role::Logits, "logits"},
    {Role::Scratch, "scratch"}, {Role::Stream, "stream"}};
constexpr AbiParam kDecode[] = {
    {Role::Weights, "weights"}, {Role::Tokens, "token"},
    {Role::Position, "pos"},    {Role::Cache, "cache"},
    {Role::Logits, "logits"},   {Role::Scratch, "scratch"},
    {Role::Stream, "stream"}};
constexpr AbiParam kEncode[] = {
    {Role::Weights, "weights"}, {Role::Tokens, "tokens"},
    {Role::Length, "length"},   {Role::Hidden, "hidden"},
    {Role::Logits, "logits"},   {Role::Scratch, "scratch"},
    {Role::Stream, "stream"}};
constexpr AbiParam kSeq2SeqEncode[] = {
    {Role::Weights, "weights"},      {Role::Tokens, "tokens"},
    {Role::Length, "source_length"}, {Role::Cache, "cache"},
    {Role::Scratch, "scratch"},      {Role::Stream, "stream"}};
constexpr AbiParam kSeq2SeqPrefill[] = {
    {Role::Weights, "weights"},      {Role::Tokens, "tokens"},
    {Role::Position, "pos"},         {Role::Count, "count"},
    {Role::Length, "source_length"}, {Role::Cache, "cache"},
    {Role::Logits, "logits"},        {Role::Scratch, "scratch"},
    {Role::Stream, "stream"}};
constexpr AbiParam kSeq2SeqDecode[] = {
    {Role::Weights, "weights"}, {Role::Tokens, "token"},
    {Role::Position, "pos"},    {Role::Length, "source_length"},
    {Role::Cache, "cache"},     {Role::Logits, "logits"},
    {Role::Scratch, "scratch"}, {Role::Stream, "stream"}};

using Entries = mlir::tfm::EntriesAttr;
const AbiEntry kDecoderEntries[] = {
    {"tfm_prefill", &Entries::getPrefill, kPrefill},
    {"tfm_decode", &Entries::getDecode, kDecode}};
const AbiEntry kEncoderEntries[] = {
    {"tfm_encode", &Entries::getEncode, kEncode}};
const AbiEntry kEncoderDecoderEntries[] = {
    {"tfm_seq2seq_encode", &Entries::getEncode, kSeq2SeqEncode},
    {"tfm_seq2seq_prefill", &Entries::getPrefill, kSeq2SeqPrefill},
    {"tfm_seq2seq_decode", &Entries::getDecode, kSeq2SeqDecode}};

/// The entries a model of `kind` defines.
llvm::ArrayRef<AbiEntry> abiEntries(uint32_t kind) {
  switch (kind) {
  case TFM_KIND_ENCODER:
    return kEncoderEntries;
  case TFM_KIND_ENCODER_DECODER:
    return kEncoderDecoderEntries;
  default:
    return kDecoderEntries;
  }
}

/// The tfm.entry_arg mark a lowered argument of `role` carries; none for
/// the outputs, which the lowering adds unmarked.
std::optional<EntryArg> markOf(Role role) {
  switch (role) {
  case Role::Weights:
    return EntryArg::weights;
  case Role::Tokens:
    return EntryArg::tokens;
  case Role::Position:
    return EntryArg::position;
  case Role::Count:
    return EntryArg::count;
  case Role::Length:
    return EntryArg::length;
  case Role::Cache:
    return EntryArg::kv_cache;
  case Role::Scratch:
    return EntryArg::scratch;
  case Role::Stream:
    return EntryArg::stream;
  case Role::Hidden:
  case Role::Logits:
    return std::nullopt;
  }
  return std::nullopt;
}

bool isScalar(Role role) {
  return role == Role::Position || role == Role::Count || role == Role::Length;
}

std::string describe(std::optional<EntryArg> mark) {
  return mark ? "marked " + mlir::tfm::stringifyEntryArg(*mark).str()
              : std::string("unmarked (an output)");
}

/// A lowered entry, as the MLIR module describes it before translation.
struct LoweredEntry {
  const AbiEntry *abi;
  std::string symbol;
  std::vector<std::optional<EntryArg>> marks;
  /// An encode bucket's rows: it runs calls of `length` up to these; 0 for
  /// the entry that runs every call.
  int64_t rows = 0;
};

/// A lowered entry that an ABI entry calls, with the lowered argument each
/// ABI parameter is passed as (matchParameters).
struct WrappedCall {
  llvm::Function *lowered;
  std::vector<std::optional<unsigned>> passedAs;
  int64_t rows;
};

/// The arguments of `lowered` that the ABI entry's parameters feed, in
/// order: for each parameter, the index of the lowered argument it is
/// passed as, or none (the stream, unless the entry launches device work
/// and takes it marked `stream`, and tfm_encode's logits without a
/// masked-LM head).
llvm::Expected<std::vector<std::optional<unsigned>>>
matchParameters(const LoweredEntry &entry, llvm::Function &lowered,
                const tfm_model_info &info) {
  std::vector<std::optional<unsigned>> passedAs;
  unsigned next = 0;
  auto mismatch = [&](const llvm::Twine &why) {
    return makeError(llvm::Twine("the lowered entry @") + entry.symbol +
                     " does not match " + entry.abi->name +
                     " (runtime/ModelABI.h): " + why);
  };
  bool takesStream = llvm::is_contained(entry.marks, EntryArg::stream);
  for (const AbiParam &param : entry.abi->params) {
    bool absent = (param.role == Role::Stream && !takesStream) ||
                  (param.role == Role::Logits &&
                   info.kind == TFM_KIND_ENCODER && !info.encode_logits);
    if (absent) {
      passedAs.push_back(std::nullopt);
      continue;
    }
    if (next >= lowered.arg_size())
      return mismatch("it has " + llvm::Twine(lowered.arg_size()) +
                      " arguments and no `" + param.name + "`");
    std::optional<EntryArg> expected = markOf(param.role);
    if (entry.marks[next] != expected)
      return mismatch("argument " + llvm::Twine(next) + " is " +
                      describe(entry.marks[next]) + ", where `" + param.name +
                      "` is " + describe(expected));
    llvm::Type *type = lowered.getArg(next)->getType();
    bool typeMatches =
        isScalar(param.role) ? type->isIntegerTy(64) : type->isPointerTy();
    if (!typeMatches)
      return mismatch("argument " + llvm::Twine(next) + " (`" + param.name +
                      "`) is not " +
                      (isScalar(param.role) ? "an i64" : "a pointer"));
    passedAs.push_back(next++);
  }
  if (next != lowered.arg_size())
    return mismatch("it has " + llvm::Twine(lowered.arg_size()) +
                    " arguments, more than the " + llvm::Twine(next) +
                    " the ABI passes");
  return passedAs;
}

/// The entry points' buffers (weights, tokens, cache, logits) never overlap
/// (runtime/ModelABI.h says so); telling LLVM lets it keep accumulators in
/// registers instead of re-loading them after every store.
void markPointersNoAlias(llvm::Function &function) {
  for (llvm::Argument &argument : function.args())
    if (argument.getType()->isPointerTy())
      argument.addAttr(llvm::Attribute::NoAlias);
}

/// Emits at `builder` the call of `call.lowered` with the wrapper's
/// arguments that `call.passedAs` says.
llvm::CallInst *emitCall(llvm::IRBuilderBase &builder, llvm::Function &wrapper,
                         const WrappedCall &call) {
  llvm::SmallVector<llvm::Value *> arguments(call.lowered->arg_size());
  for (auto [index, from] : llvm::enumerate(call.passedAs))
    if (from)
      arguments[*from] = wrapper.getArg(index);
  return builder.CreateCall(call.lowered, arguments);
}

/// Defines `void NAME(<the ABI's parameters>)`. With one call, it calls it
/// inlined wherever LLVM optimises; with encode buckets (each call's rows
/// set but the last's), the first whose rows hold `length`, the last
/// otherwise.
void defineWrapper(llvm::Module &module, const AbiEntry &abi,
                   llvm::ArrayRef<WrappedCall> calls) {
  llvm::LLVMContext &context = module.getContext();
  llvm::SmallVector<llvm::Type *> types;
  for (const AbiParam &param : abi.params)
    types.push_back(isScalar(param.role) ? static_cast<llvm::Type *>(
                                               llvm::Type::getInt64Ty(context))
                                         : llvm::PointerType::get(context, 0));
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), types, false);
  llvm::Function *wrapper = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, abi.name, module);
  llvm::Value *length = nullptr;
  for (auto [index, param] : llvm::enumerate(abi.params)) {
    llvm::Argument *argument = wrapper->getArg(index);
    argument->setName(param.name);
    if (param.role == Role::Length)
      length = argument;
  }
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", wrapper));
  if (calls.size() == 1) {
    // The lowered arguments' facts (noalias, the scratch's alignment and
    // size) are the ABI's, and survive the inlining on the wrapper.
    const WrappedCall &call = calls.front();
    for (auto [index, from] : llvm::enumerate(call.passedAs)) {
      if (!from)
        continue;
      llvm::AttrBuilder facts(
          context, call.lowered->getAttributes().getParamAttrs(*from));
      wrapper->getArg(index)->addAttrs(facts);
    }
    emitCall(builder, *wrapper, call)->addFnAttr(llvm::Attribute::AlwaysInline);
    builder.CreateRetVoid();
    return;
  }
  assert(length && "only encode entries, which take a length, have buckets");
  // Each bucket keeps its own facts (a shorter one needs less scratch):
  // the calls are not inlined, so the wrapper is one branch per bucket. The
  // buffers never overlap in any of them.
  for (auto [index, from] : llvm::enumerate(calls.front().passedAs))
    if (from && wrapper->getArg(index)->getType()->isPointerTy())
      wrapper->getArg(index)->addAttr(llvm::Attribute::NoAlias);
  for (const WrappedCall &call : calls.drop_back()) {
    auto *runs = llvm::BasicBlock::Create(context, "", wrapper);
    auto *next = llvm::BasicBlock::Create(context, "", wrapper);
    builder.CreateCondBr(
        builder.CreateICmpSLE(length, builder.getInt64(call.rows)), runs, next);
    builder.SetInsertPoint(runs);
    emitCall(builder, *wrapper, call);
    builder.CreateRetVoid();
    builder.SetInsertPoint(next);
  }
  emitCall(builder, *wrapper, calls.back());
  builder.CreateRetVoid();
}

} // namespace

void tfmc::defineModelInfo(llvm::Module &module, const tfm_model_info &info) {
  llvm::LLVMContext &context = module.getContext();
  llvm::SmallVector<llvm::Type *> types;
  llvm::SmallVector<llvm::Constant *> values;
  const auto *bytes = reinterpret_cast<const unsigned char *>(&info);
  for (const ModelInfoField &field : kModelInfoFields) {
    uint64_t value = 0;
    if (field.size == sizeof(uint32_t)) {
      uint32_t narrow;
      std::memcpy(&narrow, bytes + field.offset, sizeof(narrow));
      value = narrow;
    } else {
      std::memcpy(&value, bytes + field.offset, sizeof(value));
    }
    llvm::Type *type = llvm::Type::getIntNTy(context, unsigned(field.size * 8));
    types.push_back(type);
    values.push_back(llvm::ConstantInt::get(type, value));
  }
  auto *type = llvm::StructType::create(context, types, "tfm_model_info");
  new llvm::GlobalVariable(
      module, type, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantStruct::get(type, values), "tfm_model");
}

llvm::Expected<std::unique_ptr<llvm::Module>>
tfmc::translateToHostModule(mlir::ModuleOp module, llvm::LLVMContext &context,
                            const tfm_model_info &info,
                            const HostObjectOptions &options) {
  mlir::tfm::EntriesAttr entries = mlir::tfm::getEntries(module);
  if (!entries)
    return makeError("the lowered module has no #tfm.entries");
  // The marks say what each lowered argument is; LLVM IR drops them.
  std::vector<LoweredEntry> lowered;
  for (const AbiEntry &abi : abiEntries(info.kind)) {
    mlir::FlatSymbolRefAttr symbol = (entries.*abi.lowered)();
    if (!symbol)
      return makeError(llvm::Twine("the lowered module has no entry for ") +
                       abi.name);
    // An encode entry's buckets come first, shortest first: the wrapper
    // tries them in order before the entry that runs every length.
    llvm::SmallVector<std::pair<mlir::FlatSymbolRefAttr, int64_t>> calls;
    if (abi.lowered == &Entries::getEncode)
      for (mlir::tfm::EncodeBucketAttr bucket : entries.getEncodeBucketList())
        calls.push_back({bucket.getEntry(), bucket.getRows()});
    calls.push_back({symbol, 0});
    for (auto [callee, rows] : calls) {
      auto function = mlir::tfm::lookupEntry(module, callee);
      if (!function)
        return makeError("the lowered module has no entry point '" +
                         callee.getValue() + "'");
      LoweredEntry entry{&abi, callee.getValue().str(), {}, rows};
      for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
        entry.marks.push_back(mlir::tfm::getEntryArg(function, i));
      lowered.push_back(std::move(entry));
    }
  }

  mlir::registerBuiltinDialectTranslation(*module.getContext());
  mlir::registerLLVMDialectTranslation(*module.getContext());
  mlir::registerOpenMPDialectTranslation(*module.getContext());
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "tfm_model");
  if (!llvmModule)
    return makeError("failed to translate the LLVM dialect to LLVM IR");
  for (const char *name : {"tfm_model", "tfm_set_num_threads"})
    if (llvmModule->getNamedValue(name))
      return makeError(llvm::Twine("the lowered module already defines '") +
                       name + "', a symbol of the ABI");

  // Only the ABI's symbols leave the object.
  for (llvm::Function &function : *llvmModule)
    if (!function.isDeclaration())
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (const AbiEntry &abi : abiEntries(info.kind)) {
    if (llvmModule->getNamedValue(abi.name))
      return makeError(llvm::Twine("the lowered module already defines '") +
                       abi.name + "', a symbol of the ABI");
    std::vector<WrappedCall> calls;
    for (const LoweredEntry &entry : lowered) {
      if (entry.abi != &abi)
        continue;
      llvm::Function *function = llvmModule->getFunction(entry.symbol);
      if (!function)
        return makeError("the lowered module has no entry point '" +
                         entry.symbol + "'");
      auto passedAs = matchParameters(entry, *function, info);
      if (!passedAs)
        return passedAs.takeError();
      markPointersNoAlias(*function);
      calls.push_back({function, std::move(*passedAs), entry.rows});
    }
    defineWrapper(*llvmModule, abi, calls);
  }

  llvm::Function *setThreads = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                              {llvm::Type::getInt32Ty(context)}, false),
      llvm::GlobalValue::ExternalLinkage, "tfm_set_num_threads", *llvmModule);
  llvm::Argument *threads = setThreads->getArg(0);
  threads->setName("threads");
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", setThreads));
  if (options.setNumThreads)
    options.setNumThreads(builder, threads);
  builder.CreateRetVoid();

  defineModelInfo(*llvmModule, info);
  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return makeError("the generated LLVM IR does not verify");
  return llvmModule;
}
