//===- ImportLlama.cpp - Llama-style decoder layers -----------------------===//
//
// Pre-norm decoders with GQA, RoPE and a SwiGLU MLP, and the variants of the
// model types built on them: projection biases (Qwen2, Llama
// attention_bias), RMSNorm of each query and key head before RoPE (Qwen3),
// a sliding window in some or all layers (Mistral, Phi-3, Qwen2/3 with
// use_sliding_window), fused qkv/gate_up weights (Phi-3) and routed experts
// in place of the MLP (Mixtral, Qwen3-MoE, GPT-OSS with attention sinks and
// biased, clamped experts). One function per distinct layer
// kind (windowed or not).
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

namespace {
class LlamaFamily : public WindowedFamily {
private:
  std::unique_ptr<LayerFunc> buildLayer(OpBuilder &mb, GraphBuilder &g,
                                        const std::string &name,
                                        unsigned kind) override {
    AttentionSpec spec;
    spec.window = kind == 1 ? g.cfg.slidingWindow : 0;
    return preNormLayer(mb, g, name, spec,
                        [&](LayerFunc &f, Value h) { return mlp(g, f, h); });
  }

  /// The SwiGLU MLP, or the routed experts (Mixtral, Qwen3-MoE, GPT-OSS).
  Value mlp(GraphBuilder &g, LayerFunc &f, Value h) {
    const ModelConfig &c = g.cfg;
    if (c.numRoutedExperts == 0)
      return swigluMLP(g, f, h, "mlp", c.intermediateSize, c.fusedProjections);
    MoENames names;
    if (c.modelType == "gpt_oss") {
      names.router = "mlp.router.weight";
      names.routerBias = "mlp.router.bias";
      names.experts = "mlp.experts";
      names.gateUp = "gate_up_proj";
      names.gateUpBias = "gate_up_proj_bias";
      names.down = "down_proj";
      names.downBias = "down_proj_bias";
    } else if (c.modelType == "mixtral") {
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
};
} // namespace

std::unique_ptr<Family> mlir::npu::import::createLlamaFamily() {
  return std::make_unique<LlamaFamily>();
}
