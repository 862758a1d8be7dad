// RUN: tfmc-opt %s -tfm-tile-projections=accumulators=0 -verify-diagnostics

// expected-error @below {{tfm-tile-projections: accumulators and parallel-tiles must be positive}}
module {
}
