#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the example dynamic-stiffness measurements in projects/bushing_data/.

They are synthetic, not measured: the complex stiffness of a known bushing direction,
    K(f) = k0 + j w c0 + sum_i k_i j w c_i / (k_i + j w c_i),   w = 2 pi f,
the trailing-arm bushings' x of projects/double_wishbone_viscoelastic.json (static slope
5e5 N/m, damper 600 N s/m, two Maxwell branches), at 24 frequencies from 0.5 to 100 Hz.
One file holds the exact values, the other the values with noise as a test rig's: the
magnitude times (1 + e), e normal with a standard deviation of 1 %, and the loss angle plus
a normal error of 0.3 deg (seed 2026). The identification tests recover the parameters from
them (docs/bushing-identification.md).

    python3 scripts/make_bushing_data.py
"""
import cmath
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "projects", "bushing_data")

K0, C0 = 5.0e5, 600.0
BRANCHES = [(1.5e5, 7500.0), (1.0e5, 400.0)]  # as TRAILING_ARM_MAXWELL in make_projects.py
MAG_NOISE, LOSS_NOISE_DEG = 0.01, 0.3


def stiffness(f):
    jw = 2j * math.pi * f
    return K0 + jw * C0 + sum(k * jw * c / (k + jw * c) for k, c in BRANCHES)


def write(name, noisy):
    rng = random.Random(2026)
    freqs = [0.5 * (200.0 ** (i / 23.0)) for i in range(24)]
    lines = ["# Synthetic dynamic stiffness, NOT measured: scripts/make_bushing_data.py",
             "# generating model: k0 = %g N/m, c0 = %g N s/m, branches (k [N/m], c [N s/m]) = %s"
             % (K0, C0, ", ".join("(%g, %g)" % b for b in BRANCHES)),
             "# noise: %s" % ("magnitude x (1 + N(0, %g)), loss angle + N(0, %g deg), seed 2026" % (MAG_NOISE, LOSS_NOISE_DEG)
                              if noisy else "none (exact values)"),
             "frequency [Hz],magnitude [N/m],loss angle [deg]"]
    for f in freqs:
        K = stiffness(f)
        mag, loss = abs(K), math.degrees(cmath.phase(K))
        if noisy:
            mag *= 1.0 + rng.gauss(0.0, MAG_NOISE)
            loss += rng.gauss(0.0, LOSS_NOISE_DEG)
        lines.append("%r,%r,%r" % (f, mag, loss))
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, name)
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("wrote", os.path.relpath(path))


if __name__ == "__main__":
    write("trailing_arm_x_exact.csv", False)
    write("trailing_arm_x_noisy.csv", True)
