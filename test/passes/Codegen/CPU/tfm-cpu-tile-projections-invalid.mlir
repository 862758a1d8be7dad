// RUN: tfmc-opt %s -tfm-cpu-tile-projections=accumulators=0 -verify-diagnostics

// expected-error @below {{tfm-cpu-tile-projections: accumulators and parallel-tiles must be positive}}
module {
}
