//===- InputFiles.h - files and JSON a run reads, within limits -*- C++ -*-===//
//
// Every file a tool reads (IR, a target file, a config.json) and every JSON
// document it parses or prints goes through here, so the limits of
// docs/limits.md hold everywhere:
//   - only a regular file (or `-`, standard input) is read: a device
//     (/dev/zero, /dev/urandom) grows memory without bound and a FIFO with no
//     writer blocks forever;
//   - a file is read whole only up to a size limit (standard input in
//     chunks, stopped at the limit);
//   - JSON is scanned before llvm::json parses it (which recurses per level):
//     nesting deeper than kMaxJsonDepth and a key repeated in one object (a
//     parser keeps the last one silently) are errors with line and column;
//   - JSON printed by a report holds finite numbers only (llvm::json prints
//     a non-finite double as bare `inf`, which is not JSON).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_INPUTFILES_H
#define NPU_SUPPORT_INPUTFILES_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::npu {

/// Largest IR file (or standard input) a tool reads.
constexpr uint64_t kMaxIrInputBytes = uint64_t(256) << 20;
/// Largest JSON document (target file, config.json) a tool reads.
constexpr uint64_t kMaxJsonBytes = uint64_t(4) << 20;
/// Deepest nesting of JSON arrays and objects (a config is 3 deep).
constexpr unsigned kMaxJsonDepth = 64;

/// Deepest nesting of brackets ({ [ ( <) in IR text: regions, attribute
/// dictionaries, arrays and types. Real modules nest about 10 deep; MLIR's
/// parser recurses per level and overflows the stack near 50,000.
constexpr unsigned kMaxIrNesting = 256;

/// Reads `path` (`-`: standard input) whole. Fails, with a message naming
/// the file, on anything but a regular file, and above `maxBytes`.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(StringRef path, uint64_t maxBytes);

/// Checks that IR text nests at most kMaxIrNesting deep (outside string
/// literals and comments), before MLIR's parser recurses on it; the error
/// gives line:column.
llvm::Error checkIrNesting(StringRef text);

/// Parses a JSON document after checking its size (kMaxJsonBytes), its
/// nesting (kMaxJsonDepth) and that no object repeats a key; errors give
/// line:column.
llvm::Expected<llvm::json::Value> parseJsonInput(StringRef text);

/// Where `value` holds a number JSON cannot (inf, nan): a path such as
/// `functions[0].total.time_ns`, or nullopt.
std::optional<std::string> findNonFiniteNumber(const llvm::json::Value &value);

/// Prints `value` as JSON (`indent` spaces per level, 0: one line) and a
/// newline to `os`; if it holds a non-finite number, prints nothing and
/// emits an error at `loc` prefixed by `what`.
LogicalResult printJson(raw_ostream &os, const llvm::json::Value &value,
                        unsigned indent, Location loc, StringRef what);

} // namespace mlir::npu

#endif // NPU_SUPPORT_INPUTFILES_H
