// RUN: tfmc-opt %s -split-input-file -tfm-cpu-pack-weights=panel-width=0 -verify-diagnostics
// RUN: not tfmc-opt %s -split-input-file -tfm-cpu-pack-weights=panel-group=0 2>&1 | FileCheck %s --check-prefix=GROUP

// GROUP: error: tfm-cpu-pack-weights: panel-group must be positive, got 0
// expected-error @below {{tfm-cpu-pack-weights: panel-width must be positive, got 0}}
module {
}
