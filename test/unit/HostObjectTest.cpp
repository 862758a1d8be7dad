//===- HostObjectTest.cpp - The host object's ABI (ModelABI.h, ABI 8) -----===//
//
// compiler/backends/common/HostObject: `tfm_model` laid out as the C struct
// is, field by field, on the machine's data layout; the ABI entries as
// wrappers of the lowered ones (a trailing stream, tfm_encode's logits with
// and without a masked-LM head); tfm_set_num_threads; and a lowered entry
// that does not match its ABI entry refused with a message.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/common/HostObject.h"
#include "compiler/backends/common/ModelInfoFields.h"
#include "compiler/backends/common/ObjectEmission.h"
#include "dialect/TfmOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/TargetParser/Host.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace tfmc;

namespace {

/// A decoder whose entries do nothing, marked as tfm-cpu-plan-memory and
/// the bufferized lowering leave them: the logits unmarked.
const char *kDecoder = R"mlir(
module attributes {tfm.entries = #tfm.entries<prefill = @prefill,
    decode = @decode, prefill_chunk = 4, context_length = 16>} {
  llvm.func @prefill(
      %w: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<weights>},
      %t: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<tokens>},
      %p: i64 {tfm.entry_arg = #tfm.entry_arg<position>},
      %c: i64 {tfm.entry_arg = #tfm.entry_arg<count>},
      %k: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<kv_cache>},
      %l: !llvm.ptr,
      %s: !llvm.ptr {llvm.align = 64 : i64, llvm.dereferenceable = 128 : i64,
                     llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}) {
    llvm.return
  }
  llvm.func @decode(
      %w: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<weights>},
      %t: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<tokens>},
      %p: i64 {tfm.entry_arg = #tfm.entry_arg<position>},
      %k: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<kv_cache>},
      %l: !llvm.ptr,
      %s: !llvm.ptr {llvm.align = 64 : i64, llvm.dereferenceable = 128 : i64,
                     llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}) {
    llvm.return
  }
}
)mlir";

/// An encoder with or without its logits output.
std::string encoder(bool logits) {
  return std::string(R"mlir(
module attributes {tfm.entries = #tfm.entries<encode = @encode,
    context_length = 8>} {
  llvm.func @encode(
      %w: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<weights>},
      %t: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<tokens>},
      %n: i64 {tfm.entry_arg = #tfm.entry_arg<length>},
      %h: !llvm.ptr,)mlir") +
         (logits ? "%l: !llvm.ptr," : "") + R"mlir(
      %s: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<scratch>}) {
    llvm.return
  }
}
)mlir";
}

class HostObjectTest : public ::testing::Test {
protected:
  HostObjectTest() {
    context.loadDialect<mlir::tfm::TfmDialect, mlir::LLVM::LLVMDialect>();
  }

  /// The host module of `source` for `info`, or null with the error in
  /// `error`.
  std::unique_ptr<llvm::Module>
  translate(const std::string &source, const tfm_model_info &info,
            const HostObjectOptions &options = {}) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    if (!module)
      return nullptr;
    auto translated =
        translateToHostModule(*module, llvmContext, info, options);
    if (!translated) {
      error = llvm::toString(translated.takeError());
      return nullptr;
    }
    return std::move(*translated);
  }

  static tfm_model_info decoderInfo() {
    tfm_model_info info{};
    info.abi_version = TFM_ABI_VERSION;
    info.kind = TFM_KIND_DECODER;
    return info;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  llvm::LLVMContext llvmContext;
  std::string error;
};

/// The calls in the body of `function`.
std::vector<llvm::CallInst *> callsIn(llvm::Function &function) {
  std::vector<llvm::CallInst *> calls;
  for (llvm::BasicBlock &block : function)
    for (llvm::Instruction &instruction : block)
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(&instruction))
        calls.push_back(call);
  return calls;
}

std::vector<std::string> parameterNames(llvm::Function &function) {
  std::vector<std::string> names;
  for (llvm::Argument &argument : function.args())
    names.push_back(argument.getName().str());
  return names;
}

TEST_F(HostObjectTest, ModelInfoIsLaidOutAsTheCStruct) {
  // Every field a value of its own, so a field written at another's place
  // shows.
  tfm_model_info info;
  auto *bytes = reinterpret_cast<unsigned char *>(&info);
  for (size_t i = 0; i < sizeof(info); ++i)
    bytes[i] = static_cast<unsigned char>(i * 37 + 11);
  std::unique_ptr<llvm::Module> host = translate(kDecoder, info);
  ASSERT_TRUE(host) << error;
  auto target = createTargetMachine({llvm::sys::getProcessTriple(), "", ""});
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  llvm::DataLayout layout = (*target)->createDataLayout();

  llvm::GlobalVariable *model = host->getGlobalVariable("tfm_model");
  ASSERT_TRUE(model);
  EXPECT_TRUE(model->isConstant());
  EXPECT_EQ(model->getLinkage(), llvm::GlobalValue::ExternalLinkage);
  auto *type = llvm::cast<llvm::StructType>(model->getValueType());
  ASSERT_EQ(type->getNumElements(), std::size(kModelInfoFields));
  EXPECT_EQ(layout.getTypeAllocSize(type), sizeof(tfm_model_info));
  const llvm::StructLayout *fields = layout.getStructLayout(type);
  auto *value = llvm::cast<llvm::ConstantStruct>(model->getInitializer());
  for (auto [index, field] : llvm::enumerate(kModelInfoFields)) {
    SCOPED_TRACE(field.name);
    EXPECT_EQ(fields->getElementOffset(unsigned(index)), field.offset);
    EXPECT_EQ(layout.getTypeAllocSize(type->getElementType(unsigned(index))),
              field.size);
    uint64_t expected = 0;
    std::memcpy(&expected, bytes + field.offset, field.size);
    auto *constant =
        llvm::cast<llvm::ConstantInt>(value->getOperand(unsigned(index)));
    EXPECT_EQ(constant->getZExtValue(), expected);
  }
}

TEST_F(HostObjectTest, EntriesWrapTheLoweredOnes) {
  std::unique_ptr<llvm::Module> host = translate(kDecoder, decoderInfo());
  ASSERT_TRUE(host) << error;
  llvm::Function *lowered = host->getFunction("prefill");
  ASSERT_TRUE(lowered);
  EXPECT_TRUE(lowered->hasInternalLinkage());
  llvm::Function *prefill = host->getFunction("tfm_prefill");
  ASSERT_TRUE(prefill);
  EXPECT_EQ(prefill->getLinkage(), llvm::GlobalValue::ExternalLinkage);
  EXPECT_EQ(parameterNames(*prefill),
            (std::vector<std::string>{"weights", "tokens", "pos", "count",
                                      "cache", "logits", "scratch", "stream"}));
  EXPECT_TRUE(prefill->getArg(1)->hasNoAliasAttr());
  EXPECT_FALSE(prefill->getArg(7)->hasNoAliasAttr());
  EXPECT_EQ(prefill->getParamAlign(6).valueOrOne().value(), 64u);
  EXPECT_EQ(prefill->getParamDereferenceableBytes(6), 128u);
  std::vector<llvm::CallInst *> calls = callsIn(*prefill);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->getCalledFunction(), lowered);
  EXPECT_TRUE(calls[0]->hasFnAttr(llvm::Attribute::AlwaysInline));
  for (unsigned i = 0; i < 7; ++i)
    EXPECT_EQ(calls[0]->getArgOperand(i), prefill->getArg(i));

  llvm::Function *decode = host->getFunction("tfm_decode");
  ASSERT_TRUE(decode);
  EXPECT_EQ(parameterNames(*decode),
            (std::vector<std::string>{"weights", "token", "pos", "cache",
                                      "logits", "scratch", "stream"}));
  EXPECT_FALSE(host->getFunction("tfm_encode"));
}

TEST_F(HostObjectTest, EncodeTakesLogitsWithAndWithoutAHead) {
  tfm_model_info info = decoderInfo();
  info.kind = TFM_KIND_ENCODER;
  for (bool logits : {true, false}) {
    SCOPED_TRACE(logits ? "with a head" : "without");
    info.encode_logits = logits;
    std::unique_ptr<llvm::Module> host = translate(encoder(logits), info);
    ASSERT_TRUE(host) << error;
    llvm::Function *encode = host->getFunction("tfm_encode");
    ASSERT_TRUE(encode);
    EXPECT_EQ(parameterNames(*encode),
              (std::vector<std::string>{"weights", "tokens", "length", "hidden",
                                        "logits", "scratch", "stream"}));
    std::vector<llvm::CallInst *> calls = callsIn(*encode);
    ASSERT_EQ(calls.size(), 1u);
    llvm::CallInst *call = calls[0];
    ASSERT_EQ(call->arg_size(), logits ? 6u : 5u);
    EXPECT_EQ(call->getArgOperand(3), encode->getArg(3));
    EXPECT_EQ(call->getArgOperand(call->arg_size() - 1), encode->getArg(5));
    if (logits) {
      EXPECT_EQ(call->getArgOperand(4), encode->getArg(4));
    }
  }
}

TEST_F(HostObjectTest, SetNumThreadsDoesWhatTheBackendSays) {
  std::unique_ptr<llvm::Module> host = translate(kDecoder, decoderInfo());
  ASSERT_TRUE(host) << error;
  llvm::Function *plain = host->getFunction("tfm_set_num_threads");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->isDeclaration());
  EXPECT_TRUE(callsIn(*plain).empty());

  HostObjectOptions options;
  options.setNumThreads = [](llvm::IRBuilderBase &builder,
                             llvm::Value *threads) {
    llvm::Module &module = *builder.GetInsertBlock()->getModule();
    builder.CreateCall(module.getOrInsertFunction("runtime_threads",
                                                  builder.getVoidTy(),
                                                  builder.getInt32Ty()),
                       {threads});
  };
  llvm::LLVMContext other;
  module = mlir::parseSourceString<mlir::ModuleOp>(kDecoder, &context);
  auto forwarding =
      translateToHostModule(*module, other, decoderInfo(), options);
  ASSERT_TRUE(bool(forwarding)) << llvm::toString(forwarding.takeError());
  llvm::Function *setter = (*forwarding)->getFunction("tfm_set_num_threads");
  ASSERT_TRUE(setter);
  std::vector<llvm::CallInst *> calls = callsIn(*setter);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->getCalledFunction()->getName(), "runtime_threads");
  EXPECT_EQ(calls[0]->getArgOperand(0), setter->getArg(0));
}

TEST_F(HostObjectTest, AnEntryThatDoesNotMatchItsAbiIsRefused) {
  // decode's scratch is not marked: it reads as a second output.
  std::string source = kDecoder;
  size_t last =
      source.rfind("llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}");
  source.replace(last,
                 std::strlen("llvm.noalias, tfm.entry_arg = "
                             "#tfm.entry_arg<scratch>}"),
                 "llvm.noalias}");
  EXPECT_FALSE(translate(source, decoderInfo()));
  EXPECT_EQ(error, "the lowered entry @decode does not match tfm_decode "
                   "(runtime/ModelABI.h): argument 5 is unmarked (an "
                   "output), where `scratch` is marked scratch");

  // An encoder without a head whose code has a logits output.
  tfm_model_info info = decoderInfo();
  info.kind = TFM_KIND_ENCODER;
  info.encode_logits = 0;
  EXPECT_FALSE(translate(encoder(/*logits=*/true), info));
  EXPECT_EQ(error, "the lowered entry @encode does not match tfm_encode "
                   "(runtime/ModelABI.h): argument 4 is unmarked (an "
                   "output), where `scratch` is marked scratch");
}

} // namespace
