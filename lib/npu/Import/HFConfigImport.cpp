//===- HFConfigImport.cpp - build the whole model as npu IR ---------------===//
//
// `@model` embeds the tokens, calls one layer-kind function per decoder
// layer with that layer's weights (`npu.weight` ops named after the
// checkpoint keys), and computes the logits of the last position only, as an
// inference server does. Both phases take the KV-cache write position and the
// KV caches of every layer (prefill: S rows, filled from position 0; decode:
// context + 1 rows, one appended) and return the updated caches.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

static std::unique_ptr<Family> createFamily(ModelFamily family) {
  switch (family) {
  case ModelFamily::Llama:
    return createLlamaFamily();
  case ModelFamily::Gemma:
    return createGemmaFamily();
  case ModelFamily::Llama4:
    return createLlama4Family();
  case ModelFamily::GPT2:
    return createGPT2Family();
  case ModelFamily::DeepSeekV3:
    return createDeepSeekV3Family();
  }
  llvm_unreachable("unknown model family");
}

/// Records what was imported, for reports: `npu.model = {...}`.
static DictionaryAttr describe(Builder &b, const ModelConfig &c,
                               const ImportOptions &o) {
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("model_type", b.getStringAttr(c.modelType)),
      b.getNamedAttr(
          "phase",
          b.getStringAttr(o.phase == Phase::Prefill ? "prefill" : "decode")),
      b.getNamedAttr("batch", b.getI64IntegerAttr(o.batch)),
      b.getNamedAttr("layers", b.getI64IntegerAttr(c.numLayers)),
      b.getNamedAttr("weight_dtype", b.getStringAttr(o.weightDType)),
      b.getNamedAttr("act_dtype", b.getStringAttr(o.actDType)),
  };
  if (o.phase == Phase::Prefill)
    attrs.push_back(b.getNamedAttr("seq_len", b.getI64IntegerAttr(o.seqLen)));
  else
    attrs.push_back(
        b.getNamedAttr("context_len", b.getI64IntegerAttr(o.contextLen)));
  if (o.includeMTP)
    attrs.push_back(b.getNamedAttr("mtp", b.getUnitAttr()));
  if (o.fromHidden)
    attrs.push_back(b.getNamedAttr("from_hidden", b.getUnitAttr()));
  return b.getDictionaryAttr(attrs);
}

OwningOpRef<ModuleOp> mlir::npu::importModel(const ModelConfig &cfg,
                                             const ImportOptions &opts,
                                             MLIRContext *ctx) {
  ctx->loadDialect<NpuDialect, func::FuncDialect, arith::ArithDialect>();
  Location loc = NameLoc::get(StringAttr::get(ctx, cfg.modelType));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b(ctx);
  module->getOperation()->setAttr("npu.model", describe(b, cfg, opts));
  b.setInsertionPointToEnd(module->getBody());
  GraphBuilder g(b, loc, cfg, opts);
  std::unique_ptr<Family> family = createFamily(cfg.family);
  family->buildLayerKinds(b, g);

  // The token ids, or (a later pipeline stage) the residual stream.
  SmallVector<Type> argTypes = {
      opts.fromHidden ? g.tensor({g.batch, g.seq, cfg.hiddenSize}, g.act)
                      : g.tensor({g.batch, g.seq}, b.getI32Type())};
  unsigned numCaches = family->cachesPerLayer() * cfg.numLayers;
  argTypes.push_back(b.getIndexType());
  unsigned numExtra = family->numExtraCaches(g);
  argTypes.append(numCaches + numExtra, family->cacheType(g));
  b.setInsertionPointToEnd(module->getBody());
  auto model =
      func::FuncOp::create(b, loc, "model", b.getFunctionType(argTypes, {}));
  Block *entry = model.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  Value tokens = entry->getArgument(0);
  Value x = opts.fromHidden ? tokens : family->embed(g, tokens);
  SmallVector<Value> newCaches;
  for (int64_t i = 0; i < cfg.numLayers; ++i) {
    LayerFunc &kind = family->kindOf(i);
    SmallVector<Value> args = {x, entry->getArgument(1)};
    for (unsigned j = 0; j < family->cachesPerLayer(); ++j)
      args.push_back(entry->getArgument(2 + i * family->cachesPerLayer() + j));
    args.append(createWeights(b, loc, family->layerPrefix(i), kind.params()));
    auto call = func::CallOp::create(b, loc, kind.getFunc(), args);
    x = call.getResult(0);
    for (Value c : call.getResults().drop_front())
      newCaches.push_back(c);
  }
  SmallVector<Value> results;
  results.push_back(family->head(g, g.slice(x, 1, g.seq - 1, 1)));
  results.append(
      family->extraOutputs(g, x, tokens, entry->getArgument(1),
                           entry->getArguments().drop_front(2 + numCaches)));
  results.append(newCaches);
  func::ReturnOp::create(b, loc, results);
  model.setFunctionType(b.getFunctionType(argTypes, TypeRange(results)));
  return module;
}

Type mlir::npu::findOversizedType(ModuleOp module) {
  auto oversized = [](Type type) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped)
      return false;
    for (int64_t d : shaped.getShape())
      if (d < 1 || d >= kMaxDimSize)
        return true;
    Count bytes = getNumBytes(shaped);
    return !bytes.toInt64();
  };
  Type found;
  module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type t : block.getArgumentTypes())
          if (oversized(t))
            found = t;
    for (Type t : op->getResultTypes())
      if (oversized(t))
        found = t;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}
