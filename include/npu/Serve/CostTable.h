//===- CostTable.h - what one step of a serving engine costs ----*- C++ -*-===//
//
// The serving simulator never compiles: it prices each engine step from a
// table of whole-model programs that the backends compiled once per shape
// (CompiledTable.h builds it; a JSON file `npu-serve-costs/1` holds it, so a
// test can also give one by hand). Each entry is one program's time and
// the part of it spent in attention kernels:
//  - prefill points: one sequence of S tokens (batch 1), S ascending;
//  - decode points: B sequences of one new token each over C cached
//    tokens, on a rectangular grid of B and C.
// A static (compile-time) engine runs exactly these programs: its buckets
// are table points and their times are the compiled ones. A continuous
// (run-time) engine runs ragged steps that mix decode tokens with prefill
// chunks; their time is interpolated from the table (docs/serving.md gives
// the rule and its measured error):
//   step = dense(T) + decodeAttention(B, K) + sum of chunkAttention(q, p)
// where T is the step's tokens, dense(T) the non-attention time of the
// prefill program of T tokens (linear between points: the kernels are
// GEMMs of T rows; a step of decodes only takes it from the decode
// programs instead, decodeDenseNs), decodeAttention(B, K) the decode programs'
// attention time at B sequences holding K cached tokens in all (linear in K at
// each grid B, then in B), and chunkAttention(q, p) that of a prefill chunk of
// q tokens after p cached ones, read off the prefill programs at the causal
// work q p + q (q + 1) / 2 (linear in that work between points).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SERVE_COSTTABLE_H
#define NPU_SERVE_COSTTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::npu::serve {

/// Largest time (ns), size (bytes) or bandwidth (bytes/s) a table holds.
constexpr double kMaxTableValue = 1e18;

/// One compiled program: `batch` sequences of `length` tokens (prefill) or
/// of one new token over `length` cached ones (decode).
struct ShapePoint {
  int64_t batch = 1, length = 1;
  double totalNs = 0;     ///< the program's modelled time
  double attentionNs = 0; ///< of which attention kernels
};

struct CostTable {
  std::string model;  ///< what was compiled (a config's name)
  std::string target; ///< the chip
  std::string kind;   ///< "tpu" or "gpu": who decides
  /// Chips that run each program together as one instance (a system's; the
  /// memory fields are all of theirs).
  int64_t chips = 1;
  /// Memory of one chip: HBM capacity, the weights, the activation
  /// workspace of the largest step, and the KV cache per token (all
  /// layers).
  double hbmBytes = 0, weightBytes = 0, activationBytes = 0;
  double kvBytesPerToken = 0;
  /// Sustained bandwidth from one chip to another over the scale-up
  /// network, one direction (0: unknown): all of a chip's links through a
  /// switch, one link to a torus neighbour. It moves a KV cache in a
  /// disaggregated deployment.
  double linkBytesPerS = 0;
  std::vector<ShapePoint> prefill; ///< batch 1, lengths ascending
  std::vector<ShapePoint> decode;  ///< sorted by (batch, length), full grid
  /// A drafter's cost per drafted token for a step of `length` sequences
  /// (batch 1 in the points; total = the drafter's time, attention 0):
  /// DeepSeek-V3's MTP module, the difference of the prefill programs with
  /// and without it. Empty: no drafter priced.
  std::vector<ShapePoint> draft;

  /// Checks the invariants above (positive, finite, at most
  /// kMaxTableValue, attention <= total, sorted, a full decode grid with at
  /// least one point).
  llvm::Error verify() const;

  /// The bytes left for the KV cache when a fraction `utilization` of HBM
  /// may be used (vLLM's gpu_memory_utilization): utilization x HBM minus
  /// weights and activations, at least 0.
  double kvCapacityBytes(double utilization) const;

  /// Largest step (tokens) and context the table prices.
  int64_t maxStepTokens() const { return prefill.back().length; }
  int64_t maxDecodeBatch() const { return decode.back().batch; }
  int64_t maxContext() const { return decode.back().length; }

  // The interpolation of a ragged step (see the file comment); each
  // argument within the table (the caller checks).
  double denseNs(int64_t tokens) const;
  double chunkAttentionNs(int64_t tokens, int64_t prefix) const;
  double decodeAttentionNs(int64_t batch, int64_t cachedTokens) const;
  /// The non-attention time of a step of decodes only, from the decode
  /// programs' first length (linear between batches): a decode program is
  /// launched as such (a CUDA graph on a GPU-like chip), unlike a prefill.
  double decodeDenseNs(int64_t batch) const;
  /// One drafted token for each of `sequences` (linear between points).
  double draftNs(int64_t sequences) const;

  /// Exact programs, for a static engine: null if not in the table.
  const ShapePoint *findPrefill(int64_t length) const;
  const ShapePoint *findDecode(int64_t batch, int64_t length) const;

  llvm::json::Value toJSON() const;
};

/// Reads a table (`"format": "npu-serve-costs/1"`) and verifies it.
llvm::Expected<CostTable> costTableFromJSON(const llvm::json::Value &value);

} // namespace mlir::npu::serve

#endif // NPU_SERVE_COSTTABLE_H
