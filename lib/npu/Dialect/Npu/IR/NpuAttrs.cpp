//===- NpuAttrs.cpp - attributes of the npu dialect -----------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

#include "npu/Dialect/Npu/IR/NpuEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "npu/Dialect/Npu/IR/NpuAttrs.cpp.inc"

void NpuDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "npu/Dialect/Npu/IR/NpuAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ExpertLoadAttr
//===----------------------------------------------------------------------===//

Attribute ExpertLoadAttr::parse(AsmParser &parser, Type) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<LoadKind> kind = symbolizeLoadKind(keyword);
  if (!kind) {
    parser.emitError(loc, "unknown expert load kind '")
        << keyword << "' (expected 'uniform' or 'histogram')";
    return {};
  }
  SmallVector<double> weights;
  if (*kind == LoadKind::Histogram) {
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                       [&]() -> ParseResult {
                                         double w;
                                         if (parser.parseFloat(w))
                                           return failure();
                                         weights.push_back(w);
                                         return success();
                                       }))
      return {};
  }
  if (parser.parseGreater())
    return {};
  DenseF64ArrayAttr weightsAttr;
  if (*kind == LoadKind::Histogram)
    weightsAttr = DenseF64ArrayAttr::get(parser.getContext(), weights);
  return parser.getChecked<ExpertLoadAttr>(loc, parser.getContext(), *kind,
                                           weightsAttr);
}

void ExpertLoadAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyLoadKind(getKind());
  if (getKind() == LoadKind::Histogram) {
    printer << " [";
    llvm::interleaveComma(getWeightValues(), printer,
                          [&](double w) { printer << w; });
    printer << "]";
  }
  printer << ">";
}

LogicalResult
ExpertLoadAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       LoadKind kind, DenseF64ArrayAttr weightsAttr) {
  ArrayRef<double> weights =
      weightsAttr ? weightsAttr.asArrayRef() : ArrayRef<double>();
  if (kind == LoadKind::Uniform) {
    if (!weights.empty())
      return emitError() << "a uniform expert load takes no weights";
    return success();
  }
  if (weights.empty())
    return emitError() << "a histogram expert load needs one weight per expert";
  double sum = 0;
  for (auto [i, w] : llvm::enumerate(weights)) {
    if (!std::isfinite(w) || w < 0)
      return emitError() << "expert load weight #" << i << " is " << w
                         << "; weights must be finite and non-negative";
    sum += w;
  }
  if (!(sum > 0) || !std::isfinite(sum))
    return emitError()
           << "expert load weights must have a positive, finite sum";
  return success();
}

double ExpertLoadAttr::getFraction(int64_t expert, int64_t numExperts) const {
  if (getKind() == LoadKind::Uniform)
    return 1.0 / static_cast<double>(numExperts);
  double sum = 0;
  for (double w : getWeightValues())
    sum += w;
  return getWeightValues()[expert] / sum;
}
