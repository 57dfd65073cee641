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
#include "StoredWeights.h"

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
    table = g.embedTokensWeight();
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
    Value ffn = isMoE ? moeMLP(g, f, h2) : denseMLP(g, f, h2);
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
    Value q;
    if (c.qLoraRank == 0) {
      // DeepSeek-V2-Lite: a full-rank q_proj.
      q = g.linear(
          h, linearWeight(g, f, "self_attn.q_proj.weight", {hq * dqk, d}));
    } else {
      Value qa = g.linear(
          h, linearWeight(g, f, "self_attn.q_a_proj.weight", {c.qLoraRank, d}));
      qa = g.rmsNorm(qa, f.param("self_attn.q_a_layernorm.weight",
                                 g.tensor({c.qLoraRank}, g.small)));
      q = g.linear(qa, linearWeight(g, f, "self_attn.q_b_proj.weight",
                                    {hq * dqk, c.qLoraRank}));
    }
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
    Value kva =
        g.linear(h, linearWeight(g, f, "self_attn.kv_a_proj_with_mqa.weight",
                                 {c.kvLoraRank + c.qkRopeHeadDim, d}));
    Value ckv = g.rmsNorm(g.slice(kva, 2, 0, c.kvLoraRank),
                          f.param("self_attn.kv_a_layernorm.weight",
                                  g.tensor({c.kvLoraRank}, g.small)));
    Value kPe = g.slice(kva, 2, c.kvLoraRank, c.qkRopeHeadDim);
    ckv = g.reshape(ckv, {g.batch, 1, g.seq, c.kvLoraRank});
    kPe = g.rope(g.reshape(kPe, {g.batch, 1, g.seq, c.qkRopeHeadDim}),
                 /*interleaved=*/true);
    return {ckv, kPe};
  }

  /// W_UK and W_UV [H (dn + dv), r], which decode splits per head and
  /// slices (absorbed into the query and the output): stored with its
  /// scales when its row blocks fall on head and dn boundaries (128 x 128
  /// blocks with dn = dv = 128: DeepSeek-V2/V3, Kimi-K2), else in fp8 or
  /// the weight type without scales (docs/formats.md).
  StoredParam kvUpProjection(GraphBuilder &g, LayerFunc &f) {
    const ModelConfig &c = g.cfg;
    int64_t dn = c.qkNopeHeadDim, dv = c.vHeadDim;
    SmallVector<int64_t, 2> shape = {c.numHeads * (dn + dv), c.kvLoraRank};
    int64_t rows = g.format.expertsOnly ? 1 : g.format.blockOut;
    if ((dn + dv) % rows == 0 && dn % rows == 0)
      return storedParam(g, f, "self_attn.kv_b_proj.weight", shape);
    Type type = g.format.kind == WeightFormat::Fp8Block
                    ? Float8E4M3FNType::get(g.b.getContext())
                    : g.weight;
    return {f.param("self_attn.kv_b_proj.weight", g.tensor(shape, type)),
            {},
            {},
            {}};
  }

  Value outProjection(GraphBuilder &g, LayerFunc &f, Value o) {
    const ModelConfig &c = g.cfg;
    return g.linear(g.mergeHeads(o),
                    linearWeight(g, f, "self_attn.o_proj.weight",
                                 {c.hiddenSize, c.numHeads * c.vHeadDim}));
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
    Value kv = g.splitHeads(g.linear(ckv3, useParam(g, kvUpProjection(g, f))),
                            hq, dn + dv);
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
    StoredParam wkvb = splitRows(g, kvUpProjection(g, f), dn + dv);
    Value wUK = useParam(g, sliceParam(g, wkvb, 1, 0, dn));  // [H, dn, r]
    Value wUV = useParam(g, sliceParam(g, wkvb, 1, dn, dv)); // [H, dv, r]
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

  Value moeMLP(GraphBuilder &g, LayerFunc &f, Value h) {
    MoENames names;
    names.router = "mlp.gate.weight";
    if (g.cfg.scoreCorrectionBias)
      names.bias = "mlp.gate.e_score_correction_bias";
    names.experts = "mlp.experts";
    names.shared = "mlp.shared_experts";
    return moeBlock(g, f, h, names);
  }

  std::unique_ptr<LayerFunc> dense, moe;
  int64_t firstDense = 0;
  Value table, lmHeadWeight;
};
} // namespace

std::unique_ptr<Family> mlir::npu::import::createDeepSeekV3Family() {
  return std::make_unique<DeepSeekV3Family>();
}
