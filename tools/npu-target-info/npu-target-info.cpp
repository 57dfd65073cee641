//===- npu-target-info.cpp - list and show hardware targets ---------------===//
//
//   npu-target-info --list [--json]          one row per target
//   npu-target-info <name-or-path> [--json]  one target, every field + source
//   npu-target-info <name-or-path> --mlir    the #npu.target attribute
//   npu-target-info --markdown [<name>]      per-chip tables for the README
//
// Names are looked up in --target-dir, else $NPU_TARGET_DIR, else the source
// tree's npu-target/. On any error: the message (naming the file and the
// field) on stderr, exit code 1, nothing on stdout.
//
//===----------------------------------------------------------------------===//

#include "npu/Target/Target.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::npu;
using namespace mlir::npu::target;

static llvm::cl::opt<std::string> targetArg(llvm::cl::Positional,
                                            llvm::cl::desc("<name-or-path>"),
                                            llvm::cl::init(""));
static llvm::cl::opt<bool> listOpt("list",
                                   llvm::cl::desc("one table row per target"));
static llvm::cl::opt<bool> jsonOpt("json", llvm::cl::desc("print JSON"));
static llvm::cl::opt<bool>
    mlirOpt("mlir", llvm::cl::desc("print the #npu.target attr"));
static llvm::cl::opt<bool>
    markdownOpt("markdown",
                llvm::cl::desc("print per-target Markdown tables (README)"));
static llvm::cl::opt<std::string>
    dirOpt("target-dir", llvm::cl::desc("directory of the target files"),
           llvm::cl::init(""));

namespace {
/// Integer fields print as integers, real ones in shortest %g form.
std::string formatField(TargetAttr t, const TargetField &f) {
  std::optional<llvm::json::Value> v = getFieldValue(t, f);
  if (!v)
    return "";
  if (f.type == FieldType::Integer)
    return std::to_string(*v->getAsInteger());
  return formatReal(*v->getAsNumber());
}

/// The value and unit of the field a citation of `file` names: a target
/// field or an "interconnect" one.
std::pair<std::string, StringRef> formatSourcedField(const TargetFile &file,
                                                     StringRef path) {
  for (const TargetField &f : getTargetFields())
    if (f.path() == path)
      return {formatField(file.attr, f), f.unit};
  if (file.interconnect)
    if (auto field = formatInterconnectField(*file.interconnect, path))
      return *field;
  llvm_unreachable("the loader checks that every citation names a field");
}

/// The derived quantities (target::getDerivedQuantities), as (name, value,
/// unit).
std::vector<std::array<std::string, 3>> derivedRows(TargetAttr t) {
  std::vector<std::array<std::string, 3>> rows;
  for (const DerivedQuantity &q : getDerivedQuantities(t))
    rows.push_back({q.name,
                    q.integral ? std::to_string(static_cast<int64_t>(q.value))
                               : formatReal(q.value),
                    q.unit});
  return rows;
}

std::string tableCell(std::optional<double> v, const char *fmt, double scale) {
  if (!v)
    return "-";
  return llvm::formatv(fmt, *v / scale).str();
}

void printListHeader(llvm::raw_ostream &os) {
  os << llvm::formatv("{0,-18} {1,-4} {2,10} {3,10} {4,10} {5,10} {6,9} {7,9} "
                      "{8,10} {9,11}\n",
                      "name", "kind", "fp32_TF/s", "bf16_TF/s", "fp8_TF/s",
                      "fp4_TF/s", "HBM_TB/s", "HBM_GB", "SRAM_MiB",
                      "ridge_bf16");
}

void printListRow(llvm::raw_ostream &os, TargetAttr t) {
  os << llvm::formatv(
      "{0,-18} {1,-4} {2,10} {3,10} {4,10} {5,10} {6,9} {7,9} {8,10} {9,11}\n",
      t.getName(), stringifyTargetKind(t.getKind()),
      tableCell(t.getPeakFlopPerS(TargetDtype::FP32), "{0:f1}", 1e12),
      tableCell(t.getPeakFlopPerS(TargetDtype::BF16), "{0:f1}", 1e12),
      tableCell(t.getPeakFlopPerS(TargetDtype::FP8), "{0:f1}", 1e12),
      tableCell(t.getPeakFlopPerS(TargetDtype::FP4), "{0:f1}", 1e12),
      tableCell(t.getHbmBandwidthBytesPerS().convertToDouble(), "{0:f3}", 1e12),
      tableCell(static_cast<double>(t.getHbmBytes()), "{0:f1}", 1e9),
      tableCell(static_cast<double>(t.getOnChipSramBytes()), "{0:f1}",
                1024.0 * 1024.0),
      tableCell(t.getRidgePointFlopPerByte(TargetDtype::BF16), "{0:f1}", 1));
}

void printFull(llvm::raw_ostream &os, const TargetFile &file) {
  TargetAttr t = file.attr;
  os << t.getName() << " (" << stringifyTargetKind(t.getKind())
     << "): " << file.description << "\n";
  os << "file: " << file.path << "\n\n";
  os << llvm::formatv("{0,-38} {1,-22} {2,-10} {3}\n", "field", "value", "unit",
                      "source");
  for (const auto &[path, source] : file.sources) {
    auto [value, unit] = formatSourcedField(file, path);
    os << llvm::formatv("{0,-38} {1,-22} {2,-10} {3}\n", path, value, unit,
                        source);
  }
  os << "\nderived\n";
  for (const auto &row : derivedRows(t))
    os << llvm::formatv("{0,-38} {1,-22} {2}\n", row[0], row[1], row[2]);
}

std::string escapeCell(StringRef s) {
  std::string out;
  for (char c : s)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void printMarkdown(llvm::raw_ostream &os, const TargetFile &file) {
  TargetAttr t = file.attr;
  os << "### " << t.getName() << " (" << stringifyTargetKind(t.getKind())
     << ")\n\n"
     << file.description << "\n\n"
     << "| field | value | unit | source |\n|---|---|---|---|\n";
  for (const auto &[path, source] : file.sources) {
    auto [value, unit] = formatSourcedField(file, path);
    os << "| `" << path << "` | " << value << " | " << unit << " | "
       << escapeCell(source) << " |\n";
  }
  os << "\nDerived:";
  for (const auto &row : derivedRows(t))
    os << " `" << row[0] << "` = " << row[1] << ";";
  os << "\n\n";
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "npu-target-info: list and show the hardware targets in npu-target/\n");
  MLIRContext context;
  context.getOrLoadDialect<NpuDialect>();

  auto fail = [](llvm::Error e) {
    llvm::errs() << "error: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  };
  if (listOpt == !targetArg.empty() && !(markdownOpt && targetArg.empty())) {
    llvm::errs() << "error: give either --list or one target name or path\n";
    return 1;
  }

  // Load everything first, print only when nothing failed.
  std::vector<TargetFile> files;
  if (!targetArg.empty()) {
    llvm::Expected<TargetFile> file = loadTarget(&context, targetArg, dirOpt);
    if (!file)
      return fail(file.takeError());
    files.push_back(std::move(*file));
  } else {
    llvm::Expected<std::vector<std::string>> names = listTargets(dirOpt);
    if (!names)
      return fail(names.takeError());
    for (const std::string &name : *names) {
      llvm::Expected<TargetFile> file = loadTarget(&context, name, dirOpt);
      if (!file)
        return fail(file.takeError());
      files.push_back(std::move(*file));
    }
  }

  std::string out;
  llvm::raw_string_ostream os(out);
  if (jsonOpt) {
    if (listOpt) {
      llvm::json::Array array;
      for (const TargetFile &file : files)
        array.push_back(toJSON(file));
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(array)));
    } else {
      os << llvm::formatv("{0:2}", toJSON(files.front()));
    }
    os << "\n";
  } else if (mlirOpt) {
    for (const TargetFile &file : files)
      os << Attribute(file.attr) << "\n";
  } else if (markdownOpt) {
    for (const TargetFile &file : files)
      printMarkdown(os, file);
  } else if (listOpt) {
    printListHeader(os);
    for (const TargetFile &file : files)
      printListRow(os, file.attr);
  } else {
    printFull(os, files.front());
  }
  llvm::outs() << out;
  return 0;
}
