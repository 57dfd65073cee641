// npu-tpu-check-plan lowers each kernel on its own, measures the memory
// program (DMA bytes each way, counted over its loops; the VMEM plan's peak)
// and compares it with the kernel's #npu.cost and #npu.tiling.
//
// A 64 x 128 x 64 bf16 GEMM on mock-tpu, one tile (chunks of K): A and B
// 2 x 64 x 128 x 2 = 32768 B read, C 64 x 64 x 2 = 8192 B written, as priced.
// RUN: npu-opt %S/../BadInput/Inputs/gemm.mlir --npu-tpu-pipeline="target=mock-tpu" --npu-tpu-check-plan="report=true" -o /dev/null | FileCheck %s --check-prefix=OK
// OK: 0 gemm 32768 32768 8192 8192 {{[0-9]+}} 57344 57344 ok
// OK: npu-tpu-check-plan: 1 kernels, 1 as priced, 0 not; bytes not measurable in 0
//
// The same kernel with the model's numbers perturbed by hand (the cost the
// pipeline wrote, one field changed each time): each perturbation fails,
// at the kernel, with the two numbers.
// RUN: not npu-opt %s --npu-tpu-check-plan -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=PERTURBED --implicit-check-not=error:

// Read bytes 1% high: 33096 claimed against 32768 lowered.
// PERTURBED: error: npu-tpu-check-plan: gemm kernel 0: the lowered program reads from HBM 32768 B, the cost model claims 33096 B (1.0% off, tolerance 0.0%)
module attributes {npu.target = #npu.target<name = "mock-tpu", clock_hz = 1.000000e+09, matrix_clock_hz = 1.000000e+09, peak_fp32_flop_per_s = 1.024000e+12, peak_bf16_flop_per_s = 4.096000e+12, peak_fp8_flop_per_s = 8.192000e+12, vector_flop_per_s = 2.560000e+11, transcendental_per_s = 6.400000e+10, hbm_bytes = 1073741824, hbm_bandwidth_bytes_per_s = 1.024000e+11, sustained_hbm_bandwidth_bytes_per_s = 1.024000e+11, link_bandwidth_bytes_per_s = 0.000000e+00, tpu = <tensor_core_count = 1, matrix_unit_count_per_core = 8, matrix_unit_dim_elements = 16, vmem_bytes_per_core = 524288, dma_engines_per_core = 2, dma_setup_latency_ns = 1.000000e+02, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 5.000000e+01, sublanes = 8>>} {
  func.func @gemm(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
    %0 = npu.kernel gemm(%x, %w) {npu.cost = #npu.cost<time_ns = 604.0, compute_ns = 256.0, memory_ns = 400.0, overhead_ns = 204.0, hbm_read_bytes = 33096, hbm_write_bytes = 8192, onchip_bytes = 57344, flops = 1048576, padded_flops = 1048576, bound = memory, matrix_utilization = 0.42>, npu.tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 64, 64, 128], buffers = 1, sram_bytes = 57344, chunks = 8>} : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16> {
    ^bb0(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>):
      %1 = npu.matmul %a, %b transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
      npu.yield %1 : tensor<64x64xbf16>
    }
    return %0 : tensor<64x64xbf16>
  }
}

// -----

// Written bytes 1% low: 8110 claimed against 8192 lowered.
// PERTURBED: error: npu-tpu-check-plan: gemm kernel 0: the lowered program writes to HBM 8192 B, the cost model claims 8110 B (1.0% off, tolerance 0.0%)
module attributes {npu.target = #npu.target<name = "mock-tpu", clock_hz = 1.000000e+09, matrix_clock_hz = 1.000000e+09, peak_fp32_flop_per_s = 1.024000e+12, peak_bf16_flop_per_s = 4.096000e+12, peak_fp8_flop_per_s = 8.192000e+12, vector_flop_per_s = 2.560000e+11, transcendental_per_s = 6.400000e+10, hbm_bytes = 1073741824, hbm_bandwidth_bytes_per_s = 1.024000e+11, sustained_hbm_bandwidth_bytes_per_s = 1.024000e+11, link_bandwidth_bytes_per_s = 0.000000e+00, tpu = <tensor_core_count = 1, matrix_unit_count_per_core = 8, matrix_unit_dim_elements = 16, vmem_bytes_per_core = 524288, dma_engines_per_core = 2, dma_setup_latency_ns = 1.000000e+02, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 5.000000e+01, sublanes = 8>>} {
  func.func @gemm(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
    %0 = npu.kernel gemm(%x, %w) {npu.cost = #npu.cost<time_ns = 604.0, compute_ns = 256.0, memory_ns = 400.0, overhead_ns = 204.0, hbm_read_bytes = 32768, hbm_write_bytes = 8110, onchip_bytes = 57344, flops = 1048576, padded_flops = 1048576, bound = memory, matrix_utilization = 0.42>, npu.tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 64, 64, 128], buffers = 1, sram_bytes = 57344, chunks = 8>} : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16> {
    ^bb0(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>):
      %1 = npu.matmul %a, %b transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
      npu.yield %1 : tensor<64x64xbf16>
    }
    return %0 : tensor<64x64xbf16>
  }
}

// -----

// The working set priced below the plan: 57343 against 57344.
// PERTURBED: error: npu-tpu-check-plan: gemm kernel 0: the VMEM plan needs 57344 B, the cost model priced a working set of 57343 B
module attributes {npu.target = #npu.target<name = "mock-tpu", clock_hz = 1.000000e+09, matrix_clock_hz = 1.000000e+09, peak_fp32_flop_per_s = 1.024000e+12, peak_bf16_flop_per_s = 4.096000e+12, peak_fp8_flop_per_s = 8.192000e+12, vector_flop_per_s = 2.560000e+11, transcendental_per_s = 6.400000e+10, hbm_bytes = 1073741824, hbm_bandwidth_bytes_per_s = 1.024000e+11, sustained_hbm_bandwidth_bytes_per_s = 1.024000e+11, link_bandwidth_bytes_per_s = 0.000000e+00, tpu = <tensor_core_count = 1, matrix_unit_count_per_core = 8, matrix_unit_dim_elements = 16, vmem_bytes_per_core = 524288, dma_engines_per_core = 2, dma_setup_latency_ns = 1.000000e+02, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 5.000000e+01, sublanes = 8>>} {
  func.func @gemm(%x: tensor<64x128xbf16>, %w: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
    %0 = npu.kernel gemm(%x, %w) {npu.cost = #npu.cost<time_ns = 604.0, compute_ns = 256.0, memory_ns = 400.0, overhead_ns = 204.0, hbm_read_bytes = 32768, hbm_write_bytes = 8192, onchip_bytes = 57344, flops = 1048576, padded_flops = 1048576, bound = memory, matrix_utilization = 0.42>, npu.tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 64, 64, 128], buffers = 1, sram_bytes = 57343, chunks = 8>} : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16> {
    ^bb0(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>):
      %1 = npu.matmul %a, %b transpose_rhs : tensor<64x128xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
      npu.yield %1 : tensor<64x64xbf16>
    }
    return %0 : tensor<64x64xbf16>
  }
}
