// RUN: tfmc-opt %s -tfm-cpu-fuse-attention=block-keys=0 -verify-diagnostics

// expected-error @below {{tfm-cpu-fuse-attention: block-keys must be positive, got 0}}
module {
}
