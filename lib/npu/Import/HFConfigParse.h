//===- HFConfigParse.h - config.json readers shared by the families -----===//
//
// Private to the Import library: the readers of the fields several model
// families share (HFConfigParse.cpp), for the families parsed in files of
// their own (HFConfigLlama4.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_IMPORT_HFCONFIGPARSE_H
#define NPU_LIB_IMPORT_HFCONFIGPARSE_H

#include "FieldReader.h"

#include "npu/Import/HFConfig.h"

namespace mlir::npu::import {

/// The fields every RoPE decoder shares (hidden_size, layers, heads,
/// intermediate_size, vocab, positions, rms_norm_eps, rope_theta, tied
/// embeddings, rope_scaling, quantization_config).
void parseDecoderFields(FieldReader &r, ModelConfig &c);
/// The heads of a GQA decoder; sets c.headDim (headDim, or hidden / heads
/// when 0). False, with the error reported, when they do not fit.
bool checkGqaHeads(FieldReader &r, ModelConfig &c, int64_t headDim);
/// Routed experts `expertsKey` with num_experts_per_tok, one group, no
/// shared expert; the router's training-only fields ignored.
void parseSoftmaxMoE(FieldReader &r, ModelConfig &c, StringRef expertsKey,
                     bool normTopk);
/// Reads `layer_types` if present: entry i must be `want(i)`, what the
/// rest of the config implies (`impliedBy` names it).
void checkLayerTypes(FieldReader &r, const llvm::json::Object &obj,
                     int64_t numLayers, function_ref<StringRef(int64_t)> want,
                     const Twine &impliedBy);
/// Llama-4: model_type "llama4" (its decoder in text_config, weights under
/// language_model.) or "llama4_text".
void parseLlama4(FieldReader &r, ModelConfig &c);

} // namespace mlir::npu::import

#endif // NPU_LIB_IMPORT_HFCONFIGPARSE_H
