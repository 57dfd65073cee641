//===- SweepSpec.cpp - reading a sweep spec and listing its points --------===//

#include "npu/Support/InputFiles.h"
#include "npu/Sweep/Sweep.h"
#include "npu/Target/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::sweep;
using llvm::json::Object;
using JValue = llvm::json::Value;

int64_t Workload::tokens() const {
  return options.phase == "decode" ? options.batch
                                   : options.batch * options.seqLen;
}

namespace {
/// Reads one spec; every message is "<path>: <key>: <what is wrong>".
class SpecReader {
public:
  explicit SpecReader(StringRef path) : path(path.str()) {}

  llvm::Error fail(const llvm::Twine &key, const llvm::Twine &msg) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + key + ": " + msg);
  }

  llvm::Error checkKeys(const Object &o, ArrayRef<StringRef> allowed,
                        const llvm::Twine &at) const {
    std::vector<std::string> keys;
    for (const auto &kv : o)
      keys.push_back(kv.first.str());
    llvm::sort(keys);
    for (const std::string &k : keys)
      if (!llvm::is_contained(allowed, k))
        return fail(at + "." + k,
                    "unknown key (known: " + llvm::join(allowed, ", ") + ")");
    return llvm::Error::success();
  }

  llvm::Error readWorkload(const JValue &v, const std::string &at,
                           Workload &w) const {
    const Object *o = v.getAsObject();
    if (!o)
      return fail(at, "must be an object");
    if (llvm::Error e = checkKeys(*o,
                                  {"name", "config", "phase", "batch",
                                   "seq_len", "context_len", "weights"},
                                  at))
      return e;
    auto str = [&](StringRef key, std::string &out,
                   bool required) -> llvm::Error {
      const JValue *x = o->get(key);
      if (!x)
        return required ? fail(at + "." + key, "is missing")
                        : llvm::Error::success();
      if (!x->getAsString() || x->getAsString()->empty())
        return fail(at + "." + key, "must be a non-empty string");
      out = x->getAsString()->str();
      return llvm::Error::success();
    };
    auto num = [&](StringRef key, int64_t &out) -> llvm::Error {
      const JValue *x = o->get(key);
      if (!x)
        return llvm::Error::success();
      std::optional<int64_t> i = x->getAsInteger();
      if (!i || *i < 1)
        return fail(at + "." + key, "must be a positive integer");
      out = *i;
      return llvm::Error::success();
    };
    if (llvm::Error e = str("name", w.name, true))
      return e;
    if (llvm::Error e = str("config", w.config, true))
      return e;
    if (llvm::Error e = str("phase", w.options.phase, false))
      return e;
    if (llvm::Error e = str("weights", w.options.weightDType, false))
      return e;
    if (llvm::Error e = num("batch", w.options.batch))
      return e;
    if (llvm::Error e = num("seq_len", w.options.seqLen))
      return e;
    if (llvm::Error e = num("context_len", w.options.contextLen))
      return e;
    // A config named relative to the spec is found from where the spec is.
    if (llvm::sys::path::is_relative(w.config)) {
      llvm::SmallString<256> p(llvm::sys::path::parent_path(path));
      llvm::sys::path::append(p, w.config);
      w.config = p.str().str();
    }
    return llvm::Error::success();
  }

  llvm::Error readTarget(const JValue &v, const std::string &at,
                         TargetGrid &t) const {
    const Object *o = v.getAsObject();
    if (!o)
      return fail(at, "must be an object");
    if (llvm::Error e = checkKeys(*o, {"base", "vary"}, at))
      return e;
    const JValue *base = o->get("base");
    if (!base || !base->getAsString() || base->getAsString()->empty() ||
        base->getAsString()->contains(':'))
      return fail(at + ".base",
                  "must be a target's name or path, without overrides");
    t.base = base->getAsString()->str();
    const JValue *vary = o->get("vary");
    if (!vary)
      return llvm::Error::success();
    const Object *fields = vary->getAsObject();
    if (!fields)
      return fail(at + ".vary", "must be an object: field -> list of values");
    // Sorted: a JSON object has no order.
    std::vector<std::string> names;
    for (const auto &kv : *fields)
      names.push_back(kv.first.str());
    llvm::sort(names);
    for (const std::string &name : names) {
      std::string key = at + ".vary." + name;
      if (llvm::none_of(target::getTargetFields(),
                        [&](const auto &f) { return f.path() == name; }))
        return fail(key, "not a target field (npu-target-info " + t.base +
                             " prints them)");
      const llvm::json::Array *list = fields->getArray(name);
      if (!list || list->empty())
        return fail(key, "must be a non-empty list of values");
      std::vector<std::string> values;
      for (const JValue &x : *list) {
        if (std::optional<StringRef> s = x.getAsString())
          values.push_back(s->str());
        else if (std::optional<int64_t> i = x.getAsInteger())
          values.push_back(std::to_string(*i));
        else if (std::optional<double> d = x.getAsNumber())
          values.push_back(target::formatReal(*d));
        else
          return fail(key, "values must be numbers or strings ('32MiB')");
        if (!target::parseOverrideValue(values.back()))
          return fail(key, "value '" + values.back() +
                               "' is not a number (a decimal, optionally with "
                               "K, M, G, T or KiB, MiB, GiB, TiB)");
      }
      t.vary.emplace_back(name, std::move(values));
    }
    return llvm::Error::success();
  }

  std::string path;
};

template <typename T>
llvm::Error readList(
    const SpecReader &r, const Object &root, StringRef key, std::vector<T> &out,
    llvm::function_ref<llvm::Error(const JValue &, const std::string &, T &)>
        read) {
  const llvm::json::Array *list = root.getArray(key);
  if (!list || list->empty())
    return r.fail(key, "must be a non-empty list");
  for (auto [i, v] : llvm::enumerate(*list)) {
    T item;
    if (llvm::Error e = read(v, (key + "[" + llvm::Twine(i) + "]").str(), item))
      return e;
    out.push_back(std::move(item));
  }
  return llvm::Error::success();
}
} // namespace

llvm::Expected<SweepSpec> sweep::parseSweepSpec(StringRef json,
                                                StringRef path) {
  SpecReader r(path);
  llvm::Expected<JValue> parsed = parseJsonInput(json);
  if (!parsed)
    return r.fail("(file)",
                  "invalid JSON: " + llvm::toString(parsed.takeError()));
  const Object *root = parsed->getAsObject();
  if (!root)
    return r.fail("(file)", "the top level must be an object");
  if (llvm::Error e = r.checkKeys(*root, {"workloads", "targets"}, "(file)"))
    return std::move(e);
  SweepSpec spec;
  if (llvm::Error e = readList<Workload>(
          r, *root, "workloads", spec.workloads,
          [&](const JValue &v, const std::string &at, Workload &w) {
            return r.readWorkload(v, at, w);
          }))
    return std::move(e);
  for (size_t i = 0; i < spec.workloads.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (spec.workloads[i].name == spec.workloads[j].name)
        return r.fail("workloads[" + llvm::Twine(i) + "].name",
                      "'" + spec.workloads[i].name + "' is used twice");
  if (llvm::Error e = readList<TargetGrid>(
          r, *root, "targets", spec.targets,
          [&](const JValue &v, const std::string &at, TargetGrid &t) {
            return r.readTarget(v, at, t);
          }))
    return std::move(e);
  // The points: workloads x the sum over targets of their grids' sizes.
  double points = 0;
  for (const TargetGrid &t : spec.targets) {
    double grid = 1;
    for (const auto &[field, values] : t.vary) {
      grid *= double(values.size());
      if (!llvm::is_contained(spec.fields, field))
        spec.fields.push_back(field);
    }
    points += grid;
  }
  points *= double(spec.workloads.size());
  if (points > double(kMaxPoints))
    return r.fail("targets",
                  "the sweep has " + llvm::formatv("{0:F0}", points).str() +
                      " points, more than " + llvm::Twine(kMaxPoints) +
                      " (split it into several specs)");
  return spec;
}

std::vector<SweepPoint> sweep::expandPoints(const SweepSpec &spec) {
  std::vector<SweepPoint> points;
  for (const Workload &w : spec.workloads) {
    for (const TargetGrid &t : spec.targets) {
      std::vector<size_t> at(t.vary.size(), 0);
      while (true) {
        SweepPoint p;
        p.index = int64_t(points.size());
        p.workload = &w;
        p.target = t.base;
        for (auto [i, fv] : llvm::enumerate(t.vary)) {
          p.values.emplace_back(fv.first, fv.second[at[i]]);
          p.target += (i == 0 ? ":" : ",") + fv.first + "=" + fv.second[at[i]];
        }
        points.push_back(std::move(p));
        // The last field varies fastest.
        size_t i = at.size();
        while (i > 0 && ++at[i - 1] == t.vary[i - 1].second.size())
          at[--i] = 0;
        if (i == 0)
          break;
      }
    }
  }
  return points;
}
