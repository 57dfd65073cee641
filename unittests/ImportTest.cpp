//===- ImportTest.cpp - the config.json importer, checked by hand ---------===//
//
// Imports the bundled configs (examples/configs/*.json) through the C++ API
// (parseHFConfig + importModel) and checks the parameter counts, the work of
// one layer and the KV-cache size against arithmetic done by hand from the
// configs. Notation: V vocab, D hidden, L layers, F intermediate, H heads.
//
//===----------------------------------------------------------------------===//

#include "ImportTestUtils.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::testing;

namespace {

//===----------------------------------------------------------------------===//
// (a) Total parameters: the sum of all npu.weight results.
//===----------------------------------------------------------------------===//

// DeepSeek-V3: V = 129280, D = 7168, L = 61 (3 dense, 58 MoE), H = 128,
// q_lora_rank 1536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v 128,
// dense F = 18432, 256 routed experts + 1 shared of F = 2048.
constexpr uint64_t kDsV = 129280, kDsD = 7168;
/// MLA projection weights (= MACs per token in the naive form):
///   q_a_proj  D x 1536                     11,010,048
///   q_b_proj  1536 x H*(128+64)            37,748,736
///   kv_a_proj D x (512+64)                  4,128,768
///   kv_b_proj 512 x H*(128+128)            16,777,216
///   o_proj    H*128 x D                   117,440,512
constexpr uint64_t kMlaProj = 7168ull * 1536 + 1536ull * 128 * 192 +
                              7168ull * 576 + 512ull * 128 * 256 +
                              128ull * 128 * 7168;
static_assert(kMlaProj == 187105280, "MLA projections");
/// The attention block: projections, q_a/kv_a norms (1536 + 512), and the
/// layer's input and post-attention norms (2 D).
constexpr uint64_t kMlaBlock = kMlaProj + 1536 + 512 + 2 * kDsD;
/// Dense SwiGLU MLP: gate, up [F, D] and down [D, F].
constexpr uint64_t kDsDenseMlp = 3ull * 7168 * 18432;
/// MoE: router gate [256, D] + its f32 bias [256], 256 routed experts and
/// one shared expert, 3 matrices of 2048 x D each.
constexpr uint64_t kDsMoE =
    256ull * 7168 + 256 + 256ull * 3 * 2048 * 7168 + 3ull * 2048 * 7168;
constexpr uint64_t kDsDenseLayer = kMlaBlock + kDsDenseMlp; // 583,483,392
constexpr uint64_t kDsMoELayer = kMlaBlock + kDsMoE;        // 11,507,286,272
/// embed_tokens and lm_head [V, D], the final norm, 3 + 58 layers.
constexpr uint64_t kDsTotal =
    2 * kDsV * kDsD + kDsD + 3 * kDsDenseLayer + 58 * kDsMoELayer;
static_assert(kDsDenseLayer == 583483392, "dense layer");
static_assert(kDsMoELayer == 11507286272, "MoE layer");
static_assert(kDsTotal == 671026419200, "DeepSeek-V3 total");

TEST_F(ImportTest, DeepSeekV3Parameters) {
  OwningOpRef<ModuleOp> module = import("deepseek-v3", prefill(4));
  ASSERT_TRUE(module);
  Sizes w = weights(*module);
  EXPECT_EQ(w.elements, 671026419200u);
  EXPECT_EQ(w.elements, kDsTotal);
  // bf16, except the 58 f32 e_score_correction_bias vectors (4 B).
  EXPECT_EQ(w.bytes, 2 * kDsTotal + 2 * 58 * 256);
  EXPECT_EQ(w.bytes, 1342052868096u);
  // The published size: 671B parameters in the main model.
  EXPECT_NEAR(double(w.elements), 671e9, 0.005 * 671e9);
  // Decode imports the same weights.
  OwningOpRef<ModuleOp> dec = import("deepseek-v3", decode(1, 16));
  ASSERT_TRUE(dec);
  EXPECT_EQ(weights(*dec).elements, kDsTotal);
}

TEST_F(ImportTest, DeepSeekV3WithMTPParameters) {
  ImportOptions o = prefill(4);
  o.includeMTP = true;
  OwningOpRef<ModuleOp> module = import("deepseek-v3", o);
  ASSERT_TRUE(module);
  // The MTP module (layer 61): one more MoE layer, eh_proj [D, 2D] and the
  // enorm, hnorm and shared_head.norm vectors; it shares embed_tokens and
  // lm_head with the main model.
  constexpr uint64_t kMtp = kDsMoELayer + 2 * kDsD * kDsD + 3 * kDsD;
  static_assert(kMtp == 11610068224, "MTP module");
  EXPECT_EQ(weights(*module).elements, kDsTotal + kMtp);
}

TEST_F(ImportTest, DeepSeekV3FP8WeightBytes) {
  ImportOptions o = prefill(4);
  o.weightDType = "fp8";
  OwningOpRef<ModuleOp> module = import("deepseek-v3", o);
  ASSERT_TRUE(module);
  Sizes w = weights(*module);
  EXPECT_EQ(w.elements, kDsTotal);
  // Kept in bf16: embed_tokens, lm_head, every norm vector and the router
  // gate; the router bias is f32. Everything else (the linear layers) is
  // 1 byte. (Block scales are not modelled.)
  constexpr uint64_t norms =
      kDsD + 3 * (1536 + 512 + 2 * kDsD) + 58 * (1536 + 512 + 2 * kDsD);
  constexpr uint64_t gates = 58 * 256 * kDsD;
  constexpr uint64_t bf16 = 2 * kDsV * kDsD + norms + gates;
  constexpr uint64_t f32 = 58 * 256;
  EXPECT_EQ(w.bytes, 2 * bf16 + 4 * f32 + (kDsTotal - bf16 - f32));
}

// Llama-3-8B: V = 128256, D = 4096, L = 32, 32 query heads and 8 KV heads of
// 128, F = 14336, untied head.
constexpr uint64_t kL8Layer = 2ull * 4096 * 4096    // q_proj, o_proj
                              + 2ull * 1024 * 4096  // k_proj, v_proj
                              + 3ull * 14336 * 4096 // gate, up, down
                              + 2ull * 4096;        // two RMSNorms
static_assert(kL8Layer == 218112000, "Llama-3-8B layer");

TEST_F(ImportTest, Llama3Parameters) {
  OwningOpRef<ModuleOp> l8 = import("llama-3-8b", prefill(4));
  ASSERT_TRUE(l8);
  // embed_tokens + lm_head (2 V D) + the final norm + 32 layers.
  constexpr uint64_t total8 = 2ull * 128256 * 4096 + 4096 + 32 * kL8Layer;
  static_assert(total8 == 8030261248, "Llama-3-8B total");
  Sizes w8 = weights(*l8);
  EXPECT_EQ(w8.elements, total8);
  EXPECT_EQ(w8.bytes, 2 * total8);
  EXPECT_NEAR(double(w8.elements), 8.03e9, 0.005e9);

  // Llama-3-70B: D = 8192, L = 80, 64 query heads and 8 KV heads of 128,
  // F = 28672.
  OwningOpRef<ModuleOp> l70 = import("llama-3-70b", decode(1, 4));
  ASSERT_TRUE(l70);
  constexpr uint64_t layer70 = 2ull * 8192 * 8192 + 2ull * 1024 * 8192 +
                               3ull * 28672 * 8192 + 2ull * 8192;
  constexpr uint64_t total70 = 2ull * 128256 * 8192 + 8192 + 80 * layer70;
  static_assert(total70 == 70553706496, "Llama-3-70B total");
  EXPECT_EQ(weights(*l70).elements, total70);
}

TEST_F(ImportTest, GPT2Parameters) {
  OwningOpRef<ModuleOp> module = import("gpt2", prefill(4));
  ASSERT_TRUE(module);
  // V = 50257, D = 768, L = 12, 1024 positions, F = 4 D; Conv1D weights and
  // biases; the head is tied to wte, so it adds nothing.
  constexpr uint64_t layer = 2 * 2 * 768         // ln_1, ln_2 (weight, bias)
                             + 768 * 2304 + 2304 // attn.c_attn
                             + 768 * 768 + 768   // attn.c_proj
                             + 768 * 3072 + 3072 // mlp.c_fc
                             + 3072 * 768 + 768; // mlp.c_proj
  constexpr uint64_t total = 50257ull * 768      // wte
                             + 1024 * 768        // wpe
                             + 2 * 768           // ln_f
                             + 12 * layer;
  static_assert(total == 124439808, "GPT-2 total");
  Sizes w = weights(*module);
  EXPECT_EQ(w.elements, total);
  EXPECT_EQ(w.bytes, 2 * total);
}

//===----------------------------------------------------------------------===//
// (b) One DeepSeek-V3 dense layer, one token (prefill, B = 1, S = 1).
//===----------------------------------------------------------------------===//

TEST_F(ImportTest, DeepSeekV3DenseLayerPerToken) {
  OwningOpRef<ModuleOp> module = import("deepseek-v3", prefill(1));
  ASSERT_TRUE(module);
  func::FuncOp layer = function(*module, "deepseek_dense_layer");
  ASSERT_TRUE(layer);
  Work w = workOf(layer);
  // Matrix FLOPs: 2 per MAC of the MLA projections (naive form: q_a, q_b,
  // kv_a, kv_b up-projection of the one latent, o_proj) and of the dense
  // MLP, plus the attention core for one query and one (causal) key:
  // 2 * H * pairs * (d_qk + d_v) = 2 * 128 * 1 * (192 + 128) = 81,920.
  constexpr uint64_t attnCore = 2ull * 128 * 1 * (192 + 128);
  EXPECT_EQ(w.matrixFlops.value(), 2 * (kMlaProj + kDsDenseMlp) + attnCore);
  EXPECT_EQ(w.matrixFlops.value(), 1167015936u);
  // The layer's parameters (its npu.param arguments): the projections, the
  // q_a / kv_a norms, the dense MLP and the two layer norms, bf16.
  Sizes params = paramArgs(layer);
  constexpr uint64_t bytes =
      2 * (kMlaProj + 1536 + 512 + kDsDenseMlp + 2 * kDsD);
  EXPECT_EQ(params.bytes, bytes);
  EXPECT_EQ(params.elements, kDsDenseLayer);
  // Every weight is read exactly once, so the ops' parameter bytes add up to
  // the same.
  EXPECT_EQ(w.paramBytes.value(), bytes);
}

TEST_F(ImportTest, DeepSeekV3DenseLayerDecodeAbsorbed) {
  // Decode with an empty context (one key, the new token). The absorbed form
  // replaces the kv_b up-projection of the key by W_UK applied to the query
  // (H * 128 * 512 MACs) and W_UV applied to the latent output
  // (H * 512 * 128 MACs), which together equal kv_b's 512 * H * 256 MACs per
  // token; the attention core runs on the 576-wide latent with a 512-wide
  // value: 2 * H * 1 * (576 + 512).
  OwningOpRef<ModuleOp> module = import("deepseek-v3", decode(1, 0));
  ASSERT_TRUE(module);
  func::FuncOp layer = function(*module, "deepseek_dense_layer");
  ASSERT_TRUE(layer);
  Work w = workOf(layer);
  constexpr uint64_t absorbed = 128ull * 128 * 512 + 128ull * 512 * 128;
  static_assert(absorbed == 512ull * 128 * 256, "same MACs as kv_b");
  constexpr uint64_t attnCore = 2ull * 128 * 1 * (576 + 512);
  EXPECT_EQ(w.matrixFlops.value(), 2 * (kMlaProj + kDsDenseMlp) + attnCore);
  EXPECT_EQ(paramArgs(layer).elements, kDsDenseLayer);
}

//===----------------------------------------------------------------------===//
// (c) Llama-3-8B: one layer's parameters.
//===----------------------------------------------------------------------===//

TEST_F(ImportTest, Llama3LayerParameters) {
  OwningOpRef<ModuleOp> module = import("llama-3-8b", decode(2, 8));
  ASSERT_TRUE(module);
  func::FuncOp layer = function(*module, "llama_layer");
  ASSERT_TRUE(layer);
  Sizes params = paramArgs(layer);
  EXPECT_EQ(params.elements, kL8Layer);
  EXPECT_EQ(params.bytes, 2 * kL8Layer); // 436,224,000 B at bf16
  EXPECT_EQ(params.bytes, 436224000u);
}

//===----------------------------------------------------------------------===//
// (d) Decode KV cache bytes per token of one sequence.
//===----------------------------------------------------------------------===//

TEST_F(ImportTest, KVCacheBytesPerToken) {
  // DeepSeek-V3 (MLA): one latent row of kv_lora_rank + qk_rope_head_dim
  // = 512 + 64 per layer, 61 layers, bf16: 576 * 61 * 2 = 70,272 B.
  OwningOpRef<ModuleOp> ds = import("deepseek-v3", decode(2, 15));
  ASSERT_TRUE(ds);
  EXPECT_EQ(cacheBytesPerToken(*ds), (512u + 64) * 61 * 2);
  EXPECT_EQ(cacheBytesPerToken(*ds), 70272u);
  // Llama-3-8B (GQA): K and V, 8 KV heads of 128, 32 layers, bf16:
  // 2 * 8 * 128 * 32 * 2 = 131,072 B.
  OwningOpRef<ModuleOp> llama = import("llama-3-8b", decode(2, 15));
  ASSERT_TRUE(llama);
  EXPECT_EQ(cacheBytesPerToken(*llama), 2u * 8 * 128 * 32 * 2);
  EXPECT_EQ(cacheBytesPerToken(*llama), 131072u);
  // GPT-2 (MHA): K and V, 12 heads of 64, 12 layers, bf16: 36,864 B.
  OwningOpRef<ModuleOp> gpt2 = import("gpt2", decode(2, 15));
  ASSERT_TRUE(gpt2);
  EXPECT_EQ(cacheBytesPerToken(*gpt2), 2u * 12 * 64 * 12 * 2);
}

//===----------------------------------------------------------------------===//
// Errors through the API: the diagnostic names the file and the field.
//===----------------------------------------------------------------------===//

TEST_F(ImportTest, ParseErrorNamesFileAndField) {
  std::string diag;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diag += d.str();
    return success();
  });
  Location loc = UnknownLoc::get(&context);
  EXPECT_TRUE(failed(parseHFConfig(
      R"({"model_type": "llama", "hidden_size": 4096})", "x.json", loc)));
  EXPECT_EQ(diag, "x.json: field 'num_hidden_layers' is missing");
  diag.clear();
  EXPECT_TRUE(failed(parseHFConfig(R"({"model_type": "gpt2", "n_embd": 768,
      "n_layer": 12, "n_head": 12, "vocab_size": 50257, "n_positions": 1024,
      "activation_function": "relu"})",
                                   "g.json", loc)));
  EXPECT_EQ(diag, "g.json: field 'activation_function' is 'relu'; supported: "
                  "gelu_new, gelu, gelu_pytorch_tanh");
}

} // namespace
