//===- ImportGemma.cpp - Gemma-2 and Gemma-3 layers -----------------------===//
//
// Each layer: RMSNorm, grouped-query attention (scale
// query_pre_attn_scalar^-1/2, Gemma-2's logit soft-cap, Gemma-3's QK norm,
// a sliding window and Gemma-3's local RoPE base in the local layers),
// RMSNorm, residual; RMSNorm, GeGLU MLP (gelu_pytorch_tanh gate), RMSNorm,
// residual. The embedding is multiplied by sqrt(hidden_size) (rounded to
// the activation type, as the models do), the head is the tied embedding,
// and Gemma-2 soft-caps the final logits.
//
// Gemma's RMSNorm multiplies by (1 + w) where Llama's multiplies by w: the
// stored w is the op's gamma less one. The work and the bytes are the same
// (docs/import.md).
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

namespace {
class GemmaFamily : public WindowedFamily {
public:
  Value embed(GraphBuilder &g, Value tokens) override {
    const ModelConfig &c = g.cfg;
    table = WeightOp::create(g.b, g.loc,
                             g.tensor({c.vocabSize, c.hiddenSize}, g.small),
                             "model.embed_tokens.weight");
    Value x = g.embedding(table, tokens);
    // x * sqrt(hidden_size), the normalizer in the activation type.
    auto scalarType = RankedTensorType::get({}, g.act);
    auto normalizer = arith::ConstantOp::create(
        g.b, g.loc,
        DenseElementsAttr::get(
            scalarType,
            FloatAttr::get(g.act, std::sqrt(double(c.hiddenSize))).getValue()));
    return MulOp::create(g.b, g.loc, x.getType(), x, normalizer);
  }

  Value head(GraphBuilder &g, Value hidden) override {
    const ModelConfig &c = g.cfg;
    int64_t d = c.hiddenSize;
    Value norm = WeightOp::create(g.b, g.loc, g.tensor({d}, g.small),
                                  "model.norm.weight");
    Value lmHead =
        c.tieEmbeddings
            ? table
            : WeightOp::create(g.b, g.loc, g.tensor({c.vocabSize, d}, g.head),
                               "lm_head.weight")
                  .getResult();
    Value logits = g.linear(g.rmsNorm(hidden, norm), lmHead);
    if (c.finalSoftcap > 0)
      logits = SoftcapOp::create(g.b, g.loc, logits.getType(), logits,
                                 g.b.getF64FloatAttr(c.finalSoftcap));
    return logits;
  }

private:
  std::unique_ptr<LayerFunc> buildLayer(OpBuilder &mb, GraphBuilder &g,
                                        const std::string &name,
                                        bool windowed) override {
    const ModelConfig &c = g.cfg;
    int64_t d = c.hiddenSize;
    SmallVector<Type> lead = {g.tensor({g.batch, g.seq, d}, g.act)};
    lead.append({mb.getIndexType(), cacheType(g), cacheType(g)});
    auto layer = std::make_unique<LayerFunc>(mb, g.loc, name, lead);
    g.b.setInsertionPointToEnd(&layer->getFunc().front());
    LayerFunc &f = *layer;
    auto norm = [&](Value x, StringRef which) {
      return g.rmsNorm(
          x, f.param((which + ".weight").str(), g.tensor({d}, g.small)));
    };
    Value x = f.arg(0);
    SmallVector<Value> results;
    AttentionSpec spec;
    spec.window = windowed ? c.slidingWindow : 0;
    spec.ropeTheta = windowed ? c.localRopeTheta : 0;
    spec.scale = c.queryScale;
    spec.softcap = c.attnSoftcap;
    Value attn = gqaAttention(g, f, norm(x, "input_layernorm"), spec, results);
    Value r1 = g.add(x, norm(attn, "post_attention_layernorm"));
    Value mlp = swigluMLP(g, f, norm(r1, "pre_feedforward_layernorm"), "mlp",
                          c.intermediateSize, /*fused=*/false,
                          c.exactGelu ? GatedActivation::Gelu
                                      : GatedActivation::GeluTanh);
    results.insert(results.begin(),
                   g.add(r1, norm(mlp, "post_feedforward_layernorm")));
    layer->finish(mb, results);
    return layer;
  }

  Value table;
};
} // namespace

std::unique_ptr<Family> mlir::npu::import::createGemmaFamily() {
  return std::make_unique<GemmaFamily>();
}
