//===- DecideFusion.cpp - the npu-decide-fusion pass ----------------------===//
//
// Finds candidate groups by pattern (MLA absorbed, attention, gated MLP, MoE,
// GEMM with prologue/epilogue, stream chains) and keeps a multi-op candidate
// only if the target's cost model prices the fused kernel no slower than its
// parts. Writes #npu.fusion; npu-form-kernels applies it.
//
//===----------------------------------------------------------------------===//

#include "npu/Analysis/KernelCost.h"
#include "npu/Dialect/Npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::npu {
#define GEN_PASS_DEF_NPUDECIDEFUSION
#include "npu/Dialect/Npu/Transforms/Passes.h.inc"
} // namespace mlir::npu

using namespace mlir;
using namespace mlir::npu;

static constexpr StringLiteral kFusionAttr = "npu.fusion";

namespace {
/// The single user of `v`, if it has exactly one use.
Operation *getSingleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

bool isNorm(Operation *op) {
  return isa_and_nonnull<RMSNormOp, LayerNormOp>(op);
}
bool isEpilogue(Operation *op) {
  return isa_and_nonnull<AddOp, MulOp, SiluOp, GeluOp, SoftcapOp, ConvertOp>(
      op);
}
bool isLayout(Operation *op) {
  return isa_and_nonnull<ReshapeOp, TransposeOp, ConcatOp>(op);
}

class Decider {
public:
  Decider(const CostModel &costModel, int64_t &nextGroup, bool fuse)
      : costModel(costModel), nextGroup(nextGroup), fuse(fuse) {}

  void run(func::FuncOp func) {
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front())
      if (doesWork(&op)) {
        ops.push_back(&op);
        if (auto fusion = op.getAttrOfType<FusionAttr>(kFusionAttr))
          groupOf[&op] = fusion.getGroup(); // hand-written decision
      }
    if (!fuse) { // fusion=none: every op its own kernel
      for (Operation *op : ops)
        if (!assigned(op))
          commit(getDefaultKernelKind(op), {op});
      return;
    }
    for (Operation *op : ops)
      if (auto attn = dyn_cast<AttentionOp>(op); attn && !assigned(op))
        if (!tryMla(attn))
          proposeAttention(attn);
    for (Operation *op : ops)
      if (auto s = dyn_cast<SwigluOp>(op); s && !assigned(op))
        tryGatedMlp(s);
    for (Operation *op : ops)
      if (isa<MoEExpertsOp>(op) && !assigned(op))
        propose(KernelKind::MoeFfn, {op});
    for (Operation *op : ops)
      if (auto mm = dyn_cast<MatmulOp>(op); mm && !assigned(op))
        tryGemm(mm);
    for (Operation *op : ops)
      if (!assigned(op))
        tryStream(op);
    for (Operation *op : ops)
      if (!assigned(op))
        commit(getDefaultKernelKind(op), {op});
  }

private:
  bool assigned(Operation *op) const { return groupOf.count(op); }
  bool anyAssigned(ArrayRef<Operation *> ops) const {
    return llvm::any_of(ops, [&](Operation *op) { return assigned(op); });
  }

  /// Keeps `ops` as one kernel of `kind` if it is one op, or if the model
  /// finds a fitting tile and prices it no slower than the ops apart.
  bool propose(KernelKind kind, SmallVector<Operation *> ops) {
    if (ops.empty() || anyAssigned(ops))
      return false;
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    if (ops.size() > 1) {
      FailureOr<KernelModel> fused = describeKernel(kind, ops);
      if (failed(fused))
        return false;
      std::optional<double> fusedNs = costModel.estimateNs(*fused);
      if (!fusedNs)
        return false;
      double partsNs = 0;
      for (Operation *op : ops) {
        if (!doesWork(op))
          continue;
        FailureOr<KernelModel> part =
            describeKernel(getDefaultKernelKind(op), {op});
        std::optional<double> ns =
            succeeded(part) ? costModel.estimateNs(*part) : std::nullopt;
        if (!ns)
          return commit(kind, ops); // a part alone does not even fit
        partsNs += *ns;
      }
      if (*fusedNs > partsNs * (1 + 1e-9))
        return false;
    }
    return commit(kind, ops);
  }

  bool commit(KernelKind kind, ArrayRef<Operation *> ops) {
    llvm::SmallPtrSet<Operation *, 8> inGroup(ops.begin(), ops.end());
    // Saved traffic: every intermediate written once and read by each
    // consumer, all of which are in the group.
    Count saved;
    for (Operation *op : ops) {
      if (!doesWork(op))
        continue;
      for (Value r : op->getResults()) {
        if (r.use_empty() || !llvm::all_of(r.getUsers(), [&](Operation *u) {
              return inGroup.contains(u);
            }))
          continue;
        int64_t uses = std::distance(r.getUses().begin(), r.getUses().end());
        saved += getNumBytes(r) * Count(1 + uses);
      }
    }
    int64_t savedBytes = saved.toInt64().value_or(0);
    int64_t group = nextGroup++;
    auto attr = FusionAttr::get(costModel.getTarget().getContext(), group, kind,
                                savedBytes);
    for (Operation *op : ops) {
      groupOf[op] = group;
      op->setAttr(kFusionAttr, attr);
    }
    return true;
  }

  /// q_nope x W_UK -> layout ops -> latent attention -> layout ops ->
  /// o_lat x W_UV.
  bool tryMla(AttentionOp attn) {
    if (!attn.isLatent())
      return false;
    // Backwards from the query through single-use layout ops to a matmul.
    MatmulOp absorbQ;
    SmallVector<Value> work = {attn.getQuery()};
    while (!work.empty() && !absorbQ) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || !v.hasOneUse())
        continue;
      if (auto mm = dyn_cast<MatmulOp>(def)) {
        absorbQ = mm;
      } else if (isLayout(def)) {
        for (Value operand : def->getOperands())
          work.push_back(operand);
      }
    }
    if (!absorbQ)
      return false;
    // The path from the matmul to the query; layout ops on other concat
    // operands (q_pe) stay outside.
    llvm::SetVector<Operation *> path;
    path.insert(attn);
    for (Value v = absorbQ.getResult(); v != attn.getQuery();) {
      Operation *user = getSingleUser(v);
      if (!user || !(isLayout(user) || user == attn))
        return false;
      if (user == attn)
        break;
      path.insert(user);
      v = user->getResult(0);
    }
    path.insert(absorbQ);
    // Forwards from the output through layout ops to the W_UV matmul.
    Value v = attn.getResult();
    Operation *user = getSingleUser(v);
    while (user && isa<ReshapeOp, TransposeOp>(user)) {
      path.insert(user);
      v = user->getResult(0);
      user = getSingleUser(v);
    }
    auto absorbO = dyn_cast_or_null<MatmulOp>(user);
    if (!absorbO || absorbO.getLhs() != v)
      return false;
    path.insert(absorbO);
    return propose(KernelKind::MlaAbsorbed, path.takeVector());
  }

  /// Flash-style attention with the layout ops around it (head splits,
  /// transposes, the concat of the rope and no-rope parts, the broadcast of
  /// a shared rope key): a TPU kernel reads them with strided DMAs instead
  /// of materializing each layout in HBM.
  void proposeAttention(AttentionOp attn) {
    llvm::SetVector<Operation *> group;
    group.insert(attn);
    SmallVector<Value> work(attn->getOperands());
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || !v.hasOneUse() || assigned(def) ||
          !isa<ReshapeOp, TransposeOp, ConcatOp, BroadcastOp>(def))
        continue;
      group.insert(def);
      work.append(def->getOperands().begin(), def->getOperands().end());
    }
    Value v = attn.getResult();
    while (Operation *user = getSingleUser(v)) {
      if (!isa<ReshapeOp, TransposeOp>(user) || assigned(user))
        break;
      group.insert(user);
      v = user->getResult(0);
    }
    if (!propose(KernelKind::Attention, group.takeVector()))
      propose(KernelKind::Attention, {attn});
  }

  void tryGatedMlp(SwigluOp s) {
    auto gate = s.getOperand(0).getDefiningOp<MatmulOp>();
    auto up = s.getOperand(1).getDefiningOp<MatmulOp>();
    if (!gate || !up || gate == up || gate.getLhs() != up.getLhs() ||
        !gate.getResult().hasOneUse() || !up.getResult().hasOneUse())
      return;
    auto down = dyn_cast_or_null<MatmulOp>(getSingleUser(s.getResult()));
    if (!down || down.getLhs() != s.getResult())
      return;
    SmallVector<Operation *> group = {gate, up, s, down};
    Operation *norm = gate.getLhs().getDefiningOp();
    if (isNorm(norm) && llvm::all_of(norm->getUsers(), [&](Operation *u) {
          return u == gate || u == up;
        }))
      group.push_back(norm);
    if (auto add = dyn_cast_or_null<AddOp>(getSingleUser(down.getResult())))
      group.push_back(add);
    if (!propose(KernelKind::GatedMlp, group) && group.size() > 4) {
      group.resize(4); // without the prologue and epilogue
      propose(KernelKind::GatedMlp, group);
    }
  }

  void tryGemm(MatmulOp mm) {
    SmallVector<Operation *> group = {mm};
    Operation *norm = mm.getLhs().getDefiningOp();
    if (isNorm(norm) && !assigned(norm)) {
      SmallVector<Operation *> withNorm = {norm};
      bool allMatmuls = true;
      for (Operation *u : norm->getUsers()) {
        auto other = dyn_cast<MatmulOp>(u);
        if (!other || assigned(u) || other.getLhs() != mm.getLhs() ||
            other.getTransposeRhs() != mm.getTransposeRhs()) {
          allMatmuls = false;
          break;
        }
        if (!llvm::is_contained(withNorm, u))
          withNorm.push_back(u);
      }
      if (allMatmuls && propose(KernelKind::Gemm, withNorm))
        return;
    }
    // Epilogue: single-use elementwise ops of the matmul's shape.
    Value v = mm.getResult();
    while (Operation *user = getSingleUser(v)) {
      if (!isEpilogue(user) || assigned(user) ||
          cast<ShapedType>(user->getResult(0).getType()).getShape() !=
              mm.getType().getShape())
        break;
      group.push_back(user);
      v = user->getResult(0);
    }
    while (group.size() > 1 && !propose(KernelKind::Gemm, group))
      group.pop_back();
    if (group.size() == 1)
      commit(KernelKind::Gemm, group);
  }

  /// Joins a row-wise op to the stream group of its single-use producer.
  void tryStream(Operation *op) {
    KernelKind kind = getDefaultKernelKind(op);
    if (kind != KernelKind::Stream)
      return;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || !operand.hasOneUse() || !assigned(def))
        continue;
      auto fusion = def->getAttrOfType<FusionAttr>(kFusionAttr);
      if (!fusion || fusion.getKind() != KernelKind::Stream)
        continue;
      auto a = cast<ShapedType>(operand.getType());
      if (op->getNumResults() != 1 ||
          cast<ShapedType>(op->getResult(0).getType()).getNumElements() !=
              a.getNumElements())
        continue;
      SmallVector<Operation *> members;
      for (auto [member, g] : groupOf)
        if (g == fusion.getGroup())
          members.push_back(member);
      members.push_back(op);
      // Re-propose the larger group: release the old one first.
      for (Operation *m : members)
        groupOf.erase(m);
      if (propose(KernelKind::Stream, members))
        return;
      for (Operation *m : members)
        if (m != op) {
          groupOf[m] = fusion.getGroup();
          m->setAttr(kFusionAttr, fusion);
        }
    }
  }

  const CostModel &costModel;
  int64_t &nextGroup;
  bool fuse;
  llvm::DenseMap<Operation *, int64_t> groupOf;
};

struct NpuDecideFusionPass
    : public npu::impl::NpuDecideFusionBase<NpuDecideFusionPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (fusion != "cost" && fusion != "none") {
      mlir::emitError(module.getLoc())
          << "npu-decide-fusion: fusion must be 'cost' or "
             "'none', got '"
          << fusion << "'";
      return signalPassFailure();
    }
    FailureOr<std::unique_ptr<CostModel>> costModel =
        getModuleCostModel(module, "npu-decide-fusion");
    if (failed(costModel))
      return signalPassFailure();
    // Group ids are unique in the module; hand-written ones are kept.
    int64_t next = 0;
    module.walk([&](Operation *op) {
      if (auto f = op->getAttrOfType<FusionAttr>(kFusionAttr))
        next = std::max(next, f.getGroup() + 1);
    });
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        Decider(**costModel, next, fusion == "cost").run(func);
  }
};
} // namespace
