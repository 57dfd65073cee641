//===- Svg.cpp - a few SVG elements as text -------------------------------===//

#include "Svg.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir::npu::svg;

std::string mlir::npu::svg::escape(llvm::StringRef s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

double mlir::npu::svg::decadeBelow(double v) {
  return std::pow(10.0, std::floor(std::log10(v) + 1e-9));
}

double mlir::npu::svg::decadeAbove(double v) {
  return std::pow(10.0, std::ceil(std::log10(v) - 1e-9));
}

std::string mlir::npu::svg::decadeLabel(double v) {
  int k = int(std::lround(std::log10(v)));
  if (k >= 0 && k <= 3)
    return std::to_string(int(std::lround(v)));
  return "1e" + std::to_string(k);
}

double mlir::npu::svg::niceStep(double span, int parts) {
  double raw = span / parts;
  double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw)
      return m * p;
  return 10 * p;
}

static std::string num(double v) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.2f", v);
  return s;
}

std::string mlir::npu::svg::point(double x, double y) {
  return num(x) + "," + num(y);
}

Canvas::Canvas(double width, double height, llvm::StringRef title)
    : width(width), height(height) {
  body += "<title>" + escape(title) + "</title>\n";
  body += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" + num(width) +
          "\" height=\"" + num(height) + "\" fill=\"white\"/>\n";
}

void Canvas::line(double x1, double y1, double x2, double y2,
                  llvm::StringRef cls, llvm::StringRef stroke,
                  double strokeWidth) {
  body += "<line class=\"" + cls.str() + "\" x1=\"" + num(x1) + "\" y1=\"" +
          num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
          "\" stroke=\"" + stroke.str() + "\" stroke-width=\"" +
          num(strokeWidth) + "\"/>\n";
}

void Canvas::rect(double x, double y, double w, double h, llvm::StringRef cls,
                  llvm::StringRef fill, llvm::StringRef tooltip) {
  body += "<rect class=\"" + cls.str() + "\" x=\"" + num(x) + "\" y=\"" +
          num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) +
          "\" fill=\"" + fill.str() + "\"";
  if (tooltip.empty())
    body += "/>\n";
  else
    body += "><title>" + escape(tooltip) + "</title></rect>\n";
}

void Canvas::circle(double cx, double cy, double r, llvm::StringRef cls,
                    llvm::StringRef fill, llvm::StringRef tooltip) {
  body += "<circle class=\"" + cls.str() + "\" cx=\"" + num(cx) + "\" cy=\"" +
          num(cy) + "\" r=\"" + num(r) + "\" fill=\"" + fill.str() +
          "\" fill-opacity=\"0.7\"";
  if (tooltip.empty())
    body += "/>\n";
  else
    body += "><title>" + escape(tooltip) + "</title></circle>\n";
}

void Canvas::polyline(llvm::StringRef points, llvm::StringRef cls,
                      llvm::StringRef stroke, double strokeWidth) {
  body += "<polyline class=\"" + cls.str() + "\" points=\"" + points.str() +
          "\" fill=\"none\" stroke=\"" + stroke.str() + "\" stroke-width=\"" +
          num(strokeWidth) + "\"/>\n";
}

void Canvas::text(double x, double y, llvm::StringRef s, llvm::StringRef cls,
                  llvm::StringRef anchor, double size, double rotate) {
  body += "<text class=\"" + cls.str() + "\" x=\"" + num(x) + "\" y=\"" +
          num(y) + "\" font-size=\"" + num(size) + "\" text-anchor=\"" +
          anchor.str() + "\"";
  if (rotate != 0)
    body += " transform=\"rotate(" + num(rotate) + " " + num(x) + " " + num(y) +
            ")\"";
  body += ">" + escape(s) + "</text>\n";
}

std::string Canvas::finish() const {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " +
         num(width) + " " + num(height) + "\" font-family=\"sans-serif\">\n" +
         body + "</svg>\n";
}
