#!/usr/bin/env python3
"""Writes docs/parallelism.md: the course's map of parallelism (issue 25).

    python3 scripts/parallelism.py

For DeepSeek-V3 and Llama-3-70B, prefill of 4096 tokens and decode of a batch
of 64 (4096 tokens of context), imports each config, runs
`npu-opt --npu-report-parallel-map="system=S format=json"` on a GPU-like
system (16xh200: two HGX nodes) and a TPU-like one (tpu-v7-2x4x4x4: two
cubes over DCN), and `--npu-report-bill` for the step's roofline on one chip,
and writes the tables. Python standard library only; needs build/bin.
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("NPU_BIN", os.path.join(ROOT, "build", "bin"))
OUT = os.path.join(ROOT, "docs", "parallelism.md")

MODELS = [("DeepSeek-V3", "examples/configs/deepseek-v3.json", "fp8"),
          ("Llama-3-70B", "examples/configs/llama-3-70b.json", "bf16")]
PHASES = [("prefill", ["--phase=prefill", "--seq-len=4096"]),
          ("decode", ["--phase=decode", "--batch=64", "--context-len=4096"])]
SYSTEMS = ["16xh200", "tpu-v7-2x4x4x4"]
# One step of DeepSeek-V3 (fp8 weights) on a system per side, each side's
# best split (npu-compare --systems --split=auto).
STEP_PAIRS = ["tpu-v7-4x4x4,8xh200", "tpu-v7-4x4x4,72xgb300",
              "tpu-v7-4x4x4,32xh800"]
STEP_PHASES = [("prefill", "one 4096-token prompt per chip",
                ["--phase=prefill", "--seq-len=4096", "--batch-per-chip=1"]),
               ("decode", "32 sequences per chip, 4096 tokens of context",
                ["--phase=decode", "--context-len=4096",
                 "--batch-per-chip=32"])]


def run(argv, stdin=None):
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True,
                       cwd=ROOT)
    if p.returncode:
        sys.exit(f"parallelism.py: {' '.join(argv)} failed:\n{p.stderr}")
    return p.stdout


def fmt_bytes(b):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B"


def fmt_time(s):
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} us"


def section(name, config, wdtype, phase, flags, system):
    module = run([os.path.join(BIN, "npu-translate"), "--import-hf-config",
                  config, f"--weight-dtype={wdtype}"] + flags)
    report = json.loads(run([os.path.join(BIN, "npu-opt"), "-",
                             f"--npu-report-parallel-map=system={system} "
                             "format=json", "-o", "/dev/null"], module))
    sysinfo = json.loads(run([os.path.join(BIN, "npu-system"), system,
                              "--json"]))
    bill = json.loads(run([os.path.join(BIN, "npu-opt"), "-",
                           f"--npu-report-bill=target={sysinfo['chip']} "
                           "format=json", "-o", "/dev/null"], module))
    roof = bill["total"]["roofline_seconds"]
    m = report["model"]
    out = [f"### {name}, {phase}, on {system} ({sysinfo['chips']} x "
           f"{sysinfo['chip']})", "",
           f"T = {m['tokens']} tokens, D = {m['hidden']}, "
           f"{m['activation_bytes']} B per activation, {m['layers']} layers"
           + (f" ({m['moe_layers']} MoE, top-{m['top_k']} of "
              f"{m['experts']})" if m["moe_layers"] else "")
           + f", kv {m['kv_bytes_per_token_per_layer']} B per token per "
           f"layer, {m['parameters'] / 1e9:.1f}e9 parameters ({wdtype} "
           f"weights). The step's roofline on one {sysinfo['chip']}: "
           f"{fmt_time(roof)}.", "",
           "| dimension | when | collective | what moves | frequency | level "
           "(chips) | V per occurrence | per step | time per occurrence | "
           "time per step | vs roofline / chips |",
           "|---|---|---|---|---|---|---:|---:|---:|---:|---:|"]
    for r in report["rows"]:
        for lv in r["levels"]:
            share = ("-" if r["when"] == "training" else
                     f"{lv['seconds_per_step'] / (roof / lv['chips']):.2f}")
            out.append(f"| {r['dimension']} | {r['when']} | "
                       f"{r['collective']} | {r['what']} | {r['frequency']} | "
                       f"{lv['level']} {lv['axes']} ({lv['chips']}) | "
                       f"{fmt_bytes(lv['bytes'])} | {lv['per_step']} | "
                       f"{fmt_time(lv['seconds_per_occurrence'])} | "
                       f"{fmt_time(lv['seconds_per_step'])} | {share} |")
    return out + [""]


def per_kernel_table(d):
    """Each side's best split: its collectives beside their kernels, per
    layer run, summed over the micro-batches in flight (the kernel: one
    micro-batch's, as compiled for it)."""
    out = ["| side | layer | beside | kernel (one micro-batch) | collective | comm | hidden | "
           "exposed | per step |", "|---|---|---|---:|---|---:|---:|---:|---:|"]
    for side in ("tpu", "gpu"):
        b = d[side]["best"]
        for k in b["per_kernel"]:
            out.append(f"| {side.upper()}-like ({b['micro_batches_in_flight']}"
                       f" in flight) | {k['function']} | {k['kernel']} | "
                       f"{fmt_time(k['kernel_seconds'])} | {k['collective']} | "
                       f"{fmt_time(k['seconds'])} | "
                       f"{fmt_time(k['hidden_seconds'])} | "
                       f"{fmt_time(k['exposed_seconds'])} | {k['per_step']} |")
    return out + [""] if len(out) > 2 else []


def step_section():
    out = ["## One step of DeepSeek-V3 on a system, both sides", "",
           "`npu-compare --systems=<TPU-like system>,<GPU-like system> "
           "--split=auto` (lib/npu/Compare/MultiChip.cpp): each side "
           "compiles the model one chip runs under each split (dp x tp x "
           "cp x pp = chips; ep over a stage's chips with data-parallel "
           "attention, as DeepSeek-V3 is served) with its own backend, keeps the splits "
           "whose bill fits the chip's HBM, adds the split's collectives "
           "(priced on the groups laid innermost first on the system's "
           "axes) and schedules them beside the kernels they belong to, "
           "layer by layer (lib/npu/Compare/LayerSchedule.cpp):", "",
           "- **Placement.** A tensor-parallel all-reduce follows the "
           "attention's output projection (the first GEMM after the "
           "attention kernel) and the FFN (the last FFN-like kernel); an "
           "expert dispatch precedes the MoE kernel and the combine follows "
           "it. The next kernel of the same micro-batch waits for it.",
           "- **Resources.** The chip's compute runs one kernel at a time; "
           "each collective group has its own link, one collective at a "
           "time. A layer is scheduled three times in a row and the last "
           "run is kept (the steady state: one layer's trailing collective "
           "beside the next layer's first kernels).",
           "- **One micro-batch or two, whichever step is shorter**, on "
           "each side, where the step splits in two (the chip's sequences "
           "in two halves, or one prompt's tokens in two chunks): the half "
           "is imported and compiled on its own, and with two micro-batches "
           "each runs the half's kernels at their compiled times (a "
           "weight-bound kernel, a decode's expert FFN, takes about as long "
           "for half the tokens: its weights are read again) while each "
           "sends its half of every collective, one's collective beside "
           "the other's compute, segment by segment (DeepEP's two "
           "micro-batches, as DeepSeek runs prefill and decode; on the "
           "TPU-like side the same interleaving in the compiler's static "
           "schedule). Two win where communication dominates and lose "
           "where a second pass over the weights costs more than it hides "
           "(`micro_batches_in_flight` in the JSON; `N in flight` below, "
           "where the kernel column is one micro-batch's). [A] A prompt "
           "cut in two chunks prices the second chunk's attention without "
           "the first chunk's keys (optimistic for long prompts); an odd "
           "number of sequences prices both halves as the larger. Until "
           "2026-12-07 both sides always ran two, each kernel at half the "
           "whole step's time, which flattered weight-bound decode.",
           "- **TPU-like (the compiler decides)**: every collective is "
           "asynchronous (XLA's async collectives). With one micro-batch it "
           "runs beside the kernel it is decomposed with: collective matmul "
           "for a tensor-parallel all-reduce (the projection before it), a "
           "fused expert-parallel MoE kernel for the dispatch and combine "
           "(tpu-inference's): only what exceeds that kernel is exposed. "
           "The ICI DMA engines move the data: no TensorCore is held.",
           "- **GPU-like (the runtime decides)**: tensor-parallel "
           "all-reduces run on the stream between kernels (vLLM and "
           "SGLang's default): fully exposed. Expert all-to-alls run beside "
           "the other micro-batch's compute; with one micro-batch the MoE "
           "kernel waits for them. While they run, DeepEP's kernels hold "
           "some SMs (12 of 132 on Hopper, 24 on Blackwell: the chip file's "
           "`compute_units_per_collective`), so the compute beside them "
           "takes 1/(1-f) as long (the `cores shared` time).", "",
           "`exposed` is the time the chip's compute waits for a "
           "collective (or runs one, on the GPU-like stream), summed over "
           "the layers; the per-kernel tables below give it for each "
           "collective beside its kernel, and `npu-compare --systems ... "
           "--trace-dir=DIR` draws the step (systems-tpu-trace.json, "
           "systems-gpu-trace.json: one Perfetto track for the chip's "
           "compute and one per collective group).", "",
           "Pipeline stages (pp): a chip runs the last of pp stages "
           "(ceil(L/pp) layers and the head, the slowest; it takes the "
           "residual stream from the stage before, so it holds no "
           "embedding table: `npu-translate --from-hidden`), the replica's "
           "batch cut in micro-batches (one sequence each in a prefill, up "
           "to pp in a decode); a prefill fills and drains the pipeline in "
           "m + pp - 1 micro-batch times, a decode step keeps it full in "
           "max(m, pp); a stage sends each micro-batch's residual to the "
           "next over the system's outermost axis, as a copy beside the "
           "next micro-batch's compute (no SM held, on either side). The "
           "HBM check counts every micro-batch's KV cache. Stages are "
           "searched only where no split without them fits: in place of "
           "replicas they never speed an inference step (the bubble; a "
           "decode reads each stage's weights once per micro-batch), so "
           "they are memory relief. This is a heuristic: stages could still "
           "beat a different split with heavy tensor-parallel traffic, "
           "which the search then does not try.", "",
           "Weights are fp8, the KV cache bf16. `tokens/s/chip` is the "
           "system's tokens per step / step time / chips. Context "
           "parallelism (cp: a prefill's prompts cut over cp chips, ring "
           "attention; tp = 1) is searched at cp = 2, 4 and 8: the chip "
           "compiles T/cp tokens of each prompt, its attention kernels take "
           "cp times as long (the ring gives each chip cp times the causal "
           "work of T/cp tokens, balanced by a zigzag order; [A] the time "
           "scales with the work), and each layer passes the chip's K/V "
           "cp - 1 hops round the ring beside the attention's blocks, on "
           "both sides. Experts that do not divide "
           "evenly over the EP chips are rounded up per chip (redundant "
           "experts fill the slots, as in DeepSeek's deployment).", ""]
    for phase, what, flags in STEP_PHASES:
        for pair in STEP_PAIRS:
            d = json.loads(run([os.path.join(BIN, "npu-compare"),
                                "--config=examples/configs/deepseek-v3.json",
                                "--weight-dtype=fp8", f"--systems={pair}",
                                "--format=json"] + flags))
            out += [f"### {phase} ({what}): {pair.replace(',', ' vs ')}", "",
                    "| side | system | chips | best split | compute | "
                    "collectives | exposed | cores shared | step | "
                    "tokens/s/chip | HBM per chip |",
                    "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
            for side in ("tpu", "gpu"):
                x, b = d[side], d[side]["best"]
                out.append(f"| {side.upper()}-like | {x['system']} | "
                           f"{x['chips']} | {b['split']} | "
                           f"{fmt_time(b['compute_seconds'])} | "
                           f"{fmt_time(b['comm_seconds'])} | "
                           f"{fmt_time(b['exposed_seconds'])} | "
                           f"{fmt_time(b['shared_cores_seconds'])} | "
                           f"{fmt_time(b['step_seconds'])} | "
                           f"{b['tokens_per_second_per_chip']:.0f} | "
                           f"{b['hbm_needed_bytes'] / 1e9:.0f} GB |")
            out.append("")
            out += per_kernel_table(d)
            for side in ("tpu", "gpu"):
                feasible = [c for c in d[side]["candidates"]
                            if "infeasible" not in c]
                feasible.sort(key=lambda c: c["step_seconds"])
                out.append(f"{side.upper()}-like, the feasible splits by "
                           "step time: " + "; ".join(
                               f"{c['split']} {fmt_time(c['step_seconds'])}"
                               for c in feasible[:6]) + ".")
                out.append("")
    out += ["### Compile time of the search on 256 chips", "",
            "Wall time of `npu-compare --systems=tpu-v7-4x4x16,256xh200 "
            "--split=auto` (DeepSeek-V3, fp8), whole process, measured by "
            "this script on the machine that generated the page (each "
            "side compiles every feasible split's per-chip model once):", "",
            "| phase | candidates (TPU, GPU) | feasible | wall time |",
            "|---|---:|---:|---:|"]
    for phase, what, flags in STEP_PHASES:
        argv = [os.path.join(BIN, "npu-compare"),
                "--config=examples/configs/deepseek-v3.json",
                "--weight-dtype=fp8", "--systems=tpu-v7-4x4x16,256xh200",
                "--format=json"] + flags
        start = time.monotonic()
        d = json.loads(run(argv))
        wall = time.monotonic() - start
        cands = [len(d[x]["candidates"]) for x in ("tpu", "gpu")]
        ok = [sum("infeasible" not in c for c in d[x]["candidates"])
              for x in ("tpu", "gpu")]
        out.append(f"| {phase} | {cands[0]}, {cands[1]} | {ok[0]}, {ok[1]} "
                   f"| {wall:.1f} s |")
    out += ["", "### Set beside published deployments", "",
            "- **DeepSeek's own service** (H800 nodes; deepseek-ai/"
            "open-infra-index, 202502OpenSourceWeek/day_6_one_more_thing_"
            "deepseekV3R1_inference_system_overview.md): prefill and decode "
            "disaggregated; prefill units of 4 nodes with Routed Expert EP32 "
            "and MLA/Shared Expert DP32 (9 routed experts per GPU, 32 of them "
            "redundant), decode units of 18 nodes with EP144/DP144 (2 routed "
            "experts per GPU); in prefill two micro-batches overlap one's "
            "attention and MoE with the other's dispatch and combine. \"Each "
            "H800 node delivers an average throughput of ~73.7k tokens/s "
            "input (including cache hits) during prefilling or ~14.8k "
            "tokens/s output during decoding\", with an average KV length of "
            "4,989 tokens per output token: about 9.2k input and 1.85k "
            "output tokens/s per GPU.",
            "- **The tool's choice** lands in the same family on every "
            "system above: data-parallel attention with expert parallelism "
            "as wide as the HBM and the all-to-all allow, never tensor "
            "parallelism across the scale-out network. On 32 H800s (the "
            "prefill unit, with the H800's 400 GB/s NVLink: npu-target/"
            "h800.json) the search picks EP16 for a 4096-token prompt per "
            "GPU over DeepSeek's EP32 (see the candidates above). Both cross "
            "the NICs, a token once per destination node and then forwarded "
            "over NVLink, as DeepEP's internode kernels do (modelled: "
            "`npu-system --routed`, validated at -25% on DeepEP's EP16 row, "
            "npu-target/validation.md); with DeepSeek-V3's group-limited "
            "routing a token reaches 1.93 of 2 nodes at EP16 and 2.93 of 4 "
            "at EP32, so EP32 sends half as much again over the NICs per "
            "token, which the other micro-batch's compute no longer hides. "
            "What the model leaves out and could favour EP32: DeepSeek's "
            "redundant experts and load balancing (the routing here is "
            "uniform), and the published unit's batch (the tool gives each "
            "GPU one 4096-token prompt). The modelled prefill and decode "
            "rates per GPU (the tables) are of the order of DeepSeek's "
            "measured ones; the published rates include cache hits, real "
            "request lengths and scheduling, which the tool does not model: "
            "they set an order of magnitude, not an error.",
            "- **What differs from the published units**: EP144 in decode "
            "(2 experts per GPU) is wider than any split searched here (the "
            "search stops at the system's chips), and the published batch "
            "per GPU is not stated.", ""]
    return out


def main():
    out = ["# Parallelism: which cut talks how much, and on which link",
           "",
           "Generated by `python3 scripts/parallelism.py` (do not edit the "
           "tables by hand) from `npu-opt --npu-report-parallel-map` "
           "(lib/npu/Parallel/ParallelMap.cpp) and the collective model of "
           "[collectives.md](collectives.md).", "",
           "DeepSeek-V3 fits on no single chip (the bill: 671e9 parameters); "
           "the question is how to cut it. Each row below is one cut: the "
           "collective it needs, what moves, its volume `V` per occurrence "
           "(nccl-tests' size conventions, collectives.md), how many times "
           "one step runs it, and the time per step if the cut's group lives "
           "on the system's scale-up links (NVLink, ICI) or across its "
           "scale-out network (NICs, DCN). The last column sets that time "
           "beside the step's compute on one chip divided by the group's "
           "chips (the bill's roofline / p): above 1, the cut costs more "
           "than the work it shares out (a training row has no inference "
           "step to compare with: `-`).", "",
           "## The rows", "",
           "Notation: T tokens in the step, D the residual width, a its "
           "element bytes, L layers, L_moe layers with routed experts, k "
           "experts per token, p chips in the group, d(p) the chips a "
           "token's k experts live on (below), kv the K/V bytes a token "
           "keeps per layer, P parameters.", "",
           "| dimension | collective | V per occurrence | per step |",
           "|---|---|---|---|",
           "| batch (DP), training | all_reduce of the gradients | 2 P "
           "(bf16 gradients) | 1 |",
           "| hidden, heads (TP, Megatron) | all_reduce of the row-parallel "
           "projections' partial sums | T D a | 2 L (attention out, FFN out) "
           "|",
           "| sequence (CP, ring attention), prefill | send_recv of K/V round "
           "the ring | (T/p) kv | L (p-1) |",
           "| experts (EP), attention data-parallel | all_to_all: dispatch "
           "(in fp8 where the experts take fp8), then combine | (T/p) d(p) D "
           "(1 + 4/128 bytes or a), then (T/p) d(p) D a | L_moe each |",
           "| layers (PP) | send_recv of the residual at a stage boundary | "
           "T D a | p - 1 |", "",
           "Data parallelism in inference needs no collective (replicas); "
           "Megatron's sequence parallelism replaces each TP all-reduce by a "
           "reduce-scatter and an all-gather of the same bytes. A row's "
           "cost is its occurrences times the collective's time "
           "(bandwidth and latency terms, collectives.md).", "",
           "**An expert-parallel dispatch sends a token once per chip, not "
           "once per expert.** DeepEP's normal kernels send each token to "
           "every rank that holds one of its k experts, once, and the rank "
           "makes the copies its experts need; the combine sends back each "
           "rank's weighted sum. So a dispatch moves (T/p) d(p) rows, d(p) "
           "the expected number of chips a token's experts live on "
           "(`expectedDestinationChips`, ParallelMap.h; `npu-system "
           "--routed`): for uniform picks of k of E experts held E/p per "
           "chip, d = p (1 - C(E - E/p, k) / C(E, k)), and with group-"
           "limited routing (DeepSeek-V3: top-4 of 8 groups of 32 experts) "
           "the picks come from the chosen groups' experts, so a chip "
           "outside them is never reached. DeepSeek-V3 (256 experts, k = 8): "
           "d = 3.63 on 8 chips (5.29 without the group limit), 5.34 on 16, "
           "7.36 on 64: the group limit halves the in-node traffic, which is "
           "why DeepSeek designed it. fp8 rows carry one f32 scale per 128 "
           "elements (1 + 4/128 bytes each, DeepEP's count). Both sides are "
           "priced with this dispatch: it is an algorithm, not a property "
           "of the GPU ([A] for the TPU-like side: MaxText's ragged "
           "all-to-all sends one row per (token, expert); a compiler that "
           "deduplicates per chip is assumed). The routing is balanced (the "
           "router's load balancing aims at it); a skewed routing moves the "
           "same bytes on average but makes the busiest chip wait.", "",
           "## The rule: frequency decides how slow a link a cut may use", "",
           "Read down the last two columns: tensor parallelism runs twice "
           "per layer on the residual, so it belongs on the fastest links "
           "(NVLink, ICI); across NICs or DCN its time per step exceeds the "
           "work it shares. Expert parallelism's all-to-all runs twice per "
           "MoE layer and moves each token to d(p) chips: NVLink or ICI, or "
           "overlapped with compute (DeepEP's two micro-batches). Pipeline "
           "parallelism crosses each boundary once per step: it tolerates "
           "the scale-out network. Data parallelism in training sums the "
           "gradients once per step: it is the cut that may span data "
           "centres.", ""]
    out += step_section()
    for name, config, wdtype in MODELS:
        out += [f"## {name}", ""]
        for phase, flags in PHASES:
            for system in SYSTEMS:
                out += section(name, config, wdtype, phase, flags, system)
    with open(OUT, "w") as f:
        f.write("\n".join(out))
    print(f"parallelism.py: wrote {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
