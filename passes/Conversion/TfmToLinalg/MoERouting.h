//===- MoERouting.h - What both MoE lowerings compute alike -----*- C++ -*-===//
//
// tfm.moe_route and tfm.moe_experts have two lowerings (MoE.cpp: loops over
// tokens; MoEGathers.cpp: structured ops that gather the chosen experts'
// rows). Both choose the same experts, weigh them with the same sums in the
// same order and clamp indices the same way: those pieces are here.
//
// The k-th choice is the largest logit below the previous choice in the
// order (logit descending, index ascending), so the choices need no set of
// taken experts and ties go to the lower index: (top_k + 1) x experts
// comparisons per token, the first pass finding the largest logit.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CONVERSION_TFMTOLINALG_MOEROUTING_H
#define TFMC_PASSES_CONVERSION_TFMTOLINALG_MOEROUTING_H

#include "dialect/TfmOps.h"

namespace mlir::tfm::moe {

/// A token's router logit of an expert (index) as an f32, built at the
/// builder's insertion point.
using LogitOf = function_ref<Value(OpBuilder &, Location, Value)>;

/// A token's router logits as a LogitOf: `logits[token, expert]` of the
/// [tokens, experts] router product.
struct TokenLogits {
  Value logits;
  Value token;
  Value operator()(OpBuilder &b, Location loc, Value expert) const;
};

/// One expert chosen for a token.
struct Choice {
  Value logit;  ///< f32
  Value expert; ///< index
};

/// `acc + a * b` as a product's reduction body, a factor (the weight)
/// widened to f32 when it is f16 or bf16. Reassociation lets LLVM vectorise the
/// reduction (the order of a dot product's terms is not part of the op's
/// meaning).
void multiplyAdd(OpBuilder &b, Location loc, ValueRange args);

/// logits[t, e] = sum_d input[t, d] * router[e, d], a [tokens, experts]
/// tensor.
Value routerLogits(OpBuilder &b, Location loc, MoERouteOp op);

/// Folds `body(i, value)` over i in [0, count).
Value foldRange(OpBuilder &b, Location loc, int64_t count, Value initial,
                function_ref<Value(OpBuilder &, Location, Value, Value)> body);

/// A token's largest router logit: the softmax's stabiliser.
Value largestLogit(OpBuilder &b, Location loc, int64_t experts,
                   LogitOf logitOf);

/// Folds `body(choice, slot, numerator, values)` over a token's `topK`
/// choices in order, where `numerator` is exp(choice.logit - maximum): the
/// values after the fold.
SmallVector<Value>
foldChoices(OpBuilder &b, Location loc, int64_t experts, int64_t topK,
            LogitOf logitOf, Value maximum, ValueRange initial,
            function_ref<SmallVector<Value>(OpBuilder &, Location, Choice,
                                            Value, Value, ValueRange)>
                body);

/// The denominator of a token's routing weights, given its choices'
/// numerators summed in the order of the choices: that sum for
/// top_k_softmax, the sum over every expert for softmax_top_k.
Value routingDenominator(OpBuilder &b, Location loc, Routing routing,
                         int64_t experts, LogitOf logitOf, Value maximum,
                         Value chosenSum);

/// An i32 expert index as an index clamped into [0, experts): the stacked
/// matrices are never read outside their rows.
Value clampedExpert(OpBuilder &b, Location loc, Value chosen, int64_t experts);

/// silu(gate) * up, the SwiGLU of one hidden unit.
Value swiglu(OpBuilder &b, Location loc, Value gate, Value up);

} // namespace mlir::tfm::moe

#endif // TFMC_PASSES_CONVERSION_TFMTOLINALG_MOEROUTING_H
