//===- FormatReal.h - a double for a diagnostic -----------------*- C++ -*-===//
//
// Diagnostics quote the values they refuse; the shortest text that reads
// back as the same double says exactly what was given (1e-05, 10000,
// 1.00000000001, 1e-50), never a rounded neighbour.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_FORMATREAL_H
#define NPU_SUPPORT_FORMATREAL_H

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mlir::npu {

/// `v` in the shortest "%g" form that reads back as the same value, or nan /
/// inf / -inf.
inline std::string formatShortestReal(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

/// `v` with `digits` significant digits ("%.*g"): what a report prints for
/// a reader to check by hand.
inline std::string formatSignificant(double v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return buf;
}

} // namespace mlir::npu

#endif // NPU_SUPPORT_FORMATREAL_H
