#!/usr/bin/env python3
"""Checks an npu-sweep CSV that varies one field: per workload, every point is
priced and the step's time does not fall as the field's value grows (with
--decreasing: does not grow). Prints one line per workload, and one per point
not priced (a failure, unless --unpriced-ok: then the caller's FileCheck lines
say which).

usage: check_monotone.py sweep.csv field [--decreasing] [--unpriced-ok]
"""
import csv
import re
import sys

UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
         "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def number(text):
    m = re.fullmatch(r"([0-9.e+-]+)([A-Za-z]*)", text)
    return float(m.group(1)) * UNITS[m.group(2)]


def main():
    path, field = sys.argv[1], sys.argv[2]
    sign = -1 if "--decreasing" in sys.argv[3:] else 1
    by_workload = {}
    ok = True
    for row in csv.DictReader(open(path)):
        if row["error"]:
            print("%s %s: not priced: %s" % (row["workload"], row[field], row["error"]))
            ok &= "--unpriced-ok" in sys.argv[3:]
            continue
        by_workload.setdefault(row["workload"], []).append(
            (number(row[field]), float(row["time_us"])))
    for name, points in by_workload.items():
        points.sort()
        bad = [(a, b) for a, b in zip(points, points[1:])
               if sign * (b[1] - a[1]) > 1e-9 * a[1]]
        for a, b in bad:
            print("%s: %g us at %g, %g us at %g" % (name, a[1], a[0], b[1], b[0]))
        ok &= not bad
        print("%s: %d points priced, time %s as %s grows%s" % (
            name, len(points), "never rises" if sign > 0 else "never falls",
            field, "" if not bad else " (NOT)"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
