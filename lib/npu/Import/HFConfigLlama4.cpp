//===- HFConfigLlama4.cpp - read a Llama-4 config.json --------------------===//
//
// Llama-4 (Scout, Maverick) as transformers' Llama4TextConfig describes it,
// with its defaults where a key is absent:
// * layers with RoPE (no_rope_layers entry 1; by default all but every
//   no_rope_layer_interval-th) attend within chunks of attention_chunk_size
//   positions and normalize q and k per head without a weight (use_qk_norm);
//   the others (NoPE) attend to every earlier key and, with
//   attn_temperature_tuning, scale their queries by a temperature of the
//   position;
// * moe_layers (by default every interleave_moe_layer_step-th from step - 1)
//   hold num_local_experts experts of intermediate_size, routed top-1 by a
//   sigmoid of the router logit that multiplies the expert's input, plus a
//   shared expert of the same width; the other layers a SwiGLU MLP of
//   intermediate_size_mlp.
// The multimodal config ("llama4") nests the decoder in text_config and
// names its weights language_model.*; its vision encoder is not imported.
//
//===----------------------------------------------------------------------===//

#include "HFConfigParse.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

/// A per-layer list of 0/1 flags (`key`), or `dflt(i)` per layer when the
/// list is absent or empty (transformers' `x if x else default`).
static std::vector<bool> layerFlags(FieldReader &r, StringRef key,
                                    int64_t layers,
                                    function_ref<bool(int64_t)> dflt) {
  SmallVector<int64_t> list = r.optIntegerList(key, 0, 1);
  std::vector<bool> flags(layers);
  if (!list.empty() && int64_t(list.size()) != layers) {
    r.error(key, "has " + Twine(list.size()) + " entries for " + Twine(layers) +
                     " layers");
    return flags;
  }
  for (int64_t i = 0; i < layers; ++i)
    flags[i] = list.empty() ? dflt(i) : list[i] != 0;
  return flags;
}

static void parseLlama4Text(FieldReader &r, const llvm::json::Object &obj,
                            ModelConfig &c) {
  parseDecoderFields(r, c);
  // Training-only and runtime settings: the router's losses and noise, the
  // cache kind of the Hugging Face runtime, llm-compressor's export flag.
  for (StringRef k : {"cache_implementation", "for_llm_compressor"})
    r.ignore(k);
  std::string act = r.optString("hidden_act", "silu");
  int64_t headDim = r.optInteger("head_dim", 128, 1);
  c.qkvBias = c.oBias = r.optBool("attention_bias", false);
  parseSoftmaxMoE(r, c, "num_local_experts", /*normTopk=*/false);
  c.sigmoidScoring = true;
  c.routerWeightsInput = true;
  c.numSharedExperts = 1;
  c.moeIntermediateSize = c.intermediateSize; // experts and shared expert
  c.intermediateSize = r.optInteger("intermediate_size_mlp", 16384, 1);
  int64_t step = r.optInteger("interleave_moe_layer_step", 1, 1);
  int64_t interval = r.optInteger("no_rope_layer_interval", 4, 1);
  c.attentionChunk = r.optInteger("attention_chunk_size", 0, 1);
  c.weightlessQkNorm = r.optBool("use_qk_norm", true);
  bool tuning = r.optSwitch("attn_temperature_tuning", true);
  double floorScale = r.optPositive("floor_scale", 8192);
  double attnScale = r.optPositive("attn_scale", 0.1);
  if (r.failed())
    return;
  int64_t layers = c.numLayers;
  // no_rope_layers: 1 = the layer uses RoPE.
  std::vector<bool> rope =
      layerFlags(r, "no_rope_layers", layers,
                 [&](int64_t i) { return (i + 1) % interval != 0; });
  c.noRopeLayers.assign(layers, false);
  for (int64_t i = 0; i < layers; ++i)
    c.noRopeLayers[i] = !rope[i];
  c.moeLayers.assign(layers, false);
  if (obj.get("moe_layers") &&
      obj.get("moe_layers")->kind() != llvm::json::Value::Null) {
    for (int64_t i : r.optIntegerList("moe_layers", 0, layers - 1))
      c.moeLayers[i] = true;
  } else {
    r.ignore("moe_layers");
    for (int64_t i = step - 1; i < layers; i += step)
      c.moeLayers[i] = true;
  }
  if (tuning) {
    if (floorScale != std::floor(floorScale) || floorScale > double(kMaxField))
      return r.error("floor_scale",
                     "must be a whole number of positions, at most " +
                         std::to_string(kMaxField));
    c.attnFloorScale = static_cast<int64_t>(floorScale);
    c.attnScale = attnScale;
  }
  // layer_types names a RoPE layer's chunked attention and a NoPE layer's
  // full one.
  checkLayerTypes(
      r, obj, c.numLayers,
      [&](int64_t i) -> StringRef {
        return c.isNoRope(i) ? "full_attention" : "chunked_attention";
      },
      "no_rope_layers implies");
  if (r.failed())
    return;
  if (act != "silu")
    return r.error("hidden_act", "is '" + act + "'; supported: silu");
  if (c.numExpertsPerToken != 1)
    return r.error("num_experts_per_tok",
                   "is " + Twine(c.numExpertsPerToken) +
                       "; only 1 is modelled (the router score multiplies "
                       "the expert's input row, one routed row per token)");
  checkGqaHeads(r, c, headDim);
}

void mlir::npu::import::parseLlama4(FieldReader &r, ModelConfig &c) {
  if (c.modelType == "llama4_text")
    return parseLlama4Text(r, r.getObject(), c);
  // The multimodal checkpoint: image token ids and the vision encoder are
  // not imported (text tokens only); the decoder is text_config.
  for (StringRef k : {"boi_token_index", "eoi_token_index", "image_token_index",
                      "vision_config"})
    r.ignore(k);
  bool tie = r.optBool("tie_word_embeddings", false);
  const llvm::json::Object *text = r.optObject("text_config");
  if (r.failed())
    return;
  if (!text)
    return r.error("text_config", "is missing (the decoder's config)");
  std::string where = (r.getFile() + ", text_config").str();
  FieldReader tr(*text, where, r.getLoc());
  tr.ignoreMetadata();
  std::string type = tr.optString("model_type", "llama4_text");
  if (!tr.failed() && type != "llama4_text")
    tr.error("model_type", "is '" + type + "'; expected 'llama4_text'");
  if (!tr.failed())
    parseLlama4Text(tr, *text, c);
  if (!tr.failed())
    tr.checkAllRead("llama4_text");
  if (tr.failed())
    return r.markFailed();
  c.tieEmbeddings = c.tieEmbeddings || tie;
  c.weightPrefix = "language_model.";
}
