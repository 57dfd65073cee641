//===- ContextMemo.h - results kept for an MLIRContext's life --*- C++ -*-===//
//
// A cost model's deterministic computations (the TPU-like tile search, the
// GPU-like L2 simulation) kept per context (NpuDialect::getContextCache):
// the fusion decision, the tile decision and every layer function price the
// same kernels. The key is a list of words naming every input of the
// computation, pointers to uniqued attributes and types included (so a key
// means something only in its context).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ANALYSIS_CONTEXTMEMO_H
#define NPU_ANALYSIS_CONTEXTMEMO_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <mutex>

namespace mlir::npu {

template <typename Value> class ContextMemo {
public:
  /// The value kept for `key`, or `compute()`'s, kept. Computed outside the
  /// lock: two threads may compute the same value at once, and find the
  /// same.
  Value getOrCompute(ArrayRef<uint64_t> key,
                     llvm::function_ref<Value()> compute) {
    StringRef bytes(reinterpret_cast<const char *>(key.data()),
                    key.size() * sizeof(uint64_t));
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = values.find(bytes);
      if (it != values.end())
        return it->second;
    }
    Value value = compute();
    std::lock_guard<std::mutex> lock(mutex);
    // A long sweep of many targets (npu-sweep) would keep adding entries:
    // past the bound the memo starts over (values are recomputed the same).
    if (values.size() >= kMaxEntries)
      values.clear();
    values.try_emplace(bytes, value);
    return value;
  }

  /// About 2^18 x a few hundred bytes: ~100 MiB per memo at most.
  static constexpr size_t kMaxEntries = size_t(1) << 18;

private:
  std::mutex mutex;
  llvm::StringMap<Value> values;
};

} // namespace mlir::npu

#endif // NPU_ANALYSIS_CONTEXTMEMO_H
