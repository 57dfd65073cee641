//===- Interconnect.h - how a chip talks to other chips ---------*- C++ -*-===//
//
// The optional "interconnect" object of a target file: the chip's scale-up
// network (TPU ICI torus links, GPU NVLink through NVSwitch) and its scale-out
// network (data-centre network / NIC). A chip without it is a single-chip
// target; a system of several chips (System.h) needs it.
//
// Both levels have the same fields, read the same way:
//
//   per chip, per direction = links_per_chip x
//   link_bandwidth_bytes_per_s_per_direction
//
// On a torus, each link goes to one neighbour: links_per_chip is 2 per torus
// dimension (4 on a 2-D torus, 6 on a 3-D one). Behind a switch, every link of
// a chip reaches every other chip of the domain through the switch, so the
// chip's whole bandwidth is usable to any peer.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TARGET_INTERCONNECT_H
#define NPU_TARGET_INTERCONNECT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::npu::target {

/// How the chips of one level are wired.
enum class LinkTopology {
  /// Point-to-point links to neighbours along each axis of a 2-D or 3-D mesh,
  /// with or without wraparound (TPU ICI).
  Torus,
  /// Every chip has links into a switch that reaches every other chip of the
  /// domain at the chip's full bandwidth (NVSwitch, an InfiniBand fabric with
  /// full bisection).
  Switch,
};

llvm::StringRef stringifyLinkTopology(LinkTopology topology);

/// One level of the network (scale-up or scale-out).
struct LinkLevel {
  LinkTopology topology = LinkTopology::Switch;
  /// Links per chip on this level: 2 per torus dimension, or a switch-attached
  /// chip's link (or NIC) count.
  int64_t linksPerChip = 0;
  /// One direction of one link: the quoted (line) rate.
  double linkBytesPerSPerDirection = 0;
  /// What a collective's payload sustains on it, after protocol overhead (the
  /// cost models' figure); at most the quoted rate.
  double sustainedLinkBytesPerSPerDirection = 0;
  /// Torus: one hop (chip to neighbour). Switch: one step of a collective
  /// (chip to switch to chip).
  double latencyNs = 0;
  /// Fixed cost of one collective (launch, synchronisation), paid once.
  double baseLatencyNs = 0;
  /// Most chips on this level: pod size, or switch domain size.
  int64_t maxChips = 0;
  /// Switch only: the fraction of the chip's sustained link bandwidth an
  /// all-reduce reduced in the switch (NVLink SHARP) keeps; 0 where the
  /// switch cannot reduce.
  double inNetworkReductionEfficiency = 0;
  /// Compute units (SMs, TensorCores) a collective's kernel occupies while it
  /// runs beside compute; 0 where DMA engines move the data.
  int64_t computeUnitsPerCollective = 0;

  bool canReduceInNetwork() const { return inNetworkReductionEfficiency > 0; }

  /// All links of a chip, one direction, at the sustained rate.
  double chipBytesPerSPerDirection() const {
    return static_cast<double>(linksPerChip) *
           sustainedLinkBytesPerSPerDirection;
  }
  /// Torus dimensions the links allow (links / 2); 0 for a switch.
  int64_t maxTorusDims() const {
    return topology == LinkTopology::Torus ? linksPerChip / 2 : 0;
  }
};

/// The "interconnect" object of a target file.
struct Interconnect {
  LinkLevel scaleUp;
  std::optional<LinkLevel> scaleOut;
};

/// Which level a field belongs to, and the JSON type of its value.
enum class LinkFieldType { Topology, Integer, Count, Real, Fraction };

/// One field of a level, e.g. "link_bandwidth_bytes_per_s_per_direction".
struct LinkField {
  llvm::StringRef name;
  LinkFieldType type;
  llvm::StringRef unit;
  llvm::StringRef meaning;
};

/// Every field of a level, in file order.
llvm::ArrayRef<LinkField> getLinkFields();

/// The level's names in a file, "scale_up" and "scale_out".
inline constexpr llvm::StringRef kScaleUp = "scale_up";
inline constexpr llvm::StringRef kScaleOut = "scale_out";

/// Reads `value` (the "interconnect" object of the file `path`) into `out`,
/// and appends the path of every field present, e.g.
/// "interconnect.scale_up.latency_ns", to `fieldPaths` in file order (each
/// needs an entry in the file's "sources"). Errors read
/// "<path>: <what is wrong, naming the field>".
llvm::Error readInterconnect(const llvm::json::Value &value,
                             llvm::StringRef path, Interconnect &out,
                             std::vector<std::string> &fieldPaths);

/// The value of the field at `path` ("interconnect.scale_up.latency_ns") as
/// printed, and its unit; nullopt when the path names no field present.
std::optional<std::pair<std::string, llvm::StringRef>>
formatInterconnectField(const Interconnect &interconnect, llvm::StringRef path);

/// The object as a file has it (the inverse of readInterconnect).
llvm::json::Value toJSON(const Interconnect &interconnect);

} // namespace mlir::npu::target

#endif // NPU_TARGET_INTERCONNECT_H
