//===- GraphBuilder.cpp - building npu model IR, for the importers -------===//

#include "GraphBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

static Type dtypeFromName(MLIRContext *ctx, StringRef name) {
  if (name == "fp8")
    return Float8E4M3FNType::get(ctx);
  if (name == "f16")
    return Float16Type::get(ctx);
  if (name == "f32")
    return Float32Type::get(ctx);
  return BFloat16Type::get(ctx);
}

GraphBuilder::GraphBuilder(OpBuilder &b, Location loc,
                           const ModelConfig &config,
                           const ImportOptions &options)
    : b(b), loc(loc), cfg(config), opts(options) {
  MLIRContext *ctx = b.getContext();
  // fp8 applies to linear weights and the KV cache; norms, softmax and the
  // other vector ops work on bf16 activations, as in DeepSeek-V3's FP8
  // recipe (fp8 GEMM inputs, bf16 everything else).
  kvCache = dtypeFromName(ctx, options.actDType);
  act = isa<Float8E4M3FNType>(kvCache) ? BFloat16Type::get(ctx) : kvCache;
  weight = dtypeFromName(ctx, options.weightDType); // bf16 if stored
  format = WeightFormat::get(config, options);
  // FP8 checkpoints keep the output head in bf16 (DeepSeek-V3's released
  // checkpoint has no scales for lm_head; Llama FP8 checkpoints list lm_head
  // among the modules not to convert).
  head = isa<Float8E4M3FNType>(weight) ? BFloat16Type::get(ctx) : weight;
  // Norm weights, biases and embedding tables stay in the activation type
  // (the norms take gamma in the input's type; fp8 checkpoints keep them
  // in bf16 too).
  small = act;
  batch = options.batch;
  bool decode = options.phase == Phase::Decode;
  seq = decode ? 1 : options.seqLen;
  past = decode ? options.contextLen : 0;
}

Value GraphBuilder::linear(Value x, Value w, Type resultElt) {
  SmallVector<int64_t> shape(shapeOf(x));
  shape.back() = shapeOf(w)[0];
  return MatmulOp::create(b, loc, tensor(shape, resultElt ? resultElt : act), x,
                          w, /*transpose_lhs=*/false,
                          /*transpose_rhs=*/true, /*acc_type=*/nullptr);
}

Value GraphBuilder::linearInOut(Value x, Value w) {
  SmallVector<int64_t> shape(shapeOf(x));
  shape.back() = shapeOf(w)[1];
  return MatmulOp::create(b, loc, tensor(shape, act), x, w, false, false,
                          nullptr);
}

Value GraphBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(x.getType());
  return ReshapeOp::create(b, loc, tensor(shape, type.getElementType()), x);
}

Value GraphBuilder::transpose(Value x, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return TransposeOp::create(b, loc, tensor(shape, type.getElementType()), x,
                             perm);
}

Value GraphBuilder::slice(Value x, int64_t dim, int64_t start, int64_t size,
                          int64_t stride) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0);
  SmallVector<int64_t> sizes(type.getShape());
  SmallVector<int64_t> strides(type.getRank(), 1);
  offsets[dim] = start;
  sizes[dim] = size;
  strides[dim] = stride;
  return SliceOp::create(b, loc, tensor(sizes, type.getElementType()), x,
                         offsets, sizes, strides);
}

Value GraphBuilder::concat(ValueRange xs, int64_t dim) {
  auto type = cast<RankedTensorType>(xs.front().getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = 0;
  for (Value x : xs)
    shape[dim] += shapeOf(x)[dim];
  return ConcatOp::create(b, loc, tensor(shape, type.getElementType()), xs,
                          static_cast<uint64_t>(dim));
}

Value GraphBuilder::add(Value a, Value c) {
  return AddOp::create(b, loc, a.getType(), a, c);
}

Value GraphBuilder::rmsNorm(Value x, Value gamma) {
  return RMSNormOp::create(b, loc, x.getType(), x, gamma,
                           b.getF64FloatAttr(cfg.normEps));
}

Value GraphBuilder::layerNorm(Value x, Value gamma, Value beta) {
  return LayerNormOp::create(b, loc, x.getType(), x, gamma, beta,
                             b.getF64FloatAttr(cfg.normEps));
}

Value GraphBuilder::rope(Value x, bool interleaved, double theta) {
  return RopeOp::create(b, loc, x.getType(), x,
                        b.getF64FloatAttr(theta > 0 ? theta : cfg.ropeTheta),
                        b.getI64IntegerAttr(past),
                        interleaved ? b.getUnitAttr() : nullptr,
                        /*rotary_dim=*/nullptr);
}

Value GraphBuilder::splitHeads(Value x, int64_t heads, int64_t headDim) {
  ArrayRef<int64_t> s = shapeOf(x);
  Value r = reshape(x, {s[0], s[1], heads, headDim});
  return transpose(r, {0, 2, 1, 3});
}

Value GraphBuilder::mergeHeads(Value x) {
  ArrayRef<int64_t> s = shapeOf(x); // [B, H, S, d]
  int64_t bsz = s[0], heads = s[1], len = s[2], d = s[3];
  Value t = transpose(x, {0, 2, 1, 3});
  return reshape(t, {bsz, len, heads * d});
}

Value GraphBuilder::attention(Value q, Value k, Value v,
                              std::optional<int64_t> latent, double scale,
                              int64_t window, double softcap, Value sinks,
                              int64_t chunk) {
  ArrayRef<int64_t> qs = shapeOf(q);
  int64_t dv = latent ? *latent : shapeOf(v)[3];
  auto type = tensor({qs[0], qs[1], qs[2], dv}, act);
  return AttentionOp::create(
      b, loc, type, q, k, v, sinks,
      latent ? b.getI64IntegerAttr(*latent) : IntegerAttr(),
      b.getF64FloatAttr(scale),
      softcap > 0 ? b.getF64FloatAttr(softcap) : FloatAttr(), b.getUnitAttr(),
      window > 0 ? b.getI64IntegerAttr(window) : IntegerAttr(),
      chunk > 0 ? b.getI64IntegerAttr(chunk) : IntegerAttr());
}

Value GraphBuilder::embedding(Value table, Value ids) {
  SmallVector<int64_t> shape(shapeOf(ids));
  shape.push_back(shapeOf(table)[1]);
  return EmbeddingOp::create(b, loc, tensor(shape, act), table, ids);
}

Value GraphBuilder::embedTokensWeight() {
  return WeightOp::create(b, loc,
                          tensor({cfg.vocabSize, cfg.hiddenSize}, small),
                          cfg.weightPrefix + "model.embed_tokens.weight");
}

Value GraphBuilder::appendCache(Value cache, Value update, Value pos) {
  // An fp8 cache stores the bf16 keys and values converted.
  Type elt = cast<RankedTensorType>(cache.getType()).getElementType();
  auto updateType = cast<RankedTensorType>(update.getType());
  if (updateType.getElementType() != elt)
    update = ConvertOp::create(b, loc, updateType.clone(elt), update);
  return KVCacheAppendOp::create(b, loc, cache.getType(), cache, update, pos);
}

Value GraphBuilder::readCache(Value cache) {
  auto type = cast<RankedTensorType>(cache.getType());
  return KVCacheReadOp::create(b, loc, type, cache, type.getDimSize(2));
}

//===----------------------------------------------------------------------===//
// LayerFunc
//===----------------------------------------------------------------------===//

LayerFunc::LayerFunc(OpBuilder &mb, Location loc, StringRef name,
                     TypeRange leadingArgs)
    : numLeading(leadingArgs.size()) {
  func =
      func::FuncOp::create(mb, loc, name, mb.getFunctionType(leadingArgs, {}));
  func.setPrivate();
  entry = func.addEntryBlock();
}

Value LayerFunc::param(StringRef name, RankedTensorType type) {
  specs.push_back({name.str(), type});
  return entry->addArgument(type, func.getLoc());
}

func::FuncOp LayerFunc::finish(OpBuilder &b, ValueRange results) {
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, func.getLoc(), results);
  func.setFunctionType(
      b.getFunctionType(entry->getArgumentTypes(), TypeRange(results)));
  for (unsigned i = numLeading, e = entry->getNumArguments(); i < e; ++i)
    func.setArgAttr(i, "npu.param", b.getUnitAttr());
  b.setInsertionPointAfter(func);
  return func;
}

SmallVector<Value> mlir::npu::import::createWeights(OpBuilder &b, Location loc,
                                                    StringRef prefix,
                                                    ArrayRef<ParamSpec> specs) {
  SmallVector<Value> weights;
  for (const ParamSpec &s : specs)
    weights.push_back(
        WeightOp::create(b, loc, s.type, (prefix + s.name).str()));
  return weights;
}
