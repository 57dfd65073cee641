//===- KernelModel.cpp - a kernel's loop nest from its ops ----------------===//

#include "npu/Analysis/KernelModel.h"
#include "KernelModelDetail.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::kernel_model_detail;

//===----------------------------------------------------------------------===//
// Describing groups
//===----------------------------------------------------------------------===//

namespace mlir::npu::kernel_model_detail {
/// Values a group reads from outside, in first-use order.
llvm::SetVector<Value> getGroupInputs(ArrayRef<Operation *> ops) {
  llvm::DenseSet<Operation *> inGroup(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs;
  for (Operation *op : ops)
    for (Value v : op->getOperands())
      if (!v.getDefiningOp() || !inGroup.contains(v.getDefiningOp()))
        inputs.insert(v);
  return inputs;
}

int64_t elementBytes(Value v) {
  return static_cast<int64_t>(
      getElementBytes(cast<ShapedType>(v.getType()).getElementType()));
}

/// FLOPs of the group (bytes are left to the loop-nest model).
Work sumFlops(ArrayRef<Operation *> ops) {
  Work w;
  for (Operation *op : ops)
    if (auto iface = dyn_cast<WorkOpInterface>(op)) {
      Work o = iface.computeWork();
      w.matrixFlops += o.matrixFlops;
      w.vectorFlops += o.vectorFlops;
      w.transcendentalFlops += o.transcendentalFlops;
    }
  return w;
}

/// The expert FFN: gate and up projections, SwiGLU, down projection, of
/// inputs of type `xType` and weights like `w` (the gate's).
KernelDesc gatedMlp(int64_t m, int64_t f, int64_t d, Type xType, Value w,
                    int64_t xBytes, int64_t yBytes) {
  KernelDesc k;
  k.kind = KernelKind::GatedMlp;
  k.loops = MlpNest<>{m, f, d}.list();
  describeRhs(k, xType, w);
  k.lhsBytes = xBytes;
  k.outBytes = yBytes;
  k.work.matrixFlops = Count(6) * Count::fromSigned(m) * Count::fromSigned(f) *
                       Count::fromSigned(d);
  k.work.transcendentalFlops = Count::fromSigned(m) * Count::fromSigned(f);
  k.work.vectorFlops = Count(3) * Count::fromSigned(m) * Count::fromSigned(f);
  return k;
}
} // namespace mlir::npu::kernel_model_detail

namespace {

/// Bytes of `inputs` other than `except`, read once. A weight of `except`
/// dequantized in the group excepts its stored values and scales (the
/// group's inputs once the kernel holds the dequantize).
FailureOr<int64_t> otherInputBytes(const llvm::SetVector<Value> &inputs,
                                   llvm::ArrayRef<Value> except) {
  SmallVector<Value> all(except);
  for (Value v : except)
    if (auto dq = v.getDefiningOp<DequantizeOp>())
      all.append(dq->operand_begin(), dq->operand_end());
  Count sum;
  for (Value v : inputs)
    if (!llvm::is_contained(all, v) && isa<ShapedType>(v.getType()))
      sum += getNumBytes(v);
  if (std::optional<int64_t> bytes = sum.toInt64())
    return *bytes;
  return failure();
}

bool hasNorm(ArrayRef<Operation *> ops) {
  return llvm::any_of(
      ops, [](Operation *op) { return isa<RMSNormOp, LayerNormOp>(op); });
}

} // namespace

void mlir::npu::describeRhs(KernelDesc &k, Type lhsType, Value rhs) {
  Type rhsType = cast<ShapedType>(rhs.getType()).getElementType();
  k.matrixType = getProductType(lhsType, rhsType);
  k.rhsBytes = double(getElementBytes(rhsType));
  auto dq = rhs.getDefiningOp<DequantizeOp>();
  if (!dq)
    return;
  k.storedRhs.fallbackType = k.matrixType;
  Count n = getNumElements(rhs.getType()), stored = dq.getStoredBytes();
  k.rhsBytes = n.value() > 0 && !stored.isOverflow()
                   ? double(stored.value()) / double(n.value())
                   : 0.0;
  Type values = dq.getValues().getType().getElementType();
  k.storedRhs.valueBytes = double(values.getIntOrFloatBitWidth()) / 8;
  if (!isa<FloatType>(values))
    return; // int8, int4: weight-only
  k.storedRhs.nativeType = values;
  k.matrixType = values;
  MLIRContext *ctx = values.getContext();
  if (isa<Float4E2M1FNType>(values) &&
      isa<Float8E8M0FNUType>(dq.getScales().getType().getElementType()))
    k.matrixType = Float8E4M3FNType::get(ctx); // MXFP4: W4A8
}

namespace {
/// A GEMM phase of one or several matmuls that share their lhs (the
/// projections of one normalized input are one GEMM with N = sum of N).
FailureOr<KernelDesc> describeGemm(ArrayRef<MatmulOp> matmuls) {
  MatmulOp first = matmuls.front();
  MatmulOp::Dims d = first.getDims();
  KernelDesc k;
  k.kind = KernelKind::Gemm;
  int64_t n = 0;
  for (MatmulOp mm : matmuls) {
    MatmulOp::Dims di = mm.getDims();
    if (mm.getLhs() != first.getLhs() || di.batch != d.batch || di.m != d.m ||
        di.k != d.k)
      return failure();
    n += di.n;
    if (matmuls.size() > 1)
      k.siblingN.push_back(di.n);
    Work w = mm.computeWork();
    k.work.matrixFlops += w.matrixFlops;
  }
  k.rhsBatched = first.getRhs().getType().getRank() > 2;
  k.foldedBatch = !k.rhsBatched && d.batch > 1;
  k.singleOutput = matmuls.size() == 1;
  // A weight shared by every batch element: the batch is more rows of A.
  k.loops = k.rhsBatched ? GemmNest<>{d.batch, d.m, n, d.k}.list()
                         : GemmNest<>{1, d.batch * d.m, n, d.k}.list();
  describeRhs(k, first.getLhs().getType().getElementType(), first.getRhs());
  k.lhsBytes = elementBytes(first.getLhs());
  k.outBytes = elementBytes(first.getResult());
  return k;
}

/// The SRAM `v` takes as a buffer of its own: its bytes rounded up to the
/// 64 bytes every allocation is aligned to; nullopt past 64 bits.
std::optional<int64_t> bufferBytes(Value v) {
  std::optional<int64_t> size = getNumBytes(v).toInt64();
  if (!size || *size > std::numeric_limits<int64_t>::max() - 63)
    return std::nullopt;
  return int64_t(llvm::alignTo(*size, 64));
}

/// Adds `v` to what `k` holds whole on chip (a buffer of its own), and with
/// `read` to the bytes read of it; fails past 64 bits.
LogicalResult holdWhole(KernelDesc &k, Value v, bool read) {
  std::optional<int64_t> buffer = bufferBytes(v);
  if (!buffer)
    return failure();
  std::optional<int64_t> held =
      (Count::fromSigned(k.heldBytes) + Count::fromSigned(*buffer)).toInt64();
  if (!held)
    return failure();
  k.heldBytes = *held;
  if (read)
    k.heldReadBytes += getNumBytes(v).value(); // at most the buffer
  return success();
}

/// The results of the group's ops that ops outside it use: what a stream
/// kernel writes.
SmallVector<Value> getGroupOutputs(ArrayRef<Operation *> ops) {
  llvm::DenseSet<Operation *> inGroup(ops.begin(), ops.end());
  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !inGroup.contains(u); }))
        outputs.push_back(r);
  return outputs;
}

FailureOr<KernelDesc> describeAttention(AttentionOp attn) {
  AttentionOp::Dims d = attn.getDims();
  KernelDesc k;
  k.kind = KernelKind::Attention;
  // qSub is the query sub-tile loop inside a step: a block of query
  // positions stays on chip while each K/V tile streams past it in
  // sub-tiles. kvHeld is the K/V a head holds on chip across its query
  // blocks: one K/V tile (streamed per block), or a prefix of whole K/V
  // tiles or all Skv keys (held, read once per head; keys past a prefix
  // streamed) (docs/cost-model-tpu.md).
  k.loops = AttentionNest<>{/*heads=*/d.batch * d.kvHeads,
                            /*q=*/d.qLen,
                            /*kv=*/d.kvLen,
                            /*headDim=*/d.qkDim,
                            /*qSub=*/d.qLen,
                            /*kvHeld=*/d.kvLen}
                .list();
  k.group = d.qHeads / d.kvHeads;
  k.vDim = d.vDim;
  k.causal = attn.getCausal();
  k.window = attn.getWindowSize();
  k.chunk = attn.getChunkSize();
  k.softcap = static_cast<bool>(attn.getSoftcapAttr());
  k.sinks = static_cast<bool>(attn.getSinks());
  k.latent = attn.isLatent();
  k.work = attn.computeWork();
  k.matrixType = attn.getQuery().getType().getElementType();
  k.lhsBytes = elementBytes(attn.getQuery());
  k.rhsBytes = elementBytes(attn.getKey());
  k.outBytes = elementBytes(attn.getResult());
  return k;
}

FailureOr<KernelModel> describeGemmKernel(ArrayRef<Operation *> ops) {
  SmallVector<MatmulOp> matmuls = opsOfType<MatmulOp>(ops);
  if (matmuls.empty())
    return failure();
  FailureOr<KernelDesc> k = describeGemm(matmuls);
  if (failed(k))
    return failure();
  llvm::SetVector<Value> inputs = getGroupInputs(ops);
  SmallVector<Value> main;
  for (MatmulOp mm : matmuls)
    main.push_back(mm.getRhs());
  Value lhs = matmuls.front().getLhs();
  k->needsFullK = hasNorm(ops);
  if (k->needsFullK) {
    // A normalization produces the lhs: its input is what is streamed.
    Operation *norm = lhs.getDefiningOp();
    if (!norm || !isa<RMSNormOp, LayerNormOp>(norm))
      return failure();
    k->normBytes = elementBytes(lhs);
    lhs = norm->getOperand(0);
    k->lhsBytes = elementBytes(lhs);
  }
  main.push_back(lhs);
  FailureOr<int64_t> extra = otherInputBytes(inputs, main);
  if (failed(extra))
    return failure();
  k->extraReadBytes = *extra;
  // Of them, per-column vectors of the epilogue (a bias of the output's
  // last dim, read only by ops after the first matmul: not a norm's weight).
  int64_t n =
      cast<ShapedType>(ops.back()->getResult(0).getType()).getShape().back();
  const auto *firstMatmul = llvm::find(ops, matmuls.front().getOperation());
  auto inEpilogue = [&](Operation *user) {
    const auto *at = llvm::find(ops, user);
    return at == ops.end() || at > firstMatmul; // outside the group: no say
  };
  for (Value v : inputs)
    if (auto type = dyn_cast<ShapedType>(v.getType());
        type && !llvm::is_contained(main, v) && type.hasStaticShape() &&
        type.getNumElements() == n && n > 1 &&
        llvm::all_of(v.getUsers(), inEpilogue))
      k->columnBytes += getNumBytes(v).toInt64().value_or(0);
  k->work = sumFlops(ops);
  KernelModel model;
  model.kind = KernelKind::Gemm;
  model.work = k->work;
  model.phases.push_back(*k);
  return model;
}

FailureOr<KernelModel> describeGatedMlpKernel(ArrayRef<Operation *> ops) {
  SmallVector<MatmulOp> matmuls = opsOfType<MatmulOp>(ops);
  if (matmuls.size() != 3)
    return failure();
  // The down projection consumes the activation computed in the group.
  MatmulOp down = matmuls.back(), gate = matmuls[0];
  MatmulOp::Dims dg = gate.getDims(), dd = down.getDims();
  if (matmuls[1].getLhs() != gate.getLhs() || dg.n != dd.k)
    return failure();
  Value x = gate.getLhs();
  bool norm = false;
  if (Operation *def = x.getDefiningOp();
      def && isa<RMSNormOp, LayerNormOp>(def) && llvm::is_contained(ops, def)) {
    x = def->getOperand(0);
    norm = true;
  }
  KernelDesc k = gatedMlp(
      dg.batch * dg.m, dg.n, dg.k, gate.getLhs().getType().getElementType(),
      gate.getRhs(), elementBytes(x), elementBytes(down.getResult()));
  llvm::SetVector<Value> inputs = getGroupInputs(ops);
  FailureOr<int64_t> extra = otherInputBytes(
      inputs, {x, gate.getRhs(), matmuls[1].getRhs(), down.getRhs()});
  if (failed(extra))
    return failure();
  k.extraReadBytes = *extra;
  // An add of another [M, D] input (not x, which the tile already holds).
  for (Operation *op : ops)
    if (auto add = dyn_cast<AddOp>(op))
      for (Value v : {add.getLhs(), add.getRhs()})
        k.epilogueInput |= v != x && inputs.contains(v) &&
                           v.getType() == down.getResult().getType();
  k.normBytes = norm ? elementBytes(gate.getLhs()) : 0;
  k.work = sumFlops(ops);
  KernelModel model;
  model.kind = KernelKind::GatedMlp;
  model.work = k.work;
  model.phases.push_back(k);
  return model;
}

FailureOr<KernelModel> describeAttentionKernel(ArrayRef<Operation *> ops) {
  SmallVector<AttentionOp> attns = opsOfType<AttentionOp>(ops);
  if (attns.size() != 1)
    return failure();
  FailureOr<KernelDesc> k = describeAttention(attns.front());
  if (failed(k))
    return failure();
  // A transpose in the body that does not read the attention's result (a
  // query laid out [B, H, S, D] from [S, B, ..]) is computed whole before
  // the tile loops and held on chip beside the tiles (TileAttention.cpp
  // folds only the output's transpose into the output tiles); while it
  // runs, its input is on chip whole beside it.
  for (Operation *op : ops) {
    auto t = dyn_cast<TransposeOp>(op);
    if (!t || t.getInput().getDefiningOp<AttentionOp>())
      continue;
    if (failed(holdWhole(*k, t.getResult(), /*read=*/false)))
      return failure();
    // The input's buffer beside them: what the peak adds.
    std::optional<int64_t> staged = bufferBytes(t.getInput());
    std::optional<int64_t> peak =
        staged ? (Count::fromSigned(k->heldBytes) + Count::fromSigned(*staged))
                     .toInt64()
               : std::nullopt;
    if (!peak)
      return failure();
    k->prologueBytes = std::max(k->prologueBytes, *peak);
  }
  KernelModel model;
  model.kind = KernelKind::Attention;
  model.work = sumFlops(ops);
  k->work = model.work;
  model.phases.push_back(*k);
  return model;
}

/// MLA decode in absorbed form: q_nope x W_UK, attention over the latent
/// cache, o_lat x W_UV, with the per-head intermediates kept on chip.
FailureOr<KernelModel> describeMlaKernel(ArrayRef<Operation *> ops) {
  SmallVector<AttentionOp> attns = opsOfType<AttentionOp>(ops);
  SmallVector<MatmulOp> matmuls = opsOfType<MatmulOp>(ops);
  if (attns.size() != 1 || matmuls.size() != 2)
    return failure();
  FailureOr<KernelDesc> absorbQ = describeGemm({matmuls[0]});
  FailureOr<KernelDesc> attn = describeAttention(attns.front());
  FailureOr<KernelDesc> absorbO = describeGemm({matmuls[1]});
  if (failed(absorbQ) || failed(attn) || failed(absorbO))
    return failure();
  absorbQ->outputOnChip = attn->inputOnChip = attn->outputOnChip = true;
  absorbO->inputOnChip = true; // the query's RoPE part (q_pe) from HBM:
  FailureOr<int64_t> queryRest = otherInputBytes(
      getGroupInputs(ops), {matmuls[0].getLhs(), matmuls[0].getRhs(),
                            matmuls[1].getRhs(), attns.front().getKey()});
  if (failed(queryRest))
    return failure();
  attn->extraReadBytes = *queryRest;
  KernelModel model;
  model.kind = KernelKind::MlaAbsorbed;
  model.work = sumFlops(ops);
  model.phases = {*absorbQ, *attn, *absorbO};
  model.mainPhase = 1;
  return model;
}

/// Whether a stream kernel's input of type `s` is not row-tiled but held
/// whole for all the tiles: one row's worth broadcast over the rows (a
/// norm's weight, a bias, GPT-2's [1, D] position embedding at decode) or
/// a scalar (of any rank: Llama-4's [1, 1] attention temperature), in a
/// loop nest of `rank` dims and `cols` columns.
bool isHeldWhole(ShapedType s, int64_t cols, size_t rank) {
  return s.hasStaticShape() && rank > 1 &&
         (s.getNumElements() == 1 ||
          (s.getRank() >= 1 && s.getShape().back() == cols &&
           s.getNumElements() == cols));
}

/// The bytes per row of each row-tiled input and output of a stream or
/// copy kernel `k` (one buffer each on chip): the inputs not held whole and
/// the results that leave the group, each a whole number of bytes per row
/// of `k`'s loop nest; empty unless they add up to every byte the kernel
/// moves per row (a gather's table, a combine's rows: not tiles of the
/// rows).
SmallVector<int64_t, 4> rowBuffers(ArrayRef<Operation *> ops,
                                   const KernelDesc &k) {
  int64_t rows = k.rowLoops().rows;
  if (rows <= 0 || k.combineSlots > 0 || k.rowReads > 0 || k.tableBytes > 0)
    return {};
  SmallVector<Value> values(getGroupInputs(ops).takeVector());
  llvm::append_range(values, getGroupOutputs(ops));
  SmallVector<int64_t, 4> perRow;
  Count total;
  for (Value v : values) {
    auto s = dyn_cast<ShapedType>(v.getType());
    if (!s)
      continue;
    std::optional<int64_t> bytes = getNumBytes(v).toInt64();
    if (!s.hasStaticShape() || !bytes)
      return {};
    if (isHeldWhole(s, k.rowLoops().cols, k.rowShape.size()))
      continue;
    if (*bytes % rows != 0)
      return {};
    perRow.push_back(*bytes / rows);
    total += Count::fromSigned(*bytes);
  }
  if (total.isOverflow() ||
      total.value() != (k.work.bytesRead + k.work.bytesWritten -
                        Count::fromSigned(k.heldReadBytes))
                           .value())
    return {};
  return perRow;
}

/// Row-wise kernels and copies: traffic is every input read once and every
/// output written once (the group's minimum), over [rows, columns] of the
/// largest output.
FailureOr<KernelModel> describeStreamKernel(KernelKind kind,
                                            ArrayRef<Operation *> ops) {
  KernelModel model;
  model.kind = kind;
  Work w = sumFlops(ops);
  if (ops.size() == 1) {
    if (auto iface = dyn_cast<WorkOpInterface>(ops.front()))
      w = iface.computeWork();
  } else {
    llvm::SetVector<Value> inputs = getGroupInputs(ops);
    for (Value v : inputs)
      if (isa<ShapedType>(v.getType()))
        w.bytesRead += getNumBytes(v);
    for (Value r : getGroupOutputs(ops))
      w.bytesWritten += getNumBytes(r);
  }
  // The shape of the loop nest: the largest result.
  ShapedType largest;
  for (Operation *op : ops)
    for (Type t : op->getResultTypes())
      if (auto s = dyn_cast<ShapedType>(t);
          s && s.hasStaticShape() && s.getRank() > 0 &&
          (!largest || s.getNumElements() > largest.getNumElements()))
        largest = s;
  if (!largest)
    return failure();
  KernelDesc k;
  k.kind = kind;
  int64_t cols = largest.getShape().back();
  k.loops = RowNest<>{largest.getNumElements() / cols, cols}.list();
  k.rowShape.assign(largest.getShape().begin(), largest.getShape().end());
  for (Operation *op : ops)
    if (auto rope = dyn_cast<RopeOp>(op)) {
      auto type = rope.getInput().getType();
      int64_t half = rope.getRotaryDimOrDefault() / 2;
      int64_t seq = type.getDimSize(type.getRank() - 2);
      Count table = Count(4) * Count::fromSigned(half) *
                    (Count(1) + Count(2) * Count::fromSigned(seq));
      std::optional<int64_t> bytes =
          (Count::fromSigned(k.tableBytes) + table).toInt64();
      if (!bytes)
        return failure();
      k.tableBytes = *bytes;
      // One length for the per-tile form; ropes of two lengths keep the
      // table whole.
      k.tableRows = (k.tableEntries == 0 || k.tableRows == seq) ? seq : 0;
      k.tableEntries += half;
    }
  // Inputs that are not row-tiled (one row's worth, broadcast over the
  // rows: a norm's weight, a bias; or a scalar) are loaded once and held
  // whole for all the tiles (npu-tpu-assign-memory-spaces).
  for (Value v : getGroupInputs(ops))
    if (auto s = dyn_cast<ShapedType>(v.getType());
        s && isHeldWhole(s, cols, largest.getRank()) &&
        failed(holdWhole(k, v, /*read=*/true)))
      return failure();
  // What a row holds while it is computed (npu-lower-to-linalg):
  // - a router: its buffers (appendRouterState);
  // - an RMS norm its f32 sum of squares and scale; a layer norm its f32
  //   mean, variance and scale (each a buffer of one value per row) and
  //   the centered row in f32.
  // A gather (the embedding) copies one row of its table per id, each its
  // own DMA into the tile (GatherRows.cpp); the tile leaves whole.
  for (Operation *op : ops) {
    if (auto router = dyn_cast<MoERouterOp>(op))
      appendRouterState(router, k.rowStateBuffers);
    if (isa<RMSNormOp>(op))
      k.rowStateBuffers.append({4, 4});
    if (isa<LayerNormOp>(op)) {
      k.rowStateBuffers.append({4, 4, 4});
      k.rowStateBytes += 4 * cols;
    }
    if (auto gather = dyn_cast<EmbeddingOp>(op))
      k.rowReads += gather.getIds().getType().getNumElements();
  }
  k.work = model.work = w;
  k.rowBufferBytes = rowBuffers(ops, k);
  model.phases.push_back(k);
  return model;
}
} // namespace

bool mlir::npu::doesWork(Operation *op) {
  auto iface = dyn_cast<WorkOpInterface>(op);
  if (!iface || isa<KernelOp>(op))
    return false;
  Work w = iface.computeWork();
  return w.isOverflow() || w.totalFlops().value() != 0 ||
         (w.bytesRead + w.bytesWritten).value() != 0;
}

KernelKind mlir::npu::getDefaultKernelKind(Operation *op) {
  if (isa<MatmulOp>(op))
    return KernelKind::Gemm;
  if (isa<AttentionOp>(op))
    return KernelKind::Attention;
  if (isa<MoEExpertsOp>(op))
    return KernelKind::MoeFfn;
  if (isa<TransposeOp, ConcatOp, BroadcastOp, EmbeddingOp, KVCacheAppendOp>(op))
    return KernelKind::Copy;
  return KernelKind::Stream;
}

FailureOr<KernelModel> mlir::npu::describeKernel(KernelKind kind,
                                                 ArrayRef<Operation *> ops) {
  if (ops.empty())
    return failure();
  FailureOr<KernelModel> model = failure();
  switch (kind) {
  case KernelKind::Gemm:
    model = describeGemmKernel(ops);
    break;
  case KernelKind::GatedMlp:
    model = describeGatedMlpKernel(ops);
    break;
  case KernelKind::Attention:
    model = describeAttentionKernel(ops);
    break;
  case KernelKind::MlaAbsorbed:
    model = describeMlaKernel(ops);
    break;
  case KernelKind::MoeFfn:
    model = describeMoeKernel(ops);
    break;
  case KernelKind::Stream:
  case KernelKind::Copy:
    model = describeStreamKernel(kind, ops);
    break;
  }
  if (failed(model) || model->work.isOverflow())
    return failure();
  for (const KernelDesc &k : model->phases)
    if (k.work.isOverflow() ||
        llvm::any_of(k.loops, [](int64_t n) { return n < 1; }))
      return failure();
  return model;
}

std::string mlir::npu::explainUndescribedKernel(KernelOp kernel) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    for (Type t :
         llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
      if (auto ranked = dyn_cast<RankedTensorType>(t);
          ranked && ranked.getRank() == 0) {
        os << "'" << op.getName() << "' works on a 0-d tensor (" << t
           << "): a scalar is not tiled onto the chip; give it shape [1]";
        return s;
      }
  os << "the body of this " << stringifyKernelKind(kernel.getKind())
     << " kernel does not have the shape its kind needs";
  return s;
}

FailureOr<KernelModel> mlir::npu::describeKernel(KernelOp kernel) {
  SmallVector<Operation *> ops;
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    ops.push_back(&op);
  FailureOr<KernelModel> model = describeKernel(kernel.getKind(), ops);
  if (failed(model))
    return failure();
  // The kernel's own work (one op: that op's exact traffic).
  Work w = kernel.computeWork();
  model->work = w;
  if (model->phases.size() == 1 &&
      (model->kind == KernelKind::Stream || model->kind == KernelKind::Copy))
    model->phases.front().work = w;
  return model;
}
