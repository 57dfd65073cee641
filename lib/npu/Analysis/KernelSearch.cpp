//===- KernelSearch.cpp - what the cost models' searches share ------------===//
//
// A kernel's memo key (the context memos of the tile search and the L2
// simulation, npu/Analysis/ContextMemo.h) and the enumeration of a kernel's
// candidate tiles, bounded by what fits.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/KernelModel.h"

#include <functional>

using namespace mlir;
using namespace mlir::npu;

void mlir::npu::appendKey(const KernelDesc &k, SmallVectorImpl<uint64_t> &key) {
  // A field added to KernelDesc must be added here too (or a memo would
  // take two different kernels for one): the size check below fails until
  // it is, and is then updated.
  static_assert(sizeof(void *) != 8 || sizeof(KernelDesc) == 584,
                "KernelDesc changed: update appendKey");
  auto list = [&](ArrayRef<int64_t> values) {
    key.push_back(values.size());
    key.append(values.begin(), values.end());
  };
  auto count = [&](Count c) {
    key.push_back(c.value());
    key.push_back(c.isOverflow());
  };
  key.push_back(uint64_t(k.kind));
  list(k.loops);
  key.push_back(k.repeat);
  for (Count c :
       {k.work.matrixFlops, k.work.vectorFlops, k.work.transcendentalFlops,
        k.work.bytesRead, k.work.bytesWritten, k.work.paramBytes})
    count(c);
  key.push_back(uint64_t(uintptr_t(k.matrixType.getAsOpaquePointer())));
  key.append({uint64_t(k.lhsBytes), llvm::bit_cast<uint64_t>(k.rhsBytes),
              uint64_t(k.outBytes), k.rhsBatched, k.foldedBatch,
              k.singleOutput});
  const KernelDesc::StoredRhs &s = k.storedRhs;
  for (Type t : {s.nativeType, s.fallbackType})
    key.push_back(uint64_t(uintptr_t(t.getAsOpaquePointer())));
  key.push_back(llvm::bit_cast<uint64_t>(s.valueBytes));
  list(k.siblingN);
  list(k.rowShape);
  list(k.rowBufferBytes);
  list(k.rowStateBuffers);
  key.append({k.needsFullK,
              uint64_t(k.extraReadBytes),
              uint64_t(k.columnBytes),
              k.epilogueInput,
              uint64_t(k.normBytes),
              uint64_t(k.tableBytes),
              uint64_t(k.tableRows),
              uint64_t(k.tableEntries),
              k.tablePerTile,
              uint64_t(k.heldBytes),
              uint64_t(k.heldReadBytes),
              uint64_t(k.prologueBytes),
              uint64_t(k.rowStateBytes),
              k.gatheredRows,
              uint64_t(k.rowReads),
              uint64_t(k.combineSlots),
              uint64_t(k.combineWeightBytes),
              k.inputOnChip,
              k.outputOnChip,
              uint64_t(k.group),
              uint64_t(k.vDim),
              uint64_t(k.window),
              uint64_t(k.chunk),
              k.causal,
              k.latent,
              k.softcap,
              k.sinks});
}

void mlir::npu::forEachTile(ArrayRef<SmallVector<int64_t>> lists,
                            function_ref<bool(MutableArrayRef<int64_t>)> fn) {
  SmallVector<int64_t, 6> tile(lists.size());
  // Whether the first tile visited below loop i (every later loop at its
  // smallest candidate) may fit. If not, neither may any with a larger
  // value of loop i: the lists ascend and the fit test is monotone.
  std::function<bool(unsigned)> visit = [&](unsigned i) {
    if (i == lists.size())
      return fn(tile);
    bool first = true, firstFits = true;
    for (int64_t v : lists[i]) {
      tile[i] = v;
      bool fits = visit(i + 1);
      if (first)
        firstFits = fits;
      first = false;
      if (!fits)
        break;
    }
    return firstFits;
  };
  visit(0);
}
