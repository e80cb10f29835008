#!/usr/bin/env python3
"""Writes the CalculiX deck of the twist-beam rear axle's cross member (projects/README.md,
"twist_beam_rear.json"): an inverted U (open downwards) of steel sheet, S8R shells on the
profile's mid-surface, in the vehicle frame (ISO 8855: x forward, y left, z up) in mm, t, s, N.

    python3 projects/fe/twist_beam_cross_member.py [--open-up] [OUT.inp]

The deck's matrix step (*FREQUENCY, SOLVER=MATRIXSTORAGE) is what `elastokin-sim --import-fe`
reads; the node sets LEFT_END and RIGHT_END are the sections welded to the trailing arms (each
follows a marker at the section's centroid rigidly). The folds between the top plate and the
flanges become CalculiX knots. The section's centroid, shear centre and Saint-Venant torsion
constant are printed (thin-walled formulas), so the deck and the project's README agree.

--open-up writes the same profile turned over (a U open upwards, the web at the bottom) about the
same centroid: its shear centre lies as far below the centroid as the shipped one's lies above it,
the comparison of projects/README.md ("The shear centre's effect").
"""

import os
import sys

# Section (mid-surface), mm: top plate (web) of width B along x, flanges of depth H hanging down
# from its edges, thickness T; the beam runs along y between the arms' inner faces at +-HALF_SPAN.
B, H, T = 90.0, 70.0, 4.5
HALF_SPAN = 600.0
X0, Z_TOP = 300.0, 362.0          # the top plate's mid-line: x at the web's middle, z of the web
ALONG, WEB, FLANGE = 60, 4, 3     # S8R elements along y, across the web, down each flange
E, NU, RHO = 210000.0, 0.3, 7.85e-9


OPEN_UP = False


def profile():
    """Corner points of the mid-surface line across the section, (x, z), from the front flange's
    free edge over the web to the rear flange's free edge, with the elements per segment."""
    if OPEN_UP:  # mirrored about the centroid's height
        zc = section_properties()[0]
        web, edge = 2 * zc - Z_TOP, 2 * zc - (Z_TOP - H)
    else:
        web, edge = Z_TOP, Z_TOP - H
    return [((X0 + B / 2, edge), (X0 + B / 2, web), FLANGE), ((X0 + B / 2, web), (X0 - B / 2, web), WEB),
            ((X0 - B / 2, web), (X0 - B / 2, edge), FLANGE)]


def section_line():
    """Points across the section at half-element spacing (S8R mid-side nodes)."""
    pts = []
    for k, (a, b, n) in enumerate(profile()):
        for i in range(2 * n + 1):
            if k > 0 and i == 0:
                continue  # shared corner
            f = i / (2 * n)
            pts.append((a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])))
    return pts


def section_properties():
    """Centroid z, shear centre z (thin-walled channel: e = 3 H^2 / (B + 6 H) above the web's
    mid-line, away from the flanges) and the Saint-Venant torsion constant sum(b t^3 / 3)."""
    area = (B + 2 * H) * T
    zc = (B * T * Z_TOP + 2 * H * T * (Z_TOP - H / 2)) / area
    e = 3 * H * H / (B + 6 * H)
    j = (B + 2 * H) * T ** 3 / 3
    shear = Z_TOP + e
    if OPEN_UP:
        shear = 2 * zc - shear
    return zc, shear, j, area


def deck():
    line = section_line()
    nj = len(line)                     # points across (2 * elements + 1)
    ni = 2 * ALONG + 1                 # points along
    node_id = lambda i, j: 1 + i * nj + j
    out = ["** Twist-beam cross member: %s %g x %g x %g mm, %g mm long, S8R; mm t s N" %
           ("U open upwards" if OPEN_UP else "inverted U", B, H, T, 2 * HALF_SPAN),
           "** written by projects/fe/twist_beam_cross_member.py", "*NODE, NSET=NALL"]
    for i in range(ni):
        y = -HALF_SPAN + 2 * HALF_SPAN * i / (ni - 1)
        for j, (x, z) in enumerate(line):
            if i % 2 == 1 and j % 2 == 1:
                continue  # the elements' centres: S8R has none
            out.append("%d, %.6f, %.6f, %.6f" % (node_id(i, j), x, y, z))
    out.append("*ELEMENT, TYPE=S8R, ELSET=EALL")
    e = 1
    for i in range(0, ni - 1, 2):
        for j in range(0, nj - 1, 2):
            out.append("%d, %d, %d, %d, %d, %d, %d, %d, %d" % (
                e, node_id(i, j), node_id(i, j + 2), node_id(i + 2, j + 2), node_id(i + 2, j),
                node_id(i, j + 1), node_id(i + 1, j + 2), node_id(i + 2, j + 1), node_id(i + 1, j)))
            e += 1
    for name, i in (("RIGHT_END", 0), ("LEFT_END", ni - 1)):
        out.append("*NSET, NSET=%s" % name)
        out += ["%d," % node_id(i, j) for j in range(nj)]
    out += ["*MATERIAL, NAME=STEEL", "*ELASTIC", "%g, %g" % (E, NU), "*DENSITY", "%g" % RHO,
            "*SHELL SECTION, ELSET=EALL, MATERIAL=STEEL", "%g" % T,
            "*STEP", "*FREQUENCY, SOLVER=MATRIXSTORAGE", "*END STEP"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--open-up" in args:
        OPEN_UP = True
        args.remove("--open-up")
    path = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "twist_beam_cross_member.inp")
    with open(path, "w") as f:
        f.write(deck())
    zc, zs, j, area = section_properties()
    print("wrote %s" % os.path.relpath(path))
    print("section: area %.1f mm^2, centroid z %.2f mm, shear centre z %.2f mm (%.2f above the centroid), "
          "Saint-Venant torsion constant %.0f mm^4, mass %.2f kg" %
          (area, zc, zs, zs - zc, j, area * 2 * HALF_SPAN * RHO * 1000))
