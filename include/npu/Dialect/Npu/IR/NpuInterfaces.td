//===- NpuInterfaces.td - op interfaces of the npu dialect ----------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUINTERFACES_TD
#define NPU_DIALECT_NPU_IR_NPUINTERFACES_TD

include "mlir/IR/OpBase.td"

def Npu_WorkOpInterface : OpInterface<"WorkOpInterface"> {
  let cppNamespace = "::mlir::npu";
  let description = [{
    The work an op does, as an architect counts it by hand.

    Units and conventions (see docs/work.md for every op's formula):
    * FLOPs are counted per kind. `matrix`: multiply-accumulates done as
      dot products (2 FLOPs per MAC). `vector`: element-wise arithmetic,
      comparisons and reductions (1 FLOP per add, mul, max, compare, divide).
      `transcendental`: exp, sigmoid, tanh, erf, sin, cos, rsqrt, pow (1 per
      evaluation).
    * `bytesRead` / `bytesWritten`: the minimum bytes the op must move to and
      from memory if it runs alone: each distinct input element read once,
      each output element written once. View ops (reshape, slice, KV-cache
      read) move nothing; their consumers pay.
    * `paramBytes`: bytes of the op's operands that are model parameters
      (values produced by `npu.weight` or function arguments marked
      `npu.param`). For MoE experts this is every expert's weights, while
      `bytesRead` counts only the experts the expected load activates.

    All counts are unsigned 64-bit with overflow tracking (`npu::Count`): an op
    never wraps around. `getCheckedWork(op)` turns an overflow into an error
    at the op's location. Causal attention counts only the unmasked
    (query, key) pairs, as FlashAttention-style kernels skip masked blocks.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the op's work; counts carry their own overflow flag.",
      /*retTy=*/"::mlir::npu::Work",
      /*methodName=*/"computeWork",
      /*args=*/(ins)>,
  ];
}

#endif // NPU_DIALECT_NPU_IR_NPUINTERFACES_TD
