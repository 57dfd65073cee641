// RUN: npu-opt %s -split-input-file -verify-diagnostics

// The attribute verifiers apply to hand-written IR exactly as to files.

// expected-error @+1 {{field 'gpu.l2_line_bytes' must be a power of two, got 100}}
module attributes {npu.x = #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, shared_memory_bytes_per_sm = 49152, shared_memory_bytes_per_block = 49152, register_bytes_per_sm = 65536, warp_size_threads = 32, max_threads_per_sm = 1024, max_threads_per_block = 1024, max_blocks_per_sm = 8, l2_bytes = 262144, l2_line_bytes = 100, l2_associativity_ways = 8, l2_bandwidth_bytes_per_s = 4.096e11, launch_overhead_ns = 1.0e3, graph_launch_overhead_ns = 1.0e3, max_cluster_blocks = 1, dram_latency_ns = 0.0, max_registers_per_thread = 255, register_allocation_unit = 1, register_sub_partitions = 1, shared_memory_allocation_unit_bytes = 1, shared_memory_reserved_per_block_bytes = 0, shared_memory_bytes_per_clock = 128>} {}

// -----

// expected-error @+1 {{field 'gpu.max_threads_per_block' (2048) must not exceed 'gpu.max_threads_per_sm' (1024)}}
module attributes {npu.x = #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, shared_memory_bytes_per_sm = 49152, shared_memory_bytes_per_block = 49152, register_bytes_per_sm = 65536, warp_size_threads = 32, max_threads_per_sm = 1024, max_threads_per_block = 2048, max_blocks_per_sm = 8, l2_bytes = 262144, l2_line_bytes = 128, l2_associativity_ways = 8, l2_bandwidth_bytes_per_s = 4.096e11, launch_overhead_ns = 1.0e3, graph_launch_overhead_ns = 1.0e3, max_cluster_blocks = 1, dram_latency_ns = 0.0, max_registers_per_thread = 255, register_allocation_unit = 1, register_sub_partitions = 1, shared_memory_allocation_unit_bytes = 1, shared_memory_reserved_per_block_bytes = 0, shared_memory_bytes_per_clock = 128>} {}

// -----

// expected-error @+1 {{field 'gpu.max_threads_per_sm' (1000) must be a multiple of 'gpu.warp_size_threads' (32)}}
module attributes {npu.x = #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, shared_memory_bytes_per_sm = 49152, shared_memory_bytes_per_block = 49152, register_bytes_per_sm = 65536, warp_size_threads = 32, max_threads_per_sm = 1000, max_threads_per_block = 960, max_blocks_per_sm = 8, l2_bytes = 262144, l2_line_bytes = 128, l2_associativity_ways = 8, l2_bandwidth_bytes_per_s = 4.096e11, launch_overhead_ns = 1.0e3, graph_launch_overhead_ns = 1.0e3, max_cluster_blocks = 1, dram_latency_ns = 0.0, max_registers_per_thread = 255, register_allocation_unit = 1, register_sub_partitions = 1, shared_memory_allocation_unit_bytes = 1, shared_memory_reserved_per_block_bytes = 0, shared_memory_bytes_per_clock = 128>} {}

// -----

// expected-error @+1 {{field 'gpu.shared_memory_bytes_per_block' (65536) must not exceed 'gpu.shared_memory_bytes_per_sm' (49152)}}
module attributes {npu.x = #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, shared_memory_bytes_per_sm = 49152, shared_memory_bytes_per_block = 65536, register_bytes_per_sm = 65536, warp_size_threads = 32, max_threads_per_sm = 1024, max_threads_per_block = 1024, max_blocks_per_sm = 8, l2_bytes = 262144, l2_line_bytes = 128, l2_associativity_ways = 8, l2_bandwidth_bytes_per_s = 4.096e11, launch_overhead_ns = 1.0e3, graph_launch_overhead_ns = 1.0e3, max_cluster_blocks = 1, dram_latency_ns = 0.0, max_registers_per_thread = 255, register_allocation_unit = 1, register_sub_partitions = 1, shared_memory_allocation_unit_bytes = 1, shared_memory_reserved_per_block_bytes = 0, shared_memory_bytes_per_clock = 128>} {}

// -----

// expected-error @+1 {{field 'gpu.l2_bytes' (262200) must be a multiple of 'gpu.l2_line_bytes' (128)}}
module attributes {npu.x = #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, shared_memory_bytes_per_sm = 49152, shared_memory_bytes_per_block = 49152, register_bytes_per_sm = 65536, warp_size_threads = 32, max_threads_per_sm = 1024, max_threads_per_block = 1024, max_blocks_per_sm = 8, l2_bytes = 262200, l2_line_bytes = 128, l2_associativity_ways = 8, l2_bandwidth_bytes_per_s = 4.096e11, launch_overhead_ns = 1.0e3, graph_launch_overhead_ns = 1.0e3, max_cluster_blocks = 1, dram_latency_ns = 0.0, max_registers_per_thread = 255, register_allocation_unit = 1, register_sub_partitions = 1, shared_memory_allocation_unit_bytes = 1, shared_memory_reserved_per_block_bytes = 0, shared_memory_bytes_per_clock = 128>} {}

// -----

// expected-error @+1 {{field 'gpu.launch_overhead_ns' must be in [0, 1e+12], got -1}}
module attributes {npu.x = #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, shared_memory_bytes_per_sm = 49152, shared_memory_bytes_per_block = 49152, register_bytes_per_sm = 65536, warp_size_threads = 32, max_threads_per_sm = 1024, max_threads_per_block = 1024, max_blocks_per_sm = 8, l2_bytes = 262144, l2_line_bytes = 128, l2_associativity_ways = 8, l2_bandwidth_bytes_per_s = 4.096e11, launch_overhead_ns = -1.0, graph_launch_overhead_ns = 0.0, max_cluster_blocks = 1, dram_latency_ns = 0.0, max_registers_per_thread = 255, register_allocation_unit = 1, register_sub_partitions = 1, shared_memory_allocation_unit_bytes = 1, shared_memory_reserved_per_block_bytes = 0, shared_memory_bytes_per_clock = 128>} {}

// -----

// expected-error @+1 {{field 'tpu.matrix_unit_dim_elements' must be positive, got 0}}
module attributes {npu.x = #npu.tpu_target<tensor_core_count = 1, matrix_unit_count_per_core = 4, matrix_unit_dim_elements = 0, vmem_bytes_per_core = 1024, dma_engines_per_core = 4, dma_setup_latency_ns = 5.0e2, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 3.5e2, sublanes = 8>} {}

// -----

// expected-error @+1 {{field 'tpu.vmem_bytes_per_core' times 'tpu.tensor_core_count' overflows 64 bits}}
module attributes {npu.x = #npu.tpu_target<tensor_core_count = 4, matrix_unit_count_per_core = 4, matrix_unit_dim_elements = 128, vmem_bytes_per_core = 4611686018427387904, dma_engines_per_core = 4, dma_setup_latency_ns = 5.0e2, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 3.5e2, sublanes = 8>} {}

// -----

// expected-error @+1 {{a target needs exactly one of 'tpu' and 'gpu', got neither}}
module attributes {npu.x = #npu.target<name = "t", clock_hz = 1.0e9, matrix_clock_hz = 1.0e9, peak_fp32_flop_per_s = 1.0e12, peak_bf16_flop_per_s = 4.0e12, vector_flop_per_s = 5.0e11, transcendental_per_s = 1.0e11, hbm_bytes = 1073741824, hbm_bandwidth_bytes_per_s = 1.0e11, sustained_hbm_bandwidth_bytes_per_s = 1.0e11, link_bandwidth_bytes_per_s = 0.0>} {}

// -----

// expected-error @+1 {{field 'peak_bf16_flop_per_s' (1e+12) must not be below 'peak_fp32_flop_per_s' (4e+12)}}
module attributes {npu.x = #npu.target<name = "t", clock_hz = 1.0e9, matrix_clock_hz = 1.0e9, peak_fp32_flop_per_s = 4.0e12, peak_bf16_flop_per_s = 1.0e12, vector_flop_per_s = 5.0e11, transcendental_per_s = 1.0e11, hbm_bytes = 1073741824, hbm_bandwidth_bytes_per_s = 1.0e11, sustained_hbm_bandwidth_bytes_per_s = 1.0e11, link_bandwidth_bytes_per_s = 0.0, tpu = <tensor_core_count = 1, matrix_unit_count_per_core = 4, matrix_unit_dim_elements = 128, vmem_bytes_per_core = 1024, dma_engines_per_core = 4, dma_setup_latency_ns = 5.0e2, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 3.5e2, sublanes = 8>>} {}

// -----

// expected-error @+1 {{field 'name' must be non-empty and use only [a-z0-9._-:,=+], got 'H100'}}
module attributes {npu.x = #npu.target<name = "H100", clock_hz = 1.0e9, matrix_clock_hz = 1.0e9, peak_fp32_flop_per_s = 1.0e12, peak_bf16_flop_per_s = 4.0e12, vector_flop_per_s = 5.0e11, transcendental_per_s = 1.0e11, hbm_bytes = 1073741824, hbm_bandwidth_bytes_per_s = 1.0e11, sustained_hbm_bandwidth_bytes_per_s = 1.0e11, link_bandwidth_bytes_per_s = 0.0, tpu = <tensor_core_count = 1, matrix_unit_count_per_core = 4, matrix_unit_dim_elements = 128, vmem_bytes_per_core = 1024, dma_engines_per_core = 4, dma_setup_latency_ns = 5.0e2, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 3.5e2, sublanes = 8>>} {}

// -----

// expected-error @+1 {{struct is missing required parameter: hbm_bytes}}
module attributes {npu.x = #npu.target<name = "t", clock_hz = 1.0e9, matrix_clock_hz = 1.0e9, peak_fp32_flop_per_s = 1.0e12, peak_bf16_flop_per_s = 4.0e12, vector_flop_per_s = 5.0e11, transcendental_per_s = 1.0e11, hbm_bandwidth_bytes_per_s = 1.0e11, sustained_hbm_bandwidth_bytes_per_s = 1.0e11, link_bandwidth_bytes_per_s = 0.0>} {}

// -----

// expected-error @+1 {{field 'gpu.max_cluster_blocks' must be a power of two, got 3}}
module attributes {npu.x = #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, shared_memory_bytes_per_sm = 49152, shared_memory_bytes_per_block = 49152, register_bytes_per_sm = 65536, warp_size_threads = 32, max_threads_per_sm = 1024, max_threads_per_block = 1024, max_blocks_per_sm = 8, l2_bytes = 262144, l2_line_bytes = 128, l2_associativity_ways = 8, l2_bandwidth_bytes_per_s = 4.096e11, launch_overhead_ns = 1.0e3, graph_launch_overhead_ns = 1.0e3, max_cluster_blocks = 3, dram_latency_ns = 0.0, max_registers_per_thread = 255, register_allocation_unit = 1, register_sub_partitions = 1, shared_memory_allocation_unit_bytes = 1, shared_memory_reserved_per_block_bytes = 0, shared_memory_bytes_per_clock = 128>} {}

// -----

// expected-error @+1 {{field 'gpu.dram_latency_ns' must be in [0, 1e+12], got -5}}
module attributes {npu.x = #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, shared_memory_bytes_per_sm = 49152, shared_memory_bytes_per_block = 49152, register_bytes_per_sm = 65536, warp_size_threads = 32, max_threads_per_sm = 1024, max_threads_per_block = 1024, max_blocks_per_sm = 8, l2_bytes = 262144, l2_line_bytes = 128, l2_associativity_ways = 8, l2_bandwidth_bytes_per_s = 4.096e11, launch_overhead_ns = 1.0e3, graph_launch_overhead_ns = 1.0e3, max_cluster_blocks = 1, dram_latency_ns = -5.0, max_registers_per_thread = 255, register_allocation_unit = 1, register_sub_partitions = 1, shared_memory_allocation_unit_bytes = 1, shared_memory_reserved_per_block_bytes = 0, shared_memory_bytes_per_clock = 128>} {}


// -----

// expected-error @+1 {{field 'tpu.row_dmas_in_flight_per_core' must be positive, got 0}}
module attributes {npu.x = #npu.tpu_target<tensor_core_count = 1, matrix_unit_count_per_core = 4, matrix_unit_dim_elements = 128, vmem_bytes_per_core = 1024, dma_engines_per_core = 4, dma_setup_latency_ns = 5.0e2, row_dmas_in_flight_per_core = 0, grid_step_overhead_ns = 3.5e2, sublanes = 8>} {}

// -----

// expected-error @+1 {{field 'matrix_clock_hz' (2e+09) must not exceed 'clock_hz' (1e+09)}}
module attributes {npu.x = #npu.target<name = "t", clock_hz = 1.0e9, matrix_clock_hz = 2.0e9, peak_fp32_flop_per_s = 1.0e12, peak_bf16_flop_per_s = 4.0e12, vector_flop_per_s = 5.0e11, transcendental_per_s = 1.0e11, hbm_bytes = 1073741824, hbm_bandwidth_bytes_per_s = 1.0e11, sustained_hbm_bandwidth_bytes_per_s = 1.0e11, link_bandwidth_bytes_per_s = 0.0, tpu = <tensor_core_count = 1, matrix_unit_count_per_core = 4, matrix_unit_dim_elements = 128, vmem_bytes_per_core = 1024, dma_engines_per_core = 4, dma_setup_latency_ns = 5.0e2, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 3.5e2, sublanes = 8>>} {}

// -----

// expected-error @+1 {{field 'sustained_hbm_bandwidth_bytes_per_s' (2e+11) must not exceed 'hbm_bandwidth_bytes_per_s' (1e+11)}}
module attributes {npu.x = #npu.target<name = "t", clock_hz = 1.0e9, matrix_clock_hz = 1.0e9, peak_fp32_flop_per_s = 1.0e12, peak_bf16_flop_per_s = 4.0e12, vector_flop_per_s = 5.0e11, transcendental_per_s = 1.0e11, hbm_bytes = 1073741824, hbm_bandwidth_bytes_per_s = 1.0e11, sustained_hbm_bandwidth_bytes_per_s = 2.0e11, link_bandwidth_bytes_per_s = 0.0, tpu = <tensor_core_count = 1, matrix_unit_count_per_core = 4, matrix_unit_dim_elements = 128, vmem_bytes_per_core = 1024, dma_engines_per_core = 4, dma_setup_latency_ns = 5.0e2, row_dmas_in_flight_per_core = 4, grid_step_overhead_ns = 3.5e2, sublanes = 8>>} {}

// -----

// expected-error @+1 {{field 'gpu.shared_memory_bytes_per_clock' must be positive, got 0}}
module attributes {npu.x = #npu.gpu_target<sm_count = 4, l1_shared_bytes_per_sm = 65536, shared_memory_bytes_per_sm = 49152, shared_memory_bytes_per_block = 49152, register_bytes_per_sm = 65536, warp_size_threads = 32, max_threads_per_sm = 1024, max_threads_per_block = 1024, max_blocks_per_sm = 8, l2_bytes = 262144, l2_line_bytes = 128, l2_associativity_ways = 8, l2_bandwidth_bytes_per_s = 4.096e11, launch_overhead_ns = 1.0e3, graph_launch_overhead_ns = 1.0e3, max_cluster_blocks = 1, dram_latency_ns = 0.0, max_registers_per_thread = 255, register_allocation_unit = 1, register_sub_partitions = 1, shared_memory_allocation_unit_bytes = 1, shared_memory_reserved_per_block_bytes = 0, shared_memory_bytes_per_clock = 0>} {}
