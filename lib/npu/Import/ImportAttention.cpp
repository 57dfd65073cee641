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

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

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
  q = g.rope(q, /*interleaved=*/false, spec.ropeTheta);
  k = g.rope(k, /*interleaved=*/false, spec.ropeTheta);
  // Both phases write the new keys and values into the cache; decode then
  // attends over the cached rows, and with a window only the last `window`
  // of them (a view: the rows before it are not read).
  Value kCache = g.appendCache(f.arg(2), k, f.arg(1));
  Value vCache = g.appendCache(f.arg(3), v, f.arg(1));
  caches.append({kCache, vCache});
  if (g.opts.phase == Phase::Decode) {
    k = g.readCache(kCache);
    v = g.readCache(vCache);
    int64_t rows = g.past + g.seq;
    if (spec.window > 0 && spec.window < rows) {
      k = g.slice(k, 2, rows - spec.window, spec.window);
      v = g.slice(v, 2, rows - spec.window, spec.window);
    }
  }
  double scale = spec.scale > 0 ? spec.scale : 1.0 / std::sqrt(double(hd));
  Value sinks;
  if (c.attentionSinks) // GPT-OSS: a learned sink logit per query head
    sinks = f.param("self_attn.sinks", g.tensor({hq}, g.small));
  Value o = g.attention(q, k, v, std::nullopt, scale, spec.window, spec.softcap,
                        sinks);
  Value out =
      g.linear(g.mergeHeads(o),
               linearWeight(g, f, "self_attn.o_proj.weight", {d, hq * hd}));
  return biased(out, "o_proj", d, c.oBias);
}
