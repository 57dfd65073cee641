// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-set-target="target=mock-tpu" --npu-verify-tiles

// The SRAM check rejects a plan that does not fit: a whole 1024^3 GEMM in
// one tile needs 2*(2+2) MiB of operand buffers + 4 MiB of f32 accumulator
// + 2*2 MiB of output buffers = 16 MiB; mock-tpu has 512 KiB per core.
func.func @too_big(%x: tensor<1024x1024xbf16>, %w: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  // expected-error @below {{the working set of tile [1, 1024, 1024, 1024] with 2 buffers is 16777216 bytes, more than the 524288 bytes of SRAM per core of 'mock-tpu'}}
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 1024, 1024, 1024], tile = [1, 1024, 1024, 1024], buffers = 2, sram_bytes = 16777216>} : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  ^bb0(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>):
    %m = npu.matmul %a, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16> -> tensor<1024x1024xbf16>
    npu.yield %m : tensor<1024x1024xbf16>
  }
  return %0 : tensor<1024x1024xbf16>
}

// -----

// Load chunks must divide the K tile (128 in 3 cannot), and the K tile K.
func.func @bad_chunks(%x: tensor<64x128xbf16>, %w: tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{chunks = 3 needs a gemm kernel on a TPU-like target whose K tile (128) it divides and that divides K (128)}}
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 32, 64, 128], buffers = 2, sram_bytes = 65536, chunks = 3>} : (tensor<64x128xbf16>, tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %b: tensor<128x64xbf16>):
    %m = npu.matmul %a, %b : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xbf16>
    npu.yield %m : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

// -----

// A plan whose recorded size is not what the tile needs (the check
// recomputes it rather than trusting the attribute).
func.func @wrong_size(%x: tensor<64x128xbf16>, %w: tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{sram_bytes says 1024 but the tile needs 65536 bytes}}
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 32, 64, 128], buffers = 2, sram_bytes = 1024>} : (tensor<64x128xbf16>, tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %b: tensor<128x64xbf16>):
    %m = npu.matmul %a, %b : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xbf16>
    npu.yield %m : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

// -----

func.func @wrong_loops(%x: tensor<64x128xbf16>, %w: tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{tiling loops [1, 64, 64, 64] are not the kernel's loops [1, 64, 64, 128]}}
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 64, 64, 64], tile = [1, 32, 64, 64], buffers = 2, sram_bytes = 1024>} : (tensor<64x128xbf16>, tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %b: tensor<128x64xbf16>):
    %m = npu.matmul %a, %b : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xbf16>
    npu.yield %m : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

// -----

func.func @untiled(%x: tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  // expected-error @below {{npu-verify-tiles: kernel has no 'npu.tiling'}}
  %0 = npu.kernel stream (%x) : (tensor<8x8xbf16>) -> tensor<8x8xbf16> {
  ^bb0(%a: tensor<8x8xbf16>):
    %s = npu.silu %a : tensor<8x8xbf16>
    npu.yield %s : tensor<8x8xbf16>
  }
  return %0 : tensor<8x8xbf16>
}

// -----

// An attention tile's sixth entry (the K/V held on chip) is a K/V tile
// (streamed), the whole KV length (resident) or a multiple of the K/V tile
// between them (a held prefix): 3 is none of them (tkv 2, Skv 8).
func.func @held_kv(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @below {{tile [1, 4, 2, 4, 4, 3] is not valid for a attention kernel}}
  %0 = npu.kernel attention (%q, %k, %v) {npu.tiling = #npu.tiling<loops = [2, 8, 8, 4, 8, 8], tile = [1, 4, 2, 4, 4, 3], buffers = 2, sram_bytes = 0>} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
  ^bb0(%a: tensor<1x2x8x4xf32>, %b: tensor<1x2x8x4xf32>, %c: tensor<1x2x8x4xf32>):
    %o = npu.attention %a, %b, %c causal : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
    npu.yield %o : tensor<1x2x8x4xf32>
  }
  return %0 : tensor<1x2x8x4xf32>
}

// -----

// A rotary embedding's stream kernel holds its f32 cos/sin table (and
// inverse frequencies) for all tiles: rows 4 x 3 of 8 f32 features, tiles
// of 6 rows, 2 buffers: 2 x (768 B / 12 rows) x 6 = 768 B of row buffers,
// plus the table 4 x 4 x (1 + 2 x 3) = 112 B: 880 B.
func.func @rope_table(%x: tensor<1x4x3x8xf32>) -> tensor<1x4x3x8xf32> {
  // expected-error @below {{sram_bytes says 768 but the tile needs 880 bytes}}
  %0 = npu.kernel stream (%x) {npu.tiling = #npu.tiling<loops = [12, 8], tile = [6, 8], buffers = 2, sram_bytes = 768>} : (tensor<1x4x3x8xf32>) -> tensor<1x4x3x8xf32> {
  ^bb0(%a: tensor<1x4x3x8xf32>):
    %r = npu.rope %a interleaved : tensor<1x4x3x8xf32> -> tensor<1x4x3x8xf32>
    npu.yield %r : tensor<1x4x3x8xf32>
  }
  return %0 : tensor<1x4x3x8xf32>
}

// -----

// A shared expert's tile is checked too: [64, 256, 256] holds two buffers
// of its three 256 x 256 bf16 weight tiles (768 KiB) alone.
func.func @moe_shared_too_big(%x: tensor<64x256xbf16>, %idx: tensor<64x2xi64>, %w: tensor<64x2xbf16>, %wg: tensor<8x128x256xbf16>, %wu: tensor<8x128x256xbf16>, %wd: tensor<8x256x128xbf16>, %sg: tensor<256x256xbf16>, %su: tensor<256x256xbf16>, %sd: tensor<256x256xbf16>) -> tensor<64x256xbf16> {
  // expected-error @+1 {{more than the 524288 bytes of SRAM per core of 'mock-tpu'}}
  %0 = npu.kernel moe_ffn (%x, %idx, %w, %wg, %wu, %wd, %sg, %su, %sd) {npu.tiling = #npu.tiling<loops = [16, 128, 256], tile = [16, 64, 256], buffers = 2, sram_bytes = 0, shared_tile = [64, 256, 256]>} : (tensor<64x256xbf16>, tensor<64x2xi64>, tensor<64x2xbf16>, tensor<8x128x256xbf16>, tensor<8x128x256xbf16>, tensor<8x256x128xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<64x256xbf16> {
  ^bb0(%a: tensor<64x256xbf16>, %i: tensor<64x2xi64>, %r: tensor<64x2xbf16>, %g: tensor<8x128x256xbf16>, %u: tensor<8x128x256xbf16>, %d: tensor<8x256x128xbf16>, %sga: tensor<256x256xbf16>, %sua: tensor<256x256xbf16>, %sda: tensor<256x256xbf16>):
    %y = npu.moe_experts %a, %i, %r, %g, %u, %d shared(%sga, %sua, %sda) load(#npu.expert_load<uniform>) : tensor<64x256xbf16>, tensor<64x2xi64>, tensor<64x2xbf16>, tensor<8x128x256xbf16>, tensor<8x128x256xbf16>, tensor<8x256x128xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16> -> tensor<64x256xbf16>
    npu.yield %y : tensor<64x256xbf16>
  }
  return %0 : tensor<64x256xbf16>
}

// -----

func.func @shared_tile_on_gemm(%x: tensor<64x128xbf16>, %w: tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @+1 {{shared_tile needs a moe_ffn kernel with a shared expert on a TPU-like target}}
  %0 = npu.kernel gemm (%x, %w) {npu.tiling = #npu.tiling<loops = [1, 64, 64, 128], tile = [1, 32, 64, 128], buffers = 2, sram_bytes = 0, shared_tile = [32, 64, 128]>} : (tensor<64x128xbf16>, tensor<128x64xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x128xbf16>, %b: tensor<128x64xbf16>):
    %m = npu.matmul %a, %b : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xbf16>
    npu.yield %m : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}
