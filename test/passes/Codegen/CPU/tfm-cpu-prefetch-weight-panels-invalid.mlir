// RUN: tfmc-opt %s -tfm-cpu-prefetch-weight-panels=stream-distance=-1 -verify-diagnostics

// expected-error @below {{tfm-cpu-prefetch-weight-panels: stream-distance must not be negative}}
module {
}
