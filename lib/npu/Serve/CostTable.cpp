//===- CostTable.cpp - what one step of a serving engine costs ------------===//

#include "npu/Serve/CostTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>

using namespace mlir::npu::serve;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Linear interpolation of y over ascending x at `at`; flat outside.
template <typename XOf, typename YOf>
double interpolate(size_t n, XOf x, YOf y, double at) {
  if (at <= x(0))
    return y(0);
  for (size_t i = 1; i < n; ++i) {
    if (at > x(i))
      continue;
    double f = (at - x(i - 1)) / (x(i) - x(i - 1));
    return y(i - 1) + f * (y(i) - y(i - 1));
  }
  return y(n - 1);
}

/// Causal work of q tokens after p cached ones: sum over the q queries of
/// the keys each sees.
double causalWork(double q, double p) { return q * p + q * (q + 1) / 2; }

/// The distinct batches of the decode grid and the lengths of one batch.
std::vector<int64_t> decodeBatches(const std::vector<ShapePoint> &decode) {
  std::vector<int64_t> out;
  for (const ShapePoint &p : decode)
    if (out.empty() || out.back() != p.batch)
      out.push_back(p.batch);
  return out;
}

} // namespace

llvm::Error CostTable::verify() const {
  if (kind != "tpu" && kind != "gpu")
    return fail("cost table kind '" + kind + "' is neither tpu nor gpu");
  // kMaxTableValue is far beyond any chip and keeps every sum of a run
  // finite.
  for (double v :
       {hbmBytes, weightBytes, activationBytes, kvBytesPerToken, linkBytesPerS})
    if (!std::isfinite(v) || v < 0 || v > kMaxTableValue)
      return fail("cost table memory sizes and bandwidth must be in [0, "
                  "1e18]");
  if (chips < 1 || chips > (int64_t(1) << 20))
    return fail("cost table chips must be in [1, 2^20]");
  if (kvBytesPerToken <= 0)
    return fail("cost table kv_bytes_per_token must be above 0");
  if (prefill.empty() || decode.empty())
    return fail("cost table needs at least one prefill and one decode point");
  auto check = [](const ShapePoint &p, const char *what) -> llvm::Error {
    if (p.batch < 1 || p.length < 1 || p.batch > (int64_t(1) << 40) ||
        p.length > (int64_t(1) << 40) || !std::isfinite(p.totalNs) ||
        !std::isfinite(p.attentionNs) || p.totalNs <= 0 ||
        p.totalNs > kMaxTableValue || p.attentionNs < 0 ||
        p.attentionNs > p.totalNs)
      return fail(llvm::Twine("cost table ") + what + " point (batch " +
                  llvm::Twine(p.batch) + ", length " + llvm::Twine(p.length) +
                  ") needs batch and length in [1, 2^40], time in (0, 1e18] "
                  "ns and 0 <= attention <= total");
    return llvm::Error::success();
  };
  for (size_t i = 0; i < prefill.size(); ++i) {
    if (llvm::Error e = check(prefill[i], "prefill"))
      return e;
    if (prefill[i].batch != 1)
      return fail("cost table prefill points have batch 1");
    if (i && prefill[i].length <= prefill[i - 1].length)
      return fail("cost table prefill lengths must ascend");
  }
  for (size_t i = 0; i < draft.size(); ++i) {
    if (llvm::Error e = check(draft[i], "draft"))
      return e;
    if (draft[i].batch != 1 || draft[i].attentionNs != 0 ||
        (i && draft[i].length <= draft[i - 1].length))
      return fail("cost table draft points have batch 1, no attention and "
                  "ascending lengths");
  }
  for (size_t i = 0; i < decode.size(); ++i) {
    if (llvm::Error e = check(decode[i], "decode"))
      return e;
    if (i && std::make_pair(decode[i].batch, decode[i].length) <=
                 std::make_pair(decode[i - 1].batch, decode[i - 1].length))
      return fail("cost table decode points must ascend by (batch, length)");
  }
  // A full grid: every batch has the first batch's lengths.
  std::vector<int64_t> batches = decodeBatches(decode);
  size_t perBatch = decode.size() / batches.size();
  if (perBatch * batches.size() != decode.size())
    return fail("cost table decode points do not form a batch x length grid");
  for (size_t i = 0; i < decode.size(); ++i)
    if (decode[i].batch != batches[i / perBatch] ||
        decode[i].length != decode[i % perBatch].length)
      return fail("cost table decode points do not form a batch x length "
                  "grid");
  return llvm::Error::success();
}

double CostTable::kvCapacityBytes(double utilization) const {
  return std::max(0.0, utilization * hbmBytes - weightBytes - activationBytes);
}

double CostTable::denseNs(int64_t tokens) const {
  return interpolate(
      prefill.size(), [&](size_t i) { return double(prefill[i].length); },
      [&](size_t i) { return prefill[i].totalNs - prefill[i].attentionNs; },
      double(tokens));
}

double CostTable::chunkAttentionNs(int64_t tokens, int64_t prefix) const {
  return interpolate(
      prefill.size(),
      [&](size_t i) { return causalWork(double(prefill[i].length), 0); },
      [&](size_t i) { return prefill[i].attentionNs; },
      causalWork(double(tokens), double(prefix)));
}

double CostTable::decodeAttentionNs(int64_t batch, int64_t cached) const {
  std::vector<int64_t> batches = decodeBatches(decode);
  size_t perBatch = decode.size() / batches.size();
  double mean = double(cached) / double(batch);
  // Attention of grid batch i at the step's mean context.
  auto atBatch = [&](size_t i) {
    const ShapePoint *row = &decode[i * perBatch];
    return interpolate(
        perBatch, [&](size_t j) { return double(row[j].length); },
        [&](size_t j) { return row[j].attentionNs; }, mean);
  };
  return interpolate(
      batches.size(), [&](size_t i) { return double(batches[i]); }, atBatch,
      double(batch));
}

double CostTable::decodeDenseNs(int64_t batch) const {
  std::vector<int64_t> batches = decodeBatches(decode);
  size_t perBatch = decode.size() / batches.size();
  return interpolate(
      batches.size(), [&](size_t i) { return double(batches[i]); },
      [&](size_t i) {
        const ShapePoint &p = decode[i * perBatch];
        return p.totalNs - p.attentionNs;
      },
      double(batch));
}

double CostTable::draftNs(int64_t sequences) const {
  return interpolate(
      draft.size(), [&](size_t i) { return double(draft[i].length); },
      [&](size_t i) { return draft[i].totalNs; }, double(sequences));
}

const ShapePoint *CostTable::findPrefill(int64_t length) const {
  auto it = llvm::find_if(
      prefill, [&](const ShapePoint &p) { return p.length == length; });
  return it == prefill.end() ? nullptr : &*it;
}

const ShapePoint *CostTable::findDecode(int64_t batch, int64_t length) const {
  auto it = llvm::find_if(decode, [&](const ShapePoint &p) {
    return p.batch == batch && p.length == length;
  });
  return it == decode.end() ? nullptr : &*it;
}

namespace {

llvm::json::Array pointsToJSON(const std::vector<ShapePoint> &points) {
  llvm::json::Array out;
  for (const ShapePoint &p : points)
    out.push_back(llvm::json::Object{{"batch", p.batch},
                                     {"length", p.length},
                                     {"total_ns", p.totalNs},
                                     {"attention_ns", p.attentionNs}});
  return out;
}

llvm::Error pointsFromJSON(const llvm::json::Object &o, llvm::StringRef key,
                           std::vector<ShapePoint> &out) {
  const llvm::json::Array *array = o.getArray(key);
  if (!array)
    return fail("cost table: '" + key + "' must be an array of points");
  for (const llvm::json::Value &v : *array) {
    const llvm::json::Object *p = v.getAsObject();
    std::optional<int64_t> batch = p ? p->getInteger("batch") : std::nullopt;
    std::optional<int64_t> length = p ? p->getInteger("length") : std::nullopt;
    std::optional<double> total = p ? p->getNumber("total_ns") : std::nullopt;
    std::optional<double> attention =
        p ? p->getNumber("attention_ns") : std::nullopt;
    if (!batch || !length || !total || !attention)
      return fail("cost table: each '" + key +
                  "' point needs integer batch and length and numbers "
                  "total_ns and attention_ns");
    out.push_back({*batch, *length, *total, *attention});
  }
  return llvm::Error::success();
}

} // namespace

llvm::json::Value CostTable::toJSON() const {
  return llvm::json::Object{{"format", "npu-serve-costs/1"},
                            {"model", model},
                            {"target", target},
                            {"kind", kind},
                            {"chips", chips},
                            {"hbm_bytes", hbmBytes},
                            {"weight_bytes", weightBytes},
                            {"activation_bytes", activationBytes},
                            {"kv_bytes_per_token", kvBytesPerToken},
                            {"link_bytes_per_s", linkBytesPerS},
                            {"prefill", pointsToJSON(prefill)},
                            {"decode", pointsToJSON(decode)},
                            {"draft", pointsToJSON(draft)}};
}

llvm::Expected<CostTable>
mlir::npu::serve::costTableFromJSON(const llvm::json::Value &value) {
  const llvm::json::Object *o = value.getAsObject();
  if (!o || o->getString("format") != "npu-serve-costs/1")
    return fail("cost table: expected an object with \"format\": "
                "\"npu-serve-costs/1\"");
  CostTable t;
  auto str = [&](llvm::StringRef key, std::string &out) {
    std::optional<llvm::StringRef> v = o->getString(key);
    if (v)
      out = v->str();
    return v.has_value();
  };
  auto num = [&](llvm::StringRef key, double &out) {
    std::optional<double> v = o->getNumber(key);
    if (v)
      out = *v;
    return v.has_value();
  };
  if (!str("model", t.model) || !str("target", t.target) ||
      !str("kind", t.kind))
    return fail("cost table: model, target and kind must be strings");
  for (auto [key, field] :
       {std::pair<llvm::StringRef, double *>{"hbm_bytes", &t.hbmBytes},
        {"weight_bytes", &t.weightBytes},
        {"activation_bytes", &t.activationBytes},
        {"kv_bytes_per_token", &t.kvBytesPerToken}})
    if (!num(key, *field))
      return fail("cost table: '" + key + "' must be a number");
  if (const llvm::json::Value *c = o->get("chips")) {
    std::optional<int64_t> n = c->getAsInteger();
    if (!n)
      return fail("cost table: 'chips' must be an integer");
    t.chips = *n;
  }
  if (o->get("link_bytes_per_s") && !num("link_bytes_per_s", t.linkBytesPerS))
    return fail("cost table: 'link_bytes_per_s' must be a number");
  if (llvm::Error e = pointsFromJSON(*o, "prefill", t.prefill))
    return std::move(e);
  if (llvm::Error e = pointsFromJSON(*o, "decode", t.decode))
    return std::move(e);
  if (o->get("draft"))
    if (llvm::Error e = pointsFromJSON(*o, "draft", t.draft))
      return std::move(e);
  if (llvm::Error e = t.verify())
    return std::move(e);
  return t;
}
