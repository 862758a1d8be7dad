//===- OutlineKernels.cpp - Each loop nest of an entry as a function ------===//
//
// An entry of a deep model repeats the same loop nests once per layer, and
// they differ only in the buffers they read and write. Until now LLVM
// compiled every copy, so compile time grew with depth. This pass moves
// each loop nest, with the straight-line code before it, into a private
// function that takes its buffers as arguments. tfm-cpu-dedup-kernels can
// then call the equal ones through one function.
//
//===----------------------------------------------------------------------===//
#include "passes/Codegen/CPU/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMCPUOUTLINEKERNELS
#include "passes/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Where an op of an entry's body goes.
enum class Placement {
  /// Constants: stay, and each kernel that reads one gets a copy.
  constant,
  /// Address and index arithmetic over values outside the kernel being
  /// gathered (views of the weights blob and the scratch, cache slices):
  /// stays in the entry, and the kernels take its results as arguments.
  entry,
  /// Allocations and deallocations: stay, and end the kernel being
  /// gathered (an op after a deallocation must not move before it).
  barrier,
  /// Everything else: the kernel's body.
  kernel,
};

bool hasVectorResult(Operation *op) {
  return llvm::any_of(op->getResultTypes(), llvm::IsaPred<VectorType>);
}

Placement placementOf(Operation *op,
                      const llvm::SmallPtrSetImpl<Operation *> &gathered) {
  if (op->hasTrait<OpTrait::ConstantLike>())
    return Placement::constant;
  if (op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
      !hasVectorResult(op) &&
      llvm::none_of(op->getOperands(), [&](Value operand) {
        Operation *producer = operand.getDefiningOp();
        return producer && gathered.contains(producer);
      }))
    return Placement::entry;
  if (hasEffect<MemoryEffects::Allocate>(op) ||
      hasEffect<MemoryEffects::Free>(op) ||
      op->hasTrait<OpTrait::IsTerminator>())
    return Placement::barrier;
  return Placement::kernel;
}

/// Whether the bare-pointer calling convention of the entries passes
/// `type` as it is: a static shape in the identity layout.
bool passesAsIs(MemRefType type) {
  return type.hasStaticShape() && type.getLayout().isIdentity();
}

/// `type` with a dynamic offset: the type a kernel gives a memref that it
/// takes as base buffer, offset, sizes and strides, whatever offset the
/// caller's view had.
MemRefType withDynamicOffset(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return {};
  auto layout =
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(type.getShape(), type.getElementType(), layout,
                         type.getMemorySpace());
}

/// Gives the views derived from a memref whose offset became dynamic a
/// dynamic offset too, as their verifiers require.
void propagateDynamicOffsets(Value memref) {
  SmallVector<Value> worklist{memref};
  while (!worklist.empty()) {
    Value source = worklist.pop_back_val();
    for (Operation *user : source.getUsers()) {
      if (!isa<memref::SubViewOp, memref::ExpandShapeOp,
               memref::CollapseShapeOp>(user))
        continue;
      Value view = user->getResult(0);
      auto type = cast<MemRefType>(view.getType());
      MemRefType dynamic = withDynamicOffset(type);
      if (!dynamic || dynamic == type)
        continue;
      view.setType(dynamic);
      worklist.push_back(view);
    }
  }
}

/// How a kernel takes one of its inputs. A memref the entries' bare-pointer
/// calling convention passes as it is (`rebuilt` null) is one argument;
/// any other is its base buffer, its offset and its dynamic sizes and
/// strides, from which the kernel rebuilds it as `rebuilt`.
struct KernelInput {
  Value value;
  MemRefType rebuilt;

  /// None where the input is a memref whose layout has no strides.
  static std::optional<KernelInput> of(Value value) {
    auto memref = dyn_cast<MemRefType>(value.getType());
    if (!memref || passesAsIs(memref))
      return KernelInput{value, {}};
    MemRefType rebuilt = withDynamicOffset(memref);
    if (!rebuilt)
      return std::nullopt;
    return KernelInput{value, rebuilt};
  }

  MemRefType memref() const { return cast<MemRefType>(value.getType()); }
  SmallVector<int64_t> strides() const {
    return rebuilt.getStridesAndOffset().first;
  }

  void appendArgumentTypes(SmallVectorImpl<Type> &types) const {
    if (!rebuilt) {
      types.push_back(value.getType());
      return;
    }
    MLIRContext *context = value.getContext();
    types.push_back(MemRefType::get({}, memref().getElementType(),
                                    MemRefLayoutAttrInterface{},
                                    memref().getMemorySpace()));
    types.push_back(IndexType::get(context));
    for (int64_t size : memref().getShape())
      if (ShapedType::isDynamic(size))
        types.push_back(IndexType::get(context));
    for (int64_t stride : strides())
      if (ShapedType::isDynamic(stride))
        types.push_back(IndexType::get(context));
  }

  /// The call's arguments for this input.
  void appendArguments(OpBuilder &builder, Location loc,
                       SmallVectorImpl<Value> &arguments) const {
    if (!rebuilt) {
      arguments.push_back(value);
      return;
    }
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, value);
    arguments.push_back(metadata.getBaseBuffer());
    arguments.push_back(metadata.getOffset());
    for (auto [size, piece] :
         llvm::zip(memref().getShape(), metadata.getSizes()))
      if (ShapedType::isDynamic(size))
        arguments.push_back(piece);
    for (auto [stride, piece] : llvm::zip(strides(), metadata.getStrides()))
      if (ShapedType::isDynamic(stride))
        arguments.push_back(piece);
  }

  /// The input in the kernel, from its arguments starting at `next`.
  Value rebuild(OpBuilder &builder, Location loc, Block &body,
                unsigned &next) const {
    if (!rebuilt)
      return body.getArgument(next++);
    Value base = body.getArgument(next++);
    OpFoldResult offset = body.getArgument(next++);
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t size : memref().getShape())
      sizes.push_back(ShapedType::isDynamic(size)
                          ? OpFoldResult(body.getArgument(next++))
                          : builder.getIndexAttr(size));
    for (int64_t stride : this->strides())
      strides.push_back(ShapedType::isDynamic(stride)
                            ? OpFoldResult(body.getArgument(next++))
                            : builder.getIndexAttr(stride));
    return memref::ReinterpretCastOp::create(builder, loc, rebuilt, base,
                                             offset, sizes, strides);
  }
};

/// A run of an entry's top-level ops that becomes one kernel.
struct Kernel {
  SmallVector<Operation *> ops;
  llvm::SmallPtrSet<Operation *, 16> members;
  bool hasLoop = false;

  void add(Operation *op) {
    ops.push_back(op);
    members.insert(op);
    hasLoop |= op->getNumRegions() > 0;
  }
};

/// Splits `body` into kernels: each ends with an op that has regions (a
/// loop nest) or before a barrier.
SmallVector<Kernel> gatherKernels(Block &body) {
  SmallVector<Kernel> kernels(1);
  for (Operation &op : body) {
    Kernel &current = kernels.back();
    switch (placementOf(&op, current.members)) {
    case Placement::constant:
    case Placement::entry:
      break;
    case Placement::barrier:
      if (!current.ops.empty())
        kernels.emplace_back();
      break;
    case Placement::kernel:
      current.add(&op);
      if (op.getNumRegions() > 0)
        kernels.emplace_back();
      break;
    }
  }
  if (kernels.back().ops.empty())
    kernels.pop_back();
  return kernels;
}

class KernelOutliner {
public:
  KernelOutliner(ModuleOp module, func::FuncOp entry)
      : module(module), entry(entry) {}

  /// Moves `kernel` into a new function and calls it; leaves the entry as
  /// it was when the kernel cannot be outlined (a memref the kernel would
  /// return, a view it cannot retype).
  void outline(Kernel &kernel);

private:
  /// Values the kernel reads and gets from outside: constants are copied
  /// into it instead.
  void collectInputs(Kernel &kernel, SetVector<Value> &inputs,
                     SetVector<Operation *> &constants);

  ModuleOp module;
  func::FuncOp entry;
  unsigned count = 0;
};

void KernelOutliner::collectInputs(Kernel &kernel, SetVector<Value> &inputs,
                                   SetVector<Operation *> &constants) {
  auto consider = [&](Value value) {
    Operation *producer = value.getDefiningOp();
    if (producer && kernel.members.contains(producer))
      return;
    if (producer && producer->hasTrait<OpTrait::ConstantLike>())
      constants.insert(producer);
    else
      inputs.insert(value);
  };
  for (Operation *op : kernel.ops) {
    for (Value operand : op->getOperands())
      consider(operand);
    SetVector<Value> captured;
    for (Region &region : op->getRegions())
      getUsedValuesDefinedAbove(region, region, captured);
    for (Value value : captured)
      consider(value);
  }
}

void KernelOutliner::outline(Kernel &kernel) {
  SetVector<Value> inputs;
  SetVector<Operation *> constants;
  collectInputs(kernel, inputs, constants);
  Block &body = entry.front();
  SmallVector<Value> outputs;
  for (Operation *op : kernel.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !kernel.members.contains(body.findAncestorOpInBlock(*user));
          }))
        outputs.push_back(result);
  if (llvm::any_of(outputs, [](Value output) {
        return isa<BaseMemRefType>(output.getType());
      }))
    return;

  MLIRContext *context = module.getContext();
  Location loc = kernel.ops.back()->getLoc();
  SmallVector<KernelInput> kernelInputs;
  SmallVector<Type> argumentTypes;
  for (Value input : inputs) {
    std::optional<KernelInput> kernelInput = KernelInput::of(input);
    if (!kernelInput)
      return;
    kernelInput->appendArgumentTypes(argumentTypes);
    kernelInputs.push_back(*kernelInput);
  }
  SmallVector<Type> resultTypes =
      llvm::map_to_vector(outputs, [](Value v) { return v.getType(); });

  OpBuilder builder(context);
  builder.setInsertionPointAfter(entry);
  std::string name = (entry.getSymName() + "_kernel_" + Twine(count++)).str();
  auto function = func::FuncOp::create(
      builder, loc, name, builder.getFunctionType(argumentTypes, resultTypes));
  function.setPrivate();
  function->setAttr(kKernelAttrName, UnitAttr::get(context));
  // LLVM would inline the small kernels again at each of their calls, and
  // a deep model's entry would grow back to one copy per layer: 32 layers
  // of Llama-2-7B's shape took 77 s of code generation, 3 layers 4 s.
  // func-to-llvm carries `passthrough` over to the llvm.func.
  function->setAttr(
      "passthrough",
      ArrayAttr::get(context, {StringAttr::get(context, "noinline")}));
  Block *kernelBody = function.addEntryBlock();
  builder.setInsertionPointToStart(kernelBody);

  IRMapping mapping;
  SmallVector<Value> rebuilt;
  unsigned next = 0;
  for (const KernelInput &input : kernelInputs) {
    Value inKernel = input.rebuild(builder, loc, *kernelBody, next);
    mapping.map(input.value, inKernel);
    if (input.rebuilt)
      rebuilt.push_back(inKernel);
  }
  for (Operation *constant : constants)
    builder.clone(*constant, mapping);
  for (Operation *op : kernel.ops)
    builder.clone(*op, mapping);
  func::ReturnOp::create(builder, loc,
                         llvm::map_to_vector(outputs, [&](Value output) {
                           return mapping.lookup(output);
                         }));
  for (Value view : rebuilt)
    propagateDynamicOffsets(view);
  if (failed(verify(function, /*verifyRecursively=*/true))) {
    function.erase();
    --count;
    return;
  }

  // The call, where the kernel's last op was: every input is defined
  // before it, every use of an output after it.
  builder.setInsertionPoint(kernel.ops.back());
  SmallVector<Value> arguments;
  for (const KernelInput &input : kernelInputs)
    input.appendArguments(builder, loc, arguments);
  auto call = func::CallOp::create(builder, loc, function, arguments);
  for (auto [output, result] : llvm::zip(outputs, call.getResults()))
    output.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(kernel.ops))
    op->erase();
}

struct TfmCpuOutlineKernels
    : mlir::tfm::impl::TfmCpuOutlineKernelsBase<TfmCpuOutlineKernels> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(kKernelAttrName) &&
          func.getBody().hasOneBlock())
        entries.push_back(func);
    for (func::FuncOp entry : entries) {
      KernelOutliner outliner(module, entry);
      for (Kernel &kernel : gatherKernels(entry.front()))
        if (kernel.hasLoop)
          outliner.outline(kernel);
    }
  }
};

} // namespace
