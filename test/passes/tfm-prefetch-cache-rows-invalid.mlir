// RUN: tfmc-opt %s -tfm-prefetch-cache-rows=distance=-1 -verify-diagnostics

// expected-error @below {{tfm-prefetch-cache-rows: distance must not be negative}}
module {
}
