//===- OutputFiles.cpp - files a run writes, committed only on success ----===//

#include "npu/Support/OutputFiles.h"
#include "npu/Support/InputFiles.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::npu;

struct OutputTransaction::Staged {
  std::string path;
  llvm::sys::fs::TempFile file;
  std::unique_ptr<llvm::raw_fd_ostream> os;
};

OutputTransaction::OutputTransaction() = default;
OutputTransaction::~OutputTransaction() { discard(); }

raw_ostream *OutputTransaction::open(StringRef path, std::string &error) {
  if (path == "-")
    return &llvm::outs();
  // Something that is not a regular file (/dev/null, a FIFO, a terminal)
  // is written in place: there is no content to protect, and renaming onto
  // it would replace the device by a file.
  llvm::sys::fs::file_status st;
  if (!llvm::sys::fs::status(path, st) && llvm::sys::fs::exists(st) &&
      !llvm::sys::fs::is_regular_file(st)) {
    std::error_code ec;
    auto os = std::make_unique<llvm::raw_fd_ostream>(path, ec);
    if (ec) {
      error = "cannot write '" + path.str() + "': " + ec.message();
      return nullptr;
    }
    direct.push_back(std::move(os));
    return direct.back().get();
  }
  // A symbolic link is followed: the file it names is replaced, the link
  // stays.
  llvm::SmallString<256> target(path);
  if (llvm::sys::fs::is_symlink_file(path))
    (void)llvm::sys::fs::real_path(path, target);
  // A path staged again replaces its earlier contents.
  for (auto it = staged.begin(); it != staged.end(); ++it) {
    if ((*it)->path != target.str())
      continue;
    (*it)->os.reset();
    llvm::consumeError((*it)->file.discard());
    staged.erase(it);
    break;
  }
  // The temporary lives beside its destination: the rename stays on one file
  // system, and a folder that cannot take the output fails here, before
  // anything else is written.
  llvm::SmallString<256> model(target);
  model += ".tmp-%%%%%%%%";
  llvm::Expected<llvm::sys::fs::TempFile> file =
      llvm::sys::fs::TempFile::create(model);
  if (!file) {
    error = "cannot write '" + path.str() +
            "': " + llvm::toString(file.takeError());
    return nullptr;
  }
  auto entry = std::make_unique<Staged>(
      Staged{target.str().str(), std::move(*file), nullptr});
  entry->os = std::make_unique<llvm::raw_fd_ostream>(entry->file.FD,
                                                     /*shouldClose=*/false);
  staged.push_back(std::move(entry));
  return staged.back()->os.get();
}

LogicalResult OutputTransaction::createDirectories(StringRef dir,
                                                   std::string &error) {
  // The missing folders, outermost first, so discard() removes them inner
  // first.
  SmallVector<std::string> missing;
  for (StringRef d = dir; !d.empty() && !llvm::sys::fs::exists(d);
       d = llvm::sys::path::parent_path(d))
    missing.push_back(d.str());
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create directory '" + dir.str() + "': " + ec.message();
    return failure();
  }
  createdDirs.insert(createdDirs.end(), missing.rbegin(), missing.rend());
  return success();
}

LogicalResult OutputTransaction::commit(std::string &error) {
  for (auto &os : direct) {
    os->flush();
    if (std::error_code ec = os->error()) {
      error = "cannot write: " + ec.message();
      discard();
      return failure();
    }
  }
  direct.clear();
  for (auto &entry : staged) {
    entry->os->flush();
    if (std::error_code ec = entry->os->error()) {
      error = "cannot write '" + entry->path + "': " + ec.message();
      discard();
      return failure();
    }
  }
  for (auto &entry : staged) {
    entry->os.reset();
    if (llvm::Error err = entry->file.keep(entry->path)) {
      error = "cannot write '" + entry->path +
              "': " + llvm::toString(std::move(err));
      discard();
      return failure();
    }
  }
  staged.clear();
  createdDirs.clear();
  return success();
}

void OutputTransaction::discard() {
  direct.clear();
  for (auto &entry : staged) {
    entry->os.reset();
    // A file already renamed by a failed commit is no longer temporary;
    // discard() on it reports an error that there is nothing to do about.
    llvm::consumeError(entry->file.discard());
  }
  staged.clear();
  // Innermost first; remove() fails (and keeps it) on a non-empty folder.
  for (auto it = createdDirs.rbegin(); it != createdDirs.rend(); ++it)
    (void)llvm::sys::fs::remove(*it, /*IgnoreNonExisting=*/true);
  createdDirs.clear();
}

static OutputTransaction *activeTransaction = nullptr;

OutputTransaction *mlir::npu::getActiveOutputTransaction() {
  return activeTransaction;
}

ScopedOutputTransaction::ScopedOutputTransaction(OutputTransaction &transaction)
    : previous(activeTransaction) {
  activeTransaction = &transaction;
}

ScopedOutputTransaction::~ScopedOutputTransaction() {
  activeTransaction = previous;
}

LogicalResult mlir::npu::writeOutputFile(
    StringRef path, function_ref<void(raw_ostream &)> write, Location loc) {
  std::string error;
  OutputTransaction *active = getActiveOutputTransaction();
  if (active) {
    raw_ostream *os = active->open(path, error);
    if (!os)
      return emitError(loc) << error;
    write(*os);
    return success();
  }
  OutputTransaction local;
  raw_ostream *os = local.open(path, error);
  if (!os)
    return emitError(loc) << error;
  write(*os);
  if (failed(local.commit(error)))
    return emitError(loc) << error;
  return success();
}

LogicalResult mlir::npu::createOutputDirectory(StringRef dir, Location loc) {
  std::string error;
  OutputTransaction local;
  OutputTransaction *active = getActiveOutputTransaction();
  if (failed((active ? active : &local)->createDirectories(dir, error)))
    return emitError(loc) << error;
  (void)local.commit(error); // keeps the folders
  return success();
}

int mlir::npu::runFileTool(
    StringRef inputFilename, StringRef outputFilename,
    function_ref<LogicalResult(std::unique_ptr<llvm::MemoryBuffer>,
                               raw_ostream &)>
        body) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> input =
      readInputFile(inputFilename, kMaxIrInputBytes);
  if (!input) {
    llvm::errs() << llvm::toString(input.takeError()) << "\n";
    return 1;
  }
  if (llvm::Error e = checkIrNesting((*input)->getBuffer())) {
    llvm::errs() << inputFilename << ": " << llvm::toString(std::move(e))
                 << "\n";
    return 1;
  }
  std::string error;
  OutputTransaction outputs;
  ScopedOutputTransaction scope(outputs);
  raw_ostream *os = outputs.open(outputFilename, error);
  if (!os) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (failed(body(std::move(*input), *os)))
    return 1;
  if (failed(outputs.commit(error))) {
    llvm::errs() << error << "\n";
    return 1;
  }
  return 0;
}
