// RUN: tfmc-opt %s -tfm-pack-weights=panel-width=0 -verify-diagnostics

// expected-error @below {{tfm-pack-weights: panel-width must be positive, got 0}}
module {
}
