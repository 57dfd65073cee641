// RUN: npu-opt %s --npu-set-target="target=mock-tpu" --npu-schedule-kernels --npu-report-cost -o /dev/null | FileCheck %s
// RUN: npu-opt %s --npu-set-target="target=mock-tpu" --npu-schedule-kernels | FileCheck %s --check-prefix=IR

// Hand-written costs: the schedule lays the kernels end to end on the chip
// in dependence order and a call takes its callee's makespan.
// IR-LABEL: func.func @layer
// IR-SAME: npu.cost = #npu.cost<time_ns = 3.000000e+02
// IR: npu.slot = #npu.slot<start_ns = 0.000000e+00, end_ns = 1.000000e+02>
// IR: npu.slot = #npu.slot<start_ns = 1.000000e+02, end_ns = 3.000000e+02>
// IR-LABEL: func.func @model
// IR-SAME: time_ns = 6.000000e+02
// IR: npu.slot = #npu.slot<start_ns = 0.000000e+00, end_ns = 3.000000e+02>
// IR: npu.slot = #npu.slot<start_ns = 3.000000e+02, end_ns = 6.000000e+02>

// CHECK: function @layer (called 2 times): 0.300 us
// CHECK: stream(silu)
// CHECK: stream(gelu)
// CHECK: total
// CHECK: function @model: 0.600 us
// CHECK: call @layer
// CHECK: call @layer

func.func @layer(%x: tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  %0 = npu.kernel stream (%x) {npu.cost = #npu.cost<time_ns = 100.0, compute_ns = 10.0, memory_ns = 50.0, overhead_ns = 50.0, hbm_read_bytes = 128, hbm_write_bytes = 128, onchip_bytes = 256, flops = 64, padded_flops = 0, bound = memory, matrix_utilization = 0.0>} : (tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  ^bb0(%a: tensor<8x8xbf16>):
    %s = npu.silu %a : tensor<8x8xbf16>
    npu.yield %s : tensor<8x8xbf16>
  }
  %1 = npu.kernel stream (%0) {npu.cost = #npu.cost<time_ns = 200.0, compute_ns = 10.0, memory_ns = 50.0, overhead_ns = 150.0, hbm_read_bytes = 128, hbm_write_bytes = 128, onchip_bytes = 256, flops = 64, padded_flops = 0, bound = overhead, matrix_utilization = 0.0>} : (tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  ^bb0(%a: tensor<8x8xbf16>):
    %s = npu.gelu %a : tensor<8x8xbf16>
    npu.yield %s : tensor<8x8xbf16>
  }
  return %1 : tensor<8x8xbf16>
}

func.func @model(%x: tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  %0 = func.call @layer(%x) : (tensor<8x8xbf16>) -> tensor<8x8xbf16>
  %1 = func.call @layer(%0) : (tensor<8x8xbf16>) -> tensor<8x8xbf16>
  return %1 : tensor<8x8xbf16>
}
