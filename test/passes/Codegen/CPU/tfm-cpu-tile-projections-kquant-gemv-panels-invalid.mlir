// RUN: tfmc-opt %s -split-input-file -tfm-cpu-tile-projections=kquant-gemv-panels=-1 -verify-diagnostics

// expected-error @below {{tfm-cpu-tile-projections: kquant-gemv-panels must not be negative}}
module {
}
