#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Wheel rate and body-mode frequency of shipped axles, measured with the engine.

Static equilibria of load case LC1 at F_z = 5000 N and 5500 N (both wheels, in phase) give the
wheel rate k = 500 N / dz of the left wheel centre; the body mode is sqrt(k / m) / 2 pi for a
sprung mass m per corner (default 400 kg, a mid-size passenger car).

    python3 scripts/wheel_rate.py projects/double_wishbone.json projects/multilink.json
"""
import argparse
import json
import math
import os
import subprocess
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SIM = os.path.join(ROOT, "build", "app", "elastokin-sim")


def wheel_centre_z(project, fz, tmp):
    p = json.load(open(project))
    for lc in p["load cases"]:
        if lc["name"] == "LC1":
            for s in lc["signals"]:
                if s["type"] == "constant":
                    s["value"] = fz
    path = os.path.join(tmp, "project.json")
    json.dump(p, open(path, "w"))
    out = os.path.join(tmp, "out.csv")
    subprocess.run([SIM, path, "--loadcase", "LC1", "--duration", "0.001", "--quiet", "--out", out], check=True,
                   capture_output=True)
    header = open(out).readline().strip().split(",")
    row = open(out).readlines()[1].split(",")
    return float(row[header.index("wheel centre z left [m]")])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("projects", nargs="+")
    ap.add_argument("--sprung-mass", type=float, default=400.0, help="per corner [kg]")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for project in args.projects:
            z1, z2 = wheel_centre_z(project, 5000.0, tmp), wheel_centre_z(project, 5500.0, tmp)
            k = 500.0 / (z2 - z1)
            print("%s: static wheel-centre height %+.1f mm from design, wheel rate %.0f N/m, body mode %.2f Hz "
                  "at %.0f kg per corner" % (os.path.basename(project), 1000 * z1, k,
                                              math.sqrt(k / args.sprung_mass) / (2 * math.pi), args.sprung_mass))


if __name__ == "__main__":
    main()
