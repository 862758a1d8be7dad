// RUN: tfmc-opt %s -split-input-file -tfm-cpu-pack-weights=panel-width=0 -verify-diagnostics
// RUN: not tfmc-opt %s -split-input-file -tfm-cpu-pack-weights=panel-group=0 2>&1 | FileCheck %s --check-prefix=GROUP

// GROUP: error: tfm-cpu-pack-weights: panel-group must be positive, got 0
// expected-error @below {{tfm-cpu-pack-weights: panel-width must be positive, got 0}}
module {
}

// RUN: not tfmc-opt %s -tfm-cpu-pack-weights=weight-type=f8 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: error: tfm-cpu-pack-weights: unknown weight-type 'f8' (expected f32, f16, bf16, q8_0 or q4_0)

// kquant is the layout of the file's k-quants, not a conversion target.
// RUN: not tfmc-opt %s -tfm-cpu-pack-weights=weight-type=kquant 2>&1 | FileCheck %s --check-prefix=KQUANT
// KQUANT: error: tfm-cpu-pack-weights: unknown weight-type 'kquant' (expected f32, f16, bf16, q8_0 or q4_0)
