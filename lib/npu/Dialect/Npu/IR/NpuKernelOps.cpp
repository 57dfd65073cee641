//===- NpuKernelOps.cpp - fused kernels and backend attributes ------------===//
//
// npu.kernel / npu.yield and the verifiers of the decision and cost
// attributes the backends write on them (#npu.fusion, #npu.tiling,
// #npu.cost, #npu.slot).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, KernelKind kind,
                     ValueRange inputs, TypeRange resultTypes) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  state.getOrAddProperties<Properties>().kind =
      KernelKindAttr::get(builder.getContext(), kind);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value v : inputs)
    block->addArgument(v.getType(), v.getLoc());
}

LogicalResult KernelOp::verify() {
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << block.getNumArguments() << " arguments for " << getInputs().size()
           << " inputs";
  for (auto [i, arg, input] :
       llvm::enumerate(block.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError("body argument #")
             << i << " has type " << arg.getType() << ", input #" << i
             << " has type " << input.getType();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError("body must end with npu.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("npu.yield gives ")
           << yield.getValues().size()
           << " values whose types differ from the kernel's results";
  return success();
}

SmallVector<Operation *> KernelOp::getComputeOps() {
  SmallVector<Operation *> ops;
  for (Operation &op : getBodyBlock().without_terminator())
    if (isa<WorkOpInterface>(op))
      ops.push_back(&op);
  return ops;
}

Work KernelOp::computeWork() {
  SmallVector<Operation *> ops = getComputeOps();
  // One op: its own work, so that ops whose minimum traffic is not "every
  // operand once" (MoE experts read only the experts the load activates)
  // keep their counts.
  if (ops.size() == 1) {
    Work w = cast<WorkOpInterface>(ops.front()).computeWork();
    // Parameters are known from the kernel's inputs, not the block args.
    w.paramBytes = getOperandResultTraffic(getOperation()).paramBytes;
    return w;
  }
  Work w = getOperandResultTraffic(getOperation());
  for (Operation *op : ops) {
    Work inner = cast<WorkOpInterface>(op).computeWork();
    w.matrixFlops += inner.matrixFlops;
    w.vectorFlops += inner.vectorFlops;
    w.transcendentalFlops += inner.transcendentalFlops;
  }
  return w;
}

//===----------------------------------------------------------------------===//
// Backend attributes
//===----------------------------------------------------------------------===//

using EmitErrorFn = function_ref<InFlightDiagnostic()>;

static bool isNonNegativeFinite(const llvm::APFloat &v) {
  double d = v.convertToDouble();
  return std::isfinite(d) && d >= 0;
}

LogicalResult FusionAttr::verify(EmitErrorFn emitError, int64_t group,
                                 KernelKind, int64_t savedBytes) {
  if (group < 0)
    return emitError() << "fusion group must be >= 0, got " << group;
  if (savedBytes < 0)
    return emitError() << "fusion saved_bytes must be >= 0, got " << savedBytes;
  return success();
}

LogicalResult TilingAttr::verify(EmitErrorFn emitError, ArrayRef<int64_t> loops,
                                 ArrayRef<int64_t> tile, int64_t buffers,
                                 int64_t sramBytes, int64_t chunks,
                                 ArrayRef<int64_t> sharedTile,
                                 int64_t tablePerTile) {
  if (loops.empty() || loops.size() != tile.size())
    return emitError() << "tiling needs one tile size per loop, got "
                       << loops.size() << " loops and " << tile.size()
                       << " tile sizes";
  for (auto [i, n, t] : llvm::enumerate(loops, tile)) {
    if (n < 1 || n >= kMaxDimSize)
      return emitError() << "tiling loop #" << i << " has size " << n
                         << ", expected [1, 2^40)";
    if (t < 1 || t >= kMaxDimSize)
      return emitError() << "tiling tile #" << i << " has size " << t
                         << ", expected [1, 2^40)";
  }
  if (buffers < 1)
    return emitError() << "tiling buffers must be >= 1, got " << buffers;
  if (sramBytes < 0)
    return emitError() << "tiling sram_bytes must be >= 0, got " << sramBytes;
  if (chunks < 1)
    return emitError() << "tiling chunks must be >= 1, got " << chunks;
  if (!sharedTile.empty() && sharedTile.size() != 3)
    return emitError() << "tiling shared_tile needs 3 sizes (M, F, D), got "
                       << sharedTile.size();
  for (auto [i, t] : llvm::enumerate(sharedTile))
    if (t < 1 || t >= kMaxDimSize)
      return emitError() << "tiling shared_tile #" << i << " has size " << t
                         << ", expected [1, 2^40)";
  if (tablePerTile != 0 && tablePerTile != 1)
    return emitError() << "tiling table_per_tile must be 0 or 1, got "
                       << tablePerTile;
  return success();
}

LogicalResult CostAttr::verify(
    EmitErrorFn emitError, llvm::APFloat time, llvm::APFloat compute,
    llvm::APFloat memory, llvm::APFloat overhead, int64_t read, int64_t written,
    int64_t onchip, int64_t flops, int64_t paddedFlops, CostBound,
    llvm::APFloat utilization, std::optional<llvm::APFloat> hitRate,
    std::optional<llvm::APFloat> waves, std::optional<int64_t> crossCore) {
  std::pair<const char *, llvm::APFloat *> reals[] = {
      {"time_ns", &time},
      {"compute_ns", &compute},
      {"memory_ns", &memory},
      {"overhead_ns", &overhead},
      {"matrix_utilization", &utilization}};
  for (auto [name, value] : reals)
    if (!isNonNegativeFinite(*value))
      return emitError() << "cost " << name << " must be finite and >= 0, got "
                         << value->convertToDouble();
  std::pair<const char *, int64_t> ints[] = {{"hbm_read_bytes", read},
                                             {"hbm_write_bytes", written},
                                             {"onchip_bytes", onchip},
                                             {"flops", flops},
                                             {"padded_flops", paddedFlops}};
  for (auto [name, value] : ints)
    if (value < 0)
      return emitError() << "cost " << name << " must be >= 0, got " << value;
  auto isFraction = [](const llvm::APFloat &v) {
    return isNonNegativeFinite(v) && v.convertToDouble() <= 1.0;
  };
  if (!isFraction(utilization))
    return emitError() << "cost matrix_utilization must be in [0, 1], got "
                       << utilization.convertToDouble();
  if (hitRate && !isFraction(*hitRate))
    return emitError() << "cost l2_hit_rate must be in [0, 1], got "
                       << hitRate->convertToDouble();
  if (waves && !isNonNegativeFinite(*waves))
    return emitError() << "cost waves must be finite and >= 0";
  if (crossCore &&
      (*crossCore < 0 || *crossCore > read || *crossCore > written))
    return emitError() << "cost cross_core_bytes must be >= 0 and at most "
                          "hbm_read_bytes and hbm_write_bytes, got "
                       << *crossCore;
  return success();
}

LogicalResult SlotAttr::verify(EmitErrorFn emitError, llvm::APFloat start,
                               llvm::APFloat end) {
  if (!isNonNegativeFinite(start) || !isNonNegativeFinite(end) ||
      end.convertToDouble() < start.convertToDouble())
    return emitError() << "slot needs 0 <= start_ns <= end_ns, got ["
                       << start.convertToDouble() << ", "
                       << end.convertToDouble() << "]";
  return success();
}

LogicalResult LaunchAttr::verify(EmitErrorFn emitError, int64_t clusterM,
                                 int64_t clusterN, int64_t rasterGroup,
                                 int64_t kvSplits) {
  if (clusterM < 1 || clusterN < 1 || rasterGroup < 1 || kvSplits < 1)
    return emitError() << "launch cluster_m, cluster_n, raster_group and "
                          "kv_splits must be >= 1, got "
                       << clusterM << ", " << clusterN << ", " << rasterGroup
                       << ", " << kvSplits;
  if (!llvm::isPowerOf2_64(clusterM) || !llvm::isPowerOf2_64(clusterN))
    return emitError() << "launch cluster sides must be powers of two, got "
                       << clusterM << " x " << clusterN;
  return success();
}

LogicalResult GridAttr::verify(EmitErrorFn emitError, int64_t blocks,
                               int64_t threads, int64_t blocksPerSM,
                               int64_t fullWaves, llvm::APFloat waveNs,
                               int64_t tailBlocks, llvm::APFloat tailNs,
                               llvm::APFloat fillNs) {
  std::pair<const char *, int64_t> positive[] = {
      {"blocks", blocks}, {"threads", threads}, {"blocks_per_sm", blocksPerSM}};
  for (auto [name, value] : positive)
    if (value < 1)
      return emitError() << "grid " << name << " must be >= 1, got " << value;
  if (fullWaves < 0 || tailBlocks < 0 || tailBlocks > blocks)
    return emitError() << "grid needs full_waves >= 0 and 0 <= tail_blocks "
                          "<= blocks, got "
                       << fullWaves << " and " << tailBlocks;
  if (!isNonNegativeFinite(waveNs) || !isNonNegativeFinite(tailNs) ||
      !isNonNegativeFinite(fillNs))
    return emitError()
           << "grid wave_ns, tail_ns and fill_ns must be finite and >= 0";
  if ((fullWaves == 0) != (waveNs.isZero()) ||
      (tailBlocks == 0) != (tailNs.isZero()))
    return emitError() << "grid has a wave time without waves (or waves "
                          "without time): full_waves "
                       << fullWaves << ", wave_ns " << waveNs.convertToDouble()
                       << ", tail_blocks " << tailBlocks << ", tail_ns "
                       << tailNs.convertToDouble();
  return success();
}
