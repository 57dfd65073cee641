//===- InputFiles.cpp - files and JSON a run reads, within limits ---------===//

#include "npu/Support/InputFiles.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

static llvm::Error fail(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// llvm::json::Value::getAsInteger accepts a double up to
/// double(INT64_MAX), which rounds up to 2^63, and converts it to int64_t:
/// undefined behaviour for exactly 2^63 ("9.223372036854775808e18" in a
/// file). That number is stored as the uint64_t it equals, which reads back
/// as the same number and as no int64_t, so every reader's range check
/// rejects it. Nesting is bounded (kMaxJsonDepth) before this recursion.
static void storeTwoToThe63AsUnsigned(llvm::json::Value &value) {
  if (llvm::json::Object *o = value.getAsObject()) {
    for (auto &kv : *o)
      storeTwoToThe63AsUnsigned(kv.second);
  } else if (llvm::json::Array *a = value.getAsArray()) {
    for (llvm::json::Value &v : *a)
      storeTwoToThe63AsUnsigned(v);
  } else if (value.getAsNumber() == 0x1p63 && !value.getAsUINT64()) {
    // A double: a uint64_t 2^63 is what it becomes.
    value = uint64_t(1) << 63;
  }
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mlir::npu::readInputFile(StringRef path, uint64_t maxBytes) {
  if (path == "-") {
    // Standard input may be a device or an endless pipe: read in chunks and
    // stop at the limit.
    llvm::SmallString<0> data;
    char chunk[1 << 16];
    while (true) {
      llvm::Expected<size_t> n =
          llvm::sys::fs::readNativeFile(llvm::sys::fs::getStdinHandle(), chunk);
      if (!n)
        return fail("cannot read standard input: " +
                    llvm::toString(n.takeError()));
      if (*n == 0)
        break;
      if (data.size() + *n > maxBytes)
        return fail("standard input is larger than the limit of " +
                    Twine(maxBytes) + " bytes (docs/limits.md)");
      data.append(chunk, chunk + *n);
    }
    return llvm::MemoryBuffer::getMemBufferCopy(data, "<stdin>");
  }
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return fail("cannot read '" + path + "': " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return fail("'" + path +
                "' is not a regular file (a device, FIFO or folder is not "
                "read: it may never end)");
  if (status.getSize() > maxBytes)
    return fail("'" + path + "' is " + Twine(status.getSize()) +
                " bytes, larger than the limit of " + Twine(maxBytes) +
                " bytes (docs/limits.md)");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/true);
  if (!buffer)
    return fail("cannot read '" + path + "': " + buffer.getError().message());
  if ((*buffer)->getBufferSize() > maxBytes)
    return fail("'" + path + "' grew past the limit of " + Twine(maxBytes) +
                " bytes while it was read");
  return std::move(*buffer);
}

/// "line L, column C" of byte `offset` of `text`.
static std::string position(StringRef text, size_t offset) {
  StringRef before = text.take_front(offset);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column = offset - (lineStart == StringRef::npos ? 0 : lineStart + 1);
  return llvm::formatv("line {0}, column {1}", line, column + 1).str();
}

/// The index of the quote that closes the string literal opened at `open`
/// (backslash escapes skipped), or text.size() if it is unterminated. MLIR
/// and JSON string literals agree on this much.
static size_t skipString(StringRef text, size_t open) {
  size_t i = open + 1;
  while (i < text.size() && text[i] != '"')
    i += text[i] == '\\' ? 2 : 1;
  return std::min(i, text.size());
}

llvm::Error mlir::npu::checkIrNesting(StringRef text) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      i = skipString(text, i);
    } else if (c == '/' && text.substr(i, 2) == "//") {
      i = std::min(text.find('\n', i), text.size());
    } else if (c == '{' || c == '[' || c == '(' || c == '<') {
      if (++depth > kMaxIrNesting)
        return fail("the IR nests deeper than " + Twine(kMaxIrNesting) +
                    " levels at " + position(text, i) +
                    " (regions, attributes and types; docs/limits.md)");
    } else if (c == '}' || c == ']' || c == ')' ||
               (c == '>' && (i == 0 || text[i - 1] != '-') &&
                text.substr(i + 1, 1) != "=")) {
      // `->` and `>=` close nothing.
      depth -= depth > 0;
    }
  }
  return llvm::Error::success();
}

llvm::Expected<llvm::json::Value> mlir::npu::parseJsonInput(StringRef text) {
  if (text.size() > kMaxJsonBytes)
    return fail("the JSON document is " + Twine(text.size()) +
                " bytes, larger than the limit of " + Twine(kMaxJsonBytes) +
                " bytes (docs/limits.md)");
  // One pass over the text, outside strings: nesting and object keys.
  // Syntax errors are left to the parser, which runs only if this passes.
  struct Frame {
    bool isObject;
    bool expectKey;
    llvm::StringSet<> keys;
  };
  SmallVector<Frame> stack;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      size_t start = i;
      i = skipString(text, start);
      if (i == text.size())
        break; // unterminated: the parser says so
      if (stack.empty() || !stack.back().isObject || !stack.back().expectKey)
        continue;
      stack.back().expectKey = false;
      llvm::Expected<llvm::json::Value> key =
          llvm::json::parse(text.slice(start, i + 1));
      if (!key) {
        llvm::consumeError(key.takeError());
        break;
      }
      StringRef name = *key->getAsString();
      if (!stack.back().keys.insert(name).second)
        return fail("duplicate key \"" + name + "\" at " +
                    position(text, start) +
                    " (a parser would keep one of the two silently)");
    } else if (c == '{' || c == '[') {
      if (stack.size() >= kMaxJsonDepth)
        return fail("JSON nested deeper than " + Twine(kMaxJsonDepth) +
                    " levels at " + position(text, i) + " (docs/limits.md)");
      stack.push_back({c == '{', c == '{', {}});
    } else if (c == '}' || c == ']') {
      if (stack.empty())
        break;
      stack.pop_back();
    } else if (c == ',' && !stack.empty() && stack.back().isObject) {
      stack.back().expectKey = true;
    }
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (parsed)
    storeTwoToThe63AsUnsigned(*parsed);
  return parsed;
}

std::optional<std::string>
mlir::npu::findNonFiniteNumber(const llvm::json::Value &value) {
  if (const llvm::json::Object *o = value.getAsObject()) {
    // Sorted, so the first one found does not depend on hashing.
    std::vector<StringRef> keys;
    for (const auto &kv : *o)
      keys.push_back(kv.first);
    llvm::sort(keys);
    for (StringRef k : keys)
      if (std::optional<std::string> p = findNonFiniteNumber(*o->get(k)))
        return p->empty() ? k.str()
                          : (k + (p->front() == '[' ? "" : ".") + *p).str();
    return std::nullopt;
  }
  if (const llvm::json::Array *a = value.getAsArray()) {
    for (size_t i = 0; i < a->size(); ++i)
      if (std::optional<std::string> p = findNonFiniteNumber((*a)[i]))
        return ("[" + Twine(i) + "]" +
                (p->empty() || p->front() == '[' ? "" : ".") + *p)
            .str();
    return std::nullopt;
  }
  // Not through getAsInteger, which a double of 2^63 makes undefined.
  if (std::optional<double> d = value.getAsNumber(); d && !std::isfinite(*d))
    return std::string();
  return std::nullopt;
}

LogicalResult mlir::npu::printJson(raw_ostream &os,
                                   const llvm::json::Value &value,
                                   unsigned indent, Location loc,
                                   StringRef what) {
  if (std::optional<std::string> where = findNonFiniteNumber(value)) {
    emitError(loc) << what << ": the JSON report would hold a non-finite "
                   << "number at '" << (where->empty() ? "." : *where)
                   << "' (not JSON); nothing is printed";
    return failure();
  }
  llvm::json::OStream(os, indent).value(value);
  os << "\n";
  return success();
}
