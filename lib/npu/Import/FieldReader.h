//===- FieldReader.h - typed, checked fields of a config.json -------------===//
//
// Private to the Import library. `FieldReader` reads the fields of one JSON
// object with their bounds, records which keys were read or deliberately
// ignored, and reports the first problem with the file and the field named.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_IMPORT_FIELDREADER_H
#define NPU_LIB_IMPORT_FIELDREADER_H

#include "npu/Support/FormatReal.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <cmath>

namespace mlir::npu::import {

/// Upper bound of every size field (hidden_size, vocab_size...): far above
/// any real model, and low enough that the products the importer forms from
/// two fields (heads x head dim, shared experts x intermediate size) cannot
/// overflow int64. Tensors that still exceed the dialect's limits (a
/// dimension of 2^40 or more, or more than 2^63 bytes) are rejected after the
/// import, with the tensor named.
constexpr int64_t kMaxField = int64_t(1) << 30;

/// Reads typed fields of one JSON object and reports the first error with the
/// file and field name.
class FieldReader {
public:
  FieldReader(const llvm::json::Object &obj, StringRef file, Location loc)
      : obj(obj), file(file), loc(loc) {}

  bool failed() const { return hasError; }
  /// A nested reader failed: this one fails too (its error is reported).
  void markFailed() { hasError = true; }
  Location getLoc() const { return loc; }
  const llvm::json::Object &getObject() const { return obj; }
  StringRef getFile() const { return file; }

  /// A field that does not change the priced graph (metadata, training
  /// settings, the stored number format): read and ignored.
  void ignore(StringRef key) { used.insert(key); }
  /// Metadata, tokenizer ids and training-only settings any config may
  /// carry.
  void ignoreMetadata() {
    for (StringRef k : {"architectures",
                        "transformers_version",
                        "_name_or_path",
                        "torch_dtype",
                        "dtype",
                        "bos_token_id",
                        "eos_token_id",
                        "pad_token_id",
                        "initializer_range",
                        "use_cache",
                        "tokenizer_class",
                        "auto_map",
                        "id2label",
                        "label2id",
                        "return_dict",
                        "output_attentions",
                        "output_hidden_states",
                        "pretraining_tp",
                        "attention_dropout",
                        "hidden_dropout"})
      ignore(k);
  }
  /// A field the importer models only at one value (or absent/null):
  /// `expected` as JSON, e.g. "false" or "null".
  void only(StringRef key, StringRef expected, StringRef why) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return;
    std::string got = llvm::formatv("{0}", *v).str();
    if (got != expected)
      error(key,
            "is " + got + "; only " + expected + " is modelled (" + why + ")");
  }
  /// Fails on the first field (sorted) that was neither read nor ignored:
  /// importing would build a different model than the file describes.
  void checkAllRead(StringRef modelType, StringRef what = "model_type") {
    std::vector<StringRef> keys;
    for (const auto &kv : obj)
      keys.push_back(kv.first);
    llvm::sort(keys);
    for (StringRef k : keys)
      if (!used.contains(k))
        return error(k, "is not modelled for " + what + " '" + modelType +
                            "': the import would describe a different "
                            "model than the file (docs/import.md lists the "
                            "fields read and ignored)");
  }

  /// A required integer in [lo, hi].
  int64_t integer(StringRef key, int64_t lo = 1, int64_t hi = kMaxField) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return error(key, "is missing"), 0;
    return checkInt(key, *v, lo, hi);
  }
  /// An optional integer (absent or null gives `dflt`).
  int64_t optInteger(StringRef key, int64_t dflt, int64_t lo = 0,
                     int64_t hi = kMaxField) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return dflt;
    return checkInt(key, *v, lo, hi);
  }
  /// A required finite number > 0.
  double positive(StringRef key) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return error(key, "is missing"), 0;
    return checkPositive(key, *v);
  }
  double optPositive(StringRef key, double dflt) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return dflt;
    return checkPositive(key, *v);
  }
  bool optBool(StringRef key, bool dflt) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return dflt;
    if (std::optional<bool> b = v->getAsBoolean())
      return *b;
    error(key, "must be true or false");
    return dflt;
  }
  std::string optString(StringRef key, StringRef dflt) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return dflt.str();
    if (std::optional<StringRef> s = v->getAsString())
      return s->str();
    error(key, "must be a string");
    return dflt.str();
  }

  /// A nested object (absent or null: nullptr).
  const llvm::json::Object *optObject(StringRef key) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return nullptr;
    if (const llvm::json::Object *o = v->getAsObject())
      return o;
    error(key, "must be an object");
    return nullptr;
  }
  /// A list of exactly `n` integers in [lo, hi] (absent or null: empty).
  SmallVector<int64_t> optIntegers(StringRef key, size_t n, int64_t lo = 1,
                                   int64_t hi = kMaxField) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return {};
    const llvm::json::Array *a = v->getAsArray();
    if (!a || a->size() != n) {
      error(key, "must be a list of " + Twine(n) + " integers");
      return {};
    }
    SmallVector<int64_t> out;
    for (const llvm::json::Value &e : *a)
      out.push_back(checkInt(key, e, lo, hi));
    return out;
  }
  /// A list of integers in [lo, hi] of any length (absent or null: empty).
  SmallVector<int64_t> optIntegerList(StringRef key, int64_t lo, int64_t hi) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return {};
    const llvm::json::Array *a = v->getAsArray();
    if (!a) {
      error(key, "must be a list of integers");
      return {};
    }
    SmallVector<int64_t> out;
    for (const llvm::json::Value &e : *a)
      out.push_back(checkInt(key, e, lo, hi));
    return out;
  }
  /// A switch written as true/false or, as some configs do, as an integer
  /// (Python truthiness: nonzero is on). Absent or null gives `dflt`.
  bool optSwitch(StringRef key, bool dflt) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return dflt;
    if (std::optional<bool> b = v->getAsBoolean())
      return *b;
    if (std::optional<int64_t> i = v->getAsInteger())
      return *i != 0;
    error(key, "must be true, false or an integer");
    return dflt;
  }
  /// The strings of a list (absent or null: empty).
  SmallVector<std::string> optStrings(StringRef key) {
    const llvm::json::Value *v = get(key);
    SmallVector<std::string> out;
    if (!v || v->kind() == llvm::json::Value::Null)
      return out;
    const llvm::json::Array *a = v->getAsArray();
    for (size_t i = 0; a && i < a->size(); ++i)
      if (std::optional<StringRef> s = (*a)[i].getAsString())
        out.push_back(s->str());
    if (!a || out.size() != a->size())
      error(key, "must be a list of strings");
    return out;
  }

  void error(StringRef key, const Twine &msg) {
    if (hasError)
      return; // report the first problem only
    hasError = true;
    emitError(loc) << file << ": field '" << key << "' " << msg;
  }

private:
  const llvm::json::Value *get(StringRef key) {
    used.insert(key);
    return obj.get(key);
  }

  int64_t checkInt(StringRef key, const llvm::json::Value &v, int64_t lo,
                   int64_t hi) {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i) {
      // Accept 1.0e4-style integral floats (rope_theta is often written so).
      std::optional<double> d = v.getAsNumber();
      if (d && std::isfinite(*d) && *d == std::floor(*d) &&
          std::fabs(*d) < 9.0e15)
        i = static_cast<int64_t>(*d);
    }
    if (!i) {
      error(key, "must be an integer");
      return 0;
    }
    if (*i < lo || *i > hi) {
      error(key, "is " + Twine(*i) + ", expected a value in [" + Twine(lo) +
                     ", " + Twine(hi) + "]");
      return 0;
    }
    return *i;
  }
  double checkPositive(StringRef key, const llvm::json::Value &v) {
    std::optional<double> d = v.getAsNumber();
    if (!d) {
      error(key, "must be a number");
      return 0;
    }
    if (!std::isfinite(*d) || *d <= 0) {
      error(key, "must be a finite number > 0");
      return 0;
    }
    // The ops that use these (norm eps, RoPE base, the routed scale)
    // compute in f32.
    float f = static_cast<float>(*d);
    if (!(f > 0.0f) || !std::isfinite(f)) {
      error(key, "is " + formatShortestReal(*d) +
                     ", not a finite positive f32 value (the ops compute in "
                     "f32)");
      return 0;
    }
    return *d;
  }

  const llvm::json::Object &obj;
  StringRef file;
  Location loc;
  bool hasError = false;
  llvm::StringSet<> used;
};

} // namespace mlir::npu::import

#endif // NPU_LIB_IMPORT_FIELDREADER_H
