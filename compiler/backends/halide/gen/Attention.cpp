//===- Attention.cpp - Flash-style attention over a head-major KV cache ---===//
//
// `rows` queries at positions pos .. pos + rows - 1 attend over the keys
// and values a head-major cache `[kv_heads, positions, head_dim]` holds at
// positions < pos + rows (the ones written so far: nothing past them is
// read, every index is clamped below that limit). Query head h reads
// key/value head h / (heads / kv_heads) (MHA, GQA, MQA).
//
// Without materialising the score matrix, and without an online softmax
// (which Halide 14 cannot rfactor: it cannot prove the rescaling
// associative): the keys split into blocks of `block`, each (block, head,
// row) gets partials computed from its block's scores alone,
//   m_b = max score, l_b = sum exp(s - m_b), o_b = sum exp(s - m_b) v,
// and a combine step weighs them by exp(m_b - max_b m_b):
//   out = sum_b exp(m_b - M) o_b / sum_b exp(m_b - M) l_b.
// Only the blocks the rows can see take part: the block range depends on
// pos alone.
//
// C ABI: query [rows, heads, head_dim], key_cache and value_cache
// [kv_heads, positions, head_dim] (f32, or f16 bits), [slopes [heads]
// (ALiBi)], [relative_bias [buckets, heads] (T5)], pos, [keys (key_count)]
// -> output [rows, heads, head_dim].
// With key_count the keys end at `keys`, wherever the queries are: an
// encoder's padded input, whose rows past `keys` attend to the real tokens
// alone, or a decoder's cross-attention over its source.
// With ring the cache is a sliding window's rolling one: slot j holds the
// latest position congruent to j modulo its slots, which the blocks run
// over; the query at p sees position p - ((p - j) mod slots) in slot j.
//
//===----------------------------------------------------------------------===//
#include "compiler/backends/halide/gen/Kernel.h"
#include "compiler/backends/halide/gen/Math.h"

#include <algorithm>
#include <cmath>

using namespace Halide;
using namespace tfmc::halide;

namespace {

class Attention : public Kernel {
public:
  Attention(const AttentionParams &p, const ScheduleTarget &target)
      : params_(p) {
    const int headDim = static_cast<int>(p.headDim);
    const int positions = static_cast<int>(p.positions);
    const int rows = static_cast<int>(p.rows);
    const int group = static_cast<int>(p.heads / p.kvHeads);
    block_ = static_cast<int>(
        std::min<int64_t>(p.block ? p.block : 64, p.positions));
    const int block = block_;
    const float scale = static_cast<float>(
        p.scale ? *p.scale : 1.0 / std::sqrt(static_cast<double>(p.headDim)));

    ImageParam query = input(Float(32), "query", {p.rows, p.heads, p.headDim});
    Type cacheType = p.cache == CacheType::F16 ? UInt(16) : Float(32);
    ImageParam keys =
        input(cacheType, "key_cache", {p.kvHeads, p.positions, p.headDim});
    ImageParam values =
        input(cacheType, "value_cache", {p.kvHeads, p.positions, p.headDim});
    ImageParam slopes;
    if (p.alibi)
      slopes = input(Float(32), "slopes", {p.heads});
    ImageParam relativeTable;
    if (p.relativeBias)
      relativeTable = input(Float(32), "relative_bias",
                            {p.relativeBias->buckets(), p.heads});
    // A ring's position has no bound of the cache's: any int32 a query's
    // position fits in.
    Param<int32_t> pos =
        scalar("pos", 0, p.ring ? (1 << 30) : positions - rows, 0);
    Param<int32_t> keyCount;
    if (p.keyCount)
      keyCount = scalar("keys", 1, positions, positions);

    auto widen = [&](Expr value) {
      return p.cache == CacheType::F16 ? halfToFloat(value, target.nativeHalf)
                                       : value;
    };
    // Positions of query row r and of key j of block b; the keys written
    // so far end at `limit`.
    Expr limit = p.keyCount ? Expr(keyCount)
                 : p.ring   ? min(pos + rows, positions)
                            : pos + rows;
    Expr queryPos = pos + r;
    // Blocks are numbered from the first one a row of this call can see
    // (a sliding window's start; else 0): every Func's block range then
    // starts at 0, which keeps bounds inference exact through the fused
    // loops of autoscheduled tilings.
    Expr lowBlock = p.mask == MaskKind::SlidingWindow && !p.ring
                        ? max(pos - static_cast<int>(p.window) + 1, 0) / block
                        : Expr(0);
    // Key j of block b lies in cache slot `slot`, which holds the key of
    // position `keyPos` (the slot itself but in a ring).
    Expr slot = (lowBlock + b) * block + j;
    Expr keyPos = p.ring ? queryPos - (queryPos - slot) % positions : slot;
    Expr readPos = clamp(slot, 0, limit - 1);
    // Head and row indices are clamped: an autoscheduler's tiles may reach
    // past the heads or rows (Li2018 shifts small loops inwards past 0),
    // and inputs must be read in bounds for those lanes too.
    Expr head = clamp(h, 0, static_cast<int>(p.heads) - 1);
    Expr row = clamp(r, 0, rows - 1);
    Expr kvHead = head / group;
    Expr last = p.mask == MaskKind::Bidirectional ? limit - 1
                : p.keyCount                      ? min(queryPos, limit - 1)
                                                  : queryPos;
    Expr first = p.mask == MaskKind::SlidingWindow
                     ? max(queryPos - static_cast<int>(p.window) + 1, 0)
                     : Expr(0);
    Expr visible = keyPos >= first && keyPos <= last;
    if (p.ring)
      visible = visible && slot < limit;

    // Scores of one block.
    RDom rd(0, headDim, "rd");
    dot_(j, b, h, r) = 0.0f;
    dot_(j, b, h, r) += query(rd, head, row) * widen(keys(rd, readPos, kvHead));
    Expr score = dot_(j, b, h, r) * scale;
    if (p.softcap)
      score = softCap(score, static_cast<float>(*p.softcap));
    if (p.alibi)
      score += slopes(head) * cast<float>(keyPos - queryPos);
    if (p.relativeBias) {
      // T5's bucket of the key's distance from the query: integer compares
      // against the distances where the buckets step.
      const RelativeBucketsDescription &buckets = *p.relativeBias;
      Expr relative = keyPos - queryPos;
      // (Halide's abs of an int is unsigned.)
      Expr distance = buckets.bidirectional
                          ? select(relative < 0, -relative, relative)
                          : max(-relative, 0);
      Expr bucket = min(distance, static_cast<int>(buckets.exact));
      if (buckets.bidirectional)
        bucket += select(relative > 0, static_cast<int>(buckets.side), 0);
      for (int64_t step : buckets.steps)
        bucket += select(distance >= static_cast<int>(step), 1, 0);
      bucket = clamp(bucket, 0, static_cast<int>(buckets.buckets()) - 1);
      score += relativeTable(head, bucket);
    }
    score_(j, b, h, r) = select(visible, score, kMaskedScore);

    // The block's partials.
    RDom rj(0, block, "rj");
    blockMax_(b, h, r) = kMaskedScore;
    blockMax_(b, h, r) = max(blockMax_(b, h, r), score_(rj, b, h, r));
    weight_(j, b, h, r) =
        select(visible, exp(score_(j, b, h, r) - blockMax_(b, h, r)), 0.0f);
    blockSum_(b, h, r) = 0.0f;
    blockSum_(b, h, r) += weight_(rj, b, h, r);
    Expr readAt = clamp((lowBlock + b) * block + rj, 0, limit - 1);
    blockOut_(c, b, h, r) = 0.0f;
    blockOut_(c, b, h, r) +=
        weight_(rj, b, h, r) * widen(values(c, readAt, kvHead));
    // One record per block: o_b in [0, head_dim), l_b, m_b.
    partial_(c, b, h, r) =
        select(c < headDim, blockOut_(min(c, headDim - 1), b, h, r),
               c == headDim, blockSum_(b, h, r), blockMax_(b, h, r));

    // Combine the blocks that hold keys some row sees: pos alone bounds the
    // range. A block row r does not see has m_b at the masked score and
    // l_b = o_b = 0, so it weighs nothing, and the range needs no per-row
    // `where` (which pocl miscompiles: a barrier under a uniform branch).
    Expr highBlock = (limit - 1) / block;
    RDom rb(0, highBlock - lowBlock + 1, "rb");
    Expr blockMaxAt = partial_(headDim + 1, rb, h, r);
    rowMax_(h, r) = kMaskedScore;
    rowMax_(h, r) = max(rowMax_(h, r), blockMaxAt);
    combined_(c, h, r) = 0.0f;
    combined_(c, h, r) +=
        exp(blockMaxAt - rowMax_(h, r)) * partial_(c, rb, h, r);
    output_(d, h, r) = combined_(d, h, r) / combined_(headDim, h, r);
    output(output_, {p.rows, p.heads, p.headDim});
    rd_ = rd;
    rj_ = rj;
    rb_ = rb;
  }

  void scheduleCpu(const ScheduleTarget &target) override {
    const int lanes = target.vectorLanes;
    // A task per (head, row): its blocks' partials, then their combination.
    Var task("task");
    output_.fuse(h, r, task)
        .parallel(task)
        .vectorize(d, lanes, TailStrategy::GuardWithIf);
    rowMax_.compute_at(output_, task);
    combined_.compute_at(output_, task)
        .vectorize(c, lanes, TailStrategy::GuardWithIf);
    combined_.update().reorder(c, rb_).vectorize(c, lanes,
                                                 TailStrategy::GuardWithIf);
    partial_.compute_at(output_, task)
        .reorder(c, b, h, r)
        .vectorize(c, lanes, TailStrategy::GuardWithIf);
    // Within a block: the scores, their maximum, the weights, the sums.
    for (Func f : {dot_, score_, blockMax_, weight_, blockSum_, blockOut_})
      f.compute_at(partial_, b);
    // A key's dot product sums the whole head in vector lanes.
    dot_.update().reorder(rd_, j).atomic().vectorize(rd_);
    score_.vectorize(j, lanes, TailStrategy::GuardWithIf);
    weight_.vectorize(j, lanes, TailStrategy::GuardWithIf);
    blockMax_.update().atomic().vectorize(rj_, lanes);
    blockSum_.update().atomic().vectorize(rj_, lanes);
    blockOut_.vectorize(c, lanes, TailStrategy::GuardWithIf);
    blockOut_.update().reorder(c, rj_).vectorize(c, lanes,
                                                 TailStrategy::GuardWithIf);
  }

  void scheduleGpu(const ScheduleTarget &) override {
    // The partials: a GPU block per (key block, head, row), a thread per
    // key for the scores and per feature for the weighted values.
    partial_.compute_root()
        .reorder(c, b, h, r)
        .gpu_blocks(b, h, r)
        .gpu_threads(c);
    for (Func f : {dot_, score_, blockMax_, weight_, blockSum_, blockOut_})
      f.compute_at(partial_, b);
    dot_.gpu_threads(j);
    dot_.update().gpu_threads(j);
    score_.gpu_threads(j);
    weight_.gpu_threads(j);
    blockOut_.gpu_threads(c);
    blockOut_.update().gpu_threads(c);
    // The combination: a GPU block per (head, row), a thread per feature.
    output_.gpu_blocks(h, r).gpu_threads(d);
    rowMax_.compute_at(output_, h);
    combined_.compute_at(output_, h).gpu_threads(c);
    combined_.update().gpu_threads(c);
  }

private:
  AttentionParams params_;
  int block_ = 64;
  Var d{"d"}, h{"h"}, r{"r"}, j{"j"}, b{"b"}, c{"c"};
  RDom rd_, rj_, rb_;
  Func dot_{"dot"}, score_{"score"}, blockMax_{"block_max"}, weight_{"weight"},
      blockSum_{"block_sum"}, blockOut_{"block_out"}, partial_{"partial"},
      rowMax_{"row_max"}, combined_{"combined"}, output_{"output"};
};

} // namespace

std::unique_ptr<Kernel>
tfmc::halide::createAttention(const KernelDescription &kernel,
                              const ScheduleTarget &target) {
  return std::make_unique<Attention>(std::get<AttentionParams>(kernel.params),
                                     target);
}
