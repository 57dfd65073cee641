//===- HFConfigParse.cpp - read and check a Hugging Face config.json ------===//

#include "HFConfigParse.h"

#include "npu/Import/HFConfig.h"
#include "npu/Support/InputFiles.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

namespace mlir::npu::import {
/// The fields every RoPE decoder (the Llama-style ones, DeepSeek) shares,
/// with their Hugging Face names. Sliding windows are each family's.
/// quantization_config: the checkpoint's stored format, for
/// --weight-dtype=checkpoint. Its other keys are refused by name.
void parseQuantization(FieldReader &r, ModelConfig &c) {
  const llvm::json::Object *q = r.optObject("quantization_config");
  if (!q)
    return;
  std::string where = (r.getFile() + ", quantization_config").str();
  FieldReader qr(*q, where, r.getLoc());
  c.quantMethod = qr.optString("quant_method", "");
  if (c.quantMethod == "fp8") {
    qr.only("fmt", "\"e4m3\"", "fp8 checkpoints are modelled in e4m3");
    qr.only("activation_scheme", "\"dynamic\"",
            "activations are quantized as their tiles load (per 1 x 128 "
            "group), not with static scales");
    SmallVector<int64_t> block = qr.optIntegers("weight_block_size", 2);
    if (block.empty() && !qr.failed())
      qr.error("weight_block_size", "is missing (per-tensor fp8 checkpoints "
                                    "are not modelled)");
    if (!block.empty()) {
      c.quantBlockOut = block[0];
      c.quantBlockIn = block[1];
    }
  } else if (c.quantMethod == "mxfp4") {
    for (const std::string &m : qr.optStrings("modules_to_not_convert"))
      c.quantExpertsOnly |= StringRef(m).contains("self_attn");
  } else {
    // Another method (AWQ, GPTQ, ...): the plain dtypes still import it;
    // --weight-dtype=checkpoint refuses it (verifyImportOptions).
    return;
  }
  qr.checkAllRead(c.quantMethod, "quant_method");
  if (qr.failed())
    r.markFailed();
}

void parseDecoderFields(FieldReader &r, ModelConfig &c) {
  // YaRN / llama3 rope scaling changes RoPE's frequencies (values, not
  // shapes, FLOPs or bytes); the stored number format is an import option
  // (--weight-dtype, --act-dtype). docs/import.md, "not modelled".
  r.ignore("rope_scaling");
  parseQuantization(r, c);
  c.hiddenSize = r.integer("hidden_size");
  c.numLayers = r.integer("num_hidden_layers", 1, 100000);
  c.numHeads = r.integer("num_attention_heads");
  c.numKVHeads = r.optInteger("num_key_value_heads", c.numHeads, 1);
  c.intermediateSize = r.integer("intermediate_size");
  c.vocabSize = r.integer("vocab_size");
  c.maxPositions = r.integer("max_position_embeddings");
  c.normEps = r.positive("rms_norm_eps");
  c.ropeTheta = r.optPositive("rope_theta", 10000.0);
  if (!r.failed() && !(static_cast<float>(c.ropeTheta) > 1.0f))
    r.error("rope_theta", "is " + formatShortestReal(c.ropeTheta) +
                              "; RoPE needs a base > 1 (its frequencies are "
                              "theta^(-2i/d))");
  c.tieEmbeddings = r.optBool("tie_word_embeddings", false);
}

/// The heads of a GQA decoder: KV heads divide the query heads; the head
/// dim is `headDim` (the config's head_dim, independent of hidden_size as
/// in Qwen3 or Gemma) or, when 0, hidden_size / heads; it must be even for
/// RoPE. Sets c.headDim; false (with the error reported) otherwise.
bool checkGqaHeads(FieldReader &r, ModelConfig &c, int64_t headDim) {
  if (c.numHeads % c.numKVHeads != 0) {
    r.error("num_key_value_heads",
            "(" + Twine(c.numKVHeads) +
                ") does not divide num_attention_heads (" + Twine(c.numHeads) +
                ")");
    return false;
  }
  if (headDim == 0 && c.hiddenSize % c.numHeads != 0) {
    r.error("num_attention_heads", "(" + Twine(c.numHeads) +
                                       ") does not divide hidden_size (" +
                                       Twine(c.hiddenSize) + ")");
    return false;
  }
  c.headDim = headDim != 0 ? headDim : c.hiddenSize / c.numHeads;
  if (c.headDim % 2 != 0) {
    r.error(headDim ? "head_dim" : "num_attention_heads",
            "gives an odd head dim " + Twine(c.headDim) +
                "; rotary embeddings need an even one");
    return false;
  }
  return true;
}

/// The routed-expert fields of Mixtral and Qwen3-MoE (softmax over all
/// experts, top-k, no shared expert, no groups).
void parseSoftmaxMoE(FieldReader &r, ModelConfig &c, StringRef expertsKey,
                     bool normTopk) {
  // Training-only: the load-balancing loss and router noise.
  for (StringRef k :
       {"router_aux_loss_coef", "output_router_logits", "router_jitter_noise"})
    r.ignore(k);
  c.numRoutedExperts = r.integer(expertsKey);
  c.numExpertsPerToken = r.integer("num_experts_per_tok");
  c.numGroups = c.topkGroups = 1;
  c.normTopkProb = normTopk;
  if (!r.failed() && c.numExpertsPerToken > c.numRoutedExperts)
    r.error("num_experts_per_tok", "(" + Twine(c.numExpertsPerToken) +
                                       ") exceeds " + expertsKey + " (" +
                                       Twine(c.numRoutedExperts) + ")");
}

/// A sliding window of `window` keys in the layers `windowed` picks.
void setWindow(ModelConfig &c, int64_t window,
               llvm::function_ref<bool(int64_t)> windowed) {
  c.slidingWindow = window;
  c.windowedLayers.assign(c.numLayers, false);
  for (int64_t i = 0; i < c.numLayers; ++i)
    c.windowedLayers[i] = windowed(i);
}

/// The sliding window as Qwen2 and Qwen3 describe it: off unless
/// use_sliding_window, then in the layers from max_window_layers on (a
/// `layer_types` list, written by newer transformers, must agree).
void parseQwenWindow(FieldReader &r, ModelConfig &c) {
  bool use = r.optBool("use_sliding_window", false);
  int64_t window = r.optInteger("sliding_window", 0, 1);
  int64_t first = r.optInteger("max_window_layers", c.numLayers, 0);
  if (r.failed() || !use)
    return;
  if (window == 0)
    return r.error("sliding_window",
                   "is missing, but use_sliding_window is true");
  setWindow(c, window, [&](int64_t i) { return i >= first; });
}

/// Reads `layer_types` if present: entry i must be `want(i)`, what the
/// rest of the config implies (`impliedBy` names it): a list that disagrees
/// would describe another model.
void checkLayerTypes(FieldReader &r, const llvm::json::Object &obj,
                     int64_t numLayers, function_ref<StringRef(int64_t)> want,
                     const Twine &impliedBy) {
  r.ignore("layer_types");
  const llvm::json::Array *types = obj.getArray("layer_types");
  if (!types) {
    if (obj.get("layer_types") &&
        obj.get("layer_types")->kind() != llvm::json::Value::Null)
      r.error("layer_types", "must be a list of strings");
    return;
  }
  if (int64_t(types->size()) != numLayers)
    return r.error("layer_types", "has " + Twine(types->size()) +
                                      " entries for " + Twine(numLayers) +
                                      " layers");
  for (auto [i, t] : llvm::enumerate(*types)) {
    std::optional<StringRef> s = t.getAsString();
    if (!s || *s != want(i))
      return r.error("layer_types", "entry " + Twine(i) + " is not '" +
                                        want(i) + "' as " + impliedBy);
  }
}

/// checkLayerTypes for the window fields: sliding_attention where a layer
/// is windowed, else full_attention.
static void checkWindowLayerTypes(FieldReader &r, const llvm::json::Object &obj,
                                  const ModelConfig &c) {
  checkLayerTypes(
      r, obj, c.numLayers,
      [&](int64_t i) -> StringRef {
        return c.isWindowed(i) ? "sliding_attention" : "full_attention";
      },
      "the window fields imply for model_type '" + c.modelType + "'");
}

/// Llama-style decoders: pre-norm GQA with RoPE and a SwiGLU MLP, and the
/// variants of each model_type (biases, QK norm, sliding windows, fused
/// projections, routed experts). Every other key is refused by
/// checkAllRead.
void parseLlamaLike(FieldReader &r, const llvm::json::Object &obj,
                    ModelConfig &c) {
  StringRef type = c.modelType;
  parseDecoderFields(r, c);
  std::string act = r.optString("hidden_act", "silu");
  int64_t headDim = r.optInteger("head_dim", 0, 1);
  if (type == "llama") {
    r.only("sliding_window", "null",
           "every layer attends to the whole context");
    bool bias = r.optBool("attention_bias", false);
    c.qkvBias = c.oBias = bias;
    r.only("mlp_bias", "false", "a bias-free MLP");
  } else if (type == "mistral" || type == "mixtral" || type == "phi3") {
    // Every layer attends to the last `sliding_window` keys.
    if (int64_t window = r.optInteger("sliding_window", 0, 1))
      setWindow(c, window, [](int64_t) { return true; });
    if (type == "mixtral") {
      parseSoftmaxMoE(r, c, "num_local_experts", /*normTopk=*/true);
      c.moeIntermediateSize = c.intermediateSize; // the experts' width
    }
    if (type == "phi3") {
      c.fusedProjections = true;
      for (StringRef k :
           {"resid_pdrop", "embd_pdrop", "original_max_position_embeddings"})
        r.ignore(k); // dropouts; the pre-scaling length of rope_scaling
      r.only("attention_bias", "false", "bias-free projections");
      if (r.optPositive("partial_rotary_factor", 1.0) != 1.0 && !r.failed())
        r.error("partial_rotary_factor",
                "is not 1; only RoPE on the whole head is modelled");
    }
  } else if (type == "gpt_oss") {
    // Biased GQA with sinks; local (window) and global layers alternating
    // from layer 0; MoE with a biased router and biased, clamped experts.
    c.qkvBias = c.oBias = r.optBool("attention_bias", true);
    c.attentionSinks = true;
    setWindow(c, r.integer("sliding_window"),
              [](int64_t i) { return i % 2 == 0; });
    parseSoftmaxMoE(r, c, "num_local_experts", /*normTopk=*/true);
    c.moeIntermediateSize = c.intermediateSize;
    c.swigluLimit = r.positive("swiglu_limit");
    // A second spelling of num_experts_per_tok, and the length YaRN
    // scales from (rope_scaling's, ignored with it).
    int64_t alias = r.optInteger("experts_per_token", c.numExpertsPerToken, 1);
    r.ignore("initial_context_length");
    if (!r.failed() && alias != c.numExpertsPerToken)
      return r.error("experts_per_token",
                     "(" + Twine(alias) +
                         ") differs from num_experts_per_tok (" +
                         Twine(c.numExpertsPerToken) + ")");
  } else if (type == "qwen2") {
    c.qkvBias = true; // Qwen2 always has q/k/v biases, never an o bias
    parseQwenWindow(r, c);
  } else if (type == "qwen3" || type == "qwen3_moe") {
    c.qkNorm = true;
    c.qkvBias = c.oBias = r.optBool("attention_bias", false);
    parseQwenWindow(r, c);
    if (type == "qwen3_moe") {
      parseSoftmaxMoE(r, c, "num_experts", false);
      c.normTopkProb = r.optBool("norm_topk_prob", false);
      c.moeIntermediateSize = r.integer("moe_intermediate_size");
      r.only("decoder_sparse_step", "1", "every layer is an MoE layer");
      r.only("mlp_only_layers", "[]", "every layer is an MoE layer");
    }
  }
  checkWindowLayerTypes(r, obj, c);
  if (r.failed())
    return;
  if (act != "silu")
    return r.error("hidden_act", "is '" + act + "'; supported: silu");
  checkGqaHeads(r, c, headDim);
}

/// Gemma-2 and Gemma-3 (text): GQA with an explicit head_dim and query
/// scale, local (sliding-window) and global layers, GeGLU, four norms per
/// layer, tied embeddings; Gemma-2 soft-caps the attention and final logits,
/// Gemma-3 normalizes q and k per head and gives local layers their own
/// RoPE base.
void parseGemma(FieldReader &r, const llvm::json::Object &obj, ModelConfig &c) {
  bool gemma3 = c.modelType == "gemma3_text";
  parseDecoderFields(r, c);
  // The KV-cache kind of the Hugging Face runtime ("hybrid"): not the model.
  r.ignore("cache_implementation");
  r.only("attention_bias", "false", "bias-free projections");
  c.tieEmbeddings = r.optBool("tie_word_embeddings", true);
  c.headDim = r.optInteger("head_dim", 0, 1);
  // hidden_activation is what the models read; older files repeat it as
  // hidden_act.
  std::string act = r.optString("hidden_act", "gelu_pytorch_tanh");
  act = r.optString("hidden_activation", act);
  double scalar = r.optPositive("query_pre_attn_scalar", 0);
  c.attnSoftcap = r.optPositive("attn_logit_softcapping", 0);
  c.finalSoftcap = r.optPositive("final_logit_softcapping", 0);
  int64_t window = r.integer("sliding_window");
  int64_t pattern = gemma3 ? r.optInteger("sliding_window_pattern", 6, 1) : 2;
  if (gemma3) {
    c.qkNorm = true;
    c.localRopeTheta = r.optPositive("rope_local_base_freq", 10000.0);
  }
  if (r.failed())
    return;
  // Gemma-2: layers 0, 2, 4... are local; Gemma-3: all but every
  // pattern-th (5 of 6).
  setWindow(c, window, [&](int64_t i) { return (i + 1) % pattern != 0; });
  checkWindowLayerTypes(r, obj, c);
  if (r.failed())
    return;
  if (act != "gelu_pytorch_tanh" && act != "gelu")
    return r.error("hidden_activation",
                   "is '" + act + "'; supported: gelu_pytorch_tanh, gelu");
  c.exactGelu = act == "gelu";
  if (!checkGqaHeads(r, c, c.headDim))
    return;
  c.queryScale = 1.0 / std::sqrt(scalar > 0 ? scalar : double(c.headDim));
}

void parseGPT2(FieldReader &r, ModelConfig &c) {
  // Dropouts and the sequence-classification head of GPT2DoubleHeadsModel
  // are training-only; n_ctx is the legacy name of n_positions.
  for (StringRef k :
       {"resid_pdrop", "embd_pdrop", "attn_pdrop", "summary_type",
        "summary_use_proj", "summary_activation", "summary_proj_to_labels",
        "summary_first_dropout", "task_specific_params"})
    r.ignore(k);
  r.only("scale_attn_weights", "true", "scores are scaled by 1/sqrt(head dim)");
  r.only("scale_attn_by_inverse_layer_idx", "false",
         "no per-layer score scaling");
  r.only("reorder_and_upcast_attn", "false", "attention as in GPT-2");
  r.only("add_cross_attention", "false", "a decoder without cross-attention");
  c.hiddenSize = r.integer("n_embd");
  c.numLayers = r.integer("n_layer", 1, 100000);
  c.numHeads = r.integer("n_head");
  c.numKVHeads = c.numHeads;
  c.vocabSize = r.integer("vocab_size");
  c.maxPositions = r.integer("n_positions");
  int64_t nCtx = r.optInteger("n_ctx", c.maxPositions, 1);
  if (!r.failed() && nCtx != c.maxPositions)
    return r.error("n_ctx", "(" + Twine(nCtx) + ") differs from n_positions (" +
                                Twine(c.maxPositions) + ")");
  c.normEps = r.optPositive("layer_norm_epsilon", 1e-5);
  c.tieEmbeddings = r.optBool("tie_word_embeddings", true);
  c.intermediateSize = r.optInteger("n_inner", 4 * c.hiddenSize, 1);
  std::string act = r.optString("activation_function", "gelu_new");
  if (r.failed())
    return;
  if (act != "gelu_new" && act != "gelu" && act != "gelu_pytorch_tanh")
    return r.error("activation_function", "is '" + act +
                                              "'; supported: gelu_new, gelu, "
                                              "gelu_pytorch_tanh");
  c.exactGelu = act == "gelu";
  if (c.hiddenSize % c.numHeads != 0)
    return r.error("n_head", "(" + Twine(c.numHeads) +
                                 ") does not divide n_embd (" +
                                 Twine(c.hiddenSize) + ")");
  c.headDim = c.hiddenSize / c.numHeads;
}

/// DeepSeek-V3 and the models of its architecture (Kimi-K2), and
/// DeepSeek-V2 / V2-Lite: MLA and DeepSeek MoE.
void parseDeepSeekV3(FieldReader &r, ModelConfig &c) {
  parseDecoderFields(r, c);
  bool v2 = c.modelType == "deepseek_v2";
  // DeepSeek-V2-Lite has no low-rank query (q_lora_rank null: q_proj).
  c.qLoraRank =
      v2 ? r.optInteger("q_lora_rank", 0, 1) : r.integer("q_lora_rank");
  c.kvLoraRank = r.integer("kv_lora_rank");
  c.qkNopeHeadDim = r.integer("qk_nope_head_dim");
  c.qkRopeHeadDim = r.integer("qk_rope_head_dim");
  c.vHeadDim = r.integer("v_head_dim");
  c.moeIntermediateSize = r.integer("moe_intermediate_size");
  c.numRoutedExperts = r.integer("n_routed_experts");
  c.numSharedExperts = r.optInteger("n_shared_experts", 0, 0);
  c.numExpertsPerToken = r.integer("num_experts_per_tok");
  c.numGroups = r.optInteger("n_group", 1, 1);
  c.topkGroups = r.optInteger("topk_group", c.numGroups, 1);
  c.firstDenseLayers = r.optInteger("first_k_dense_replace", 0, 0);
  c.numMTPLayers = r.optInteger("num_nextn_predict_layers", 0, 0);
  c.routedScalingFactor = r.optPositive("routed_scaling_factor", 1.0);
  c.normTopkProb = r.optBool("norm_topk_prob", false);
  std::string scoring = r.optString("scoring_func", "softmax");
  // Training settings (auxiliary losses) and the expert-parallel degree of
  // the checkpoint's deployment do not change one step's graph.
  for (StringRef k : {"aux_loss_alpha", "seq_aux", "ep_size"})
    r.ignore(k);
  std::string topk = r.optString("topk_method", v2 ? "greedy" : "noaux_tc");
  if (r.failed())
    return;
  // noaux_tc: group-limited top-k on bias-corrected scores, groups ranked
  // by their best two (V3); group_limited_greedy: groups ranked by their
  // best expert, no bias (V2); greedy: plain top-k over every expert
  // (V2-Lite).
  if (topk == "greedy") {
    c.numGroups = c.topkGroups = 1;
  } else if (topk == "noaux_tc") {
    c.scoreCorrectionBias = true;
  } else if (topk == "group_limited_greedy") {
    c.groupScoreTop = 1;
  } else {
    return r.error("topk_method",
                   "is '" + topk +
                       "'; supported: noaux_tc, group_limited_greedy, "
                       "greedy");
  }
  r.only("attention_bias", "false", "bias-free attention projections");
  int64_t freq = r.optInteger("moe_layer_freq", 1, 1);
  std::string act = r.optString("hidden_act", "silu");
  if (r.failed())
    return;
  if (act != "silu")
    return r.error("hidden_act", "is '" + act + "'; supported: silu");
  if (scoring != "sigmoid" && scoring != "softmax")
    return r.error("scoring_func",
                   "is '" + scoring + "'; supported: sigmoid, softmax");
  c.sigmoidScoring = scoring == "sigmoid";
  if (freq != 1)
    return r.error("moe_layer_freq", "is " + Twine(freq) +
                                         "; only 1 (every layer after "
                                         "first_k_dense_replace) is supported");
  if (c.numKVHeads != c.numHeads)
    return r.error("num_key_value_heads",
                   "must equal num_attention_heads for MLA");
  if (c.firstDenseLayers > c.numLayers)
    return r.error("first_k_dense_replace",
                   "(" + Twine(c.firstDenseLayers) +
                       ") exceeds num_hidden_layers (" + Twine(c.numLayers) +
                       ")");
  if (c.numExpertsPerToken > c.numRoutedExperts)
    return r.error("num_experts_per_tok", "(" + Twine(c.numExpertsPerToken) +
                                              ") exceeds n_routed_experts (" +
                                              Twine(c.numRoutedExperts) + ")");
  if (c.numRoutedExperts % c.numGroups != 0)
    return r.error("n_group", "(" + Twine(c.numGroups) +
                                  ") does not divide n_routed_experts (" +
                                  Twine(c.numRoutedExperts) + ")");
  if (c.topkGroups > c.numGroups)
    return r.error("topk_group", "(" + Twine(c.topkGroups) +
                                     ") exceeds n_group (" +
                                     Twine(c.numGroups) + ")");
  if (c.numExpertsPerToken > c.topkGroups * (c.numRoutedExperts / c.numGroups))
    return r.error("num_experts_per_tok",
                   "(" + Twine(c.numExpertsPerToken) +
                       ") exceeds the experts in topk_group groups");
  if (c.qkRopeHeadDim % 2 != 0)
    return r.error("qk_rope_head_dim", "must be even for rotary embeddings");
  c.headDim = c.qkNopeHeadDim + c.qkRopeHeadDim;
}
} // namespace mlir::npu::import

ArrayRef<ModelTypeInfo> mlir::npu::getSupportedModelTypes() {
  static const ModelTypeInfo types[] = {
      {"deepseek_v3", ModelFamily::DeepSeekV3, "deepseek-v3",
       "MLA, DeepSeek MoE (noaux_tc routing, shared experts), MTP"},
      {"kimi_k2", ModelFamily::DeepSeekV3, "kimi-k2",
       "DeepSeek-V3's architecture with other sizes"},
      {"deepseek_v2", ModelFamily::DeepSeekV3, "deepseek-v2-lite",
       "MLA (q_proj when q_lora_rank is null), DeepSeek MoE with greedy or "
       "group-limited (best expert) top-k"},
      {"llama", ModelFamily::Llama, "llama-3-8b",
       "GQA, RoPE, SwiGLU (attention_bias, head_dim)"},
      {"mistral", ModelFamily::Llama, "mistral-7b",
       "Llama with a sliding window in every layer"},
      {"mixtral", ModelFamily::Llama, "mixtral-8x7b",
       "Mistral attention, softmax top-k MoE without shared experts"},
      {"qwen2", ModelFamily::Llama, "qwen2.5-7b",
       "Llama with q/k/v biases, sliding window from max_window_layers"},
      {"qwen3", ModelFamily::Llama, "qwen3-8b",
       "Llama with QK norm and an independent head_dim"},
      {"qwen3_moe", ModelFamily::Llama, "qwen3-30b-a3b",
       "Qwen3 attention, softmax top-k MoE (norm_topk_prob)"},
      {"phi3", ModelFamily::Llama, "phi-3-mini",
       "Llama with fused qkv_proj and gate_up_proj, sliding window"},
      {"gpt_oss", ModelFamily::Llama, "gpt-oss-20b",
       "biased GQA with attention sinks, local (window) and global layers "
       "alternating, MoE with a biased router and biased, clamped experts"},
      {"llama4", ModelFamily::Llama4, "llama-4-scout",
       "Llama-4's decoder (its text_config; the vision encoder is not "
       "imported): chunked attention in the RoPE layers, NoPE layers with "
       "the query temperature, weightless QK norm, dense and MoE layers "
       "interleaved, sigmoid top-1 routing on the expert's input plus a "
       "shared expert"},
      {"llama4_text", ModelFamily::Llama4, "llama-4-scout-text",
       "Llama-4's decoder as a text-only config (Llama4ForCausalLM), as "
       "llama4"},
      {"gemma2", ModelFamily::Gemma, "gemma-2-9b",
       "GQA with head_dim and query_pre_attn_scalar, local (sliding) and "
       "global layers alternating, logit soft-capping, GeGLU, sandwich norms"},
      {"gemma3_text", ModelFamily::Gemma, "gemma-3-1b",
       "Gemma-2's layers with QK norm, 5 local : 1 global, a local RoPE base, "
       "no soft-capping"},
      {"gpt2", ModelFamily::GPT2, "gpt2",
       "MHA, learned positions, LayerNorm, GELU MLP, Conv1D weights"},
  };
  return types;
}

FailureOr<ModelConfig>
mlir::npu::parseHFConfig(StringRef json, StringRef filename, Location loc) {
  llvm::Expected<llvm::json::Value> parsed = parseJsonInput(json);
  if (!parsed) {
    emitError(loc) << filename << ": malformed JSON: "
                   << llvm::toString(parsed.takeError());
    return failure();
  }
  const llvm::json::Object *obj = parsed->getAsObject();
  if (!obj) {
    emitError(loc) << filename << ": the top level must be a JSON object";
    return failure();
  }
  ModelConfig c{};
  FieldReader r(*obj, filename, loc);
  c.modelType = r.optString("model_type", "");
  r.ignoreMetadata();
  if (r.failed())
    return failure();
  const ModelTypeInfo *info = nullptr;
  for (const ModelTypeInfo &t : getSupportedModelTypes())
    if (c.modelType == t.modelType)
      info = &t;
  if (!info) {
    std::string known;
    for (const ModelTypeInfo &t : getSupportedModelTypes())
      known += (known.empty() ? "" : ", ") + std::string(t.modelType);
    r.error("model_type", c.modelType.empty() ? Twine("is missing")
                                              : Twine("is '") + c.modelType +
                                                    "'; supported: " + known);
    return failure();
  }
  c.family = info->family;
  switch (c.family) {
  case ModelFamily::DeepSeekV3:
    parseDeepSeekV3(r, c);
    break;
  case ModelFamily::Llama:
    parseLlamaLike(r, *obj, c);
    break;
  case ModelFamily::Gemma:
    parseGemma(r, *obj, c);
    break;
  case ModelFamily::Llama4:
    parseLlama4(r, c);
    break;
  case ModelFamily::GPT2:
    parseGPT2(r, c);
    break;
  }
  if (!r.failed())
    r.checkAllRead(c.modelType);
  if (r.failed())
    return failure();
  return c;
}

LogicalResult mlir::npu::verifyImportOptions(const ModelConfig &c,
                                             const ImportOptions &o,
                                             Location loc) {
  auto fail = [&](const Twine &msg) {
    emitError(loc) << msg;
    return failure();
  };
  if (o.batch < 1 || o.batch > (int64_t(1) << 20))
    return fail("--batch must be in [1, 2^20], got " + Twine(o.batch));
  if (o.phase == Phase::Prefill &&
      (o.seqLen < 1 || o.seqLen > (int64_t(1) << 30)))
    return fail("--seq-len must be in [1, 2^30], got " + Twine(o.seqLen));
  if (o.phase == Phase::Decode &&
      (o.contextLen < 0 || o.contextLen > (int64_t(1) << 30)))
    return fail("--context-len must be in [0, 2^30], got " +
                Twine(o.contextLen));
  if (o.actDType != "bf16" && o.actDType != "fp8" && o.actDType != "f16" &&
      o.actDType != "f32")
    return fail("--act-dtype must be bf16, fp8, f16 or f32, got '" +
                o.actDType + "'");
  if (!llvm::is_contained({"bf16", "fp8", "f16", "f32", "fp8-block", "mxfp4",
                           "nvfp4", "int8", "int4", "checkpoint"},
                          o.weightDType))
    return fail("--weight-dtype must be bf16, fp8, f16, f32, or a stored "
                "format: fp8-block, mxfp4, nvfp4, int8, int4, checkpoint; "
                "got '" +
                o.weightDType + "'");
  if (o.weightDType == "checkpoint" && c.quantMethod.empty())
    return fail("--weight-dtype=checkpoint: the config has no "
                "quantization_config");
  if (o.weightDType == "checkpoint" && c.quantMethod != "fp8" &&
      c.quantMethod != "mxfp4")
    return fail("--weight-dtype=checkpoint: quant_method '" + c.quantMethod +
                "' is not modelled (fp8 with block scales, mxfp4)");
  // GPT-OSS interleaves gate and up rows in one expert matrix: a scale
  // block spanning rows would be shared by both halves.
  bool rowBlocks = o.weightDType == "fp8-block" ||
                   (o.weightDType == "checkpoint" && c.quantMethod == "fp8" &&
                    c.quantBlockOut > 1);
  if (c.modelType == "gpt_oss" && rowBlocks)
    return fail("--weight-dtype=" + o.weightDType +
                ": blocks of several rows over gpt_oss's interleaved gate/up "
                "experts are not modelled (mxfp4, nvfp4, int8 and int4 block "
                "one row)");
  int64_t positions = o.phase == Phase::Prefill ? o.seqLen : o.contextLen + 1;
  if (c.family == ModelFamily::GPT2 && positions > c.maxPositions)
    return fail("sequence of " + Twine(positions) +
                " tokens exceeds n_positions (" + Twine(c.maxPositions) +
                "): GPT-2's learned position table has no row for it");
  if (o.includeMTP && c.family != ModelFamily::DeepSeekV3)
    return fail("--mtp applies to DeepSeek-V3 only");
  if (o.includeMTP && c.numMTPLayers < 1)
    return fail("--mtp needs an MTP module, but num_nextn_predict_layers is " +
                Twine(c.numMTPLayers));
  if (o.includeMTP && o.phase == Phase::Decode)
    return fail("--mtp is modelled for prefill only (decoding with MTP is "
                "speculative decoding, which is not modelled)");
  if (o.includeMTP && o.fromHidden)
    return fail("--mtp embeds the next tokens, but a step --from-hidden (a "
                "later pipeline stage) has no token ids");
  return success();
}
