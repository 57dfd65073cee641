//===- ImportMoE.cpp - SwiGLU MLPs and MoE blocks, for every family -------===//
//
// The MLP builders the decoder families share: a SwiGLU MLP (separate or
// fused gate/up weights) and an MoE block (npu.moe_router then
// npu.moe_experts), which DeepSeek-V2/V3, Kimi-K2, Mixtral and Qwen3-MoE
// differ in only by their routing fields and weight names.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"
#include "StoredWeights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

Value mlir::npu::import::swigluMLP(GraphBuilder &g, LayerFunc &f, Value x,
                                   StringRef prefix, int64_t ff, bool fused,
                                   GatedActivation act, bool expert) {
  int64_t d = g.cfg.hiddenSize;
  auto name = [&](StringRef w) { return (prefix + "." + w).str(); };
  Value gate, up;
  if (fused) {
    // One [2 ff, D] matrix (Phi-3's gate_up_proj): one GEMM, then the halves.
    Value gu = g.linear(
        x, linearWeight(g, f, name("gate_up_proj.weight"), {2 * ff, d}));
    int64_t last = GraphBuilder::shapeOf(gu).size() - 1;
    gate = g.slice(gu, last, 0, ff);
    up = g.slice(gu, last, ff, ff);
  } else {
    gate = g.linear(
        x, linearWeight(g, f, name("gate_proj.weight"), {ff, d}, expert));
    up = g.linear(x,
                  linearWeight(g, f, name("up_proj.weight"), {ff, d}, expert));
  }
  Value hidden = SwigluOp::create(g.b, g.loc, gate.getType(), gate, up, act);
  return g.linear(
      hidden, linearWeight(g, f, name("down_proj.weight"), {d, ff}, expert));
}

/// The routed experts take the tokens' k routed rows each; the shared
/// experts run on every token. On one chip of an expert-parallel group of
/// `ep` chips (ImportOptions::expertParallel, attention data-parallel), its
/// E' = ceil(E/ep) experts take, on average, as many routed rows as the chip
/// has tokens times k (each chip dispatches T k rows and receives as many).
/// Where E' < k a token cannot pick k distinct local experts: the rows are
/// laid as m = ceil(k/E') copies of the tokens, each routed to
/// k' = ceil(k/m) <= E' experts (m k' >= k rows per token, the same work
/// within rounding), and the routed result keeps the first copy. Without
/// expert parallelism (ep = 1) E' = E, m = 1, k' = k, the router keeps its
/// expert groups and the shared experts are fused into the op.
Value mlir::npu::import::moeBlock(GraphBuilder &g, LayerFunc &f, Value h,
                                  const MoENames &names) {
  const ModelConfig &c = g.cfg;
  OpBuilder &b = g.b;
  int64_t d = c.hiddenSize, ff = c.moeIntermediateSize;
  int64_t tokens = g.batch * g.seq, ep = g.opts.expertParallel;
  int64_t e = llvm::divideCeil(c.numRoutedExperts, ep);
  int64_t m = llvm::divideCeil(c.numExpertsPerToken, e);
  int64_t k = llvm::divideCeil(c.numExpertsPerToken, m), n = tokens * m;
  Type f32 = b.getF32Type();
  Value x = g.reshape(h, {tokens, d});
  Value rows = m == 1 ? x : g.concat(SmallVector<Value>(m, x), 0);
  Value logits =
      g.linear(rows, f.param(names.router, g.tensor({e, d}, g.small)), f32);
  if (!names.routerBias.empty())
    logits = g.add(logits, f.param(names.routerBias, g.tensor({e}, f32)));
  Value bias;
  if (!names.bias.empty())
    bias = f.param(names.bias, g.tensor({e}, f32));
  // Group-limited routing picks experts; on one chip of an EP group it does
  // not change their work. One group is plain top-k.
  bool groups = ep == 1 && c.numGroups > 1;
  auto route = MoERouterOp::create(
      b, g.loc, g.tensor({n, k}, b.getI32Type()), g.tensor({n, k}, f32), logits,
      bias, b.getI64IntegerAttr(k),
      ScoringFuncAttr::get(b.getContext(), c.sigmoidScoring
                                               ? ScoringFunc::Sigmoid
                                               : ScoringFunc::Softmax),
      groups ? b.getI64IntegerAttr(c.numGroups) : IntegerAttr(),
      groups ? b.getI64IntegerAttr(c.topkGroups) : IntegerAttr(),
      b.getI64IntegerAttr(groups ? c.groupScoreTop : 2),
      c.normTopkProb ? b.getUnitAttr() : nullptr,
      b.getF64FloatAttr(c.routedScalingFactor));
  // Experts are stacked [E, ...] (the checkpoint stores one tensor per
  // expert, <experts>.<j>.*; the bytes are the same).
  auto expert = [&](StringRef w) { return (names.experts + "." + w).str(); };
  Value wg, wu, bg, bu, bd;
  if (names.gateUp.empty()) {
    wg = linearWeight(g, f, expert(names.gate), {e, ff, d}, true);
    wu = linearWeight(g, f, expert(names.up), {e, ff, d}, true);
  } else {
    // Gate and up interleaved in one matrix: even rows gate, odd rows up
    // (a stored format's scales sliced with them).
    StoredParam wgu =
        storedParam(g, f, expert(names.gateUp), {e, 2 * ff, d}, true);
    int64_t stride = names.gateUpHalves ? 1 : 2;
    wg = useParam(g, sliceParam(g, wgu, 1, 0, ff, stride));
    wu = useParam(
        g, sliceParam(g, wgu, 1, names.gateUpHalves ? ff : 1, ff, stride));
  }
  Value wd = linearWeight(g, f, expert(names.down), {e, d, ff}, true);
  if (!names.gateUpBias.empty()) {
    Value bgu =
        f.param(expert(names.gateUpBias), g.tensor({e, 2 * ff}, g.small));
    bg = g.slice(bgu, 1, 0, ff, 2);
    bu = g.slice(bgu, 1, 1, ff, 2);
    bd = f.param(expert(names.downBias), g.tensor({e, d}, g.small));
  }
  // Llama-4 weights each routed row by its score before the expert (the
  // expert then adds it unweighted: weight 1), so the shared expert, which
  // takes the unweighted row, runs beside the op.
  Value routed = rows, weights = route.getWeights();
  if (c.routerWeightsInput) {
    routed = MulOp::create(b, g.loc, rows.getType(), rows, weights);
    weights = arith::ConstantOp::create(
        b, g.loc,
        DenseElementsAttr::get(g.tensor({n, k}, f32), b.getF32FloatAttr(1.0)));
  }
  bool fuseShared = ep == 1 && !c.routerWeightsInput;
  Value sg, su, sd;
  int64_t fs = names.shared.empty() ? 0 : c.numSharedExperts * ff;
  auto shared = [&](StringRef w) { return (names.shared + "." + w).str(); };
  if (fs > 0 && fuseShared) {
    sg = linearWeight(g, f, shared("gate_proj.weight"), {fs, d}, true);
    su = linearWeight(g, f, shared("up_proj.weight"), {fs, d}, true);
    sd = linearWeight(g, f, shared("down_proj.weight"), {d, fs}, true);
  }
  auto load = ExpertLoadAttr::get(b.getContext(), LoadKind::Uniform,
                                  DenseF64ArrayAttr());
  Value y = MoEExpertsOp::create(
      b, g.loc, g.tensor({n, d}, g.act), routed, route.getIndices(), weights,
      wg, wu, wd, sg, su, sd, bg, bu, bd, load,
      c.swigluLimit > 0 ? b.getF64FloatAttr(c.swigluLimit) : FloatAttr());
  if (m > 1)
    y = g.slice(y, 0, 0, tokens);
  if (fs > 0 && !fuseShared)
    y = g.add(y, swigluMLP(g, f, x, names.shared, fs, /*fused=*/false,
                           GatedActivation::Silu, /*expert=*/true));
  return g.reshape(y, {g.batch, g.seq, d});
}
