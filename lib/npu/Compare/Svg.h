//===- Svg.h - SVG elements as text (private to npu-compare) ----*- C++ -*-===//
//
// npu-compare draws its pictures as hand-written SVG: a canvas collects
// elements (escaped text, numbers with two decimals) and closes the
// document. No library, no fonts beyond the generic family.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_COMPARE_SVG_H
#define NPU_LIB_COMPARE_SVG_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::npu::svg {

/// `s` with &, <, >, " and ' replaced by XML entities.
std::string escape(llvm::StringRef s);

/// 10^k for the decade at or below `v` (v > 0).
double decadeBelow(double v);
/// 10^k for the decade at or above `v` (v > 0).
double decadeAbove(double v);

/// "1e12"-style label of a decade.
std::string decadeLabel(double v);
/// A round step (1, 2 or 5 x 10^k) that cuts `span` (> 0) in about
/// `parts`.
double niceStep(double span, int parts);

class Canvas {
public:
  Canvas(double width, double height, llvm::StringRef title);
  void line(double x1, double y1, double x2, double y2, llvm::StringRef cls,
            llvm::StringRef stroke, double strokeWidth = 1);
  void rect(double x, double y, double w, double h, llvm::StringRef cls,
            llvm::StringRef fill, llvm::StringRef tooltip = "");
  void circle(double cx, double cy, double r, llvm::StringRef cls,
              llvm::StringRef fill, llvm::StringRef tooltip = "");
  void polyline(llvm::StringRef points, llvm::StringRef cls,
                llvm::StringRef stroke, double strokeWidth);
  /// `anchor`: start, middle or end.
  void text(double x, double y, llvm::StringRef s, llvm::StringRef cls,
            llvm::StringRef anchor = "start", double size = 11,
            double rotate = 0);
  /// The whole document.
  std::string finish() const;

private:
  double width, height;
  std::string body;
};

/// "x,y" with two decimals, for polyline points.
std::string point(double x, double y);

} // namespace mlir::npu::svg

#endif // NPU_LIB_COMPARE_SVG_H
