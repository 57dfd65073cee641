//===- ImportGPT2.cpp - GPT-2 blocks (LayerNorm, GELU, learned positions) -===//

#include "GraphBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

namespace {
class GPT2Family : public Family {
public:
  void buildLayerKinds(OpBuilder &mb, GraphBuilder &g) override {
    const ModelConfig &c = g.cfg;
    int64_t d = c.hiddenSize, hd = c.headDim, h = c.numHeads;
    bool decode = g.opts.phase == Phase::Decode;
    // Both phases write the KV cache (prefill fills it for the decode steps
    // that follow); decode then attends over the whole cache.
    SmallVector<Type> lead = {g.tensor({g.batch, g.seq, d}, g.act)};
    lead.append({mb.getIndexType(), cacheType(g), cacheType(g)});
    block = std::make_unique<LayerFunc>(mb, g.loc, "gpt2_block", lead);
    OpBuilder &b = g.b;
    b.setInsertionPointToEnd(&block->getFunc().front());
    LayerFunc &f = *block;
    Value x = f.arg(0);
    // HF GPT-2 stores its projections as Conv1D weights [in, out].
    auto conv1d = [&](Value in, StringRef name, int64_t n, int64_t m) {
      Value w = f.param((name + ".weight").str(), g.tensor({n, m}, g.weight));
      Value bias = f.param((name + ".bias").str(), g.tensor({m}, g.small));
      return g.add(g.linearInOut(in, w), bias);
    };
    // (Weight before bias: the arguments are created in statement order, not
    // in the unspecified order of a call's arguments.)
    auto norm = [&](Value in, StringRef name) {
      Value w = f.param((name + ".weight").str(), g.tensor({d}, g.small));
      Value bias = f.param((name + ".bias").str(), g.tensor({d}, g.small));
      return g.layerNorm(in, w, bias);
    };

    Value qkv = conv1d(norm(x, "ln_1"), "attn.c_attn", d, 3 * d);
    Value q = g.splitHeads(g.slice(qkv, 2, 0, d), h, hd);
    Value k = g.splitHeads(g.slice(qkv, 2, d, d), h, hd);
    Value v = g.splitHeads(g.slice(qkv, 2, 2 * d, d), h, hd);
    // Both phases write the new keys and values into the cache; decode then
    // attends over every cached row.
    SmallVector<Value> results = {g.appendCache(f.arg(2), k, f.arg(1)),
                                  g.appendCache(f.arg(3), v, f.arg(1))};
    if (decode) {
      k = g.readCache(results[0]);
      v = g.readCache(results[1]);
    }
    Value o = g.attention(q, k, v, std::nullopt, 1.0 / std::sqrt(double(hd)));
    Value r1 = g.add(x, conv1d(g.mergeHeads(o), "attn.c_proj", d, d));
    int64_t ff = c.intermediateSize;
    Value fc = conv1d(norm(r1, "ln_2"), "mlp.c_fc", d, ff);
    Value act = GeluOp::create(b, g.loc, fc.getType(), fc,
                               c.exactGelu ? GeluApproximation::None
                                           : GeluApproximation::Tanh);
    Value r2 = g.add(r1, conv1d(act, "mlp.c_proj", ff, d));
    results.insert(results.begin(), r2);
    block->finish(mb, results);
  }

  LayerFunc &kindOf(int64_t) override { return *block; }
  std::string layerPrefix(int64_t i) const override {
    return "h." + std::to_string(i) + ".";
  }
  unsigned cachesPerLayer() const override { return 2; }
  RankedTensorType cacheType(GraphBuilder &g) const override {
    return g.tensor({g.batch, g.cfg.numHeads, g.past + g.seq, g.cfg.headDim},
                    g.kvCache);
  }

  Value embed(GraphBuilder &g, Value tokens) override {
    int64_t d = g.cfg.hiddenSize;
    wte = WeightOp::create(g.b, g.loc, g.tensor({g.cfg.vocabSize, d}, g.small),
                           "wte.weight");
    Value wpe = WeightOp::create(
        g.b, g.loc, g.tensor({g.cfg.maxPositions, d}, g.small), "wpe.weight");
    // Positions past .. past+S-1 are consecutive rows of the learned table.
    Value positions = g.slice(wpe, 0, g.past, g.seq);
    return g.add(g.embedding(wte, tokens), positions);
  }

  Value head(GraphBuilder &g, Value hidden) override {
    int64_t d = g.cfg.hiddenSize;
    Value w =
        WeightOp::create(g.b, g.loc, g.tensor({d}, g.small), "ln_f.weight");
    Value bias =
        WeightOp::create(g.b, g.loc, g.tensor({d}, g.small), "ln_f.bias");
    // Tied embeddings: the LM head is the token table.
    return g.linear(g.layerNorm(hidden, w, bias), wte);
  }

private:
  std::unique_ptr<LayerFunc> block;
  Value wte;
};
} // namespace

std::unique_ptr<Family> mlir::npu::import::createGPT2Family() {
  return std::make_unique<GPT2Family>();
}
