//===- JsonStream.cpp - JSON reports written as they are made -------------===//

#include "npu/Support/JsonStream.h"
#include "npu/Support/InputFiles.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::npu;

std::string JsonStream::path() const {
  std::string p;
  for (const Level &l : levels)
    p += l.name;
  return p;
}

void JsonStream::element() {
  if (levels.empty() || levels.back().next < 0)
    return;
  levels.push_back(
      {"[" + std::to_string(levels.back().next++) + "]", -1, true});
}

void JsonStream::endElement() {
  if (!levels.empty() && levels.back().element)
    levels.pop_back();
}

void JsonStream::objectBegin() {
  element();
  // An object's own level holds no name: its attributes push theirs.
  levels.push_back({});
  out.objectBegin();
}

void JsonStream::objectEnd() {
  out.objectEnd();
  levels.pop_back();
  // The element level an array opened for it.
  endElement();
}

void JsonStream::arrayBegin() {
  element();
  levels.push_back({"", 0, false});
  out.arrayBegin();
}

void JsonStream::arrayEnd() {
  out.arrayEnd();
  levels.pop_back();
  endElement();
}

void JsonStream::attributeBegin(StringRef key) {
  // A key of the document itself has no dot before it.
  levels.push_back({(path().empty() ? "" : ".") + key.str()});
  out.attributeBegin(key);
}

void JsonStream::attributeEnd() {
  out.attributeEnd();
  levels.pop_back();
}

void JsonStream::value(const llvm::json::Value &v) {
  element();
  if (!nonFinite)
    if (std::optional<std::string> where = findNonFiniteNumber(v)) {
      std::string p = path();
      if (!where->empty() && !p.empty() && where->front() != '[')
        p += ".";
      nonFinite = p + *where;
    }
  out.value(v);
  endElement();
}

LogicalResult JsonStream::finish(Location loc, StringRef what) {
  out.flush();
  os << "\n";
  if (nonFinite) {
    emitError(loc) << what << ": the JSON report would hold a non-finite "
                   << "number at '" << (nonFinite->empty() ? "." : *nonFinite)
                   << "' (not JSON); nothing is written";
    return failure();
  }
  return success();
}
