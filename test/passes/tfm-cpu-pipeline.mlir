// RUN: tfmc-opt %s -tfm-cpu-pipeline="prefill-chunk=2 share-kernels=false" | FileCheck %s --implicit-check-not="= tfm." --implicit-check-not=tfm.global_weight --implicit-check-not=linalg.

// With the kernels shared (the default), the entries keep their ABI and
// call their loop nests (test/compiler/share-kernels.test).
// RUN: tfmc-opt %s -tfm-cpu-pipeline="prefill-chunk=2" | FileCheck %s --check-prefix=SHARED
// SHARED-LABEL: llvm.func @prefill(
// SHARED-SAME: tfm.entry_arg = #tfm.entry_arg<scratch>
// SHARED: llvm.call @prefill_kernel_{{[0-9]+}}(
// SHARED-LABEL: llvm.func @decode(
// SHARED-SAME: tfm.entry_arg = #tfm.entry_arg<scratch>
// SHARED: llvm.call @decode_kernel_{{[0-9]+}}(

// One option string reaches both phases: prefill-chunk the network
// transforms, parallel the CPU code generation; a name neither declares and
// a value of the wrong type are errors.
// RUN: tfmc-opt %s -tfm-cpu-pipeline="prefill-chunk=2 parallel=false" | FileCheck %s --check-prefix=SERIAL
// SERIAL: prefill_chunk = 2
// SERIAL-NOT: omp.
// RUN: not tfmc-opt %s -tfm-cpu-pipeline="prefill-chunk=2 unrolling=4" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown option 'unrolling=4'
// RUN: not tfmc-opt %s -tfm-cpu-pipeline="prefill-chunk=two" 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: error: invalid option value in 'prefill-chunk=two'

// The whole CPU pipeline produces the bare-pointer entry ABI of
// runtime/ModelABI.h: prefill(weights, tokens, pos, count, cache, logits)
// and decode(weights, token, pos, cache, logits), each argument in its
// place and marked with what it carries. No tfm or linalg op is left. The
// reads checked below are in the entries' own bodies with every layer's
// code inline (share-kernels=false).

module attributes {tfm.model = #tfm.model<context_length = 8, kind = decoder, network = @forward>} {
  tfm.global_weight @table : tensor<16x8xf32>
  func.func @forward(%tokens: tensor<4xi32>) -> tensor<4x16xf32> {
    %c0 = arith.constant 0 : index
    %t = tfm.weight @table : tensor<16x8xf32>
    %x = tfm.embedding %tokens, %t : tensor<4xi32>, tensor<16x8xf32> -> tensor<4x8xf32>
    %a = tfm.attention %x, %x, %x[%c0] {num_heads = 2 : i64, num_kv_heads = 2 : i64, mask = #tfm.mask<causal>, cache = #tfm.cache_role<self>} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    %l = tfm.lm_head %a, %t : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
    return %l : tensor<4x16xf32>
  }
}

// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.entries = #tfm.entries<prefill = @prefill, decode = @decode, prefill_chunk = 2, context_length = 8>

// CHECK-LABEL: llvm.func @prefill
// CHECK-SAME: (%[[WEIGHTS:[a-z0-9]+]]: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<weights>},
// CHECK-SAME: %[[TOKENS:[a-z0-9]+]]: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<tokens>},
// CHECK-SAME: %[[POS:[a-z0-9]+]]: i64 {tfm.entry_arg = #tfm.entry_arg<position>},
// CHECK-SAME: %[[COUNT:[a-z0-9]+]]: i64 {tfm.entry_arg = #tfm.entry_arg<count>},
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<kv_cache>},
// CHECK-SAME: %[[LOGITS:[a-z0-9]+]]: !llvm.ptr,
// CHECK-SAME: %[[SCRATCH:[a-z0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.dereferenceable = {{[0-9]+}} : i64, llvm.noalias, tfm.entry_arg = #tfm.entry_arg<scratch>}) {
// The embedding's rows are read from the weights (the tied head's panels),
// the ids from the tokens.
// CHECK-DAG: llvm.getelementptr %[[WEIGHTS]]
// CHECK-DAG: llvm.getelementptr %[[TOKENS]]
// A chunk with count 0 computes no logits.
// CHECK: llvm.icmp "ne" %[[COUNT]]
// CHECK: "llvm.intr.memcpy"(%[[LOGITS]]

// CHECK-LABEL: llvm.func @decode
// CHECK-SAME: (%[[DWEIGHTS:[a-z0-9]+]]: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<weights>},
// CHECK-SAME: %[[DTOKEN:[a-z0-9]+]]: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<tokens>},
// CHECK-SAME: %[[DPOS:[a-z0-9]+]]: i64 {tfm.entry_arg = #tfm.entry_arg<position>},
// CHECK-SAME: %[[DCACHE:[a-z0-9]+]]: !llvm.ptr {tfm.entry_arg = #tfm.entry_arg<kv_cache>},
// CHECK-SAME: %[[DLOGITS:[a-z0-9]+]]: !llvm.ptr,
// CHECK-SAME: %[[DSCRATCH:[a-z0-9]+]]: !llvm.ptr {{{.*}}tfm.entry_arg = #tfm.entry_arg<scratch>}) {
// CHECK-DAG: llvm.getelementptr %[[DWEIGHTS]]
// CHECK-DAG: llvm.load %[[DTOKEN]]
