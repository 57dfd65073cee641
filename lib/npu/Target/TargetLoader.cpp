//===- TargetLoader.cpp - npu-target/*.json -> #npu.target ----------------===//
//
// Structure (which fields exist, their JSON types, sources) is checked here;
// values (ranges, consistency) are checked by the attributes' verifiers, so
// hand-written IR gets exactly the same checks as a file.
//
//===----------------------------------------------------------------------===//

#include "JsonFileReader.h"
#include "npu/Support/InputFiles.h"
#include "npu/Target/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

#ifndef NPU_TARGET_SOURCE_DIR
#error "NPU_TARGET_SOURCE_DIR must name the source tree's npu-target/"
#endif

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::target;
using llvm::json::Object;
using JValue = llvm::json::Value;

namespace {

/// Collects the first problem of one file; every message names the file.
class Loader : JsonFileReader {
public:
  Loader(MLIRContext *context, StringRef path)
      : JsonFileReader(path), context(context) {}

  llvm::Expected<TargetFile> run(StringRef json);

private:
  /// The bf16 peak against the matrix units it comes from (TPU-like).
  llvm::Error checkMatrixPeak(TargetAttr attr) const;
  /// name (the file's stem), kind (tpu or gpu) and description.
  llvm::Error readHeader(const Object &root, std::string &name,
                         std::string &kind, std::string &description) const;
  /// Fails on the first key of `object` (sorted) that is not in `allowed`.
  llvm::Error checkKnownKeys(const Object &object,
                             const llvm::StringSet<> &allowed,
                             StringRef prefix) const;
  /// Reads the numeric fields of `section` from `object` into `values`.
  llvm::Error readFields(const Object &object, FieldSection section);
  /// Every number cites its source in `sources`, and every citation names
  /// a number; the citations go to `file`.
  llvm::Error readSources(const Object &root, TargetFile &file) const;
  /// The optional "interconnect" object, checked against the chip's quoted
  /// link bandwidth.
  llvm::Error readInterconnectSection(const Object &root, TargetFile &file);

  MLIRContext *context;
  /// Field path -> JSON number, for every numeric field present.
  llvm::StringMap<JValue> values;
  /// Paths of the "interconnect" fields present, in file order.
  std::vector<std::string> interconnectPaths;

  double real(StringRef key) const {
    return *values.find(key)->second.getAsNumber();
  }
  int64_t integer(StringRef key) const {
    return *values.find(key)->second.getAsInteger();
  }
};

llvm::Error Loader::checkKnownKeys(const Object &object,
                                   const llvm::StringSet<> &allowed,
                                   StringRef prefix) const {
  std::vector<std::string> keys;
  for (const auto &kv : object)
    keys.push_back(kv.first.str());
  llvm::sort(keys);
  for (const std::string &key : keys)
    if (!allowed.contains(key))
      return fail("unknown field '" + prefix + key + "'");
  return llvm::Error::success();
}

llvm::Error Loader::readFields(const Object &object, FieldSection section) {
  for (const TargetField &field : getTargetFields()) {
    if (field.section != section)
      continue;
    std::string fieldPath = field.path();
    const JValue *v = object.get(field.name);
    if (!v) {
      if (field.type == FieldType::OptionalReal)
        continue;
      return fail("field '" + fieldPath + "' is missing");
    }
    if (field.type == FieldType::Integer) {
      if (!v->getAsInteger())
        return fail("field '" + fieldPath + "' must be an integer, got " +
                    render(*v));
    } else if (!v->getAsNumber()) {
      return fail("field '" + fieldPath + "' must be a number, got " +
                  render(*v));
    }
    values.try_emplace(fieldPath, *v);
  }
  return llvm::Error::success();
}

/// Which keys may appear where: at the top level, in `tpu`, in `gpu`.
static std::array<llvm::StringSet<>, 3> getKnownKeys() {
  std::array<llvm::StringSet<>, 3> keys;
  keys[0] = {"name", "kind", "description", "sources",
             "tpu",  "gpu",  "interconnect"};
  for (const TargetField &field : getTargetFields())
    keys[field.section == FieldSection::Common ? 0
         : field.section == FieldSection::Tpu  ? 1
                                               : 2]
        .insert(field.name);
  return keys;
}

llvm::Error Loader::readHeader(const Object &root, std::string &name,
                               std::string &kind,
                               std::string &description) const {
  if (llvm::Error e = readString(root, "name", name))
    return e;
  StringRef stem = llvm::sys::path::stem(path);
  if (name != stem)
    return fail("field 'name' is '" + name + "' but the file is named '" +
                llvm::sys::path::filename(path) + "'");
  if (llvm::Error e = readString(root, "kind", kind))
    return e;
  if (kind != "tpu" && kind != "gpu")
    return fail("field 'kind' must be \"tpu\" or \"gpu\", got \"" + kind +
                "\"");
  return readString(root, "description", description);
}

llvm::Expected<TargetFile> Loader::run(StringRef json) {
  llvm::Expected<llvm::json::Value> parsed = parseJsonInput(json);
  if (!parsed)
    return fail("invalid JSON: " + llvm::toString(parsed.takeError()));
  const Object *root = parsed->getAsObject();
  if (!root)
    return fail("the top level must be a JSON object");

  auto [topKeys, tpuKeys, gpuKeys] = getKnownKeys();
  if (llvm::Error e = checkKnownKeys(*root, topKeys, ""))
    return std::move(e);

  TargetFile file;
  file.path = path;
  file.text = json.str();
  std::string name, kind;
  if (llvm::Error e = readHeader(*root, name, kind, file.description))
    return std::move(e);

  StringRef other = kind == "tpu" ? "gpu" : "tpu";
  if (root->get(other))
    return fail("field '" + other + "' is not allowed in a '" + kind +
                "' target");
  const JValue *sectionValue = root->get(kind);
  if (!sectionValue)
    return fail("field '" + kind + "' is missing");
  const Object *section = sectionValue->getAsObject();
  if (!section)
    return fail("field '" + kind + "' must be an object, got " +
                render(*sectionValue));
  bool isTpu = kind == "tpu";
  if (llvm::Error e =
          checkKnownKeys(*section, isTpu ? tpuKeys : gpuKeys, kind + "."))
    return std::move(e);

  if (llvm::Error e = readFields(*root, FieldSection::Common))
    return std::move(e);
  if (llvm::Error e =
          readFields(*section, isTpu ? FieldSection::Tpu : FieldSection::Gpu))
    return std::move(e);

  if (llvm::Error e = readInterconnectSection(*root, file))
    return std::move(e);

  if (llvm::Error e = readSources(*root, file))
    return std::move(e);

  // Values: the attributes' verifiers.
  std::string diagnostic;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    if (diagnostic.empty())
      diagnostic = diag.str();
    return success();
  });
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(context)); };
  auto ap = [](double v) { return APFloat(v); };
  TpuTargetAttr tpu;
  GpuTargetAttr gpu;
  if (isTpu) {
    tpu = TpuTargetAttr::getChecked(
        emitError, context, integer("tpu.tensor_core_count"),
        integer("tpu.matrix_unit_count_per_core"),
        integer("tpu.matrix_unit_dim_elements"),
        integer("tpu.vmem_bytes_per_core"), integer("tpu.dma_engines_per_core"),
        ap(real("tpu.dma_setup_latency_ns")),
        integer("tpu.row_dmas_in_flight_per_core"),
        ap(real("tpu.grid_step_overhead_ns")), integer("tpu.sublanes"));
    if (!tpu)
      return fail(diagnostic);
  } else {
    gpu = GpuTargetAttr::getChecked(
        emitError, context, integer("gpu.sm_count"),
        integer("gpu.l1_shared_bytes_per_sm"),
        integer("gpu.shared_memory_bytes_per_sm"),
        integer("gpu.shared_memory_bytes_per_block"),
        integer("gpu.register_bytes_per_sm"), integer("gpu.warp_size_threads"),
        integer("gpu.max_threads_per_sm"), integer("gpu.max_threads_per_block"),
        integer("gpu.max_blocks_per_sm"), integer("gpu.l2_bytes"),
        integer("gpu.l2_line_bytes"), integer("gpu.l2_associativity_ways"),
        ap(real("gpu.l2_bandwidth_bytes_per_s")),
        ap(real("gpu.launch_overhead_ns")),
        ap(real("gpu.graph_launch_overhead_ns")),
        integer("gpu.max_cluster_blocks"), ap(real("gpu.dram_latency_ns")),
        integer("gpu.max_registers_per_thread"),
        integer("gpu.register_allocation_unit"),
        integer("gpu.register_sub_partitions"),
        integer("gpu.shared_memory_allocation_unit_bytes"),
        integer("gpu.shared_memory_reserved_per_block_bytes"),
        integer("gpu.shared_memory_bytes_per_clock"));
    if (!gpu)
      return fail(diagnostic);
  }
  auto optional = [&](StringRef key) -> std::optional<APFloat> {
    if (!values.count(key))
      return std::nullopt;
    return ap(real(key));
  };
  file.attr = TargetAttr::getChecked(
      emitError, context, StringRef(name), ap(real("clock_hz")),
      ap(real("matrix_clock_hz")), ap(real("peak_fp32_flop_per_s")),
      ap(real("peak_bf16_flop_per_s")), optional("peak_fp8_flop_per_s"),
      optional("peak_fp4_flop_per_s"), ap(real("vector_flop_per_s")),
      ap(real("transcendental_per_s")), integer("hbm_bytes"),
      ap(real("hbm_bandwidth_bytes_per_s")),
      ap(real("sustained_hbm_bandwidth_bytes_per_s")),
      ap(real("link_bandwidth_bytes_per_s")), tpu, gpu);
  if (!file.attr)
    return fail(diagnostic);
  if (llvm::Error e = checkMatrixPeak(file.attr))
    return std::move(e);
  return file;
}

llvm::Error Loader::checkMatrixPeak(TargetAttr attr) const {
  // The peak is derived from the matrix units (docs/targets.md, "Inputs and
  // derived quantities"): where a file gives both, they must agree, up to
  // the rounding of a published figure.
  std::optional<double> macs = getMatrixMacsPerCellPerCycle(attr);
  if (!macs)
    return llvm::Error::success();
  double peak = attr.getPeakBf16FlopPerS().convertToDouble();
  double whole = std::max(1.0, std::round(*macs));
  if (std::abs(*macs - whole) <= 0.01 * whole)
    return llvm::Error::success();
  return fail(llvm::formatv(
      "field 'peak_bf16_flop_per_s' ({0}) is not a whole multiple of the "
      "matrix units' rate at one MAC per cell per cycle (2 x "
      "tensor_core_count x matrix_unit_count_per_core x "
      "matrix_unit_dim_elements^2 x clock_hz = {1} FLOP/s): {2} MACs per "
      "cell per cycle; change the peak with the clock or the units",
      formatReal(peak), formatReal(peak / *macs), formatReal(*macs)));
}

llvm::Error Loader::readInterconnectSection(const Object &root,
                                            TargetFile &file) {
  const JValue *interconnect = root.get("interconnect");
  if (!interconnect)
    return llvm::Error::success();
  file.interconnect.emplace();
  if (llvm::Error e = readInterconnect(*interconnect, path, *file.interconnect,
                                       interconnectPaths))
    return e;
  // The per-link figures cannot add up to more than the chip's quoted total
  // over all links and both directions.
  const LinkLevel &up = file.interconnect->scaleUp;
  double links =
      2 * static_cast<double>(up.linksPerChip) * up.linkBytesPerSPerDirection;
  double quoted = real("link_bandwidth_bytes_per_s");
  // A collective cannot occupy every core: compute would stop.
  int64_t cores = values.count("gpu.sm_count")
                      ? integer("gpu.sm_count")
                      : integer("tpu.tensor_core_count");
  const LinkLevel *out =
      file.interconnect->scaleOut ? &*file.interconnect->scaleOut : nullptr;
  for (const LinkLevel *level : {&up, out})
    if (level && level->computeUnitsPerCollective >= cores)
      return fail(llvm::formatv("field 'interconnect.{0}.compute_units_per_"
                                "collective' ({1}) must be below the chip's "
                                "{2} cores",
                                level == &up ? kScaleUp : kScaleOut,
                                level->computeUnitsPerCollective, cores)
                      .str());
  if (links > quoted * (1 + 1e-9))
    return fail(llvm::formatv("field 'interconnect.scale_up' gives {0} "
                              "bytes/s over all links and both directions "
                              "(2 x links_per_chip x "
                              "link_bandwidth_bytes_per_s_per_direction), "
                              "more than 'link_bandwidth_bytes_per_s' = {1}",
                              formatReal(links), formatReal(quoted))
                    .str());
  return llvm::Error::success();
}

llvm::Error Loader::readSources(const Object &root, TargetFile &file) const {
  // Every number cites its source, and every citation names a number.
  const JValue *sourcesValue = root.get("sources");
  if (!sourcesValue)
    return fail("field 'sources' is missing");
  const Object *sources = sourcesValue->getAsObject();
  if (!sources)
    return fail("field 'sources' must be an object, got " +
                render(*sourcesValue));
  std::vector<std::string> sourceKeys;
  for (const auto &kv : *sources)
    sourceKeys.push_back(kv.first.str());
  llvm::sort(sourceKeys);
  for (const std::string &key : sourceKeys) {
    if (!values.count(key) && !llvm::is_contained(interconnectPaths, key))
      return fail("'sources' has an entry for '" + key +
                  "', which is not a field of this target");
    if (!sources->get(key)->getAsString())
      return fail("'sources' entry for '" + key + "' must be a string, got " +
                  render(*sources->get(key)));
  }
  std::vector<std::string> cited;
  for (const TargetField &field : getTargetFields())
    if (values.count(field.path()))
      cited.push_back(field.path());
  llvm::append_range(cited, interconnectPaths);
  for (const std::string &fieldPath : cited) {
    std::optional<StringRef> text = sources->get(fieldPath)
                                        ? sources->get(fieldPath)->getAsString()
                                        : std::nullopt;
    if (!text)
      return fail("field '" + fieldPath + "' has no entry in 'sources'");
    file.sources.emplace_back(fieldPath, text->str());
  }
  return llvm::Error::success();
}

} // namespace

std::string target::getDefaultTargetDir() {
  if (const char *env = std::getenv("NPU_TARGET_DIR"); env && *env)
    return env;
  return NPU_TARGET_SOURCE_DIR;
}

llvm::Expected<TargetFile> target::parseTarget(MLIRContext *context,
                                               StringRef json, StringRef path) {
  context->getOrLoadDialect<NpuDialect>();
  return Loader(context, path).run(json);
}

llvm::Expected<TargetFile> target::loadTargetFile(MLIRContext *context,
                                                  StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(path, kMaxJsonBytes);
  if (!buffer)
    return buffer.takeError();
  return parseTarget(context, (*buffer)->getBuffer(), path);
}

llvm::Expected<std::string>
target::resolveJsonFile(StringRef nameOrPath, StringRef dir, StringRef what) {
  if (nameOrPath.contains('/') || nameOrPath.ends_with(".json"))
    return nameOrPath.str();
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, nameOrPath + ".json");
  if (llvm::sys::fs::exists(path))
    return path.str().str();
  std::string known;
  if (llvm::Expected<std::vector<std::string>> names = listTargets(dir))
    known = llvm::join(*names, ", ");
  else
    llvm::consumeError(names.takeError());
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown " + what + " '" + nameOrPath +
                                     "': no file " + path + " (known " + what +
                                     "s: " + known + ")");
}

llvm::Expected<TargetFile>
target::loadTarget(MLIRContext *context, StringRef nameOrPath, StringRef dir) {
  llvm::Expected<TargetSpec> spec = parseTargetSpec(nameOrPath);
  if (!spec)
    return spec.takeError();
  llvm::Expected<std::string> path = resolveJsonFile(
      spec->base, dir.empty() ? getDefaultTargetDir() : dir.str(), "target");
  if (!path)
    return path.takeError();
  if (spec->overrides.empty())
    return loadTargetFile(context, *path);
  // A variant: the file's JSON with the fields set, parsed as if it were
  // the file `<dir>/<spec>.json` (messages name the variant).
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(*path, kMaxJsonBytes);
  if (!buffer)
    return buffer.takeError();
  llvm::Expected<JValue> root = parseJsonInput((*buffer)->getBuffer());
  if (!root)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        *path + ": invalid JSON: " + llvm::toString(root.takeError()));
  if (llvm::Error e = applyOverrides(*root, *spec, nameOrPath))
    return std::move(e);
  llvm::SmallString<256> variant(llvm::sys::path::parent_path(*path));
  llvm::sys::path::append(variant,
                          *root->getAsObject()->getString("name") + ".json");
  return parseTarget(context, llvm::formatv("{0:2}", *root).str(), variant);
}

llvm::Expected<std::vector<std::string>> target::listTargets(StringRef dir) {
  std::string directory = dir.empty() ? getDefaultTargetDir() : dir.str();
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       it != end && !ec; it.increment(ec)) {
    StringRef file = llvm::sys::path::filename(it->path());
    if (file.ends_with(".json"))
      names.push_back(llvm::sys::path::stem(file).str());
  }
  if (ec)
    return llvm::createStringError(ec, "cannot read target directory '" +
                                           directory + "': " + ec.message());
  llvm::sort(names);
  return names;
}
