// RUN: not tfmc-opt %s -tfm-cpu-tile-attention=block-keys=0 2>&1 | FileCheck %s --check-prefix=BLOCK

// BLOCK: tfm-cpu-tile-attention: block-keys must be positive
