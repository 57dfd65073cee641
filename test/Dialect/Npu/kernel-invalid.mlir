// RUN: npu-opt %s -split-input-file -verify-diagnostics

func.func @num_args(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{body has 1 arguments for 2 inputs}}
  %0 = npu.kernel stream (%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{body argument #0 has type 'tensor<4xf16>', input #0 has type 'tensor<4xf32>'}}
  %0 = npu.kernel stream (%x) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf16>):
    npu.yield %a : tensor<4xf16>
  }
  return
}

// -----

func.func @yield_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{npu.yield gives 1 values whose types differ from the kernel's results}}
  %0 = npu.kernel stream (%x) : (tensor<4xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{npu.yield gives 2 values whose types differ from the kernel's results}}
  %0 = npu.kernel stream (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{'npu.yield' op expects parent op 'npu.kernel'}}
  npu.yield %x : tensor<4xf32>
}

// -----

func.func @bad_kind(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::npu::KernelKind to be one of: gemm, gated_mlp, attention, mla_absorbed, moe_ffn, stream, copy}}
  // expected-error @+1 {{failed to parse Npu_KernelKindAttr parameter 'value'}}
  %0 = npu.kernel conv (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @tiling_sizes(%x: tensor<4xf32>) {
  // expected-error @+1 {{tiling needs one tile size per loop, got 2 loops and 1 tile sizes}}
  %0 = npu.kernel stream (%x) {npu.tiling = #npu.tiling<loops = [4, 1], tile = [4], buffers = 2, sram_bytes = 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @tiling_zero_tile(%x: tensor<4xf32>) {
  // expected-error @+1 {{tiling tile #1 has size 0, expected [1, 2^40)}}
  %0 = npu.kernel stream (%x) {npu.tiling = #npu.tiling<loops = [4, 1], tile = [4, 0], buffers = 2, sram_bytes = 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @tiling_buffers(%x: tensor<4xf32>) {
  // expected-error @+1 {{tiling buffers must be >= 1, got 0}}
  %0 = npu.kernel stream (%x) {npu.tiling = #npu.tiling<loops = [4], tile = [4], buffers = 0, sram_bytes = 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @tiling_chunks(%x: tensor<4xf32>) {
  // expected-error @+1 {{tiling chunks must be >= 1, got 0}}
  %0 = npu.kernel stream (%x) {npu.tiling = #npu.tiling<loops = [4], tile = [4], buffers = 1, sram_bytes = 0, chunks = 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @grid_blocks(%x: tensor<4xf32>) {
  // expected-error @+1 {{grid blocks must be >= 1, got 0}}
  %0 = npu.kernel stream (%x) {npu.grid = [#npu.grid<blocks = 0, threads = 256, blocks_per_sm = 1, full_waves = 0, wave_ns = 0.0, tail_blocks = 0, tail_ns = 0.0, fill_ns = 0.0>]} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @grid_tail_without_blocks(%x: tensor<4xf32>) {
  // expected-error @+1 {{grid has a wave time without waves (or waves without time): full_waves 1, wave_ns 1.000000e+01, tail_blocks 0, tail_ns 5.000000e+00}}
  %0 = npu.kernel stream (%x) {npu.grid = [#npu.grid<blocks = 8, threads = 256, blocks_per_sm = 1, full_waves = 1, wave_ns = 10.0, tail_blocks = 0, tail_ns = 5.0, fill_ns = 0.0>]} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @grid_not_array(%x: tensor<4xf32>) {
  // expected-error @+1 {{'npu.grid' must be a non-empty array of #npu.grid on an npu.kernel}}
  %0 = npu.kernel stream (%x) {npu.grid = #npu.grid<blocks = 8, threads = 256, blocks_per_sm = 1, full_waves = 1, wave_ns = 10.0, tail_blocks = 0, tail_ns = 0.0, fill_ns = 0.0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @grid_negative_fill(%x: tensor<4xf32>) {
  // expected-error @+1 {{grid wave_ns, tail_ns and fill_ns must be finite and >= 0}}
  %0 = npu.kernel stream (%x) {npu.grid = [#npu.grid<blocks = 8, threads = 256, blocks_per_sm = 1, full_waves = 1, wave_ns = 10.0, tail_blocks = 0, tail_ns = 0.0, fill_ns = -1.0>]} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @launch_zero(%x: tensor<4xf32>) {
  // expected-error @+1 {{launch cluster_m, cluster_n, raster_group and kv_splits must be >= 1, got 1, 1, 0, 1}}
  %0 = npu.kernel stream (%x) {npu.launch = [#npu.launch<cluster_m = 1, cluster_n = 1, raster_group = 0>]} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @launch_not_power_of_two(%x: tensor<4xf32>) {
  // expected-error @+1 {{launch cluster sides must be powers of two, got 3 x 1}}
  %0 = npu.kernel stream (%x) {npu.launch = [#npu.launch<cluster_m = 3, cluster_n = 1, raster_group = 4>]} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @launch_empty(%x: tensor<4xf32>) {
  // expected-error @+1 {{'npu.launch' must be a non-empty array of #npu.launch on an npu.kernel}}
  %0 = npu.kernel stream (%x) {npu.launch = []} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @tiling_shared_tile(%x: tensor<4xf32>) {
  // expected-error @+1 {{tiling shared_tile needs 3 sizes (M, F, D), got 2}}
  %0 = npu.kernel stream (%x) {npu.tiling = #npu.tiling<loops = [4], tile = [4], buffers = 1, sram_bytes = 0, shared_tile = [4, 4]>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    npu.yield %a : tensor<4xf32>
  }
  return
}
