//===- EntryBufferization.h - Tensors to the buffers the runtime passes -*- C++
//-*-===//
//
// Every target's entries take the buffers the runtime allocated: the
// weights, the KV cache (updated in place) and the caller's logits. Both
// code generation pipelines bufferize their entries this way.
//
//===----------------------------------------------------------------------===//
#ifndef TFMC_PASSES_CODEGEN_COMMON_ENTRYBUFFERIZATION_H
#define TFMC_PASSES_CODEGEN_COMMON_ENTRYBUFFERIZATION_H

#include "mlir/Pass/PassManager.h"

namespace mlir::tfm {

/// The KV cache made a buffer (tfm-cache-to-buffer), one-shot
/// bufferization across function boundaries (identity layouts), then the
/// cache's result dropped (it is updated in place, so the result is the
/// argument again) and the logits' result turned into the caller-provided
/// buffer (static allocations hoisted).
void addEntryBufferizationPasses(OpPassManager &pm);

} // namespace mlir::tfm

#endif // TFMC_PASSES_CODEGEN_COMMON_ENTRYBUFFERIZATION_H
