//===- OutlineKernels.cpp - tfm ops as calls of Halide kernels ------------===//
//
// Each op of a chosen kind becomes a tfm_halide.call of a kernel described
// for tfmc-halide-gen. The call's operands are the op's, reshaped to the
// kernel's ABI (docs/halide.md): RoPE and attention see their activations
// as [rows, heads, head_dim], attention sees the whole KV cache of its
// layer (the kernel reads the positions below pos + rows itself).
//
//===----------------------------------------------------------------------===//
#include "dialect/RelativeBuckets.h"
#include "passes/Codegen/Halide/HalideTarget.h"
#include "passes/Codegen/Halide/KernelKinds.h"
#include "passes/Codegen/Halide/Passes.h"

#include "mlir/IR/SymbolTable.h"

#include <map>
#include <set>

namespace mlir::tfm {
#define GEN_PASS_DEF_TFMHALIDEOUTLINEKERNELS
#include "passes/Codegen/Halide/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;
namespace hl = tfmc::halide;

namespace {

/// One op as a kernel: its parameters, the call's inputs in ABI order and
/// the types of its outputs, in the kernel's shapes.
struct Extraction {
  decltype(hl::KernelDescription::params) params;
  SmallVector<Value> inputs;
  SmallVector<RankedTensorType> outputs;
};

/// What stops one op from becoming a kernel, reported against it.
struct Unsupported {
  std::string reason;
};

using ExtractResult = std::variant<Extraction, Unsupported>;

/// The weight element type of a matrix operand (tfm's are f32, f16 or
/// bf16).
hl::WeightType weightType(Value value) {
  Type element = cast<RankedTensorType>(value.getType()).getElementType();
  if (element.isF16())
    return hl::WeightType::F16;
  if (element.isBF16())
    return hl::WeightType::BF16;
  return hl::WeightType::F32;
}

bool isStatic(Value value) {
  return cast<ShapedType>(value.getType()).hasStaticShape();
}

RankedTensorType tensorType(ArrayRef<int64_t> shape, Type element) {
  return RankedTensorType::get(shape, element);
}

/// `[rows, heads * headDim]` as `[rows, heads, headDim]`.
Value splitHeads(OpBuilder &b, Location loc, Value value, int64_t heads) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(0), headDim = type.getDimSize(1) / heads;
  auto split = tensorType({rows, heads, headDim}, type.getElementType());
  return tensor::ExpandShapeOp::create(
      b, loc, split, value, ArrayRef<ReassociationIndices>{{0}, {1, 2}});
}

hl::NormDescription rmsNorm(RMSNormOp op) {
  hl::NormDescription norm;
  norm.type = hl::NormType::RmsNorm;
  norm.eps = op.getEpsAttr().getValueAsDouble();
  norm.unitOffset = op.getUnitOffset();
  return norm;
}

hl::NormDescription layerNorm(LayerNormOp op) {
  hl::NormDescription norm;
  norm.type = hl::NormType::LayerNorm;
  norm.eps = op.getEpsAttr().getValueAsDouble();
  norm.bias = bool(op.getBias());
  return norm;
}

ExtractResult extractNorm(OpBuilder &b, Operation *op) {
  Extraction out;
  hl::NormParams params;
  Value input = op->getOperand(0);
  if (!isStatic(input))
    return Unsupported{"its rows are not static"};
  auto type = cast<RankedTensorType>(input.getType());
  params.rows = type.getDimSize(0);
  params.features = type.getDimSize(1);
  out.inputs.append(op->operand_begin(), op->operand_end());
  int64_t group = params.features;
  if (auto rms = dyn_cast<RMSNormOp>(op)) {
    params.norm = rmsNorm(rms);
    group = rms.getNormalizedFeatures();
  } else {
    auto layer = cast<LayerNormOp>(op);
    params.norm = layerNorm(layer);
    group = layer.getNormalizedFeatures();
  }
  // A norm per head: each head's features are a row of the kernel,
  // [rows, heads * G] viewed as [rows * heads, G]; weights per feature
  // (each head its own) are the kernel's weight groups, [heads, G].
  if (group != params.features) {
    Location loc = op->getLoc();
    int64_t heads = params.features / group;
    out.inputs[0] = tensor::CollapseShapeOp::create(
        b, loc, splitHeads(b, loc, input, heads),
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    if (cast<RankedTensorType>(op->getOperand(1).getType()).getDimSize(0) !=
        group) {
      params.weightGroups = heads;
      for (size_t i = 1; i < out.inputs.size(); ++i)
        out.inputs[i] = tensor::ExpandShapeOp::create(
            b, loc, tensorType({heads, group}, b.getF32Type()), out.inputs[i],
            ArrayRef<ReassociationIndices>{{0, 1}});
    }
    params.rows *= heads;
    params.features = group;
    type = tensorType({params.rows, group}, type.getElementType());
  }
  out.outputs.push_back(type);
  out.params = params;
  return out;
}

/// The shape of a product of `[rows, in]` activations with a `[out, in]`
/// matrix (a projection's or the LM head's) and the matrix's element type;
/// false when the rows are not static.
bool productShape(Value input, Value result, Value weight, int64_t &rows,
                  int64_t &in, int64_t &out, hl::WeightType &type) {
  if (!isStatic(input))
    return false;
  auto inputType = cast<RankedTensorType>(input.getType());
  rows = inputType.getDimSize(0);
  in = inputType.getDimSize(1);
  out = cast<RankedTensorType>(result.getType()).getDimSize(1);
  type = weightType(weight);
  return true;
}

ExtractResult extractProjection(LinearOp op) {
  hl::ProjectionParams params;
  if (!productShape(op.getInput(), op.getResult(), op.getWeight(), params.rows,
                    params.inFeatures, params.outFeatures, params.weight))
    return Unsupported{"its rows are not static"};
  params.bias = bool(op.getBias());
  Extraction out;
  out.inputs = {op.getInput(), op.getWeight()};
  if (op.getBias())
    out.inputs.push_back(op.getBias());
  out.outputs.push_back(cast<RankedTensorType>(op.getType()));
  out.params = params;
  return out;
}

ExtractResult extractLmHead(LMHeadOp op) {
  // A biased head (Phi-2, GPT-J) is a projection kernel with a bias.
  if (op.getBias()) {
    hl::ProjectionParams params;
    if (!productShape(op.getInput(), op.getResult(), op.getWeight(),
                      params.rows, params.inFeatures, params.outFeatures,
                      params.weight))
      return Unsupported{"its rows are not static"};
    params.bias = true;
    Extraction out;
    out.inputs = {op.getInput(), op.getWeight(), op.getBias()};
    out.outputs.push_back(cast<RankedTensorType>(op.getType()));
    out.params = params;
    return out;
  }
  hl::LmHeadParams params;
  if (!productShape(op.getInput(), op.getResult(), op.getWeight(), params.rows,
                    params.inFeatures, params.vocab, params.weight))
    return Unsupported{"its rows are not static"};
  Extraction out;
  out.inputs = {op.getInput(), op.getWeight()};
  out.outputs.push_back(cast<RankedTensorType>(op.getType()));
  out.params = params;
  return out;
}

/// The router's product and the choice in one kernel.
ExtractResult extractMoeRouting(MoERouteOp op) {
  if (!isStatic(op.getInput()))
    return Unsupported{"its rows are not static"};
  hl::MoeRoutingParams params;
  params.rows = cast<RankedTensorType>(op.getInput().getType()).getDimSize(0);
  params.inFeatures =
      cast<RankedTensorType>(op.getInput().getType()).getDimSize(1);
  params.experts = op.getNumExperts();
  params.topK = op.getTopK();
  params.routing = op.getRouting() == Routing::softmax_top_k
                       ? hl::Routing::SoftmaxTopK
                       : hl::Routing::TopKSoftmax;
  params.router = weightType(op.getRouter());
  Extraction out;
  out.inputs = {op.getInput(), op.getRouter()};
  out.outputs = {cast<RankedTensorType>(op.getWeights().getType()),
                 cast<RankedTensorType>(op.getExperts().getType())};
  out.params = params;
  return out;
}

/// The chosen experts' products, their indices read in the kernel.
ExtractResult extractMoeExperts(MoEExpertsOp op) {
  if (!isStatic(op.getInput()) || !isStatic(op.getExperts()))
    return Unsupported{"its rows are not static"};
  hl::MoeExpertsParams params;
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  params.rows = inputType.getDimSize(0);
  params.inFeatures = inputType.getDimSize(1);
  params.hidden = op.getExpertHidden();
  params.experts = op.getNumExperts();
  params.topK = op.getTopK();
  params.gate = weightType(op.getGate());
  params.up = weightType(op.getUp());
  params.down = weightType(op.getDown());
  Extraction out;
  out.inputs = {op.getInput(), op.getWeights(), op.getExperts(),
                op.getGate(),  op.getUp(),      op.getDown()};
  out.outputs.push_back(cast<RankedTensorType>(op.getType()));
  out.params = params;
  return out;
}

/// Whether `size` is `offset + rows`.
bool isOffsetPlusRows(Value size, Value offset, int64_t rows) {
  auto add = size.getDefiningOp<arith::AddIOp>();
  if (!add)
    return false;
  for (auto [lhs, rhs] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())})
    if (lhs == offset && getConstantIntValue(rhs) == rows)
      return true;
  return false;
}

/// Whether `size` is `min(offset + rows, ring)`: a rolling cache's slots
/// written so far.
bool isRingBound(Value size, Value offset, int64_t rows, int64_t ring) {
  auto min = size.getDefiningOp<arith::MinUIOp>();
  if (!min)
    return false;
  for (auto [lhs, rhs] : {std::pair(min.getLhs(), min.getRhs()),
                          std::pair(min.getRhs(), min.getLhs())})
    if (isOffsetPlusRows(lhs, offset, rows) && getConstantIntValue(rhs) == ring)
      return true;
  return false;
}

/// The keys (or values) an attention reads, as its kernel takes them.
struct KeyView {
  /// `[kv_heads, positions, head_dim]`.
  Value keys;
  /// The number of keys, when they end before offset + rows.
  Value count;
};

/// The whole tensor whose first keys (or values) `slice` reads: the slice
/// `[..., kv_heads, count, head_dim]` grown to every position. The kernel
/// reads below `count` alone, which is its own bound (offset + rows: a KV
/// cache up to the last query) or its key count (an encoder's padded
/// input). Null keys when `slice` is not such a slice.
KeyView wholeKeysOf(OpBuilder &b, Location loc, Value slice, Value offset,
                    int64_t rows, std::optional<int64_t> ring) {
  KeyView view;
  auto extract = slice.getDefiningOp<tensor::ExtractSliceOp>();
  if (!extract)
    return view;
  auto sourceType = extract.getSourceType();
  SmallVector<OpFoldResult> sizes = extract.getMixedSizes();
  SmallVector<OpFoldResult> offsets = extract.getMixedOffsets();
  bool grown = false;
  for (auto [dim, size] : llvm::enumerate(sizes)) {
    if (!isa<Value>(size))
      continue;
    // The one dynamic size is the positions': from 0 to the cache's end.
    std::optional<int64_t> start = getConstantIntValue(offsets[dim]);
    if (grown || !start || *start != 0 || sourceType.isDynamicDim(dim))
      return view;
    Value count = cast<Value>(size);
    if (ring ? !isRingBound(count, offset, rows, *ring)
             : !isOffsetPlusRows(count, offset, rows))
      view.count = count;
    size = b.getIndexAttr(sourceType.getDimSize(dim));
    grown = true;
  }
  if (!grown || !llvm::all_of(extract.getMixedStrides(), isOneInteger))
    return view;
  // The slice's own (rank-reduced) shape, every position this time.
  auto sliceType = cast<RankedTensorType>(slice.getType());
  SmallVector<int64_t> shape(sliceType.getShape());
  for (auto [dim, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size))
      size = sourceType.getDimSize(sourceType.getRank() - sliceType.getRank() +
                                   dim);
  auto resultType = RankedTensorType::get(shape, sliceType.getElementType());
  view.keys =
      tensor::ExtractSliceOp::create(b, loc, resultType, extract.getSource(),
                                     offsets, sizes, extract.getMixedStrides());
  return view;
}

ExtractResult extractAttention(OpBuilder &b, AttentionOp op) {
  if (!op.isHeadMajor())
    return Unsupported{"its keys are token-major (an encoder's or a "
                       "cross-attention's), not a head-major KV cache"};
  if (!isStatic(op.getQuery()))
    return Unsupported{"its rows are not static"};
  int64_t rows = cast<RankedTensorType>(op.getQuery().getType()).getDimSize(0);
  std::optional<int64_t> ring;
  if (op.getRing())
    ring = static_cast<int64_t>(*op.getRing());
  KeyView keys =
      wholeKeysOf(b, op.getLoc(), op.getKey(), op.getOffset(), rows, ring);
  KeyView values =
      wholeKeysOf(b, op.getLoc(), op.getValue(), op.getOffset(), rows, ring);
  if (!keys.keys || !values.keys || keys.count != values.count ||
      (ring &&
       (keys.count ||
        cast<RankedTensorType>(keys.keys.getType()).getDimSize(1) != *ring))) {
    for (Value grown : {keys.keys, values.keys})
      if (grown)
        grown.getDefiningOp()->erase();
    return Unsupported{"its keys and values are not the first keys of a "
                       "head-major tensor, as many of each"};
  }
  auto cacheType = cast<RankedTensorType>(keys.keys.getType());
  hl::AttentionParams params;
  auto query = cast<RankedTensorType>(op.getQuery().getType());
  params.rows = query.getDimSize(0);
  params.heads = op.getNumHeads();
  params.kvHeads = op.getNumKvHeads();
  params.headDim = op.getHeadDim();
  params.positions = cacheType.getDimSize(1);
  switch (op.getMask()) {
  case MaskKind::causal:
    params.mask = hl::MaskKind::Causal;
    break;
  case MaskKind::bidirectional:
    params.mask = hl::MaskKind::Bidirectional;
    break;
  case MaskKind::sliding_window:
    params.mask = hl::MaskKind::SlidingWindow;
    params.window = *op.getWindow();
    break;
  }
  if (op.getScale())
    params.scale = op.getScaleAttr().getValueAsDouble();
  params.softcap = op.getScoreCap();
  params.alibi = bool(op.getSlopes());
  if (Value table = op.getRelativeBias()) {
    RelativeBuckets buckets =
        relativeBuckets(cast<RankedTensorType>(table.getType()).getDimSize(0),
                        static_cast<int64_t>(*op.getMaxDistance()),
                        op.getMask() == MaskKind::bidirectional);
    params.relativeBias = hl::RelativeBucketsDescription{
        buckets.bidirectional, buckets.side, buckets.exact,
        std::vector<int64_t>(buckets.steps.begin(), buckets.steps.end())};
  }
  params.keyCount = bool(keys.count);
  params.ring = ring.has_value();
  params.cache = cacheType.getElementType().isF16() ? hl::CacheType::F16
                                                    : hl::CacheType::F32;
  Extraction out;
  out.inputs = {splitHeads(b, op.getLoc(), op.getQuery(), params.heads),
                keys.keys, values.keys};
  if (op.getSlopes())
    out.inputs.push_back(op.getSlopes());
  if (op.getRelativeBias())
    out.inputs.push_back(op.getRelativeBias());
  out.inputs.push_back(op.getOffset());
  if (keys.count)
    out.inputs.push_back(keys.count);
  out.outputs.push_back(tensorType({params.rows, params.heads, params.headDim},
                                   query.getElementType()));
  out.params = params;
  return out;
}

ExtractResult extractPositional(OpBuilder &b, Operation *op) {
  Extraction out;
  hl::PositionalParams params;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (!result.hasStaticShape())
    return Unsupported{"its rows are not static"};
  params.rows = result.getDimSize(0);
  if (auto rope = dyn_cast<RopeOp>(op)) {
    params.op = hl::PositionalOp::Rope;
    params.headDim = rope.getHeadDim();
    if (std::optional<uint64_t> rotaryDim = rope.getRotaryDim())
      params.rotaryDim = static_cast<int64_t>(*rotaryDim);
    params.heads = result.getDimSize(1) / params.headDim;
    params.theta = rope.getThetaAttr().getValueAsDouble();
    if (std::optional<ArrayRef<float>> frequencies = rope.getFrequencies())
      params.frequencies.assign(frequencies->begin(), frequencies->end());
    if (std::optional<APFloat> factor = rope.getAttentionFactor())
      params.attentionFactor = factor->convertToDouble();
    params.layout = rope.getLayout() == RopeLayout::interleaved
                        ? hl::RopeLayout::Interleaved
                        : hl::RopeLayout::HalfSplit;
    out.inputs = {splitHeads(b, op->getLoc(), rope.getInput(), params.heads),
                  rope.getOffset()};
    out.outputs.push_back(tensorType(
        {params.rows, params.heads, params.headDim}, result.getElementType()));
  } else if (auto embedding = dyn_cast<EmbeddingOp>(op)) {
    params.op = hl::PositionalOp::TokenEmbedding;
    auto table = cast<RankedTensorType>(embedding.getTable().getType());
    params.vocab = table.getDimSize(0);
    params.features = table.getDimSize(1);
    params.table = weightType(embedding.getTable());
    if (embedding.getScale())
      params.scale = embedding.getScaleAttr().getValueAsDouble();
    out.inputs = {embedding.getTokens(), embedding.getTable()};
    out.outputs.push_back(result);
  } else if (auto learned = dyn_cast<PositionEmbeddingOp>(op)) {
    params.op = hl::PositionalOp::LearnedPosition;
    auto table = cast<RankedTensorType>(learned.getTable().getType());
    params.positions = table.getDimSize(0);
    params.features = table.getDimSize(1);
    out.inputs = {learned.getInput(), learned.getTable(), learned.getOffset()};
    out.outputs.push_back(result);
  } else {
    auto sinusoidal = cast<SinusoidalPositionOp>(op);
    params.op = hl::PositionalOp::Sinusoidal;
    params.features = result.getDimSize(1);
    params.base = sinusoidal.getBaseAttr().getValueAsDouble();
    out.inputs = {sinusoidal.getInput(), sinusoidal.getOffset()};
    out.outputs.push_back(result);
  }
  out.params = params;
  return out;
}

/// The gated activation `mul` computes, when one operand is an activation
/// only it reads: SwiGLU for silu, GeGLU for tanh GELU. Sets `gate` and
/// `up`.
std::optional<hl::ElementwiseOp>
gatedActivation(MulOp mul, Value &gate, Value &up, Operation *&activation) {
  for (auto [first, second] : {std::pair(mul.getLhs(), mul.getRhs()),
                               std::pair(mul.getRhs(), mul.getLhs())}) {
    Operation *producer = first.getDefiningOp();
    if (!producer || !producer->hasOneUse())
      continue;
    if (auto silu = dyn_cast<SiluOp>(producer)) {
      gate = silu.getInput();
      up = second;
      activation = producer;
      return hl::ElementwiseOp::SwiGlu;
    }
    if (auto gelu = dyn_cast<GeluOp>(producer);
        gelu && gelu.getApproximation() == GeluApproximation::tanh) {
      gate = gelu.getInput();
      up = second;
      activation = producer;
      return hl::ElementwiseOp::GeGlu;
    }
  }
  return std::nullopt;
}

/// An elementwise op; `fusedProducer` is set to the activation a gated
/// product computes in its kernel.
ExtractResult extractElementwise(Operation *op, Operation *&fusedProducer) {
  Extraction out;
  hl::ElementwiseParams params;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (!result.hasStaticShape())
    return Unsupported{"its rows are not static"};
  params.rows = result.getDimSize(0);
  params.features = result.getDimSize(1);
  out.inputs.append(op->operand_begin(), op->operand_end());
  if (isa<AddOp>(op)) {
    params.op = hl::ElementwiseOp::Add;
  } else if (auto mul = dyn_cast<MulOp>(op)) {
    Value gate, up;
    if (std::optional<hl::ElementwiseOp> gated =
            gatedActivation(mul, gate, up, fusedProducer)) {
      params.op = *gated;
      out.inputs = {gate, up};
    } else {
      params.op = hl::ElementwiseOp::Mul;
    }
  } else if (isa<SiluOp>(op)) {
    params.op = hl::ElementwiseOp::Silu;
  } else if (isa<ReluOp>(op)) {
    params.op = hl::ElementwiseOp::Relu;
  } else if (auto cap = dyn_cast<SoftCapOp>(op)) {
    params.op = hl::ElementwiseOp::SoftCap;
    params.cap = cap.getCap().convertToDouble();
  } else {
    params.op = cast<GeluOp>(op).getApproximation() == GeluApproximation::tanh
                    ? hl::ElementwiseOp::GeluTanh
                    : hl::ElementwiseOp::GeluErf;
  }
  out.outputs.push_back(result);
  out.params = params;
  return out;
}

/// `json` on one line: each line's indentation dropped (no string in a
/// description holds a line break).
std::string oneLine(const std::string &json) {
  std::string out;
  bool lineStart = false;
  for (char c : json) {
    if (c == '\n') {
      lineStart = true;
      continue;
    }
    if (lineStart && c == ' ')
      continue;
    lineStart = false;
    out += c;
  }
  return out;
}

/// The kind an op belongs to, if any.
std::optional<hl::KernelKind> kindOf(Operation *op) {
  if (isa<RMSNormOp, LayerNormOp>(op))
    return hl::KernelKind::Norm;
  if (isa<LinearOp>(op))
    return hl::KernelKind::Projection;
  if (isa<LMHeadOp>(op))
    return hl::KernelKind::LmHead;
  if (isa<AttentionOp>(op))
    return hl::KernelKind::Attention;
  if (isa<RopeOp, EmbeddingOp, PositionEmbeddingOp, SinusoidalPositionOp>(op))
    return hl::KernelKind::Positional;
  if (isa<AddOp, MulOp, SiluOp, ReluOp, GeluOp, SoftCapOp>(op))
    return hl::KernelKind::Elementwise;
  if (isa<MoERouteOp>(op))
    return hl::KernelKind::MoeRouting;
  if (isa<MoEExpertsOp>(op))
    return hl::KernelKind::MoeExperts;
  return std::nullopt;
}

class OutlineKernels
    : public mlir::tfm::impl::TfmHalideOutlineKernelsBase<OutlineKernels> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::set<hl::KernelKind> chosen;
    for (const std::string &name : kinds) {
      std::optional<hl::KernelKind> kind = halide::parseKernelKind(name);
      if (!kind) {
        module.emitError() << "unknown kernel kind '" << name
                           << "' (kinds: " << halide::kernelKindNames() << ")";
        return signalPassFailure();
      }
      chosen.insert(*kind);
    }
    if (chosen.empty())
      return;
    std::optional<hl::Scheduler> scheduler =
        hl::parseSchedulerName(schedule.getValue());
    if (!scheduler) {
      module.emitError() << "unknown Halide schedule '" << schedule
                         << "' (hand, adams2019, mullapudi2016, li2018)";
      return signalPassFailure();
    }
    std::string error;
    std::optional<hl::TargetDescription> target =
        halide::describeHalideTarget(getTarget(module), error);
    if (!target) {
      module.emitError() << error;
      return signalPassFailure();
    }

    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      std::optional<hl::KernelKind> kind = kindOf(op);
      if (kind && chosen.count(*kind))
        ops.push_back(op);
    });
    // The activations of gated products run in the product's kernel.
    std::set<Operation *> fusedAway;
    if (chosen.count(hl::KernelKind::Elementwise))
      for (Operation *op : ops)
        if (auto mul = dyn_cast<MulOp>(op)) {
          Value gate, up;
          Operation *activation = nullptr;
          if (gatedActivation(mul, gate, up, activation))
            fusedAway.insert(activation);
        }
    for (Operation *op : ops) {
      if (fusedAway.count(op))
        continue;
      if (failed(outline(op, *target, *scheduler)))
        return signalPassFailure();
    }
    // A matrix every reader of which now reads it as stored is laid out
    // once, as stored.
    for (GlobalWeightOp global : replacedGlobals) {
      SmallVector<WeightOp> reads;
      module.walk([&](WeightOp read) {
        if (read.getName() == global.getSymName())
          reads.push_back(read);
      });
      if (llvm::all_of(reads,
                       [](WeightOp read) { return read->use_empty(); })) {
        for (WeightOp read : reads)
          read.erase();
        global.erase();
      }
    }
  }

private:
  LogicalResult outline(Operation *op, const hl::TargetDescription &target,
                        hl::Scheduler scheduler) {
    hl::KernelKind kind = *kindOf(op);
    OpBuilder b(op);
    Location loc = op->getLoc();
    Operation *fusedProducer = nullptr;
    ExtractResult extracted = [&]() -> ExtractResult {
      switch (kind) {
      case hl::KernelKind::Norm:
        return extractNorm(b, op);
      case hl::KernelKind::Projection:
        return extractProjection(cast<LinearOp>(op));
      case hl::KernelKind::LmHead:
        return extractLmHead(cast<LMHeadOp>(op));
      case hl::KernelKind::Attention:
        return extractAttention(b, cast<AttentionOp>(op));
      case hl::KernelKind::Positional:
        return extractPositional(b, op);
      case hl::KernelKind::Elementwise:
        return extractElementwise(op, fusedProducer);
      case hl::KernelKind::MoeRouting:
        return extractMoeRouting(cast<MoERouteOp>(op));
      case hl::KernelKind::MoeExperts:
        return extractMoeExperts(cast<MoEExpertsOp>(op));
      }
      llvm_unreachable("every kind is handled");
    }();
    if (auto *unsupported = std::get_if<Unsupported>(&extracted))
      return op->emitOpError()
             << "cannot be a Halide '" << hl::kernelKindName(kind)
             << "' kernel: " << unsupported->reason
             << " (compile this kind with LLVM: "
             << "--kernel-backend=" << hl::kernelKindName(kind) << ":llvm)";
    Extraction &extraction = std::get<Extraction>(extracted);
    // Matrices and tables read as the model file stores them.
    if (auto *projection =
            std::get_if<hl::ProjectionParams>(&extraction.params))
      extraction.inputs[1] =
          keepStored(b, extraction.inputs[1], projection->weight);
    else if (auto *head = std::get_if<hl::LmHeadParams>(&extraction.params))
      extraction.inputs[1] = keepStored(b, extraction.inputs[1], head->weight);
    else if (auto *routing =
                 std::get_if<hl::MoeRoutingParams>(&extraction.params))
      extraction.inputs[1] =
          keepStored(b, extraction.inputs[1], routing->router);
    else if (auto *experts =
                 std::get_if<hl::MoeExpertsParams>(&extraction.params)) {
      extraction.inputs[3] = keepStored(b, extraction.inputs[3], experts->gate);
      extraction.inputs[4] = keepStored(b, extraction.inputs[4], experts->up);
      extraction.inputs[5] = keepStored(b, extraction.inputs[5], experts->down);
    } else if (auto *positional =
                   std::get_if<hl::PositionalParams>(&extraction.params);
               positional && positional->op == hl::PositionalOp::TokenEmbedding)
      extraction.inputs[1] =
          keepStored(b, extraction.inputs[1], positional->table);

    hl::KernelDescription description;
    description.target = target;
    description.scheduler = scheduler;
    description.params = extraction.params;
    FlatSymbolRefAttr kernel = declareKernel(op, description);
    if (!kernel)
      return failure();

    SmallVector<Value> inits;
    SmallVector<Type> resultTypes;
    for (RankedTensorType type : extraction.outputs) {
      inits.push_back(tensor::EmptyOp::create(b, loc, type.getShape(),
                                              type.getElementType()));
      resultTypes.push_back(type);
    }
    auto call = halide::CallOp::create(b, loc, resultTypes, kernel,
                                       extraction.inputs, inits);
    SmallVector<Value> results;
    for (auto [result, original] :
         llvm::zip(call.getResults(), op->getResults())) {
      Value value = result;
      auto originalType = cast<RankedTensorType>(original.getType());
      if (value.getType() != originalType &&
          cast<RankedTensorType>(value.getType()).getRank() == 2) {
        // [rows * heads, head_dim] (a norm per head) to [rows, heads,
        // head_dim] first.
        int64_t headDim = cast<RankedTensorType>(value.getType()).getDimSize(1);
        auto split = tensorType({originalType.getDimSize(0),
                                 originalType.getDimSize(1) / headDim, headDim},
                                originalType.getElementType());
        value = tensor::ExpandShapeOp::create(
            b, loc, split, value, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
      }
      if (value.getType() != originalType) {
        // [rows, heads, head_dim] back to [rows, heads * head_dim].
        value = tensor::CollapseShapeOp::create(
            b, loc, originalType, value,
            ArrayRef<ReassociationIndices>{{0}, {1, 2}});
      }
      results.push_back(value);
    }
    op->replaceAllUsesWith(results);
    op->erase();
    if (fusedProducer)
      fusedProducer->erase();
    return success();
  }

  /// The matrix `value` as the model file stores it, when `value` reads an
  /// f32 declaration of tensors stored in one other type: f16 and bf16 as
  /// a declaration of that type, GGUF's block types as their rows
  /// (#tfm_halide.block_rows), which the kernel dequantizes; `type` says
  /// which. Else `value` itself. The declarations nothing reads any more
  /// go at the end of the pass.
  Value keepStored(OpBuilder &b, Value value, hl::WeightType &type) {
    auto read = value.getDefiningOp<WeightOp>();
    if (!read || type != hl::WeightType::F32)
      return value;
    auto global = SymbolTable::lookupNearestSymbolFrom<GlobalWeightOp>(
        read, read.getNameAttr());
    SmallVector<tfmc::weights::ElementType> stored = global.getStoredTypes();
    if (stored.empty() || !llvm::all_equal(stored))
      return value;
    auto declared = cast<RankedTensorType>(global.getType());
    if (declared.getRank() != 2)
      return value;
    // f16 and bf16 as such, GGUF's block types as their rows.
    std::optional<hl::WeightType> kept = hl::parseWeightTypeName(
        tfmc::weights::elementTypeName(stored.front()).str());
    if (!kept || *kept == hl::WeightType::F32)
      return value;
    MLIRContext *context = b.getContext();
    SmallVector<int64_t> shape(declared.getShape());
    Type element =
        *kept == hl::WeightType::F16    ? Type(Float16Type::get(context))
        : *kept == hl::WeightType::BF16 ? Type(BFloat16Type::get(context))
                                        : Type();
    Attribute layout;
    if (hl::isBlockQuantized(*kept)) {
      int64_t block = hl::weightBlockElements(*kept);
      if (shape[1] % block != 0)
        return value;
      shape[1] = shape[1] / block * hl::weightBlockBytes(*kept);
      element = IntegerType::get(context, 8);
      layout = halide::BlockRowsAttr::get(context, stored.front());
    }
    auto keptType = RankedTensorType::get(shape, element);
    std::string name =
        (global.getSymName() + "." + hl::weightTypeName(*kept)).str();
    ModuleOp module = getOperation();
    if (!SymbolTable::lookupSymbolIn(module, name)) {
      OpBuilder declare(global->getContext());
      declare.setInsertionPointAfter(global);
      ArrayAttr stacked = global.getStackedAttr();
      if (!stacked)
        stacked = declare.getStrArrayAttr({global.getSymName()});
      GlobalWeightOp::create(
          declare, global.getLoc(), declare.getStringAttr(name),
          TypeAttr::get(keptType), stacked, StoredAttr(),
          llvm::cast_if_present<WeightLayoutAttrInterface>(layout));
      replacedGlobals.push_back(global);
    }
    type = *kept;
    return WeightOp::create(b, read.getLoc(), keptType,
                            FlatSymbolRefAttr::get(context, name));
  }

  /// The kernel `description` names, declared once per distinct
  /// description (the name aside).
  FlatSymbolRefAttr declareKernel(Operation *op,
                                  hl::KernelDescription &description) {
    description.name.clear();
    std::string key = hl::writeKernelDescriptions({description});
    auto found = kernelsByDescription.find(key);
    if (found != kernelsByDescription.end())
      return FlatSymbolRefAttr::get(op->getContext(), found->second);
    ModuleOp module = getOperation();
    std::string base = hl::kernelKindName(description.kind());
    std::replace(base.begin(), base.end(), '-', '_');
    std::string name;
    do
      name = base + "_" + std::to_string(nextIndex[base]++);
    while (SymbolTable::lookupSymbolIn(module, name));
    description.name = name;
    std::string error;
    if (!hl::verifyKernelDescription(description, error)) {
      op->emitOpError() << "cannot be a Halide '"
                        << hl::kernelKindName(description.kind())
                        << "' kernel: " << error;
      return nullptr;
    }
    // Declarations come before the functions (after the weights), in the
    // order the ops were met.
    OpBuilder b(module.getContext());
    auto functions = module.getOps<FunctionOpInterface>();
    if (lastKernel)
      b.setInsertionPointAfter(lastKernel);
    else if (!functions.empty())
      b.setInsertionPoint(*functions.begin());
    else
      b.setInsertionPointToEnd(module.getBody());
    lastKernel = halide::KernelOp::create(
        b, op->getLoc(), name, hl::kernelKindName(description.kind()),
        oneLine(hl::writeKernelDescriptions({description})));
    kernelsByDescription[key] = name;
    return FlatSymbolRefAttr::get(op->getContext(), name);
  }

  std::map<std::string, std::string> kernelsByDescription;
  std::map<std::string, int> nextIndex;
  Operation *lastKernel = nullptr;
  /// Declarations of f32 matrices now also kept as stored.
  SmallVector<GlobalWeightOp> replacedGlobals;
};

} // namespace
