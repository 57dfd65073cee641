// How a GPU-like target's kernels are launched (docs/cost-model-gpu.md,
// "Launches"): the 128^3 GEMM of gpu-estimate-cost.mlir on mock-gpu, whose
// kernel launched on a stream costs 1000 ns and replayed from a CUDA graph
// 500 ns, over a grid of 1024 ns.

// A module that says nothing is launched on a stream: 1000 + 1024.
// RUN: npu-opt %s --npu-set-target="target=mock-gpu" --npu-estimate-cost | FileCheck %s --check-prefix=STREAM
// STREAM: npu.cost = #npu.cost<time_ns = 2.024000e+03, compute_ns = 1.024000e+03, memory_ns = 9.600000e+02, overhead_ns = 1.000000e+03

// gpu-launch=graph: 500 + 1024.
// RUN: npu-opt %s --npu-set-target="target=mock-gpu gpu-launch=graph" --npu-estimate-cost | FileCheck %s --check-prefix=GRAPH
// GRAPH: module attributes {npu.gpu_launch = "graph"
// GRAPH: npu.cost = #npu.cost<time_ns = 1.524000e+03, compute_ns = 1.024000e+03, memory_ns = 9.600000e+02, overhead_ns = 5.000000e+02

// A decode step (npu.model phase "decode") is replayed from a graph by
// default, and gpu-launch=stream overrides that.
// RUN: sed 's/module {/module attributes {npu.model = {phase = "decode"}} {/' %s | npu-opt --npu-set-target="target=mock-gpu" --npu-estimate-cost | FileCheck %s --check-prefix=GRAPH-DEFAULT
// GRAPH-DEFAULT: npu.cost = #npu.cost<time_ns = 1.524000e+03,
// RUN: sed 's/module {/module attributes {npu.model = {phase = "decode"}} {/' %s | npu-opt --npu-set-target="target=mock-gpu gpu-launch=stream" --npu-estimate-cost | FileCheck %s --check-prefix=STREAM

// A bad value is refused.
// RUN: not npu-opt %s --npu-set-target="target=mock-gpu gpu-launch=eager" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: npu-set-target: gpu-launch must be 'auto', 'graph' or 'stream', got 'eager'
// So is a hand-written one.
// RUN: sed 's/module {/module attributes {npu.gpu_launch = "eager"} {/' %s | not npu-opt 2>&1 | FileCheck %s --check-prefix=BAD-ATTR
// BAD-ATTR: error: 'npu.gpu_launch' must be "graph" or "stream" on a module, got "eager"

module {
  func.func @gemm(%x: tensor<128x128xbf16>, %w: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
    %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 128, 128, 128], tile = [1, 64, 64, 32], buffers = 1, sram_bytes = 24576>} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xbf16> {
    ^bb0(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>):
      %m = npu.matmul %a, %b transpose_rhs : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xbf16>
      npu.yield %m : tensor<128x128xbf16>
    }
    return %0 : tensor<128x128xbf16>
  }
}
