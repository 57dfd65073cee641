//===- NpuKernelOps.td - fused kernels ----------------------*- tablegen -*-===//
//
// The unit the backends compile, schedule and cost: a region of graph ops
// whose intermediates stay on chip. Formed by `npu-form-kernels` from the
// fusion decisions of `npu-decide-fusion`.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUKERNELOPS_TD
#define NPU_DIALECT_NPU_IR_NPUKERNELOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "npu/Dialect/Npu/IR/NpuBackendAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Npu_KernelOp : Npu_Op<"kernel", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "a fused kernel: graph ops whose intermediates stay on chip";
  let description = [{
    One launch (GPU-like) or one grid of tile steps (TPU-like). The body is a
    single block whose arguments are the `inputs`; `npu.yield` gives the
    results. Values defined inside never go to HBM: only the inputs are read
    and the results written. The kernel is isolated from above, so each one
    can be tiled, costed and scheduled on its own.

    `kind` says which loop nest and cost model the backends use (see
    `#npu.tiling`). The backends write their decisions on the kernel:
    `npu.tiling` (`#npu.tiling`), `npu.cost` (`#npu.cost`) and `npu.slot`
    (`#npu.slot`).

    Work: the sum of the body ops' FLOPs; bytes read are the distinct inputs
    once, bytes written the results once (the intermediates are free: that is
    what fusion buys).

    ```mlir
    %y = npu.kernel gemm (%x, %w, %b) : (tensor<64x512xbf16>, tensor<256x512xbf16>,
        tensor<64x256xbf16>) -> tensor<64x256xbf16> {
    ^bb0(%a: tensor<64x512xbf16>, %wt: tensor<256x512xbf16>, %r: tensor<64x256xbf16>):
      %m = npu.matmul %a, %wt transpose_rhs : tensor<64x512xbf16>, tensor<256x512xbf16> -> tensor<64x256xbf16>
      %s = npu.add %m, %r : tensor<64x256xbf16>
      npu.yield %s : tensor<64x256xbf16>
    }
    ```
  }];
  let arguments = (ins Npu_KernelKindAttr:$kind, Variadic<AnyType>:$inputs);
  let results = (outs Variadic<Npu_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::npu::KernelKind":$kind, "::mlir::ValueRange":$inputs,
                   "::mlir::TypeRange":$resultTypes)>,
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The ops of the body that implement the work interface, in order.
    ::llvm::SmallVector<::mlir::Operation *> getComputeOps();
  }];
}

def Npu_YieldOp : Op<Npu_Dialect, "yield", [Pure, Terminator,
    HasParent<"KernelOp">]> {
  let summary = "the results of an npu.kernel";
  let description = [{
    Terminates the body of `npu.kernel`; its operands are the kernel's
    results, with the same types.

    ```mlir
    npu.yield %s : tensor<64x256xbf16>
    ```
  }];
  let arguments = (ins Variadic<Npu_AnyTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // NPU_DIALECT_NPU_IR_NPUKERNELOPS_TD
