//===- SystemLoader.cpp - npu-target/systems/*.json -> System -------------===//
//
// Every check names the file and the field; nothing is half-loaded.
//
//===----------------------------------------------------------------------===//

#include "JsonFileReader.h"
#include "npu/Support/InputFiles.h"
#include "npu/Target/System.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::target;
using llvm::json::Object;
using JValue = llvm::json::Value;

int64_t System::getChipCount() const {
  int64_t chips = 1;
  for (const SystemAxis &axis : axes)
    chips *= axis.size; // bounded by the loader (max_chips)
  return chips;
}

const SystemAxis *System::lookupAxis(StringRef axisName) const {
  for (const SystemAxis &axis : axes)
    if (axis.name == axisName)
      return &axis;
  return nullptr;
}

std::string System::getShapeString() const {
  std::string shape;
  for (const SystemAxis &axis : axes)
    shape += (shape.empty() ? "" : "x") + std::to_string(axis.size);
  return shape;
}

std::string target::getDefaultSystemDir() {
  llvm::SmallString<256> dir(getDefaultTargetDir());
  llvm::sys::path::append(dir, "systems");
  return dir.str().str();
}

namespace {

class SystemReader : JsonFileReader {
public:
  SystemReader(MLIRContext *context, StringRef path, StringRef targetDir)
      : JsonFileReader(path), context(context), targetDir(targetDir.str()) {}

  llvm::Expected<System> run(StringRef json);

private:
  llvm::Error readAxis(const JValue &value, size_t index, System &system);
  llvm::Error checkShape(const System &system) const;
  llvm::Error readSources(const Object &root, System &system) const;

  MLIRContext *context;
  std::string targetDir;
};

llvm::Error SystemReader::readAxis(const JValue &value, size_t index,
                                   System &system) {
  std::string where = "axes[" + std::to_string(index) + "]";
  const Object *object = value.getAsObject();
  if (!object)
    return fail("field '" + where + "' must be an object, got " +
                render(value));
  for (const auto &kv : *object)
    if (!llvm::is_contained({"name", "size", "level", "wraparound"},
                            kv.first.str()))
      return fail("unknown field '" + where + "." + kv.first.str() + "'");
  SystemAxis axis;
  if (const JValue *v = object->get("name"); v && v->getAsString())
    axis.name = v->getAsString()->str();
  if (axis.name.empty() || !llvm::all_of(axis.name, [](char c) {
        return llvm::isAlnum(c) || c == '_';
      }))
    return fail("field '" + where +
                ".name' must be a non-empty identifier (letters, digits, _)");
  if (system.lookupAxis(axis.name))
    return fail("field '" + where + ".name': axis '" + axis.name +
                "' is named twice");
  const JValue *size = object->get("size");
  std::optional<int64_t> sizeValue = size ? size->getAsInteger() : std::nullopt;
  if (!sizeValue || *sizeValue < 2)
    return fail("field '" + where +
                ".size' must be an integer of at least 2, "
                "got " +
                (size ? render(*size) : std::string("nothing")));
  axis.size = *sizeValue;
  std::string level;
  if (const JValue *v = object->get("level"); v && v->getAsString())
    level = v->getAsString()->str();
  if (level != kScaleUp && level != kScaleOut)
    return fail("field '" + where +
                ".level' must be \"scale_up\" or "
                "\"scale_out\"");
  axis.scaleOut = level == kScaleOut;
  if (const JValue *v = object->get("wraparound")) {
    if (!v->getAsBoolean())
      return fail("field '" + where +
                  ".wraparound' must be true or false, "
                  "got " +
                  render(*v));
    axis.wraparound = *v->getAsBoolean();
  }
  system.axes.push_back(std::move(axis));
  return llvm::Error::success();
}

llvm::Error SystemReader::checkShape(const System &system) const {
  const Interconnect &ic = *system.chip.interconnect;
  int64_t upChips = 1, upAxes = 0, outAxes = 0, chips = 1;
  for (const SystemAxis &axis : system.axes) {
    std::string where = "axis '" + axis.name + "'";
    if (axis.scaleOut) {
      if (!ic.scaleOut)
        return fail(where + " is on the scale-out network, which chip '" +
                    system.chip.attr.getName() + "' does not describe");
      if (++outAxes > 1)
        return fail(where + ": at most one scale-out axis");
      if (axis.wraparound)
        return fail(where + ": a switched network has no wraparound links");
    } else {
      if (outAxes)
        return fail(where + ": scale-up axes come before the scale-out one");
      ++upAxes;
      const LinkLevel &up = ic.scaleUp;
      if (up.topology == LinkTopology::Switch) {
        if (upAxes > 1)
          return fail(where + ": chip '" + system.chip.attr.getName() +
                      "' scales up through a switch: one scale-up axis");
        if (axis.wraparound)
          return fail(where + ": a switched network has no wraparound links");
      } else {
        if (upAxes > up.maxTorusDims())
          return fail(where + ": chip '" + system.chip.attr.getName() +
                      "' has " + std::to_string(up.linksPerChip) +
                      " torus links, enough for " +
                      std::to_string(up.maxTorusDims()) + " axes");
        if (axis.wraparound && axis.size < 3)
          return fail(where + ": an axis of 2 chips has no wraparound link "
                              "apart from the direct one");
      }
    }
    if (__builtin_mul_overflow(chips, axis.size, &chips) ||
        (!axis.scaleOut &&
         __builtin_mul_overflow(upChips, axis.size, &upChips)))
      return fail("the axes' sizes overflow 64 bits");
  }
  if (upChips > ic.scaleUp.maxChips)
    return fail(llvm::formatv("the scale-up axes hold {0} chips; chip '{1}' "
                              "reaches at most {2} (scale_up.max_chips)",
                              upChips, system.chip.attr.getName(),
                              ic.scaleUp.maxChips)
                    .str());
  if (ic.scaleOut && outAxes && chips > ic.scaleOut->maxChips)
    return fail(llvm::formatv("the system holds {0} chips; the scale-out "
                              "network of chip '{1}' reaches at most {2}",
                              chips, system.chip.attr.getName(),
                              ic.scaleOut->maxChips)
                    .str());
  return llvm::Error::success();
}

llvm::Error SystemReader::readSources(const Object &root,
                                      System &system) const {
  const JValue *value = root.get("sources");
  const Object *sources = value ? value->getAsObject() : nullptr;
  if (!sources)
    return fail("field 'sources' must be an object citing at least 'axes'");
  std::vector<std::string> keys;
  for (const auto &kv : *sources)
    keys.push_back(kv.first.str());
  llvm::sort(keys);
  for (const std::string &key : keys) {
    if (key != "axes" && key != "chip")
      return fail("'sources' has an entry for '" + key +
                  "'; a system cites only 'axes' and 'chip'");
    std::optional<StringRef> text = sources->get(key)->getAsString();
    if (!text)
      return fail("'sources' entry for '" + key + "' must be a string");
    system.sources.emplace_back(key, text->str());
  }
  if (!sources->get("axes"))
    return fail("field 'axes' has no entry in 'sources'");
  return llvm::Error::success();
}

llvm::Expected<System> SystemReader::run(StringRef json) {
  llvm::Expected<JValue> parsed = parseJsonInput(json);
  if (!parsed)
    return fail("invalid JSON: " + llvm::toString(parsed.takeError()));
  const Object *root = parsed->getAsObject();
  if (!root)
    return fail("the top level must be a JSON object");
  for (const auto &kv : *root)
    if (!llvm::is_contained({"name", "chip", "description", "axes", "sources"},
                            kv.first.str()))
      return fail("unknown field '" + kv.first.str() + "'");

  System system;
  system.path = path;
  if (llvm::Error e = readString(*root, "name", system.name))
    return std::move(e);
  if (system.name != llvm::sys::path::stem(path))
    return fail("field 'name' is '" + system.name +
                "' but the file is named '" + llvm::sys::path::filename(path) +
                "'");
  if (llvm::Error e = readString(*root, "description", system.description))
    return std::move(e);
  std::string chip;
  if (llvm::Error e = readString(*root, "chip", chip))
    return std::move(e);
  llvm::SmallString<256> chipPath(chip);
  bool isPath =
      StringRef(chip).contains('/') || StringRef(chip).ends_with(".json");
  if (isPath && llvm::sys::path::is_relative(chipPath)) {
    chipPath = llvm::sys::path::parent_path(path);
    llvm::sys::path::append(chipPath, chip);
  }
  llvm::Expected<TargetFile> chipFile =
      loadTarget(context, chipPath, isPath ? "" : StringRef(targetDir));
  if (!chipFile)
    return fail("field 'chip': " + llvm::toString(chipFile.takeError()));
  system.chip = std::move(*chipFile);
  if (!system.chip.interconnect)
    return fail("field 'chip': target '" + chip +
                "' has no 'interconnect': it describes one chip alone");

  const JValue *axes = root->get("axes");
  const llvm::json::Array *axisArray = axes ? axes->getAsArray() : nullptr;
  if (!axisArray || axisArray->empty())
    return fail("field 'axes' must be a non-empty array of axes");
  for (auto [index, axis] : llvm::enumerate(*axisArray))
    if (llvm::Error e = readAxis(axis, index, system))
      return std::move(e);
  if (llvm::Error e = checkShape(system))
    return std::move(e);
  if (llvm::Error e = readSources(*root, system))
    return std::move(e);
  return system;
}

} // namespace

llvm::Expected<System> target::parseSystem(MLIRContext *context, StringRef json,
                                           StringRef path,
                                           StringRef targetDir) {
  return SystemReader(context, path, targetDir).run(json);
}

llvm::Expected<System> target::loadSystem(MLIRContext *context,
                                          StringRef nameOrPath, StringRef dir,
                                          StringRef targetDir) {
  llvm::Expected<std::string> path = resolveJsonFile(
      nameOrPath, dir.empty() ? getDefaultSystemDir() : dir.str(), "system");
  if (!path)
    return path.takeError();
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(*path, kMaxJsonBytes);
  if (!buffer)
    return buffer.takeError();
  return parseSystem(context, (*buffer)->getBuffer(), *path, targetDir);
}

JValue target::toJSON(const System &system) {
  Object root;
  root["name"] = system.name;
  root["description"] = system.description;
  root["chip"] = system.chip.attr.getName().str();
  root["chips"] = system.getChipCount();
  root["shape"] = system.getShapeString();
  llvm::json::Array axes;
  for (const SystemAxis &axis : system.axes) {
    const LinkLevel &level = system.getLevel(axis);
    Object a;
    a["name"] = axis.name;
    a["size"] = axis.size;
    a["level"] = (axis.scaleOut ? kScaleOut : kScaleUp).str();
    a["topology"] = stringifyLinkTopology(level.topology).str();
    a["wraparound"] = axis.wraparound;
    a["link_bandwidth_bytes_per_s_per_direction"] =
        level.linkBytesPerSPerDirection;
    a["latency_ns"] = level.latencyNs;
    axes.push_back(std::move(a));
  }
  root["axes"] = std::move(axes);
  Object sources;
  for (const auto &[key, text] : system.sources)
    sources[key] = text;
  root["sources"] = std::move(sources);
  return JValue(std::move(root));
}
