//===- HFConfig.h - Hugging Face config.json to npu IR -----------*- C++
//-*-===//
//
// The model families npu imports (DeepSeek-V3 and its relatives, the
// Llama-style decoders, GPT-2), the subset of a Hugging Face `config.json`
// each needs, and the import options (phase, batch, lengths, dtypes).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_IMPORT_HFCONFIG_H
#define NPU_IMPORT_HFCONFIG_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::npu {

/// The importer that builds a model: DeepSeekV3 (MLA, DeepSeek MoE: also
/// DeepSeek-V2 and Kimi-K2), Llama (GQA decoders with RoPE and SwiGLU:
/// Llama, Mistral, Mixtral, Qwen2, Qwen3, Qwen3-MoE, Phi-3, GPT-OSS), Gemma
/// (Gemma-2 and -3: sandwich norms, GeGLU, local and global layers), Llama4
/// (chunked and NoPE layers, dense and MoE layers interleaved) and GPT-2.
enum class ModelFamily { DeepSeekV3, Llama, Gemma, Llama4, GPT2 };

/// One importable `model_type`: its family and what it models.
struct ModelTypeInfo {
  const char *modelType;
  ModelFamily family;
  const char *example;  ///< bundled config (examples/configs/<name>.json)
  const char *modelled; ///< the architecture, in a few words
};
/// Every `model_type` the importer accepts, in a fixed order.
ArrayRef<ModelTypeInfo> getSupportedModelTypes();

/// The architecture of one model, read from config.json. Field names follow
/// the Hugging Face names (in comments) so that errors can name them.
struct ModelConfig {
  ModelFamily family;
  std::string modelType;    // model_type
  int64_t hiddenSize;       // hidden_size | n_embd
  int64_t numLayers;        // num_hidden_layers | n_layer
  int64_t numHeads;         // num_attention_heads | n_head
  int64_t numKVHeads;       // num_key_value_heads (= heads for GPT-2)
  int64_t headDim;          // hidden / heads (Llama, GPT-2)
  int64_t intermediateSize; // intermediate_size | n_inner (4*n_embd)
  int64_t vocabSize;        // vocab_size
  int64_t maxPositions;     // max_position_embeddings | n_positions
  double normEps;           // rms_norm_eps | layer_norm_epsilon
  double ropeTheta;         // rope_theta (Llama, DeepSeek)
  bool tieEmbeddings;       // tie_word_embeddings
  // Llama-style decoders.
  bool qkvBias = false; // q/k/v_proj biases (qwen2; llama attention_bias)
  bool oBias = false;   // o_proj bias (llama attention_bias)
  bool qkNorm = false;  // RMSNorm of each query and key head (qwen3, gemma3)
  bool fusedProjections = false; // qkv_proj and gate_up_proj (phi3)
  bool attentionSinks = false;   // a learned sink logit per head (gpt_oss)
  /// Sliding-window attention of `slidingWindow` keys (0: none) in the
  /// layers `windowedLayers` marks (one entry per layer when the window is
  /// on: every layer for Mistral, those from max_window_layers for Qwen,
  /// every other one for Gemma-2, five of six for Gemma-3).
  int64_t slidingWindow = 0; // sliding_window (where it applies)
  std::vector<bool> windowedLayers;
  bool isWindowed(int64_t layer) const {
    return slidingWindow > 0 && windowedLayers[layer];
  }
  // Gemma.
  double queryScale = 0;     // query_pre_attn_scalar^-1/2 (0: 1/sqrt(d))
  double attnSoftcap = 0;    // attn_logit_softcapping (0: none)
  double finalSoftcap = 0;   // final_logit_softcapping (0: none)
  double localRopeTheta = 0; // rope_local_base_freq (0: rope_theta)
  // GPT-2 only: activation_function "gelu" is the exact (erf) GELU;
  // "gelu_new" and "gelu_pytorch_tanh" are the tanh approximation.
  bool exactGelu = false;
  // DeepSeek-V3 (MLA, MoE); the MoE fields also for Mixtral and Qwen3-MoE.
  int64_t qLoraRank = 0;           // q_lora_rank (0: q_proj, no low rank)
  int64_t kvLoraRank = 0;          // kv_lora_rank
  int64_t qkNopeHeadDim = 0;       // qk_nope_head_dim
  int64_t qkRopeHeadDim = 0;       // qk_rope_head_dim
  int64_t vHeadDim = 0;            // v_head_dim
  int64_t moeIntermediateSize = 0; // moe_intermediate_size
  int64_t numRoutedExperts = 0;    // n_routed_experts
  int64_t numSharedExperts = 0;    // n_shared_experts
  int64_t numExpertsPerToken = 0;  // num_experts_per_tok
  int64_t numGroups = 0;           // n_group
  int64_t topkGroups = 0;          // topk_group
  int64_t firstDenseLayers = 0;    // first_k_dense_replace
  int64_t numMTPLayers = 0;        // num_nextn_predict_layers
  double routedScalingFactor = 1;  // routed_scaling_factor
  bool normTopkProb = false;       // norm_topk_prob
  bool sigmoidScoring = false;     // scoring_func == "sigmoid"
  /// topk_method "noaux_tc": selection on scores plus
  /// e_score_correction_bias (DeepSeek-V3, Kimi-K2); else no bias.
  bool scoreCorrectionBias = false;
  /// GPT-OSS: the clamp of its SwiGLU (swiglu_limit; 0: plain SwiGLU).
  double swigluLimit = 0;
  // Llama-4 (docs/import.md): chunked attention of `attentionChunk`
  // positions (attention_chunk_size) in the RoPE layers; the layers
  // `noRopeLayers` marks (no_rope_layers entry 0) use no RoPE, attend to
  // every earlier key and scale their queries by the temperature 1 +
  // attnScale * log1p(floor((p + 1) / attnFloorScale)) at position p
  // (attn_temperature_tuning; attnScale 0: off); `moeLayers` marks the MoE
  // layers (moe_layers; empty: all, when there are routed experts), the
  // others a dense MLP of intermediate_size_mlp (intermediateSize; the
  // experts' width is moeIntermediateSize).
  int64_t attentionChunk = 0;
  std::vector<bool> noRopeLayers, moeLayers;
  double attnScale = 0;
  int64_t attnFloorScale = 0;
  /// use_qk_norm: RMSNorm without weight of each query and key head, after
  /// RoPE, in the RoPE layers (Llama4TextL2Norm).
  bool weightlessQkNorm = false;
  /// The router score multiplies the routed expert's input row instead of
  /// its output (Llama-4; vLLM's apply_router_weight_on_input).
  bool routerWeightsInput = false;
  /// Prefix of every weight name: "language_model." for a multimodal
  /// checkpoint whose decoder is its text_config (Llama-4).
  std::string weightPrefix;

  bool isMoELayer(int64_t layer) const {
    return numRoutedExperts > 0 && (moeLayers.empty() || moeLayers[layer]);
  }
  bool isNoRope(int64_t layer) const {
    return !noRopeLayers.empty() && noRopeLayers[layer];
  }
  /// Keeps the last `layers` layers (a pipeline stage): the per-layer lists
  /// and the leading dense layers cut alike.
  void keepLastLayers(int64_t layers) {
    int64_t drop = numLayers - layers;
    for (std::vector<bool> *v : {&windowedLayers, &noRopeLayers, &moeLayers})
      if (!v->empty())
        v->erase(v->begin(), v->begin() + drop);
    firstDenseLayers = std::max<int64_t>(0, firstDenseLayers - drop);
    numLayers = layers;
  }
  /// Selection scores summed into a group's score to rank the groups: 2
  /// (noaux_tc) or 1, the group's best expert (group_limited_greedy).
  int64_t groupScoreTop = 2;

  /// quantization_config: how the checkpoint stores its linear weights
  /// (used by --weight-dtype=checkpoint; docs/formats.md). quantMethod
  /// "fp8" (e4m3 values, f32 scales over quantBlock = weight_block_size,
  /// dynamic activation scales), "mxfp4", or empty (none).
  std::string quantMethod;
  int64_t quantBlockOut = 0, quantBlockIn = 0;
  /// modules_to_not_convert names the attention layers: only the experts
  /// are stored so (GPT-OSS).
  bool quantExpertsOnly = false;
};

enum class Phase { Prefill, Decode };

/// What to build from a config.
struct ImportOptions {
  Phase phase = Phase::Prefill;
  int64_t batch = 1;
  int64_t seqLen = 4096;     // prefill: tokens per sequence
  int64_t contextLen = 4096; // decode: tokens already in the KV cache
  /// bf16 | fp8 | f16 | f32, or a stored format of the linear weights:
  /// fp8-block | mxfp4 | nvfp4 | int8 | int4 | checkpoint (the config's
  /// quantization_config) (docs/formats.md).
  std::string weightDType = "bf16";
  std::string actDType = "bf16"; // bf16 | f16 | f32 (KV cache, activations)
  bool includeMTP = false;       // DeepSeek-V3's multi-token-prediction module
  /// Build what one chip of an expert-parallel group of this many chips runs
  /// (attention data-parallel): ceil(E / expertParallel) routed experts
  /// taking this chip's share of all the group's routed rows, B*S*k on
  /// average; shared experts on the chip's own tokens. 1: every expert.
  int64_t expertParallel = 1;
  /// The step of a later pipeline stage: `@model` takes the residual stream
  /// [B, S, D] (activations) the stage before it sends, in place of the
  /// token ids and their embedding (no embedding table in its bill).
  bool fromHidden = false;
};

/// Whether the experts of an import with --weight-dtype `weights` take fp8
/// (or narrower) activations, so that expert-parallel dispatch sends them in
/// fp8 (DeepEP quantizes before sending): fp8 weights and the fp8/fp4
/// stored formats (checkpoint: the fp8 or MXFP4 ones), not the weight-only
/// integer formats, whose activations stay in their own type.
inline bool expertsTakeFp8(llvm::StringRef weights) {
  return weights == "fp8" || weights == "fp8-block" || weights == "mxfp4" ||
         weights == "nvfp4" || weights == "checkpoint";
}

/// Parses a config.json. On error, emits a diagnostic at `loc` that names the
/// file and the offending field, and fails.
FailureOr<ModelConfig> parseHFConfig(StringRef json, StringRef filename,
                                     Location loc);

/// Checks the options against the config (lengths within limits, dtypes
/// known); emits at `loc` and fails otherwise.
LogicalResult verifyImportOptions(const ModelConfig &config,
                                  const ImportOptions &options, Location loc);

/// Builds the whole model as npu IR: one function per distinct layer kind,
/// called once per layer from `@model`, weights as `npu.weight` ops in
/// `@model` passed to the layers as `npu.param` arguments.
OwningOpRef<ModuleOp> importModel(const ModelConfig &config,
                                  const ImportOptions &options,
                                  MLIRContext *context);

/// The first tensor type in `module` that exceeds the dialect's limits (a
/// dimension outside [1, 2^40) or more than 2^63 - 1 bytes), or null. The
/// config's fields are each bounded, but their products with the batch and
/// lengths can still exceed the limits; checking an imported module with
/// this before verifying it gives one error that names the tensor instead of
/// one verifier error per op.
Type findOversizedType(ModuleOp module);

} // namespace mlir::npu

#endif // NPU_IMPORT_HFCONFIG_H
