#!/usr/bin/env python3
"""Writes docs/serving.md and its SVGs (issue 26): Llama-3-8B served on one
tpu-v7 and one h200, both ways of deciding, for a chat-like and a
long-prompt trace. One command: python3 scripts/serving.py (after a build).

Each chip's cost tables are compiled once per trace (npu-serve --emit-costs,
both engines' grids) and every run after that prices steps from them
(--costs), so the sweeps take seconds.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("NPU_BIN", os.path.join(ROOT, "build", "bin"))
CONFIG = os.path.join(ROOT, "examples", "configs", "llama-3-8b.json")
OUT = os.path.join(ROOT, "docs", "serving")
TMP = tempfile.mkdtemp(prefix="npu-serving-")

TRACES = {
    "chat": {"title": "chat-like", "prompt": "longtail:512:4096",
             "output": "longtail:256:2048", "requests": 2000,
             "rates": [2, 4, 6, 8, 10, 11, 12, 14], "at": 8},
    "long": {"title": "long-prompt", "prompt": "uniform:4096:7168",
             "output": "longtail:128:1024", "requests": 1000,
             "rates": [0.5, 1, 1.5, 2, 2.5, 3, 3.5], "at": 2},
}
CHIPS = [("tpu-v7", "--tpu", "tpu"), ("h200", "--gpu", "gpu")]
BUCKET_BUDGET = 8
MTP = "1:0.85"


def serve(*args, json_out=True):
    argv = [os.path.join(BIN, "npu-serve"), *args]
    if json_out:
        argv.append("--format=json")
    p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    if p.returncode:
        sys.exit(f"serving.py: {' '.join(argv)}:\n{p.stderr}")
    return json.loads(p.stdout) if json_out else p.stdout


def trace_args(t, rate=None):
    return [f"--prompt={t['prompt']}", f"--output={t['output']}",
            f"--requests={t['requests']}", f"--rate={rate or t['at']}"]


def tables(name, t):
    """Per chip: a static table (every candidate bucket) and a continuous
    one, as files."""
    out = {}
    for engine, extra in (("static", ["--design-buckets=2"]),
                          ("continuous", [])):
        path = os.path.join(TMP, f"{name}-{engine}.json")
        serve(f"--config={CONFIG}", "--tpu=tpu-v7", "--gpu=h200",
              f"--tpu-engine={engine}", f"--gpu-engine={engine}",
              f"--emit-costs={path}", *extra, *trace_args(t))
        for table in json.load(open(path)):
            one = os.path.join(TMP, f"{name}-{engine}-{table['target']}.json")
            json.dump(table, open(one, "w"))
            out[(table["target"], engine)] = one
    return out


def design(t, costs):
    """The greedy bucket design of the static engine on a chip."""
    text = serve(f"--costs={costs}", f"--design-buckets={BUCKET_BUDGET}",
                 "--tpu-engine=static", "--gpu-engine=static",
                 *trace_args(t), json_out=False)
    rows = text.split("bucket design")[1].splitlines()[2:]
    best = serve(f"--costs={costs}", f"--design-buckets={BUCKET_BUDGET}",
                 "--tpu-engine=static", "--gpu-engine=static",
                 *trace_args(t))["sides"][0]["policy"]
    return rows, best


def buckets(policy):
    return [f"--prefill-buckets={','.join(map(str, policy['prefill_buckets']))}",
            f"--decode-buckets={','.join(map(str, policy['decode_buckets']))}",
            f"--slots={policy['slots']}"]


def ms(x):
    return f"{1e3 * x:.1f}"


def reading(t, at, policies, tab):
    """What the numbers at the reference rate say, computed from them."""
    tpot = {k: r["curve"][0]["tpot_s"]["p50"] for k, r in at.items()}
    ttft = {k: r["curve"][0]["ttft_s"]["p50"] for k, r in at.items()}
    out = ["", f"Reading the numbers at {t['at']} requests/s:", ""]
    for chip, _, _ in CHIPS:
        s, c = (chip, "static"), (chip, "continuous")
        pad = at[s]["padded_tokens"]
        out.append(
            f"- {chip}, the same chip decided two ways: static TPOT p50 "
            f"{ms(tpot[s])} ms against continuous {ms(tpot[c])} ms "
            f"({tpot[s] / tpot[c]:.2f}x), TTFT p50 {ms(ttft[s])} against "
            f"{ms(ttft[c])} ms; the static plan computes {pad} padded "
            f"tokens ({100 * pad / (pad + at[s]['useful_tokens']):.0f}% of "
            f"its work) and allocates KV for {at[s]['kv_capacity_tokens']} "
            f"tokens ahead ({policies[chip]['slots']} slots of the longest "
            f"context) while the paged pool holds "
            f"{at[c]['kv_capacity_tokens']}.")
    for engine in ("static", "continuous"):
        a, b = ("tpu-v7", engine), ("h200", engine)
        out.append(f"- The same way of deciding on two chips ({engine}): "
                   f"TPOT p50 tpu-v7 {ms(tpot[a])} ms, h200 {ms(tpot[b])} "
                   f"ms ({tpot[a] / tpot[b]:.2f}x).")
    # The TPU-like static decode program's attention share at its shortest
    # context: the cost model's per-program overheads (issue 23).
    table = json.load(open(tab[("tpu-v7", "static")]))
    first = min((p for p in table["decode"]), key=lambda p: p["length"])
    kv = first["batch"] * (first["length"] + 1) * table["kv_bytes_per_token"]
    chip = json.load(open(os.path.join(ROOT, "npu-target", "tpu-v7.json")))
    bw = chip["sustained_hbm_bandwidth_bytes_per_s"]
    out.append(
        f"- Assumption this rests on: tpu-v7's decode program of "
        f"{first['batch']} slots at {first['length']} cached tokens costs "
        f"{first['total_ns'] / 1e6:.2f} ms, {first['attention_ns'] / 1e6:.2f} "
        f"ms of it in attention, which reads {kv / 1e9:.2f} GB of KV "
        f"({kv / bw * 1e3:.2f} ms at tpu-v7's sustained "
        f"{bw / 1e12:.2f} TB/s): the TPU-like "
        f"decode attention is priced with per-program overheads that "
        f"published ragged paged attention kernels do not show (issue 23, "
        f"open). The static engine's TPOT on tpu-v7 follows that price.")
    return out


DEEPSEEK = [
    {"title": "chat-like", "name": "chat", "prompt": "longtail:512:4096",
     "output": "longtail:256:2048", "requests": 1000,
     "rates": [0.5, 1, 2, 3, 4, 5], "at": 2},
    {"title": "long-prompt", "name": "long", "prompt": "uniform:4096:7168",
     "output": "longtail:128:1024", "requests": 500,
     "rates": [0.25, 0.5, 0.75, 1, 1.25], "at": 0.5},
]
DEEPSEEK_SETUP = {"config": os.path.join(ROOT, "examples", "configs",
                                         "deepseek-v3.json"),
                  "systems": [("tpu-v7-2x2x2", "tpu"), ("8xh200", "gpu")],
                  "split": "tp=8"}


def deepseek_section(trace_spec):
    """DeepSeek-V3 on a TPU slice and a GPU node of 8 chips, each serving
    as one tensor-parallel instance."""
    d = dict(DEEPSEEK_SETUP, **trace_spec)
    trace = [f"--prompt={d['prompt']}", f"--output={d['output']}",
             f"--requests={d['requests']}"]
    base = [f"--config={d['config']}", "--weight-dtype=fp8",
            f"--split={d['split']}"] + [
                f"--{kind}-system={name}" for name, kind in d["systems"]]
    tab = {}
    for engine in ("static", "continuous"):
        path = os.path.join(TMP, f"deepseek-{d['name']}-{engine}.json")
        serve(*base, f"--tpu-engine={engine}", f"--gpu-engine={engine}",
              f"--emit-costs={path}", *trace, f"--rate={d['at']}")
        for table in json.load(open(path)):
            one = os.path.join(
                TMP, f"deepseek-{d['name']}-{engine}-{table['target']}.json")
            json.dump(table, open(one, "w"))
            tab[(table["target"], engine)] = one
    # The continuous engine with DeepSeek-V3's MTP module drafting one token
    # (the report's 85-90% acceptance: 0.85).
    path = os.path.join(TMP, f"deepseek-{d['name']}-mtp.json")
    serve(*base, "--tpu-engine=continuous", "--gpu-engine=continuous",
          f"--speculative={MTP}", f"--emit-costs={path}", *trace,
          f"--rate={d['at']}")
    for table in json.load(open(path)):
        one = os.path.join(TMP, f"deepseek-{d['name']}-mtp-{table['target']}.json")
        json.dump(table, open(one, "w"))
        tab[(table["target"], "continuous + MTP")] = one
    lines = [f"## DeepSeek-V3 (fp8) on 8 chips, {d['title']} trace", "",
             f"Each side serves with 8 chips as one instance under "
             f"`--split={d['split']}` (`npu-serve --tpu-system=tpu-v7-2x2x2 "
             f"--gpu-system=8xh200`): every table point is the system's step "
             f"as `npu-compare --systems` prices it, the chip's program with "
             f"the tensor-parallel all-reduces on its links and what its kind "
             f"overlaps (docs/parallelism.md). A tensor split, not DeepSeek's "
             f"own expert-parallel deployment (prefill units of 32 GPUs, "
             f"decode units of 144: docs/parallelism.md): one instance of 8 "
             f"chips is the common single-node deployment (SGLang serves "
             f"DeepSeek-V3 on one 8 x H200 node with TP8). MLA's latent KV "
             f"cache is whole on every chip of a tensor split, so the KV per "
             f"token is 8 times one chip's. `continuous + MTP`: the continuous "
             f"engine with the MTP module drafting one token per step, "
             f"accepted at 0.85 (`--speculative={MTP}`; the drafter priced "
             f"from its own compiled programs). Trace: {d['requests']} requests, "
             f"prompts `{d['prompt']}`, outputs `{d['output']}`, Poisson.", "",
             "| system | engine | req/s | tok/s/chip | tok/s/user | TTFT p50 ms "
             "| TTFT p99 ms | TPOT p50 ms | TPOT p99 ms | goodput req/s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, kind in d["systems"]:
        for engine in ("static", "continuous", "continuous + MTP"):
            mtp = [f"--speculative={MTP}"] if "MTP" in engine else []
            res = serve(f"--costs={tab[(name, engine)]}",
                        f"--{kind}-engine={engine.split()[0]}", *mtp,
                        f"--rates={','.join(map(str, d['rates']))}",
                        *trace)["sides"][0]
            for p in res["curve"]:
                lines.append(
                    f"| {name} | {engine} | {p['rate']:g} | "
                    f"{p['output_tokens_per_s_per_chip']:.1f} | "
                    f"{p['tokens_per_s_per_user']:.1f} | "
                    f"{ms(p['ttft_s']['p50'])} | {ms(p['ttft_s']['p99'])} | "
                    f"{ms(p['tpot_s']['p50'])} | {ms(p['tpot_s']['p99'])} | "
                    f"{p['goodput_requests_per_s']:.2f} |")
    svg = os.path.join(OUT, f"deepseek-{d['name']}.svg")
    serve(f"--costs={tab[('tpu-v7-2x2x2', 'static')]}",
          f"--costs={tab[('8xh200', 'continuous')]}",
          f"--rates={','.join(map(str, d['rates']))}", *trace, f"--svg={svg}")
    lines += ["", f"![DeepSeek-V3 curves](serving/deepseek-{d['name']}.svg)",
              ""]
    for name, _ in d["systems"]:
        t = json.load(open(tab[(name, "continuous")]))
        lines.append(
            f"- {name}: weights {t['weight_bytes'] / 1e9:.0f} GB over "
            f"{t['chips']} chips, KV {t['kv_bytes_per_token'] / 1e3:.0f} KB "
            f"per token, HBM {t['hbm_bytes'] / 1e9:.0f} GB in all.")
    return lines + [""]


def main():
    os.makedirs(OUT, exist_ok=True)
    doc = open(os.path.join(ROOT, "docs", "serving.head.md")).read()
    lines = [doc.rstrip(), ""]
    for name, t in TRACES.items():
        tab = tables(name, t)
        lines += [f"## {t['title'].capitalize()} trace", "",
                  f"{t['requests']} requests, Poisson arrivals, prompts "
                  f"`{t['prompt']}`, outputs `{t['output']}` (seed 0). "
                  f"The static engine's buckets are the greedy design for "
                  f"this trace at {t['at']} requests/s with a budget of "
                  f"{BUCKET_BUDGET} programs (table below); the continuous "
                  f"engine takes 8192 tokens and 256 sequences per step, KV "
                  f"blocks of 16 tokens, chunked prefill.", ""]
        policies, designs = {}, {}
        for chip, _, _ in CHIPS:
            designs[chip], policies[chip] = design(t, tab[(chip, "static")])
        # The four ways: each engine on each chip, swept.
        curves, at = {}, {}
        for chip, _, kind in CHIPS:
            for engine in ("static", "continuous"):
                extra = buckets(policies[chip]) if engine == "static" else []
                res = serve(f"--costs={tab[(chip, engine)]}",
                            f"--{kind}-engine={engine}",
                            f"--rates={','.join(map(str, t['rates']))}",
                            *trace_args(t)[:3], *extra)["sides"][0]
                curves[(chip, engine)] = res
                one = serve(f"--costs={tab[(chip, engine)]}",
                            f"--{kind}-engine={engine}", *trace_args(t),
                            *extra)["sides"][0]
                at[(chip, engine)] = one
        # The curves of the native pairing (TPU static, GPU continuous).
        svg = os.path.join(OUT, f"{name}.svg")
        serve(f"--costs={tab[('tpu-v7', 'static')]}",
              f"--costs={tab[('h200', 'continuous')]}",
              *buckets(policies["tpu-v7"]),
              f"--rates={','.join(map(str, t['rates']))}",
              *trace_args(t)[:3], f"--svg={svg}")
        lines += [f"![{t['title']} curves](serving/{name}.svg)", "",
                  "Throughput against interactivity, each point a load "
                  "(requests/s); TPU static is JetStream's way, GPU "
                  "continuous vLLM's:", "",
                  "| chip | engine | req/s | tok/s/chip | tok/s/user | "
                  "TTFT p50 ms | TTFT p99 ms | TPOT p50 ms | TPOT p99 ms | "
                  "goodput req/s |", "|---|---|---:|---:|---:|---:|---:|"
                  "---:|---:|---:|"]
        for (chip, engine), res in curves.items():
            for p in res["curve"]:
                lines.append(
                    f"| {chip} | {engine} | {p['rate']:g} | "
                    f"{p['output_tokens_per_s_per_chip']:.0f} | "
                    f"{p['tokens_per_s_per_user']:.1f} | "
                    f"{ms(p['ttft_s']['p50'])} | {ms(p['ttft_s']['p99'])} | "
                    f"{ms(p['tpot_s']['p50'])} | {ms(p['tpot_s']['p99'])} | "
                    f"{p['goodput_requests_per_s']:.2f} |")
        lines += ["", f"At {t['at']} requests/s, what each way wastes:", "",
                  "| chip | engine | KV capacity (tokens) | KV occupancy mean / "
                  "peak | padded tokens | useful tokens | padded share | "
                  "preemptions | TPOT p50 ms |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for (chip, engine), res in at.items():
            p = res["curve"][0]
            pad, use = res["padded_tokens"], res["useful_tokens"]
            lines.append(
                f"| {chip} | {engine} | {res['kv_capacity_tokens']} | "
                f"{100 * res['kv_occupancy_mean']:.1f}% / "
                f"{100 * res['kv_occupancy_peak']:.1f}% | {pad} | {use} | "
                f"{100 * pad / (pad + use):.1f}% | {res['preemptions']} | "
                f"{ms(p['tpot_s']['p50'])} |")
        # Chunked prefill and disaggregation on the native pairing.
        lines += ["", f"Chunked prefill and disaggregation at {t['at']} "
                  "requests/s (disaggregated: 1 prefill chip and 1 decode "
                  "chip at the full rate, beside one chip at half the rate, "
                  "which is what 2 chips serving independently deliver per "
                  "chip):", "",
                  "| chip | engine | variant | chips | tok/s/chip | TTFT "
                  "p50 ms | TTFT p99 ms | TPOT p50 ms | TPOT p99 ms |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|"]
        for chip, _, kind in CHIPS:
            for engine in ("static", "continuous"):
                extra = buckets(policies[chip]) if engine == "static" else []
                base = [f"--costs={tab[(chip, engine)]}",
                        f"--{kind}-engine={engine}", *extra]
                variants = [("one chip", trace_args(t), 1)]
                if engine == "continuous":
                    variants.append(("no chunked prefill", trace_args(t) +
                                     ["--chunked-prefill=false"], 1))
                variants += [
                    ("2 chips, each at half the rate",
                     trace_args(t, t["at"] / 2), 2),
                    ("disaggregated 1:1", trace_args(t) +
                     ["--disaggregate=1:1"], 2)]
                for label, args, chips in variants:
                    p = serve(*base, *args)["sides"][0]["curve"][0]
                    lines.append(
                        f"| {chip} | {engine} | {label} | {chips} | "
                        f"{p['output_tokens_per_s_per_chip']:.0f} | "
                        f"{ms(p['ttft_s']['p50'])} | {ms(p['ttft_s']['p99'])} "
                        f"| {ms(p['tpot_s']['p50'])} | "
                        f"{ms(p['tpot_s']['p99'])} |")
        lines += reading(t, at, policies, tab)
        lines += ["", "Bucket design of the static engine (each row adds "
                  "the program that most raises goodput):", ""]
        for chip, _, _ in CHIPS:
            lines += [f"{chip}:", "", "```"] + designs[chip] + ["```", ""]
    for spec in DEEPSEEK:
        lines += deepseek_section(spec)
    # Interpolation errors of the continuous tables.
    text = serve(f"--config={CONFIG}", "--tpu=tpu-v7", "--gpu=h200",
                 "--tpu-engine=continuous", "--check-interpolation",
                 *trace_args(TRACES["chat"]), json_out=False)
    lines += ["## Interpolation error", "",
              "`npu-serve --check-interpolation` on the chat trace's "
              "continuous tables: every shape between two points compiled "
              "and set beside the table's price for it.", ""]
    for chip, block in zip(("tpu-v7", "h200"),
                           text.split("interpolation against")[1:]):
        lines.append(f"{chip}:")
        lines.append("")
        rows = [r.split() for r in block.splitlines()[2:]
                if r.strip().startswith(("prefill", "decode"))]
        for phase in ("prefill", "decode"):
            errs = [abs(float(r[5])) for r in rows if r[0] == phase]
            if errs:
                lines.append(f"- {len(errs)} {phase} shapes: median "
                             f"|error| {statistics.median(errs):.2f}%, max "
                             f"{max(errs):.2f}%")
        lines.append("")
    with open(os.path.join(ROOT, "docs", "serving.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("serving.py: wrote docs/serving.md and docs/serving/*.svg")


if __name__ == "__main__":
    main()
