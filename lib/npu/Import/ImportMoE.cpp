//===- ImportMoE.cpp - SwiGLU MLPs and MoE blocks, for every family -------===//
//
// The MLP builders the decoder families share: a SwiGLU MLP (separate or
// fused gate/up weights) and an MoE block (npu.moe_router then
// npu.moe_experts), which DeepSeek-V2/V3, Kimi-K2, Mixtral and Qwen3-MoE
// differ in only by their routing fields and weight names.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

Value mlir::npu::import::swigluMLP(GraphBuilder &g, LayerFunc &f, Value x,
                                   StringRef prefix, int64_t ff, bool fused,
                                   GatedActivation act) {
  int64_t d = g.cfg.hiddenSize;
  auto name = [&](StringRef w) { return (prefix + "." + w).str(); };
  Value gate, up;
  if (fused) {
    // One [2 ff, D] matrix (Phi-3's gate_up_proj): one GEMM, then the halves.
    Value gu = g.linear(x, f.param(name("gate_up_proj.weight"),
                                   g.tensor({2 * ff, d}, g.weight)));
    int64_t last = GraphBuilder::shapeOf(gu).size() - 1;
    gate = g.slice(gu, last, 0, ff);
    up = g.slice(gu, last, ff, ff);
  } else {
    gate = g.linear(
        x, f.param(name("gate_proj.weight"), g.tensor({ff, d}, g.weight)));
    up = g.linear(x,
                  f.param(name("up_proj.weight"), g.tensor({ff, d}, g.weight)));
  }
  Value hidden = SwigluOp::create(g.b, g.loc, gate.getType(), gate, up, act);
  return g.linear(
      hidden, f.param(name("down_proj.weight"), g.tensor({d, ff}, g.weight)));
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
    wg = f.param(expert(names.gate), g.tensor({e, ff, d}, g.weight));
    wu = f.param(expert(names.up), g.tensor({e, ff, d}, g.weight));
  } else {
    // Gate and up interleaved in one matrix: even rows gate, odd rows up.
    Value wgu =
        f.param(expert(names.gateUp), g.tensor({e, 2 * ff, d}, g.weight));
    wg = g.slice(wgu, 1, 0, ff, 2);
    wu = g.slice(wgu, 1, 1, ff, 2);
  }
  Value wd = f.param(expert(names.down), g.tensor({e, d, ff}, g.weight));
  if (!names.gateUpBias.empty()) {
    Value bgu =
        f.param(expert(names.gateUpBias), g.tensor({e, 2 * ff}, g.small));
    bg = g.slice(bgu, 1, 0, ff, 2);
    bu = g.slice(bgu, 1, 1, ff, 2);
    bd = f.param(expert(names.downBias), g.tensor({e, d}, g.small));
  }
  Value sg, su, sd;
  int64_t fs = names.shared.empty() ? 0 : c.numSharedExperts * ff;
  auto shared = [&](StringRef w) { return (names.shared + "." + w).str(); };
  if (fs > 0 && ep == 1) {
    sg = f.param(shared("gate_proj.weight"), g.tensor({fs, d}, g.weight));
    su = f.param(shared("up_proj.weight"), g.tensor({fs, d}, g.weight));
    sd = f.param(shared("down_proj.weight"), g.tensor({d, fs}, g.weight));
  }
  auto load = ExpertLoadAttr::get(b.getContext(), LoadKind::Uniform,
                                  DenseF64ArrayAttr());
  Value y = MoEExpertsOp::create(
      b, g.loc, g.tensor({n, d}, g.act), rows, route.getIndices(),
      route.getWeights(), wg, wu, wd, sg, su, sd, bg, bu, bd, load,
      c.swigluLimit > 0 ? b.getF64FloatAttr(c.swigluLimit) : FloatAttr());
  if (m > 1)
    y = g.slice(y, 0, 0, tokens);
  if (fs > 0 && ep > 1)
    y = g.add(y, swigluMLP(g, f, x, names.shared, fs));
  return g.reshape(y, {g.batch, g.seq, d});
}
