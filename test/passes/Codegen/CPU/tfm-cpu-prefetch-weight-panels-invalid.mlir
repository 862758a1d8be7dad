// RUN: tfmc-opt %s -tfm-cpu-prefetch-weight-panels=stream-min-bytes=-1 -verify-diagnostics

// expected-error @below {{tfm-cpu-prefetch-weight-panels: stream-min-bytes must not be negative}}
module {
}
