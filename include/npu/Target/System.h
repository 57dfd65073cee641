//===- System.h - several chips and how they are wired ----------*- C++ -*-===//
//
// A system file (npu-target/systems/<name>.json) names a chip (a target file
// with an "interconnect" object), and the axes of the mesh the chips form:
//
//   {"name": "tpu-v7-4x4x4", "chip": "tpu-v7", "description": "...",
//    "axes": [{"name": "x", "size": 4, "level": "scale_up", "wraparound":
//    true},
//             ...],
//    "sources": {"axes": "why this shape and these wraparound links"}}
//
// Scale-up axes come first (innermost), then at most one scale-out axis. On a
// torus chip each scale-up axis is one torus dimension (with or without
// wraparound links); on a switch chip there is one scale-up axis, the switch
// domain. A scale-out axis counts scale-up groups joined by the data-centre
// network. Chips are numbered with the first axis fastest.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TARGET_SYSTEM_H
#define NPU_TARGET_SYSTEM_H

#include "npu/Target/Target.h"

namespace mlir::npu::target {

/// One axis of the mesh.
struct SystemAxis {
  std::string name;
  int64_t size = 0;
  /// On the scale-out network (else on the scale-up one).
  bool scaleOut = false;
  /// Torus axis whose last chip links back to its first.
  bool wraparound = false;
};

/// A loaded system: the chip and the mesh.
struct System {
  std::string path; ///< the file it was read from (as given).
  std::string name;
  std::string description;
  TargetFile chip; ///< has an interconnect.
  std::vector<SystemAxis> axes;
  /// Source of each statement: key -> citation.
  std::vector<std::pair<std::string, std::string>> sources;

  /// Product of the axes' sizes.
  int64_t getChipCount() const;
  /// The network level an axis is on.
  const LinkLevel &getLevel(const SystemAxis &axis) const {
    return axis.scaleOut ? *chip.interconnect->scaleOut
                         : chip.interconnect->scaleUp;
  }
  /// The axis named `name`, or null.
  const SystemAxis *lookupAxis(llvm::StringRef name) const;
  /// "4x4x4", "8", "72x2".
  std::string getShapeString() const;
};

/// The directory `loadSystem` searches by default: <target dir>/systems.
std::string getDefaultSystemDir();

/// Parses and verifies a system's JSON text. `path` names the file in
/// messages (its stem must equal "name"). The chip is a target name looked up
/// in `targetDir` (default: getDefaultTargetDir()), or a path (containing '/'
/// or ending in ".json") relative to the system file's directory.
llvm::Expected<System> parseSystem(MLIRContext *context, llvm::StringRef json,
                                   llvm::StringRef path,
                                   llvm::StringRef targetDir = "");

/// `nameOrPath` is a path if it contains a '/' or ends in ".json"; otherwise
/// `<dir>/<nameOrPath>.json` with `dir` defaulting to getDefaultSystemDir().
llvm::Expected<System> loadSystem(MLIRContext *context,
                                  llvm::StringRef nameOrPath,
                                  llvm::StringRef dir = "",
                                  llvm::StringRef targetDir = "");

/// The system as JSON: name, chip, chips, axes (with each axis's level,
/// links and bandwidth), sources.
llvm::json::Value toJSON(const System &system);

} // namespace mlir::npu::target

#endif // NPU_TARGET_SYSTEM_H
