// The weight types are compiler/weights' conversion targets: an unknown
// name, or a k-quant (read as stored, never produced), is refused.
// RUN: not tfmc-opt %s -tfm-cpu-select-kernel-config=weights=f8 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: for the --weights option: unknown weight type 'f8' (expected f32, f16, bf16, q8_0 or q4_0)
// RUN: not tfmc-opt %s -tfm-cpu-select-kernel-config=weights=q4_k 2>&1 | FileCheck %s --check-prefix=KQUANT
// KQUANT: for the --weights option: unknown weight type 'q4_k' (expected f32, f16, bf16, q8_0 or q4_0)
// RUN: not tfmc-opt %s -tfm-cpu-select-kernel-config=int8-inputs=maybe 2>&1 | FileCheck %s --check-prefix=SWITCH
// SWITCH: for the --int8-inputs option: 'maybe' is not true, false or default

// RUN: not tfmc-opt %s -tfm-cpu-select-kernel-config=accumulators=-1 2>&1 | FileCheck %s --check-prefix=ACC
// ACC: error: tfm-cpu-select-kernel-config: accumulators must not be negative, got -1
// RUN: not tfmc-opt %s -tfm-cpu-select-kernel-config=block-keys=0 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: error: tfm-cpu-select-kernel-config: block-keys must be positive, got 0
// RUN: not tfmc-opt %s -tfm-cpu-select-kernel-config=cache-prefetch-distance=-1 2>&1 | FileCheck %s --check-prefix=PREFETCH
// RUN: not tfmc-opt %s -tfm-cpu-select-kernel-config=stream-prefetch-distance=-1 2>&1 | FileCheck %s --check-prefix=PREFETCH
// PREFETCH: error: tfm-cpu-select-kernel-config: prefetch distances must not be negative

module {
}
