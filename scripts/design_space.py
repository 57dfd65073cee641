#!/usr/bin/env python3
"""Four worked design-space studies with npu-sweep: docs/design-space.md.

    python3 scripts/design_space.py            # run the sweeps, write the page
    python3 scripts/design_space.py --check    # smoke check: study 1 on two SRAM sizes

Runs four sweeps with build/bin/npu-sweep (-j 2; --jobs N), then writes
docs/design-space.md, its SVG plots and the sweeps' CSVs under
docs/design-space/, and the specs of studies 2 to 4 under examples/sweeps/
(study 1 uses examples/sweeps/sram.json as it is; study 4's lists every
[A]-tagged field of tpu-v7 and gb300 that npu-target-info reports, so it
follows the target files). Python 3 standard library only: the plots are
hand-written SVG.

--csv-dir DIR reads the CSVs from DIR instead of running the sweeps
(sram.csv, mxu-width.csv, hbm-decode.csv, and sensitivity.csv if present:
study 4 is skipped without it), and --docs-dir DIR writes the page and its
plots under DIR instead of docs/ (to try the page on other tables).
"""

import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.dom.minidom
from concurrent.futures import ThreadPoolExecutor
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWEEP_DIR = os.path.join(ROOT, "examples", "sweeps")
JOBS = 2
RETRIES = 4  # a tool that is missing or fails oddly is retried after 30 s (a rebuild in progress)

# Columns every CSV of npu-sweep has today, and the proxies' columns, used
# when present (docs/sweep.md).
BASE_COLUMNS = ["index", "workload", "target", "kind", "time_us", "attention_us",
                "moe_us", "tokens_per_s", "flops", "padded_flops", "hbm_bytes", "error"]
PROXY_COLUMNS = ["energy_j", "area_mm2", "tokens_per_j"]
NUMERIC = ["time_us", "attention_us", "moe_us", "tokens_per_s", "flops",
           "padded_flops", "hbm_bytes"] + PROXY_COLUMNS

MIB = 1 << 20

# ---------------------------------------------------------------------------
# The studies' specs
# ---------------------------------------------------------------------------

DS = "../configs/deepseek-v3.json"
L8 = "../configs/llama-3-8b.json"
G2 = "../configs/gpt2.json"

MXU_SPEC = {
    "workloads": [
        {"name": "deepseek-prefill-4k", "config": DS, "phase": "prefill", "seq_len": 4096},
        {"name": "deepseek-decode-b64", "config": DS, "phase": "decode", "batch": 64,
         "context_len": 4095},
        {"name": "llama8b-prefill-4k", "config": L8, "phase": "prefill", "seq_len": 4096},
        {"name": "llama8b-decode-b1", "config": L8, "phase": "decode", "batch": 1,
         "context_len": 4095},
        {"name": "llama8b-decode-b64", "config": L8, "phase": "decode", "batch": 64,
         "context_len": 4095},
        {"name": "gpt2-prefill-1k", "config": G2, "phase": "prefill", "seq_len": 1024},
    ],
    "targets": [
        {"base": "tpu-v7", "vary": {"tpu.matrix_unit_dim_elements": [w],
                                    "tpu.matrix_unit_count_per_core": [n]}}
        for w, n in [(64, 32), (128, 8), (256, 2), (512, 1)]
    ],
}

HBM_VALUES = ["2T", "4T", "6T", "8T", "10T", "12T", "16T"]
HBM_SPEC = {
    "workloads": [
        {"name": "deepseek-decode-b64", "config": DS, "phase": "decode", "batch": 64,
         "context_len": 4095},
        {"name": "llama8b-decode-b1", "config": L8, "phase": "decode", "batch": 1,
         "context_len": 4095},
        {"name": "llama8b-decode-b64", "config": L8, "phase": "decode", "batch": 64,
         "context_len": 4095},
    ],
    "targets": [
        {"base": "tpu-v7", "vary": {"hbm_bandwidth_bytes_per_s": HBM_VALUES}},
        {"base": "gb300", "vary": {"hbm_bandwidth_bytes_per_s": HBM_VALUES}},
    ],
}

NICE_NAMES = {
    "deepseek-prefill-4k": "DeepSeek-V3 prefill 4K",
    "deepseek-decode-b64": "DeepSeek-V3 decode b64",
    "llama8b-prefill-4k": "Llama-3-8B prefill 4K",
    "llama8b-decode-b1": "Llama-3-8B decode b1",
    "llama8b-decode-b64": "Llama-3-8B decode b64",
    "gpt2-prefill-1k": "GPT-2 prefill 1K",
}


def nice(workload):
    return NICE_NAMES.get(workload, workload)


def spec_text(spec):
    """The spec as JSON laid out like examples/sweeps/sram.json."""
    lines = ["{", '  "workloads": [']
    ws = [json.dumps(w) for w in spec["workloads"]]
    lines += ["    " + w + ("," if i + 1 < len(ws) else "") for i, w in enumerate(ws)]
    lines += ["  ],", '  "targets": [']
    ts = [json.dumps(t) for t in spec["targets"]]
    lines += ["    " + t + ("," if i + 1 < len(ts) else "") for i, t in enumerate(ts)]
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Running the tools
# ---------------------------------------------------------------------------

class ToolError(Exception):
    pass


def run_tool(argv, what, retries=None, wait=30, accept=None, stdin=None):
    """Runs argv; retries (after `wait` s) when the binary is missing or fails
    in a way `accept` does not claim (the build tree may be mid-rebuild).
    `accept(proc)` returns True for a failure that is an answer, not an
    accident (then the process is returned as it is)."""
    last = ""
    retries = RETRIES if retries is None else retries
    for attempt in range(retries + 1):
        if attempt:
            print(f"  {what}: {last.strip().splitlines()[-1] if last.strip() else 'failed'}; "
                  f"retrying in {wait} s", file=sys.stderr)
            time.sleep(wait)
        if not os.access(argv[0], os.X_OK):
            last = f"{argv[0]} is missing"
            continue
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, input=stdin)
        except OSError as e:
            last = str(e)
            continue
        if proc.returncode == 0 or (accept is not None and accept(proc)):
            return proc
        last = proc.stderr or f"exit status {proc.returncode}"
    raise ToolError(f"{what} failed: {last.strip()}")


WORKLOAD_ERROR = re.compile(r"workload '([^']+)': (.*)")


def run_sweep(bindir, spec, spec_path, csv_path, write_spec):
    """Runs npu-sweep on `spec` (written to spec_path when write_spec), -j 2,
    into csv_path. A workload that fails to import is dropped and the sweep
    rerun; returns (seconds, [(workload, why)], spec as run)."""
    spec = json.loads(json.dumps(spec))
    dropped = []
    sweep = os.path.join(bindir, "npu-sweep")

    def import_failure(proc):
        return proc.returncode == 1 and WORKLOAD_ERROR.search(proc.stderr or "") is not None

    while True:
        if write_spec:
            with open(spec_path, "w") as f:
                f.write(spec_text(spec))
        start = time.monotonic()
        proc = run_tool([sweep, spec_path, "-j", str(JOBS), "-o", csv_path],
                        f"npu-sweep {os.path.relpath(spec_path, ROOT)}", accept=import_failure)
        seconds = time.monotonic() - start
        if proc.returncode == 0:
            return seconds, dropped, spec
        m = WORKLOAD_ERROR.search(proc.stderr)
        name, why = m.group(1), m.group(2).strip()
        if not write_spec:
            raise ToolError(f"npu-sweep {spec_path}: workload '{name}': {why}")
        spec["workloads"] = [w for w in spec["workloads"] if w["name"] != name]
        dropped.append((name, why))
        print(f"  dropped workload {name}: {why}", file=sys.stderr)
        if not spec["workloads"]:
            raise ToolError(f"npu-sweep {spec_path}: every workload failed to import")


def relativize_csv(path):
    """The loader names a refused variant's file by its absolute path: make it
    relative to the repository, so the table does not depend on the checkout."""
    with open(path, newline="") as f:
        text = f.read()
    new = text.replace(ROOT + os.sep, "")
    if new != text:
        with open(path, "w", newline="") as f:
            f.write(new)


class Targets:
    """npu-target-info --json of the variants, cached."""

    def __init__(self, bindir):
        self.tool = os.path.join(bindir, "npu-target-info")
        self.cache = {}

    def prefetch(self, names):
        names = [n for n in dict.fromkeys(names) if n and n not in self.cache]
        with ThreadPoolExecutor(max_workers=JOBS) as pool:
            for name, info in zip(names, pool.map(self._load, names)):
                self.cache[name] = info

    def _load(self, name):
        proc = run_tool([self.tool, name, "--json"], f"npu-target-info {name}")
        return json.loads(proc.stdout)

    def get(self, name):
        if name not in self.cache:
            self.cache[name] = self._load(name)
        return self.cache[name]

    def field(self, name, path):
        d = self.get(name)
        for part in path.split("."):
            d = d[part]
        return d

    def source(self, name, path):
        return self.get(name).get("sources", {}).get(path, "")

    def matrix_rate(self, name):
        """bf16 matrix FLOP/s at the sustained matrix clock (the rate the cost
        models run at: docs/cost-model-tpu.md, docs/cost-model-gpu.md)."""
        d = self.get(name)
        return d["peak_bf16_flop_per_s"] * d["matrix_clock_hz"] / d["clock_hz"]

    def sustained_bw(self, name):
        return self.get(name)["sustained_hbm_bandwidth_bytes_per_s"]


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        columns = list(reader.fieldnames or [])
        rows = list(reader)
    for row in rows:
        for key in NUMERIC:
            v = row.get(key)
            row[key] = float(v) if v not in (None, "") else None
        row["error"] = (row.get("error") or "").strip()
        if not row["error"] and row["time_us"] and row["tokens_per_s"]:
            row["tokens"] = row["tokens_per_s"] * row["time_us"] * 1e-6
            row["ms_per_token"] = row["time_us"] / 1000.0 / row["tokens"]
        else:
            row["tokens"] = row["ms_per_token"] = None
    return columns, rows


def has_proxies(columns):
    return all(c in columns for c in PROXY_COLUMNS)


def ok_rows(rows):
    return [r for r in rows if not r["error"] and r["time_us"] is not None]


def j_per_token(r):
    if r.get("energy_j") is None or not r.get("tokens"):
        return None
    return r["energy_j"] / r["tokens"]


def fnum(v, sig=3):
    """v with `sig` significant digits (no exponent; thousands separated)."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 10 ** (sig - 1):
        return f"{v:,.0f}"
    digits = sig - 1 - math.floor(math.log10(a))
    return f"{v:,.{digits}f}"


def fpct(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:,.0f}%"
    return f"{fnum(v, 2)}%"


def pct(x, sign=True):
    """A fraction as a percentage, with more digits when it is small."""
    digits = 2 if abs(x) < 0.01 else 1
    return f"{x:+.{digits}%}" if sign else f"{x:.{digits}%}"


def md_table(header, rows, align=None):
    align = align or ["---"] + ["---:"] * (len(header) - 1)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def mib(value_bytes):
    return value_bytes / MIB


def parse_size(text):
    """A spec value (`64MiB`, `8T`, 256) as a number."""
    text = str(text).strip()
    mult = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
            "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    for suffix in ("KiB", "MiB", "GiB", "TiB", "K", "M", "G", "T"):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * mult[suffix]
    return float(text)


def pareto(points):
    """Indices of the points (x, y) no other point beats: x and y both to be
    minimised; a point equal in both to an earlier one is dominated."""
    keep = []
    for i, (x, y) in enumerate(points):
        dominated = False
        for j, (u, v) in enumerate(points):
            if j == i:
                continue
            if u <= x and v <= y and (u < x or v < y or j < i):
                dominated = True
                break
        if not dominated:
            keep.append(i)
    return keep


# ---------------------------------------------------------------------------
# SVG plots
# ---------------------------------------------------------------------------

COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
           "#000000", "#882255"]
MARKERS = ["circle", "square", "triangle", "diamond", "triangle-down", "plus",
           "star", "cross"]
DASHES = [None, "7,4", "2,3", "9,3,2,3"]
FONT = "Helvetica, Arial, sans-serif"
BAND = "#ececec"


def text_width(text, size):
    return 0.58 * size * len(text)


class Style:
    def __init__(self, i, dash=None, colour=None, marker=None):
        self.colour = colour or COLOURS[i % len(COLOURS)]
        self.marker = marker or MARKERS[i % len(MARKERS)]
        self.dash = dash


NEUTRAL = Style(0, colour="#555555", marker="circle")


def marker_svg(style, x, y, tip, hollow=False, size=7.0):
    c = style.colour
    fill = "#ffffff" if hollow else c
    attrs = f'fill="{fill}" stroke="{c}" stroke-width="1.4"'
    h = size / 2
    k = style.marker
    if k == "circle":
        shape = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{h:.1f}" {attrs}>'
        end = "</circle>"
    elif k == "square":
        s = h * 0.9
        shape = f'<rect x="{x - s:.1f}" y="{y - s:.1f}" width="{2 * s:.1f}" height="{2 * s:.1f}" {attrs}>'
        end = "</rect>"
    else:
        if k == "triangle":
            pts = [(0, -1.2), (1.1, 0.8), (-1.1, 0.8)]
        elif k == "triangle-down":
            pts = [(0, 1.2), (1.1, -0.8), (-1.1, -0.8)]
        elif k == "diamond":
            pts = [(0, -1.25), (1.0, 0), (0, 1.25), (-1.0, 0)]
        elif k == "plus":
            a, b = 0.38, 1.15
            pts = [(-a, -b), (a, -b), (a, -a), (b, -a), (b, a), (a, a), (a, b), (-a, b),
                   (-a, a), (-b, a), (-b, -a), (-a, -a)]
        elif k == "cross":
            a, b = 0.38, 1.15
            base = [(-a, -b), (a, -b), (a, -a), (b, -a), (b, a), (a, a), (a, b), (-a, b),
                    (-a, a), (-b, a), (-b, -a), (-a, -a)]
            r = math.sqrt(0.5)
            pts = [((p - q) * r, (p + q) * r) for p, q in base]
        else:  # star
            pts = []
            for i in range(10):
                ang = -math.pi / 2 + i * math.pi / 5
                rad = 1.3 if i % 2 == 0 else 0.55
                pts.append((rad * math.cos(ang), rad * math.sin(ang)))
        p = " ".join(f"{x + u * h:.1f},{y + v * h:.1f}" for u, v in pts)
        shape = f'<polygon points="{p}" {attrs}>'
        end = "</polygon>"
    if tip:
        return f"{shape}<title>{escape(tip)}</title>{end}"
    return shape + end


class Axis:
    """A linear, log10 or log2 axis. `fmt` formats a tick label."""

    def __init__(self, label, scale="lin", fmt=None, zero=False, lo=None, hi=None, step=None):
        self.label, self.scale, self.fmt, self.zero = label, scale, fmt, zero
        self.step = step
        self.lo, self.hi = lo, hi
        self.fixed = lo is not None and hi is not None
        self.ticks = []  # (value, label or None, major)

    def _f(self, v):
        if self.fmt:
            return self.fmt(v)
        if v == 0:
            return "0"
        a = abs(v)
        if a >= 1e6 or a < 1e-4:
            return f"{v:.0e}".replace("e+0", "e").replace("e-0", "e-")
        if a >= 1000:
            return f"{v:,.0f}"
        if a < 1e-3:
            return f"{v:.6f}".rstrip("0")
        return f"{v:.6g}"

    def fit(self, values):
        vals = [v for v in values if v is not None and math.isfinite(v)]
        if self.scale != "lin":
            vals = [v for v in vals if v > 0]
        if not vals:
            vals = [1.0, 10.0]
        lo, hi = min(vals), max(vals)
        if self.scale == "lin":
            self._fit_lin(lo, hi)
        elif self.scale == "log10":
            self._fit_log10(lo, hi)
        else:
            self._fit_log2(lo, hi)

    def _fit_lin(self, lo, hi):
        if self.zero:
            lo = min(lo, 0.0)
        span = (hi - lo or abs(hi) or 1.0) if not self.fixed else self.hi - self.lo
        step = self.step
        if step is None:
            raw = span / 5
            mag = 10 ** math.floor(math.log10(raw))
            step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
        if not self.fixed:
            plo = lo if (self.zero and lo == 0) else lo - 0.04 * span
            self.lo = math.floor(plo / step + 1e-9) * step
            self.hi = math.ceil((hi + 0.04 * span) / step - 1e-9) * step
        self.ticks = []
        k = math.ceil(self.lo / step - 1e-9)
        while k * step <= self.hi + 1e-9 * step:
            v = round(k * step, 12)
            self.ticks.append((v, self._f(v), True))
            k += 1

    def _fit_log10(self, lo, hi):
        def down(v):
            e = math.floor(math.log10(v))
            for m in (5, 2, 1):
                if m * 10 ** e <= v:
                    return m * 10 ** e
            return 10 ** e

        def up(v):
            e = math.floor(math.log10(v))
            for m in (1, 2, 5, 10):
                if m * 10 ** e >= v * (1 - 1e-12):
                    return m * 10 ** e
            return 10 ** (e + 1)

        if not self.fixed:
            self.lo, self.hi = down(lo / 1.12), up(hi * 1.12)
        majors, minors = [], []
        for e in range(math.floor(math.log10(self.lo)) - 1, math.ceil(math.log10(self.hi)) + 1):
            for m in range(1, 10):
                v = m * 10.0 ** e
                if self.lo * (1 - 1e-9) <= v <= self.hi * (1 + 1e-9):
                    (majors if m == 1 else minors).append((m, v))
        label_125 = len(majors) < 3
        self.ticks = [(v, self._f(v), True) for _, v in majors]
        self.ticks += [(v, self._f(v) if label_125 and m in (2, 5) else None, False)
                       for m, v in minors]

    def _fit_log2(self, lo, hi):
        if not self.fixed:
            self.lo, self.hi = lo / 2 ** 0.35, hi * 2 ** 0.35
        ks = range(math.ceil(math.log2(self.lo)), math.floor(math.log2(self.hi)) + 1)
        ks = list(ks)
        every = 1 if len(ks) <= 12 else 2
        self.ticks = [(2.0 ** k, self._f(2.0 ** k) if (k - ks[0]) % every == 0 else None, True)
                      for k in ks]

    def frac(self, v):
        if self.scale == "lin":
            return (v - self.lo) / (self.hi - self.lo)
        return (math.log(v) - math.log(self.lo)) / (math.log(self.hi) - math.log(self.lo))


class Series:
    def __init__(self, name, style, points, line=True, hollow=(), labels=None):
        """points: (x, y, tooltip); hollow: indices drawn hollow (dominated);
        labels: index -> text drawn next to the point."""
        self.name, self.style, self.points, self.line = name, style, points, line
        self.hollow = set(hollow)
        self.labels = labels or {}
        self.front = None  # indices joined as a Pareto front, in x order


class Panel:
    def __init__(self, title, xaxis, yaxis):
        self.title, self.xaxis, self.yaxis = title, xaxis, yaxis
        self.series = []
        self.vlines = []  # (x, text, style)
        self.hlines = []  # (y, text)
        self.vbands = []  # (x from, x to, text): shaded behind the data


class Figure:
    PW, PH = 430, 300         # plot area of one panel
    ML, MR, MT, MB = 78, 26, 40, 58

    def __init__(self, title, panels, ncols=None, notes=(), extra_legend=()):
        self.title, self.panels = title, panels
        self.ncols = ncols or len(panels)
        self.notes = list(notes)
        self.extra_legend = list(extra_legend)  # (kind, text, style)

    def legend_entries(self):
        seen, out = set(), []
        for p in self.panels:
            for s in p.series:
                if s.name and s.name not in seen:
                    seen.add(s.name)
                    out.append(("series", s.name, s.style, s.line or s.front is not None))
            for x, text, style in p.vlines:
                if text and text not in seen:
                    seen.add(text)
                    out.append(("vline", text, style, True))
            for a, b, text in p.vbands:
                if text and text not in seen:
                    seen.add(text)
                    out.append(("band", text, NEUTRAL, True))
        out += [(k, t, s, True) for k, t, s in self.extra_legend]
        return out

    def render(self):
        nrows = math.ceil(len(self.panels) / self.ncols)
        cell_w = self.ML + self.PW + self.MR
        cell_h = self.MT + self.PH + self.MB
        top = 42
        entries = self.legend_entries()
        legend_w = 24 + max([56 + text_width(e[1], 12) for e in entries] + [0])
        width = 10 + self.ncols * cell_w + legend_w
        title_w = text_width(self.title, 16) + 20
        width = max(width, title_w)
        notes_h = 18 * len(self.notes) + (8 if self.notes else 0)
        height = top + nrows * cell_h + notes_h + 4
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
               f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}" font-size="12">',
               f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
               f'<text x="14" y="26" font-size="16" font-weight="bold">{escape(self.title)}</text>']
        for i, panel in enumerate(self.panels):
            r, c = divmod(i, self.ncols)
            x0 = 10 + c * cell_w + self.ML
            y0 = top + r * cell_h + self.MT
            out.append(self.render_panel(panel, x0, y0))
        # Legend: right of the panels, outside every plot area.
        lx = 10 + self.ncols * cell_w + 12
        ly = top + self.MT + 4
        out.append(f'<g><text x="{lx:.0f}" y="{ly:.0f}" font-weight="bold">Legend</text>')
        for k, (kind, text, style, line) in enumerate(entries):
            y = ly + 20 + 20 * k
            if kind == "vline":
                out.append(f'<line x1="{lx + 20:.0f}" y1="{y - 8:.0f}" x2="{lx + 20:.0f}" y2="{y + 8:.0f}" '
                           f'stroke="{style.colour}" stroke-width="1.5" stroke-dasharray="{style.dash or "3,3"}"/>')
            elif kind == "band":
                out.append(f'<rect x="{lx + 8:.0f}" y="{y - 7:.0f}" width="24" height="14" fill="{BAND}" stroke="#bbbbbb"/>')
            elif kind == "front":
                out.append(f'<line x1="{lx:.0f}" y1="{y:.0f}" x2="{lx + 40:.0f}" y2="{y:.0f}" '
                           f'stroke="{style.colour}" stroke-width="2"/>')
            elif kind == "hollow":
                out.append(marker_svg(style, lx + 20, y, "", hollow=True))
            elif kind == "filled":
                out.append(marker_svg(style, lx + 20, y, "", hollow=False))
            else:
                if line:
                    dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
                    out.append(f'<line x1="{lx:.0f}" y1="{y:.0f}" x2="{lx + 40:.0f}" y2="{y:.0f}" '
                               f'stroke="{style.colour}" stroke-width="1.8"{dash}/>')
                out.append(marker_svg(style, lx + 20, y, ""))
            out.append(f'<text x="{lx + 50:.0f}" y="{y + 4:.0f}">{escape(text)}</text>')
        out.append("</g>")
        ny = top + nrows * cell_h + 14
        for k, note in enumerate(self.notes):
            out.append(f'<text x="14" y="{ny + 18 * k:.0f}" font-size="11" fill="#444444">{escape(note)}</text>')
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def render_panel(self, p, x0, y0):
        W, H = self.PW, self.PH
        xs, ys = [], []
        for s in p.series:
            xs += [pt[0] for pt in s.points]
            ys += [pt[1] for pt in s.points]
        xs += [v[0] for v in p.vlines]
        ys += [h[0] for h in p.hlines]
        p.xaxis.fit(xs)
        p.yaxis.fit(ys)

        def X(v):
            return x0 + W * p.xaxis.frac(v)

        def Y(v):
            return y0 + H * (1 - p.yaxis.frac(v))

        out = ["<g>", f'<text x="{x0 + W / 2:.0f}" y="{y0 - 12:.0f}" text-anchor="middle" '
               f'font-size="13" font-weight="bold">{escape(p.title)}</text>',
               f'<rect x="{x0}" y="{y0}" width="{W}" height="{H}" fill="#ffffff" stroke="none"/>']
        for a, b, text in p.vbands:
            xa, xb = max(x0, X(a)), min(x0 + W, X(b))
            out.append(f'<rect x="{xa:.1f}" y="{y0}" width="{xb - xa:.1f}" height="{H}" fill="{BAND}">'
                       f'<title>{escape(text)}</title></rect>')
        # grid and ticks
        for v, label, major in p.xaxis.ticks:
            x = X(v)
            out.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + H}" '
                       f'stroke="{"#dddddd" if major else "#f0f0f0"}" stroke-width="1"/>')
            out.append(f'<line x1="{x:.1f}" y1="{y0 + H}" x2="{x:.1f}" y2="{y0 + H + (5 if major else 3)}" stroke="#444444"/>')
            if label:
                out.append(f'<text x="{x:.1f}" y="{y0 + H + 18}" text-anchor="middle" font-size="11">{escape(label)}</text>')
        ytw = 0
        for v, label, major in p.yaxis.ticks:
            y = Y(v)
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + W}" y2="{y:.1f}" '
                       f'stroke="{"#dddddd" if major else "#f0f0f0"}" stroke-width="1"/>')
            out.append(f'<line x1="{x0 - (5 if major else 3)}" y1="{y:.1f}" x2="{x0}" y2="{y:.1f}" stroke="#444444"/>')
            if label:
                ytw = max(ytw, text_width(label, 11))
                out.append(f'<text x="{x0 - 8}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{escape(label)}</text>')
        out.append(f'<rect x="{x0}" y="{y0}" width="{W}" height="{H}" fill="none" stroke="#444444"/>')
        out.append(f'<text x="{x0 + W / 2:.0f}" y="{y0 + H + 40}" text-anchor="middle">{escape(p.xaxis.label)}</text>')
        yl = x0 - max(ytw, 20) - 16
        out.append(f'<text x="{yl:.0f}" y="{y0 + H / 2:.0f}" text-anchor="middle" '
                   f'transform="rotate(-90 {yl:.0f} {y0 + H / 2:.0f})">{escape(p.yaxis.label)}</text>')
        # reference lines
        for v, text in p.hlines:
            y = Y(v)
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + W}" y2="{y:.1f}" stroke="#777777" '
                       f'stroke-width="1" stroke-dasharray="4,3"><title>{escape(text)}</title></line>')
        for v, text, style in p.vlines:
            x = X(v)
            out.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + H}" stroke="{style.colour}" '
                       f'stroke-width="1.5" stroke-dasharray="{style.dash or "3,3"}"><title>{escape(text)}</title></line>')
        # lines, then markers, then labels
        boxes, segs = [], []
        for s in p.series:
            order = None
            if s.front is not None:
                order = s.front
            elif s.line:
                order = sorted(range(len(s.points)), key=lambda i: s.points[i][0])
            if order and len(order) > 1:
                pts = [(X(s.points[i][0]), Y(s.points[i][1])) for i in order]
                d = " ".join(f"{'M' if k == 0 else 'L'}{x:.1f},{y:.1f}" for k, (x, y) in enumerate(pts))
                dash = f' stroke-dasharray="{s.style.dash}"' if s.style.dash else ""
                out.append(f'<path d="{d}" fill="none" stroke="{s.style.colour}" stroke-width="1.8"{dash}/>')
                segs += list(zip(pts, pts[1:]))
        for filled in (False, True):  # dominated (hollow) points below the others
            for s in p.series:
                for i, (x, y, tip) in enumerate(s.points):
                    if (i not in s.hollow) != filled:
                        continue
                    px, py = X(x), Y(y)
                    out.append(marker_svg(s.style, px, py, tip, hollow=i in s.hollow))
                    boxes.append((px - 5, py - 5, px + 5, py + 5))
        # labels next to points, placed where they overlap nothing placed so far
        for s in p.series:
            for i, text in sorted(s.labels.items()):
                x, y, _ = s.points[i]
                px, py = X(x), Y(y)
                out.append(self.place_label(text, px, py, boxes, segs, x0, y0, W, H, s.style.colour))
        out.append("</g>")
        return "\n".join(out)

    @staticmethod
    def place_label(text, px, py, boxes, segs, x0, y0, W, H, colour):
        w, h = text_width(text, 11), 11
        cands = [(8, 4, "start"), (-8, 4, "end"), (0, -9, "middle"), (0, 17, "middle"),
                 (7, -7, "start"), (7, 15, "start"), (-7, -7, "end"), (-7, 15, "end"),
                 (14, 4, "start"), (-14, 4, "end"), (0, -16, "middle"), (0, 24, "middle")]

        def box(dx, dy, anchor):
            bx = px + dx - (w if anchor == "end" else w / 2 if anchor == "middle" else 0)
            by = py + dy - h + 2
            return (bx - 1, by - 1, bx + w + 1, by + h + 1)

        def overlap(b):
            cost = 0.0
            for o in boxes:
                ix = min(b[2], o[2]) - max(b[0], o[0])
                iy = min(b[3], o[3]) - max(b[1], o[1])
                if ix > 0 and iy > 0:
                    cost += ix * iy
            for (ax, ay), (bx, by) in segs:
                n = max(2, int(math.hypot(bx - ax, by - ay) / 3))
                for k in range(n + 1):
                    sx, sy = ax + (bx - ax) * k / n, ay + (by - ay) * k / n
                    if b[0] <= sx <= b[2] and b[1] <= sy <= b[3]:
                        cost += 6
            if b[0] < x0 or b[2] > x0 + W or b[1] < y0 or b[3] > y0 + H:
                cost += 1e6
            return cost

        best = None
        for dx, dy, anchor in cands:
            b = box(dx, dy, anchor)
            c = overlap(b)
            if best is None or c < best[0]:
                best = (c, dx, dy, anchor, b)
            if c == 0:
                break
        _, dx, dy, anchor, b = best
        boxes.append(b)
        return (f'<text x="{px + dx:.1f}" y="{py + dy:.1f}" text-anchor="{anchor}" font-size="11" '
                f'fill="{colour}">{escape(text)}</text>')


def write_svg(fig, path):
    text = fig.render()
    xml.dom.minidom.parseString(text.encode("utf-8"))  # well-formed, or raise
    if len(text.encode("utf-8")) >= 100_000:
        raise RuntimeError(f"{path}: {len(text)} bytes, over the 100 KB budget")
    with open(path, "w") as f:
        f.write(text)


def energy_panel(title, x_axis, good, workloads, x_key, style, tip):
    """A panel of energy per token against the column `x_key`, one series
    per workload (style(k) for the k-th; tip(workload, row) on each point)."""
    panel = Panel(title, x_axis, Axis("energy per token (J, log)", "log10"))
    for k, wl in enumerate(workloads):
        wr = sorted([r for r in good if r["workload"] == wl and j_per_token(r)],
                    key=lambda r: r[x_key])
        panel.series.append(Series(nice(wl), style(k), [
            (r[x_key], j_per_token(r), tip(wl, r)) for r in wr]))
    return panel


def fmt_mib(v):
    return f"{v:g}"


def fmt_ms(v):
    return f"{v:,.0f}" if v >= 1000 else f"{v:.6g}"


# ---------------------------------------------------------------------------
# Shared analysis
# ---------------------------------------------------------------------------

def floors(targets, r):
    """Lower bounds of a step: its HBM bytes at the sustained bandwidth and its
    padded FLOPs at the sustained bf16 matrix rate, in ms."""
    name = r["target"]
    hbm = r["hbm_bytes"] / targets.sustained_bw(name) * 1e3
    mat = r["padded_flops"] / targets.matrix_rate(name) * 1e3
    return hbm, mat


def assumption(targets, base, field):
    """'`field` = value [tag]' for a target field, its tag from the source."""
    val = targets.field(base, field)
    src = targets.source(base, field)
    tag = re.match(r"\s*(\[[^\]]+\])", src)
    return val, (tag.group(1) if tag else ""), src


def error_list(rows):
    return [r for r in rows if r["error"]]


# ---------------------------------------------------------------------------
# Study 1: SRAM per core
# ---------------------------------------------------------------------------

def study_sram(ctx, csv_path, spec_rel, spec=None):
    columns, rows = read_csv(csv_path)
    proxies = has_proxies(columns)
    good = ok_rows(rows)
    field = "tpu.vmem_bytes_per_core"
    for r in rows:
        r["sram_mib"] = mib(parse_size(r[field])) if r.get(field) else None
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    T = ctx.targets
    md = []
    svgs = []

    # Plot 1: the step and its parts against SRAM.
    parts = [("step (time_us)", "time_us"), ("MoE experts (moe_us)", "moe_us"),
             ("attention (attention_us)", "attention_us"), ("rest = step - MoE - attention", "rest")]
    panels = []
    negative_rest = []
    for wl in workloads:
        wr = sorted([r for r in good if r["workload"] == wl], key=lambda r: r["sram_mib"])
        panel = Panel(nice(wl), Axis("SRAM per core (MiB, log2)", "log2", fmt_mib),
                      Axis("time per step (ms, log)", "log10", fmt_ms))
        for k, (label, key) in enumerate(parts):
            pts = []
            for r in wr:
                v = r[key] if key != "rest" else r["time_us"] - r["moe_us"] - r["attention_us"]
                if v is None or v <= 0:
                    if key == "rest" and v is not None and v <= 0:
                        negative_rest.append((wl, r["sram_mib"]))
                    continue
                pts.append((r["sram_mib"], v / 1e3,
                            f"{nice(wl)}, {fmt_mib(r['sram_mib'])} MiB: {label.split(' (')[0].split(' =')[0]} "
                            f"{v / 1e3:,.3f} ms"))
            panel.series.append(Series(label, Style(k, DASHES[k % len(DASHES)]), pts))
        panels.append(panel)
    fig = Figure("Study 1: DeepSeek-V3 step time vs SRAM per core on tpu-v7", panels,
                 notes=["Lines: the step and its parts; 'rest' is every kernel that is neither an MoE "
                        "expert nor attention (dense GEMMs, norms, router, copies).",
                        "Hover a point for its exact value."])
    svgs.append(("sram-time.svg", fig, "Study 1: step time and its parts against SRAM per core"))

    # Plot 2: Pareto front of ms per token against area (or SRAM).
    panel = Panel("ms per token vs " + ("area proxy" if proxies else "SRAM per core"),
                  Axis("chip area proxy (mm², area_mm2)", "lin") if proxies
                  else Axis("SRAM per core (MiB, log2)", "log2", fmt_mib),
                  Axis("time per token (ms, log)", "log10", fmt_ms))
    fronts = {}
    for k, wl in enumerate(workloads):
        wr = sorted([r for r in good if r["workload"] == wl], key=lambda r: r["sram_mib"])
        xy = [((r["area_mm2"] if proxies else r["sram_mib"]), r["ms_per_token"]) for r in wr]
        front = pareto(xy)
        fronts[wl] = [wr[i] for i in front]
        pts = []
        for r, (x, y) in zip(wr, xy):
            tip = f"{nice(wl)}, {fmt_mib(r['sram_mib'])} MiB per core: {y:.4g} ms per token"
            if proxies:
                tip += f", {x:.1f} mm²"
            tip += " (Pareto-optimal)" if r in fronts[wl] else " (dominated)"
            pts.append((x, y, tip))
        s = Series(nice(wl), Style(k), pts, line=False,
                   hollow=[i for i in range(len(wr)) if i not in front],
                   labels={i: f"{fmt_mib(wr[i]['sram_mib'])} MiB" for i in front})
        s.front = sorted(front, key=lambda i: xy[i][0])
        panel.series.append(s)
    grey = NEUTRAL
    fig = Figure("Study 1: Pareto front of time per token vs "
                 + ("chip area proxy" if proxies else "SRAM per core") + " (tpu-v7)", [panel],
                 extra_legend=[("hollow", "dominated point", grey),
                               ("filled", "Pareto-optimal (joined, labelled)", grey)],
                 notes=["Labels: SRAM per core. Lower and further left is better; a hollow marker has "
                        "another point no larger and no slower."])
    svgs.append(("sram-pareto.svg", fig, "Study 1: Pareto front"))

    if proxies:
        panel = energy_panel(
            "energy per token vs SRAM per core",
            Axis("SRAM per core (MiB, log2)", "log2", fmt_mib), good, workloads, "sram_mib",
            Style, lambda wl, r: f"{nice(wl)}, {fmt_mib(r['sram_mib'])} MiB: "
                                 f"{j_per_token(r):.4g} J per token, {r['energy_j']:.4g} J per step")
        fig = Figure("Study 1: energy proxy per token vs SRAM per core (tpu-v7)", [panel])
        svgs.append(("sram-energy.svg", fig, "Study 1: energy per token"))

    # Markdown.
    md.append("## Study 1: SRAM per core vs MoE and attention time (tpu-v7)\n")
    md.append("**Question.** How much on-chip SRAM per TensorCore does DeepSeek-V3 need on a "
              "TPU-like chip before more stops paying, and which kernels pay for less? tpu-v7 "
              "as built has 64 MiB of VMEM per core (two cores).\n")
    md.append(f"**Spec.** [`{spec_rel}`](../{spec_rel}): tpu-v7 with `tpu.vmem_bytes_per_core` "
              f"from 1 MiB to 256 MiB; DeepSeek-V3 prefill of 4K tokens and decode at batch 64 "
              f"(context 4095). Table: [`design-space/sram.csv`](design-space/sram.csv).\n")
    md.append("Columns: the step (`time_us`) and its MoE-expert (`moe_us`) and attention "
              "(`attention_us`) kernels, the rest, ms per token (step / tokens), HBM traffic, "
              "padded over useful matrix FLOPs, and the step over its *floor*: the larger of its "
              "HBM bytes at the sustained bandwidth and its padded FLOPs at the sustained bf16 "
              "matrix rate (a lower bound; what exceeds it is per-step and per-DMA cost, fill, "
              "drain and imbalance, `overhead` in docs/cost-model-tpu.md, \"The pipelined tile "
              "loop\", and the kernels running one after another: a memory-bound kernel does not "
              "hide a compute-bound one).\n")
    T.prefetch(r["target"] for r in good)
    for wl in workloads:
        wr = sorted([r for r in rows if r["workload"] == wl], key=lambda r: r["sram_mib"] or 0)
        header = ["SRAM/core (MiB)", "step (ms)", "MoE (ms)", "attention (ms)", "rest (ms)",
                  "ms/token", "HBM (GB)", "padded/useful", "step/floor"]
        if proxies:
            header += ["area (mm²)", "J/token"]
        body = []
        for r in wr:
            if r["error"]:
                body.append([fmt_mib(r["sram_mib"])] + ["error"] * (len(header) - 1))
                continue
            hb, mt = floors(T, r)
            rest = r["time_us"] - r["moe_us"] - r["attention_us"]
            row = [fmt_mib(r["sram_mib"]), fnum(r["time_us"] / 1e3, 4), fnum(r["moe_us"] / 1e3, 4),
                   fnum(r["attention_us"] / 1e3, 3), fnum(rest / 1e3, 3),
                   fnum(r["ms_per_token"], 3), fnum(r["hbm_bytes"] / 1e9, 3),
                   fnum(r["padded_flops"] / r["flops"], 3), fnum(r["time_us"] / 1e3 / max(hb, mt), 3)]
            if proxies:
                row += [fnum(r["area_mm2"], 4), fnum(j_per_token(r), 3)]
            body.append(row)
        md.append(f"**{nice(wl)}**\n")
        md.append(md_table(header, body) + "\n")
    md.append("![Study 1: step time and its parts against SRAM per core](design-space/sram-time.svg)\n")
    md.append("![Study 1: Pareto front of time per token](design-space/sram-pareto.svg)\n")
    if proxies:
        md.append("![Study 1: energy proxy per token against SRAM per core](design-space/sram-energy.svg)\n")
    if negative_rest:
        md.append("Points where the MoE and attention kernels add up to more than the step (no "
                  "'rest' to draw on a log axis): "
                  + ", ".join(f"{nice(w)} at {fmt_mib(m)} MiB" for w, m in negative_rest) + ".\n")

    md.append("**Reading.**\n")
    md.append(study_sram_reading(ctx, good, workloads, fronts, proxies, spec))
    return "\n".join(md), svgs, rows, columns


def by_sram(rows, wl):
    return {r["sram_mib"]: r for r in rows if r["workload"] == wl}


def study_sram_reading(ctx, good, workloads, fronts, proxies, spec):
    T = ctx.targets
    paras = []
    built = mib(T.field("tpu-v7", "tpu.vmem_bytes_per_core"))
    for wl in workloads:
        d = by_sram(good, wl)
        if built not in d or len(d) < 3:
            continue
        ref = d[built]
        sizes = sorted(d)
        small, big = sizes[0], sizes[-1]
        rs, rb = d[small], d[big]
        moe_share_ref = ref["moe_us"] / ref["time_us"]
        moe_share_small = rs["moe_us"] / rs["time_us"]
        half = d.get(built / 2)
        quarter = d.get(built / 4)
        hb, mt = floors(T, rs)
        # Where the step first comes within 10% of the largest size's.
        knee = next((m for m in sizes if d[m]["time_us"] <= 1.10 * rb["time_us"]), None)
        plateau = next((m for m in sizes if d[m]["time_us"] <= rb["time_us"] * (1 + 1e-9)), None)
        text = (f"*{nice(wl)}.* At tpu-v7's {fmt_mib(built)} MiB the step is "
                f"{fnum(ref['time_us'] / 1e3, 4)} ms, {moe_share_ref:.0%} of it in the MoE experts' "
                f"kernel. ")
        if half and quarter:
            text += (f"Halving the SRAM costs {pct(half['time_us'] / ref['time_us'] - 1)}, quartering "
                     f"it {pct(quarter['time_us'] / ref['time_us'] - 1)}; ")
        text += (f"at {fmt_mib(small)} MiB the step is {rs['time_us'] / ref['time_us']:.1f}x "
                 f"({fnum(rs['time_us'] / 1e3, 4)} ms), {moe_share_small:.0%} of it MoE. "
                 f"{fmt_mib(big)} MiB buys {pct(1 - rb['time_us'] / ref['time_us'], sign=False)} over "
                 f"{fmt_mib(built)} MiB")
        if plateau is not None and plateau < big:
            text += f" (the step does not change from {fmt_mib(plateau)} MiB up)"
        text += ". "
        if knee is not None:
            text += (f"The step is within 10% of the {fmt_mib(big)} MiB one from {fmt_mib(knee)} MiB "
                     f"per core up. ")
        gb = rs["hbm_bytes"] / ref["hbm_bytes"]
        gf = rs["padded_flops"] / ref["padded_flops"]
        if max(gb, gf) < 1.1:
            text += (f"Going down, the HBM traffic and the padded matrix FLOPs hardly change "
                     f"({gb:.2f}x and {gf:.2f}x at {fmt_mib(small)} MiB), so the growth is all in "
                     f"per-step cost: ")
        else:
            text += (f"Going down, the HBM traffic grows {gb:.1f}x and the padded matrix FLOPs "
                     f"{gf:.1f}x (at {fmt_mib(small)} MiB), but the step grows more: ")
        text += (f"at {fmt_mib(small)} MiB it is {rs['time_us'] / 1e3 / max(hb, mt):.1f}x its floor "
                 f"(HBM {fnum(hb, 3)} ms, matrix {fnum(mt, 3)} ms), against "
                 f"{ref['time_us'] / 1e3 / max(floors(T, ref)):.2f}x at {fmt_mib(built)} MiB.")
        if proxies:
            jt = {m: j_per_token(d[m]) for m in sizes if j_per_token(d[m])}
            if jt:
                best = min(jt, key=jt.get)
                text += (f" Energy per token (proxy) is lowest at {fmt_mib(best)} MiB "
                         f"({jt[best]:.3g} J); {fmt_mib(small)} MiB costs {jt[small] / jt[best]:.2f}x "
                         f"that, and {fmt_mib(big)} MiB {jt[big] / jt[best]:.2f}x, where the SRAM's "
                         f"area adds static power (`static_w_per_mm2`, [A]) faster than the step "
                         f"shrinks.")
        paras.append(text)
    paras.append(
        "Why: with less SRAM the tile search takes smaller tiles, so every tile loop has more "
        "grid steps and DMAs, and the cost model charges each step `tpu.grid_step_overhead_ns` "
        "and each DMA `tpu.dma_setup_latency_ns` (spread over `tpu.dma_engines_per_core`), the "
        "gathered MoE rows `tpu.dma_setup_latency_ns` per `tpu.row_dmas_in_flight_per_core` "
        "(docs/cost-model-tpu.md, \"The pipelined tile loop\" and \"gated_mlp and moe_ffn\"). In "
        "the MoE experts' kernel below ~16 MiB the weights are read one D chunk at a time, and at "
        "2 MiB in M tiles of 16 rows, so in prefill each expert's weights stream once per 16 of "
        "its rows (prefill's HBM growth; at 1 MiB the prefill's MoE kernel has no tile beside "
        "the dispatch's `where`, docs/cost-model-tpu.md, \"What the routed phase holds\"), and "
        "a 16-row tile still costs the matrix unit a full "
        "`g`-row pass (the streamed-rows floor, docs/cost-model-tpu.md, \"Matrix unit\": "
        "prefill's padded-FLOP growth). Decode has only a few rows per expert at any size, so "
        "its bytes and FLOPs stay put and only the per-step charges grow. The step/floor column "
        "says those charges, not bytes or FLOPs, dominate the small sizes: how steep the cliff "
        "is rests on the [A] values of the fields named here (table at the end), not only on "
        "the SRAM.")
    # Decode attention rising with SRAM while the step falls.
    for wl in workloads:
        d = by_sram(good, wl)
        sizes = sorted(d)
        for a, b in zip(sizes, sizes[1:]):
            if (d[b]["attention_us"] > 1.05 * d[a]["attention_us"]
                    and d[b]["time_us"] <= d[a]["time_us"]):
                txt = (f"The attention column of {nice(wl)} rises from "
                       f"{fnum(d[a]['attention_us'] / 1e3, 3)} ms at {fmt_mib(a)} MiB to "
                       f"{fnum(d[b]['attention_us'] / 1e3, 3)} ms at {fmt_mib(b)} MiB while the step "
                       f"falls: ")
                absorbed = None
                w = next((x for x in (spec or {}).get("workloads", []) if x["name"] == wl), None)
                if w:
                    try:
                        ka = kernel_kinds(cost_report(ctx, w, d[a]["target"]))
                        kb = kernel_kinds(cost_report(ctx, w, d[b]["target"]))
                        absorbed = "mla_absorbed" in kb and "mla_absorbed" not in ka
                    except (ToolError, ValueError, KeyError):
                        absorbed = None
                if absorbed:
                    txt += (f"from {fmt_mib(b)} MiB the fusion decision puts the two absorbed-MLA "
                            f"projections into the attention kernel, `mla_absorbed` (the script compares the "
                            f"kernels `npu-opt --npu-report-cost` lists at {fmt_mib(a)} and "
                            f"{fmt_mib(b)} MiB; its working set at batch 64 is 26.9 MiB, "
                            f"docs/cost-model-tpu.md, \"attention\"), so `attention_us` counts those "
                            f"two GEMMs from there on.")
                else:
                    txt += ("the kernels `attention_us` counts are grouped differently at the two "
                            "sizes (compare their `npu-opt --npu-report-cost` tables).")
                paras.append(txt)
                break
        else:
            continue
        break
    front_txt = []
    for wl in workloads:
        f = fronts.get(wl, [])
        if f:
            front_txt.append(f"{nice(wl)}: " + ", ".join(f"{fmt_mib(r['sram_mib'])}" for r in
                                                         sorted(f, key=lambda r: r['sram_mib'])) + " MiB")
    if front_txt:
        basis = ("the chip area proxy (`area_mm2`: SRAM at its mm² per MiB, the same MXUs and HBM "
                 "PHYs for every point)" if proxies else
                 "the SRAM per core (no area column in this build's CSV)")
        paras.append("Pareto-optimal sizes against " + basis + ": " + "; ".join(front_txt)
                     + ". A size is dominated when a smaller one is as fast (the decode step is "
                       "the same from some size up).")
    return "\n\n".join(paras) + "\n"


# ---------------------------------------------------------------------------
# Study 2: matrix-unit width
# ---------------------------------------------------------------------------

KIND_GROUPS = [("MoE experts", ("moe_ffn",)), ("attention", ("attention", "mla_absorbed")),
               ("GEMMs and dense MLPs", ("gemm", "gated_mlp"))]


def import_flags(w):
    flags = [f"--phase={w['phase']}"]
    for key, flag in (("batch", "--batch"), ("seq_len", "--seq-len"),
                      ("context_len", "--context-len"), ("weights", "--weight-dtype")):
        if key in w:
            flags.append(f"{flag}={w[key]}")
    return flags


def cost_report(ctx, w, target, spec_dir=SWEEP_DIR):
    """npu-opt's cost report (schema npu-cost/1) of workload `w` (a spec entry)
    on a TPU-like `target`: the pipeline npu-sweep prices a point with."""
    cfg = os.path.normpath(os.path.join(spec_dir, w["config"]))
    imp = run_tool([os.path.join(ctx.bindir, "npu-translate"), "--import-hf-config", cfg]
                   + import_flags(w), f"npu-translate {w['name']}")
    rep = run_tool([os.path.join(ctx.bindir, "npu-opt"), f"--npu-tpu-pipeline=target={target}",
                    "--npu-report-cost=format=json", "-o", os.devnull],
                   f"npu-opt {w['name']} on {target}", stdin=imp.stdout)
    return json.loads(rep.stdout[rep.stdout.index("{"):])


def kernel_kinds(report):
    return {k["name"].split("(")[0].strip() for f in report["functions"] for k in f["kernels"]
            if not k["name"].startswith("call")}


def padding_split(ctx, spec, rows, width):
    """Per workload, on the variant of `width`: the padded minus useful matrix
    FLOPs by kernel kind, from npu-opt's cost report (schema npu-cost/1,
    docs/cost-model-tpu.md, "Report and trace"). {workload: {group: FLOPs}}."""
    jobs = []
    for w in spec["workloads"]:
        r = next((x for x in rows if x["workload"] == w["name"] and x["width"] == width
                  and not x["error"]), None)
        if r:
            jobs.append((w, r))

    def one(job):
        w, r = job
        report = cost_report(ctx, w, r["target"])
        extra, flops, padded = {}, 0.0, 0.0
        for f in report["functions"]:
            calls = f.get("calls") or 1  # the root (@model) reports 0 calls
            for k in f["kernels"]:
                kind = k["name"].split("(")[0].strip()
                if kind.startswith("call"):
                    continue
                group = next((g for g, kinds in KIND_GROUPS if kind in kinds), "other")
                extra[group] = extra.get(group, 0.0) + calls * (k["padded_flops"] - k["flops"])
                flops += calls * k["flops"]
                padded += calls * k["padded_flops"]
        # The report must add up to the sweep's row (the same compile).
        if abs(padded - r["padded_flops"]) > 1e-3 * r["padded_flops"] or \
                abs(flops - r["flops"]) > 1e-3 * r["flops"]:
            raise ToolError(f"{w['name']}: the cost report's FLOPs ({flops:.4g}, padded {padded:.4g}) "
                            f"differ from the sweep's ({r['flops']:.4g}, {r['padded_flops']:.4g})")
        return w["name"], extra

    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        return dict(pool.map(one, jobs))


def study_mxu(ctx, csv_path, spec_rel, dropped, spec):
    columns, rows = read_csv(csv_path)
    proxies = has_proxies(columns)
    good = ok_rows(rows)
    T = ctx.targets
    T.prefetch(r["target"] for r in good)
    for r in rows:
        w = r.get("tpu.matrix_unit_dim_elements")
        n = r.get("tpu.matrix_unit_count_per_core")
        r["width"] = int(float(w)) if w else None
        r["units"] = int(float(n)) if n else None
        if not r["error"] and r["flops"]:
            r["waste_pct"] = (r["padded_flops"] / r["flops"] - 1) * 100
        else:
            r["waste_pct"] = None
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    widths = sorted({r["width"] for r in rows if r["width"]})
    base_peak = T.field("tpu-v7", "peak_bf16_flop_per_s")
    peaks = {}
    for r in good:
        peaks[r["width"]] = T.field(r["target"], "peak_bf16_flop_per_s")
    units = {r["width"]: r["units"] for r in rows if r["width"]}
    cores = T.field("tpu-v7", "tpu.tensor_core_count")

    def wlabel(w):
        peak = peaks.get(w)
        rel = f", {peak / base_peak:g}x peak" if peak and abs(peak / base_peak - 1) > 1e-9 else ""
        return f"{w}x{w} x{units.get(w)}{rel}"

    def rel256(r):
        d = {x["width"]: x for x in good if x["workload"] == r["workload"]}
        return r["time_us"] / d[256]["time_us"] if 256 in d else None

    svgs, md = [], []
    # Plot: padding waste and time relative to 256 against width.
    p1 = Panel("padding waste vs matrix-unit width",
               Axis("matrix-unit width (elements, log2)", "log2", lambda v: f"{v:g}"),
               Axis("padding waste: padded/useful FLOPs - 1 (%, log)", "log10",
                    lambda v: f"{v:,.6g}"))
    p2 = Panel("time per step relative to the 256-wide chip",
               Axis("matrix-unit width (elements, log2)", "log2", lambda v: f"{v:g}"),
               Axis("step time / step time at width 256", "lin", lambda v: f"{v:g}"))
    p2.hlines.append((1.0, "the 256-wide chip (tpu-v7 as built)"))
    for k, wl in enumerate(workloads):
        wr = sorted([r for r in good if r["workload"] == wl], key=lambda r: r["width"])
        st = Style(k, DASHES[k % 2])
        p1.series.append(Series(nice(wl), st, [
            (r["width"], r["waste_pct"], f"{nice(wl)}, width {r['width']} x{r['units']}: padding "
             f"waste {r['waste_pct']:,.2f}% ({r['padded_flops']:.4g} padded / {r['flops']:.4g} FLOPs)")
            for r in wr if r["waste_pct"] and r["waste_pct"] > 0]))
        p2.series.append(Series(nice(wl), st, [
            (r["width"], rel256(r), f"{nice(wl)}, width {r['width']} x{r['units']}: "
             f"{r['time_us'] / 1e3:,.3f} ms, {rel256(r):.3f}x the 256-wide chip")
            for r in wr if rel256(r) is not None]))
    over = [w for w in widths if w in peaks and abs(peaks[w] / base_peak - 1) > 1e-9]
    if over:
        lo = min(over)
        below = max([w for w in widths if w < lo], default=lo / 2)
        for panel in (p1, p2):
            panel.vbands.append((math.sqrt(lo * below), lo * 4,
                                 "not iso-peak: " + ", ".join(f"width {w} has {peaks[w] / base_peak:g}x "
                                                              f"tpu-v7's peak" for w in over)))
    fig = Figure("Study 2: matrix-unit width vs padding waste and step time (tpu-v7, iso-peak "
                 "64/128/256)", [p1, p2],
                 notes=["Widths 64, 128 and 256 keep tpu-v7's peak (32, 8 and 2 units per core); 512 x1 "
                        "has twice the peak.",
                        "Padding waste is over the whole step (matrix FLOPs only); hover a point "
                        "for the exact values."])
    svgs.append(("mxu-width.svg", fig, "Study 2: padding waste and relative step time"))

    # Pareto per workload: time against the MXU area proxy.
    mac_um2 = ctx.proxy_value("mac_um2_bf16")
    panels = []
    fronts2 = {}
    for k, wl in enumerate(workloads):
        wr = sorted([r for r in good if r["workload"] == wl], key=lambda r: r["width"])
        if proxies:
            xs = [r["area_mm2"] for r in wr]
        else:
            xs = [cores * r["units"] * r["width"] ** 2 / 1e3 for r in wr]
        xy = [(x, r["time_us"] / 1e3) for x, r in zip(xs, wr)]
        front = pareto(xy)
        fronts2[wl] = [wr[i]["width"] for i in sorted(front, key=lambda i: xy[i][0])]
        panel = Panel(nice(wl),
                      Axis("chip area proxy (mm², area_mm2)" if proxies
                           else "MXU MAC cells per chip (thousands)", "lin"),
                      Axis("time per step (ms)", "lin", zero=False))
        s = Series("step time", Style(0), [
            (x, y, f"{nice(wl)}, width {r['width']} x{r['units']}: {y:,.3f} ms, "
             + (f"{x:.1f} mm²" if proxies else f"{x:,.0f}k MAC cells")
             + (" (Pareto-optimal)" if i in front else " (dominated)"))
            for i, ((x, y), r) in enumerate(zip(xy, wr))],
            line=False, hollow=[i for i in range(len(wr)) if i not in front],
            labels={i: str(r["width"]) for i, r in enumerate(wr)})
        s.front = sorted(front, key=lambda i: (xy[i][0], xy[i][1]))
        panel.series.append(s)
        panels.append(panel)
    grey = NEUTRAL
    fig = Figure("Study 2: Pareto front of step time vs "
                 + ("chip area proxy" if proxies else "MXU MAC cells") + " per workload (tpu-v7)",
                 panels, ncols=3,
                 extra_legend=[("hollow", "dominated point", grey),
                               ("filled", "Pareto-optimal (joined)", grey)],
                 notes=["Labels: matrix-unit width. The iso-peak widths (64, 128, 256) have the same "
                        + ("area proxy (the same MAC cells, SRAM and HBM PHYs); 512 x1 has twice the MAC cells."
                           if proxies else "MAC cells; 512 x1 has twice as many.")
                        + " y axes are per panel and do not start at 0."])
    svgs.append(("mxu-pareto.svg", fig, "Study 2: Pareto"))

    if proxies:
        panel = energy_panel(
            "energy per token vs width",
            Axis("matrix-unit width (elements, log2)", "log2", lambda v: f"{v:g}"), good,
            workloads, "width", lambda k: Style(k, DASHES[k % 2]),
            lambda wl, r: f"{nice(wl)}, width {r['width']}: {j_per_token(r):.4g} J per token")
        fig = Figure("Study 2: energy proxy per token vs matrix-unit width (tpu-v7)", [panel])
        svgs.append(("mxu-energy.svg", fig, "Study 2: energy per token"))

    md.append("## Study 2: matrix-unit width vs padding waste on real models (tpu-v7)\n")
    md.append("**Question.** A wide systolic array pads every product to its width; a narrow one "
              "needs more units for the same peak. At tpu-v7's peak, which width wastes least on "
              "real models, and does the waste show up in the step time?\n")
    pk = ", ".join(f"{w} x{units[w]}: {peaks[w] / 1e12:,.0f} TFLOP/s" for w in widths if w in peaks)
    md.append(f"**Spec.** [`{spec_rel}`](../{spec_rel}) (written by the script): tpu-v7 with "
              f"(`tpu.matrix_unit_dim_elements`, `tpu.matrix_unit_count_per_core`) = "
              f"(64, 32), (128, 8), (256, 2) and (512, 1), one target entry each. Overriding the "
              f"width scales the matrix peaks by its square and the count linearly "
              f"(docs/targets.md, \"Variants without a file\"), so the first three have tpu-v7's "
              f"peak and **512 x1 has twice it** (bf16 peak per variant, read back from "
              f"`npu-target-info`: {pk}). Table: "
              f"[`design-space/mxu-width.csv`](design-space/mxu-width.csv).\n")
    if dropped:
        md.append("Workloads dropped because they failed to import: "
                  + "; ".join(f"`{n}`: {why}" for n, why in dropped) + ".\n")
    for w in spec["workloads"]:
        _, cfg = config_of(spec, w["name"])
        if cfg.get("n_positions") and w["phase"] == "prefill":
            md.append(f"`{w['name']}`: the config's `n_positions` is {cfg['n_positions']} (a learned "
                      f"position table), so its prefill is at most {cfg['n_positions']} tokens; the "
                      f"spec asks for {w.get('seq_len')}.\n")
    md.append("Padding waste = `padded_flops / flops - 1`: the matrix unit's padding (a tile's rows "
              "padded to the 8 sublanes, its K and columns to the width, and the streamed-rows "
              "floor, docs/cost-model-tpu.md, \"Matrix unit\") over the step's useful FLOPs.\n")
    hdr = ["workload"] + [wlabel(w) for w in widths]
    body = []
    for wl in workloads:
        d = {r["width"]: r for r in rows if r["workload"] == wl}
        body.append([nice(wl)] + [("error" if d.get(w, {}).get("error") else fpct(d[w]["waste_pct"]))
                                  if w in d else "-" for w in widths])
    md.append("**Padding waste (%)**\n")
    md.append(md_table(hdr, body, ["---"] + ["---:"] * len(widths)) + "\n")
    body = []
    for wl in workloads:
        d = {r["width"]: r for r in rows if r["workload"] == wl}
        cells = []
        for w in widths:
            r = d.get(w)
            if not r:
                cells.append("-")
            elif r["error"]:
                cells.append("error")
            else:
                rr = rel256(r)
                cells.append(f"{fnum(r['time_us'] / 1e3, 4)} ({rr:.2f}x)" if rr else fnum(r["time_us"] / 1e3, 4))
        body.append([nice(wl)] + cells)
    md.append("**Step time, ms (relative to the 256-wide chip)**\n")
    md.append(md_table(hdr, body, ["---"] + ["---:"] * len(widths)) + "\n")
    body = []
    for wl in workloads:
        d = {r["width"]: r for r in good if r["workload"] == wl}
        body.append([nice(wl)] + [fnum(d[w]["attention_us"] / 1e3, 3) if w in d else "-" for w in widths])
    md.append("**Attention kernels, ms**\n")
    md.append(md_table(hdr, body, ["---"] + ["---:"] * len(widths)) + "\n")
    split, split_err = None, None
    own = T.field("tpu-v7", "tpu.matrix_unit_dim_elements")
    try:
        split = padding_split(ctx, spec, rows, own)
    except (ToolError, ValueError, KeyError) as e:
        split_err = str(e)
    if split:
        groups = [g for g, _ in KIND_GROUPS] + ["other"]
        body = []
        for wl in workloads:
            if wl not in split:
                continue
            ex = split[wl]
            tot = sum(v for v in ex.values() if v > 0)
            body.append([nice(wl)] + [f"{max(ex.get(g, 0.0), 0.0) / tot:.0%}" if tot else "-"
                                      for g in groups])
        md.append(f"**Where the padding sits at width {own}** (tpu-v7 as built): each kernel "
                  f"group's share of the step's padded minus useful FLOPs, from `npu-opt "
                  f"--npu-report-cost=format=json` on the same variant (the script checks that its "
                  f"totals are the sweep's)\n")
        md.append(md_table(["workload"] + groups, body) + "\n")
    elif split_err:
        md.append(f"(The split of the padding by kernel was not computed: {split_err}.)\n")
    ctx.split = split
    md.append("![Study 2: padding waste and step time against matrix-unit width](design-space/mxu-width.svg)\n")
    md.append("![Study 2: Pareto front of step time against the MXU area proxy](design-space/mxu-pareto.svg)\n")
    if proxies:
        md.append("![Study 2: energy proxy per token against width](design-space/mxu-energy.svg)\n")
    md.append("**Reading.**\n")
    md.append(study_mxu_reading(ctx, good, workloads, widths, peaks, base_peak, proxies, mac_um2, spec,
                                fronts2))
    return "\n".join(md), svgs, rows, columns


def config_of(spec, workload):
    for w in spec["workloads"]:
        if w["name"] == workload:
            with open(os.path.normpath(os.path.join(SWEEP_DIR, w["config"]))) as f:
                return w, json.load(f)
    return None, {}


def study_mxu_reading(ctx, good, workloads, widths, peaks, base_peak, proxies, mac_um2, spec,
                      fronts2):
    paras = []
    d = {(r["workload"], r["width"]): r for r in good}
    iso = [w for w in widths if w in peaks and abs(peaks[w] / base_peak - 1) < 1e-9]
    own = ctx.targets.field("tpu-v7", "tpu.matrix_unit_dim_elements")
    if own in iso and min(iso) < own:
        lo = min(iso)
        items, faster = [], 0
        for wl in workloads:
            a, b = d.get((wl, lo)), d.get((wl, own))
            if not a or not b:
                continue
            items.append(f"{nice(wl)} {fpct(b['waste_pct'])} -> {fpct(a['waste_pct'])} waste, step "
                         f"{a['time_us'] / b['time_us'] - 1:+.0%}")
            faster += a["time_us"] < b["time_us"]
        paras.append(
            f"At the same peak, the narrowest unit ({lo} wide, {units_txt(good, lo)} per core) pads "
            f"least, and it is the fastest of the iso-peak widths in "
            f"{sum(1 for wl in workloads if all(d.get((wl, lo)) and d.get((wl, w)) and d[(wl, lo)]['time_us'] <= d[(wl, w)]['time_us'] for w in iso))} "
            f"of {len(items)} workloads ({own} wide -> {lo} wide): " + "; ".join(items) + ".")
    # Mechanisms, from the split of the padding by kernel (when computed).
    split = getattr(ctx, "split", None) or {}
    mech = []
    for wl in workloads:
        ex = split.get(wl)
        if not ex:
            continue
        tot = sum(v for v in ex.values() if v > 0)
        if not tot:
            continue
        group, val = max(ex.items(), key=lambda kv: kv[1])
        share = val / tot
        w, cfg = config_of(spec, wl)
        why = ""
        if group == "MoE experts" and cfg.get("n_routed_experts") and w:
            tokens = w.get("batch", 1) * (w.get("seq_len", 1) if w["phase"] == "prefill" else 1)
            per = tokens * cfg.get("num_experts_per_tok", 1) / cfg["n_routed_experts"]
            why = (f": {tokens} tokens x {cfg.get('num_experts_per_tok')} experts each / "
                   f"{cfg['n_routed_experts']} experts = {per:g} rows per expert on average, "
                   + (f"fewer than the array is wide, so each expert's products pay the "
                      f"streamed-rows floor" if per < own else "")
                   )
        elif group == "attention" and w:
            heads = cfg.get("num_attention_heads") or cfg.get("n_head")
            kv = cfg.get("num_key_value_heads") or heads
            hd = cfg.get("head_dim") or ((cfg.get("hidden_size") or cfg.get("n_embd") or 0) // heads
                                         if heads else None)
            if w["phase"] == "decode" and heads and kv:
                why = (f": one query position per sequence, {heads // kv} query rows per KV head, "
                       f"far fewer than the array is wide (the streamed-rows floor)")
            elif hd:
                why = (f": the head dimension ({hd}) is a product's K and is padded to {own} "
                       f"(attention's padded FLOPs also count the masked halves of diagonal "
                       f"sub-tiles, docs/cost-model-tpu.md, \"attention\")")
        elif group == "GEMMs and dense MLPs" and w and w["phase"] == "decode":
            b = w.get("batch", 1)
            why = f": {b} row{'s' if b != 1 else ''} (the batch) against a {own}-wide array"
        mech.append(f"{nice(wl)}: {share:.0%} in {group}{why}")
    if mech:
        # Decode workloads whose waste about doubles with each doubling of the width.
        doubling, faster = [], []
        for wl in workloads:
            if "decode" not in wl:
                continue
            ws = [w for w in iso if (wl, w) in d]
            ratios = [d[(wl, b)]["waste_pct"] / d[(wl, a)]["waste_pct"]
                      for a, b in zip(ws, ws[1:]) if d[(wl, a)]["waste_pct"]]
            if ratios and all(1.7 <= x <= 2.3 for x in ratios):
                doubling.append(nice(wl))
            elif ratios and max(ratios) > 2.3:
                _, cfg = config_of(spec, wl)
                heads = cfg.get("num_attention_heads") or cfg.get("n_head")
                hd = cfg.get("head_dim") or ((cfg.get("hidden_size") or cfg.get("n_embd") or 0) // heads
                                             if heads else None)
                faster.append((nice(wl), ratios, hd))
        tail = ""
        if doubling:
            tail += (" The floor is why the waste of " + " and ".join(doubling) + " about doubles "
                     "with each doubling of the width: their products have fewer rows than even the "
                     "narrowest array, so each costs `g` rows of matrix time.")
        for name, ratios, hd in faster:
            tail += (f" {name}'s grows faster (" + ", ".join(f"{x:.1f}x" for x in ratios)
                     + " per doubling)" + (f": past a width of {hd}, its attention's K, the head "
                                            f"dimension of {hd}, is padded as well." if hd else "."))
        paras.append(
            f"Where the padding comes from at width {own} (table above; the rules are "
            f"docs/cost-model-tpu.md, \"Matrix unit\": K and the held operand's other dimension "
            f"padded to the width, a product of fewer rows than the width priced as `max(rows, g)` "
            f"cycles per held block, rows padded to the 8 sublanes): " + "; ".join(mech) + "." + tail)
    if own in iso and min(iso) < own:
        lo = min(iso)
        gaps = []
        for wl in workloads:
            a, b = d.get((wl, lo)), d.get((wl, own))
            if a and b:
                gaps.append((wl, 1 - a["padded_flops"] / b["padded_flops"], 1 - a["time_us"] / b["time_us"]))
        if gaps:
            paras.append(
                "The step gains less than the padded FLOPs fall, because only the matrix-bound "
                "part of each step shrinks (memory-bound kernels and per-step charges keep their "
                f"time): padded FLOPs and step, {lo} against {own} wide: "
                + ", ".join(f"{nice(w)} {-pf:+.0%} and {-t:+.0%}" for w, pf, t in gaps) + ".")
    over = [w for w in widths if w in peaks and peaks[w] / base_peak > 1 + 1e-9]
    if over and own in peaks:
        wide = max(over)
        items = []
        for wl in workloads:
            a, b = d.get((wl, wide)), d.get((wl, own))
            if a and b:
                items.append((wl, a["time_us"] / b["time_us"], a["attention_us"] / b["attention_us"]
                              if b["attention_us"] else None))
        if items:
            best = min(items, key=lambda t: t[1])
            worst = max(items, key=lambda t: t[1])
            txt = (f"The {wide}-wide unit has {peaks[wide] / base_peak:g}x the peak, so its points "
                   f"are not iso-peak: against {own} it ranges from {best[1]:.2f}x the step "
                   f"({nice(best[0])}) to {worst[1]:.2f}x ({nice(worst[0])}). ")
            if worst[1] > 1.2 and worst[2] and worst[2] > 1.2:
                txt += (f"{nice(worst[0])} is slower on twice the peak because its attention "
                        f"kernels take {worst[2]:.2f}x as long: each KV head's decode step has a few "
                        f"query rows and a head dimension of 128, and both are padded to {wide}. ")
            txt += ("Twice the peak pays only where the products are large (prefill); decode, "
                    "bound by weight and K/V streams and by the streamed-rows floor, gains nothing "
                    "or loses.")
            paras.append(txt)
    if proxies:
        items = []
        for wl in workloads:
            a, b = d.get((wl, min(widths))), d.get((wl, own))
            if a and b and j_per_token(a) and j_per_token(b):
                items.append(f"{nice(wl)} {j_per_token(b) / j_per_token(a):.2f}x")
        if items:
            paras.append(
                f"Energy per token (the proxy) follows the padded FLOPs, which it charges at "
                f"`matrix_pj_per_flop_bf16` like useful ones (a systolic array clocks its "
                f"padding: [A], npu-target/proxies/energy-area.json); {own} wide against "
                f"{min(widths)} wide: " + ", ".join(items) + ".")
    if fronts2:
        paras.append("Pareto-optimal widths against "
                     + ("the area proxy" if proxies else "the MAC cells") + " (least area first): "
                     + "; ".join(f"{nice(wl)}: " + ", ".join(str(w) for w in f)
                                 for wl, f in fronts2.items()) + ".")
    cells = "MAC cells (tensor cores x units x width^2)"
    paras.append(
        "What this rests on. The cost model prices a core's matrix units only through the peak "
        "(`F = peak / cores`, docs/cost-model-tpu.md, \"Parameters\"; "
        "`tpu.matrix_unit_count_per_core` enters nothing else): 32 units of 64 are assumed as easy "
        "to keep busy as 2 of 256, with no cost to split a tile across units, feed them, or "
        "gather their results. The streamed-rows floor (one `g`-wide load edge per array) is an "
        "[A] of the model with no measurement behind it on later TPUs (docs/cost-model-tpu.md, "
        "\"Matrix unit\"); the decode rows of this study move with it. "
        + (f"The area proxy counts {cells} at `mac_um2_bf16` = {mac_um2:g} um² each "
           "(npu-target/proxies/energy-area.json, [A]), the same for the three iso-peak widths, so "
           "its Pareto front separates only the 512-wide point; the wiring, control, accumulators "
           "and operand distribution of many small arrays, which would favour wide units, are not "
           "in it."
           if proxies else
           f"Without an area column the Pareto plot's x axis is the {cells}, equal for the "
           "three iso-peak widths; an area model would have to price what makes many small "
           "arrays costly (wiring, control, accumulators, operand distribution), which favours "
           "wide units and is not modelled here."))
    return "\n\n".join(paras) + "\n"


def units_txt(rows, w):
    for r in rows:
        if r["width"] == w:
            return f"{r['units']} units"
    return "?"


# ---------------------------------------------------------------------------
# Study 3: HBM bandwidth
# ---------------------------------------------------------------------------

def study_hbm(ctx, csv_path, spec_rel, dropped):
    columns, rows = read_csv(csv_path)
    proxies = has_proxies(columns)
    good = ok_rows(rows)
    T = ctx.targets
    T.prefetch(r["target"] for r in good)
    field = "hbm_bandwidth_bytes_per_s"
    for r in rows:
        r["bw"] = parse_size(r[field]) / 1e12 if r.get(field) else None
        r["chip"] = r["target"].split(":")[0]
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    chips = list(dict.fromkeys(r["chip"] for r in rows))
    real = {c: T.field(c, "hbm_bandwidth_bytes_per_s") / 1e12 for c in chips}
    chip_style = {c: Style(i, DASHES[i % 2]) for i, c in enumerate(chips)}
    real_style = {c: Style(i, "2,3") for i, c in enumerate(chips)}
    cross_style = {c: Style(i, "10,4,2,4") for i, c in enumerate(chips)}
    svgs, md = [], []

    def series_rows(wl, chip):
        return sorted([r for r in good if r["workload"] == wl and r["chip"] == chip], key=lambda r: r["bw"])

    panels = []
    for wl in workloads:
        panel = Panel(nice(wl), Axis("HBM bandwidth (TB/s)", "lin", zero=True, step=2),
                      Axis("decode tokens/s", "lin", zero=True))
        for c in chips:
            panel.series.append(Series(c, chip_style[c], [
                (r["bw"], r["tokens_per_s"], f"{c}, {nice(wl)}, {r['bw']:g} TB/s: "
                 f"{r['tokens_per_s']:,.1f} tokens/s ({r['time_us'] / 1e3:,.3f} ms per step)")
                for r in series_rows(wl, c)]))
            panel.vlines.append((real[c], f"{c} as built: {real[c]:g} TB/s", real_style[c]))
            x, why = crossover(T, c)
            panel.vlines.append((x, f"{c} model: {why} at {x:.1f} TB/s", cross_style[c]))
        panels.append(panel)
    fig = Figure("Study 3: decode tokens/s vs HBM bandwidth (one line per chip and workload)",
                 panels, ncols=3,
                 notes=["Dotted verticals: each chip's real HBM bandwidth; dash-dot: where the model "
                        "predicts the curve to flatten (Reading, study 3). y axes are per panel",
                        "(linear, from 0), so a flat stretch is where more bandwidth stops paying."])
    svgs.append(("hbm-tokens.svg", fig, "Study 3: tokens/s against HBM bandwidth"))

    # Pareto: tokens/s against J/token (or bandwidth), per (chip, workload).
    panels = []
    fronts3 = {}
    for wl in workloads:
        panel = Panel(nice(wl), Axis("energy per token (J/token, energy_j / tokens)", "lin")
                      if proxies else Axis("HBM bandwidth (TB/s)", "lin", zero=True, step=2),
                      Axis("decode tokens/s", "lin", zero=True))
        for c in chips:
            wr = series_rows(wl, c)
            if proxies:
                wr = [r for r in wr if j_per_token(r)]
            # maximise tokens/s, minimise x: minimise (x, -tokens/s)
            xs = [j_per_token(r) if proxies else r["bw"] for r in wr]
            xy = [(x, -r["tokens_per_s"]) for x, r in zip(xs, wr)]
            front = pareto(xy)
            fronts3[(wl, c)] = (sorted(wr[i]["bw"] for i in front), len(wr))
            s = Series(c, chip_style[c], [
                (x, r["tokens_per_s"], f"{c}, {nice(wl)}, {r['bw']:g} TB/s: {r['tokens_per_s']:,.1f} "
                 f"tokens/s" + (f", {x:.4g} J per token" if proxies else "")
                 + (" (Pareto-optimal)" if i in front else " (dominated)"))
                for i, (x, r) in enumerate(zip(xs, wr))],
                line=False, hollow=[i for i in range(len(wr)) if i not in front],
                labels={i: f"{wr[i]['bw']:g}T" for i in range(len(wr))})
            s.front = sorted(front, key=lambda i: xs[i])
            panel.series.append(s)
        panels.append(panel)
    grey = NEUTRAL
    fig = Figure("Study 3: Pareto front of decode tokens/s vs "
                 + ("energy per token" if proxies else "HBM bandwidth") + ", per chip",
                 panels, ncols=3,
                 extra_legend=[("hollow", "dominated point", grey),
                               ("filled", "Pareto-optimal (joined)", grey)],
                 notes=["Labels: HBM bandwidth (TB/s). Up and to the left is better; fronts are per "
                        "chip" + (" (the proxies compare variants of one chip, not chips)." if proxies
                                  else ": with bandwidth as the cost, a point is dominated only if "
                                       "more bandwidth buys no tokens/s.")])
    svgs.append(("hbm-pareto.svg", fig, "Study 3: Pareto"))

    if proxies:
        panels = []
        for wl in workloads:
            panel = Panel(nice(wl), Axis("HBM bandwidth (TB/s)", "lin", zero=True, step=2),
                          Axis("tokens per joule (tokens_per_j)", "lin", zero=True))
            for c in chips:
                panel.series.append(Series(c, chip_style[c], [
                    (r["bw"], r["tokens_per_j"], f"{c}, {nice(wl)}, {r['bw']:g} TB/s: "
                     f"{r['tokens_per_j']:.4g} tokens/J") for r in series_rows(wl, c)
                    if r["tokens_per_j"] is not None]))
            panels.append(panel)
        fig = Figure("Study 3: tokens per joule (energy proxy) vs HBM bandwidth", panels, ncols=3)
        svgs.append(("hbm-energy.svg", fig, "Study 3: tokens per joule"))

    md.append("## Study 3: HBM bandwidth vs decode tokens/s (tpu-v7 and gb300)\n")
    md.append("**Question.** Decode reads every weight (and the K/V cache) once per step for a few "
              "tokens, so it is expected to be bandwidth-bound. Up to what bandwidth does that "
              "hold on each chip, and what bounds the step beyond it?\n")
    md.append(f"**Spec.** [`{spec_rel}`](../{spec_rel}) (written by the script): "
              f"`hbm_bandwidth_bytes_per_s` in {{{', '.join(HBM_VALUES)}}} B/s on tpu-v7 and on "
              f"gb300 (the sustained bandwidth keeps its calibrated fraction of it, docs/targets.md); "
              f"DeepSeek-V3 decode at batch 64, Llama-3-8B decode at batch 1 and 64, context 4095. "
              f"As built: " + ", ".join(f"{c} {real[c]:g} TB/s" for c in chips)
              + f". Table: [`design-space/hbm-decode.csv`](design-space/hbm-decode.csv).\n")
    if dropped:
        md.append("Workloads dropped because they failed to import: "
                  + "; ".join(f"`{n}`: {why}" for n, why in dropped) + ".\n")
    bws = sorted({r["bw"] for r in rows if r["bw"]})
    hdr = ["HBM (TB/s)"] + [f"{c}: {nice(wl).replace(' decode', '')}" for wl in workloads for c in chips]
    body = []
    for bw in bws:
        cells = []
        for wl in workloads:
            for c in chips:
                r = next((x for x in rows if x["workload"] == wl and x["chip"] == c and x["bw"] == bw), None)
                cells.append("-" if r is None else "error" if r["error"] else fnum(r["tokens_per_s"], 4))
        body.append([f"{bw:g}"] + cells)
    md.append("**Decode tokens/s** (tokens per step / step time)\n")
    md.append(md_table(hdr, body) + "\n")
    # elasticity
    body = []
    for a, b in zip(bws, bws[1:]):
        cells = []
        for wl in workloads:
            for c in chips:
                ra = next((x for x in good if x["workload"] == wl and x["chip"] == c and x["bw"] == a), None)
                rb = next((x for x in good if x["workload"] == wl and x["chip"] == c and x["bw"] == b), None)
                cells.append(fnum(elasticity(ra, rb), 2) if ra and rb else "-")
        body.append([f"{a:g} -> {b:g}"] + cells)
    md.append("**Bandwidth elasticity** of the step, `ln(t_a / t_b) / ln(bw_b / bw_a)`: 1 = all "
              "of the added bandwidth turns into speed (bandwidth-bound), 0 = none (flat)\n")
    md.append(md_table(hdr, body) + "\n")
    # what bounds the step at the top bandwidth
    top = bws[-1] if bws else None
    body = []
    for wl in workloads:
        for c in chips:
            r = next((x for x in good if x["workload"] == wl and x["chip"] == c and x["bw"] == top), None)
            if not r:
                continue
            hb, mt = floors(T, r)
            l2 = None
            if r["kind"] == "gpu":
                l2 = r["hbm_bytes"] / T.field(r["target"], "gpu.l2_bandwidth_bytes_per_s") * 1e3
            body.append([f"{c}: {nice(wl)}", fnum(r["time_us"] / 1e3, 4), fnum(hb, 3), fnum(mt, 3),
                         fnum(l2, 3) if l2 is not None else "-", fnum(r["attention_us"] / 1e3, 3)])
    md.append(f"**What is left at {top:g} TB/s** (ms): the step, its HBM floor (HBM bytes at the "
              f"sustained bandwidth), its matrix floor (padded FLOPs at the sustained bf16 "
              f"matrix rate), on gb300 its HBM bytes at the L2 bandwidth (every HBM byte passes "
              f"through L2; a lower bound of the L2 term), and its attention kernels\n")
    md.append(md_table(["chip: workload", "step", "HBM floor", "matrix floor", "HBM bytes at L2 BW",
                        "attention"], body) + "\n")
    md.append("![Study 3: decode tokens/s against HBM bandwidth](design-space/hbm-tokens.svg)\n")
    md.append("![Study 3: Pareto front of tokens/s](design-space/hbm-pareto.svg)\n")
    if proxies:
        md.append("![Study 3: tokens per joule against HBM bandwidth](design-space/hbm-energy.svg)\n")
    md.append("**Reading.**\n")
    md.append(study_hbm_reading(ctx, good, workloads, chips, bws, real, proxies, fronts3))
    return "\n".join(md), svgs, rows, columns


def crossover(T, chip):
    """The quoted HBM bandwidth past which the model's decode stops being
    bandwidth-bound on `chip`, and why: tpu, where the streamed-rows floor of a
    product with few rows (bf16 weights) meets the weight stream; gpu, where
    the sustained HBM bandwidth passes the L2 bandwidth."""
    frac = T.field(chip, "sustained_hbm_bandwidth_bytes_per_s") / T.field(chip, "hbm_bandwidth_bytes_per_s")
    if T.field(chip, "kind") == "tpu":
        g = T.field(chip, "tpu.matrix_unit_dim_elements")
        return T.matrix_rate(chip) * 2 / (2 * g) / frac / 1e12, "streamed-rows crossover"
    return T.field(chip, "gpu.l2_bandwidth_bytes_per_s") / frac / 1e12, "L2 bandwidth crossover"


def elasticity(ra, rb):
    if not ra or not rb or ra["bw"] == rb["bw"]:
        return None
    return math.log(ra["time_us"] / rb["time_us"]) / math.log(rb["bw"] / ra["bw"])


def study_hbm_reading(ctx, good, workloads, chips, bws, real, proxies, fronts3):
    T = ctx.targets
    paras = []
    get = {(r["workload"], r["chip"], r["bw"]): r for r in good}
    knees = {}
    for wl in workloads:
        for c in chips:
            k = None
            for a, b in zip(bws, bws[1:]):
                e = elasticity(get.get((wl, c, a)), get.get((wl, c, b)))
                if e is not None and e < 0.5:
                    k = (a, b, e)
                    break
            knees[(wl, c)] = k
    lines = []
    for c in chips:
        parts = []
        for wl in workloads:
            k = knees[(wl, c)]
            e0 = elasticity(get.get((wl, c, bws[0])), get.get((wl, c, bws[1]))) if len(bws) > 1 else None
            start = f"; {e0:.2f} from {bws[0]:g} to {bws[1]:g}" if e0 is not None else ""
            if k:
                parts.append(f"{nice(wl)} between {k[0]:g} and {k[1]:g} TB/s (elasticity "
                             f"{k[2]:.2f}{start})")
            else:
                parts.append(f"{nice(wl)} not up to {bws[-1]:g} TB/s")
        lines.append(f"*{c}*: " + "; ".join(parts) + ".")
    paras.append("Where each curve flattens (the first step of the grid whose elasticity falls "
                 "under 0.5): " + " ".join(lines))
    top = bws[-1] if bws else None
    for c in chips:
        if T.field(c, "kind") != "tpu":
            continue
        g = T.field(c, "tpu.matrix_unit_dim_elements")
        knee_w, _ = crossover(T, c)
        knee_quoted = T.field(c, "peak_bf16_flop_per_s") * 2 / (2 * g) / 1e12
        shares = []
        for wl in workloads:
            r = get.get((wl, c, top))
            if r:
                hb, mt = floors(T, r)
                shares.append(f"{nice(wl)} {mt / (r['time_us'] / 1e3):.0%} (HBM floor "
                              f"{hb / (r['time_us'] / 1e3):.0%})")
        early = [wl for wl in workloads if knees.get((wl, c)) and knees[(wl, c)][1] < knee_w * 0.9]
        txt = (f"*Why {c} flattens.* The decode step stops being bandwidth-bound where the matrix "
               f"unit's streamed-rows floor overtakes the weight stream: a product with fewer rows "
               f"than the {g}-wide array costs `2 g K N` FLOPs of matrix time against `K N e` bytes "
               f"of weights, so with bf16 weights (`e` = 2) the two meet at a sustained bandwidth of "
               f"`F e / (2 g)`: {knee_w:.1f} TB/s of quoted bandwidth at {c}'s sustained matrix rate "
               f"and calibrated bandwidth fraction (docs/cost-model-tpu.md, \"Matrix unit\", puts "
               f"matrix time over weight-read time at 0.82 at 7.37 TB/s from the quoted peak and "
               f"bandwidth, i.e. 1 at {knee_quoted:.1f} TB/s). Decode's products have few rows: a batch of 1, "
               f"or at batch 64 about 64 x 8 / 256 = 2 tokens per routed DeepSeek-V3 expert, or 4 "
               f"query rows per KV head in Llama-3-8B's decode attention. ")
        if early:
            txt += (", ".join(nice(wl) for wl in early) + " flattens earlier: its step is mostly "
                    "attention (table above), whose K (the head dimension, 128) is also padded to "
                    f"{g}, so its matrix time per byte of K/V is higher. ")
        txt += (f"At {top:g} TB/s the padded FLOPs at the matrix rate are this share of the step: "
                + "; ".join(shares) + "; the floors are whole-step sums, and the step, a sum of "
                "per-kernel maxima plus their per-step charges, sits above both. So on this TPU-like "
                f"chip, bandwidth beyond ~{knee_w:.0f} TB/s buys decode little unless the matrix unit "
                "is narrower (the crossover scales as `1 / g`; study 2). fp8 weights go the other "
                "way: half the bytes at the same matrix time halve the crossover, so decode would "
                "meet the floor below tpu-v7's own bandwidth (docs/cost-model-tpu.md: the ratio "
                "becomes 1.64). This rests on the streamed-rows floor (a model assumption, [A] in "
                "docs/cost-model-tpu.md) and on `matrix_clock_hz` [A].")
        paras.append(txt)
    for c in chips:
        if T.field(c, "kind") != "gpu":
            continue
        l2bw = T.field(c, "gpu.l2_bandwidth_bytes_per_s") / 1e12
        _, tag, _ = assumption(T, c, "gpu.l2_bandwidth_bytes_per_s")
        cross, _ = crossover(T, c)
        rest = []
        mats = []
        for wl in workloads:
            r = get.get((wl, c, top))
            if r:
                l2 = r["hbm_bytes"] / T.field(r["target"], "gpu.l2_bandwidth_bytes_per_s") * 1e3
                rest.append(f"{nice(wl)} {r['time_us'] / 1e3 - l2:,.2f} of {r['time_us'] / 1e3:,.2f} ms")
                mats.append(floors(T, r)[1] / (r["time_us"] / 1e3))
        txt = (f"*Why {c} flattens.* Its padded matrix work is a small part of the step (at most "
               f"{max(mats):.0%} at {top:g} TB/s: the GPU model has no streamed-rows floor; a block "
               f"pays only its own tile's padding, docs/cost-model-gpu.md), and every curve scales "
               f"with the bandwidth until the L2 takes over: the GPU model's memory time is the "
               f"larger of the HBM bytes at the HBM bandwidth and the bytes requested from L2 at "
               f"`gpu.l2_bandwidth_bytes_per_s` (docs/cost-model-gpu.md, \"Dispatch: waves and the "
               f"tail\"), {l2bw:g} TB/s on {c} {tag}, which the sustained HBM bandwidth passes at "
               f"{cross:.1f} TB/s quoted. That knee is an assumption's, not a measurement's: the L2 "
               f"figure is twice an H100 measurement (npu-target/{c}.json), and a faster L2 would "
               f"move it. At {top:g} TB/s the step exceeds its HBM bytes at the L2 bandwidth by "
               + "; ".join(rest) + ": per-kernel costs, launches from a CUDA graph "
               "(`gpu.graph_launch_overhead_ns`, [A]), DRAM latency per wave "
               "(`gpu.dram_latency_ns`, [A]) and the last waves' idle SMs (docs/cost-model-gpu.md).")
        paras.append(txt)
    near = []
    for c in chips:
        below = [b for b in bws if b < real[c] - 1e-9]
        above = [b for b in bws if b > real[c] + 1e-9]
        if not below or not above:
            continue
        lo, hi = max(below), min(above)
        for wl in workloads:
            e = elasticity(get.get((wl, c, lo)), get.get((wl, c, hi)))
            if e is not None:
                near.append(f"{c} {nice(wl)} {e:.2f} ({lo:g} -> {hi:g})")
    if near:
        paras.append("Around each chip's own bandwidth (elasticity between the grid points on "
                     "either side of it): " + "; ".join(near) + ". Near 1, a faster HBM would "
                     "still pay for that workload on that chip; near 0, it would not.")
    if fronts3:
        items = []
        for c in chips:
            for wl in workloads:
                f = fronts3.get((wl, c))
                if f:
                    items.append(f"{c} {nice(wl)}: " + ", ".join(f"{b:g}" for b in f[0])
                                 + f" TB/s ({f[1] - len(f[0])} of {f[1]} dominated)")
        paras.append("Pareto-optimal bandwidths (most tokens/s for the least "
                     + ("energy per token" if proxies else "bandwidth") + ", per chip): "
                     + "; ".join(items) + "."
                     + ("" if proxies else " With bandwidth as the cost a point is dominated only "
                        "where more bandwidth buys nothing; the flat stretches above say where "
                        "it buys little."))
    if proxies:
        pj = (ctx.proxies or {})
        items = []
        for c in chips:
            for wl in workloads:
                rs = [r for r in good if r["workload"] == wl and r["chip"] == c and j_per_token(r)]
                if not rs:
                    continue
                best = min(rs, key=j_per_token)
                r = get.get((wl, c, min(bws, key=lambda b: abs(b - real[c]))))
                shares = ""
                if r and pj.get("matrix_pj_per_flop_bf16") and r["energy_j"]:
                    mat = r["padded_flops"] * pj["matrix_pj_per_flop_bf16"] * 1e-12 / r["energy_j"]
                    hbm = r["hbm_bytes"] * (pj.get("hbm_pj_per_byte", 0) + 2 * pj.get("sram_pj_per_byte", 0)) \
                        * 1e-12 / r["energy_j"]
                    shares = (f"; at {r['bw']:g} TB/s padded FLOPs {mat:.0%} of the energy, "
                              f"HBM bytes {hbm:.0%}")
                items.append(f"{c} {nice(wl)}: lowest {j_per_token(best):.3g} J/token at "
                             f"{best['bw']:g} TB/s{shares}")
        paras.append(
            "Energy per token (the proxy, docs/sweep.md, \"Energy and area proxies\"; bf16 FLOP "
            "energy assumed for the split) falls with the step's time (static power over a "
            "shorter step) and rises with the HBM PHYs a faster HBM adds to the area proxy; the "
            "FLOPs' and bytes' energy hardly changes with bandwidth: " + "; ".join(items) + ". "
            "On tpu-v7 the padding the streamed-rows floor adds is also energy, because the proxy "
            "charges padded FLOPs ([A]: a systolic array clocks its padding); the proxies compare "
            "variants of one chip, not the two chips.")
    return "\n\n".join(paras) + "\n"


# ---------------------------------------------------------------------------
# Study 4: sensitivity to the assumed fields (a tornado chart)
# ---------------------------------------------------------------------------

SENS_CHIPS = ["tpu-v7", "gb300"]
SENS_WORKLOADS = [
    {"name": "deepseek-prefill-4k", "config": DS, "phase": "prefill", "seq_len": 4096},
    {"name": "deepseek-decode-b64", "config": DS, "phase": "decode", "batch": 64, "context_len": 4095},
]
SENS_FACTORS = (0.5, 2)
SENS_MIN_PCT = 0.1   # a field whose larger |change| is below this is listed, not drawn
SENS_COLOURS = {0.5: "#0072B2", 2: "#D55E00"}


def assumed_fields(T, chip):
    """The numeric fields of `chip` whose source is tagged [A], interconnect
    fields aside (one chip: no link is used), in name order: [(field, value)]."""
    out = []
    for field, src in sorted(T.get(chip).get("sources", {}).items()):
        if not src.startswith("[A]") or field.startswith("interconnect."):
            continue
        try:
            val = T.field(chip, field)
        except (KeyError, TypeError):
            continue
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            continue
        out.append((field, val))
    return out


def scaled(value, factor):
    """value x factor, an int where it is one (the spec's numbers)."""
    v = value * factor
    if isinstance(value, int) and float(v).is_integer():
        return int(v)
    return float(v)


def sensitivity_spec(T):
    """Each chip as built, then one entry per assumed field varying only it
    over 0.5x and 2x its value."""
    targets = []
    for chip in SENS_CHIPS:
        targets.append({"base": chip})
        for field, val in assumed_fields(T, chip):
            targets.append({"base": chip, "vary": {field: [scaled(val, f) for f in SENS_FACTORS]}})
    return {"workloads": [dict(w) for w in SENS_WORKLOADS], "targets": targets}


LOADER_ERROR = re.compile(r"^\S*\.json: (.*)$", re.S)


def refusal(error):
    """A short reason for a point's error: the loader's message without the
    variant's file; a compiler's without the variant's name and limits."""
    m = LOADER_ERROR.match(error)
    if m:
        return m.group(1).strip()
    short = re.sub(r" of '[^']*'", "", error)
    return short.split(": a thread block")[0].strip()


def fchg(v):
    """A change in % with its sign, 3 significant digits (at most 3 decimals)."""
    if v is None:
        return "-"
    if v == 0:
        return "0%"
    a = abs(v)
    digits = min(3, max(0, 2 - math.floor(math.log10(a))))
    return f"{v:+,.{digits}f}%"  # +0.000%: under 0.0005% but not 0


def fval(v):
    """A field's value: an integer in full up to 10 digits, else %g."""
    if isinstance(v, int) and abs(v) < 10 ** 10:
        return str(v)
    return f"{v:g}"


def sensitivity_data(T, rows):
    """{(chip, workload): {"base": row, field: {factor: row}}}, and per chip its
    assumed fields [(field, value)]."""
    fields = {c: assumed_fields(T, c) for c in SENS_CHIPS}
    data = {}
    for r in rows:
        chip = r["target"].split(":")[0]
        if chip not in fields:
            continue
        d = data.setdefault((chip, r["workload"]), {})
        varied = [(f, v) for f, v in fields[chip] if (r.get(f) or "").strip()]
        if ":" not in r["target"] and not varied:
            d["base"] = r
            continue
        if len(varied) != 1:
            raise ToolError(f"sensitivity.csv: row {r['index']} ({r['target']}) varies "
                            f"{len(varied)} assumed fields, expected 1")
        field, val = varied[0]
        x = parse_size(r[field])
        factor = min(SENS_FACTORS, key=lambda f: abs(x - val * f))
        d.setdefault(field, {})[factor] = r
    return data, fields


def change_pct(d, field, factor):
    """(change of the step in %, or None; the row)."""
    r = d.get(field, {}).get(factor)
    base = d.get("base")
    if r is None or r["error"] or r["time_us"] is None or not base or base["error"]:
        return None, r
    return (r["time_us"] / base["time_us"] - 1) * 100, r


def swing(d, field):
    vals = [change_pct(d, field, f)[0] for f in SENS_FACTORS]
    vals = [abs(v) for v in vals if v is not None]
    return max(vals) if vals else None


class TornadoFigure:
    """Panels stacked; per panel one row per field, the 0.5x bar above the 2x
    bar, from a zero line; labels at the bars' ends."""
    PW = 560           # plot width
    ROW, BAR = 34, 11  # row height, bar height
    LABEL = 11         # field name font size
    VAL = 10           # value label font size

    def __init__(self, title, panels, notes=()):
        # panels: dicts with title, rows [(field, tip, {factor: (pct or None, tip, refused)})],
        # caption
        self.title, self.panels, self.notes = title, panels, list(notes)

    def render(self):
        names = [f for p in self.panels for f, _, _ in p["rows"]]
        lw = max([text_width(n, self.LABEL) for n in names] + [120]) + 16
        x0 = 14 + lw
        legend = [(0.5, "0.5 x the value as built"), (2, "2 x the value as built")]
        refused_note = "no bar: the variant was refused (hover for why)"
        legend_w = sum(28 + text_width(t, 12) + 24 for _, t in legend) \
            + text_width("refused", 11) + 8 + text_width(refused_note, 12)
        width = x0 + self.PW + 24
        # (bold text runs wider than text_width's average glyph)
        width = max(width, 1.1 * text_width(self.title, 16) + 28, 14 + legend_w + 20)
        y = 70
        body = []
        for p in self.panels:
            svg, h = self.render_panel(p, x0, y)
            body.append(svg)
            y += h
        notes_h = 18 * len(self.notes)
        height = y + notes_h + 8
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
               f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}" font-size="12">',
               f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
               f'<text x="14" y="26" font-size="16" font-weight="bold">{escape(self.title)}</text>']
        # Legend: under the title, outside every plot area.
        lx, ly = 14, 48
        out.append("<g>")
        for factor, text in legend:
            out.append(f'<rect x="{lx:.0f}" y="{ly - 10}" width="22" height="{self.BAR}" '
                       f'fill="{SENS_COLOURS[factor]}"/>')
            out.append(f'<text x="{lx + 28:.0f}" y="{ly}">{escape(text)}</text>')
            lx += 28 + text_width(text, 12) + 24
        out.append(f'<text x="{lx:.0f}" y="{ly}" font-size="11" font-style="italic" '
                   f'fill="#666666">refused</text>')
        lx += text_width("refused", 11) + 8
        out.append(f'<text x="{lx:.0f}" y="{ly}">{escape(refused_note)}</text>')
        out.append("</g>")
        out += body
        for k, note in enumerate(self.notes):
            out.append(f'<text x="14" y="{y + 12 + 18 * k:.0f}" font-size="11" '
                       f'fill="#444444">{escape(note)}</text>')
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def render_panel(self, p, x0, top):
        W = self.PW
        rows = p["rows"]
        y0 = top + 22
        H = max(1, len(rows)) * self.ROW
        refused_text = "refused"
        rw = text_width(refused_text, self.VAL) + 6
        vals = [v for _, _, bars in rows for v, _, _ in bars.values() if v is not None]
        lo, hi = min(vals + [0.0]), max(vals + [0.0])
        # Room for the labels beyond the bars' ends (and for 'refused' beside zero).
        left = max([text_width(fchg(v), self.VAL) + 8 for v in vals if v < 0] + [8])
        right = max([text_width(fchg(v), self.VAL) + 8 for v in vals if v >= 0] + [8])
        any_refused = any(ref for _, _, bars in rows for _, _, ref in bars.values())
        if any_refused:
            right = max(right, rw + 4) if hi > 0 or lo == 0 else right
            left = left if hi > 0 or lo == 0 else max(left, rw + 4)
        span = (hi - lo) or 1.0
        scale = (W - left - right) / span

        def X(v):
            return x0 + left + (v - lo) * scale

        dlo, dhi = lo - left / scale, hi + right / scale
        raw = (hi - lo or 1.0) / 6
        mag = 10 ** math.floor(math.log10(raw))
        step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
        out = ["<g>", f'<text x="{x0 + W / 2:.0f}" y="{top + 12:.0f}" text-anchor="middle" '
               f'font-size="13" font-weight="bold">{escape(p["title"])}</text>']
        for i in range(len(rows)):
            if i % 2 == 1:
                out.append(f'<rect x="{x0}" y="{y0 + i * self.ROW}" width="{W}" height="{self.ROW}" '
                           f'fill="#f5f5f5"/>')
        k = math.ceil(dlo / step - 1e-9)
        while k * step <= dhi + 1e-9 * step:
            v = round(k * step, 12)
            x = X(v)
            if v != 0:
                out.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + H}" stroke="#dddddd"/>')
            out.append(f'<line x1="{x:.1f}" y1="{y0 + H}" x2="{x:.1f}" y2="{y0 + H + 5}" stroke="#444444"/>')
            label = "0" if v == 0 else f"{v:+g}"
            out.append(f'<text x="{x:.1f}" y="{y0 + H + 18}" text-anchor="middle" font-size="11">'
                       f'{escape(label)}</text>')
            k += 1
        out.append(f'<rect x="{x0}" y="{y0}" width="{W}" height="{H}" fill="none" stroke="#444444"/>')
        zx = X(0.0)
        for i, (field, tip, bars) in enumerate(rows):
            ry = y0 + i * self.ROW
            out.append(f'<text x="{x0 - 8}" y="{ry + self.ROW / 2 + 4:.1f}" text-anchor="end" '
                       f'font-size="{self.LABEL}">{escape(field)}<title>{escape(tip)}</title></text>')
            for j, factor in enumerate(SENS_FACTORS):
                v, btip, refused = bars.get(factor, (None, "", False))
                by = ry + 5 + j * (self.BAR + 2)
                ty = by + self.BAR - 2
                if v is None:
                    if refused:
                        if hi > 0 or lo == 0:
                            out.append(f'<text x="{zx + 4:.1f}" y="{ty:.1f}" font-size="{self.VAL}" '
                                       f'font-style="italic" fill="#666666">{refused_text}'
                                       f'<title>{escape(btip)}</title></text>')
                        else:
                            out.append(f'<text x="{zx - 4:.1f}" y="{ty:.1f}" text-anchor="end" '
                                       f'font-size="{self.VAL}" font-style="italic" fill="#666666">'
                                       f'{refused_text}<title>{escape(btip)}</title></text>')
                    continue
                xa, xb = sorted((zx, X(v)))
                out.append(f'<rect x="{xa:.1f}" y="{by:.1f}" width="{max(xb - xa, 0.6):.1f}" '
                           f'height="{self.BAR}" fill="{SENS_COLOURS[factor]}">'
                           f'<title>{escape(btip)}</title></rect>')
                if v >= 0:
                    out.append(f'<text x="{xb + 4:.1f}" y="{ty:.1f}" font-size="{self.VAL}">'
                               f'{escape(fchg(v))}</text>')
                else:
                    out.append(f'<text x="{xa - 4:.1f}" y="{ty:.1f}" text-anchor="end" '
                               f'font-size="{self.VAL}">{escape(fchg(v))}</text>')
        if not rows:
            out.append(f'<text x="{x0 + W / 2:.0f}" y="{y0 + self.ROW / 2 + 4:.0f}" text-anchor="middle" '
                       f'fill="#666666">no field moves the step by {SENS_MIN_PCT:g}% or more</text>')
        out.append(f'<line x1="{zx:.1f}" y1="{y0}" x2="{zx:.1f}" y2="{y0 + H}" stroke="#222222" '
                   f'stroke-width="1.2"/>')
        out.append(f'<text x="{x0 + W / 2:.0f}" y="{y0 + H + 36}" text-anchor="middle">'
                   f'{escape(p["xlabel"])}</text>')
        out.append(f'<text x="{x0 + W / 2:.0f}" y="{y0 + H + 54}" text-anchor="middle" font-size="11" '
                   f'fill="#444444">{escape(p["caption"])}</text>')
        out.append("</g>")
        return "\n".join(out), 22 + H + 54 + 26


# What each assumed field acts through in the cost models (docs/cost-model-*.md).
SENS_MECHANISMS = {
    ("tpu", "clock_hz"):
        "an override of `clock_hz` scales the matrix peaks and the vector and transcendental "
        "rates with it, and `matrix_clock_hz` keeps its fraction of it (docs/targets.md, "
        "\"Variants without a file\"), so these two variants are chips with half and twice the "
        "peak, not another guess at the clock behind the published peak: the matrix rate `F`, "
        "`V` and `E` (docs/cost-model-tpu.md, \"Parameters\") all move, and so does the MoE "
        "dispatch's scalar scatter, one operation per cycle (\"gated_mlp and moe_ffn\")",
    ("tpu", "matrix_clock_hz"):
        "the sustained matrix clock: `F = peak x matrix_clock_hz / clock_hz / C`, the rate of "
        "every padded matrix FLOP in a step's compute `c` (docs/cost-model-tpu.md, "
        "\"Parameters\" and \"The pipelined tile loop\"; npu-target/calibration.md); twice it is "
        "refused (a sustained clock may not exceed `clock_hz`). In decode most products have "
        "fewer rows than the array is wide, so the streamed-rows floor prices each at `g` rows "
        "(\"Matrix unit\"), whose matrix time is 0.82 of the weight stream's at the quoted "
        "figures: halving `F` puts it above the stream",
    ("tpu", "sustained_hbm_bandwidth_bytes_per_s"):
        "`BW`, the bandwidth every tile's loads and stores (`i`, `o`), the fill and the drain "
        "are moved at (docs/cost-model-tpu.md, \"Parameters\" and \"The pipelined tile loop\"; "
        "npu-target/calibration.md); twice it is refused (a sustained bandwidth may not exceed "
        "the quoted one)",
    ("tpu", "tpu.dma_setup_latency_ns"):
        "`D0`, paid by every tile DMA as `D0 nR / N / Q` in a step's `i` and `o` and by the "
        "MoE's gathered rows as `q = D0 nr / N / Qr` (docs/cost-model-tpu.md, \"The pipelined "
        "tile loop\", \"gated_mlp and moe_ffn\")",
    ("tpu", "tpu.dma_engines_per_core"):
        "`Q`, the DMA setups overlapped per core: tile DMAs pay `D0 / Q` each "
        "(docs/cost-model-tpu.md, \"The pipelined tile loop\"); the MoE's row copies go `Qr` at "
        "a time instead, so halving `Q` is doubling `D0` less the row copies",
    ("tpu", "tpu.row_dmas_in_flight_per_core"):
        "`Qr`, the gathered MoE rows in flight per core: rows arrive at most `Qr` per `D0`, a "
        "chain beside the tile transfers (`q`, docs/cost-model-tpu.md, \"gated_mlp and "
        "moe_ffn\")",
    ("tpu", "tpu.grid_step_overhead_ns"):
        "`O`, charged once per grid step (`s = c + O`, docs/cost-model-tpu.md, \"The pipelined "
        "tile loop\")",
    ("tpu", "vector_flop_per_s"):
        "`V`, the vector unit's rate in a step's compute `c = max(matrix, vector, "
        "transcendental)` (docs/cost-model-tpu.md, \"The pipelined tile loop\")",
    ("tpu", "transcendental_per_s"):
        "`E`, the transcendental rate in a step's compute `c` (docs/cost-model-tpu.md, \"The "
        "pipelined tile loop\")",
    ("tpu", "peak_fp32_flop_per_s"):
        "`F(f32)`, used only by f32 products (docs/cost-model-tpu.md, \"Parameters\")",
    ("gpu", "sustained_hbm_bandwidth_bytes_per_s"):
        "`HBM`, the bandwidth of the memory term `hbm_b r / HBM` of every block's time "
        "(docs/cost-model-gpu.md, \"Dispatch: waves and the tail\"; npu-target/calibration.md); "
        "twice it is refused (a sustained bandwidth may not exceed the quoted one)",
    ("gpu", "gpu.l2_bandwidth_bytes_per_s"):
        "`L2BW`: every byte a block requests from L2, hit or miss, is the term `l2_b r / L2BW` "
        "of the same memory maximum (docs/cost-model-gpu.md, \"Dispatch: waves and the tail\"; "
        "\"Honest limits\" calls it the model's most uncertain number); the memory time is the "
        "larger of the two terms, so a faster L2 pays only until the HBM term (or the compute) "
        "sets the time: doubled, it gains far less than it costs halved",
    ("gpu", "matrix_clock_hz"):
        "the sustained matrix clock: `F = peak x matrix_clock_hz / clock_hz / SM`, the tensor "
        "cores' rate in a block's compute term (docs/cost-model-gpu.md, \"Parameters\" and "
        "\"Dispatch: waves and the tail\"); twice it is refused (it may not exceed `clock_hz`)",
    ("gpu", "gpu.graph_launch_overhead_ns"):
        "`L` per launch of a decode step, whose kernels are replayed from a CUDA graph "
        "(docs/cost-model-gpu.md, \"Launches: from a CUDA graph or one by one\"); a prefill "
        "step's launches pay `gpu.launch_overhead_ns` instead",
    ("gpu", "gpu.launch_overhead_ns"):
        "`L` per launch of a prefill step, launched one by one on a stream "
        "(docs/cost-model-gpu.md, \"Launches: from a CUDA graph or one by one\"); decode pays "
        "`gpu.graph_launch_overhead_ns` instead",
    ("gpu", "gpu.dram_latency_ns"):
        "`lat`: a launch's first wave (every wave with one block per SM) waits it, and a block "
        "streams at most its copy pipeline's bytes per `lat` (Little's law; "
        "docs/cost-model-gpu.md, \"Dispatch: waves and the tail\")",
    ("gpu", "gpu.shared_memory_bytes_per_block"):
        "the shared memory a thread block may use, which bounds the tile candidates "
        "(docs/cost-model-gpu.md, \"Thread blocks\")",
    ("gpu", "gpu.shared_memory_bytes_per_sm"):
        "the shared memory of an SM, one of the occupancy limits (docs/cost-model-gpu.md, "
        "\"Parameters\", \"Thread blocks\")",
    ("gpu", "gpu.l1_shared_bytes_per_sm"):
        "the L1 and shared memory of an SM, which bounds `gpu.shared_memory_bytes_per_sm` "
        "(docs/targets.md)",
    ("gpu", "gpu.l2_bytes"):
        "the simulated L2's capacity, hence the HBM bytes of every kernel (docs/cost-model-gpu.md, "
        "\"The L2 cache, simulated on the hardware's order\")",
    ("gpu", "gpu.l2_associativity_ways"):
        "the simulated L2's ways (docs/cost-model-gpu.md, \"The L2 cache, simulated on the "
        "hardware's order\")",
}


def study_sensitivity(ctx, csv_path, spec_rel, spec):
    columns, rows = read_csv(csv_path)
    T = ctx.targets
    data, fields = sensitivity_data(T, rows)
    workloads = [w["name"] for w in spec["workloads"]]
    workloads = [w for w in workloads if any(r["workload"] == w for r in rows)]
    values = {c: dict(fields[c]) for c in SENS_CHIPS}
    kind = {c: T.field(c, "kind") for c in SENS_CHIPS}
    md, svgs = [], []

    def bars(chip, wl, field):
        d = data.get((chip, wl), {})
        base = d.get("base")
        out = {}
        for f in SENS_FACTORS:
            v, r = change_pct(d, field, f)
            x = scaled(values[chip][field], f)
            head = (f"{chip}, {nice(wl)}: {field} x{f:g} = {fval(x)} (as built {fval(values[chip][field])})")
            if r is None:
                out[f] = (None, head + ": no row", False)
            elif r["error"]:
                out[f] = (None, f"{head}: refused: {r['error']}", True)
            elif v is not None:
                out[f] = (v, f"{head}: step {r['time_us']:,.10g} us against "
                             f"{base['time_us']:,.10g} us as built, {v:+.4f}% "
                             f"(MoE {r['moe_us']:,.10g} us, attention "
                             f"{r['attention_us']:,.10g} us)", False)
            else:
                out[f] = (None, head + ": the baseline has no price", False)
        return out

    # The chart: one panel per (chip, workload).
    panels, below_counts = [], {}
    for chip in SENS_CHIPS:
        for wl in workloads:
            d = data.get((chip, wl), {})
            base = d.get("base")
            shown, below, refused_both = [], [], []
            for field, _ in fields[chip]:
                s = swing(d, field)
                if s is None:
                    refused_both.append(field)
                elif s < SENS_MIN_PCT:
                    below.append(field)
                else:
                    shown.append((s, field))
            shown.sort(key=lambda t: (-t[0], t[1]))
            below_counts[(chip, wl)] = (below, refused_both)
            prow = []
            for _, field in shown:
                src = T.source(chip, field)
                prow.append((field, f"{field} = {fval(values[chip][field])} on {chip}: {src}",
                             bars(chip, wl, field)))
            cap = [f"{len(below)} of {len(fields[chip])} assumed fields moved the step by less "
                   f"than {SENS_MIN_PCT:g}% (not drawn)"]
            if refused_both:
                cap.append(f"{len(refused_both)} had both variants refused")
            title = f"{chip}: {nice(wl)}"
            if base and not base["error"]:
                title += f" (as built: {base['time_us'] / 1e3:,.2f} ms per step)"
            panels.append({"title": title, "rows": prow, "caption": "; ".join(cap) + ".",
                           "xlabel": "change of the step time against the chip as built (%)"})
    fig = TornadoFigure(
        "Study 4: DeepSeek-V3 step time with one assumed ([A]) field halved or doubled",
        panels,
        notes=["One field at a time, the rest as built; fields sorted by the larger |change|. x axes "
               "are per panel. Hover a bar for the exact step times,",
               "a field name for its value and source; the table in docs/design-space.md lists "
               "every field, those under 0.1% and the refused variants included."])
    svgs.append(("sensitivity.svg", fig, "Study 4: tornado chart"))

    md.append("## Study 4: which assumed numbers the step rests on (tpu-v7 and gb300)\n")
    md.append("**Question.** Which assumed numbers does each conclusion rest on, and how much? "
              "Every number the studies above print is modelled on a target whose unpublished "
              "figures carry an `[A]` source with the reasoning behind the value. Halve and "
              "double each such field of tpu-v7 and gb300, one at a time, and price DeepSeek-V3 "
              "again: a field that moves the step a lot is one a conclusion rests on; one that "
              "does not can be wrong without consequence here.\n")
    nfields = ", ".join(f"{len(fields[c])} on {c}" for c in SENS_CHIPS)
    md.append(f"**Spec.** [`{spec_rel}`](../{spec_rel}) (written by the script): DeepSeek-V3 "
              f"prefill of 4K tokens and decode at batch 64 (context 4095), as in studies 1 and 3; "
              f"each chip as built (the baseline), then one target entry per numeric field whose "
              f"source in `npu-target-info --json` starts with `[A]` ({nfields}; the "
              f"`interconnect.*` fields left out: one chip uses no link), varying only that field "
              f"over 0.5x and 2x its value. Table: "
              f"[`design-space/sensitivity.csv`](design-space/sensitivity.csv). A variant the "
              f"loader refuses (a sustained figure above its quoted one, a shared memory per "
              f"block above the SM's) or that no tile fits is a row with an `error`: it is listed "
              f"below as refused and has no bar in the chart.\n")
    md.append("This is the sweep-based form of `npu-compare --sensitivity` (docs/compare.md, "
              "\"Sensitivity\"), which varies the same `[A]` fields of a TPU-like and a GPU-like "
              "target and reports how the TPU/GPU time ratio moves (and whether it flips); here "
              "each chip's own step moves, in %, against that chip as built. The two differ in "
              "one rule: npu-compare halves and doubles a sustained figure's shortfall below "
              "the quoted one, so its doubled variant is valid, while this study scales the "
              "value itself, and the loader refuses the doubled one.\n")
    for chip in SENS_CHIPS:
        short = {wl: nice(wl).replace("DeepSeek-V3 ", "") for wl in workloads}
        header = ["field", "value as built", "source (first clause)"]
        for wl in workloads:
            header += [f"{short[wl]}: x0.5", f"{short[wl]}: x2"]
        order = sorted(fields[chip], key=lambda fv: (
            -max([swing(data.get((chip, wl), {}), fv[0]) or 0 for wl in workloads] + [0]), fv[0]))
        body = []
        for field, val in order:
            src = T.source(chip, field).split(";")[0]
            if len(src) > 110:
                src = src[:107].rstrip() + "..."
            row = [f"`{field}`", fval(val), src.replace("|", "/")]
            for wl in workloads:
                d = data.get((chip, wl), {})
                for f in SENS_FACTORS:
                    v, r = change_pct(d, field, f)
                    if r is not None and r["error"]:
                        row.append("refused: " + refusal(r["error"]).replace("|", "/"))
                    else:
                        row.append(fchg(v))
            body.append(row)
        basel = []
        for wl in workloads:
            b = data.get((chip, wl), {}).get("base")
            if b and not b["error"]:
                basel.append(f"{nice(wl)} {b['time_us'] / 1e3:,.2f} ms per step")
        md.append(f"**{chip}** ({kind[chip]}-like; as built: " + ", ".join(basel) + "). Change of "
                  f"the step time with the field at 0.5x and 2x its value:\n")
        md.append(md_table(header, body, ["---", "---:", "---"] + ["---:"] * (2 * len(workloads)))
                  + "\n")
    md.append("![Study 4: tornado chart of the step's change per assumed field](design-space/sensitivity.svg)\n")
    md.append("**Reading.**\n")
    md.append(study_sensitivity_reading(ctx, data, fields, values, kind, workloads, below_counts))
    return "\n".join(md), svgs, rows, columns


def study_sensitivity_reading(ctx, data, fields, values, kind, workloads, below_counts):
    paras = []
    top = {}
    lines = []
    for chip in SENS_CHIPS:
        for wl in workloads:
            d = data.get((chip, wl), {})
            ranked = sorted(((swing(d, f), f) for f, _ in fields[chip] if swing(d, f) is not None),
                            key=lambda t: (-t[0], t[1]))
            top[(chip, wl)] = [f for _, f in ranked[:3]]
            items = []
            for f in top[(chip, wl)]:
                parts = []
                for x in SENS_FACTORS:
                    v, r = change_pct(d, f, x)
                    parts.append(f"x{x:g} " + ("refused" if r is not None and r["error"] else fchg(v)))
                items.append(f"`{f}` ({', '.join(parts)})")
            base = d.get("base")
            where = ""
            # Where the largest change sits: the MoE experts, attention or the rest.
            if top[(chip, wl)] and base and not base["error"]:
                f0 = top[(chip, wl)][0]
                cands = [(abs(change_pct(d, f0, x)[0]), x) for x in SENS_FACTORS
                         if change_pct(d, f0, x)[0] is not None]
                if cands:
                    _, x = max(cands)
                    r = d[f0][x]
                    dt = r["time_us"] - base["time_us"]
                    dm = r["moe_us"] - base["moe_us"]
                    da = r["attention_us"] - base["attention_us"]
                    if abs(dt) > 0:
                        where = (f"; of the {dt / 1e3:+,.2f} ms that `{f0}` x{x:g} adds, the MoE "
                                 f"experts' kernels take {dm / dt:.0%}, attention {da / dt:.0%} "
                                 f"and the rest {(dt - dm - da) / dt:.0%}")
            lines.append(f"*{chip}, {nice(wl)}*: " + "; ".join(items) + where + ".")
    paras.append("The three fields that move each step most (by the larger |change| of the two "
                 "variants): " + " ".join(lines))
    # What each of those fields acts through.
    named = []
    for chip in SENS_CHIPS:
        for wl in workloads:
            for f in top[(chip, wl)]:
                if (kind[chip], f) not in [(k, g) for k, g, _ in named]:
                    named.append((kind[chip], f, chip))
    mech = []
    for k, f, chip in named:
        text = SENS_MECHANISMS.get((k, f))
        if not text:
            continue
        chips = [c for c in SENS_CHIPS if kind[c] == k]
        mech.append(f"- `{f}` ({', '.join(chips)}): {text}.")
    paras.append("What they act through in the cost models:\n\n" + "\n".join(mech))
    # The TPU's DMA pair and the clock against the matrix clock: what the data says.
    extra = []
    for chip in SENS_CHIPS:
        if kind[chip] != "tpu":
            continue
        for wl in workloads:
            d = data.get((chip, wl), {})
            a, _ = change_pct(d, "tpu.dma_setup_latency_ns", 2)
            b, _ = change_pct(d, "tpu.dma_engines_per_core", 0.5)
            q, _ = change_pct(d, "tpu.row_dmas_in_flight_per_core", 0.5)
            if a is not None and b is not None:
                t = (f"{nice(wl)}: `tpu.dma_setup_latency_ns` x2 {fchg(a)}, "
                     f"`tpu.dma_engines_per_core` x0.5 {fchg(b)}")
                if q is not None:
                    t += f", `tpu.row_dmas_in_flight_per_core` x0.5 {fchg(q)}"
                extra.append(t)
        if extra:
            paras.append(
                f"On {chip} the DMA fields come next. A tile DMA pays `D0 / Q` "
                f"(docs/cost-model-tpu.md, \"The pipelined tile loop\"), so doubling the setup "
                f"and halving the engines cost the same where the MoE's gathered rows, paced by "
                f"`D0 / Qr` and not by `Q`, bound no step; where they do (prefill), the setup "
                f"costs more: " + "; ".join(extra) + ". These are the per-step charges study 1's "
                f"SRAM cliff is made of; this study prices them at the SRAM as built only, where "
                f"tiles are large and few.")
        cl = [(wl, change_pct(data.get((chip, wl), {}), "clock_hz", 0.5)[0],
               change_pct(data.get((chip, wl), {}), "matrix_clock_hz", 0.5)[0]) for wl in workloads]
        cl = [(wl, a, b) for wl, a, b in cl if a is not None and b is not None]
        if cl:
            dbl = [(wl, change_pct(data.get((chip, wl), {}), "clock_hz", 2)[0]) for wl in workloads]
            dbl = [(wl, v) for wl, v in dbl if v is not None]
            txt = (f"`clock_hz` and `matrix_clock_hz` halved lower the same matrix rate on {chip}; "
                   f"the gap between them is what a slower vector unit, transcendental unit and "
                   f"serial MoE sort add: " + "; ".join(f"{nice(wl)} {fchg(a)} against {fchg(b)}"
                                                         for wl, a, b in cl) + ".")
            if dbl:
                txt += (" A doubled `clock_hz` carries `matrix_clock_hz` along, so it is the one "
                        "doubled matrix rate the loader accepts: "
                        + "; ".join(f"{nice(wl)} {fchg(v)}" for wl, v in dbl) + ".")
            paras.append(txt)
    # Fields that do not matter here.
    quiet = []
    for chip in SENS_CHIPS:
        sets = [set(below_counts[(chip, wl)][0]) for wl in workloads]
        both = sorted(set.intersection(*sets)) if sets else []
        if both:
            quiet.append(f"{chip}: " + ", ".join(f"`{f}`" for f in both))
    if quiet:
        paras.append(f"Fields that move neither step by {SENS_MIN_PCT:g}% at 0.5x or 2x (of the "
                     f"variants priced; a value wrong by up to a factor of 2 there moves these steps "
                     f"by less than that): " + "; ".join(quiet) + ".")
    # Back to the studies above.
    back = []
    for chip in SENS_CHIPS:
        dec = next((wl for wl in workloads if "decode" in wl), None)
        if not dec:
            continue
        d = data.get((chip, dec), {})
        if kind[chip] == "tpu":
            v, _ = change_pct(d, "matrix_clock_hz", 0.5)
            if v is not None:
                back.append(f"study 3's {chip} crossover, where the streamed-rows floor meets the "
                            f"weight stream, scales with the sustained matrix rate, and "
                            f"`matrix_clock_hz` halved already costs {nice(dec)} {fchg(v)} at the "
                            f"bandwidth as built")
        else:
            v, _ = change_pct(d, "gpu.l2_bandwidth_bytes_per_s", 0.5)
            if v is not None:
                back.append(f"study 3's {chip} knee is where the sustained HBM bandwidth passes "
                            f"`gpu.l2_bandwidth_bytes_per_s`, and halving that assumed figure "
                            f"costs {nice(dec)} {fchg(v)} at the bandwidth as built: the knee and "
                            f"the decode numbers move with it")
    if back:
        paras.append("For the studies above: " + "; ".join(back) + ". Both are [A] fields with "
                     "no measurement behind them on these chips (table), so those conclusions "
                     "are as good as the two numbers.")
    refused = []
    for chip in SENS_CHIPS:
        for wl in workloads:
            d = data.get((chip, wl), {})
            for f, _ in fields[chip]:
                for x in SENS_FACTORS:
                    r = d.get(f, {}).get(x)
                    if r is not None and r["error"]:
                        refused.append((chip, f, x, wl, refusal(r["error"])))
    if refused:
        groups = {}
        for chip, f, x, wl, why in refused:
            groups.setdefault((chip, f, x, why), []).append(nice(wl))
        items = [f"{chip} `{f}` x{x:g} ({', '.join(wls) if len(wls) < len(workloads) else 'both'}): {why}"
                 for (chip, f, x, why), wls in groups.items()]
        paras.append(f"Refused variants ({len(refused)} points): " + "; ".join(items) + ". The "
                     "sustained figures' doubled variants are refused by design; npu-compare "
                     "--sensitivity varies their shortfall instead (above).")
    return "\n\n".join(paras) + "\n"


# ---------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------

class Context:
    def __init__(self, bindir):
        self.bindir = bindir
        self.split = None
        self.targets = Targets(bindir)
        self.proxies = None
        path = os.path.join(ROOT, "npu-target", "proxies", "energy-area.json")
        if os.path.exists(path):
            with open(path) as f:
                self.proxies = json.load(f)

    def proxy_value(self, key):
        return (self.proxies or {}).get(key)


ASSUMPTIONS = [
    ("tpu-v7", "tpu.grid_step_overhead_ns", "1: the cost of small tiles (steepness of the SRAM cliff)"),
    ("tpu-v7", "tpu.dma_setup_latency_ns", "1: the cost of small tiles and gathered MoE rows"),
    ("tpu-v7", "tpu.row_dmas_in_flight_per_core", "1: MoE row gathers at small SRAM"),
    ("tpu-v7", "tpu.dma_engines_per_core", "1: DMA setups overlapped per core"),
    ("tpu-v7", "matrix_clock_hz", "2, 3: the sustained matrix rate, hence the streamed-rows crossover"),
    ("tpu-v7", "sustained_hbm_bandwidth_bytes_per_s", "1, 3: the bandwidth the model streams at"),
    ("gb300", "gpu.l2_bandwidth_bytes_per_s", "3: where gb300's decode curves flatten"),
    ("gb300", "gpu.graph_launch_overhead_ns", "3: the per-kernel rest of gb300's decode step"),
    ("gb300", "gpu.dram_latency_ns", "3: the per-wave rest of gb300's decode step"),
    ("gb300", "sustained_hbm_bandwidth_bytes_per_s", "3: the bandwidth the model streams at"),
]


def page(ctx, studies, runs, all_errors, proxies_present):
    T = ctx.targets
    n = len(studies)
    count = {3: "three", 4: "four"}.get(n, str(n))
    md = [f"# Design space: {count} worked studies with npu-sweep\n",
          "Generated by scripts/design_space.py; do not edit.\n",
          f"This page asks {count} chip-design questions of the cost models and answers each with "
          "one `npu-sweep` run (docs/sweep.md): how much SRAM per core a TPU-like chip needs for "
          "DeepSeek-V3, which matrix-unit width wastes least on real models at a fixed peak, "
          + ("up to what HBM bandwidth decode stays bandwidth-bound on tpu-v7 and gb300, and "
             "which assumed numbers of tpu-v7 and gb300 the DeepSeek-V3 step rests on, and how "
             "much (each halved and doubled: a tornado chart). Every number "
             if n > 3 else
             "and up to what HBM bandwidth decode stays bandwidth-bound on tpu-v7 and gb300. "
             "Every number ")
          + "is modelled (docs/cost-model-tpu.md, docs/cost-model-gpu.md), not measured; each "
          "variant is a target with overrides (docs/targets.md, \"Variants without a file\"), so "
          "each rests on the assumed ([A]) fields of its target, listed at the end with the "
          "conclusions that depend on them. Where a reading says which kernels a number comes "
          "from, the script has read it from `npu-opt --npu-report-cost` on the same variant "
          "(study 1's attention kernels, study 2's padding by kernel). The tables are the sweeps' "
          "CSVs, next to the plots "
          "under [`design-space/`](design-space/); hover a plot's point for its exact value.\n",
          "Regenerate (needs `build/`, built by scripts/setup.sh):\n",
          f"```sh\npython3 scripts/design_space.py          # the {count} sweeps (-j 2), this page, "
          "its plots and CSVs\npython3 scripts/design_space.py --check  # smoke check: study 1 "
          "on two SRAM sizes, study 4's spec listed\n```\n"]
    rows = [[f"{i + 1}", f"[`{spec}`](../{spec})", f"[`{csvname}`](design-space/{csvname})",
             str(n), str(nerr)] for i, (spec, csvname, n, nerr) in enumerate(runs)]
    md.append(md_table(["study", "spec", "table", "points", "errors"], rows,
                       ["---", "---", "---", "---:", "---:"]) + "\n")
    md.append("Derived quantities: tokens per step = `tokens_per_s x time_us x 1e-6` (batch x "
              "sequence for prefill, batch for decode); ms per token = `time_us / 1000 / tokens` (a "
              "throughput figure: a decode token waits the whole step); "
              "padding waste = `padded_flops / flops - 1`.\n")
    md.append("## Energy and area\n")
    if proxies_present:
        md.append("The CSVs carry npu-sweep's proxies, `area_mm2` (the chip's area proxy), "
                  "`energy_j` (one step's energy) and `tokens_per_j`, from the constants of "
                  "[`npu-target/proxies/energy-area.json`](../npu-target/proxies/energy-area.json); "
                  "the formulas and what they leave out are in docs/sweep.md, \"Energy and area "
                  "proxies\". They compare variants of one chip, not chips of different nodes. "
                  "The Pareto plots use them (study 1: area; study 2: area; study 3: J per token), "
                  "and each of studies 1 to 3 adds an energy plot. The constants, each with its "
                  "source's tag:\n")
        if ctx.proxies:
            body = []
            for k, v in ctx.proxies.items():
                if k in ("name", "description", "sources"):
                    continue
                src = ctx.proxies.get("sources", {}).get(k, "")
                tag = re.match(r"\s*(\[[^\]]+\])", src)
                body.append([f"`{k}`", f"{v:g}", tag.group(1) if tag else ""])
            md.append(md_table(["constant", "value", "tag"], body, ["---", "---:", "---"]) + "\n")
    else:
        md.append("Note: this build's npu-sweep CSVs have no `energy_j`, `area_mm2` or "
                  "`tokens_per_j` columns, so the energy and area plots are skipped and the Pareto "
                  "plots use SRAM per core, MXU MAC cells and HBM bandwidth instead.\n")
    for s in studies:
        md.append(s)
    md.append("## Assumptions these conclusions rest on\n")
    md.append("The [A]-tagged target fields the readings above name, with their values as built "
              "(`npu-target-info`; sources in npu-target/README.md). A conclusion that rests on "
              "one can be tested by adding it to a sweep, as study 4 does for every [A] field of "
              "tpu-v7 and gb300 at the chips as built (or with `npu-compare --sensitivity`, "
              "docs/compare.md). The model-level assumptions named above, the streamed-rows floor "
              "and the units priced only through the peak, are in docs/cost-model-tpu.md, "
              "\"Matrix unit\" and \"Parameters\".\n")
    body = []
    for base, field, why in ASSUMPTIONS:
        try:
            val, tag, src = assumption(T, base, field)
        except (KeyError, ToolError):
            continue
        short = src.split(";")[0]
        if len(short) > 110:
            short = short[:107].rstrip() + "..."
        body.append([f"{base}", f"`{field}`", f"{val:g}", short.replace("|", "/"), why])
    md.append(md_table(["target", "field", "value", "source (first clause)", "study: what depends on it"],
                       body, ["---", "---", "---:", "---", "---"]) + "\n")
    md.append("## Rows with errors\n")
    if all_errors:
        md.append("Points the sweeps could not price (each is a row of its CSV with an `error`"
                  + ("; study 4's are its refused variants, shown in its table" if n > 3 else "")
                  + "):\n")
        for study, r in all_errors:
            md.append(f"- study {study}, `{r['workload']}` on `{r['target']}`: {r['error']}")
        md.append("")
    else:
        md.append(f"None: every point of the {count} sweeps was priced.\n")
    return "\n".join(md).rstrip() + "\n"


def generate(args):
    bindir = os.path.abspath(args.build) + "/bin"
    docs = os.path.abspath(args.docs_dir)
    outdir = os.path.join(docs, "design-space")
    os.makedirs(outdir, exist_ok=True)
    ctx = Context(bindir)
    sweeps = [
        ("sram", os.path.join(SWEEP_DIR, "sram.json"), None),
        ("mxu-width", os.path.join(SWEEP_DIR, "mxu-width.json"), MXU_SPEC),
        ("hbm-decode", os.path.join(SWEEP_DIR, "hbm-decode.json"), HBM_SPEC),
        ("sensitivity", os.path.join(SWEEP_DIR, "sensitivity.json"), sensitivity_spec(ctx.targets)),
    ]
    dropped, ran = {}, {}
    timings = []
    for name, spec_path, spec in sweeps:
        csv_path = os.path.join(outdir, name + ".csv")
        if args.csv_dir:
            if name == "sensitivity" and not os.path.exists(os.path.join(args.csv_dir, name + ".csv")):
                print(f"note: no {name}.csv in {args.csv_dir}: study 4 skipped", file=sys.stderr)
                continue
            if os.path.abspath(args.csv_dir) != outdir:
                shutil.copyfile(os.path.join(args.csv_dir, name + ".csv"), csv_path)
                relativize_csv(csv_path)
            dropped[name] = []
            if spec is None or os.path.exists(spec_path):
                with open(spec_path) as f:
                    spec = json.load(f)
            ran[name] = spec
            continue
        if spec is None:
            with open(spec_path) as f:
                spec = json.load(f)
            write = False
        else:
            write = True
        npts = "?"
        print(f"sweep {name}: {os.path.relpath(spec_path, ROOT)} -> {os.path.relpath(csv_path, ROOT)}")
        seconds, drop, ran[name] = run_sweep(bindir, spec, spec_path, csv_path, write)
        relativize_csv(csv_path)
        with open(csv_path, newline="") as f:
            npts = sum(1 for _ in csv.DictReader(f))
        dropped[name] = drop
        timings.append((name, seconds, npts))
        print(f"  {npts} points in {seconds:.1f} s (-j {JOBS})")
    rel = lambda p: os.path.relpath(p, ROOT)
    s1, svg1, rows1, cols1 = study_sram(ctx, os.path.join(outdir, "sram.csv"), rel(sweeps[0][1]),
                                        ran["sram"])
    s2, svg2, rows2, cols2 = study_mxu(ctx, os.path.join(outdir, "mxu-width.csv"), rel(sweeps[1][1]),
                                       dropped["mxu-width"], ran["mxu-width"])
    s3, svg3, rows3, cols3 = study_hbm(ctx, os.path.join(outdir, "hbm-decode.csv"), rel(sweeps[2][1]),
                                       dropped["hbm-decode"])
    studies, svgs, all_rows = [s1, s2, s3], svg1 + svg2 + svg3, [rows1, rows2, rows3]
    done = [sweeps[0], sweeps[1], sweeps[2]]
    if "sensitivity" in ran:
        s4, svg4, rows4, _ = study_sensitivity(ctx, os.path.join(outdir, "sensitivity.csv"),
                                               rel(sweeps[3][1]), ran["sensitivity"])
        studies.append(s4)
        svgs += svg4
        all_rows.append(rows4)
        done.append(sweeps[3])
    proxies_present = all(has_proxies(c) for c in (cols1, cols2, cols3))
    if not proxies_present and any(has_proxies(c) for c in (cols1, cols2, cols3)):
        print("warning: only some CSVs have the energy/area columns", file=sys.stderr)
    errors = [(i + 1, r) for i, rows in enumerate(all_rows) for r in rows if r["error"]]
    runs = [(rel(sweeps[i][1]), sweeps[i][0] + ".csv", len(rows), sum(1 for r in rows if r["error"]))
            for i, rows in enumerate(all_rows)]
    written = []
    # Stale plots of a previous run (e.g. energy plots when the columns went away).
    for fn in os.listdir(outdir):
        if fn.endswith(".svg"):
            os.remove(os.path.join(outdir, fn))
    for fname, fig, _ in svgs:
        path = os.path.join(outdir, fname)
        write_svg(fig, path)
        written.append(path)
    text = page(ctx, studies, runs, errors, proxies_present)
    md_path = os.path.join(docs, "design-space.md")
    with open(md_path, "w") as f:
        f.write(text)
    print("wrote:")
    for p in [md_path] + written + [os.path.join(outdir, n + ".csv") for n, _, _ in done] + \
            ([p for _, p, _ in done[1:]] if not args.csv_dir else []):
        print(f"  {rel(p)}")
    for name, seconds, npts in timings:
        print(f"sweep {name}: {npts} points, {seconds:.1f} s")
    if errors:
        print(f"{len(errors)} rows with errors:")
        for study, r in errors:
            print(f"  study {study}: {r['workload']} on {r['target']}: {r['error']}")
    else:
        print("no rows with errors")
    if not proxies_present:
        print("note: no energy_j/area_mm2/tokens_per_j columns; energy and area plots skipped")
    return 0


def check(args):
    """Study 1 on two SRAM sizes: the CSV has the expected columns and no error."""
    bindir = os.path.abspath(args.build) + "/bin"
    src = os.path.join(SWEEP_DIR, "sram.json")
    with open(src) as f:
        spec = json.load(f)
    for w in spec["workloads"]:
        w["config"] = os.path.normpath(os.path.join(os.path.dirname(src), w["config"]))
    sizes = ["32MiB", "64MiB"]
    spec["targets"] = [{"base": "tpu-v7", "vary": {"tpu.vmem_bytes_per_core": sizes}}]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = os.path.join(tmp, "sram-check.json")
        csv_path = os.path.join(tmp, "sram-check.csv")
        with open(spec_path, "w") as f:
            json.dump(spec, f, indent=1)
        try:
            seconds, _, _ = run_sweep(bindir, spec, spec_path, csv_path, write_spec=False)
        except ToolError as e:
            print(f"design_space --check: FAIL: {e}", file=sys.stderr)
            return 1
        columns, rows = read_csv(csv_path)
        want = BASE_COLUMNS[:4] + ["tpu.vmem_bytes_per_core"] + BASE_COLUMNS[4:]
        missing = [c for c in want if c not in columns]
        if missing:
            problems.append(f"missing columns: {', '.join(missing)}")
        present = [c for c in PROXY_COLUMNS if c in columns]
        if present and len(present) != len(PROXY_COLUMNS):
            problems.append(f"only some proxy columns: {', '.join(present)}")
        expect = len(spec["workloads"]) * len(sizes)
        if len(rows) != expect:
            problems.append(f"{len(rows)} rows, expected {expect}")
        for r in rows:
            tag = f"{r.get('workload')} on {r.get('target')}"
            if r["error"]:
                problems.append(f"{tag}: error: {r['error']}")
                continue
            for key in ["time_us", "tokens_per_s", "flops", "padded_flops", "hbm_bytes"] + present:
                if r.get(key) is None or not r[key] > 0:
                    problems.append(f"{tag}: {key} = {r.get(key)!r}, expected > 0")
            if r["time_us"] and (r["moe_us"] or 0) + (r["attention_us"] or 0) > r["time_us"] * (1 + 1e-9):
                problems.append(f"{tag}: moe_us + attention_us exceed time_us")
            if r["flops"] and r["padded_flops"] and r["padded_flops"] < r["flops"] * (1 - 1e-9):
                problems.append(f"{tag}: padded_flops < flops")
        if not problems:
            # The page's plots for study 1 draw and parse.
            try:
                ctx = Context(bindir)
                shutil.copyfile(csv_path, os.path.join(tmp, "sram.csv"))
                _, svgs, _, _ = study_sram(ctx, os.path.join(tmp, "sram.csv"), "examples/sweeps/sram.json")
                for fname, fig, _ in svgs:
                    write_svg(fig, os.path.join(tmp, fname))
            except Exception as e:  # noqa: BLE001 - any failure is a failed check
                problems.append(f"drawing study 1: {type(e).__name__}: {e}")
        listed = None
        if not problems:
            # Study 4's spec: built from npu-target-info and accepted by npu-sweep
            # (listed, not priced).
            try:
                listed = check_sensitivity_spec(bindir, tmp)
            except (ToolError, ValueError, KeyError) as e:
                problems.append(f"study 4's spec: {e}")
    if problems:
        for p in problems:
            print(f"design_space --check: FAIL: {p}", file=sys.stderr)
        return 1
    print(f"design_space --check: ok ({len(rows)} points, {len(columns)} columns, {seconds:.1f} s; "
          f"study 4's spec: {listed} points listed)")
    return 0


def check_sensitivity_spec(bindir, tmp):
    """Builds study 4's spec and has npu-sweep list its points; returns their
    count (raises ValueError when it is not the spec's)."""
    spec = sensitivity_spec(Targets(bindir))
    for w in spec["workloads"]:
        w["config"] = os.path.normpath(os.path.join(SWEEP_DIR, w["config"]))
    path = os.path.join(tmp, "sensitivity-check.json")
    with open(path, "w") as f:
        f.write(spec_text(spec))
    proc = run_tool([os.path.join(bindir, "npu-sweep"), path, "--list"], "npu-sweep --list")
    got = len([line for line in proc.stdout.splitlines() if line.strip()])
    want = len(spec["workloads"]) * sum(math.prod(len(v) for v in t.get("vary", {}).values())
                                        for t in spec["targets"])
    fields = sum(1 for t in spec["targets"] if t.get("vary"))
    if got != want or not fields:
        raise ValueError(f"npu-sweep --list gave {got} points, expected {want} ({fields} fields)")
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="smoke check: study 1 on two SRAM sizes")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build tree (default: build/)")
    ap.add_argument("--csv-dir", help="read sram.csv, mxu-width.csv, hbm-decode.csv from here; run no sweep")
    ap.add_argument("--docs-dir", default=os.path.join(ROOT, "docs"), help="where design-space.md goes")
    ap.add_argument("--jobs", type=int, default=2, help="npu-sweep -j and parallel tool runs "
                    "(default: 2)")
    ap.add_argument("--retries", type=int, help="retries of a tool that is missing or fails oddly, "
                    "30 s apart (default: 4; 1 with --check)")
    args = ap.parse_args()
    global RETRIES, JOBS
    JOBS = max(1, args.jobs)
    RETRIES = args.retries if args.retries is not None else (1 if args.check else RETRIES)
    try:
        return check(args) if args.check else generate(args)
    except ToolError as e:
        print(f"design_space: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
