// RUN: tfmc-opt %s -split-input-file -tfm-cpu-tile-projections=parallel-tiles=0 -verify-diagnostics

// expected-error @below {{tfm-cpu-tile-projections: parallel-tiles must be positive}}
module {
}
