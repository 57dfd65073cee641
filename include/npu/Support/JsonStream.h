//===- JsonStream.h - JSON reports written as they are made ----*- C++ -*-===//
//
// A report whose size grows with the program (a row per kernel) is written
// piece by piece through llvm::json::OStream instead of being built whole as
// one llvm::json::Value and printed (which held ~30 KiB per kernel: 2.9 GiB
// for 100k kernels, issue 29). Each piece (a kernel's row) is still a small
// llvm::json::Value, checked for numbers JSON cannot hold before it is
// written; the first such number's path is kept, and finish() then fails:
// the caller discards the output, which is staged (written whole or not at
// all, OutputFiles.h).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_JSONSTREAM_H
#define NPU_SUPPORT_JSONSTREAM_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir::npu {

class JsonStream {
public:
  JsonStream(raw_ostream &os, unsigned indent) : os(os), out(os, indent) {}

  /// Open and close an object or an array: the document, an attribute's
  /// value (after attributeBegin) or an element of an open array.
  void objectBegin();
  void objectEnd();
  void arrayBegin();
  void arrayEnd();
  /// `key`: what the next objectBegin, arrayBegin or value writes.
  void attributeBegin(StringRef key);
  void attributeEnd();

  /// A whole value: an element of the open array, or (after attributeBegin,
  /// or through attribute) an attribute's value.
  void value(const llvm::json::Value &v);
  void attribute(StringRef key, const llvm::json::Value &v) {
    attributeBegin(key);
    value(v);
    attributeEnd();
  }

  /// The same, with `body` writing the contents in between (as
  /// llvm::json::OStream's object, array, attributeObject, attributeArray).
  void object(llvm::function_ref<void()> body) {
    objectBegin();
    body();
    objectEnd();
  }
  void attributeObject(StringRef key, llvm::function_ref<void()> body) {
    attributeBegin(key);
    object(body);
    attributeEnd();
  }
  void attributeArray(StringRef key, llvm::function_ref<void()> body) {
    attributeBegin(key);
    arrayBegin();
    body();
    arrayEnd();
    attributeEnd();
  }

  /// Ends the document: a newline; failure, with an error at `loc` prefixed
  /// by `what`, if a value held a non-finite number.
  LogicalResult finish(Location loc, StringRef what);

private:
  /// The path of what is written next (`functions[2].rows`), as
  /// findNonFiniteNumber writes paths.
  std::string path() const;
  /// Before a value or an opening: its element index in an open array.
  void element();
  /// After a value or a closing: the element's level, if it had one.
  void endElement();

  raw_ostream &os;
  llvm::json::OStream out;
  struct Level {
    std::string name;     ///< `.key`, `key` at the top, or `[i]`
    int64_t next = -1;    ///< an array's next element index (-1: not one)
    bool element = false; ///< an element of an array (`[i]`)
  };
  SmallVector<Level> levels;
  std::optional<std::string> nonFinite;
};

} // namespace mlir::npu

#endif // NPU_SUPPORT_JSONSTREAM_H
