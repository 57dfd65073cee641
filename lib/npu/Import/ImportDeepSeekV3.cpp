//===- ImportDeepSeekV3.cpp - DeepSeek-V3 layers (MLA, MoE, MTP) ----------===//
//
// Prefill uses MLA's naive form (up-project the latent to per-head K and V,
// then ordinary attention with q/k head dim 192 and v head dim 128), which
// costs the fewest FLOPs when many queries share the keys. Decode uses the
// absorbed form (FlashMLA): W_UK is folded into the query and W_UV applied
// after attention, so attention runs directly on the cached latent
// [c_kv ; k_rope] (576 wide) as MQA with a 512-wide value.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

namespace {
class DeepSeekV3Family : public Family {
public:
  void buildLayerKinds(OpBuilder &mb, GraphBuilder &g) override {
    firstDense = g.cfg.firstDenseLayers;
    if (g.cfg.firstDenseLayers > 0)
      dense = buildLayer(mb, g, "deepseek_dense_layer", /*moe=*/false);
    if (g.cfg.firstDenseLayers < g.cfg.numLayers || g.opts.includeMTP)
      moe = buildLayer(mb, g, "deepseek_moe_layer", /*moe=*/true);
  }

  LayerFunc &kindOf(int64_t i) override {
    return i < firstDense ? *dense : *moe;
  }
  unsigned cachesPerLayer() const override { return 1; }
  /// The MLA cache holds the compressed latent and the shared RoPE key:
  /// [B, 1, T, kv_lora_rank + qk_rope_head_dim].
  RankedTensorType cacheType(GraphBuilder &g) const override {
    return g.tensor(
        {g.batch, 1, g.past + g.seq, g.cfg.kvLoraRank + g.cfg.qkRopeHeadDim},
        g.kvCache);
  }

  Value embed(GraphBuilder &g, Value tokens) override {
    table = WeightOp::create(
        g.b, g.loc, g.tensor({g.cfg.vocabSize, g.cfg.hiddenSize}, g.small),
        "model.embed_tokens.weight");
    return g.embedding(table, tokens);
  }

  Value head(GraphBuilder &g, Value hidden) override {
    // One statement per op: a call's arguments are evaluated in an
    // unspecified order, which would make the op order compiler-dependent.
    Value norm = g.rmsNorm(hidden, normWeight(g, "model.norm.weight"));
    return g.linear(norm, lmHead(g));
  }

  /// The multi-token-prediction module (prefill only): combine the
  /// normalized next-token embeddings with the normalized main-model hidden
  /// states, run one MoE decoder layer, and predict with the shared head.
  unsigned numExtraCaches(GraphBuilder &g) const override {
    return g.opts.includeMTP ? 1 : 0;
  }
  SmallVector<Value> extraOutputs(GraphBuilder &g, Value hidden, Value tokens,
                                  Value pos, ValueRange caches) override {
    if (!g.opts.includeMTP)
      return {};
    int64_t d = g.cfg.hiddenSize;
    std::string prefix =
        "model.layers." + std::to_string(g.cfg.numLayers) + ".";
    Value emb = g.embedding(table, tokens);
    Value e = g.rmsNorm(emb, normWeight(g, prefix + "enorm.weight"));
    Value h = g.rmsNorm(hidden, normWeight(g, prefix + "hnorm.weight"));
    Value proj = WeightOp::create(g.b, g.loc, g.tensor({d, 2 * d}, g.weight),
                                  prefix + "eh_proj.weight");
    Value x = g.linear(g.concat({e, h}, 2), proj);
    SmallVector<Value> args = {x, pos, caches[0]};
    args.append(createWeights(g.b, g.loc, prefix, moe->params()));
    auto call = func::CallOp::create(g.b, g.loc, moe->getFunc(), args);
    Value last = g.slice(call.getResult(0), 1, g.seq - 1, 1);
    Value normed =
        g.rmsNorm(last, normWeight(g, prefix + "shared_head.norm.weight"));
    Value logits = g.linear(normed, lmHead(g));
    return {logits, call.getResult(1)};
  }

private:
  Value normWeight(GraphBuilder &g, const std::string &name) {
    return WeightOp::create(g.b, g.loc, g.tensor({g.cfg.hiddenSize}, g.small),
                            name);
  }
  Value lmHead(GraphBuilder &g) {
    if (g.cfg.tieEmbeddings)
      return table;
    if (!lmHeadWeight)
      lmHeadWeight = WeightOp::create(
          g.b, g.loc, g.tensor({g.cfg.vocabSize, g.cfg.hiddenSize}, g.head),
          "lm_head.weight");
    return lmHeadWeight;
  }

  std::unique_ptr<LayerFunc> buildLayer(OpBuilder &mb, GraphBuilder &g,
                                        StringRef name, bool isMoE) {
    const ModelConfig &c = g.cfg;
    int64_t d = c.hiddenSize;
    bool decode = g.opts.phase == Phase::Decode;
    SmallVector<Type> lead = {g.tensor({g.batch, g.seq, d}, g.act)};
    // Both phases write the latent cache; decode attends over all of it.
    lead.append({mb.getIndexType(), cacheType(g)});
    auto layer = std::make_unique<LayerFunc>(mb, g.loc, name, lead);
    g.b.setInsertionPointToEnd(&layer->getFunc().front());
    LayerFunc &f = *layer;
    Value x = f.arg(0);
    SmallVector<Value> results;
    Value h =
        g.rmsNorm(x, f.param("input_layernorm.weight", g.tensor({d}, g.small)));
    Value attn =
        decode ? mlaDecode(g, f, h, results) : mlaPrefill(g, f, h, results);
    Value r1 = g.add(x, attn);
    Value h2 = g.rmsNorm(
        r1, f.param("post_attention_layernorm.weight", g.tensor({d}, g.small)));
    Value ffn = isMoE ? moeBlock(g, f, h2) : denseMLP(g, f, h2);
    results.insert(results.begin(), g.add(r1, ffn));
    layer->finish(mb, results);
    return layer;
  }

  /// Query path shared by both forms: low-rank q, split into the no-RoPE and
  /// RoPE parts, RoPE applied. Returns {q_nope, q_pe}, each [B, H, S, *].
  std::pair<Value, Value> queries(GraphBuilder &g, LayerFunc &f, Value h) {
    const ModelConfig &c = g.cfg;
    int64_t d = c.hiddenSize, hq = c.numHeads;
    int64_t dqk = c.qkNopeHeadDim + c.qkRopeHeadDim;
    Value qa = g.linear(h, f.param("self_attn.q_a_proj.weight",
                                   g.tensor({c.qLoraRank, d}, g.weight)));
    qa = g.rmsNorm(qa, f.param("self_attn.q_a_layernorm.weight",
                               g.tensor({c.qLoraRank}, g.small)));
    Value q =
        g.linear(qa, f.param("self_attn.q_b_proj.weight",
                             g.tensor({hq * dqk, c.qLoraRank}, g.weight)));
    q = g.splitHeads(q, hq, dqk);
    Value qNope = g.slice(q, 3, 0, c.qkNopeHeadDim);
    Value qPe = g.rope(g.slice(q, 3, c.qkNopeHeadDim, c.qkRopeHeadDim),
                       /*interleaved=*/true);
    return {qNope, qPe};
  }

  /// The compressed KV path: [c_kv (normalized) ; k_pe (RoPE'd)] as
  /// [B, 1, S, kv_lora_rank], [B, 1, S, qk_rope_head_dim].
  std::pair<Value, Value> latent(GraphBuilder &g, LayerFunc &f, Value h) {
    const ModelConfig &c = g.cfg;
    int64_t d = c.hiddenSize;
    Value kva = g.linear(
        h, f.param("self_attn.kv_a_proj_with_mqa.weight",
                   g.tensor({c.kvLoraRank + c.qkRopeHeadDim, d}, g.weight)));
    Value ckv = g.rmsNorm(g.slice(kva, 2, 0, c.kvLoraRank),
                          f.param("self_attn.kv_a_layernorm.weight",
                                  g.tensor({c.kvLoraRank}, g.small)));
    Value kPe = g.slice(kva, 2, c.kvLoraRank, c.qkRopeHeadDim);
    ckv = g.reshape(ckv, {g.batch, 1, g.seq, c.kvLoraRank});
    kPe = g.rope(g.reshape(kPe, {g.batch, 1, g.seq, c.qkRopeHeadDim}),
                 /*interleaved=*/true);
    return {ckv, kPe};
  }

  Value kvUpProjection(GraphBuilder &g, LayerFunc &f) {
    const ModelConfig &c = g.cfg;
    return f.param(
        "self_attn.kv_b_proj.weight",
        g.tensor({c.numHeads * (c.qkNopeHeadDim + c.vHeadDim), c.kvLoraRank},
                 g.weight));
  }

  Value outProjection(GraphBuilder &g, LayerFunc &f, Value o) {
    const ModelConfig &c = g.cfg;
    return g.linear(
        g.mergeHeads(o),
        f.param("self_attn.o_proj.weight",
                g.tensor({c.hiddenSize, c.numHeads * c.vHeadDim}, g.weight)));
  }

  Value mlaPrefill(GraphBuilder &g, LayerFunc &f, Value h,
                   SmallVector<Value> &caches) {
    const ModelConfig &c = g.cfg;
    int64_t hq = c.numHeads, dn = c.qkNopeHeadDim, dv = c.vHeadDim;
    auto [qNope, qPe] = queries(g, f, h);
    auto [ckv, kPe] = latent(g, f, h);
    caches.push_back(
        g.appendCache(f.arg(2), g.concat({ckv, kPe}, 3), f.arg(1)));
    // Up-project the latent to per-head keys (no-RoPE part) and values.
    Value ckv3 = g.reshape(ckv, {g.batch, g.seq, c.kvLoraRank});
    Value kv = g.splitHeads(g.linear(ckv3, kvUpProjection(g, f)), hq, dn + dv);
    Value kNope = g.slice(kv, 3, 0, dn);
    Value v = g.slice(kv, 3, dn, dv);
    // The RoPE key is shared by all heads.
    auto peType = g.tensor({g.batch, hq, g.seq, c.qkRopeHeadDim}, g.act);
    Value kPeHeads = BroadcastOp::create(g.b, g.loc, peType, kPe);
    Value q = g.concat({qNope, qPe}, 3);
    Value k = g.concat({kNope, kPeHeads}, 3);
    Value o = g.attention(q, k, v, std::nullopt,
                          1.0 / std::sqrt(double(dn + c.qkRopeHeadDim)));
    return outProjection(g, f, o);
  }

  Value mlaDecode(GraphBuilder &g, LayerFunc &f, Value h,
                  SmallVector<Value> &caches) {
    const ModelConfig &c = g.cfg;
    int64_t hq = c.numHeads, dn = c.qkNopeHeadDim, dv = c.vHeadDim;
    int64_t r = c.kvLoraRank, bsz = g.batch;
    OpBuilder &b = g.b;
    auto [qNope, qPe] = queries(g, f, h);
    auto [ckv, kPe] = latent(g, f, h);
    Value cache = g.appendCache(f.arg(2), g.concat({ckv, kPe}, 3), f.arg(1));
    caches.push_back(cache);
    Value kv = g.readCache(cache);
    // Absorb W_UK into the query: q_lat[h] = q_nope[h] · W_UK[h].
    Value wkvb = g.reshape(kvUpProjection(g, f), {hq, dn + dv, r});
    Value wUK = g.slice(wkvb, 1, 0, dn);  // [H, dn, r]
    Value wUV = g.slice(wkvb, 1, dn, dv); // [H, dv, r]
    Value qn = g.reshape(g.transpose(qNope, {1, 0, 2, 3}), {hq, bsz, dn});
    Value qLat = MatmulOp::create(b, g.loc, g.tensor({hq, bsz, r}, g.act), qn,
                                  wUK, false, false, nullptr);
    qLat = g.transpose(g.reshape(qLat, {hq, bsz, 1, r}), {1, 0, 2, 3});
    Value q = g.concat({qLat, qPe}, 3); // [B, H, 1, r + rope]
    Value oLat = g.attention(q, kv, Value(), r,
                             1.0 / std::sqrt(double(dn + c.qkRopeHeadDim)));
    // Apply W_UV per head: o[h] = o_lat[h] · W_UV[h]^T.
    Value ol = g.reshape(g.transpose(oLat, {1, 0, 2, 3}), {hq, bsz, r});
    Value o = MatmulOp::create(b, g.loc, g.tensor({hq, bsz, dv}, g.act), ol,
                               wUV, false, true, nullptr);
    o = g.transpose(g.reshape(o, {hq, bsz, 1, dv}), {1, 0, 2, 3});
    return outProjection(g, f, o);
  }

  Value denseMLP(GraphBuilder &g, LayerFunc &f, Value h) {
    return swigluMLP(g, f, h, "mlp", g.cfg.intermediateSize);
  }

  /// SwiGLU MLP of width `ff` whose weights are named `prefix`.*.
  Value swigluMLP(GraphBuilder &g, LayerFunc &f, Value x, StringRef prefix,
                  int64_t ff) {
    int64_t d = g.cfg.hiddenSize;
    auto name = [&](StringRef w) { return (prefix + "." + w).str(); };
    Value gate = g.linear(
        x, f.param(name("gate_proj.weight"), g.tensor({ff, d}, g.weight)));
    Value up = g.linear(
        x, f.param(name("up_proj.weight"), g.tensor({ff, d}, g.weight)));
    Value act = SwigluOp::create(g.b, g.loc, gate.getType(), gate, up);
    return g.linear(
        act, f.param(name("down_proj.weight"), g.tensor({d, ff}, g.weight)));
  }

  /// The routed experts take the tokens' k routed rows each; the shared
  /// experts run on every token. On one chip of an expert-parallel group of
  /// `ep` chips (ImportOptions::expertParallel, attention data-parallel),
  /// its E' = ceil(E/ep) experts take, on average, as many routed rows as
  /// the chip has tokens times k (each chip dispatches T k rows and receives
  /// as many). Where E' < k a token cannot pick k distinct local experts: the
  /// rows are laid as m = ceil(k/E') copies of the tokens, each routed to
  /// k' = ceil(k/m) <= E' experts (m k' >= k rows per token, the same work
  /// within rounding), and the routed result keeps the first copy. Without
  /// expert parallelism (ep = 1) E' = E, m = 1, k' = k, the router keeps its
  /// expert groups and the shared experts are fused into the op.
  Value moeBlock(GraphBuilder &g, LayerFunc &f, Value h) {
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
    Value logits = g.linear(
        rows, f.param("mlp.gate.weight", g.tensor({e, d}, g.small)), f32);
    Value bias =
        f.param("mlp.gate.e_score_correction_bias", g.tensor({e}, f32));
    // Group-limited routing picks experts; on one chip of an EP group it
    // does not change their work.
    int64_t groups = ep == 1 ? c.numGroups : 1,
            topkGroups = ep == 1 ? c.topkGroups : 1;
    auto route = MoERouterOp::create(
        b, g.loc, g.tensor({n, k}, b.getI32Type()), g.tensor({n, k}, f32),
        logits, bias, b.getI64IntegerAttr(k),
        ScoringFuncAttr::get(b.getContext(), c.sigmoidScoring
                                                 ? ScoringFunc::Sigmoid
                                                 : ScoringFunc::Softmax),
        b.getI64IntegerAttr(groups), b.getI64IntegerAttr(topkGroups),
        c.normTopkProb ? b.getUnitAttr() : nullptr,
        b.getF64FloatAttr(c.routedScalingFactor));
    // Experts are stacked [E, ...] (the checkpoint stores one tensor per
    // expert, mlp.experts.<j>.*; the bytes are the same).
    Value wg =
        f.param("mlp.experts.gate_proj.weight", g.tensor({e, ff, d}, g.weight));
    Value wu =
        f.param("mlp.experts.up_proj.weight", g.tensor({e, ff, d}, g.weight));
    Value wd =
        f.param("mlp.experts.down_proj.weight", g.tensor({e, d, ff}, g.weight));
    Value sg, su, sd;
    int64_t fs = c.numSharedExperts * ff;
    if (fs > 0 && ep == 1) {
      sg = f.param("mlp.shared_experts.gate_proj.weight",
                   g.tensor({fs, d}, g.weight));
      su = f.param("mlp.shared_experts.up_proj.weight",
                   g.tensor({fs, d}, g.weight));
      sd = f.param("mlp.shared_experts.down_proj.weight",
                   g.tensor({d, fs}, g.weight));
    }
    auto load = ExpertLoadAttr::get(b.getContext(), LoadKind::Uniform,
                                    DenseF64ArrayAttr());
    Value y = MoEExpertsOp::create(b, g.loc, g.tensor({n, d}, g.act), rows,
                                   route.getIndices(), route.getWeights(), wg,
                                   wu, wd, sg, su, sd, load);
    if (m > 1)
      y = g.slice(y, 0, 0, tokens);
    if (fs > 0 && ep > 1)
      y = g.add(y, swigluMLP(g, f, x, "mlp.shared_experts", fs));
    return g.reshape(y, {g.batch, g.seq, d});
  }

  std::unique_ptr<LayerFunc> dense, moe;
  int64_t firstDense = 0;
  Value table, lmHeadWeight;
};
} // namespace

std::unique_ptr<Family> mlir::npu::import::createDeepSeekV3Family() {
  return std::make_unique<DeepSeekV3Family>();
}
