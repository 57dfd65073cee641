//===- ImportAttention.cpp - the grouped-query attention block ------------===//
//
// The attention block every Llama-style and Gemma layer shares: projections
// (biased or fused where the config says), per-head QK norm, RoPE, the KV
// cache, causal (sliding-window, soft-capped) attention and the output
// projection.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"
#include "StoredWeights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

/// q [B, H, S, D] times Llama-4's temperature of each query's position p
/// (past + i): 1 + attn_scale * log1p(floor((p + 1) / floor_scale)), an f32
/// [S, 1] constant (a splat while every position is below floor_scale - 1).
static Value queryTemperature(GraphBuilder &g, Value q) {
  const ModelConfig &c = g.cfg;
  std::vector<float> scales;
  for (int64_t i = 0; i < g.seq; ++i) {
    double p = double(g.past + i);
    scales.push_back(static_cast<float>(
        1.0 + c.attnScale * std::log1p(std::floor((p + 1.0) /
                                                  double(c.attnFloorScale)))));
  }
  auto type = g.tensor({g.seq, 1}, g.b.getF32Type());
  bool splat = llvm::all_equal(scales);
  DenseElementsAttr values =
      splat ? DenseElementsAttr::get(type, scales.front())
            : DenseElementsAttr::get(type, ArrayRef<float>(scales));
  Value t = arith::ConstantOp::create(g.b, g.loc, values);
  return MulOp::create(g.b, g.loc, q.getType(), q, t);
}

std::unique_ptr<LayerFunc>
WindowedFamily::preNormLayer(OpBuilder &mb, GraphBuilder &g,
                             const std::string &name, const AttentionSpec &spec,
                             function_ref<Value(LayerFunc &, Value)> mlp) {
  int64_t d = g.cfg.hiddenSize;
  // Both phases write the KV cache (prefill fills it for the decode steps
  // that follow); decode then attends over the cache.
  std::unique_ptr<LayerFunc> layer = startLayer(mb, g, name);
  LayerFunc &f = *layer;
  Value x = f.arg(0);
  SmallVector<Value> results;
  auto norm = [&](Value v, StringRef which) {
    return g.rmsNorm(
        v, f.param((which + ".weight").str(), g.tensor({d}, g.small)));
  };
  Value r1 =
      g.add(x, gqaAttention(g, f, norm(x, "input_layernorm"), spec, results));
  results.insert(results.begin(),
                 g.add(r1, mlp(f, norm(r1, "post_attention_layernorm"))));
  layer->finish(mb, results);
  return layer;
}

Value mlir::npu::import::gqaAttention(GraphBuilder &g, LayerFunc &f, Value h,
                                      const AttentionSpec &spec,
                                      SmallVectorImpl<Value> &caches) {
  const ModelConfig &c = g.cfg;
  int64_t d = c.hiddenSize, hd = c.headDim;
  int64_t hq = c.numHeads, hkv = c.numKVHeads;
  auto biased = [&](Value y, StringRef name, int64_t width, bool bias) {
    if (!bias)
      return y;
    return g.add(y, f.param(("self_attn." + name + ".bias").str(),
                            g.tensor({width}, g.small)));
  };
  Value q, k, v;
  if (c.fusedProjections) {
    // One [(Hq + 2 Hkv) hd, D] matrix (Phi-3's qkv_proj): one GEMM.
    Value qkv = g.linear(h, linearWeight(g, f, "self_attn.qkv_proj.weight",
                                         {(hq + 2 * hkv) * hd, d}));
    q = g.slice(qkv, 2, 0, hq * hd);
    k = g.slice(qkv, 2, hq * hd, hkv * hd);
    v = g.slice(qkv, 2, (hq + hkv) * hd, hkv * hd);
  } else {
    auto proj = [&](StringRef name, int64_t heads) {
      Value w = linearWeight(g, f, ("self_attn." + name + ".weight").str(),
                             {heads * hd, d});
      return biased(g.linear(h, w), name, heads * hd, c.qkvBias);
    };
    q = proj("q_proj", hq);
    k = proj("k_proj", hkv);
    v = proj("v_proj", hkv);
  }
  q = g.splitHeads(q, hq, hd);
  k = g.splitHeads(k, hkv, hd);
  v = g.splitHeads(v, hkv, hd);
  if (c.qkNorm) {
    // Qwen3, Gemma-3: RMSNorm over each head's features, before RoPE.
    q = g.rmsNorm(q,
                  f.param("self_attn.q_norm.weight", g.tensor({hd}, g.small)));
    k = g.rmsNorm(k,
                  f.param("self_attn.k_norm.weight", g.tensor({hd}, g.small)));
  }
  if (spec.rope) {
    q = g.rope(q, spec.interleavedRope, spec.ropeTheta);
    k = g.rope(k, spec.interleavedRope, spec.ropeTheta);
  }
  if (spec.weightlessQkNorm) {
    // Llama-4: RMSNorm without weight of each head's features, after RoPE.
    q = g.rmsNorm(q, Value());
    k = g.rmsNorm(k, Value());
  }
  if (spec.queryTemperature)
    q = queryTemperature(g, q);
  // Both phases write the new keys and values into the cache; decode then
  // attends over the cached rows: with a window only the last `window` of
  // them, with chunks those of the current chunk (a view: the rows before
  // it are not read; the chunk starts at a multiple of C, so the mask
  // holds in the view's positions too).
  Value kCache = g.appendCache(f.arg(2), k, f.arg(1));
  Value vCache = g.appendCache(f.arg(3), v, f.arg(1));
  caches.append({kCache, vCache});
  if (g.opts.phase == Phase::Decode) {
    k = g.readCache(kCache);
    v = g.readCache(vCache);
    // The first key the last query sees (decode: the one query).
    int64_t rows = g.past + g.seq;
    int64_t first =
        AttentionOp::firstVisibleKey(rows - 1, spec.window, spec.chunk);
    if (first > 0) {
      k = g.slice(k, 2, first, rows - first);
      v = g.slice(v, 2, first, rows - first);
    }
  }
  double scale = spec.scale > 0 ? spec.scale : 1.0 / std::sqrt(double(hd));
  Value sinks;
  if (c.attentionSinks) // GPT-OSS: a learned sink logit per query head
    sinks = f.param("self_attn.sinks", g.tensor({hq}, g.small));
  Value o = g.attention(q, k, v, std::nullopt, scale, spec.window, spec.softcap,
                        sinks, spec.chunk);
  Value out =
      g.linear(g.mergeHeads(o),
               linearWeight(g, f, "self_attn.o_proj.weight", {d, hq * hd}));
  return biased(out, "o_proj", d, c.oBias);
}
