// RUN: tfmc-opt %s -tfm-cpu-vectorize-elementwise=lanes=0 -verify-diagnostics
// RUN: tfmc-opt %s -tfm-cpu-vectorize-elementwise="lanes=16 max-strip=8" -verify-diagnostics

// expected-error @below {{tfm-cpu-vectorize-elementwise: lanes must be positive and max-strip at least lanes}}
module {
}
