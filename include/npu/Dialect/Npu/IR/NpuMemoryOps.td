//===- NpuMemoryOps.td - memory spaces and DMA -------------*- tablegen -*-===//
//
// What the TPU-like backend's memory passes write on bufferized IR: the memory
// space of every buffer (HBM or the core's compiler-managed SRAM, VMEM) and
// explicit, asynchronous DMA transfers between them (docs/memory-tpu.md).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUMEMORYOPS_TD
#define NPU_DIALECT_NPU_IR_NPUMEMORYOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Npu_MemorySpace : I32EnumAttr<"MemorySpace",
    "where a buffer lives on a TPU-like chip", [
      I32EnumAttrCase<"Hbm", 0, "hbm">,
      I32EnumAttrCase<"Vmem", 1, "vmem">]> {
  let cppNamespace = "::mlir::npu";
  let genSpecializedAttr = 0;
}

def Npu_MemorySpaceAttr : EnumAttr<Npu_Dialect, Npu_MemorySpace,
    "memory_space"> {
  let summary = "memory space of a memref: HBM or a core's VMEM (SRAM)";
  let description = [{
    The memory-space attribute of memrefs on a TPU-like target, written by
    `npu-tpu-assign-memory-spaces`. `hbm`: off-chip memory, where function
    arguments, results and values crossing kernels live; `vmem`: the
    compiler-managed SRAM of one TensorCore, where tiles live while they are
    computed on. Compute ops touch only `vmem` buffers; data moves between
    the two with `npu.dma_start` / `npu.dma_wait`.

    ```mlir
    %t = memref.alloc() {npu.sram_offset = 0 : i64} : memref<32x64xf32, #npu.memory_space<vmem>>
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Npu_DmaTokenType : TypeDef<Npu_Dialect, "DmaToken"> {
  let mnemonic = "dma_token";
  let summary = "an in-flight DMA transfer";
  let description = [{
    The result of `npu.dma_start`, consumed by the `npu.dma_wait` that
    completes the transfer. Passing tokens as SSA values (through `scf.for`
    iteration arguments in a double-buffered loop) makes "which transfer does
    this wait complete" a use-def edge that passes and verifiers can follow.
  }];
}

def Npu_DmaStartOp : Op<Npu_Dialect, "dma_start"> {
  let summary = "start an asynchronous DMA between HBM and VMEM";
  let description = [{
    Starts copying `source` into `target` (same shape and element type; one
    of them in `#npu.memory_space<hbm>`, the other in
    `#npu.memory_space<vmem>`) and returns a token. The data in `target` is
    defined, and `source` may be overwritten, only after the `npu.dma_wait`
    of the token. Strided views (tiles of a larger HBM buffer) are allowed:
    a DMA engine walks the strides.

    With `if %p`, the transfer happens only when `%p` is true; otherwise
    nothing is read or written and the token is complete at once (its wait,
    if any, returns immediately). `npu-tpu-double-buffer` predicates the
    prefetch of a loop whose trip count is known only at run time: the
    prologue's first load runs if the loop runs, and each iteration's
    prefetch of the next tile if there is a next iteration; the views of a
    tile that does not exist are made but never accessed.

    ```mlir
    %t = npu.dma_start %tile, %buf : memref<32x64xf32, strided<[128, 1], offset: ?>, #npu.memory_space<hbm>>, memref<32x64xf32, #npu.memory_space<vmem>>
    npu.dma_wait %t
    %u = npu.dma_start %next, %buf1 if %more : memref<?x64xf32, strided<[128, 1], offset: ?>, #npu.memory_space<hbm>>, memref<?x64xf32, #npu.memory_space<vmem>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "copied from", [MemRead]>:$source,
                       Arg<AnyMemRef, "copied to", [MemWrite]>:$target,
                       Optional<I1>:$predicate);
  let results = (outs Npu_DmaTokenType:$token);
  let assemblyFormat = [{
    $source `,` $target (`if` $predicate^)? attr-dict `:` type($source) `,` type($target)
  }];
  let builders = [
    OpBuilder<(ins "Value":$source, "Value":$target), [{
      build($_builder, $_state, source, target, /*predicate=*/Value());
    }]>
  ];
  // A predicate that is the constant true is dropped.
  let hasCanonicalizeMethod = 1;
  let hasVerifier = 1;
}

def Npu_DmaWaitOp : Op<Npu_Dialect, "dma_wait"> {
  let summary = "wait until a DMA has completed";
  let description = [{
    Blocks until the transfer started by the `npu.dma_start` that produced
    `token` has completed. Every token is waited on exactly once before the
    end of the function (`npu-tpu-insert-dma` places waits before the first
    access to the transfer's buffers).

    ```mlir
    npu.dma_wait %t
    ```
  }];
  let arguments = (ins Npu_DmaTokenType:$token);
  let assemblyFormat = "$token attr-dict";
}

#endif // NPU_DIALECT_NPU_IR_NPUMEMORYOPS_TD
