//===- Target.h - hardware targets as data ---------------------*- C++ -*-===//
//
// Loads npu-target/<name>.json into a verified #npu.target attribute. The JSON
// field names, the attribute parameter names and the names in every error
// message are the same strings; getTargetFields() is the one list of them (with
// units), used by the loader, the printers and the documentation generator.
//
// Errors are returned as llvm::Error whose message is
//   "<file>: <what is wrong, naming the field>"
// e.g. "npu-target/h100.json: field 'gpu.l2_line_bytes' must be a power of
// two, got 100". The first problem found is reported; nothing is half-loaded.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TARGET_TARGET_H
#define NPU_TARGET_TARGET_H

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Target/Interconnect.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::npu::target {

//===----------------------------------------------------------------------===//
// The schema
//===----------------------------------------------------------------------===//

/// Which object of the file a field lives in: the top level, "tpu" or "gpu".
enum class FieldSection { Common, Tpu, Gpu };
/// JSON type of a field: an integer (any JSON number with an integral value
/// that fits in int64), a real number, or a real number that may be absent.
enum class FieldType { Integer, Real, OptionalReal };

/// One numeric field of a target file (= one parameter of the attribute).
struct TargetField {
  FieldSection section;
  llvm::StringRef name; ///< e.g. "l2_line_bytes"; carries its unit.
  FieldType type;
  llvm::StringRef unit;    ///< e.g. "bytes", "FLOP/s", "ns".
  llvm::StringRef meaning; ///< one line.
  /// "l2_line_bytes" for a common field, "gpu.l2_line_bytes" otherwise: the
  /// name used in error messages and as the key in "sources".
  std::string path() const;
};

/// Every numeric field, in file order: common, then tpu, then gpu.
llvm::ArrayRef<TargetField> getTargetFields();

/// Each sustained field with the quoted field it is a fraction of (and may
/// not exceed): a change to the quoted one carries the sustained one along
/// (overrides, npu-compare --sensitivity).
llvm::ArrayRef<std::pair<llvm::StringLiteral, llvm::StringLiteral>>
getSustainedFields();

/// A TPU-like target's bf16 peak over its matrix units' cells at one
/// multiply-accumulate per cell per cycle (2 FLOP x tensor_core_count x
/// matrix_unit_count_per_core x matrix_unit_dim_elements^2 x clock_hz): the
/// MACs a cell does per cycle (tpu-v5e 1, tpu-v7 2). The loader requires it
/// to be a whole number (within 1%); nullopt for a GPU-like target.
std::optional<double> getMatrixMacsPerCellPerCycle(TargetAttr target);

/// Value of `field` in `target` (an integer or a double), or nullopt when the
/// target does not have it (fp8 absent, or the other kind's section).
std::optional<llvm::json::Value> getFieldValue(TargetAttr target,
                                               const TargetField &field);

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

/// A loaded target: the attribute plus what the file says about it that is
/// documentation, not hardware (where it came from, the source of each number).
struct TargetFile {
  std::string path; ///< the file it was read from (as given).
  TargetAttr attr;
  std::string description;
  /// Source of each number: field path -> citation, in schema order.
  std::vector<std::pair<std::string, std::string>> sources;
  /// How the chip reaches other chips; absent on a single-chip target.
  std::optional<Interconnect> interconnect;
  /// The JSON it was parsed from (a variant's, with its overrides applied).
  std::string text;
};

/// A target named on a command line or in a pass option: a name or path,
/// then optionally ':' and comma-separated `field=value` overrides, as in
/// `tpu-v7:tpu.vmem_bytes_per_core=8MiB,clock_hz=1.5e9` (docs/targets.md,
/// "Variants without a file").
struct TargetSpec {
  std::string base;
  std::vector<std::pair<std::string, std::string>> overrides;
};
llvm::Expected<TargetSpec> parseTargetSpec(llvm::StringRef spec);

/// The field at `path` ("x" or "tpu.x") of a target file's JSON `root`, or
/// null if the file leaves it out.
llvm::json::Value *lookupField(llvm::json::Object &root, llvm::StringRef path);

/// An override's value as a number: a decimal literal with an optional
/// multiplier, K/M/G/T (10^3 steps) or KiB/MiB/GiB/TiB (2^10 steps);
/// nullopt if it is not one or is not finite.
std::optional<double> parseOverrideValue(llvm::StringRef text);

/// Sets the overridden fields of a target file's JSON `root`: each a known
/// numeric field of the target's kind, an integer where the field is one;
/// the sustained partner of a quoted field keeps its fraction unless set
/// too; each field's source says it was overridden; "name" becomes the
/// spec. Values are checked when the result is parsed, as a file's are.
llvm::Error applyOverrides(llvm::json::Value &root, const TargetSpec &spec,
                           llvm::StringRef specText);

/// The directory `loadTarget` searches by default: $NPU_TARGET_DIR if set and
/// non-empty, else the source tree's npu-target/ compiled into the library.
std::string getDefaultTargetDir();

/// Parses and verifies the JSON text of a target. `path` names the file in
/// messages; the target's "name" must equal the file name without ".json".
llvm::Expected<TargetFile>
parseTarget(MLIRContext *context, llvm::StringRef json, llvm::StringRef path);

/// Reads, parses and verifies one target file.
llvm::Expected<TargetFile> loadTargetFile(MLIRContext *context,
                                          llvm::StringRef path);

/// `nameOrPath` is a path if it contains a '/' or ends in ".json"; otherwise
/// it is looked up as `<dir>/<nameOrPath>.json`, with `dir` defaulting to
/// getDefaultTargetDir(). Either may carry overrides (TargetSpec).
llvm::Expected<TargetFile> loadTarget(MLIRContext *context,
                                      llvm::StringRef nameOrPath,
                                      llvm::StringRef dir = "");

/// Names of the targets in `dir` (files `*.json`, without the extension),
/// sorted. `dir` defaults to getDefaultTargetDir().
llvm::Expected<std::vector<std::string>> listTargets(llvm::StringRef dir = "");

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

/// A quantity derived from a target's fields (ridge points, per-unit
/// peaks, on-chip SRAM, matrix units, L2 sets), in the order printed.
struct DerivedQuantity {
  std::string name;
  double value;
  bool integral; ///< a count: printed without a fraction
  const char *unit;
};
std::vector<DerivedQuantity> getDerivedQuantities(TargetAttr t);

/// The file's content in canonical form (every field, "sources"), plus a
/// "derived" object (getDerivedQuantities).
llvm::json::Value toJSON(const TargetFile &file);

/// Shortest decimal form of `value` that reads back as the same double
/// ("9.894e+14", "0.35").
std::string formatReal(double value);

} // namespace mlir::npu::target

#endif // NPU_TARGET_TARGET_H
