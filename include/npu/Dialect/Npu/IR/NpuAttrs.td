//===- NpuAttrs.td - attributes and enums of the npu dialect --------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUATTRS_TD
#define NPU_DIALECT_NPU_IR_NPUATTRS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "mlir/IR/EnumAttr.td"

def Npu_ScoringFunc : I32EnumAttr<"ScoringFunc",
    "how router logits become expert scores", [
      I32EnumAttrCase<"Softmax", 0, "softmax">,
      I32EnumAttrCase<"Sigmoid", 1, "sigmoid">]> {
  let cppNamespace = "::mlir::npu";
  let genSpecializedAttr = 0;
}
def Npu_ScoringFuncAttr : EnumAttr<Npu_Dialect, Npu_ScoringFunc, "scoring"> {
  let assemblyFormat = "`<` $value `>`";
}

def Npu_LoadKind : I32EnumAttr<"LoadKind",
    "shape of the expected expert load", [
      I32EnumAttrCase<"Uniform", 0, "uniform">,
      I32EnumAttrCase<"Histogram", 1, "histogram">]> {
  let cppNamespace = "::mlir::npu";
}

def Npu_ExpertLoadAttr : AttrDef<Npu_Dialect, "ExpertLoad"> {
  let mnemonic = "expert_load";
  let summary = "expected distribution of routed tokens over experts";
  let description = [{
    How many tokens reach each expert is known only at run time. This
    attribute describes what a compiler may plan for: `uniform` (every
    expert equally likely) or `histogram [w0, w1, ...]`, one non-negative
    relative weight per expert (normalized by their sum).

    ```mlir
    #npu.expert_load<uniform>
    #npu.expert_load<histogram [4.0, 1.0, 1.0, 1.0]>
    ```
  }];
  let parameters = (ins "LoadKind":$kind,
                        OptionalParameter<"::mlir::DenseF64ArrayAttr">:$weights);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Fraction of all routed (token, expert) assignments that go to
    /// `expert` among `numExperts`.
    double getFraction(int64_t expert, int64_t numExperts) const;
    /// The histogram weights (empty for a uniform load).
    ::llvm::ArrayRef<double> getWeightValues() const {
      return getWeights() ? getWeights().asArrayRef() : ::llvm::ArrayRef<double>();
    }
  }];
}

#endif // NPU_DIALECT_NPU_IR_NPUATTRS_TD
