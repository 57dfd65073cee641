// fusion=none (npu-decide-fusion, both backend pipelines, npu-compare): no
// groups, every op that does work its own kernel; fusion=cost (the default)
// keeps the gated MLP as one kernel. Each RUN fails if the option is ignored.
// RUN: npu-opt %s --npu-set-target="target=tpu-v5e" --npu-decide-fusion="fusion=none" | FileCheck %s --check-prefix=NONE
// RUN: npu-opt %s --npu-set-target="target=tpu-v5e" --npu-decide-fusion | FileCheck %s --check-prefix=COST
// RUN: npu-opt %s --npu-tpu-pipeline="target=tpu-v5e fusion=none" --npu-report-cost -o /dev/null | FileCheck %s --check-prefix=PIPE
// RUN: npu-opt %s --npu-gpu-pipeline="target=h100 fusion=none" --npu-report-cost -o /dev/null | FileCheck %s --check-prefix=PIPE
// RUN: npu-opt %s --npu-tpu-pipeline="target=tpu-v5e" --npu-report-cost -o /dev/null | FileCheck %s --check-prefix=FUSED
// RUN: npu-compare %s --pair=mock --fusion=none | FileCheck %s --check-prefix=CMP
// RUN: npu-compare %s --pair=mock --fusion=none --format=json | FileCheck %s --check-prefix=JSON
// RUN: not npu-opt %s --npu-set-target="target=tpu-v5e" --npu-decide-fusion="fusion=all" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not npu-compare %s --pair=mock --fusion=all 2>&1 | FileCheck %s --check-prefix=BADCMP

// NONE: npu.rms_norm {{.*}}#npu.fusion<group = 0, kind = stream, saved_bytes = 0>
// NONE: npu.matmul {{.*}}#npu.fusion<group = 1, kind = gemm, saved_bytes = 0>
// NONE: npu.matmul {{.*}}#npu.fusion<group = 2, kind = gemm, saved_bytes = 0>
// NONE: npu.swiglu {{.*}}#npu.fusion<group = 3, kind = stream, saved_bytes = 0>
// NONE: npu.matmul {{.*}}#npu.fusion<group = 4, kind = gemm, saved_bytes = 0>
// NONE: npu.add {{.*}}#npu.fusion<group = 5, kind = stream, saved_bytes = 0>

// COST-COUNT-6: kind = gated_mlp

// PIPE: function @gated
// PIPE-NOT: gated_mlp
// PIPE: stream(rms_norm)
// PIPE: gemm(matmul)
// PIPE: gemm(matmul)
// PIPE: stream(swiglu)
// PIPE: gemm(matmul)
// PIPE: stream(add)
// PIPE-NOT: gated_mlp

// FUSED: gated_mlp(rms_norm,matmul,matmul,swiglu,matmul,add)

// CMP: (GPU-like: hardware decides); fusion=none
// CMP-NOT: gated_mlp
// CMP: gemm(matmul)
// CMP-NOT: gated_mlp

// JSON: "fusion": "none"

// BAD: npu-decide-fusion: fusion must be 'cost' or 'none', got 'all'
// BADCMP: error: --fusion must be 'cost' or 'none', got 'all'

func.func @gated(%x: tensor<256x1024xbf16>, %g: tensor<1024xbf16>, %wg: tensor<4096x1024xbf16>, %wu: tensor<4096x1024xbf16>, %wd: tensor<1024x4096xbf16>) -> tensor<256x1024xbf16> {
  %h = npu.rms_norm %x, %g eps(1.0e-06) : tensor<256x1024xbf16>, tensor<1024xbf16> -> tensor<256x1024xbf16>
  %a = npu.matmul %h, %wg transpose_rhs : tensor<256x1024xbf16>, tensor<4096x1024xbf16> -> tensor<256x4096xbf16>
  %b = npu.matmul %h, %wu transpose_rhs : tensor<256x1024xbf16>, tensor<4096x1024xbf16> -> tensor<256x4096xbf16>
  %s = npu.swiglu %a, %b : tensor<256x4096xbf16>
  %d = npu.matmul %s, %wd transpose_rhs : tensor<256x4096xbf16>, tensor<1024x4096xbf16> -> tensor<256x1024xbf16>
  %y = npu.add %x, %d : tensor<256x1024xbf16>, tensor<256x1024xbf16>
  return %y : tensor<256x1024xbf16>
}
