#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares two results CSVs column by column (docs/fmi.md): the runner's ("name [unit]" headers)
and fmusim's ("name" headers, quoted). Columns are matched by name, rows by time (those of the
first file's times that the second has). Prints, per common channel, the largest difference
relative to the channel's range in the first file, and fails (exit 1, "FAIL:") when one is above
--tolerance or no channel is common.

  compare_csv.py runner.csv fmusim.csv --tolerance 1e-12
  compare_csv.py fine.csv fmusim.csv --within coarse.csv --factor 1.5   (no worse than coarse.csv)
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


def differences(ha, da, hb, db, times=None):
    """Per common channel, the largest |a - b| relative to a's range at the times both (and, when
    given, `times`) have; the rows compared."""
    times_b = {round(r[0], 9): r for r in db}
    common = [c for c in ha[1:] if c in hb]
    rows = [(r, times_b[round(r[0], 9)]) for r in da
            if round(r[0], 9) in times_b and (times is None or round(r[0], 9) in times)]
    out = {}
    for c in common:
        ia, ib = ha.index(c), hb.index(c)
        values = [r[ia] for r, _ in rows]
        if not values:
            break
        span = max(values) - min(values) or max(abs(v) for v in values) or 1.0
        out[c] = max(abs(r[ia] - s[ib]) for r, s in rows) / span
    return out, rows


def main():
    a = argparse.ArgumentParser()
    a.add_argument("first")
    a.add_argument("second")
    a.add_argument("--tolerance", type=float, default=1e-12)
    a.add_argument("--within", metavar="OTHER",
                   help="pass when second's largest difference from first is at most --factor times "
                        "OTHER's (at the times all three have) plus --tolerance")
    a.add_argument("--factor", type=float, default=1.0)
    o = a.parse_args()
    ha, da = read(o.first)
    hb, db = read(o.second)
    times = None
    if o.within:
        hc, dc = read(o.within)
        times = {round(r[0], 9) for r in dc} & {round(r[0], 9) for r in db}
    diff, rows = differences(ha, da, hb, db, times)
    if not diff:
        print("FAIL: no common channel")
        return 1
    if len(rows) < 2:
        print("FAIL: fewer than 2 common times")
        return 1
    for c, d in diff.items():
        print("%-40s %.3e of its range" % (c, d))
    worst = max(diff.values())
    print("%d channels at %d common times: largest difference %.3e of the range" % (len(diff), len(rows), worst))
    limit = o.tolerance
    if o.within:
        other, _ = differences(ha, da, hc, dc, times)
        reference = max(other[c] for c in diff if c in other)
        limit += o.factor * reference
        print("%s at the same times: largest difference %.3e of the range; limit %.3e" % (o.within, reference, limit))
    if worst > limit:
        print("FAIL: above the limit %.3e" % limit)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
