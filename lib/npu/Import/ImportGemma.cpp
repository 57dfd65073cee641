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
  /// The embedding times sqrt(hidden_size), the normalizer rounded to the
  /// activation type as the models round it.
  Value embed(GraphBuilder &g, Value tokens) override {
    Value x = WindowedFamily::embed(g, tokens);
    auto scalarType = RankedTensorType::get({}, g.act);
    auto normalizer = arith::ConstantOp::create(
        g.b, g.loc,
        DenseElementsAttr::get(
            scalarType,
            FloatAttr::get(g.act, std::sqrt(double(g.cfg.hiddenSize)))
                .getValue()));
    return MulOp::create(g.b, g.loc, x.getType(), x, normalizer);
  }

  /// Gemma-2 soft-caps the final logits.
  Value head(GraphBuilder &g, Value hidden) override {
    Value logits = WindowedFamily::head(g, hidden);
    if (g.cfg.finalSoftcap > 0)
      logits = SoftcapOp::create(g.b, g.loc, logits.getType(), logits,
                                 g.b.getF64FloatAttr(g.cfg.finalSoftcap));
    return logits;
  }

private:
  std::unique_ptr<LayerFunc> buildLayer(OpBuilder &mb, GraphBuilder &g,
                                        const std::string &name,
                                        unsigned kind) override {
    bool windowed = kind == 1;
    const ModelConfig &c = g.cfg;
    int64_t d = c.hiddenSize;
    std::unique_ptr<LayerFunc> layer = startLayer(mb, g, name);
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
};
} // namespace

std::unique_ptr<Family> mlir::npu::import::createGemmaFamily() {
  return std::make_unique<GemmaFamily>();
}
