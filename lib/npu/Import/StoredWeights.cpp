//===- StoredWeights.cpp - weights in scaled formats, for the importers ---===//

#include "StoredWeights.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::import;

WeightFormat WeightFormat::get(const ModelConfig &config,
                               const ImportOptions &options) {
  WeightFormat f;
  StringRef name = options.weightDType;
  if (name == "checkpoint") {
    // verifyImportOptions checked that the config has one.
    if (config.quantMethod == "fp8") {
      f.kind = Fp8Block;
      f.blockOut = config.quantBlockOut;
      f.blockIn = config.quantBlockIn;
    } else {
      f.kind = MXFP4;
      f.blockIn = 32;
      f.expertsOnly = config.quantExpertsOnly;
    }
    return f;
  }
  // The formats' own blocks: DeepSeek-V3's 128 x 128; MX's 32 and NVFP4's
  // 16 values along the input; int8 and int4 in groups of 128 inputs (the
  // usual AWQ/GPTQ/gpt-fast group size).
  if (name == "fp8-block")
    f = {Fp8Block, 128, 128};
  else if (name == "mxfp4")
    f = {MXFP4, 1, 32};
  else if (name == "nvfp4")
    f = {NVFP4, 1, 16};
  else if (name == "int8")
    f = {Int8, 1, 128};
  else if (name == "int4")
    f = {Int4, 1, 128};
  return f;
}

StoredParam mlir::npu::import::storedParam(GraphBuilder &g, LayerFunc &f,
                                           StringRef name,
                                           ArrayRef<int64_t> shape,
                                           bool expert) {
  const WeightFormat &fmt = g.format;
  if (fmt.kind == WeightFormat::Plain || (fmt.expertsOnly && !expert))
    return {f.param(name, g.tensor(shape, g.weight)), {}, {}, {}};
  MLIRContext *ctx = g.b.getContext();
  Type values, scales;
  switch (fmt.kind) {
  case WeightFormat::Plain:
    llvm_unreachable("handled above");
  case WeightFormat::Fp8Block:
    values = Float8E4M3FNType::get(ctx);
    scales = Float32Type::get(ctx);
    break;
  case WeightFormat::MXFP4:
    values = Float4E2M1FNType::get(ctx);
    scales = Float8E8M0FNUType::get(ctx);
    break;
  case WeightFormat::NVFP4:
    values = Float4E2M1FNType::get(ctx);
    scales = Float8E4M3FNType::get(ctx);
    break;
  case WeightFormat::Int8:
  case WeightFormat::Int4:
    values = IntegerType::get(ctx, fmt.kind == WeightFormat::Int8 ? 8 : 4);
    scales = BFloat16Type::get(ctx);
    break;
  }
  StoredParam p;
  p.block.assign(shape.size() - 2, 1);
  p.block.append({fmt.blockOut, fmt.blockIn});
  SmallVector<int64_t> scaleShape;
  for (auto [d, b] : llvm::zip(shape, p.block))
    scaleShape.push_back(llvm::divideCeil(d, b));
  // Checkpoint names: DeepSeek's <w>_scale_inv for fp8, <w>_scale
  // otherwise (the bytes are what matter).
  std::string base = name.str();
  p.values = f.param(base, g.tensor(shape, values));
  p.scales = f.param(
      base + (fmt.kind == WeightFormat::Fp8Block ? "_scale_inv" : "_scale"),
      g.tensor(scaleShape, scales));
  if (fmt.kind == WeightFormat::NVFP4)
    p.global = f.param(base + "_scale_2", g.tensor({}, Float32Type::get(ctx)));
  return p;
}

bool mlir::npu::import::canSliceParam(const StoredParam &p, int64_t dim,
                                      int64_t start, int64_t size,
                                      int64_t stride) {
  if (!p.scales || p.block[dim] == 1)
    return true;
  int64_t b = p.block[dim];
  int64_t full = GraphBuilder::shapeOf(p.values)[dim];
  return stride == 1 && start % b == 0 &&
         (size % b == 0 || start + size == full);
}

StoredParam mlir::npu::import::sliceParam(GraphBuilder &g, const StoredParam &p,
                                          int64_t dim, int64_t start,
                                          int64_t size, int64_t stride) {
  assert(canSliceParam(p, dim, start, size, stride) &&
         "slicing across a scale block");
  StoredParam s = p;
  s.values = g.slice(p.values, dim, start, size, stride);
  if (p.scales) {
    int64_t b = p.block[dim];
    s.scales =
        g.slice(p.scales, dim, start / b, llvm::divideCeil(size, b), stride);
  }
  return s;
}

StoredParam mlir::npu::import::splitRows(GraphBuilder &g, const StoredParam &p,
                                         int64_t n) {
  ArrayRef<int64_t> shape = GraphBuilder::shapeOf(p.values);
  StoredParam s = p;
  s.values = g.reshape(p.values, {shape[0] / n, n, shape[1]});
  if (p.scales) {
    ArrayRef<int64_t> sshape = GraphBuilder::shapeOf(p.scales);
    int64_t b = p.block[0];
    assert(n % b == 0 && "a scale block across the split");
    s.scales = g.reshape(p.scales, {shape[0] / n, n / b, sshape[1]});
    s.block = {1, b, p.block[1]};
  }
  return s;
}

Value mlir::npu::import::useParam(GraphBuilder &g, const StoredParam &p) {
  if (!p.scales)
    return p.values;
  auto type = cast<RankedTensorType>(p.values.getType());
  return DequantizeOp::create(g.b, g.loc, g.tensor(type.getShape(), g.act),
                              p.values, p.scales, p.global, p.block);
}
