// RUN: npu-opt %s | FileCheck %s
// RUN: npu-opt %s | npu-opt | FileCheck %s
// RUN: npu-opt %s --mlir-print-op-generic | npu-opt | FileCheck %s

// A target written by hand round-trips; fp8 is absent on this one.
// CHECK: module attributes {npu.target = #npu.target<name = "hand-tpu", clock_hz = 1.500000e+09, matrix_clock_hz = 1.500000e+09, peak_fp32_flop_per_s = 3.283000e+13, peak_bf16_flop_per_s = 1.970000e+14, vector_flop_per_s = 6.144000e+12, transcendental_per_s = 1.536000e+12, hbm_bytes = 17179869184, hbm_bandwidth_bytes_per_s = 8.190000e+11, sustained_hbm_bandwidth_bytes_per_s = 8.190000e+11, link_bandwidth_bytes_per_s = 4.000000e+11, tpu = <tensor_core_count = 1, matrix_unit_count_per_core = 4, matrix_unit_dim_elements = 128, vmem_bytes_per_core = 134217728, dma_engines_per_core = 4, dma_setup_latency_ns = 5.000000e+02, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 3.500000e+02, sublanes = 8>>}
module attributes {npu.target = #npu.target<name = "hand-tpu", clock_hz = 1.5e9,
    matrix_clock_hz = 1.5e9, peak_fp32_flop_per_s = 3.283e13, peak_bf16_flop_per_s = 1.97e14,
    vector_flop_per_s = 6.144e12, transcendental_per_s = 1.536e12,
    hbm_bytes = 17179869184, hbm_bandwidth_bytes_per_s = 8.19e11,
    sustained_hbm_bandwidth_bytes_per_s = 8.19e11,
    link_bandwidth_bytes_per_s = 4.0e11,
    tpu = <tensor_core_count = 1, matrix_unit_count_per_core = 4,
           matrix_unit_dim_elements = 128, vmem_bytes_per_core = 134217728,
           dma_engines_per_core = 4, dma_setup_latency_ns = 500.0,
           row_dmas_in_flight_per_core = 4,
           grid_step_overhead_ns = 350.0, sublanes = 8>>} {
}
