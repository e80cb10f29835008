#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the Adams property-file fixtures of tests/data/adams/ (tst_adams_import, cli_import_*):
one trailing-arm bushing, spring, damper, bump and rebound stop and a hydro bushing, laid out as
Adams/Car databases write them (DESIGN.md section 9: [MDI_HEADER] with (COMMENTS), [UNITS],
[SHAPE], [DAMPING] constants, [FX_CURVE] {x fx} ... [TZ_CURVE] {az tz}, '$---' separator
lines, comments after '$' and '!'), the bushing in three unit systems. The physical laws are
defined here in SI; each file holds them in its own units, so the tests can check values by hand:

  x, y radial:  F = 1500 x + 30 x^3        [N, x in mm]   -10 ... 10 mm
  z axial:      F = 400 z + 8 z^3          [N, z in mm]   -15 ... 15 mm
  rx torsion:   T = 4000 a + 2 a^3         [N mm, a in deg]  -30 ... 30 deg
  ry, rz cone:  T = 60000 a + 500 a^3      [N mm, a in deg]  -10 ... 10 deg
  damping:      1.5, 1.5, 0.8 N s/mm; 20, 100, 100 N mm s/deg

  python3 scripts/make_adams_fixtures.py tests/data/adams
"""
import math
import os
import sys

MM, DEG = 1e-3, math.pi / 180.0
UNITS = {  # name: (length, angle, force, time, mass names; factors to SI)
    "mm_deg": (("mm", "degrees", "newton", "second", "kg"), (1e-3, DEG, 1.0, 1.0)),
    "m_rad_kn_ms": (("meter", "radians", "knewton", "millisecond", "kg"), (1.0, 1.0, 1e3, 1e-3)),
    "inch_lbf": (("inch", "degrees", "pound_force", "second", "pound_mass"), (0.0254, DEG, 4.4482216152605, 1.0)),
}


def fmt(v):
    return repr(float(v)) if abs(v) >= 1e-4 or v == 0 else "%.17g" % v


def sep(name):
    return "$" + "-" * (78 - len(name) - 1) + name.lower() + "\n"


def header(file_type, comment):
    return (sep("mdi_header") + "[MDI_HEADER]\n"
            " FILE_TYPE     =  '%s'\n FILE_VERSION  =  4.0\n FILE_FORMAT   =  'ASCII'\n"
            "(COMMENTS)\n{comment_string}\n'%s'\n" % (file_type, comment))


def units(names):
    l, a, f, t, m = names
    return (sep("units") + "[UNITS]\n LENGTH  =  '%s'\n ANGLE   =  '%s'\n FORCE   =  '%s'\n MASS    =  '%s'\n"
            " TIME    =  '%s'\n" % (l, a, f, m, t))


def table(block, labels, rows, note=None):
    out = sep(block) + "[%s]\n" % block
    if note:
        out += "$ %s\n" % note
    out += "{ %s }\n" % "   ".join(labels)
    for x, y in rows:
        out += "%16s %22s\n" % (fmt(x), fmt(y))
    return out


def bushing(key):
    names, (L, A, F, T) = UNITS[key]
    laws = [  # (SI x, SI y) samples of each direction
        [(x * MM, 1500 * x + 30 * x ** 3) for x in range(-10, 11, 2)],
        [(x * MM, 1500 * x + 30 * x ** 3) for x in range(-10, 11, 2)],
        [(z * MM, 400 * z + 8 * z ** 3) for z in range(-15, 16, 3)],
        [(a * DEG, (4000 * a + 2 * a ** 3) * MM) for a in range(-30, 31, 5)],
        [(a * DEG, (60000 * a + 500 * a ** 3) * MM) for a in range(-10, 11, 2)],
        [(a * DEG, (60000 * a + 500 * a ** 3) * MM) for a in range(-10, 11, 2)],
    ]
    damping = [1500.0, 1500.0, 800.0, 20 * MM / DEG, 100 * MM / DEG, 100 * MM / DEG]  # SI
    out = header("bus", "Trailing-arm front bushing, radial 1500 N/mm progressive (fixture, %s)" % key)
    out += units(names)
    out += sep("shape") + "[SHAPE]\n{ radius   width }\n 40.0   0.0\n 40.0   60.0\n 25.0   60.0\n 25.0   0.0\n"
    out += sep("damping") + "[DAMPING]\n"
    for d, name in enumerate(["FX", "FY", "FZ", "TX", "TY", "TZ"]):
        rot = d >= 3
        scale = (F * L * T / A) if rot else (F * T / L)
        l, a, f, t, _ = names
        unit = ("%s %s %s/%s" % (f, l, t, a)) if rot else ("%s %s/%s" % (f, t, l))
        out += " %s_DAMPING  =  %s   ! %s\n" % (name, fmt(damping[d] / scale), unit)
    labels = [("x", "fx"), ("y", "fy"), ("z", "fz"), ("ax", "tx"), ("ay", "ty"), ("az", "tz")]
    for d, name in enumerate(["FX", "FY", "FZ", "TX", "TY", "TZ"]):
        rot = d >= 3
        sx, sy = (A, F * L) if rot else (L, F)
        out += table("%s_CURVE" % name, labels[d], [(x / sx, y / sy) for x, y in laws[d]])
    return out


def write(folder, name, text):
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


def main():
    folder = sys.argv[1]
    for key in UNITS:
        write(folder, "bushing_%s.bus" % key, bushing(key))
    # Spring: compression [mm] against the compressive force [N]; 30 N/mm, free length 310 mm.
    spr = header("spr", "Front coil spring 30 N/mm, progressive beyond 60 mm (fixture)") + units(UNITS["mm_deg"][0])
    spr += sep("spring_data") + "[SPRING_DATA]\n FREE_LENGTH  =  310.0\n"
    spr += table("curve", ("disp", "force"), [(c, 30 * c + (0.05 * (c - 60) ** 2 if c > 60 else 0)) for c in range(-40, 121, 20)])
    write(folder, "spring_mm.spr", spr)
    n = UNITS["inch_lbf"]
    spr_in = header("spr", "The same spring in inch and pound-force (fixture)") + units(n[0])
    spr_in += sep("spring_data") + "[SPRING_DATA]\n FREE_LENGTH  =  %s\n" % fmt(310.0 / 25.4)
    spr_in += table("curve", ("disp", "force"), [(c / 25.4, (30 * c + (0.05 * (c - 60) ** 2 if c > 60 else 0)) / n[1][2])
                                                 for c in range(-40, 121, 20)])
    write(folder, "spring_inch_lbf.spr", spr_in)
    # Damper: velocity [mm/s] (extension positive) against the force [N] (tension positive).
    dpr = header("dpr", "Front damper, digressive (fixture)") + units(UNITS["mm_deg"][0])
    v = [-1000, -500, -200, -100, -50, 0, 50, 100, 200, 500, 1000]
    dpr += table("curve", ("vel", "force"), [(x, 3.0 * x if abs(x) <= 100 else math.copysign(300 + 1.2 * (abs(x) - 100), x) *
                                              (0.6 if x < 0 else 1.0)) for x in v])
    write(folder, "damper_mm.dpr", dpr)
    # Stops: travel after contact [mm] against the force [N].
    bum = header("bum", "Polyurethane bump stop (fixture)") + units(UNITS["mm_deg"][0])
    bum += sep("bumpstop_data") + "[BUMPSTOP_DATA]\n CLEARANCE  =  35.0\n"
    bum += sep("shape") + "[SHAPE]\n{ radius   width }\n 20.0   0.0\n 20.0   50.0\n"
    bum += table("curve", ("disp", "force"), [(0, 0), (5, 250), (10, 800), (15, 2000), (20, 4500), (25, 9500)])
    write(folder, "bumpstop_mm.bum", bum)
    reb = header("reb", "Rebound stop (fixture)") + units(UNITS["mm_deg"][0])
    reb += table("curve", ("disp", "force"), [(0, 0), (5, 1000), (10, 4000), (15, 12000)])
    write(folder, "rebound_mm.reb", reb)
    # Hydro bushing: dynamic stiffness [N/mm] and loss angle [deg] over frequency [Hz] at two
    # amplitudes [mm], from k0 = 300 N/mm and Maxwell branches (k, c) = (200 N/mm, 1.5 N s/mm),
    # (500 N/mm, 0.2 N s/mm) at 0.5 mm (stiffer branches at 1 mm).
    hbu = header("hbu", "Hydro bushing, axial, measured at 0.5 and 1 mm (fixture)") + units(UNITS["mm_deg"][0])
    rows = []
    for amp, scale in ((0.5, 1.0), (1.0, 1.3)):
        for f in (1, 2, 3, 5, 7, 10, 12, 15, 20, 25, 30, 40, 50):
            w = 2 * math.pi * f
            K = complex(300.0, 0.0)
            for k, c in ((200.0 * scale, 1.5), (500.0 * scale, 0.2)):
                K += k * 1j * w * c / (k + 1j * w * c)
            rows.append((f, amp, abs(K), math.degrees(math.atan2(K.imag, K.real))))
    hbu += sep("dynamic_stiffness") + "[DYNAMIC_STIFFNESS]\n DIRECTION  =  'z'\n{ frequency   amplitude   stiffness   loss_angle }\n"
    for r in rows:
        hbu += "%10s %10s %24s %24s\n" % tuple(fmt(x) for x in r)
    write(folder, "hydro_mm.hbu", hbu)


if __name__ == "__main__":
    main()
