#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares two results CSVs column by column (docs/fmi.md): the runner's ("name [unit]" headers)
and fmusim's ("name" headers, quoted). Columns are matched by name, rows by time (those of the
first file's times that the second has). Prints, per common channel, the largest difference
relative to the channel's range in the first file, and fails (exit 1, "FAIL:") when one is above
--tolerance or no channel is common.

  compare_csv.py runner.csv fmusim.csv --tolerance 1e-12 [--every 5]
"""
import argparse
import csv
import sys


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = [h.split(" [")[0].strip() for h in rows[0]]
    data = [[float(x) for x in r] for r in rows[1:] if r]
    return header, data


def main():
    a = argparse.ArgumentParser()
    a.add_argument("first")
    a.add_argument("second")
    a.add_argument("--tolerance", type=float, default=1e-12)
    o = a.parse_args()
    ha, da = read(o.first)
    hb, db = read(o.second)
    times_b = {round(r[0], 9): r for r in db}
    common = [c for c in ha[1:] if c in hb]
    if not common:
        print("FAIL: no common channel")
        return 1
    rows = [(r, times_b[round(r[0], 9)]) for r in da if round(r[0], 9) in times_b]
    if len(rows) < 2:
        print("FAIL: fewer than 2 common times")
        return 1
    worst = 0.0
    for c in common:
        ia, ib = ha.index(c), hb.index(c)
        values = [r[ia] for r, _ in rows]
        span = max(values) - min(values) or max(abs(v) for v in values) or 1.0
        diff = max(abs(r[ia] - s[ib]) for r, s in rows) / span
        worst = max(worst, diff)
        print("%-40s %.3e of its range" % (c, diff))
    print("%d channels at %d common times: largest difference %.3e of the range" % (len(common), len(rows), worst))
    if worst > o.tolerance:
        print("FAIL: above the tolerance %.1e" % o.tolerance)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
