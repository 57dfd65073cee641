//===- OutputFiles.h - files a run writes, committed only on success -*- C++
//-*-===//
//
// A compiler must never destroy its input nor leave half its outputs behind.
// Every file a tool or a pass writes goes through an OutputTransaction:
//   - each file is written to a temporary file in its destination's folder
//     (same file system, so the final rename is atomic); the temporary is
//     removed on SIGINT/SIGTERM (llvm::sys::RemoveFileOnSignal) and when the
//     run fails;
//   - on success the tool commits: every temporary is renamed onto its path,
//     so `-o` equal to the input path replaces the input only with a complete
//     result, and a run killed half way leaves every destination as it was;
//   - folders the run created for its outputs are removed again when it
//     fails (only those it created, only if they are empty).
// Tools install one transaction for the whole run (ScopedOutputTransaction);
// passes write through writeOutputFile, which stages into it. Without one
// (unit tests, library use) writeOutputFile writes at once, still through a
// temporary and a rename.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_OUTPUTFILES_H
#define NPU_SUPPORT_OUTPUTFILES_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::npu {

class OutputTransaction {
public:
  OutputTransaction();
  OutputTransaction(const OutputTransaction &) = delete;
  OutputTransaction &operator=(const OutputTransaction &) = delete;
  /// Discards whatever was not committed.
  ~OutputTransaction();

  /// Opens a temporary file beside `path` and returns a stream on it; the
  /// stream stays valid until commit() or discard(). `path` "-" is stdout,
  /// and a path that exists but is not a regular file (/dev/null, a FIFO)
  /// is written in place (there is nothing to destroy; a rename would
  /// replace the device). A symbolic link is followed. Staging a path again
  /// replaces the earlier contents. On failure returns null and sets `error`.
  raw_ostream *open(StringRef path, std::string &error);

  /// Creates `dir` and its missing parents, remembering the ones it created
  /// so discard() can remove them.
  LogicalResult createDirectories(StringRef dir, std::string &error);

  /// Flushes every staged file and renames it onto its path, in the order
  /// staged. A write error (a full disk) fails before any rename.
  LogicalResult commit(std::string &error);

  /// Removes every temporary file and the folders created (when empty).
  void discard();

private:
  struct Staged;
  std::vector<std::unique_ptr<Staged>> staged;
  /// Outputs that are not regular files (/dev/null, a FIFO): written in
  /// place.
  std::vector<std::unique_ptr<llvm::raw_fd_ostream>> direct;
  std::vector<std::string> createdDirs;
};

/// The transaction of the running tool, or null.
OutputTransaction *getActiveOutputTransaction();

/// Installs `transaction` as the active one for its lifetime.
class ScopedOutputTransaction {
public:
  explicit ScopedOutputTransaction(OutputTransaction &transaction);
  ~ScopedOutputTransaction();

private:
  OutputTransaction *previous;
};

/// Writes `path` with what `write` prints: staged in the active transaction
/// if there is one, else written at once through a temporary file. Reports
/// an error at `loc` on failure.
LogicalResult writeOutputFile(StringRef path,
                              function_ref<void(raw_ostream &)> write,
                              Location loc);

/// Creates an output folder (and its parents) through the active transaction
/// if there is one. Reports an error at `loc` on failure.
LogicalResult createOutputDirectory(StringRef dir, Location loc);

/// A file-to-file tool's run (npu-opt's and npu-translate's drivers):
/// reads `inputFilename` whole, stages `outputFilename` in a transaction
/// active for the run, calls `body`, and commits only if it succeeds.
/// Errors about the files go to stderr. Returns the exit code.
int runFileTool(StringRef inputFilename, StringRef outputFilename,
                function_ref<LogicalResult(std::unique_ptr<llvm::MemoryBuffer>,
                                           raw_ostream &)>
                    body);

} // namespace mlir::npu

#endif // NPU_SUPPORT_OUTPUTFILES_H
