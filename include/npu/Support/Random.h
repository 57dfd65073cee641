//===- Random.h - seeded draws, the same with any library ----*- C++ -*-===//
//
// Seeded scenarios (ragged decode lengths, serving traces) must give the
// same numbers with any standard library: mt19937_64's raw output is fixed
// by the standard, std::*_distribution's algorithms are not. These draws
// use the raw output only (and libm, to its last bit).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_RANDOM_H
#define NPU_SUPPORT_RANDOM_H

#include <cmath>
#include <random>

namespace mlir::npu {

/// Uniform in [0, 1) from the top 53 bits of one raw draw.
inline double drawUnit(std::mt19937_64 &rng) {
  return double(rng() >> 11) * 0x1.0p-53;
}

/// Standard normal by Box-Muller (one of the pair; two raw draws).
inline double drawNormal(std::mt19937_64 &rng) {
  double u1 = 1.0 - drawUnit(rng), u2 = drawUnit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

} // namespace mlir::npu

#endif // NPU_SUPPORT_RANDOM_H
