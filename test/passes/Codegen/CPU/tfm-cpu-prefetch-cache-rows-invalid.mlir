// RUN: tfmc-opt %s -tfm-cpu-prefetch-cache-rows=distance=-1 -verify-diagnostics

// expected-error @below {{tfm-cpu-prefetch-cache-rows: distance must not be negative}}
module {
}
