//===- StoredWeights.h - weights in scaled formats, for the importers -----===//
//
// Private to the Import library. A linear weight stored as a checkpoint
// ships it (fp8 with 128 x 128 block scales, MXFP4, NVFP4, int8 or int4 with
// group scales; docs/formats.md): its stored values and scales are layer
// parameters, and npu.dequantize states the weight where a matmul or the
// experts take it.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_IMPORT_STOREDWEIGHTS_H
#define NPU_LIB_IMPORT_STOREDWEIGHTS_H

#include "GraphBuilder.h"

namespace mlir::npu::import {

/// A weight as parameters: `values` (plain, or stored with `scales` and,
/// for NVFP4, a per-tensor `global` scale).
struct StoredParam {
  Value values, scales, global;
  SmallVector<int64_t, 3> block;
};

/// The linear weight `name` of shape `shape` ([out, in], or [E, out, in]
/// for experts) as `f`'s parameters, in `g`'s weight type or stored in
/// `g`'s format where it applies (`expert`: a routed or shared expert's).
StoredParam storedParam(GraphBuilder &g, LayerFunc &f, StringRef name,
                        ArrayRef<int64_t> shape, bool expert = false);
/// `p` sliced along `dim` like GraphBuilder::slice, its scales with it: a
/// block of one along `dim`, or (stride 1) whole blocks.
StoredParam sliceParam(GraphBuilder &g, const StoredParam &p, int64_t dim,
                       int64_t start, int64_t size, int64_t stride = 1);
/// Whether sliceParam can cut `p` along `dim` at `start` for `size`.
bool canSliceParam(const StoredParam &p, int64_t dim, int64_t start,
                   int64_t size, int64_t stride = 1);
/// `p` [R, C] reshaped to [R / n, n, C], its scales [R / b, C'] to
/// [R / n, n / b, C'] (b, the block of rows, must divide n).
StoredParam splitRows(GraphBuilder &g, const StoredParam &p, int64_t n);
/// The weight `p` states: its values, or their npu.dequantize.
Value useParam(GraphBuilder &g, const StoredParam &p);

/// storedParam then useParam: the weight of one linear layer.
inline Value linearWeight(GraphBuilder &g, LayerFunc &f, StringRef name,
                          ArrayRef<int64_t> shape, bool expert = false) {
  return useParam(g, storedParam(g, f, name, shape, expert));
}

} // namespace mlir::npu::import

#endif // NPU_LIB_IMPORT_STOREDWEIGHTS_H
