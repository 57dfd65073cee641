//===- NpuMoEOps.cpp - MoE ops of the npu dialect ------------------------===//

#include "npu/Dialect/Npu/IR/NpuOps.h"
#include "npu/Support/FormatReal.h"

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallString.h"
#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::npu;

//===----------------------------------------------------------------------===//
// MoERouterOp
//===----------------------------------------------------------------------===//

ParseResult MoERouterOp::parseScoringFunc(OpAsmParser &parser,
                                          ScoringFuncAttr &scoring) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ScoringFunc> value = symbolizeScoringFunc(keyword);
  if (!value)
    return parser.emitError(loc, "unknown scoring function '")
           << keyword << "' (expected 'softmax' or 'sigmoid')";
  scoring = ScoringFuncAttr::get(parser.getContext(), *value);
  return success();
}

void MoERouterOp::printScoringFunc(OpAsmPrinter &printer, Operation *,
                                   ScoringFuncAttr scoring) {
  printer << stringifyScoringFunc(scoring.getValue());
}

std::string mlir::npu::checkRoutingGroups(int64_t experts, int64_t topK,
                                          int64_t nGroup, int64_t topkGroup) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (nGroup < 1 || experts % nGroup != 0)
    os << "n_group (" << nGroup
       << ") must be positive and divide the number of experts (" << experts
       << ")";
  else if (topkGroup < 1 || topkGroup > nGroup)
    os << "topk_group (" << topkGroup << ") must be in [1, n_group = " << nGroup
       << "]";
  else if (topK > topkGroup * (experts / nGroup))
    os << "top_k (" << topK
       << ") exceeds the experts of the kept groups (topk_group * E / "
          "n_group = "
       << topkGroup * (experts / nGroup) << ")";
  return why;
}

ParseResult MoERouterOp::parseGroups(OpAsmParser &parser, IntegerAttr &nGroup,
                                     IntegerAttr &topkGroup) {
  int64_t n, g;
  if (parser.parseInteger(n) || parser.parseComma() || parser.parseInteger(g))
    return failure();
  Builder b(parser.getContext());
  nGroup = b.getI64IntegerAttr(n);
  topkGroup = b.getI64IntegerAttr(g);
  return success();
}

void MoERouterOp::printGroups(OpAsmPrinter &printer, Operation *,
                              IntegerAttr nGroup, IntegerAttr topkGroup) {
  // Only a verified op is printed in custom form, so both are set.
  printer << (nGroup ? nGroup.getInt() : 0) << ", "
          << (topkGroup ? topkGroup.getInt() : 0);
}

int64_t MoERouterOp::getNumCandidates() {
  int64_t e = getNumExperts();
  if (!hasGroups())
    return e;
  auto n = static_cast<int64_t>(*getNGroup());
  auto g = static_cast<int64_t>(*getTopkGroup());
  return g * (e / n);
}

LogicalResult MoERouterOp::verify() {
  auto logits = getLogits().getType();
  if (logits.getRank() != 2)
    return emitOpError("logits must have rank 2 ([T, E]), got ")
           << logits.getRank();
  int64_t t = logits.getDimSize(0), e = logits.getDimSize(1);
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != e)
      return emitOpError("bias must have shape [")
             << e << "] (one per expert), got " << biasType;
  }
  auto k = static_cast<int64_t>(getTopK());
  if (k < 1 || k > e)
    return emitOpError("top_k (")
           << k << ") must be in [1, " << e << "], the number of experts";
  if (getNGroup().has_value() != getTopkGroup().has_value())
    return emitOpError("n_group and topk_group must be given together");
  auto groupTop = static_cast<int64_t>(getGroupTop());
  if (groupTop != 1 && groupTop != 2)
    return emitOpError("group_top must be 1 (a group's best score) or 2 "
                       "(the sum of its best two), got ")
           << groupTop;
  if (groupTop != 2 && !hasGroups())
    return emitOpError("group_top applies to group-limited routing; give "
                       "groups(n_group, topk_group)");
  if (hasGroups())
    if (std::string why =
            checkRoutingGroups(e, k, static_cast<int64_t>(*getNGroup()),
                               static_cast<int64_t>(*getTopkGroup()));
        !why.empty())
      return emitOpError(why);
  double scale = getScale().convertToDouble();
  if (!std::isfinite(scale) || !(scale > 0)) {
    SmallString<16> text;
    getScale().toString(text);
    return emitOpError("scale must be finite and > 0, got ") << text;
  }
  for (auto [name, type] :
       {std::pair<StringRef, ShapedType>{"indices", getIndices().getType()},
        {"weights", getWeights().getType()}}) {
    if (type.getRank() != 2 || type.getDimSize(0) != t ||
        type.getDimSize(1) != k)
      return emitOpError() << name << " result must have shape [T, top_k] = ["
                           << t << ", " << k << "], got " << type;
  }
  return success();
}

Work MoERouterOp::computeWork() {
  // Reads logits (and bias), writes indices and weights; the bias is a
  // parameter when it comes from npu.weight or an npu.param argument.
  Work w = getOperandResultTraffic(*this);
  Count t = Count::fromSigned(getNumTokens());
  Count e = Count::fromSigned(getNumExperts());
  Count k = Count::fromSigned(static_cast<int64_t>(getTopK()));
  Count c = Count::fromSigned(getNumCandidates());
  // Per token: one exp per expert for either scoring function.
  w.transcendentalFlops = t * e;
  Count perToken;
  if (getScoring() == ScoringFunc::Sigmoid)
    perToken = Count(2) * e; // 1 / (1 + exp(-x)): an add and a divide
  else
    perToken =
        Count(4) * e - Count(2); // max (E-1), sub (E), sum (E-1), div (E)
  if (getBias())
    perToken += e; // selection score = score + bias
  if (hasGroups()) {
    auto nGroup = static_cast<int64_t>(*getNGroup());
    Count n = Count::fromSigned(nGroup);
    Count g = Count::fromSigned(static_cast<int64_t>(*getTopkGroup()));
    Count m = Count::fromSigned(std::min<int64_t>(
        static_cast<int64_t>(getGroupTop()), getNumExperts() / nGroup));
    // Top-m of each group as m passes of G compares (m*E in all), m-1 adds
    // per group score, then topk_group passes over the n_group scores.
    perToken += m * e + n * (m - Count(1)) + g * n;
  }
  perToken += k * c; // top-k as k passes over the candidate experts
  if (getNormTopk())
    perToken += Count(2) * k - Count(1); // k-1 adds for the sum, k divides
  if (getScale().convertToDouble() != 1.0)
    perToken += k; // times routed_scaling_factor
  w.vectorFlops = t * perToken;
  return w;
}

//===----------------------------------------------------------------------===//
// MoEExpertsOp
//===----------------------------------------------------------------------===//

ParseResult MoEExpertsOp::parseExpertLoad(OpAsmParser &parser,
                                          ExpertLoadAttr &load) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute attr;
  if (parser.parseAttribute(attr))
    return failure();
  load = dyn_cast<ExpertLoadAttr>(attr);
  if (!load)
    return parser.emitError(loc, "expected an #npu.expert_load attribute, got ")
           << attr;
  return success();
}

void MoEExpertsOp::printExpertLoad(OpAsmPrinter &printer, Operation *,
                                   ExpertLoadAttr load) {
  printer.printAttribute(load);
}

LogicalResult MoEExpertsOp::verify() {
  auto x = getX().getType();
  auto indices = getIndices().getType();
  auto weights = getWeights().getType();
  auto wGate = getWGate().getType();
  auto wUp = getWUp().getType();
  auto wDown = getWDown().getType();
  if (x.getRank() != 2)
    return emitOpError("x must have rank 2 ([T, D]), got ") << x.getRank();
  int64_t t = x.getDimSize(0), d = x.getDimSize(1);
  if (indices.getRank() != 2)
    return emitOpError("indices must have rank 2 ([T, k]), got ")
           << indices.getRank();
  if (indices.getDimSize(0) != t)
    return emitOpError("indices must have T = ")
           << t << " rows (as x), got " << indices.getDimSize(0);
  int64_t k = indices.getDimSize(1);
  if (weights.getShape() != indices.getShape())
    return emitOpError("weights must have the shape of indices [")
           << t << ", " << k << "], got " << weights;
  if (wGate.getRank() != 3)
    return emitOpError("w_gate must have rank 3 ([E, F, D]), got ")
           << wGate.getRank();
  int64_t e = wGate.getDimSize(0), f = wGate.getDimSize(1);
  if (wGate.getDimSize(2) != d)
    return emitOpError("w_gate must have D = ")
           << d << " columns (as x), got " << wGate.getDimSize(2);
  if (wUp.getShape() != wGate.getShape())
    return emitOpError("w_up must have the shape of w_gate [")
           << e << ", " << f << ", " << d << "], got " << wUp;
  if (wDown.getRank() != 3 || wDown.getDimSize(0) != e ||
      wDown.getDimSize(1) != d || wDown.getDimSize(2) != f)
    return emitOpError("w_down must have shape [E, D, F] = [")
           << e << ", " << d << ", " << f << "], got " << wDown;
  if (wUp.getElementType() != wGate.getElementType() ||
      wDown.getElementType() != wGate.getElementType())
    return emitOpError("w_gate, w_up and w_down must have the same element "
                       "type, got ")
           << wGate.getElementType() << ", " << wUp.getElementType() << ", "
           << wDown.getElementType();
  if (k > e)
    return emitOpError("k (") << k << ") exceeds the number of experts (" << e
                              << "): a token's experts are distinct";
  int numShared = (getSharedGate() ? 1 : 0) + (getSharedUp() ? 1 : 0) +
                  (getSharedDown() ? 1 : 0);
  if (numShared != 0 && numShared != 3)
    return emitOpError(
        "shared experts need all three weights (gate, up, down)");
  if (numShared == 3) {
    auto sGate = cast<RankedTensorType>(getSharedGate().getType());
    auto sUp = cast<RankedTensorType>(getSharedUp().getType());
    auto sDown = cast<RankedTensorType>(getSharedDown().getType());
    if (sGate.getRank() != 2)
      return emitOpError("shared gate weight must have rank 2 ([Fs, D]), got ")
             << sGate.getRank();
    int64_t fs = sGate.getDimSize(0);
    if (sGate.getDimSize(1) != d)
      return emitOpError("shared gate weight must have D = ")
             << d << " columns (as x), got " << sGate.getDimSize(1);
    if (sUp.getShape() != sGate.getShape())
      return emitOpError("shared up weight must have the shape of the shared "
                         "gate weight [")
             << fs << ", " << d << "], got " << sUp;
    if (sDown.getRank() != 2 || sDown.getDimSize(0) != d ||
        sDown.getDimSize(1) != fs)
      return emitOpError("shared down weight must have shape [D, Fs] = [")
             << d << ", " << fs << "], got " << sDown;
    if (sUp.getElementType() != sGate.getElementType() ||
        sDown.getElementType() != sGate.getElementType())
      return emitOpError("the shared expert weights must have the same "
                         "element type, got ")
             << sGate.getElementType() << ", " << sUp.getElementType() << ", "
             << sDown.getElementType();
  }
  int numBiases =
      (getBGate() ? 1 : 0) + (getBUp() ? 1 : 0) + (getBDown() ? 1 : 0);
  if (numBiases != 0 && numBiases != 3)
    return emitOpError("expert biases need all three (gate, up, down)");
  if (numBiases == 3) {
    SmallVector<int64_t> fShape = {e, f}, dShape = {e, d};
    auto shapeOf = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape();
    };
    if (shapeOf(getBGate()) != ArrayRef<int64_t>(fShape) ||
        shapeOf(getBUp()) != ArrayRef<int64_t>(fShape) ||
        shapeOf(getBDown()) != ArrayRef<int64_t>(dShape))
      return emitOpError("expert biases must be [E, F], [E, F], [E, D] = [")
             << e << ", " << f << "], [" << e << ", " << f << "], [" << e
             << ", " << d << "]";
  }
  if (FloatAttr limit = getSwigluLimitAttr()) {
    double l = limit.getValueAsDouble();
    if (!std::isfinite(l) || l <= 0.0)
      return emitOpError("swiglu_limit must be finite and > 0, got ")
             << formatShortestReal(l);
  }
  if (getResult().getType() != x)
    return emitOpError("result must have the type of x (")
           << x << "), got " << getResult().getType();
  ExpertLoadAttr load = getLoad();
  if (load.getKind() == LoadKind::Histogram &&
      static_cast<int64_t>(load.getWeightValues().size()) != e)
    return emitOpError("expert load histogram has ")
           << load.getWeightValues().size()
           << " weights, expected one per expert (" << e << ")";
  return success();
}

int64_t MoEExpertsOp::getExpectedActiveExperts() {
  int64_t t = getNumTokens(), k = getTopK(), e = getNumExperts();
  double tokens = static_cast<double>(t);
  // Chance that one token routes to an expert of load fraction p: each token
  // picks k distinct experts, so q = min(1, k * p).
  auto activeChance = [&](double p) {
    double q = std::min(1.0, static_cast<double>(k) * p);
    return 1.0 - std::pow(1.0 - q, tokens);
  };
  ExpertLoadAttr load = getLoad();
  double expected;
  ArrayRef<double> hist = load.getWeightValues();
  if (load.getKind() == LoadKind::Uniform ||
      static_cast<int64_t>(hist.size()) != e) {
    // Closed form (E may be large): every expert has p = 1/E.
    expected = static_cast<double>(e) * activeChance(1.0 / e);
  } else {
    double sum = 0;
    for (double w : hist)
      sum += w;
    expected = 0;
    for (double w : hist)
      expected += activeChance(w / sum);
  }
  int64_t active = static_cast<int64_t>(std::llround(expected));
  // At least the k distinct experts of one token, at most all of them.
  return std::clamp<int64_t>(active, std::min(k, e), e);
}

Work MoEExpertsOp::computeWork() {
  Work w;
  Count t = Count::fromSigned(getNumTokens());
  Count d = Count::fromSigned(getModelDim());
  Count k = Count::fromSigned(getTopK());
  Count e = Count::fromSigned(getNumExperts());
  Count f = Count::fromSigned(getFfnDim());
  Count s = hasShared() ? Count(1) : Count(0);
  Count fs =
      hasShared() ? getNumElements(getSharedGate().getType()) / d : Count(0);
  // gate, up ([F, D] each) and down ([D, F]) per (token, expert) assignment,
  // plus the shared expert once per token.
  w.matrixFlops = Count(2 * 3) * t * k * d * f + Count(2 * 3) * t * d * fs;
  // silu(g) = g / (1 + exp(-g)): one exp per intermediate element.
  w.transcendentalFlops = t * k * f + t * fs;
  // silu's add and divide plus the gating multiply per intermediate element;
  // each expert output scaled by its routing weight (D muls per assignment);
  // the k outputs (and the shared output) summed: D*(k-1+s) adds per token.
  // GPT-OSS's clamped SwiGLU: 3 clamps, 1.702 g, the sigmoid's add and
  // divide, u + 1 and the multiply.
  Count act = getSwigluLimitAttr() ? Count(8) : Count(3);
  w.vectorFlops = act * t * k * f + Count(3) * t * fs + t * k * d +
                  t * d * (k - Count(1) + s);
  if (hasBiases()) // + bg, + bu per intermediate element, + bd per output
    w.vectorFlops += t * k * (Count(2) * f + d);
  // Every expert's weights are parameters the chip holds; only the active
  // experts' weights are read.
  SmallVector<Value> allWeights(getRoutedParams());
  if (hasShared())
    allWeights.append({getSharedGate(), getSharedUp(), getSharedDown()});
  for (Value v : allWeights)
    if (isParameter(v))
      w.paramBytes += getNumBytes(v);
  Count routedBytes;
  for (Value v : getRoutedParams())
    routedBytes += getNumBytes(v);
  Count perExpert = routedBytes / e;
  Count active = Count::fromSigned(getExpectedActiveExperts());
  w.bytesRead = getNumBytes(getX()) + getNumBytes(getIndices()) +
                getNumBytes(getWeights()) + active * perExpert;
  if (hasShared())
    w.bytesRead += getNumBytes(getSharedGate()) + getNumBytes(getSharedUp()) +
                   getNumBytes(getSharedDown());
  w.bytesWritten = getNumBytes(getResult());
  return w;
}
