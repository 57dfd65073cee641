//===- ImportLlama4.cpp - Llama-4 decoder layers
//---------------------------===//
//
// Llama-4 (Scout, Maverick; HFConfigLlama4.cpp reads the config). Each layer:
// RMSNorm, grouped-query attention, residual; RMSNorm, MLP, residual. Four
// kinds of layer, by two choices:
// * RoPE layers: interleaved RoPE (the complex form of Meta's code), then
//   the weightless QK norm (use_qk_norm), attention within chunks of
//   attention_chunk_size positions; NoPE layers: no RoPE, no QK norm, the
//   queries scaled by the temperature of their position, causal attention
//   over every earlier key;
// * MoE layers: a sigmoid top-1 router whose score multiplies the expert's
//   input row, the experts (gate_up_proj holds the gate rows then the up
//   rows), plus the shared expert on the unweighted rows; dense layers: a
//   SwiGLU MLP of intermediate_size_mlp.
// Functions: @llama4_layer (RoPE, MoE), @llama4_dense_layer,
// @llama4_nope_layer, @llama4_nope_dense_layer, those present.
//
// Hugging Face stores the stacked experts [E, D, 2F] and [E, F, D] (in x
// out); they are taken here in npu.moe_experts' [E, out, in] layout, the
// same bytes (vLLM transposes them once as it loads them).
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

namespace {
class Llama4Family : public WindowedFamily {
  /// Bit 0: a dense layer; bit 1: a NoPE layer.
  unsigned layerKind(int64_t i) const override {
    return (cfg->isMoELayer(i) ? 0 : 1) | (cfg->isNoRope(i) ? 2 : 0);
  }
  std::string kindName(unsigned kind, ArrayRef<bool>) const override {
    return std::string("llama4") + (kind & 2 ? "_nope" : "") +
           (kind & 1 ? "_dense" : "") + "_layer";
  }

  std::unique_ptr<LayerFunc> buildLayer(OpBuilder &mb, GraphBuilder &g,
                                        const std::string &name,
                                        unsigned kind) override {
    const ModelConfig &c = g.cfg;
    bool dense = kind & 1, nope = kind & 2;
    AttentionSpec spec;
    spec.rope = !nope;
    spec.interleavedRope = true;
    spec.chunk = nope ? 0 : c.attentionChunk;
    spec.weightlessQkNorm = !nope && c.weightlessQkNorm;
    spec.queryTemperature = nope && c.attnScale > 0;
    return preNormLayer(mb, g, name, spec, [&](LayerFunc &f, Value h) {
      if (dense)
        return swigluMLP(g, f, h, "feed_forward", c.intermediateSize);
      MoENames names;
      names.router = "feed_forward.router.weight";
      names.experts = "feed_forward.experts";
      names.gateUp = "gate_up_proj";
      names.gateUpHalves = true;
      names.down = "down_proj";
      names.shared = "feed_forward.shared_expert";
      return moeBlock(g, f, h, names);
    });
  }
};
} // namespace

std::unique_ptr<Family> mlir::npu::import::createLlama4Family() {
  return std::make_unique<Llama4Family>();
}
