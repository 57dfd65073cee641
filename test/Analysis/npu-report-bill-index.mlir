// RUN: npu-opt %s --npu-report-bill="target=mock-gpu" -o /dev/null | FileCheck %s
//
// A tensor of index (a run-time position read from a tensor, as the
// execution tests drive a KV-cache append) is 8 bytes per element (64-bit
// index): the bill crashed on it (npu-fuzz-passes found it in the seeds).
// The arguments (cache, update) are inputs, and the append writes its cache
// in place: the one activation is the position tensor, 2 x 8 = 16 B.
// CHECK: peak live activations: 16 B
func.func @main(%cache: tensor<2x1x6x2xf32>, %new: tensor<2x1x2x2xf32>) -> tensor<2x1x6x2xf32> {
  %posv = arith.constant dense<[10, 3]> : tensor<2xindex>
  %c0 = arith.constant 0 : index
  %pos = tensor.extract %posv[%c0] : tensor<2xindex>
  %c2 = npu.kv_cache_append %cache, %new at %pos : tensor<2x1x6x2xf32>, tensor<2x1x2x2xf32> -> tensor<2x1x6x2xf32>
  return %c2 : tensor<2x1x6x2xf32>
}
