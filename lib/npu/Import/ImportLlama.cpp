//===- ImportLlama.cpp - Llama-3 layers (GQA, RoPE, SwiGLU) ---------------===//

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
    int64_t d = c.hiddenSize, hd = c.headDim;
    bool decode = g.opts.phase == Phase::Decode;
    // Both phases write the KV cache (prefill fills it for the decode steps
    // that follow); decode then attends over the whole cache.
    auto xType = g.tensor({g.batch, g.seq, d}, g.act);
    SmallVector<Type> lead = {xType};
    lead.append({mb.getIndexType(), cacheType(g), cacheType(g)});
    layer = std::make_unique<LayerFunc>(mb, g.loc, "llama_layer", lead);
    OpBuilder &b = g.b;
    b.setInsertionPointToEnd(&layer->getFunc().front());
    LayerFunc &f = *layer;
    Value x = f.arg(0);

    // Attention block: pre-norm, GQA projections, RoPE, causal attention.
    Value h =
        g.rmsNorm(x, f.param("input_layernorm.weight", g.tensor({d}, g.small)));
    auto proj = [&](StringRef name, int64_t heads) {
      Value w = f.param(("self_attn." + name + ".weight").str(),
                        g.tensor({heads * hd, d}, g.weight));
      return g.splitHeads(g.linear(h, w), heads, hd);
    };
    Value q = g.rope(proj("q_proj", c.numHeads), /*interleaved=*/false);
    Value k = g.rope(proj("k_proj", c.numKVHeads), /*interleaved=*/false);
    Value v = proj("v_proj", c.numKVHeads);
    // Both phases write the new keys and values into the cache; decode then
    // attends over every cached row.
    SmallVector<Value> results = {g.appendCache(f.arg(2), k, f.arg(1)),
                                  g.appendCache(f.arg(3), v, f.arg(1))};
    if (decode) {
      k = g.readCache(results[0]);
      v = g.readCache(results[1]);
    }
    Value o = g.attention(q, k, v, std::nullopt, 1.0 / std::sqrt(double(hd)));
    Value attnOut = g.linear(g.mergeHeads(o),
                             f.param("self_attn.o_proj.weight",
                                     g.tensor({d, c.numHeads * hd}, g.weight)));
    Value r1 = g.add(x, attnOut);

    // SwiGLU MLP.
    int64_t ff = c.intermediateSize;
    Value h2 = g.rmsNorm(
        r1, f.param("post_attention_layernorm.weight", g.tensor({d}, g.small)));
    Value gate = g.linear(
        h2, f.param("mlp.gate_proj.weight", g.tensor({ff, d}, g.weight)));
    Value up = g.linear(
        h2, f.param("mlp.up_proj.weight", g.tensor({ff, d}, g.weight)));
    Value act = SwigluOp::create(b, g.loc, gate.getType(), gate, up);
    Value down = g.linear(
        act, f.param("mlp.down_proj.weight", g.tensor({d, ff}, g.weight)));
    Value r2 = g.add(r1, down);
    results.insert(results.begin(), r2);
    layer->finish(mb, results);
  }

  LayerFunc &kindOf(int64_t) override { return *layer; }
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
  std::unique_ptr<LayerFunc> layer;
  Value table;
};
} // namespace

std::unique_ptr<Family> mlir::npu::import::createLlamaFamily() {
  return std::make_unique<LlamaFamily>();
}
