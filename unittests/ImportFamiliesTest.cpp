//===- ImportFamiliesTest.cpp - the model families, counted by hand -------===//
//
// Each bundled config of the families beyond Llama-3, GPT-2 and DeepSeek-V3
// (examples/configs/*.json, copied from the published config.json) is
// imported; its parameter count is checked against arithmetic done by hand
// from the config and against the count published for the checkpoint (the
// Hugging Face safetensors total), its active parameters per token (the
// bill's) against the same arithmetic, and the IR against what the config
// asks for (biases, QK norm, windows, fused projections, routing).
// Notation: V vocab, D hidden, L layers, F intermediate, Hq/Hkv heads of hd.
//
//===----------------------------------------------------------------------===//

#include "ImportTestUtils.h"

#include "npu/Analysis/Bill.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {

/// Attention weights of a bias-free GQA layer: q and o [Hq hd, D], k and v
/// [Hkv hd, D].
constexpr uint64_t gqa(uint64_t d, uint64_t hq, uint64_t hkv, uint64_t hd) {
  return 2 * hq * hd * d + 2 * hkv * hd * d;
}
/// A SwiGLU MLP of width f: gate, up [f, D], down [D, f].
constexpr uint64_t swiglu(uint64_t d, uint64_t f) { return 3 * d * f; }
/// embed_tokens and an untied lm_head [V, D], and the final norm.
constexpr uint64_t outer(uint64_t v, uint64_t d) { return 2 * v * d + d; }

class ImportFamiliesTest : public ImportTest {
protected:
  /// The bill's parameters and active parameters of a decode step.
  std::pair<uint64_t, uint64_t> billCounts(ModuleOp module) {
    FailureOr<ModelBill> bill = computeBill(module, target("h100"));
    EXPECT_TRUE(succeeded(bill));
    if (failed(bill))
      return {0, 0};
    return {bill->parameterCount.value(), bill->activeParameterCount.value()};
  }

  /// The ops of type OpTy in the function `name`.
  template <typename OpTy>
  SmallVector<OpTy> opsIn(ModuleOp module, StringRef name) {
    SmallVector<OpTy> ops;
    if (func::FuncOp f = function(module, name))
      f.walk([&](OpTy op) { ops.push_back(op); });
    return ops;
  }

  /// Names of the `npu.weight` ops whose name contains `part`.
  static SmallVector<std::string> weightsNamed(ModuleOp module,
                                               StringRef part) {
    SmallVector<std::string> names;
    module.walk([&](WeightOp w) {
      if (w.getName().contains(part))
        names.push_back(w.getName().str());
    });
    return names;
  }
};

//===----------------------------------------------------------------------===//
// Dense decoders.
//===----------------------------------------------------------------------===//

// Mistral-7B-v0.1: V 32000, D 4096, L 32, Hq 32, Hkv 8, hd 128, F 14336,
// sliding window 4096. Published: 7,241,732,096.
constexpr uint64_t kMistralLayer =
    gqa(4096, 32, 8, 128) + swiglu(4096, 14336) + 2 * 4096;
constexpr uint64_t kMistral = outer(32000, 4096) + 32 * kMistralLayer;
static_assert(kMistral == 7241732096, "Mistral-7B");

TEST_F(ImportFamiliesTest, MistralParametersAndWindow) {
  OwningOpRef<ModuleOp> m = import("mistral-7b", decode(1, 8191));
  ASSERT_TRUE(m);
  EXPECT_EQ(weights(*m).elements, kMistral);
  // Decode after 8191 cached tokens: each query sees the last 4096 keys
  // only, and only those rows are read (a view of the cache).
  SmallVector<AttentionOp> attn = opsIn<AttentionOp>(*m, "mistral_layer");
  ASSERT_EQ(attn.size(), 1u);
  EXPECT_EQ(attn[0].getWindowAttr().getInt(), 4096);
  EXPECT_EQ(attn[0].getDims().kvLen, 4096);
  // The cache itself holds every token (8192 rows).
  EXPECT_EQ(cacheBytesPerToken(*m), 2u * 8 * 128 * 32 * 2);
  // Prefill of 8192 tokens: pairs = sum_i min(i + 1, 4096).
  OwningOpRef<ModuleOp> p = import("mistral-7b", prefill(8192));
  ASSERT_TRUE(p);
  SmallVector<AttentionOp> pa = opsIn<AttentionOp>(*p, "mistral_layer");
  ASSERT_EQ(pa.size(), 1u);
  Work w = getCheckedWork(pa[0]).value();
  uint64_t pairs = 4096ull * 4097 / 2 + 4096ull * 4096;
  EXPECT_EQ(w.matrixFlops.value(), 2ull * 32 * pairs * (128 + 128));
}

// Qwen2.5-7B: V 152064, D 3584, L 28, Hq 28, Hkv 4, hd 128, F 18944, q/k/v
// biases (no o bias), use_sliding_window false. Published: 7,615,616,512.
constexpr uint64_t kQwen25Layer =
    gqa(3584, 28, 4, 128) + (28 + 8) * 128 + swiglu(3584, 18944) + 2 * 3584;
constexpr uint64_t kQwen25 = outer(152064, 3584) + 28 * kQwen25Layer;
static_assert(kQwen25 == 7615616512, "Qwen2.5-7B");

TEST_F(ImportFamiliesTest, Qwen2ParametersAndBiases) {
  OwningOpRef<ModuleOp> m = import("qwen2.5-7b", prefill(16));
  ASSERT_TRUE(m);
  EXPECT_EQ(weights(*m).elements, kQwen25);
  SmallVector<std::string> biases = weightsNamed(*m, "model.layers.0.");
  llvm::erase_if(biases, [](const std::string &n) {
    return !StringRef(n).ends_with(".bias");
  });
  EXPECT_EQ(biases,
            (SmallVector<std::string>{"model.layers.0.self_attn.q_proj.bias",
                                      "model.layers.0.self_attn.k_proj.bias",
                                      "model.layers.0.self_attn.v_proj.bias"}));
  // use_sliding_window is false: no window anywhere.
  for (AttentionOp a : opsIn<AttentionOp>(*m, "qwen2_layer"))
    EXPECT_FALSE(a.getWindowAttr());
}

// Qwen3-8B: V 151936, D 4096, L 36, Hq 32, Hkv 8, head_dim 128, F 12288,
// q_norm and k_norm [hd]. Published: 8,190,735,360.
constexpr uint64_t kQwen3Layer =
    gqa(4096, 32, 8, 128) + 2 * 128 + swiglu(4096, 12288) + 2 * 4096;
constexpr uint64_t kQwen3 = outer(151936, 4096) + 36 * kQwen3Layer;
static_assert(kQwen3 == 8190735360, "Qwen3-8B");

TEST_F(ImportFamiliesTest, Qwen3ParametersAndQKNorm) {
  OwningOpRef<ModuleOp> m = import("qwen3-8b", decode(2, 100));
  ASSERT_TRUE(m);
  EXPECT_EQ(weights(*m).elements, kQwen3);
  // Four RMSNorms per layer: input, q heads, k heads, post-attention; the
  // head norms run on [B, H, 1, hd] before RoPE.
  SmallVector<RMSNormOp> norms = opsIn<RMSNormOp>(*m, "qwen3_layer");
  ASSERT_EQ(norms.size(), 4u);
  EXPECT_EQ(norms[1].getType().getShape(), (ArrayRef<int64_t>{2, 32, 1, 128}));
  EXPECT_EQ(norms[2].getType().getShape(), (ArrayRef<int64_t>{2, 8, 1, 128}));
  EXPECT_TRUE(isa<RopeOp>(*norms[1]->getUsers().begin()));
}

// Phi-3-mini-4k: V 32064, D 3072, L 32, Hq = Hkv = 32, hd 96, F 8192, fused
// qkv_proj [3 D, D] and gate_up_proj [2 F, D], window 2047. Published:
// 3,821,079,552.
constexpr uint64_t kPhi3Layer =
    gqa(3072, 32, 32, 96) + swiglu(3072, 8192) + 2 * 3072;
constexpr uint64_t kPhi3 = outer(32064, 3072) + 32 * kPhi3Layer;
static_assert(kPhi3 == 3821079552, "Phi-3-mini");

TEST_F(ImportFamiliesTest, Phi3FusedProjections) {
  OwningOpRef<ModuleOp> m = import("phi-3-mini", prefill(16));
  ASSERT_TRUE(m);
  EXPECT_EQ(weights(*m).elements, kPhi3);
  // Four GEMMs per layer: qkv, o, gate_up, down.
  EXPECT_EQ(opsIn<MatmulOp>(*m, "phi3_layer").size(), 4u);
  EXPECT_EQ(weightsNamed(*m, "model.layers.0.self_attn.qkv_proj").size(), 1u);
  EXPECT_EQ(weightsNamed(*m, "model.layers.0.mlp.gate_up_proj").size(), 1u);
  SmallVector<AttentionOp> attn = opsIn<AttentionOp>(*m, "phi3_layer");
  ASSERT_EQ(attn.size(), 1u);
  EXPECT_EQ(attn[0].getWindowAttr().getInt(), 2047);
}

//===----------------------------------------------------------------------===//
// Mixture of experts: total and active parameters.
//===----------------------------------------------------------------------===//

// Mixtral-8x7B: Mistral's attention (no window), 8 experts of F 14336, top
// 2, router [8, D]. Published: 46,702,792,704 total, 12.9B active.
constexpr uint64_t kMixtralExpert = swiglu(4096, 14336);
constexpr uint64_t kMixtralLayer =
    gqa(4096, 32, 8, 128) + 8 * kMixtralExpert + 8 * 4096 + 2 * 4096;
constexpr uint64_t kMixtral = outer(32000, 4096) + 32 * kMixtralLayer;
static_assert(kMixtral == 46702792704, "Mixtral-8x7B");

TEST_F(ImportFamiliesTest, MixtralTotalAndActive) {
  OwningOpRef<ModuleOp> m = import("mixtral-8x7b", decode(1, 15));
  ASSERT_TRUE(m);
  auto [total, active] = billCounts(*m);
  EXPECT_EQ(total, kMixtral);
  // A token visits 2 of the 8 experts of each layer.
  EXPECT_EQ(active, kMixtral - 32 * 6 * kMixtralExpert);
  EXPECT_EQ(active, 12879925248u);
  SmallVector<MoERouterOp> r = opsIn<MoERouterOp>(*m, "mixtral_layer");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].getTopK(), 2);
  EXPECT_EQ(r[0].getScoring(), ScoringFunc::Softmax);
  EXPECT_TRUE(r[0].getNormTopk());
  EXPECT_FALSE(r[0].hasGroups());
  EXPECT_FALSE(r[0].getBias());
  EXPECT_EQ(
      weightsNamed(*m, "model.layers.3.block_sparse_moe.experts.w2").size(),
      1u);
}

// Qwen3-30B-A3B: Qwen3 attention with Hq 32, Hkv 4, hd 128 on D 2048 (Hq hd
// > D); 128 experts of F 768, top 8, norm_topk_prob. Published:
// 30,532,122,624 total, 3.3B active.
constexpr uint64_t kQwen3MoEExpert = swiglu(2048, 768);
constexpr uint64_t kQwen3MoELayer = gqa(2048, 32, 4, 128) + 2 * 128 +
                                    128 * kQwen3MoEExpert + 128 * 2048 +
                                    2 * 2048;
constexpr uint64_t kQwen3MoE = outer(151936, 2048) + 48 * kQwen3MoELayer;
static_assert(kQwen3MoE == 30532122624, "Qwen3-30B-A3B");

TEST_F(ImportFamiliesTest, Qwen3MoETotalAndActive) {
  OwningOpRef<ModuleOp> m = import("qwen3-30b-a3b", decode(1, 15));
  ASSERT_TRUE(m);
  auto [total, active] = billCounts(*m);
  EXPECT_EQ(total, kQwen3MoE);
  EXPECT_EQ(active, kQwen3MoE - 48 * 120 * kQwen3MoEExpert);
  EXPECT_EQ(active, 3353032704u);
}

// Kimi-K2: DeepSeek-V3's architecture with 64 heads, 384 experts, 1 dense
// layer, V 163840, one group. Published: 1,026,408,232,448 total (about 1T),
// 32B active.
constexpr uint64_t kKimiMla = 7168ull * 1536 + 1536ull * 64 * 192 +
                              7168ull * 576 + 512ull * 64 * 256 +
                              64ull * 128 * 7168 + 1536 + 512 + 2 * 7168;
constexpr uint64_t kKimiExpert = swiglu(7168, 2048);
constexpr uint64_t kKimiMoELayer =
    kKimiMla + 384 * 7168 + 384 + 384 * kKimiExpert + kKimiExpert;
constexpr uint64_t kKimi =
    outer(163840, 7168) + kKimiMla + swiglu(7168, 18432) + 60 * kKimiMoELayer;
static_assert(kKimi == 1026408232448, "Kimi-K2");

TEST_F(ImportFamiliesTest, KimiK2TotalAndActive) {
  OwningOpRef<ModuleOp> m = import("kimi-k2", decode(1, 15));
  ASSERT_TRUE(m);
  auto [total, active] = billCounts(*m);
  EXPECT_EQ(total, kKimi);
  EXPECT_EQ(active, kKimi - 60 * 376 * kKimiExpert);
  // n_group 1: plain top-8 over the bias-corrected sigmoid scores.
  SmallVector<MoERouterOp> r = opsIn<MoERouterOp>(*m, "deepseek_moe_layer");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].hasGroups());
  EXPECT_TRUE(r[0].getBias());
  EXPECT_EQ(r[0].getScale().convertToDouble(), 2.827);
}

// DeepSeek-V2-Lite: MLA with a full-rank q_proj (q_lora_rank null), 16
// heads, D 2048, 1 dense layer of F 10944, 26 MoE layers of 64 experts (F
// 1408, top 6, greedy softmax, no bias) and 2 shared experts. Published:
// 15,706,484,224 total.
constexpr uint64_t kLiteMla = 2048ull * 16 * 192 + 2048ull * 576 + 512 +
                              512ull * 16 * 256 + 16ull * 128 * 2048 + 2 * 2048;
constexpr uint64_t kLiteExpert = swiglu(2048, 1408);
constexpr uint64_t kLiteMoELayer =
    kLiteMla + 64 * 2048 + 64 * kLiteExpert + 2 * kLiteExpert;
constexpr uint64_t kLite =
    outer(102400, 2048) + kLiteMla + swiglu(2048, 10944) + 26 * kLiteMoELayer;
static_assert(kLite == 15706484224, "DeepSeek-V2-Lite");

TEST_F(ImportFamiliesTest, DeepSeekV2LiteTotalAndActive) {
  OwningOpRef<ModuleOp> m = import("deepseek-v2-lite", prefill(16));
  ASSERT_TRUE(m);
  auto [total, active] = billCounts(*m);
  EXPECT_EQ(total, kLite);
  EXPECT_EQ(active, kLite - 26 * 58 * kLiteExpert);
  EXPECT_EQ(weightsNamed(*m, "model.layers.1.self_attn.q_proj").size(), 1u);
  EXPECT_TRUE(weightsNamed(*m, "q_a_proj").empty());
  SmallVector<MoERouterOp> r = opsIn<MoERouterOp>(*m, "deepseek_moe_layer");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].getBias());
  EXPECT_EQ(r[0].getScoring(), ScoringFunc::Softmax);
  EXPECT_FALSE(r[0].getNormTopk());
}

// DeepSeek-V2: D 5120, 128 heads, q_lora_rank 1536, 1 dense layer of F
// 12288, 59 MoE layers of 160 experts (F 1536, top 6) in 8 groups of which
// 3 are kept, ranked by their best expert (group_limited_greedy), 2 shared.
// Published: 236B total (235,741,434,880), 21B active.
constexpr uint64_t kV2Mla = 5120ull * 1536 + 1536 + 1536ull * 128 * 192 +
                            5120ull * 576 + 512 + 512ull * 128 * 256 +
                            128ull * 128 * 5120 + 2 * 5120;
constexpr uint64_t kV2Expert = swiglu(5120, 1536);
constexpr uint64_t kV2MoELayer =
    kV2Mla + 160 * 5120 + 160 * kV2Expert + 2 * kV2Expert;
constexpr uint64_t kV2 =
    outer(102400, 5120) + kV2Mla + swiglu(5120, 12288) + 59 * kV2MoELayer;
static_assert(kV2 == 235741434880, "DeepSeek-V2");

TEST_F(ImportFamiliesTest, DeepSeekV2GroupLimitedGreedy) {
  OwningOpRef<ModuleOp> m = import("deepseek-v2", decode(1, 15));
  ASSERT_TRUE(m);
  auto [total, active] = billCounts(*m);
  EXPECT_EQ(total, kV2);
  EXPECT_EQ(active, kV2 - 59 * 154 * kV2Expert);
  EXPECT_EQ(active, 21375800320u);
  SmallVector<MoERouterOp> r = opsIn<MoERouterOp>(*m, "deepseek_moe_layer");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].getNGroup(), 8u);
  EXPECT_EQ(r[0].getTopkGroup(), 3u);
  EXPECT_EQ(r[0].getGroupTop(), 1u);
  EXPECT_FALSE(r[0].getBias());
  EXPECT_EQ(r[0].getScale().convertToDouble(), 16.0);
}

// Gemma-2-9B: V 256000 (tied), D 3584, L 42, Hq 16, Hkv 8, head_dim 256
// (Hq hd = 4096 > D), F 14336, four norms per layer. Published:
// 9,241,705,984.
constexpr uint64_t kGemma2Layer =
    gqa(3584, 16, 8, 256) + swiglu(3584, 14336) + 4 * 3584;
constexpr uint64_t kGemma2 = 256000ull * 3584 + 3584 + 42 * kGemma2Layer;
static_assert(kGemma2 == 9241705984, "Gemma-2-9B");

// Gemma-3-1B: V 262144 (tied), D 1152, L 26, Hq 4, Hkv 1, head_dim 256, F
// 6912, q_norm and k_norm. Published: 999,885,952.
constexpr uint64_t kGemma3Layer =
    gqa(1152, 4, 1, 256) + 2 * 256 + swiglu(1152, 6912) + 4 * 1152;
constexpr uint64_t kGemma3 = 262144ull * 1152 + 1152 + 26 * kGemma3Layer;
static_assert(kGemma3 == 999885952, "Gemma-3-1B");

TEST_F(ImportFamiliesTest, GemmaParametersAndLayerKinds) {
  OwningOpRef<ModuleOp> g2 = import("gemma-2-9b", prefill(16));
  ASSERT_TRUE(g2);
  EXPECT_EQ(weights(*g2).elements, kGemma2);
  // Even layers local (window 4096), odd ones global.
  func::FuncOp model = function(*g2, "model");
  SmallVector<StringRef> callees;
  model.walk([&](func::CallOp c) { callees.push_back(c.getCallee()); });
  ASSERT_EQ(callees.size(), 42u);
  for (auto [i, callee] : llvm::enumerate(callees))
    EXPECT_EQ(callee, i % 2 == 0 ? "gemma2_sliding_layer" : "gemma2_layer")
        << i;
  OwningOpRef<ModuleOp> g3 = import("gemma-3-1b", decode(1, 15));
  ASSERT_TRUE(g3);
  EXPECT_EQ(weights(*g3).elements, kGemma3);
  // Query scale query_pre_attn_scalar^-1/2 = 1/16 in both.
  for (AttentionOp a : opsIn<AttentionOp>(*g3, "gemma3_text_layer"))
    EXPECT_EQ(a.getScaleValue(), 0.0625);
}

// GPT-OSS: D 2880, Hq 64, Hkv 8, head_dim 64, biased q/k/v/o, 64 sinks, a
// biased router, experts of F 2880 with gate_up [2F, D] + bias [2F] and
// down [D, F] + bias [D]; V 201088, untied. Published: 20,914,757,184
// (20b: 24 layers, 32 experts) and 116,829,156,672 (120b: 36, 128).
constexpr uint64_t kOssAttn =
    gqa(2880, 64, 8, 64) + (64 + 8 + 8) * 64 + 2880 + 64;
constexpr uint64_t kOssExpert = swiglu(2880, 2880) + 2 * 2880 + 2880;
constexpr uint64_t ossTotal(uint64_t layers, uint64_t experts) {
  return outer(201088, 2880) + layers * (kOssAttn + experts * 2880 + experts +
                                         experts * kOssExpert + 2 * 2880);
}
static_assert(ossTotal(24, 32) == 20914757184, "GPT-OSS-20B");
static_assert(ossTotal(36, 128) == 116829156672, "GPT-OSS-120B");

TEST_F(ImportFamiliesTest, GptOssTotalAndActive) {
  OwningOpRef<ModuleOp> m20 = import("gpt-oss-20b", decode(1, 15));
  ASSERT_TRUE(m20);
  auto [total20, active20] = billCounts(*m20);
  EXPECT_EQ(total20, ossTotal(24, 32));
  // 4 of 32 experts per token (weights and biases). OpenAI's 3.61B leaves
  // the 0.58B embedding table out: 4.187B - 0.579B.
  EXPECT_EQ(active20, ossTotal(24, 32) - 24 * 28 * kOssExpert);
  OwningOpRef<ModuleOp> m120 = import("gpt-oss-120b", prefill(8));
  ASSERT_TRUE(m120);
  auto [total120, active120] = billCounts(*m120);
  EXPECT_EQ(total120, ossTotal(36, 128));
  EXPECT_EQ(active120, ossTotal(36, 128) - 36 * 124 * kOssExpert);
}

// Llama-4: V 202048, D 5120, Hq 40, Hkv 8, hd 128, untied; MoE layers: a
// router [E, D], E experts and one shared expert of F 8192; dense layers a
// SwiGLU of intermediate_size_mlp 16384; no parameter in the QK norm. Meta
// publishes 109B (Scout) and 400B (Maverick) total, 17B active, with the
// vision encoder (about 0.87B), which is not imported.
constexpr uint64_t kL4Attn = gqa(5120, 40, 8, 128) + 2 * 5120;
constexpr uint64_t kL4Expert = swiglu(5120, 8192);
constexpr uint64_t l4MoeLayer(uint64_t experts) {
  return kL4Attn + experts * 5120 + (experts + 1) * kL4Expert;
}
constexpr uint64_t kL4DenseLayer = kL4Attn + swiglu(5120, 16384);
constexpr uint64_t kScout = outer(202048, 5120) + 48 * l4MoeLayer(16);
constexpr uint64_t kMaverick =
    outer(202048, 5120) + 24 * l4MoeLayer(128) + 24 * kL4DenseLayer;
static_assert(kScout == 107769861120, "Llama-4 Scout (text)");
static_assert(kMaverick == 400711848960, "Llama-4 Maverick (text)");

TEST_F(ImportFamiliesTest, Llama4TotalAndActive) {
  // Scout: all 48 layers MoE over 16 experts, top 1 plus the shared one.
  for (const char *config : {"llama-4-scout", "llama-4-scout-text"}) {
    OwningOpRef<ModuleOp> m = import(config, decode(1, 15));
    ASSERT_TRUE(m) << config;
    auto [total, active] = billCounts(*m);
    EXPECT_EQ(total, kScout) << config;
    EXPECT_EQ(active, kScout - 48 * 15 * kL4Expert) << config; // 17.10B
  }
  // Maverick: MoE (128 experts) in the odd layers, dense in the even ones.
  OwningOpRef<ModuleOp> m = import("llama-4-maverick", prefill(8));
  ASSERT_TRUE(m);
  auto [total, active] = billCounts(*m);
  EXPECT_EQ(total, kMaverick);
  EXPECT_EQ(active, kMaverick - 24 * 127 * kL4Expert); // 17.18B
  // Weights named as in the multimodal checkpoint.
  EXPECT_FALSE(weightsNamed(*m, "language_model.model.layers.1.feed_forward."
                                "shared_expert.down_proj.weight")
                   .empty());
  EXPECT_FALSE(weightsNamed(*m, "language_model.lm_head.weight").empty());
}

TEST_F(ImportFamiliesTest, Llama4LayerKinds) {
  // Maverick: layer 0 dense with RoPE, odd layers MoE, every fourth (3, 7,
  // ...) without RoPE; NoPE layers attend to every key, the others within
  // chunks of 8192.
  OwningOpRef<ModuleOp> m = import("llama-4-maverick", decode(1, 10000));
  ASSERT_TRUE(m);
  SmallVector<StringRef> callees;
  function(*m, "model").walk([&](func::CallOp c) {
    callees.push_back(c.getCallee());
  });
  ASSERT_EQ(callees.size(), 48u);
  for (auto [i, callee] : llvm::enumerate(callees)) {
    StringRef want = i % 2 == 0         ? "llama4_dense_layer"
                     : (i + 1) % 4 == 0 ? "llama4_nope_layer"
                                        : "llama4_layer";
    EXPECT_EQ(callee, want) << i;
  }
  // Decode at position 10000: a RoPE layer reads the rows of its chunk,
  // 8192..10000; a NoPE layer all 10001 and scales its queries by
  // 1 + 0.1 log1p(floor(10001 / 8192)) = 1 + 0.1 ln 2.
  for (AttentionOp a : opsIn<AttentionOp>(*m, "llama4_layer")) {
    EXPECT_EQ(a.getChunkSize(), 8192);
    EXPECT_EQ(a.getDims().kvLen, 10001 - 8192);
  }
  for (AttentionOp a : opsIn<AttentionOp>(*m, "llama4_nope_layer")) {
    EXPECT_EQ(a.getChunkSize(), 0);
    EXPECT_EQ(a.getDims().kvLen, 10001);
  }
  SmallVector<MulOp> muls = opsIn<MulOp>(*m, "llama4_nope_layer");
  ASSERT_FALSE(muls.empty());
  auto temperature = muls.front().getRhs().getDefiningOp<arith::ConstantOp>();
  ASSERT_TRUE(temperature);
  auto values = cast<DenseElementsAttr>(temperature.getValue());
  EXPECT_FLOAT_EQ(values.getSplatValue<float>(),
                  static_cast<float>(1.0 + 0.1 * std::log(2.0)));
  // The RoPE layers normalize q and k per head without a weight (Scout;
  // Maverick has use_qk_norm false).
  OwningOpRef<ModuleOp> scout = import("llama-4-scout", prefill(16));
  ASSERT_TRUE(scout);
  int weightless = 0;
  for (RMSNormOp n : opsIn<RMSNormOp>(*scout, "llama4_layer"))
    weightless += !n.getGamma();
  EXPECT_EQ(weightless, 2);
  EXPECT_TRUE(opsIn<RMSNormOp>(*m, "llama4_layer").size() == 2u);
}

/// KV-cache bytes per token of one sequence (bf16): K and V of Hkv heads of
/// head_dim in every layer, or MLA's one latent row; the whole context is
/// cached, windowed layers too.
TEST_F(ImportFamiliesTest, KVCacheBytesPerToken) {
  struct Case {
    const char *config;
    uint64_t bytes;
  } cases[] = {
      {"mistral-7b", 2ull * 8 * 128 * 32 * 2},
      {"qwen2.5-7b", 2ull * 4 * 128 * 28 * 2},
      {"qwen3-30b-a3b", 2ull * 4 * 128 * 48 * 2},
      {"phi-3-mini", 2ull * 32 * 96 * 32 * 2},
      {"gemma-2-9b", 2ull * 8 * 256 * 42 * 2},
      {"gemma-3-1b", 2ull * 1 * 256 * 26 * 2},
      {"gpt-oss-20b", 2ull * 8 * 64 * 24 * 2},
      {"deepseek-v2-lite", (512ull + 64) * 27 * 2},
      {"kimi-k2", (512ull + 64) * 61 * 2},
      {"llama-4-scout", 2ull * 8 * 128 * 48 * 2},
  };
  for (const Case &c : cases) {
    OwningOpRef<ModuleOp> m = import(c.config, decode(2, 15));
    ASSERT_TRUE(m) << c.config;
    EXPECT_EQ(cacheBytesPerToken(*m), c.bytes) << c.config;
  }
}

/// Every importable model_type has its bundled config, and it imports.
TEST_F(ImportFamiliesTest, EveryModelTypeHasAnExample) {
  for (const ModelTypeInfo &t : getSupportedModelTypes()) {
    OwningOpRef<ModuleOp> m = import(t.example, decode(1, 3));
    ASSERT_TRUE(m) << t.modelType;
    auto model = (*m)->getAttrOfType<DictionaryAttr>("npu.model");
    ASSERT_TRUE(model);
    EXPECT_EQ(cast<StringAttr>(model.get("model_type")).getValue(),
              t.modelType);
  }
}

} // namespace
