#!/usr/bin/env python3
"""Measure what one GPU sustains, to EVALUATE (never fit) the npu GPU cost model.

Usage:  python3 h200_measure.py [OUT.csv] [--budget-s 420] [--dry-run] [--kinds gemm,sdpa,...]
Needs torch and the standard library only; --dry-run needs neither torch nor a GPU.

One CSV row per case (columns: COLUMNS below; a parameter a kind lacks is empty):
  gemm            torch.matmul(A[m,k], B[k,n]), bf16 in and out (cuBLAS, fp32 accumulation)
  sdpa            F.scaled_dot_product_attention(q, k, v, is_causal=causal), q,k,v and the
                  output [batch, heads, seq, head_dim] bf16; one forced backend per row
                  (flash, cudnn, efficient), named in the note
  softmax         torch.softmax(x[rows, cols], dim=-1), bf16
  rmsnorm_manual  x * rsqrt(mean(x^2, -1) + eps) * w, bf16, eager (several kernels)
  rmsnorm_torch   F.rms_norm(x, (cols,), w, eps) where this torch has it
  copy            dst.copy_(src), `bytes` bytes each, same device (a D2D cudaMemcpyAsync)

Formulas (bf16 is 2 bytes; min_bytes is compulsory HBM traffic, each tensor once):
  gemm      flops = 2*m*n*k                        min_bytes = 2*(m*k + k*n + m*n)
  sdpa      flops = 4*batch*heads*seq^2*head_dim   min_bytes = 2*4*batch*heads*seq*head_dim
                    (QK^T and PV, 2 flops a MAC),  (read q, k, v; write o)
                    halved when causal
  softmax   flops = 5*rows*cols (rough: max, sub, exp, sum, div)  min_bytes = 2*2*rows*cols
  rmsnorm_* flops = 4*rows*cols (rough: square, sum, 2 muls)      min_bytes = 2*2*rows*cols + 2*cols
  copy      flops = 0                              min_bytes = 2*bytes (read + write)
  achieved_tflops = flops / time_us_median / 1e6;  achieved_gbps = min_bytes / time_us_median / 1e3

Method: per case, `warmup` untimed calls, one call timed to size the repetitions, then `reps`
calls, each bracketed by two CUDA events on the current stream; the L2 (50 MiB on H100/H200)
is flushed before each timed call, outside the events, by writing (zero_) a 256 MiB buffer
(--flush read: summing it instead, which leaves clean lines; none: L2 stays warm). Reported:
median, p10, p90 of the per-call times. Copies up to 64 MiB are also run with flush=read and
flush=none (the latter measures L2-resident bandwidth; a ~55 us GPU spin, torch.cuda._sleep,
replaces the flush so the GPU still runs ahead of the launches). Before the first case, ~2 s of 8192^3
GEMMs bring the clocks up, and nvidia-smi is read while they run.
Guards: a case that raises (out of memory, no kernel for a forced SDPA backend, ...) gets its
error in the note; once --budget-s seconds have passed, the remaining cases are written as
skipped. Rows are written and flushed one at a time, so a killed run still leaves a CSV.
"""
import argparse, csv, datetime, gc, os, shutil, subprocess, sys, time, warnings

COLUMNS = ("kind,dtype,m,n,k,batch,heads,seq,head_dim,causal,rows,cols,bytes,flops,min_bytes,"
           "time_us_median,time_us_p10,time_us_p90,reps,achieved_tflops,achieved_gbps,note").split(",")
MiB = 1 << 20
FLUSH_BYTES = 256 * MiB
HIDDEN, MOE_INTER, INTER, VOCAB = 7168, 2048, 18432, 129280   # DeepSeek-V3
SDPA_BACKENDS = {"flash": "FLASH_ATTENTION", "cudnn": "CUDNN_ATTENTION", "efficient": "EFFICIENT_ATTENTION"}
EST_TFLOPS, EST_GBPS, EST_CALL_S, EST_SETUP_S = 600.0, 3500.0, 30e-6, 0.1   # --dry-run estimate only
DEVICE = "cuda"
torch = None   # imported in main unless --dry-run


def work(c):
    """(flops, min_bytes) of a case; the formulas of the header."""
    kind = c["kind"]
    if kind == "gemm":
        m, n, k = c["m"], c["n"], c["k"]
        return 2 * m * n * k, 2 * (m * k + k * n + m * n)
    if kind == "sdpa":
        bhsd = c["batch"] * c["heads"] * c["seq"] * c["head_dim"]
        flops = 4 * bhsd * c["seq"]
        return (flops // 2 if c["causal"] else flops), 2 * 4 * bhsd
    if kind == "copy":
        return 0, 2 * c["bytes"]
    rc = c["rows"] * c["cols"]
    if kind == "softmax":
        return 5 * rc, 2 * 2 * rc
    return 4 * rc, 2 * 2 * rc + 2 * c["cols"]   # rmsnorm_*


def make_cases():
    """The case list: plain Python, no torch, so that --dry-run works anywhere."""
    cases = [dict(kind="gemm", m=s, n=s, k=s) for s in (512, 1024, 2048, 4096, 8192, 16384)]
    # Decode-shaped GEMMs: x[m, k] @ W[k, n]; MoE expert up/gate and down, dense FFN up and down, LM head.
    for n, k in ((MOE_INTER, HIDDEN), (HIDDEN, MOE_INTER), (INTER, HIDDEN), (HIDDEN, INTER), (VOCAB, HIDDEN)):
        cases += [dict(kind="gemm", m=m, n=n, k=k) for m in (1, 16, 64, 256)]
    for p in range(13):   # 1 MiB .. 4 GiB
        for flush in ("write", "read", "none") if p <= 6 else ("write",):
            cases.append(dict(kind="copy", bytes=MiB << p, flush=flush))
    for kind in ("softmax", "rmsnorm_manual", "rmsnorm_torch"):
        cases += [dict(kind=kind, rows=r, cols=c)
                  for r in (1024, 4096, 16384, 65536) for c in (1024, 2048, 4096, 7168, 8192)]
    for backend in SDPA_BACKENDS:   # flash first: the most important; efficient last
        for heads, d in ((16, 128), (32, 64)):
            for causal in (0, 1):
                cases += [dict(kind="sdpa", backend=backend, batch=1, heads=heads, seq=s, head_dim=d,
                               causal=causal) for s in (1024, 2048, 4096, 8192, 16384, 32768)]
    for c in cases:
        c["dtype"] = "bf16"
        c["flops"], c["min_bytes"] = work(c)
    return cases


def plan_reps(call_s, flush_s, args):
    """Repetitions for a case whose one call takes call_s: at most --max-case-s of timed calls."""
    return max(args.min_reps, min(args.reps, int(args.max_case_s / (call_s + flush_s + EST_CALL_S))))


def estimate_s(c, args):
    """Rough wall time of a case, for --dry-run (roofline at EST_TFLOPS / EST_GBPS)."""
    t = max(c["flops"] / (EST_TFLOPS * 1e12), c["min_bytes"] / (EST_GBPS * 1e9)) + 5e-6
    t *= {"rmsnorm_manual": 3.0, "sdpa": 2.0 if c.get("backend") == "efficient" else 1.0}.get(c["kind"], 1.0)
    flush_s = 55e-6 if c.get("flush", args.flush) == "none" else FLUSH_BYTES / (EST_GBPS * 1e9)
    setup = EST_SETUP_S + (0.5 if c.get("backend") == "cudnn" else 0.0)   # cuDNN builds a graph per shape
    return setup + (args.warmup + 1) * (t + EST_CALL_S) + plan_reps(t, flush_s, args) * (t + flush_s + EST_CALL_S)


def describe(c):
    keys = [k for k in ("backend", "m", "n", "k", "batch", "heads", "seq", "head_dim", "causal", "rows",
                        "cols", "bytes", "flush") if k in c]
    return c["kind"] + " " + " ".join(f"{k}={c[k]}" for k in keys)


def pct(xs, q):
    """q-quantile of sorted xs, linear interpolation."""
    i = q * (len(xs) - 1)
    lo = int(i)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)


def smi(fields="name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,"
               "clocks.applications.graphics,power.draw,power.limit,temperature.gpu,persistence_mode"):
    exe = shutil.which("nvidia-smi")
    if not exe:
        return "nvidia-smi not found"
    for f in (fields, "name,driver_version,clocks.sm,clocks.max.sm"):
        try:
            r = subprocess.run([exe, "--query-gpu=" + f, "--format=csv,noheader", "-i", "0"],
                               capture_output=True, text=True, timeout=20)
            if r.returncode == 0:
                return f"{f} = {r.stdout.strip()}"
        except Exception as e:   # noqa: BLE001 - any failure only loses header information
            return f"nvidia-smi failed: {e}"
    return f"nvidia-smi rc {r.returncode}: {r.stderr.strip()[:200]}"


def sdpa_context(backend):
    """A context manager that allows only `backend`; raises if this torch cannot force it."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:   # torch < 2.3: the older, deprecated context manager
        if backend == "cudnn":
            raise RuntimeError("no cuDNN SDPA backend in this torch")
        return torch.backends.cuda.sdp_kernel(enable_flash=backend == "flash", enable_math=False,
                                              enable_mem_efficient=backend == "efficient")
    if not hasattr(SDPBackend, SDPA_BACKENDS[backend]):
        raise RuntimeError(f"SDPBackend.{SDPA_BACKENDS[backend]} not in this torch")
    return sdpa_kernel([getattr(SDPBackend, SDPA_BACKENDS[backend])])


def build(c):
    """(fn, context) for a case: fn() runs the operation once on inputs made here."""
    import contextlib
    F, bf, dev = torch.nn.functional, torch.bfloat16, DEVICE
    kind, ctx = c["kind"], contextlib.nullcontext()
    if kind == "gemm":
        a = torch.randn(c["m"], c["k"], device=dev, dtype=bf)
        b = torch.randn(c["k"], c["n"], device=dev, dtype=bf)
        fn = lambda: torch.matmul(a, b)
    elif kind == "sdpa":
        ctx = sdpa_context(c["backend"])
        q, k, v = (torch.randn(c["batch"], c["heads"], c["seq"], c["head_dim"], device=dev, dtype=bf)
                   for _ in range(3))
        causal = bool(c["causal"])
        fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    elif kind == "copy":
        src = torch.empty(c["bytes"] // 2, device=dev, dtype=bf).fill_(1.0)
        dst = torch.empty_like(src)
        fn = lambda: dst.copy_(src)
    else:
        x = torch.randn(c["rows"], c["cols"], device=dev, dtype=bf)
        w = torch.randn(c["cols"], device=dev, dtype=bf)
        eps = 1e-6
        if kind == "softmax":
            fn = lambda: torch.softmax(x, dim=-1)
        elif kind == "rmsnorm_manual":
            fn = lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
        elif hasattr(F, "rms_norm"):
            fn = lambda: F.rms_norm(x, (c["cols"],), w, eps)
        else:
            raise RuntimeError("torch.nn.functional.rms_norm not in this torch")
    return fn, ctx


def time_case(fn, flush, args):
    """Sorted per-call times in microseconds."""
    for _ in range(args.warmup):
        fn()
    ev = lambda: torch.cuda.Event(enable_timing=True)
    s, e = ev(), ev()
    torch.cuda.synchronize()
    s.record(); fn(); e.record()
    torch.cuda.synchronize()
    flush_s = 0.0 if flush is None else 60e-6
    reps = plan_reps(s.elapsed_time(e) / 1e3, flush_s, args)
    starts, ends = [ev() for _ in range(reps)], [ev() for _ in range(reps)]
    for i in range(reps):
        if flush is not None:
            flush()
        starts[i].record(); fn(); ends[i].record()
    torch.cuda.synchronize()
    return sorted(a.elapsed_time(b) * 1e3 for a, b in zip(starts, ends))


def run_case(c, flushers, args):
    row = {k: c.get(k, "") for k in COLUMNS}
    mode = c.get("flush", args.flush)
    notes = ([f"backend={c['backend']}"] if "backend" in c else []) + [f"flush={mode}"]
    try:
        fn, ctx = build(c)
        with ctx:
            ts = time_case(fn, flushers[mode], args)
        med = pct(ts, 0.5)
        row.update(time_us_median=f"{med:.3f}", time_us_p10=f"{pct(ts, 0.1):.3f}",
                   time_us_p90=f"{pct(ts, 0.9):.3f}", reps=len(ts),
                   achieved_tflops=f"{c['flops'] / med / 1e6:.2f}" if c["flops"] else "",
                   achieved_gbps=f"{c['min_bytes'] / med / 1e3:.1f}")
    except Exception as e:   # noqa: BLE001 - out of memory, no kernel, ...: note it, go on
        oom = isinstance(e, getattr(torch.cuda, "OutOfMemoryError", ())) or "out of memory" in str(e)
        notes.append(("oom: " if oom else f"error {type(e).__name__}: ") + " ".join(str(e).split())[:200])
    fn = ctx = None
    gc.collect()
    try:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    except Exception as e:   # noqa: BLE001 - a sticky CUDA error: the later cases will say so too
        notes.append(f"cleanup: {type(e).__name__}")
    row["note"] = "; ".join(notes)
    return row


def header_lines(args):
    def get(label, f):   # one guarded header item: a failure only loses that item
        try:
            return f"{label}: {f()}"
        except Exception as e:   # noqa: BLE001
            return f"{label}: unavailable ({type(e).__name__}: {' '.join(str(e).split())[:120]})"
    p = lambda: torch.cuda.get_device_properties(0)
    lines = ["npu GPU cost-model evaluation measurements (npu-target/measure/h200_measure.py)",
             "date_utc: " + datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             f"python: {sys.version.split()[0]}  torch: {torch.__version__}  cuda: {torch.version.cuda}",
             get("cudnn", torch.backends.cudnn.version),
             get("gpu", lambda: f"{p().name}  cc {p().major}.{p().minor}  sms {p().multi_processor_count}  "
                                f"mem_bytes {p().total_memory}  l2_bytes {getattr(p(), 'L2_cache_size', 'n/a')}"),
             get("matmul.allow_bf16_reduced_precision_reduction",
                 lambda: torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction),
             f"method: CUDA events around each call; warmup {args.warmup} + 1 sizing call; reps = "
             f"clamp(floor({args.max_case_s} s / call), {args.min_reps}, {args.reps}); L2 flush before each "
             f"timed call: {args.flush} of a {FLUSH_BYTES // MiB} MiB buffer, outside the events (per-row "
             "flush in note; none = a GPU spin); median/p10/p90; inputs randn bf16 (copy: 1.0) on device"]
    return ["# " + s for s in lines]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", default="h200.csv")
    ap.add_argument("--budget-s", type=float, default=420.0, help="skip the cases left after this")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=30, help="most timed calls per case")
    ap.add_argument("--min-reps", type=int, default=5)
    ap.add_argument("--max-case-s", type=float, default=0.5, help="timed calls per case stop near this")
    ap.add_argument("--flush", choices=("write", "read", "none"), default="write")
    ap.add_argument("--kinds", default="", help="comma list, e.g. gemm,sdpa (default: all)")
    ap.add_argument("--dry-run", action="store_true", help="list the cases and an estimate; no torch")
    args = ap.parse_args()
    t0 = time.monotonic()
    cases = make_cases()
    if args.kinds:
        cases = [c for c in cases if c["kind"] in args.kinds.split(",")]

    if args.dry_run:
        total, by_kind = 15.0, {}   # ~15 s: CUDA init, clock warm-up, nvidia-smi
        for i, c in enumerate(cases):
            est = estimate_s(c, args)
            total += est
            by_kind[c["kind"]] = by_kind.get(c["kind"], 0) + 1
            print(f"{i:4d} {describe(c)}  flops={c['flops']:.3g} min_bytes={c['min_bytes']:.3g} est={est:.2f}s")
        print(f"{len(cases)} cases: " + ", ".join(f"{k} {n}" for k, n in by_kind.items()))
        print(f"rough time estimate: {total:.0f} s (budget {args.budget_s:.0f} s)")
        return 0

    global torch
    os.environ.setdefault("TORCH_CUDNN_SDPA_ENABLED", "1")   # cuDNN SDPA was opt-in in torch 2.3/2.4
    import torch as _torch
    torch = _torch
    warnings.filterwarnings("ignore", category=UserWarning)   # forced-backend refusals; kept in notes
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        if not torch.cuda.is_available():
            f.write("# error: torch.cuda.is_available() is False; nothing measured\n")
            print("CUDA not available", file=sys.stderr)
            return 1
        torch.manual_seed(0)
        for line in header_lines(args):
            f.write(line + "\n")
        try:   # clocks up: ~2 s of 8192^3 GEMMs, nvidia-smi read while they run
            a = torch.randn(8192, 8192, device=DEVICE, dtype=torch.bfloat16)
            out = torch.empty_like(a)
            for _ in range(1200):
                torch.matmul(a, a, out=out)
            f.write(f"# nvidia-smi under load: {smi()}\n")
            torch.cuda.synchronize()
            del a, out
        except Exception as e:   # noqa: BLE001
            f.write(f"# clock warm-up failed: {type(e).__name__}: {' '.join(str(e).split())[:200]}\n")
        buf = torch.zeros(FLUSH_BYTES // 4, dtype=torch.int32, device=DEVICE)
        # flush=none: a GPU spin (no memory traffic) instead keeps the GPU ahead of the launches.
        spin = (lambda: torch.cuda._sleep(100_000)) if hasattr(torch.cuda, "_sleep") else None
        flushers = {"write": buf.zero_, "read": buf.sum, "none": spin}
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        skipped = 0
        for i, c in enumerate(cases):
            if time.monotonic() - t0 > args.budget_s:
                row = {k: c.get(k, "") for k in COLUMNS}
                row["note"] = f"skipped: time budget --budget-s {args.budget_s:.0f} exhausted"
                skipped += 1
            else:
                row = run_case(c, flushers, args)
                print(f"[{time.monotonic() - t0:6.1f}s] {i + 1}/{len(cases)} {describe(c)}: "
                      f"{row['time_us_median'] or '-'} us {row['note']}", flush=True)
            w.writerow(row)
            f.flush()
        f.write(f"# finished: {len(cases) - skipped} measured, {skipped} skipped, "
                f"{time.monotonic() - t0:.0f} s; nvidia-smi after: {smi()}\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
