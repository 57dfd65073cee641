//===- NpuDataOps.td - parameters, gathers and shape ops ------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUDATAOPS_TD
#define NPU_DIALECT_NPU_IR_NPUDATAOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Npu_WeightOp : Npu_Op<"weight", [Pure]> {
  let summary = "a named model parameter";
  let description = [{
    Produces the model parameter named `name` (e.g. the Hugging Face
    checkpoint key). It does no work itself; ops that consume it count its
    bytes as `paramBytes`. Its value is not part of the IR: the reference
    lowering materializes it as a deterministic tensor whose element `i` (in
    row-major order) is `((i * 7 + 3) mod 17 - 8) / 16`, so that lowered
    models can run.

    ```mlir
    %wq = npu.weight "model.layers.0.self_attn.q_a_proj.weight" : tensor<1536x7168xbf16>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Npu_FloatOrF8Tensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

#endif // NPU_DIALECT_NPU_IR_NPUDATAOPS_TD
