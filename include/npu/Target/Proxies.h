//===- Proxies.h - energy and area proxies of a chip ------------*- C++ -*-===//
//
// npu-target/proxies/energy-area.json: energy per operation and per byte,
// static power and area per unit of a 5/4 nm-class node, each with its
// source; what npu-sweep adds to a point (energy per step, an area proxy,
// tokens per joule). docs/design-space.md, "Energy and area".
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TARGET_PROXIES_H
#define NPU_TARGET_PROXIES_H

#include "npu/Dialect/Npu/IR/NpuOps.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mlir::npu::target {

struct Proxies {
  /// Energy per matrix FLOP (padded FLOPs are charged) by dtype, pJ.
  double matrixPjPerFlopBf16 = 0, matrixPjPerFlopFp8 = 0,
         matrixPjPerFlopFp32 = 0;
  /// Per byte of SRAM (each HBM byte written and read once) and of HBM, pJ.
  double sramPjPerByte = 0, hbmPjPerByte = 0;
  /// Static power per mm2 of the area proxy, W.
  double staticWPerMm2 = 0;
  /// Area: per bf16 MAC cell (um2), per MiB of SRAM, per SM, per HBM PHY
  /// (mm2); the bandwidth of one HBM stack (its PHYs: bandwidth / this).
  double macUm2Bf16 = 0, sramMm2PerMiB = 0, smMm2 = 0, hbmPhyMm2 = 0,
         hbmStackBytesPerS = 0;
};

/// The file `proxies/energy-area.json` of getDefaultTargetDir(), or
/// `path`; every field present, positive and sourced, nothing else.
llvm::Expected<Proxies> loadProxies(llvm::StringRef path = "");

/// A chip's area proxy, mm2: its matrix units (TPU-like: cores x units x
/// width^2 MAC cells) or SMs (GPU-like), its on-chip SRAM (VMEM; L2 and
/// shared memory) and its HBM PHYs. Not I/O, the network on chip, control.
double getAreaMm2(const Proxies &p, TargetAttr target);

/// One step's energy, J: the padded matrix FLOPs at the dtype's energy,
/// HBM bytes and as many SRAM writes and reads, and static power over the
/// step's time on `areaMm2`.
double getStepEnergyJ(const Proxies &p, double areaMm2, double timeNs,
                      double paddedFlops, double hbmBytes,
                      llvm::StringRef matrixDtype);

} // namespace mlir::npu::target

#endif // NPU_TARGET_PROXIES_H
