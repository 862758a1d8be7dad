//===- CacheLayout.h - What the KV cache holds and how it is laid out -*- C++
//-*-===//
//
// tfm-kv-cache's entries see the cache through two things: CacheContents,
// what must be cached (the layers, the positions each holds, whether a layer
// is a ring), which follows from the network; and a CacheLayout, how one
// tensor holds those contents, which is a choice. The entries decide which
// rows go to which slot of which layer (rings included) and leave every
// access of the cache tensor to the layout, so that another layout (e.g. one
// suited to GPU attention kernels) replaces the head-major one without
// touching the entries.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_TRANSFORMS_KVCACHE_CACHELAYOUT_H
#define TFMC_PASSES_TRANSFORMS_KVCACHE_CACHELAYOUT_H

#include "dialect/TfmOps.h"
#include "passes/Transforms/KVCacheType.h"

#include "mlir/IR/Builders.h"

#include <memory>

namespace mlir::tfm {

/// What the entries cache: for each cached attention layer, in order, the
/// positions (slots) it holds, and the keys' and values' shape.
struct CacheContents {
  int64_t kvHeads = 0;
  int64_t headDim = 0;
  int64_t context = 0;
  /// Positions each layer's cache holds: `context`, or less for a ring.
  SmallVector<int64_t> layerSlots;
  KVCacheType elementType = KVCacheType::f32;

  int64_t layers() const { return layerSlots.size(); }
  int64_t slots(int64_t layer) const { return layerSlots[layer]; }
  bool isRing(int64_t layer) const { return slots(layer) < context; }
  /// Every layer holds as many positions.
  bool isUniform() const { return llvm::all_equal(layerSlots); }
  Type element(MLIRContext *context_) const {
    return kvCacheElementType(context_, elementType);
  }

  /// Appends `attention`'s layer holding `slots` positions; fails, with a
  /// diagnostic, when its key/value heads differ from the earlier layers'.
  LogicalResult addLayer(AttentionOp attention, int64_t slots);
};

/// Index of the cache half holding keys (0) or values (1).
enum class CacheHalf : int64_t { Keys = 0, Values = 1 };

/// How one tensor holds a CacheContents. Writes go in two steps so that a
/// step's rows are rearranged once however many slot ranges they are
/// inserted into (a ring's write wraps around its end).
class CacheLayout {
public:
  explicit CacheLayout(const CacheContents &contents) : contents(contents) {}
  virtual ~CacheLayout() = default;

  const CacheContents &getContents() const { return contents; }

  /// The type of the cache argument and result of every entry.
  virtual RankedTensorType type(MLIRContext *context) const = 0;

  /// The [sequence, kv_heads * head_dim] f32 keys or values of one step,
  /// rearranged (and converted to the element type) for insertRows.
  virtual Value prepareRows(OpBuilder &builder, Location loc,
                            Value rows) const = 0;

  /// Inserts the step's rows [begin, begin + count), as prepareRows made
  /// them, into slots [slot, slot + count) of every head of layer `layer`'s
  /// `half`; returns the updated cache.
  virtual Value insertRows(OpBuilder &builder, Location loc, Value cache,
                           Value prepared, CacheHalf half, int64_t layer,
                           OpFoldResult begin, OpFoldResult count,
                           OpFoldResult slot) const = 0;

  /// Slots [0, visible) of every head of layer `layer`'s `half`, as
  /// tfm.attention reads cached keys and values.
  virtual Value readLayer(OpBuilder &builder, Location loc, Value cache,
                          CacheHalf half, int64_t layer,
                          Value visible) const = 0;

protected:
  CacheContents contents;
};

/// Each head's keys (and values) of a layer are one contiguous block of
/// slots, so that the CPU attention kernels stream through one head's keys:
/// uniform layers as [keys/values, layers, kv heads, slots, head_dim];
/// layers of different slot counts as the rows of each layer's keys, then of
/// each layer's values, [rows, head_dim].
std::unique_ptr<CacheLayout>
createHeadMajorLayout(const CacheContents &contents);

} // namespace mlir::tfm

#endif // TFMC_PASSES_TRANSFORMS_KVCACHE_CACHELAYOUT_H
