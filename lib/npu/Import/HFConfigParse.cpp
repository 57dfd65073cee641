//===- HFConfigParse.cpp - read and check a Hugging Face config.json ------===//

#include "npu/Import/HFConfig.h"
#include "npu/Support/FormatReal.h"
#include "npu/Support/InputFiles.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

namespace {
/// Upper bound of every size field (hidden_size, vocab_size...): far above
/// any real model, and low enough that the products the importer forms from
/// two fields (heads x head dim, shared experts x intermediate size) cannot
/// overflow int64. Tensors that still exceed the dialect's limits (a
/// dimension of 2^40 or more, or more than 2^63 bytes) are rejected after the
/// import, with the tensor named.
constexpr int64_t kMaxField = int64_t(1) << 30;

/// Reads typed fields of one JSON object and reports the first error with the
/// file and field name.
class FieldReader {
public:
  FieldReader(const llvm::json::Object &obj, StringRef file, Location loc)
      : obj(obj), file(file), loc(loc) {}

  bool failed() const { return hasError; }

  /// A field that does not change the priced graph (metadata, training
  /// settings, the stored number format): read and ignored.
  void ignore(StringRef key) { used.insert(key); }
  /// A field the importer models only at one value (or absent/null):
  /// `expected` as JSON, e.g. "false" or "null".
  void only(StringRef key, StringRef expected, StringRef why) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return;
    std::string got = llvm::formatv("{0}", *v).str();
    if (got != expected)
      error(key,
            "is " + got + "; only " + expected + " is modelled (" + why + ")");
  }
  /// Fails on the first field (sorted) that was neither read nor ignored:
  /// importing would build a different model than the file describes.
  void checkAllRead(StringRef modelType) {
    std::vector<StringRef> keys;
    for (const auto &kv : obj)
      keys.push_back(kv.first);
    llvm::sort(keys);
    for (StringRef k : keys)
      if (!used.contains(k))
        return error(k, "is not modelled for model_type '" + modelType +
                            "': the import would describe a different "
                            "model than the file (docs/import.md lists the "
                            "fields read and ignored)");
  }

  /// A required integer in [lo, hi].
  int64_t integer(StringRef key, int64_t lo = 1, int64_t hi = kMaxField) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return error(key, "is missing"), 0;
    return checkInt(key, *v, lo, hi);
  }
  /// An optional integer (absent or null gives `dflt`).
  int64_t optInteger(StringRef key, int64_t dflt, int64_t lo = 0,
                     int64_t hi = kMaxField) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return dflt;
    return checkInt(key, *v, lo, hi);
  }
  /// A required finite number > 0.
  double positive(StringRef key) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return error(key, "is missing"), 0;
    return checkPositive(key, *v);
  }
  double optPositive(StringRef key, double dflt) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return dflt;
    return checkPositive(key, *v);
  }
  bool optBool(StringRef key, bool dflt) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return dflt;
    if (std::optional<bool> b = v->getAsBoolean())
      return *b;
    error(key, "must be true or false");
    return dflt;
  }
  std::string optString(StringRef key, StringRef dflt) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return dflt.str();
    if (std::optional<StringRef> s = v->getAsString())
      return s->str();
    error(key, "must be a string");
    return dflt.str();
  }

  void error(StringRef key, const Twine &msg) {
    if (hasError)
      return; // report the first problem only
    hasError = true;
    emitError(loc) << file << ": field '" << key << "' " << msg;
  }

private:
  const llvm::json::Value *get(StringRef key) {
    used.insert(key);
    return obj.get(key);
  }

  int64_t checkInt(StringRef key, const llvm::json::Value &v, int64_t lo,
                   int64_t hi) {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i) {
      // Accept 1.0e4-style integral floats (rope_theta is often written so).
      std::optional<double> d = v.getAsNumber();
      if (d && std::isfinite(*d) && *d == std::floor(*d) &&
          std::fabs(*d) < 9.0e15)
        i = static_cast<int64_t>(*d);
    }
    if (!i) {
      error(key, "must be an integer");
      return 0;
    }
    if (*i < lo || *i > hi) {
      error(key, "is " + Twine(*i) + ", expected a value in [" + Twine(lo) +
                     ", " + Twine(hi) + "]");
      return 0;
    }
    return *i;
  }
  double checkPositive(StringRef key, const llvm::json::Value &v) {
    std::optional<double> d = v.getAsNumber();
    if (!d) {
      error(key, "must be a number");
      return 0;
    }
    if (!std::isfinite(*d) || *d <= 0) {
      error(key, "must be a finite number > 0");
      return 0;
    }
    // The ops that use these (norm eps, RoPE base, the routed scale)
    // compute in f32.
    float f = static_cast<float>(*d);
    if (!(f > 0.0f) || !std::isfinite(f)) {
      error(key, "is " + formatShortestReal(*d) +
                     ", not a finite positive f32 value (the ops compute in "
                     "f32)");
      return 0;
    }
    return *d;
  }

  const llvm::json::Object &obj;
  StringRef file;
  Location loc;
  bool hasError = false;
  llvm::StringSet<> used;
};

/// The fields Llama-style decoders (Llama, DeepSeek-V3) share, with their
/// Hugging Face names.
void parseDecoderFields(FieldReader &r, ModelConfig &c) {
  // YaRN / llama3 rope scaling changes RoPE's frequencies (values, not
  // shapes, FLOPs or bytes); the stored number format is an import option
  // (--weight-dtype, --act-dtype). docs/import.md, "not modelled".
  r.ignore("rope_scaling");
  r.ignore("quantization_config");
  r.only("sliding_window", "null", "every layer attends to the whole context");
  r.only("use_sliding_window", "false",
         "every layer attends to the whole context");
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

void parseLlama(FieldReader &r, ModelConfig &c) {
  parseDecoderFields(r, c);
  // Variants the Llama importer does not build; reject them rather than
  // import a different model.
  std::string act = r.optString("hidden_act", "silu");
  bool attentionBias = r.optBool("attention_bias", false);
  bool mlpBias = r.optBool("mlp_bias", false);
  int64_t headDim = r.optInteger("head_dim", 0, 1);
  if (r.failed())
    return;
  if (act != "silu")
    return r.error("hidden_act", "is '" + act + "'; supported: silu");
  if (attentionBias)
    return r.error("attention_bias", "is true; only bias-free attention "
                                     "projections are supported");
  if (mlpBias)
    return r.error("mlp_bias", "is true; only a bias-free MLP is supported");
  if (c.hiddenSize % c.numHeads != 0)
    return r.error("num_attention_heads",
                   "(" + Twine(c.numHeads) + ") does not divide hidden_size (" +
                       Twine(c.hiddenSize) + ")");
  if (c.numHeads % c.numKVHeads != 0)
    return r.error("num_key_value_heads",
                   "(" + Twine(c.numKVHeads) +
                       ") does not divide num_attention_heads (" +
                       Twine(c.numHeads) + ")");
  c.headDim = c.hiddenSize / c.numHeads;
  if (headDim != 0 && headDim != c.headDim)
    return r.error("head_dim", "(" + Twine(headDim) +
                                   ") differs from hidden_size / "
                                   "num_attention_heads (" +
                                   Twine(c.headDim) + "); not supported");
  if (c.headDim % 2 != 0)
    return r.error("num_attention_heads",
                   "gives an odd head dim " + Twine(c.headDim) +
                       "; rotary embeddings need an even one");
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

void parseDeepSeekV3(FieldReader &r, ModelConfig &c) {
  parseDecoderFields(r, c);
  c.qLoraRank = r.integer("q_lora_rank");
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
  r.only("topk_method", "\"noaux_tc\"",
         "group-limited top-k on bias-corrected scores");
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
} // namespace

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
  // Metadata, tokenizer ids and training-only settings of every family.
  for (StringRef k : {"architectures",
                      "transformers_version",
                      "_name_or_path",
                      "torch_dtype",
                      "dtype",
                      "bos_token_id",
                      "eos_token_id",
                      "pad_token_id",
                      "initializer_range",
                      "use_cache",
                      "tokenizer_class",
                      "auto_map",
                      "id2label",
                      "label2id",
                      "return_dict",
                      "output_attentions",
                      "output_hidden_states",
                      "pretraining_tp",
                      "attention_dropout",
                      "hidden_dropout"})
    r.ignore(k);
  if (r.failed())
    return failure();
  if (c.modelType == "deepseek_v3") {
    c.family = ModelFamily::DeepSeekV3;
    parseDeepSeekV3(r, c);
  } else if (c.modelType == "llama") {
    c.family = ModelFamily::Llama;
    parseLlama(r, c);
  } else if (c.modelType == "gpt2") {
    c.family = ModelFamily::GPT2;
    parseGPT2(r, c);
  } else {
    r.error("model_type", c.modelType.empty()
                              ? Twine("is missing")
                              : Twine("is '") + c.modelType +
                                    "'; supported: deepseek_v3, llama, gpt2");
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
  for (auto [flag, d] : {std::make_pair("--weight-dtype", &o.weightDType),
                         std::make_pair("--act-dtype", &o.actDType)})
    if (*d != "bf16" && *d != "fp8" && *d != "f16" && *d != "f32")
      return fail(Twine(flag) + " must be bf16, fp8, f16 or f32, got '" + *d +
                  "'");
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
  return success();
}
