//===- NpuMoEOps.td - MoE ops of the npu dialect --------------------------===//
//
// Mixture-of-experts routing (DeepSeek-V3 noaux_tc top-k) and the routed
// SwiGLU experts with optional shared experts. Work formulas: docs/work/moe.md.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUMOEOPS_TD
#define NPU_DIALECT_NPU_IR_NPUMOEOPS_TD

include "npu/Dialect/Npu/IR/NpuBase.td"
include "npu/Dialect/Npu/IR/NpuAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Npu_RouterWeightsTensor : StaticShapeTensorOf<[F32]>;

//===----------------------------------------------------------------------===//
// moe_router
//===----------------------------------------------------------------------===//

def Npu_MoERouterOp : Npu_Op<"moe_router", [Pure]> {
  let summary = "top-k expert selection from router logits (DeepSeek-V3 noaux_tc)";
  let description = [{
    For each token `t` (a row of `logits`, shape `[T, E]`), all in f32:

    1. `score[e] = sigmoid(logits[t, e])`, or the softmax of the row
       (`scoring(softmax)`).
    2. `sel[e] = score[e] + bias[e]`; the optional `bias` (shape `[E]`, the
       `e_score_correction_bias`) only steers the selection.
    3. With `groups(n_group, topk_group)`: the E experts form `n_group`
       contiguous groups of `G = E / n_group`. A group's score is the sum of
       its top `m = min(group_top, G)` selection scores (`group_top` 2, the
       default: DeepSeek-V3's noaux_tc; 1, the group's best expert:
       DeepSeek-V2's group_limited_greedy); the `topk_group` best groups are
       kept (ties: lower group index first) and the experts of the other
       groups are excluded (their `sel` becomes -inf).
    4. The `top_k` experts with the largest `sel` are chosen, in descending
       order of `sel` (ties: lower expert index first; a NaN `sel` ranks as
       -inf): `indices[t, j]`.
    5. `weights[t, j] = score[indices[t, j]]` (without the bias); with
       `norm_topk` divided by their sum over `j`; then multiplied by `scale`
       (`routed_scaling_factor`, 1 unless given).

    Verified: `1 <= top_k <= E`, `n_group` divides `E`,
    `1 <= topk_group <= n_group`, `top_k <= topk_group * E / n_group`,
    `group_top` 1 or 2 (other than 2 only with groups),
    `scale` finite and > 0, `bias` of shape `[E]`, results of shape
    `[T, top_k]` (indices i32 or i64, weights f32).

    Work (per token, times T; m = min(group_top, G), C = candidate experts =
    `topk_group * G` with groups, else E): transcendental E (the exp of the
    sigmoid or softmax); vector: sigmoid 2E (add, divide) or softmax 4E-2
    (E-1 max, E subtract, E-1 add, E divide), + E bias adds, + groups
    `m*E` compares (top-m of each group as m passes) `+ n_group*(m-1)` adds
    `+ topk_group*n_group` compares (group selection as topk_group passes),
    + `top_k*C` compares (top-k as top_k passes over the candidates),
    + norm `2*top_k-1` (sum, divides), + `top_k` multiplies when
    `scale != 1`. Reads logits and bias, writes both results.

    ```mlir
    // DeepSeek-V3 routing of 4 tokens over 256 experts.
    %idx, %w = npu.moe_router %logits, %bias top_k(8) scoring(sigmoid)
        groups(8, 4) norm_topk scale(2.5)
        : tensor<4x256xf32>, tensor<256xf32> -> tensor<4x8xi32>, tensor<4x8xf32>
    // DeepSeek-V2 routing: softmax, groups ranked by their best expert.
    %idx1, %w1 = npu.moe_router %logits160 top_k(6) scoring(softmax)
        groups(8, 3) group_top(1) scale(16.0)
        : tensor<4x160xf32> -> tensor<4x6xi32>, tensor<4x6xf32>
    // Mixtral-style softmax top-2.
    %idx2, %w2 = npu.moe_router %logits8 top_k(2) scoring(softmax) norm_topk
        : tensor<4x8xf32> -> tensor<4x2xi64>, tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Npu_FloatTensor:$logits,
                       Optional<Npu_FloatTensor>:$bias,
                       I64Attr:$top_k,
                       Npu_ScoringFuncAttr:$scoring,
                       OptionalAttr<I64Attr>:$n_group,
                       OptionalAttr<I64Attr>:$topk_group,
                       DefaultValuedAttr<I64Attr, "2">:$group_top,
                       UnitAttr:$norm_topk,
                       DefaultValuedAttr<F64Attr, "1.0">:$scale);
  let results = (outs Npu_IndexTensor:$indices, Npu_RouterWeightsTensor:$weights);
  let assemblyFormat = [{
    $logits (`,` $bias^)? `top_k` `(` $top_k `)`
    `scoring` `(` custom<ScoringFunc>($scoring) `)`
    (`groups` `(` custom<Groups>($n_group, $topk_group)^ `)`)?
    (`group_top` `(` $group_top^ `)`)? (`norm_topk` $norm_topk^)? (`scale` `(` $scale^ `)`)?
    attr-dict `:` type($logits) (`,` type($bias)^)? `->` type($indices) `,`
    type($weights)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumTokens() { return getLogits().getType().getDimSize(0); }
    int64_t getNumExperts() { return getLogits().getType().getDimSize(1); }
    /// Whether group-limited selection is on (`groups(...)` given).
    bool hasGroups() { return getNGroup().has_value(); }
    /// Experts the final top-k chooses among: topk_group * E / n_group with
    /// groups, else E.
    int64_t getNumCandidates();

    // Custom assembly directives (static members, so that the generated
    // parser and printer find them): `scoring(sigmoid)` with the bare
    // keyword, and `n_group, topk_group` inside the optional `groups(...)`.
    static ::mlir::ParseResult parseScoringFunc(::mlir::OpAsmParser &parser,
        ::mlir::npu::ScoringFuncAttr &scoring);
    static void printScoringFunc(::mlir::OpAsmPrinter &printer,
        ::mlir::Operation *op, ::mlir::npu::ScoringFuncAttr scoring);
    static ::mlir::ParseResult parseGroups(::mlir::OpAsmParser &parser,
        ::mlir::IntegerAttr &nGroup, ::mlir::IntegerAttr &topkGroup);
    static void printGroups(::mlir::OpAsmPrinter &printer,
        ::mlir::Operation *op, ::mlir::IntegerAttr nGroup,
        ::mlir::IntegerAttr topkGroup);
  }];
}

//===----------------------------------------------------------------------===//
// moe_experts
//===----------------------------------------------------------------------===//

def Npu_MoEExpertsOp : Npu_Op<"moe_experts", [Pure, AttrSizedOperandSegments]> {
  let summary = "routed SwiGLU experts plus optional shared experts";
  let description = [{
    ```
    result[t] = sum_j weights[t, j] * FFN_{indices[t, j]}(x[t]) + shared(x[t])
    FFN_e(v)  = w_down[e] (silu(w_gate[e] v) * (w_up[e] v))
    shared(v) = s_down (silu(s_gate v) * (s_up v))     (0 without `shared`)
    ```
    with `x` `[T, D]`; `indices` `[T, k]` (i32/i64) and `weights` `[T, k]`
    from `npu.moe_router`; `w_gate`, `w_up` `[E, F, D]` and `w_down`
    `[E, D, F]` (nn.Linear layout `[out, in]` stacked over the experts);
    shared (operands `shared_gate`, `shared_up`, `shared_down`) `s_gate`,
    `s_up` `[Fs, D]`, `s_down` `[D, Fs]` (DeepSeek-V3: one
    shared expert, Fs = 2048). The result has the type of `x`. Arithmetic is
    in f32. The reference lowering clamps an out-of-range expert index to
    `[0, E-1]` so that it never reads out of bounds.

    `load` (required) is the expected distribution of the T*k (token,
    expert) assignments over the E experts (`#npu.expert_load<uniform>` or a
    histogram of E weights). It decides how many experts' weights are read.

    GPT-OSS's experts (both optional, independent of each other):
    * `biases(%bg, %bu, %bd)`: per-expert biases `[E, F]`, `[E, F]` and
      `[E, D]` added to the gate and up projections and to the down
      projection's output: `FFN_e(v) = w_down[e] act(w_gate[e] v + bg[e],
      w_up[e] v + bu[e]) + bd[e]`;
    * `swiglu_limit(L)` (L finite and > 0): GPT-OSS's clamped SwiGLU in
      place of `silu(g) * u`: `g' = min(g, L)`, `u' = clamp(u, -L, L)`,
      `act = (u' + 1) * g' * sigmoid(1.702 * g')` (1.702, the constant of
      GPT-OSS's code).

    Work (s = 1 with shared experts, else 0):
    * matrix `2*3*T*k*D*F + s*2*3*T*D*Fs` (gate, up, down matmuls);
    * transcendental `T*k*F + s*T*Fs` (the exp of silu);
    * vector `3*T*k*F + s*3*T*Fs` (silu's add and divide, the gating
      multiply; with swiglu_limit `8*T*k*F` for the routed experts: the
      three clamps, `1.702 g`, the add and divide of the sigmoid, `u' + 1`,
      the multiply) `+ T*k*D` (scale by the routing weight)
      `+ T*k*(2F + D)` with biases
      `+ T*D*(k-1+s)` (sum the k expert outputs and the shared output);
    * paramBytes: every weight operand that is a parameter (all experts);
    * bytesRead: x, indices, weights, the shared weights, and the weights of
      `A` experts, `A` = the expected number of active experts: with `p_e`
      the load fraction of expert e and `q_e = min(1, k*p_e)` the chance a
      token routes to e, `A = round(sum_e 1 - (1 - q_e)^T)`, clamped to
      `[min(k, E), E]` (a token's k experts are distinct), and with biases
      those `A` experts' biases;
    * bytesWritten: the result.

    ```mlir
    // DeepSeek-V3 MoE layer, decode of one token (8 of 256 experts active).
    %y = npu.moe_experts %x, %idx, %w, %wg, %wu, %wd shared(%sg, %su, %sd)
        load(#npu.expert_load<uniform>)
        : tensor<1x7168xbf16>, tensor<1x8xi32>, tensor<1x8xf32>,
          tensor<256x2048x7168xf8E4M3FN>, tensor<256x2048x7168xf8E4M3FN>,
          tensor<256x7168x2048xf8E4M3FN>, tensor<2048x7168xf8E4M3FN>,
          tensor<2048x7168xf8E4M3FN>, tensor<7168x2048xf8E4M3FN>
        -> tensor<1x7168xbf16>
    ```
  }];
  let arguments = (ins Npu_FloatTensor:$x,
                       Npu_IndexTensor:$indices,
                       Npu_FloatTensor:$weights,
                       Npu_FloatOrF8Tensor:$w_gate,
                       Npu_FloatOrF8Tensor:$w_up,
                       Npu_FloatOrF8Tensor:$w_down,
                       Optional<Npu_FloatOrF8Tensor>:$shared_gate,
                       Optional<Npu_FloatOrF8Tensor>:$shared_up,
                       Optional<Npu_FloatOrF8Tensor>:$shared_down,
                       Optional<Npu_FloatTensor>:$b_gate,
                       Optional<Npu_FloatTensor>:$b_up,
                       Optional<Npu_FloatTensor>:$b_down,
                       Npu_ExpertLoadAttr:$load,
                       OptionalAttr<F64Attr>:$swiglu_limit);
  let results = (outs Npu_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $indices `,` $weights `,` $w_gate `,` $w_up `,` $w_down
    (`shared` `(` $shared_gate^ `,` $shared_up `,` $shared_down `)`)?
    (`biases` `(` $b_gate^ `,` $b_up `,` $b_down `)`)?
    (`swiglu_limit` `(` $swiglu_limit^ `)`)?
    `load` `(` custom<ExpertLoad>($load) `)` attr-dict `:`
    type($x) `,` type($indices) `,` type($weights) `,` type($w_gate) `,`
    type($w_up) `,` type($w_down)
    (`,` type($shared_gate)^ `,` type($shared_up) `,` type($shared_down))?
    (`biases` type($b_gate)^ `,` type($b_up) `,` type($b_down))?
    `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumTokens() { return getX().getType().getDimSize(0); }
    int64_t getModelDim() { return getX().getType().getDimSize(1); }
    int64_t getTopK() { return getIndices().getType().getDimSize(1); }
    int64_t getNumExperts() { return getWGate().getType().getDimSize(0); }
    int64_t getFfnDim() { return getWGate().getType().getDimSize(1); }
    bool hasShared() { return static_cast<bool>(getSharedGate()); }
    bool hasBiases() { return static_cast<bool>(getBGate()); }
    /// The operands stacked over the E routed experts, of which a token
    /// reads k experts' slices: the three weights and, if given, the three
    /// biases.
    ::llvm::SmallVector<::mlir::Value, 6> getRoutedParams() {
      ::llvm::SmallVector<::mlir::Value, 6> params = {getWGate(), getWUp(),
                                                      getWDown()};
      if (hasBiases())
        params.append({getBGate(), getBUp(), getBDown()});
      return params;
    }
    /// Expected number of distinct experts the T*k assignments activate
    /// under `load` (see the description).
    int64_t getExpectedActiveExperts();
    /// The static plan the TPU-like side compiles for and prices: the
    /// expected active experts (at least one) each get ceil(T k / active)
    /// rows, the others none. npu-tpu-check-plan measures the lowering under
    /// this routing.
    int64_t getPlannedActiveExperts() {
      return std::max<int64_t>(1, getExpectedActiveExperts());
    }
    int64_t getPlannedRowsPerExpert() {
      return llvm::divideCeil(getNumTokens() * getTopK(),
                              getPlannedActiveExperts());
    }

    // `load(#npu.expert_load<...>)`, printed in full (static members, so
    // that the generated parser and printer find them).
    static ::mlir::ParseResult parseExpertLoad(::mlir::OpAsmParser &parser,
        ::mlir::npu::ExpertLoadAttr &load);
    static void printExpertLoad(::mlir::OpAsmPrinter &printer,
        ::mlir::Operation *op, ::mlir::npu::ExpertLoadAttr load);
  }];
}

#endif // NPU_DIALECT_NPU_IR_NPUMOEOPS_TD
