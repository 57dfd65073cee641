"""The serving simulator against published serving measurements (issue 26).

Imported by scripts/validation.py, which appends `section()` to
npu-target/validation.md; runnable alone to print the section. The
measurements are npu-target/measure/published-serving.json; none is
calibration. Each row runs `npu-serve` on Llama-3-8B (examples/configs;
Llama-3.1-8B has the same layers) with the row's workload: fixed prompt and
output lengths, all requests at once, the engine of the measured stack
(continuous batching for vLLM and TensorRT-LLM, on a TPU too for vLLM-TPU)
and its published limits where given. Throughput rows compare output
tokens/s, latency rows the mean end-to-end time; errors are (model -
measured) / measured of that quantity.
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("NPU_BIN", os.path.join(ROOT, "build", "bin"))
DATA = os.path.join(ROOT, "npu-target", "measure", "published-serving.json")
CONFIG = os.path.join(ROOT, "examples", "configs", "llama-3-8b.json")


def run(m):
    w = m["workload"]
    side = "--tpu" if m["chip"].startswith("tpu") else "--gpu"
    argv = [os.path.join(BIN, "npu-serve"), f"--config={CONFIG}",
            f"{side}={m['chip']}", f"--weight-dtype={m['weight_dtype']}",
            f"--requests={w['requests']}", "--rate=1e9",
            f"--prompt=uniform:{w['input_len']}:{w['input_len']}",
            f"--output=uniform:{w['output_len']}:{w['output_len']}",
            f"--max-batched-tokens={w.get('max_num_batched_tokens', 8192)}",
            f"--max-seqs={w.get('max_num_seqs', 512)}",
            f"--memory-utilization={w.get('gpu_memory_utilization', 0.9)}",
            "--tpu-engine=continuous", "--format=json"]
    if m["stack"].startswith("TensorRT-LLM"):
        argv.append("--reserve-context")  # GUARANTEED_NO_EVICT
    p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    if p.returncode:
        sys.exit(f"validation_serving.py: {' '.join(argv)}:\n{p.stderr}")
    return json.loads(p.stdout)["sides"][0]["curve"][0]


def compare(m, got):
    """(quantity, measured, model) pairs of the row's published metrics."""
    out = []
    meas = m["measured"]
    if "output_tokens_per_s" in meas:
        out.append(("output tok/s", meas["output_tokens_per_s"],
                    got["output_tokens_per_s"]))
    if "tpot_median_ms" in meas:
        out.append(("TPOT p50 ms", meas["tpot_median_ms"],
                    1e3 * got["tpot_s"]["p50"]))
    if "e2e_mean_ms" in meas:
        out.append(("E2E mean ms", meas["e2e_mean_ms"],
                    1e3 * got["e2e_s"]["mean"]))
    return out


def section():
    with open(DATA) as f:
        data = json.load(f)
    out = ["", "## Serving (issue 26)", "",
           "`npu-serve` (docs/serving.md) against "
           "npu-target/measure/published-serving.json: Llama-3(.1)-8B on one "
           "chip, fixed lengths, every request at once. No row is "
           "calibration. The model runs continuous batching on both kinds "
           "of chip here (the measured stacks are vLLM and TensorRT-LLM), "
           "with 8192 tokens and 512 sequences per step and 90% of HBM "
           "unless the row gives its own limits (512 is an assumption for "
           "TensorRT-LLM, whose limit is not published), KV blocks on "
           "demand with preemption as vLLM allocates them, and for "
           "TensorRT-LLM its default GUARANTEED_NO_EVICT admission "
           "(`--reserve-context`). The KV cache is bf16 (the FP8 "
           "checkpoints quantize the linear layers only). Errors are (model - "
           "measured) / measured: a positive throughput error and a "
           "negative latency error both mean the model is optimistic.", "",
           "| id | chip | stack | in/out | requests | quantity | measured "
           "| model | error | source |",
           "|---|---|---|---|---:|---|---:|---:|---:|---|"]
    errs = []
    for m in data["measurements"]:
        got = run(m)
        w, src = m["workload"], m["source"]
        where = src.get("url") or f"{src['repo']}: {src['path']}"
        for what, want, model in compare(m, got):
            e = (model - want) / want
            errs.append(e)
            out.append(f"| {m['id']} | {m['chip']} | {m['stack']} | "
                       f"{w['input_len']}/{w['output_len']} | "
                       f"{w['requests']} | {what} | {want:g} | {model:.4g} | "
                       f"{100 * e:+.1f}% | {where} |")
    out += ["", f"{len(errs)} comparisons: median abs(error) "
            f"{100 * statistics.median(abs(e) for e in errs):.1f}%.", "",
            "Not compared:", ""]
    for x in data["excluded"]:
        out.append(f"- `{x['id']}`: {x['why']}")
    return out, (len(errs), statistics.median(abs(e) for e in errs))


if __name__ == "__main__":
    lines, _ = section()
    print("\n".join(lines))
