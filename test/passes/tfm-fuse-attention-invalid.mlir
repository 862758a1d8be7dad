// RUN: tfmc-opt %s -tfm-fuse-attention=block-keys=0 -verify-diagnostics

// expected-error @below {{tfm-fuse-attention: block-keys must be positive, got 0}}
module {
}
