//===- ImportLlama.cpp - Llama-style decoder layers -----------------------===//
//
// Pre-norm decoders with GQA, RoPE and a SwiGLU MLP, and the variants of the
// model types built on them: projection biases (Qwen2, Llama
// attention_bias), RMSNorm of each query and key head before RoPE (Qwen3),
// a sliding window in some or all layers (Mistral, Phi-3, Qwen2/3 with
// use_sliding_window), fused qkv/gate_up weights (Phi-3) and routed experts
// in place of the MLP (Mixtral, Qwen3-MoE). One function per distinct layer
// kind (windowed or not).
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

namespace {
class LlamaFamily : public Family {
public:
  void buildLayerKinds(OpBuilder &mb, GraphBuilder &g) override {
    const ModelConfig &c = g.cfg;
    bool anyFull = c.slidingWindow == 0 || c.firstWindowLayer > 0;
    bool anyWindowed = c.slidingWindow > 0 && c.firstWindowLayer < c.numLayers;
    std::string type = c.modelType;
    firstWindowLayer = c.firstWindowLayer;
    if (anyFull)
      full = buildLayer(mb, g, type + "_layer", /*window=*/0);
    if (anyWindowed)
      windowed =
          buildLayer(mb, g, type + (anyFull ? "_sliding_layer" : "_layer"),
                     c.slidingWindow);
  }

  LayerFunc &kindOf(int64_t i) override {
    return windowed && (!full || i >= firstWindowLayer) ? *windowed : *full;
  }
  unsigned cachesPerLayer() const override { return 2; }
  RankedTensorType cacheType(GraphBuilder &g) const override {
    return g.tensor({g.batch, g.cfg.numKVHeads, g.past + g.seq, g.cfg.headDim},
                    g.kvCache);
  }

  Value embed(GraphBuilder &g, Value tokens) override {
    table = WeightOp::create(
        g.b, g.loc, g.tensor({g.cfg.vocabSize, g.cfg.hiddenSize}, g.small),
        "model.embed_tokens.weight");
    return g.embedding(table, tokens);
  }

  Value head(GraphBuilder &g, Value hidden) override {
    int64_t d = g.cfg.hiddenSize;
    Value norm = WeightOp::create(g.b, g.loc, g.tensor({d}, g.small),
                                  "model.norm.weight");
    Value lmHead = g.cfg.tieEmbeddings
                       ? table
                       : WeightOp::create(
                             g.b, g.loc, g.tensor({g.cfg.vocabSize, d}, g.head),
                             "lm_head.weight")
                             .getResult();
    return g.linear(g.rmsNorm(hidden, norm), lmHead);
  }

private:
  std::unique_ptr<LayerFunc> buildLayer(OpBuilder &mb, GraphBuilder &g,
                                        const std::string &name,
                                        int64_t window) {
    const ModelConfig &c = g.cfg;
    int64_t d = c.hiddenSize;
    // Both phases write the KV cache (prefill fills it for the decode steps
    // that follow); decode then attends over the cache.
    SmallVector<Type> lead = {g.tensor({g.batch, g.seq, d}, g.act)};
    lead.append({mb.getIndexType(), cacheType(g), cacheType(g)});
    auto layer = std::make_unique<LayerFunc>(mb, g.loc, name, lead);
    g.b.setInsertionPointToEnd(&layer->getFunc().front());
    LayerFunc &f = *layer;
    Value x = f.arg(0);
    SmallVector<Value> results;
    Value h =
        g.rmsNorm(x, f.param("input_layernorm.weight", g.tensor({d}, g.small)));
    Value r1 = g.add(x, attention(g, f, h, window, results));
    Value h2 = g.rmsNorm(
        r1, f.param("post_attention_layernorm.weight", g.tensor({d}, g.small)));
    results.insert(results.begin(), g.add(r1, mlp(g, f, h2)));
    layer->finish(mb, results);
    return layer;
  }

  /// GQA with RoPE; appends the updated K and V caches to `caches`.
  Value attention(GraphBuilder &g, LayerFunc &f, Value h, int64_t window,
                  SmallVector<Value> &caches) {
    const ModelConfig &c = g.cfg;
    int64_t d = c.hiddenSize, hd = c.headDim;
    int64_t hq = c.numHeads, hkv = c.numKVHeads;
    auto biased = [&](Value y, StringRef name, int64_t width, bool bias) {
      if (!bias)
        return y;
      return g.add(y, f.param(("self_attn." + name + ".bias").str(),
                              g.tensor({width}, g.small)));
    };
    Value q, k, v;
    if (c.fusedProjections) {
      // One [(Hq + 2 Hkv) hd, D] matrix (Phi-3's qkv_proj): one GEMM.
      Value qkv =
          g.linear(h, f.param("self_attn.qkv_proj.weight",
                              g.tensor({(hq + 2 * hkv) * hd, d}, g.weight)));
      q = g.slice(qkv, 2, 0, hq * hd);
      k = g.slice(qkv, 2, hq * hd, hkv * hd);
      v = g.slice(qkv, 2, (hq + hkv) * hd, hkv * hd);
    } else {
      auto proj = [&](StringRef name, int64_t heads) {
        Value w = f.param(("self_attn." + name + ".weight").str(),
                          g.tensor({heads * hd, d}, g.weight));
        return biased(g.linear(h, w), name, heads * hd, c.qkvBias);
      };
      q = proj("q_proj", hq);
      k = proj("k_proj", hkv);
      v = proj("v_proj", hkv);
    }
    q = g.splitHeads(q, hq, hd);
    k = g.splitHeads(k, hkv, hd);
    v = g.splitHeads(v, hkv, hd);
    if (c.qkNorm) {
      // Qwen3: RMSNorm over each head's features, before RoPE.
      q = g.rmsNorm(
          q, f.param("self_attn.q_norm.weight", g.tensor({hd}, g.small)));
      k = g.rmsNorm(
          k, f.param("self_attn.k_norm.weight", g.tensor({hd}, g.small)));
    }
    q = g.rope(q, /*interleaved=*/false);
    k = g.rope(k, /*interleaved=*/false);
    // Both phases write the new keys and values into the cache; decode then
    // attends over the cached rows, and with a window only the last
    // `window` of them (a view: the rows before it are not read).
    caches.push_back(g.appendCache(f.arg(2), k, f.arg(1)));
    caches.push_back(g.appendCache(f.arg(3), v, f.arg(1)));
    if (g.opts.phase == Phase::Decode) {
      k = g.readCache(caches[0]);
      v = g.readCache(caches[1]);
      int64_t rows = g.past + g.seq;
      if (window > 0 && window < rows) {
        k = g.slice(k, 2, rows - window, window);
        v = g.slice(v, 2, rows - window, window);
      }
    }
    Value o =
        g.attention(q, k, v, std::nullopt, 1.0 / std::sqrt(double(hd)), window);
    Value out =
        g.linear(g.mergeHeads(o), f.param("self_attn.o_proj.weight",
                                          g.tensor({d, hq * hd}, g.weight)));
    return biased(out, "o_proj", d, c.oBias);
  }

  /// The SwiGLU MLP, or the routed experts (Mixtral, Qwen3-MoE).
  Value mlp(GraphBuilder &g, LayerFunc &f, Value h) {
    const ModelConfig &c = g.cfg;
    if (c.numRoutedExperts == 0)
      return swigluMLP(g, f, h, "mlp", c.intermediateSize, c.fusedProjections);
    MoENames names;
    if (c.modelType == "mixtral") {
      names.router = "block_sparse_moe.gate.weight";
      names.experts = "block_sparse_moe.experts";
      names.gate = "w1.weight";
      names.up = "w3.weight";
      names.down = "w2.weight";
    } else {
      names.router = "mlp.gate.weight";
      names.experts = "mlp.experts";
    }
    return moeBlock(g, f, h, names);
  }

  std::unique_ptr<LayerFunc> full, windowed;
  int64_t firstWindowLayer = 0;
  Value table;
};
} // namespace

std::unique_ptr<Family> mlir::npu::import::createLlamaFamily() {
  return std::make_unique<LlamaFamily>();
}
