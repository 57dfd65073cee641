//===- NpuBase.td - npu dialect definition and shared constraints ---------===//
//
// The dialect itself, the base class of every npu op and the type constraints
// the ops share. Included by the umbrella NpuOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUBASE_TD
#define NPU_DIALECT_NPU_IR_NPUBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "npu/Dialect/Npu/IR/NpuInterfaces.td"

def Npu_Dialect : Dialect {
  let name = "npu";
  let cppNamespace = "::mlir::npu";
  let summary = "Transformer operations on statically shaped tensors";
  let description = [{
    The `npu` dialect expresses transformer models (DeepSeek-V3 with MLA and
    MoE, Llama-3, GPT-2; prefill and decode) at the level an NPU architect
    reasons about: matmuls, attention, norms, rotary embeddings, MoE routing
    and expert FFNs, and the KV cache. All tensors are ranked and statically
    shaped, so every FLOP and byte is a compile-time number.

    Every op implements `NpuWorkOpInterface`, which reports its FLOPs by kind
    (matrix, vector, transcendental), the minimum bytes it reads and writes and
    its parameter (weight) bytes, with overflow-checked 64-bit arithmetic.
    Every op also has a reference lowering to upstream linalg/tensor/arith/math
    (`--npu-lower-to-linalg`) which defines its numerical semantics.

    Limits enforced on every op: every dimension is in [1, 2^40) and every
    tensor's byte size fits in a signed 64-bit integer.
  }];
  let useDefaultAttributePrinterParser = 1;
  // `npu.`-prefixed attributes on any op and on arguments are checked
  // (NpuDialect.cpp): a misspelled or mistyped decision is an error, not a
  // silently ignored attribute.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 0;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// The context's one object of type T, made on first use and destroyed
    /// with the context (and its dialects): results derived from this
    /// context's uniqued attributes and types that several passes share,
    /// such as the TPU-like tile search's memo. Thread-safe to get; T
    /// guards its own contents.
    template <typename T>
    T &getContextCache() {
      std::lock_guard<std::mutex> lock(cacheMutex);
      std::shared_ptr<void> &slot = contextCaches[::mlir::TypeID::get<T>()];
      if (!slot)
        slot = std::make_shared<T>();
      return *static_cast<T *>(slot.get());
    }

  private:
    std::mutex cacheMutex;
    ::llvm::DenseMap<::mlir::TypeID, std::shared_ptr<void>> contextCaches;

  public:
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

/// Floating-point element types a model may store tensors in. fp8 is accepted
/// where an op says so (matmul operands, weights, KV cache).
def Npu_Float : AnyTypeOf<[F32, F16, BF16]>;
def Npu_FloatOrF8 : AnyTypeOf<[F32, F16, BF16, F8E4M3FN, F8E5M2]>;
def Npu_Index : AnyTypeOf<[I32, I64]>;

def Npu_FloatTensor : StaticShapeTensorOf<[F32, F16, BF16]>;
def Npu_FloatOrF8Tensor : StaticShapeTensorOf<[F32, F16, BF16, F8E4M3FN, F8E5M2]>;
def Npu_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
/// What a model may store as a parameter: the float types, fp8, and the
/// narrow formats and scales of npu.dequantize (int8, int4, fp4 e2m1fn,
/// e8m0).
def Npu_WeightTensor : StaticShapeTensorOf<[F32, F16, BF16, F8E4M3FN, F8E5M2,
                                            I8, I<4>, F4E2M1FN, F8E8M0FNU]>;
/// Any tensor a model holds: the float types, the indices, and the stored
/// formats (a view of a stored weight: its values sliced with its scales).
def Npu_AnyTensor : StaticShapeTensorOf<[F32, F16, BF16, F8E4M3FN, F8E5M2, I32, I64,
                                         I8, I<4>, F4E2M1FN, F8E8M0FNU]>;

//===----------------------------------------------------------------------===//
// Base op
//===----------------------------------------------------------------------===//

/// Checks the dialect-wide size limits (see the dialect description).
def Npu_ShapesInRange : NativeOpTrait<"ShapesInRange"> {
  let cppNamespace = "::mlir::npu::OpTrait";
}

/// Rejects discardable attributes without a dialect prefix (`{causl}` on an
/// attention): MLIR would keep them silently, and a typo of an option would
/// change nothing without a word.
def Npu_NoUnknownAttrs : NativeOpTrait<"NoUnknownAttrs"> {
  let cppNamespace = "::mlir::npu::OpTrait";
}

class Npu_Op<string mnemonic, list<Trait> traits = []>
    : Op<Npu_Dialect, mnemonic,
         !listconcat(traits, [Npu_ShapesInRange, Npu_NoUnknownAttrs,
             DeclareOpInterfaceMethods<Npu_WorkOpInterface>])>;

#endif // NPU_DIALECT_NPU_IR_NPUBASE_TD
