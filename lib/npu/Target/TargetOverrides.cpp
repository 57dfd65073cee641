//===- TargetOverrides.cpp - a target variant without a file -------------===//
//
// `tpu-v7:tpu.vmem_bytes_per_core=8MiB,clock_hz=1.5e9` names tpu-v7 with two
// fields changed (docs/targets.md, "Variants without a file"). The change is
// made to the file's JSON before it is parsed, so a variant gets exactly the
// loader's and the attributes' checks, and its name (the spec, normalized)
// says what it is in every report.
//
//===----------------------------------------------------------------------===//

#include "npu/Target/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::target;

namespace {
llvm::Error fail(StringRef spec, const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "target '" + spec + "': " + msg);
}

/// The fields that keep their ratio to `path` (to its square: power 2)
/// when it is overridden and they are not: a sustained figure its fraction
/// of the quoted one; the rates of the units (matrix peaks, vector,
/// transcendental) their work per unit and per cycle when the clock or the
/// count of units changes, and the matrix peaks their work per cell when
/// the matrix unit's width changes.
SmallVector<std::pair<StringRef, int>> getCarriedFields(StringRef path) {
  static constexpr StringLiteral kPeaks[] = {
      "peak_fp32_flop_per_s", "peak_bf16_flop_per_s", "peak_fp8_flop_per_s",
      "peak_fp4_flop_per_s"};
  SmallVector<std::pair<StringRef, int>> out;
  for (auto [sustained, quoted] : getSustainedFields())
    if (path == quoted)
      out.emplace_back(sustained, 1);
  bool units = path == "clock_hz" || path == "tpu.tensor_core_count" ||
               path == "gpu.sm_count";
  if (units || path == "tpu.matrix_unit_count_per_core" ||
      path == "tpu.matrix_unit_dim_elements")
    for (StringRef peak : kPeaks)
      out.emplace_back(peak, path == "tpu.matrix_unit_dim_elements" ? 2 : 1);
  if (units)
    out.append({{"vector_flop_per_s", 1}, {"transcendental_per_s", 1}});
  return out;
}
} // namespace

std::optional<double> target::parseOverrideValue(StringRef text) {
  static constexpr std::pair<StringLiteral, double> kSuffixes[] = {
      {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40},
      {"K", 1e3},      {"M", 1e6},      {"G", 1e9},      {"T", 1e12}};
  double scale = 1;
  for (auto [suffix, factor] : kSuffixes)
    if (text.consume_back(suffix)) {
      scale = factor;
      break;
    }
  // Only a decimal's characters: StringRef::getAsDouble accepts a long text
  // with a stray byte past its first characters.
  double value;
  if (text.empty() ||
      text.find_first_not_of("0123456789.eE+-") != StringRef::npos ||
      text.getAsDouble(value) || !std::isfinite(value))
    return std::nullopt;
  value *= scale;
  return std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

llvm::json::Value *target::lookupField(llvm::json::Object &root,
                                       StringRef path) {
  auto [section, name] = path.split('.');
  if (name.empty())
    return root.get(section);
  llvm::json::Object *inner = root.getObject(section);
  return inner ? inner->get(name) : nullptr;
}

llvm::Expected<TargetSpec> target::parseTargetSpec(StringRef spec) {
  TargetSpec out;
  // The overrides start at the first ':' of the file name (a directory may
  // hold one); a name ending in ".json" is a file (a variant written out).
  size_t slash = spec.rfind('/');
  size_t colon = spec.ends_with(".json")
                     ? StringRef::npos
                     : spec.find(':', slash == StringRef::npos ? 0 : slash);
  out.base = spec.take_front(colon).str();
  if (colon == StringRef::npos)
    return out;
  SmallVector<StringRef> items;
  spec.drop_front(colon + 1).split(items, ',');
  for (StringRef item : items) {
    StringRef field = item.split('=').first.trim();
    StringRef value = item.split('=').second.trim();
    if (field.empty() || value.empty() || !item.contains('='))
      return fail(spec, "override '" + item +
                            "' is not 'field=value' (a field npu-target-info "
                            "prints, e.g. 'tpu.vmem_bytes_per_core=8MiB')");
    if (llvm::any_of(out.overrides,
                     [&](const auto &o) { return o.first == field; }))
      return fail(spec, "field '" + field + "' is set twice");
    out.overrides.emplace_back(field.str(), value.str());
  }
  return out;
}

llvm::Error target::applyOverrides(llvm::json::Value &root,
                                   const TargetSpec &spec, StringRef specText) {
  llvm::json::Object *obj = root.getAsObject();
  if (!obj)
    return fail(specText, "the file's top level is not a JSON object");
  llvm::json::Object *sources = obj->getObject("sources");
  // The values before any override: a quoted figure's sustained partner
  // keeps its fraction of the quoted one unless it is set too.
  llvm::json::Value original = root;
  llvm::json::Object &before = *original.getAsObject();
  std::vector<std::string> items;
  for (const auto &override : spec.overrides) {
    const std::string &path = override.first, &text = override.second;
    const TargetField *field =
        llvm::find_if(getTargetFields(),
                      [&](const TargetField &f) { return f.path() == path; });
    if (field == getTargetFields().end())
      return fail(specText, "unknown field '" + path + "' (npu-target-info " +
                                spec.base + " prints the fields)");
    std::optional<double> value = parseOverrideValue(text);
    if (!value)
      return fail(specText, "field '" + path + "': '" + text +
                                "' is not a number (a decimal, optionally "
                                "with K, M, G, T or KiB, MiB, GiB, TiB)");
    bool common = field->section == FieldSection::Common;
    if (!common && !obj->getObject(path.substr(0, path.find('.'))))
      return fail(specText, "field '" + path + "' is not a field of a '" +
                                obj->getString("kind").value_or("?") +
                                "' target");
    // As an item of the variant's canonical name, too.
    llvm::json::Value json = *value;
    if (field->type == FieldType::Integer) {
      if (*value != std::trunc(*value) || std::abs(*value) >= 0x1p63)
        return fail(specText,
                    "field '" + path + "' must be an integer, got " + text);
      json = int64_t(*value);
      items.push_back(path + "=" + std::to_string(int64_t(*value)));
    } else {
      items.push_back(path + "=" + formatReal(*value));
    }
    auto [section, name] = StringRef(path).split('.');
    llvm::json::Object &into = common ? *obj : *obj->getObject(section);
    into[common ? section : name] = json;
    if (sources)
      (*sources)[path] = "[override] set to " + text + " on the command line";
    for (const auto &carried : getCarriedFields(path)) {
      StringRef dependent = carried.first;
      auto power = carried.second;
      if (llvm::any_of(spec.overrides,
                       [&](const auto &o) { return o.first == dependent; }))
        continue;
      llvm::json::Value *q = lookupField(before, path);
      llvm::json::Value *d = lookupField(*obj, dependent);
      std::optional<double> qv = q ? q->getAsNumber() : std::nullopt;
      std::optional<double> dv = d ? d->getAsNumber() : std::nullopt;
      if (!qv || !dv || *qv <= 0)
        continue; // an optional field the file leaves out
      double ratio = *value / *qv;
      double factor = power == 2 ? ratio * ratio : ratio;
      *d = *dv * factor;
      if (sources)
        (*sources)[dependent] =
            (power == 2 ? "[override] scaled as the square of " + path
                        : "[override] scaled as " + path) +
            " (x" + formatReal(factor) + ")";
    }
  }
  // The variant's name is the spec, canonical (fields sorted, values as
  // plain numbers): every report says which variant it is, and two
  // spellings of one variant are one target.
  llvm::sort(items);
  (*obj)["name"] =
      llvm::sys::path::stem(spec.base).str() + ":" + llvm::join(items, ",");
  return llvm::Error::success();
}
