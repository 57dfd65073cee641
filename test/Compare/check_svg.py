"""Checks npu-compare's pictures against the JSON report of the same run.

usage: check_svg.py <svg dir> <report.json>

Every SVG must parse as XML with an <svg> root, and hold one mark per thing
it draws: a dot per kernel with FLOPs, HBM bytes and time on each roofline,
a bar per top-level kernel or call of the entry function (both lanes) on the
timeline, a bar per ranked kernel row (at most 30) on the delta chart. The
expected numbers are counted from the JSON; the script prints them for
FileCheck and fails if a picture disagrees.
"""

import json
import os
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def count(path, tag, cls):
    root = ET.parse(path).getroot()
    assert root.tag == NS + "svg", path + ": root is not <svg>"
    return sum(1 for e in root.iter(NS + tag) if e.get("class") == cls)


def main():
    svg_dir, report = sys.argv[1], json.load(open(sys.argv[2]))
    assert report["schema"] == "npu-compare/1"
    ok = True
    for side in ("tpu", "gpu"):
        want = 0
        for f in report["functions"]:
            for r in f["rows"]:
                for i in (r[side] or {}).get("items", []):
                    traffic = i["hbm_read_bytes"] + i["hbm_write_bytes"]
                    if not i["call"] and i["flops"] > 0 and traffic > 0 \
                            and i["time_ns"] > 0:
                        want += 1
        got = count(os.path.join(svg_dir, "roofline-%s.svg" % side),
                    "circle", "kernel")
        print("roofline-%s.svg: %d kernels (expected %d)" % (side, got, want))
        ok &= got == want
    entry = [f for f in report["functions"] if f["name"] == report["entry"]]
    want = sum(len((r[s] or {}).get("items", [])) for r in entry[0]["rows"]
               for s in ("tpu", "gpu"))
    got = count(os.path.join(svg_dir, "timeline.svg"), "rect", "bar")
    print("timeline.svg: %d bars (expected %d)" % (got, want))
    ok &= got == want
    want = min(30, len(report["ranking"]))
    got = count(os.path.join(svg_dir, "delta.svg"), "rect", "delta")
    print("delta.svg: %d bars (expected %d)" % (got, want))
    ok &= got == want
    if not ok:
        sys.exit("a picture does not match the report")
    print("svg ok")


main()
