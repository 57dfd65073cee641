//===- GraphBuilder.h - building npu model IR, for the importers ---------===//
//
// Private to the Import library. `GraphBuilder` wraps an OpBuilder with the
// shapes and dtypes of one import and offers one method per model-level step
// (linear layer, head split, rotary, attention...). `LayerFunc` builds one
// function per distinct layer kind whose weights are `npu.param` arguments,
// and remembers their names so that `@model` can create the weights of each
// layer and call the function.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_IMPORT_GRAPHBUILDER_H
#define NPU_LIB_IMPORT_GRAPHBUILDER_H

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Import/HFConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include <array>
#include <memory>
#include <string>
#include <vector>

namespace mlir::npu::import {

/// A weight of a layer function: its name below the layer prefix (e.g.
/// "self_attn.q_proj.weight") and its type.
struct ParamSpec {
  std::string name;
  RankedTensorType type;
};

/// The stored format of the linear weights of one import.
struct WeightFormat {
  enum Kind { Plain, Fp8Block, MXFP4, NVFP4, Int8, Int4 } kind = Plain;
  /// Block of one scale over a weight [out, in]: (rows, columns).
  int64_t blockOut = 1, blockIn = 1;
  /// Only the routed and shared experts are stored so (GPT-OSS's MXFP4
  /// checkpoint: attention, router, embeddings and head are not).
  bool expertsOnly = false;

  /// From --weight-dtype (a stored format's name, or "checkpoint" for the
  /// config's quantization_config); Plain for the plain dtypes.
  static WeightFormat get(const ModelConfig &config,
                          const ImportOptions &options);
};

class GraphBuilder {
public:
  GraphBuilder(OpBuilder &b, Location loc, const ModelConfig &config,
               const ImportOptions &options);

  OpBuilder &b;
  Location loc;
  const ModelConfig &cfg;
  const ImportOptions &opts;
  Type act;     ///< activations
  Type weight;  ///< linear-layer weights (bf16 or fp8)
  Type head;    ///< the untied LM head (as `weight`, but never fp8)
  Type small;   ///< norms, biases, embeddings (never fp8)
  Type kvCache; ///< KV cache elements
  /// How linear weights are stored (StoredWeights.h): `weight` itself, or
  /// a scaled format.
  WeightFormat format;
  int64_t batch; ///< B
  int64_t seq;   ///< tokens per sequence in this step (S; 1 for decode)
  int64_t past;  ///< tokens already cached (0 for prefill)

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type elt) const {
    return RankedTensorType::get(shape, elt);
  }
  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }

  /// x[..., in] * w[out, in]^T -> [..., out] (nn.Linear layout).
  Value linear(Value x, Value w, Type resultElt = {});
  /// x[..., in] * w[in, out] -> [..., out] (GPT-2's Conv1D layout).
  Value linearInOut(Value x, Value w);
  Value reshape(Value x, ArrayRef<int64_t> shape);
  Value transpose(Value x, ArrayRef<int64_t> perm);
  /// x[..., start : start + size*stride : stride, ...] along `dim`.
  Value slice(Value x, int64_t dim, int64_t start, int64_t size,
              int64_t stride = 1);
  Value concat(ValueRange xs, int64_t dim);
  Value add(Value a, Value b);
  Value rmsNorm(Value x, Value gamma);
  Value layerNorm(Value x, Value gamma, Value beta);
  /// RoPE with the config's rope_theta, or `theta` when given.
  Value rope(Value x, bool interleaved, double theta = 0);
  /// [B, S, H*d] -> [B, H, S, d].
  Value splitHeads(Value x, int64_t heads, int64_t headDim);
  /// [B, H, S, d] -> [B, S, H*d].
  Value mergeHeads(Value x);
  /// Causal attention; `window` > 0 limits each query to that many keys,
  /// `chunk` > 0 to the keys of its chunk, `softcap` > 0 soft-caps the
  /// logits.
  Value attention(Value q, Value k, Value v, std::optional<int64_t> latent,
                  double scale, int64_t window = 0, double softcap = 0,
                  Value sinks = {}, int64_t chunk = 0);
  Value embedding(Value table, Value ids);
  /// `model.embed_tokens.weight` [V, D] (Llama-style and DeepSeek names).
  Value embedTokensWeight();
  /// Writes `update` into `cache` at row `pos`; returns the updated cache.
  Value appendCache(Value cache, Value update, Value pos);
  /// Every row of a cache, as the keys/values a decode step attends over.
  Value readCache(Value cache);
};

/// Builds one layer-kind function. Arguments are the activations (and, for
/// decode, the write position and KV caches) followed by one `npu.param`
/// argument per weight, added on demand by `param`.
class LayerFunc {
public:
  LayerFunc(OpBuilder &moduleBuilder, Location loc, StringRef name,
            TypeRange leadingArgs);
  /// A new weight argument.
  Value param(StringRef name, RankedTensorType type);
  /// Finishes the function with these results; leaves `b` after it.
  func::FuncOp finish(OpBuilder &b, ValueRange results);

  BlockArgument arg(unsigned i) { return entry->getArgument(i); }
  ArrayRef<ParamSpec> params() const { return specs; }
  func::FuncOp getFunc() { return func; }

private:
  func::FuncOp func;
  Block *entry;
  unsigned numLeading;
  std::vector<ParamSpec> specs;
};

/// Creates `npu.weight` ops named `prefix + spec.name` for every parameter of
/// `layer` at the builder's position.
SmallVector<Value> createWeights(OpBuilder &b, Location loc, StringRef prefix,
                                 ArrayRef<ParamSpec> specs);

/// A gated MLP of width `ff` whose weights are
/// `prefix`.{gate,up,down}_proj (or, `fused`, `prefix`.gate_up_proj
/// [2 ff, D] and `prefix`.down_proj): act(x Wg^T) * (x Wu^T), then down.
Value swigluMLP(GraphBuilder &g, LayerFunc &f, Value x, StringRef prefix,
                int64_t ff, bool fused = false,
                GatedActivation act = GatedActivation::Silu,
                bool expert = false);

/// How one layer's grouped-query attention differs between model types.
struct AttentionSpec {
  int64_t window = 0;           ///< sliding window (0: none)
  int64_t chunk = 0;            ///< attention chunk (0: none)
  double ropeTheta = 0;         ///< RoPE base (0: the config's rope_theta)
  double scale = 0;             ///< softmax scale (0: 1/sqrt(head_dim))
  double softcap = 0;           ///< logit soft-cap (0: none)
  bool rope = true;             ///< RoPE on q and k (false: a NoPE layer)
  bool interleavedRope = false; ///< RoPE on adjacent pairs (Llama-4)
  /// After RoPE, an RMSNorm without weight of each q and k head (Llama-4).
  bool weightlessQkNorm = false;
  /// Queries scaled by the config's temperature of their position
  /// (Llama-4's NoPE layers; ModelConfig::attnScale).
  bool queryTemperature = false;
};

/// Grouped-query attention of a Llama-style layer on h [B, S, D]: q/k/v
/// projections (with the config's biases, or fused), per-head QK norm if
/// the config has it, RoPE, the KV-cache append (and, in decode, the read
/// of the cache: with a window only its last `window` rows), causal
/// attention and o_proj. The layer's K and V caches are arguments 2 and 3
/// of `f`; their updated values are appended to `caches`.
Value gqaAttention(GraphBuilder &g, LayerFunc &f, Value h,
                   const AttentionSpec &spec, SmallVectorImpl<Value> &caches);

/// Checkpoint names of an MoE block's weights (below the layer prefix).
struct MoENames {
  std::string router;  ///< [E, D] router ("mlp.gate.weight")
  std::string bias;    ///< [E] e_score_correction_bias, or "" for none
  std::string experts; ///< prefix of the stacked experts ("mlp.experts")
  /// The experts' gate, up and down matrices below `experts`.
  std::string gate = "gate_proj.weight", up = "up_proj.weight",
              down = "down_proj.weight";
  std::string shared; ///< prefix of the shared experts, or "" for none
  /// GPT-OSS: the router's own bias [E] (added to the logits), or "".
  std::string routerBias;
  /// GPT-OSS: one gate_up matrix [E, 2F, D] below `experts` whose even rows
  /// are the gate and odd rows the up projection, with its bias [E, 2F]
  /// and the down bias [E, D] (then `gate`/`up` are unused), or "".
  std::string gateUp, gateUpBias, downBias;
  /// `gateUp` holds the gate rows then the up rows (Llama-4), not
  /// interleaved ones.
  bool gateUpHalves = false;
};

/// The routed experts (and shared ones, `cfg.numSharedExperts` of width
/// `cfg.moeIntermediateSize`) of one MoE layer on h [B, S, D], routed by
/// npu.moe_router with the config's scoring, groups, norm and scale. With
/// expert parallelism (opts.expertParallel) it builds one chip's share.
Value moeBlock(GraphBuilder &g, LayerFunc &f, Value h, const MoENames &names);

/// What differs between model families; `importModel` drives it.
class Family {
public:
  virtual ~Family() = default;
  /// Builds the layer-kind functions (at the module builder's position).
  virtual void buildLayerKinds(OpBuilder &moduleBuilder, GraphBuilder &g) = 0;
  /// The kind of decoder layer `i`.
  virtual LayerFunc &kindOf(int64_t layer) = 0;
  /// KV-cache tensors per layer (decode), and their type.
  virtual unsigned cachesPerLayer() const = 0;
  virtual RankedTensorType cacheType(GraphBuilder &g) const = 0;
  /// Token ids [B, S] -> hidden states [B, S, D] (in @model).
  virtual Value embed(GraphBuilder &g, Value tokens) = 0;
  /// Last hidden state [B, 1, D] -> logits [B, 1, V] (in @model).
  virtual Value head(GraphBuilder &g, Value hidden) = 0;
  /// Weight-name prefix of decoder layer `i`.
  virtual std::string layerPrefix(int64_t i) const {
    return "model.layers." + std::to_string(i) + ".";
  }
  /// KV caches of extra layers outside the decoder stack (MTP).
  virtual unsigned numExtraCaches(GraphBuilder &g) const { return 0; }
  /// Extra outputs of `@model` computed from the final hidden states
  /// [B, S, D] (DeepSeek-V3's MTP logits and its updated cache).
  virtual SmallVector<Value> extraOutputs(GraphBuilder &g, Value hidden,
                                          Value tokens, Value pos,
                                          ValueRange extraCaches) {
    return {};
  }
};

/// A family of GQA layers with K and V caches whose layers are of a few
/// kinds (layerKind: by default, with and without the sliding window,
/// ModelConfig::isWindowed: `@<type>_layer` and `@<type>_sliding_layer`, one
/// name when all layers are of one kind). Each kind present is built once,
/// in the order of their numbers.
class WindowedFamily : public Family {
public:
  static constexpr unsigned kMaxKinds = 4;
  void buildLayerKinds(OpBuilder &mb, GraphBuilder &g) override {
    cfg = &g.cfg;
    std::array<bool, kMaxKinds> present = {};
    for (int64_t i = 0; i < cfg->numLayers; ++i)
      present[layerKind(i)] = true;
    for (unsigned k = 0; k < kMaxKinds; ++k)
      if (present[k])
        kinds[k] = buildLayer(mb, g, kindName(k, present), k);
  }
  LayerFunc &kindOf(int64_t i) override { return *kinds[layerKind(i)]; }
  std::string layerPrefix(int64_t i) const override {
    return cfg->weightPrefix + "model.layers." + std::to_string(i) + ".";
  }
  unsigned cachesPerLayer() const override { return 2; }
  RankedTensorType cacheType(GraphBuilder &g) const override {
    return g.tensor({g.batch, g.cfg.numKVHeads, g.past + g.seq, g.cfg.headDim},
                    g.kvCache);
  }
  /// `model.embed_tokens.weight` gathered at the tokens.
  Value embed(GraphBuilder &g, Value tokens) override {
    table = g.embedTokensWeight();
    return g.embedding(table, tokens);
  }
  /// `model.norm`, then the head: the embedding when tied, else
  /// `lm_head.weight`.
  Value head(GraphBuilder &g, Value hidden) override {
    int64_t d = g.cfg.hiddenSize;
    const std::string &prefix = g.cfg.weightPrefix;
    Value norm = WeightOp::create(g.b, g.loc, g.tensor({d}, g.small),
                                  prefix + "model.norm.weight");
    Value lmHead = g.cfg.tieEmbeddings
                       ? table
                       : WeightOp::create(
                             g.b, g.loc, g.tensor({g.cfg.vocabSize, d}, g.head),
                             prefix + "lm_head.weight")
                             .getResult();
    return g.linear(g.rmsNorm(hidden, norm), lmHead);
  }

protected:
  /// A new layer function (x, the write position, the K and V caches) with
  /// the builder at its start.
  std::unique_ptr<LayerFunc> startLayer(OpBuilder &mb, GraphBuilder &g,
                                        const std::string &name) {
    SmallVector<Type> lead = {
        g.tensor({g.batch, g.seq, g.cfg.hiddenSize}, g.act)};
    lead.append({mb.getIndexType(), cacheType(g), cacheType(g)});
    auto layer = std::make_unique<LayerFunc>(mb, g.loc, name, lead);
    g.b.setInsertionPointToEnd(&layer->getFunc().front());
    return layer;
  }

  /// A pre-norm layer (Llama's shape): x + attention(input_layernorm(x)) as
  /// `spec` says, then r + mlp(post_attention_layernorm(r)), returning x
  /// and the updated caches.
  std::unique_ptr<LayerFunc>
  preNormLayer(OpBuilder &mb, GraphBuilder &g, const std::string &name,
               const AttentionSpec &spec,
               function_ref<Value(LayerFunc &, Value)> mlp);

  /// One layer function of kind `kind`: x, the write position and the K
  /// and V caches, then its weights; returns x and the updated caches.
  virtual std::unique_ptr<LayerFunc> buildLayer(OpBuilder &mb, GraphBuilder &g,
                                                const std::string &name,
                                                unsigned kind) = 0;
  /// The kind of layer `i`, below kMaxKinds: by default 1 if windowed.
  virtual unsigned layerKind(int64_t i) const { return cfg->isWindowed(i); }
  /// The function name of kind `kind`, knowing the kinds present.
  virtual std::string kindName(unsigned kind, ArrayRef<bool> present) const {
    bool windowedOnly = kind == 1 && !present[0];
    return cfg->modelType +
           (kind == 1 && !windowedOnly ? "_sliding_layer" : "_layer");
  }

  const ModelConfig *cfg = nullptr;

private:
  std::array<std::unique_ptr<LayerFunc>, kMaxKinds> kinds;
  Value table;
};

std::unique_ptr<Family> createLlamaFamily();
std::unique_ptr<Family> createGemmaFamily();
std::unique_ptr<Family> createLlama4Family();
std::unique_ptr<Family> createGPT2Family();
std::unique_ptr<Family> createDeepSeekV3Family();

} // namespace mlir::npu::import

#endif // NPU_LIB_IMPORT_GRAPHBUILDER_H
