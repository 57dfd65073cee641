//===- Interconnect.cpp - a target's "interconnect" object ----------------===//
//
// Structure and values of the optional "interconnect" object are both checked
// here (it is plain data, not an attribute: the single-chip passes never read
// it). The consistency with the chip's quoted "link_bandwidth_bytes_per_s" is
// checked by the target loader, which has both.
//
//===----------------------------------------------------------------------===//

#include "npu/Target/Interconnect.h"

#include "JsonFileReader.h"
#include "npu/Target/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::target;
using llvm::json::Object;
using JValue = llvm::json::Value;

llvm::StringRef target::stringifyLinkTopology(LinkTopology topology) {
  switch (topology) {
  case LinkTopology::Torus:
    return "torus";
  case LinkTopology::Switch:
    return "switch";
  }
  llvm_unreachable("unknown LinkTopology");
}

llvm::ArrayRef<LinkField> target::getLinkFields() {
  using T = LinkFieldType;
  static const LinkField fields[] = {
      {"topology", T::Topology, "",
       "\"torus\" (links to neighbours) or \"switch\" (links into a switch)"},
      {"links_per_chip", T::Integer, "links",
       "torus: 2 per dimension; switch: the chip's links (or NICs)"},
      {"link_bandwidth_bytes_per_s_per_direction", T::Real, "bytes/s",
       "one link, one direction, quoted (line) rate"},
      {"sustained_link_bandwidth_bytes_per_s_per_direction", T::Real, "bytes/s",
       "what a collective's payload sustains on one link and direction"},
      {"latency_ns", T::Real, "ns",
       "torus: one hop; switch: one step of a collective"},
      {"base_latency_ns", T::Real, "ns",
       "fixed cost of one collective (launch, synchronisation)"},
      {"max_chips", T::Integer, "chips",
       "most chips on this level (pod or switch domain)"},
      {"compute_units_per_collective", T::Count, "units",
       "SMs or cores a collective's kernel occupies beside compute; 0 "
       "where DMA engines move the data"},
      {"in_network_reduction_efficiency", T::Fraction, "",
       "switch only: fraction of the link bandwidth an all-reduce reduced in "
       "the switch (NVLink SHARP) keeps; 0 if it cannot"},
  };
  return fields;
}

namespace {

/// Where a level keeps the value of each field.
struct FieldSlot {
  StringRef name;
  int64_t LinkLevel::*integer = nullptr;
  double LinkLevel::*real = nullptr;
};
constexpr FieldSlot kSlots[] = {
    {"links_per_chip", &LinkLevel::linksPerChip, nullptr},
    {"max_chips", &LinkLevel::maxChips, nullptr},
    {"compute_units_per_collective", &LinkLevel::computeUnitsPerCollective,
     nullptr},
    {"link_bandwidth_bytes_per_s_per_direction", nullptr,
     &LinkLevel::linkBytesPerSPerDirection},
    {"sustained_link_bandwidth_bytes_per_s_per_direction", nullptr,
     &LinkLevel::sustainedLinkBytesPerSPerDirection},
    {"latency_ns", nullptr, &LinkLevel::latencyNs},
    {"base_latency_ns", nullptr, &LinkLevel::baseLatencyNs},
};

const FieldSlot &slot(StringRef name) {
  for (const FieldSlot &s : kSlots)
    if (s.name == name)
      return s;
  llvm_unreachable("a numeric field without a slot");
}

class InterconnectReader : JsonFileReader {
public:
  InterconnectReader(StringRef path, std::vector<std::string> &fieldPaths)
      : JsonFileReader(path), fieldPaths(fieldPaths) {}

  llvm::Error read(const JValue &value, Interconnect &out);

private:
  llvm::Error readLevel(const JValue &value, StringRef level, LinkLevel &out);
  llvm::Error readField(const LinkField &field, const JValue &v,
                        const std::string &name, LinkLevel &out) const;
  llvm::Error checkTogether(const std::string &prefix,
                            const LinkLevel &out) const;

  std::vector<std::string> &fieldPaths;
};

llvm::Error InterconnectReader::readField(const LinkField &field,
                                          const JValue &v,
                                          const std::string &name,
                                          LinkLevel &out) const {
  switch (field.type) {
  case LinkFieldType::Topology: {
    std::optional<StringRef> s = v.getAsString();
    if (s && *s == "torus")
      out.topology = LinkTopology::Torus;
    else if (s && *s == "switch")
      out.topology = LinkTopology::Switch;
    else
      return fail("field '" + name + "' must be \"torus\" or \"switch\", got " +
                  render(v));
    return llvm::Error::success();
  }
  case LinkFieldType::Fraction: {
    std::optional<double> d = v.getAsNumber();
    if (!d || !(*d >= 0 && *d <= 1))
      return fail("field '" + name + "' must be a number in [0, 1], got " +
                  render(v));
    out.inNetworkReductionEfficiency = *d;
    return llvm::Error::success();
  }
  case LinkFieldType::Integer:
  case LinkFieldType::Count: {
    std::optional<int64_t> i = v.getAsInteger();
    int64_t least = field.type == LinkFieldType::Count ? 0 : 1;
    if (!i || *i < least)
      return fail("field '" + name + "' must be an integer of at least " +
                  llvm::Twine(least) + ", got " + render(v));
    out.*slot(field.name).integer = *i;
    return llvm::Error::success();
  }
  case LinkFieldType::Real: {
    std::optional<double> d = v.getAsNumber();
    bool isTime = field.unit == "ns";
    if (!d || !std::isfinite(*d) || *d < 0 || (!isTime && *d == 0))
      return fail("field '" + name + "' must be a finite number " +
                  (isTime ? "of at least 0" : "above 0") + ", got " +
                  render(v));
    out.*slot(field.name).real = *d;
    return llvm::Error::success();
  }
  }
  llvm_unreachable("unknown LinkFieldType");
}

llvm::Error InterconnectReader::checkTogether(const std::string &prefix,
                                              const LinkLevel &out) const {
  if (out.sustainedLinkBytesPerSPerDirection > out.linkBytesPerSPerDirection)
    return fail("field '" + prefix +
                "sustained_link_bandwidth_bytes_per_s_per_direction' (" +
                formatReal(out.sustainedLinkBytesPerSPerDirection) +
                ") is above the quoted '" + prefix +
                "link_bandwidth_bytes_per_s_per_direction' (" +
                formatReal(out.linkBytesPerSPerDirection) + ")");
  if (out.topology == LinkTopology::Torus &&
      prefix.find(kScaleOut) != std::string::npos)
    return fail("field '" + prefix +
                "topology' must be \"switch\": a scale-out network is a "
                "switched fabric");
  if (out.topology == LinkTopology::Torus) {
    if (out.linksPerChip % 2 != 0 || out.linksPerChip > 6)
      return fail("field '" + prefix +
                  "links_per_chip' of a torus must be 2 per dimension (2, 4 "
                  "or 6), got " +
                  llvm::Twine(out.linksPerChip));
    if (out.canReduceInNetwork())
      return fail("field '" + prefix +
                  "in_network_reduction_efficiency' must be 0 on a torus: "
                  "there is no switch to reduce in");
  }
  if (out.maxChips < 2)
    return fail("field '" + prefix + "max_chips' must be at least 2, got " +
                llvm::Twine(out.maxChips));
  return llvm::Error::success();
}

llvm::Error InterconnectReader::readLevel(const JValue &value, StringRef level,
                                          LinkLevel &out) {
  std::string prefix = ("interconnect." + level + ".").str();
  const Object *object = value.getAsObject();
  if (!object)
    return fail("field 'interconnect." + level + "' must be an object, got " +
                render(value));
  llvm::StringSet<> known;
  for (const LinkField &field : getLinkFields())
    known.insert(field.name);
  std::vector<std::string> keys;
  for (const auto &kv : *object)
    keys.push_back(kv.first.str());
  llvm::sort(keys);
  for (const std::string &key : keys)
    if (!known.contains(key))
      return fail("unknown field '" + prefix + key + "'");
  for (const LinkField &field : getLinkFields()) {
    std::string name = prefix + field.name.str();
    const JValue *v = object->get(field.name);
    if (!v)
      return fail("field '" + name + "' is missing");
    fieldPaths.push_back(name);
    if (llvm::Error e = readField(field, *v, name, out))
      return e;
  }
  return checkTogether(prefix, out);
}

llvm::Error InterconnectReader::read(const JValue &value, Interconnect &out) {
  const Object *object = value.getAsObject();
  if (!object)
    return fail("field 'interconnect' must be an object, got " + render(value));
  for (const auto &kv : *object)
    if (StringRef(kv.first) != kScaleUp && StringRef(kv.first) != kScaleOut)
      return fail("unknown field 'interconnect." + kv.first.str() + "'");
  const JValue *up = object->get(kScaleUp);
  if (!up)
    return fail("field 'interconnect.scale_up' is missing");
  if (llvm::Error e = readLevel(*up, kScaleUp, out.scaleUp))
    return e;
  if (const JValue *outValue = object->get(kScaleOut)) {
    LinkLevel level;
    if (llvm::Error e = readLevel(*outValue, kScaleOut, level))
      return e;
    out.scaleOut = level;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error target::readInterconnect(const JValue &value, StringRef path,
                                     Interconnect &out,
                                     std::vector<std::string> &fieldPaths) {
  return InterconnectReader(path, fieldPaths).read(value, out);
}

static JValue levelToJSON(const LinkLevel &level) {
  Object o;
  o["topology"] = stringifyLinkTopology(level.topology).str();
  o["in_network_reduction_efficiency"] = level.inNetworkReductionEfficiency;
  for (const FieldSlot &s : kSlots) {
    if (s.integer)
      o[s.name] = level.*s.integer;
    else
      o[s.name] = level.*s.real;
  }
  return JValue(std::move(o));
}

JValue target::toJSON(const Interconnect &interconnect) {
  Object o;
  o[kScaleUp] = levelToJSON(interconnect.scaleUp);
  if (interconnect.scaleOut)
    o[kScaleOut] = levelToJSON(*interconnect.scaleOut);
  return JValue(std::move(o));
}

std::optional<std::pair<std::string, StringRef>>
target::formatInterconnectField(const Interconnect &interconnect,
                                StringRef path) {
  if (!path.consume_front("interconnect."))
    return std::nullopt;
  auto [levelName, name] = path.split('.');
  const LinkLevel *level = levelName == kScaleUp ? &interconnect.scaleUp
                           : levelName == kScaleOut && interconnect.scaleOut
                               ? &*interconnect.scaleOut
                               : nullptr;
  if (!level)
    return std::nullopt;
  const JValue value = levelToJSON(*level);
  const JValue *field = value.getAsObject()->get(name);
  if (!field)
    return std::nullopt;
  for (const LinkField &f : getLinkFields()) {
    if (f.name != name)
      continue;
    if (f.type == LinkFieldType::Topology)
      return std::make_pair(field->getAsString()->str(), f.unit);

    if (f.type == LinkFieldType::Integer || f.type == LinkFieldType::Count)
      return std::make_pair(std::to_string(*field->getAsInteger()), f.unit);
    return std::make_pair(formatReal(*field->getAsNumber()), f.unit);
  }
  return std::nullopt;
}
