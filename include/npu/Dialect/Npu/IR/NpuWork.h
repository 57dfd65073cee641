//===- NpuWork.h - overflow-checked work counts ------------------*- C++
//-*-===//
//
// The value type of NpuWorkOpInterface: FLOPs by kind and bytes moved, as
// unsigned 64-bit counts that remember overflow instead of wrapping around.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_IR_NPUWORK_H
#define NPU_DIALECT_NPU_IR_NPUWORK_H

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include <cstdint>
#include <optional>

namespace mlir {
class Operation;
namespace npu {

/// An unsigned 64-bit count that becomes "overflowed" (and stays so) when an
/// addition or multiplication does not fit, instead of wrapping around.
class Count {
public:
  Count() = default;
  /*implicit*/ Count(uint64_t value) : val(value) {}
  static Count overflowed() {
    Count c;
    c.overflow = true;
    return c;
  }
  /// From a signed quantity (a tensor dimension); negative counts overflow.
  static Count fromSigned(int64_t value) {
    return value < 0 ? overflowed() : Count(static_cast<uint64_t>(value));
  }

  bool isOverflow() const { return overflow; }
  /// The value; only meaningful when !isOverflow().
  uint64_t value() const { return val; }
  /// The value as a signed 64-bit integer (what attributes and JSON hold);
  /// nullopt if it overflowed or exceeds INT64_MAX.
  std::optional<int64_t> toInt64() const {
    if (overflow || val > static_cast<uint64_t>(INT64_MAX))
      return std::nullopt;
    return static_cast<int64_t>(val);
  }

  friend Count operator+(Count a, Count b);
  friend Count operator-(Count a, Count b); // underflow counts as overflow
  friend Count operator*(Count a, Count b);
  /// Floor division; division by zero counts as overflow.
  friend Count operator/(Count a, Count b);
  Count &operator+=(Count b) { return *this = *this + b; }
  Count &operator*=(Count b) { return *this = *this * b; }
  bool operator==(const Count &o) const {
    return overflow == o.overflow && (overflow || val == o.val);
  }

private:
  uint64_t val = 0;
  bool overflow = false;
};

/// The work of one op (or the sum over many). See NpuWorkOpInterface for the
/// conventions.
struct Work {
  Count matrixFlops;         ///< 2 per multiply-accumulate in a dot product
  Count vectorFlops;         ///< element-wise arithmetic, compares, reductions
  Count transcendentalFlops; ///< exp, tanh, erf, sin, cos, rsqrt, ...
  Count bytesRead;           ///< minimum bytes read from memory
  Count bytesWritten;        ///< minimum bytes written to memory
  Count paramBytes;          ///< bytes of parameter (weight) operands

  Count totalFlops() const {
    return matrixFlops + vectorFlops + transcendentalFlops;
  }
  bool isOverflow() const;
  Work &operator+=(const Work &o);
};

//===----------------------------------------------------------------------===//
// Helpers shared by the ops' computeWork implementations.
//===----------------------------------------------------------------------===//

/// Bytes of one element of `type` (fp8 = 1, bf16 = 2, f32 = 4, i64 = 8).
uint64_t getElementBytes(Type type);
/// Product of the static dimensions of a shaped type (overflow-checked).
Count getNumElements(Type shapedType);
/// Total bytes of a shaped type (4-bit elements two per byte).
Count getNumBytes(Type shapedType);
/// Total bytes of a shaped value: its type's, except for the result of
/// npu.dequantize, never stored, whose bytes are its stored values' and
/// scales'.
Count getNumBytes(Value value);
/// Whether `value` is a model parameter: produced by `npu.weight`, a
/// function argument carrying the unit attribute `npu.param`, or a view
/// (`npu.reshape`, `npu.slice`) of one.
bool isParameter(Value value);
/// Default data movement: read every distinct operand once (`mul %x, %x`
/// reads x once), write every result; operands that are parameters are added
/// to paramBytes.
Work getOperandResultTraffic(Operation *op);

} // namespace npu
} // namespace mlir

#endif // NPU_DIALECT_NPU_IR_NPUWORK_H
