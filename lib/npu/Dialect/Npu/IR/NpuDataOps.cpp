//===- NpuDataOps.cpp - parameters, gathers and shape ops -----------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::npu;

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

// A parameter is read by its consumers, which count it; producing it is free.
Work WeightOp::computeWork() { return Work(); }

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// `shape` as "[a, b, c]", for messages.
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// Checks that `result` has element type `elementType` and shape `shape`
/// (`what` says where the shape comes from).
static LogicalResult verifyResultType(Operation *op, Type elementType,
                                      ArrayRef<int64_t> shape, StringRef what) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (result.getElementType() != elementType)
    return op->emitOpError("result element type ")
           << result.getElementType() << " differs from the "
           << (isa<EmbeddingOp>(op) ? "table" : "input") << " element type "
           << elementType;
  if (result.getShape() != shape)
    return op->emitOpError("result shape ")
           << formatShape(result.getShape()) << " differs from " << what << " "
           << formatShape(shape);
  return success();
}

/// Work of a view: nothing moves. A view of a parameter is itself a
/// parameter (isParameter), so its consumers count the parameter bytes.
static Work getViewWork(Value) { return Work(); }

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::verify() {
  auto table = getTable().getType();
  if (table.getRank() != 2)
    return emitOpError("table must have rank 2 ([V, D]), got rank ")
           << table.getRank();
  SmallVector<int64_t> shape(getIds().getType().getShape());
  shape.push_back(table.getDimSize(1));
  return verifyResultType(*this, table.getElementType(), shape,
                          "the ids shape followed by D");
}

// Only the gathered rows move: numel(ids) rows of D elements; the whole
// table is held, hence counted as parameter bytes.
Work EmbeddingOp::computeWork() {
  auto table = getTable().getType();
  Work w;
  Count rows = getNumElements(getIds().getType());
  Count rowBytes =
      Count::fromSigned(table.getDimSize(1)) * Count(getElementBytes(table));
  w.bytesRead = getNumBytes(getIds()) + rows * rowBytes;
  w.bytesWritten = getNumBytes(getResult());
  if (isParameter(getTable()))
    w.paramBytes += getNumBytes(getTable());
  if (isParameter(getIds()))
    w.paramBytes += getNumBytes(getIds());
  return w;
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto input = getInput().getType();
  auto result = getResult().getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError("result element type ")
           << result.getElementType() << " differs from the input element type "
           << input.getElementType();
  Count in = getNumElements(input), out = getNumElements(result);
  if (!(in == out))
    return emitOpError("result has ")
           << out.value() << " elements, the input has " << in.value();
  return success();
}

Work ReshapeOp::computeWork() { return getViewWork(getInput()); }

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  auto input = getInput().getType();
  ArrayRef<int64_t> perm = getPerm();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOpError("perm has ")
           << perm.size() << " entries, expected one per input dimension ("
           << rank << ")";
  SmallVector<bool> used(rank, false);
  SmallVector<int64_t> shape;
  for (auto [k, p] : llvm::enumerate(perm)) {
    if (p < 0 || p >= rank)
      return emitOpError("perm entry ")
             << k << " is " << p << ", not in [0, " << rank << ")";
    if (used[p])
      return emitOpError("perm ")
             << formatShape(perm) << " is not a permutation: " << p
             << " appears twice";
    used[p] = true;
    shape.push_back(input.getDimSize(p));
  }
  return verifyResultType(*this, input.getElementType(), shape,
                          "the permuted input shape");
}

Work TransposeOp::computeWork() { return getOperandResultTraffic(*this); }

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto input = getInput().getType();
  auto result = getResult().getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError("result element type ")
           << result.getElementType() << " differs from the input's "
           << input.getElementType();
  if (input.getRank() != result.getRank())
    return emitOpError("result rank ")
           << result.getRank() << " differs from the input rank "
           << input.getRank();
  for (int64_t d = 0, e = input.getRank(); d < e; ++d)
    if (input.getDimSize(d) != 1 && input.getDimSize(d) != result.getDimSize(d))
      return emitOpError("input dimension ")
             << d << " is " << input.getDimSize(d)
             << "; it must be 1 or the result's " << result.getDimSize(d);
  return success();
}

Work BroadcastOp::computeWork() { return getOperandResultTraffic(*this); }

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  auto result = getResult().getType();
  int64_t rank = result.getRank();
  int64_t dim = getDim();
  if (dim < 0 || dim >= rank)
    return emitOpError("dim ")
           << dim << " is not in [0, " << rank << ") (the result's rank)";
  Count sum(0);
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != result.getElementType())
      return emitOpError("input #")
             << i << " element type " << t.getElementType()
             << " differs from the result element type "
             << result.getElementType();
    if (t.getRank() != rank)
      return emitOpError("input #")
             << i << " has rank " << t.getRank() << ", expected " << rank
             << " (the result's rank)";
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && t.getDimSize(d) != result.getDimSize(d))
        return emitOpError("input #")
               << i << " has size " << t.getDimSize(d) << " in dimension " << d
               << ", expected " << result.getDimSize(d)
               << " (all dimensions but " << dim << " match the result)";
    sum += Count::fromSigned(t.getDimSize(dim));
  }
  if (!(sum == Count::fromSigned(result.getDimSize(dim))))
    return emitOpError("result dimension ")
           << dim << " is " << result.getDimSize(dim)
           << ", expected the sum of the inputs' sizes " << sum.value();
  return success();
}

Work ConcatOp::computeWork() { return getOperandResultTraffic(*this); }

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  auto input = getInput().getType();
  int64_t rank = input.getRank();
  auto checkSize = [&](ArrayRef<int64_t> a, StringRef name) -> LogicalResult {
    if (static_cast<int64_t>(a.size()) != rank)
      return emitOpError() << name << " has " << a.size()
                           << " entries, expected " << rank
                           << " (the input's rank)";
    return success();
  };
  ArrayRef<int64_t> offsets = getOffsets(), sizes = getSizes(),
                    strides = getStrides();
  if (failed(checkSize(offsets, "offsets")) ||
      failed(checkSize(sizes, "sizes")) ||
      failed(checkSize(strides, "strides")))
    return failure();
  for (int64_t d = 0; d < rank; ++d) {
    if (offsets[d] < 0)
      return emitOpError("offset of dimension ")
             << d << " is " << offsets[d] << "; offsets must be >= 0";
    if (sizes[d] < 1)
      return emitOpError("size of dimension ")
             << d << " is " << sizes[d] << "; sizes must be >= 1";
    if (strides[d] < 1)
      return emitOpError("stride of dimension ")
             << d << " is " << strides[d] << "; strides must be >= 1";
    // Last index read: offset + (size - 1) * stride, overflow-checked.
    Count last = Count::fromSigned(offsets[d]) +
                 (Count::fromSigned(sizes[d]) - Count(1)) *
                     Count::fromSigned(strides[d]);
    if (last.isOverflow() ||
        last.value() >= static_cast<uint64_t>(input.getDimSize(d)))
      return emitOpError("slice of dimension ")
             << d << " (offset " << offsets[d] << ", size " << sizes[d]
             << ", stride " << strides[d] << ") is out of bounds for size "
             << input.getDimSize(d);
  }
  return verifyResultType(*this, input.getElementType(), sizes, "sizes");
}

Work SliceOp::computeWork() { return getViewWork(getInput()); }
