#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generates the shipped suspension projects in projects/ from hardpoints and component data.

The JSON files are the source of truth users edit; this script documents how the shipped
numbers were derived (see projects/README.md) and regenerates them reproducibly:

    python3 scripts/make_projects.py

Each file is then rewritten in the canonical form, the one the workbench saves, by
`elastokin-sim FILE --write-project FILE` (build/app, when built): saving an unchanged shipped
project in the workbench reproduces it byte for byte.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "projects")
SIM = os.path.join(HERE, "..", "build", "app", "elastokin-sim")


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def norm(a):
    return math.sqrt(sum(x * x for x in a))


def rot(a):
    """R = Rz(a0) Ry(a1) Rx(a2) as nested lists (the engine's Cardan convention)."""
    cps, sps = math.cos(a[0]), math.sin(a[0])
    cth, sth = math.cos(a[1]), math.sin(a[1])
    cph, sph = math.cos(a[2]), math.sin(a[2])
    return [[cps * cth, cps * sth * sph - sps * cph, cps * sth * cph + sps * sph],
            [sps * cth, sps * sth * sph + cps * cph, sps * sth * cph - cps * sph],
            [-sth, cth * sph, cth * cph]]


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def transpose(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]


def angles(R):
    theta = math.atan2(-R[2][0], math.hypot(R[2][1], R[2][2]))
    return [math.atan2(R[1][0], R[0][0]), theta, math.atan2(R[2][1], R[2][2])]


def centroid(*pts):
    return [sum(p[i] for p in pts) / len(pts) for i in range(3)]


def rod_inertia(mass, a, b, radius=0.012):
    """Inertia of a slender rod from a to b about its centre, global axes: [Ixx,Iyy,Izz,Ixy,Ixz,Iyz]."""
    d = sub(b, a)
    length = norm(d)
    u = [x / length for x in d]
    i_perp = mass * length * length / 12.0
    i_ax = 0.5 * mass * radius * radius
    t = [[i_perp * ((1.0 if r == c else 0.0) - u[r] * u[c]) + i_ax * u[r] * u[c] for c in range(3)] for r in range(3)]
    return [t[0][0], t[1][1], t[2][2], t[0][1], t[0][2], t[1][2]]


def plate_inertia(mass, pts):
    """Point-mass approximation of a triangular link (mass split over its corners), about the centroid."""
    c = centroid(*pts)
    t = [[0.0] * 3 for _ in range(3)]
    for p in pts:
        r = sub(p, c)
        r2 = sum(x * x for x in r)
        for i in range(3):
            for j in range(3):
                t[i][j] += mass / len(pts) * ((r2 if i == j else 0.0) - r[i] * r[j])
    # a little extra about every axis for the arm's own section
    for i in range(3):
        t[i][i] += 0.002 * mass
    return [t[0][0], t[1][1], t[2][2], t[0][1], t[0][2], t[1][2]]


def write_project(p, filename):
    """Writes project p to OUT/filename in the canonical form (through elastokin-sim)."""
    path = os.path.join(OUT, filename)
    # The runner writes the canonical form from a raw copy beside it (an output never replaces
    # its input; the folder keeps relative table names valid).
    raw = path + ".raw.json" if os.path.exists(SIM) else path
    with open(raw, "w") as f:
        json.dump(p, f, indent=2)
        f.write("\n")
    if os.path.exists(SIM):
        try:
            subprocess.run([SIM, raw, "--write-project", path], check=True, stdout=subprocess.DEVNULL)
        finally:
            os.remove(raw)
    else:
        print("note: %s is not in canonical form (build elastokin-sim, then run this script again)" % path)
    print("wrote", os.path.relpath(path))


class Builder:
    def __init__(self, name, description):
        self.p = {
            "format": "elastokin-project", "version": 1, "name": name, "description": description,
            "gravity [m/s^2]": [0.0, 0.0, -9.81],
            "simulation": {"step [s]": 0.001, "linearize every": 1, "sample rate [Hz]": 1000.0},
            "bodies": [], "markers": [], "bushings": [], "p2p elements": [], "curves": [],
            "inputs": [], "wheels": [], "vehicle": None, "load cases": [], "outputs": [],
        }
        self.body_pos = {}

    def body(self, bid, name, subsystem, mass=None, inertia=None, at=(0, 0, 0), fixed=False, orientation=(0, 0, 0)):
        row = {"id": bid, "name": name}
        if fixed:
            row["fixed"] = True
        row.update({"subsystem": subsystem, "position [m]": list(at), "orientation [rad]": [float(x) for x in orientation]})
        if not fixed:
            row.update({"mass [kg]": mass, "com [m]": [0.0, 0.0, 0.0], "inertia [kg m^2]": inertia})
        self.p["bodies"].append(row)
        self.body_pos[bid] = (list(at), orientation)
        return bid

    def marker(self, mid, name, body, world, orientation=(0, 0, 0)):
        origin, body_angles = self.body_pos[body]
        Rt = transpose(rot(body_angles))
        local = [sum(Rt[i][k] * sub(world, origin)[k] for k in range(3)) for i in range(3)]
        rel = angles(matmul(Rt, rot(orientation)))
        self.p["markers"].append({"id": mid, "name": name, "body": body,
                                  "position [m]": [round(x, 9) + 0.0 for x in local],
                                  "orientation [rad]": [round(x, 12) + 0.0 for x in rel]})
        return mid

    def curve(self, cid, name, points, interpolation="pchip", extrapolation="linear"):
        self.p["curves"].append({"id": cid, "name": name, "interpolation": interpolation,
                                 "extrapolation": extrapolation, "points": points})
        return cid

    def bushing(self, bid, name, mi, mj, trans, rot, damp_t=None, damp_r=None):
        row = {"id": bid, "name": name, "marker_i": mi, "marker_j": mj}
        for k, axis in enumerate("xyz"):
            d = {"stiffness [N/m]": trans[k], "damping [N s/m]": (damp_t or default_damping(trans))[k], "preload [N]": 0.0}
            row[axis] = d
        for k, axis in enumerate(["rx", "ry", "rz"]):
            d = {"stiffness [N m/rad]": rot[k], "damping [N m s/rad]": (damp_r or default_damping(rot, 2e-4))[k],
                 "preload [N m]": 0.0}
            row[axis] = d
        self.p["bushings"].append(row)

    def p2p(self, row):
        self.p["p2p elements"].append(row)

    def wheel(self, wid, name, marker, carrier, radius, side, steering_axis=None):
        row = {"id": wid, "name": name, "marker": marker, "carrier": carrier, "radius [m]": radius, "side": side}
        if steering_axis:
            row["steering axis"] = list(steering_axis)
        self.p["wheels"].append(row)

    def vehicle(self, axle, drive_share, roll=None):
        self.p["vehicle"] = {"axle": axle, "wheelbase [m]": 2.7, "cg height [m]": 0.55, "front brake share": 0.65,
                             "front drive share": drive_share, "brakes": "outboard"}
        if roll:
            self.p["vehicle"].update(roll)

    def write(self, filename):
        write_project({k: v for k, v in self.p.items() if v is not None}, filename)


# The roll gradient's data of the papers' car (full_vehicle.json): its vehicle body's mass, halfway
# between the axles, and each axle's roll stiffness and roll centre height from the other axle's
# own K&C metrics (elastokin-sim projects/<axle>.json --analysis opposite-travel; tst_kc
# shippedVehicleRowsNameEachOther checks that they agree).
PAPERS_CAR = {"sprung mass [kg]": 1828.1, "sprung mass front share": 0.5}
PAPERS_FRONT_ROLL = dict(PAPERS_CAR, **{"other axle roll stiffness [N m/deg]": 1093.1,  # the multilink's
                                        "other axle roll centre height [m]": 0.1146})
PAPERS_REAR_ROLL = dict(PAPERS_CAR, **{"other axle roll stiffness [N m/deg]": 1290.6,  # the double wishbone's
                                       "other axle roll centre height [m]": 0.0223})


def default_damping(stiffness, ratio=1e-3):
    """Rubber: damping ~ 1e-3 s x stiffness (loss angle of a few degrees at 1-10 Hz)."""
    out = []
    for k in stiffness:
        out.append(k * ratio if isinstance(k, (int, float)) else 0.0)
    return out


def double_wishbone_corner(b, side, ids):
    """One corner (left: side = +1, right: side = -1) of a double wishbone suspension."""
    s = side

    def P(x, y, z):
        return [x, s * y, z]

    hp = {
        "WC": P(0.0, 0.780, 0.310),   # wheel centre (tyre radius 0.31 m)
        "LF": P(0.200, 0.350, 0.200), "LR": P(-0.200, 0.350, 0.195), "LB": P(0.000, 0.720, 0.170),
        "UF": P(0.120, 0.450, 0.520), "UR": P(-0.120, 0.450, 0.525), "UB": P(-0.010, 0.680, 0.500),
        "TI": P(-0.150, 0.360, 0.300), "TO": P(-0.140, 0.700, 0.300),
        "SL": P(0.000, 0.580, 0.205), "SU": P(0.000, 0.520, 0.620),
    }
    g = ids["ground"]
    bid = ids["body0"]
    mount = b.body(bid, "wheel mount " + ids["tag"], "wheel", 9.0,
                   [0.08, 0.06, 0.05, 0.0, 0.0, 0.0], at=centroid(hp["LB"], hp["UB"], hp["WC"]))
    # The wheel's frame has its x axis along the axle (alpha_z = +-90 deg) so that spin is the
    # unbounded last Cardan angle, never the singular pitch (paper 003 Sect. 2.3).
    wheel = b.body(bid + 1, "wheel " + ids["tag"], "wheel", 21.0, [1.45, 0.85, 0.85, 0.0, 0.0, 0.0],
                   at=hp["WC"], orientation=(s * math.pi / 2, 0, 0))
    lower = b.body(bid + 2, "lower wishbone " + ids["tag"], "control arms", 4.2,
                   plate_inertia(4.2, [hp["LF"], hp["LR"], hp["LB"]]), at=centroid(hp["LF"], hp["LR"], hp["LB"]))
    upper = b.body(bid + 3, "upper wishbone " + ids["tag"], "control arms", 2.1,
                   plate_inertia(2.1, [hp["UF"], hp["UR"], hp["UB"]]), at=centroid(hp["UF"], hp["UR"], hp["UB"]))
    track = b.body(bid + 4, "track rod " + ids["tag"], "steering", 0.9, rod_inertia(0.9, hp["TI"], hp["TO"]),
                   at=centroid(hp["TI"], hp["TO"]))
    m = ids["marker0"]
    axle = (s * math.pi / 2, 0, 0)
    mk = {}
    def add(name, body, point, orientation=(0, 0, 0)):
        nonlocal m
        mk[name] = b.marker(m, name + " " + ids["tag"], body, hp[point] if isinstance(point, str) else point,
                            orientation)
        m += 1
    add("wheel centre", wheel, "WC")
    add("bearing wheel", wheel, "WC", axle)
    add("bearing mount", mount, "WC", axle)
    add("lower front body", g, "LF"); add("lower front arm", lower, "LF")
    add("lower rear body", g, "LR"); add("lower rear arm", lower, "LR")
    add("lower ball arm", lower, "LB"); add("lower ball mount", mount, "LB")
    add("upper front body", g, "UF"); add("upper front arm", upper, "UF")
    add("upper rear body", g, "UR"); add("upper rear arm", upper, "UR")
    add("upper ball arm", upper, "UB"); add("upper ball mount", mount, "UB")
    add("track inner body", g, "TI"); add("track inner rod", track, "TI")
    add("track outer rod", track, "TO"); add("track outer mount", mount, "TO")
    add("spring lower", lower, "SL"); add("spring upper", g, "SU")

    e = ids["bushing0"]
    ball_t, ball_r = [1.5e7] * 3, [8.0] * 3
    b.bushing(e, "wheel bearing " + ids["tag"], mk["bearing wheel"], mk["bearing mount"],
              [2.0e7] * 3, [0.0, 8.0e4, 8.0e4], damp_r=[0.2, 16.0, 16.0])
    b.bushing(e + 1, "lower front bushing " + ids["tag"], mk["lower front arm"], mk["lower front body"],
              [3.0e6, 2.5e6, 3.0e6], [120.0, 2500.0, 2500.0])
    b.bushing(e + 2, "lower rear bushing " + ids["tag"], mk["lower rear arm"], mk["lower rear body"],
              {"curve": ids["curve_soft"]} and [{"curve": ids["curve_soft"]}, 2.5e6, 2.5e6],
              [120.0, 2500.0, 2500.0], damp_t=[600.0, 2500.0, 2500.0])
    b.bushing(e + 3, "lower ball joint " + ids["tag"], mk["lower ball arm"], mk["lower ball mount"], ball_t, ball_r)
    b.bushing(e + 4, "upper front bushing " + ids["tag"], mk["upper front arm"], mk["upper front body"],
              [2.0e6] * 3, [100.0, 2000.0, 2000.0])
    b.bushing(e + 5, "upper rear bushing " + ids["tag"], mk["upper rear arm"], mk["upper rear body"],
              [2.0e6] * 3, [100.0, 2000.0, 2000.0])
    b.bushing(e + 6, "upper ball joint " + ids["tag"], mk["upper ball arm"], mk["upper ball mount"], ball_t, ball_r)
    b.bushing(e + 7, "track rod inner joint " + ids["tag"], mk["track inner rod"], mk["track inner body"], ball_t,
              ball_r)
    b.bushing(e + 8, "track rod outer joint " + ids["tag"], mk["track outer rod"], mk["track outer mount"], ball_t,
              ball_r)
    design = norm(sub(hp["SL"], hp["SU"]))
    # Spring: wheel rate 26 kN/m with motion ratio ~0.62 -> 68 kN/m; preloaded to carry ~4.9 kN at
    # the wheel (the load cases' F_z = 5 kN less the unsprung weight).
    rate, static = 68000.0, 7300.0
    b.p2p({"id": ids["p2p0"], "name": "main spring " + ids["tag"], "marker_i": mk["spring lower"],
           "marker_j": mk["spring upper"], "free length [m]": round(design + static / rate, 6), "preload [N]": 0.0,
           "spring [N/m]": rate, "damper [N s/m]": 0.0})
    b.p2p({"id": ids["p2p0"] + 1, "name": "damper " + ids["tag"], "marker_i": mk["spring lower"],
           "marker_j": mk["spring upper"], "free length [m]": round(design, 6), "preload [N]": 0.0,
           "spring [N/m]": 0.0, "damper [N s/m]": {"curve": ids["curve_damper"]}})
    b.p2p({"id": ids["p2p0"] + 2, "name": "bump and rebound stops " + ids["tag"], "marker_i": mk["spring lower"],
           "marker_j": mk["spring upper"], "free length [m]": round(design, 6), "preload [N]": 0.0,
           "spring [N/m]": 0.0, "damper [N s/m]": 0.0,
           "bump stop": {"clearance [m]": 0.045, "stiffness [N/m]": {"curve": ids["curve_bump"]}},
           "rebound stop": {"clearance [m]": 0.055, "stiffness [N/m]": {"curve": ids["curve_rebound"]}}})
    return mk, {"mount": mount, "wheel": wheel, "lower": lower}


def shared_curves(b):
    b.curve(1, "damper force vs rate (rebound positive)",
            [[-1.5, -2600.0], [-0.5, -1300.0], [-0.13, -650.0], [0.0, 0.0], [0.13, 1300.0], [0.5, 2900.0],
             [1.5, 6000.0]])
    b.curve(2, "bump stop force vs penetration",
            [[0.0, 0.0], [0.005, 150.0], [0.015, 900.0], [0.025, 3500.0], [0.035, 12000.0], [0.045, 40000.0]])
    b.curve(3, "rebound stop force vs penetration",
            [[0.0, 0.0], [0.003, 400.0], [0.008, 3000.0], [0.015, 15000.0]])
    b.curve(4, "lower rear bushing, longitudinal (progressive)",
            [[-0.012, -18000.0], [-0.006, -4200.0], [-0.002, -1000.0], [0.0, 0.0], [0.002, 1000.0],
             [0.006, 4200.0], [0.012, 18000.0]])
    return {"curve_damper": 1, "curve_bump": 2, "curve_rebound": 3, "curve_soft": 4}


def quarter_double_wishbone():
    b = Builder("Double wishbone corner (front left)",
                "One corner of a mid-size passenger car's double wishbone suspension: wheel, wheel mount, "
                "upper and lower wishbone, track rod; spring, damper and stops as P2P elements to the vehicle "
                "body (fixed). Load cases LC1/LC2 of Archut & Corves at the wheel centre.")
    b.body(0, "vehicle body", "vehicle body", fixed=True)
    ids = {"ground": 0, "body0": 1, "marker0": 1, "bushing0": 1, "p2p0": 1, "tag": "left"}
    ids.update(shared_curves(b))
    mk, bodies = double_wishbone_corner(b, +1, ids)
    b.wheel(1, "wheel left", mk["bearing wheel"], bodies["mount"], 0.31, "left",
            (mk["upper ball mount"], mk["lower ball mount"]))
    b.vehicle("front", 1.0)
    b.p["inputs"] = [
        {"id": 1, "name": "Fx wheel left", "marker": mk["wheel centre"], "kind": "force", "frame": "global",
         "direction": [1.0, 0.0, 0.0]},
        {"id": 2, "name": "Fz wheel left", "marker": mk["wheel centre"], "kind": "force", "frame": "global",
         "direction": [0.0, 0.0, 1.0]},
    ]
    b.p["load cases"] = [
        {"name": "LC1", "duration [s]": 15.0, "initial state": "equilibrium", "signals": [
            {"input": 1, "type": "step", "time [s]": 5.0, "before": 0.0, "after": -2500.0},
            {"input": 2, "type": "constant", "value": 5000.0}]},
        {"name": "LC2", "duration [s]": 20.0, "initial state": "equilibrium", "signals": [
            {"input": 1, "type": "chirp", "offset": -2500.0, "amplitude": 500.0, "start [s]": 5.0, "end [s]": 20.0,
             "start frequency [Hz]": 0.0, "end frequency [Hz]": 30.0},
            {"input": 2, "type": "constant", "value": 5000.0}]},
    ]
    b.p["outputs"] = [
        {"name": "wheel centre x left", "quantity": "marker displacement", "marker": mk["wheel centre"], "component": "x"},
        {"name": "wheel centre z left", "quantity": "marker displacement", "marker": mk["wheel centre"], "component": "z"},
        {"name": "lower rear bushing fx left", "quantity": "bushing force", "bushing": 3, "component": "x"},
        {"name": "spring force left", "quantity": "p2p force", "p2p": 1},
        {"name": "damper force left", "quantity": "p2p force", "p2p": 2},
        {"name": "Fx wheel left", "quantity": "input", "input": 1},
    ]
    b.write("quarter_double_wishbone.json")




# ---------------------------------------------------------------------------------------------
# Full axles of the papers (paper 003 Sect. 2.1, Fig. 2): both sides, vehicle body as ground.
# ---------------------------------------------------------------------------------------------

def add(a, b, f=1.0):
    return [a[i] + f * b[i] for i in range(3)]


def lerp(a, b, t):
    return [a[i] + t * (b[i] - a[i]) for i in range(3)]


def axis_orientation(u):
    """Cardan angles of a frame whose z axis is u (u near vertical: small angles)."""
    # R = Rz(psi) Ry(theta) Rx(phi), third column = u: choose psi = 0.
    theta = math.atan2(u[0], math.hypot(u[1], u[2]))
    phi = math.atan2(-u[1], u[2])
    return (0.0, theta, phi)


class Axle:
    """Helper that numbers ids and places markers for one axle."""

    def __init__(self, builder):
        self.b = builder
        self.next_marker = 1
        self.next_bushing = 1
        self.next_p2p = 1

    def m(self, name, body, point, orientation=(0, 0, 0)):
        mid = self.next_marker
        self.b.marker(mid, name, body, point, orientation)
        self.next_marker += 1
        return mid

    def bushing(self, name, body_i, body_j, point, trans, rot, orientation=(0, 0, 0), damp_t=None, damp_r=None):
        mi = self.m(name + " (i)", body_i, point, orientation)
        mj = self.m(name + " (j)", body_j, point, orientation)
        bid = self.next_bushing
        self.b.bushing(bid, name, mi, mj, trans, rot, damp_t=damp_t, damp_r=damp_r)
        self.next_bushing += 1
        return bid

    def p2p(self, name, body_i, pi, body_j, pj, **kw):
        mi = self.m(name + " (i)", body_i, pi)
        mj = self.m(name + " (j)", body_j, pj)
        row = {"id": self.next_p2p, "name": name, "marker_i": mi, "marker_j": mj}
        length = norm(sub(pi, pj))
        row["free length [m]"] = round(kw.pop("free_length", length), 6)
        row["preload [N]"] = kw.pop("preload", 0.0)
        row["spring [N/m]"] = kw.pop("spring", 0.0)
        row["damper [N s/m]"] = kw.pop("damper", 0.0)
        row.update(kw)
        self.b.p2p(row)
        self.next_p2p += 1
        return row["id"]


BALL_T, BALL_R = [1.5e7] * 3, [8.0] * 3
STIFF_T, STIFF_R = [2.0e7] * 3, [1.0e5] * 3


def spring_damper_unit(ax, tag, lower_body, lower_point, upper_point, ground, bid, spring_rate, spring_force,
                       fork=False, isolator=False, rebound_spring=False):
    """Damper tube, piston rod and the two spring halves between lower_point (on lower_body) and
    upper_point (on the vehicle body). Sliding joints are bushings free along the axis (z of their
    markers) and nearly free about it; seats and guides are stiff in the other directions."""
    L = norm(sub(upper_point, lower_point))
    u = [x / L for x in sub(upper_point, lower_point)]
    o = axis_orientation(u)
    at = lambda f: lerp(lower_point, upper_point, f)
    b = ax.b
    tube = b.body(bid, "damper tube " + tag, "spring damper", 1.9, rod_inertia(1.9, at(0.0), at(0.55), 0.025), at=at(0.27))
    rod = b.body(bid + 1, "piston rod " + tag, "spring damper", 0.7, rod_inertia(0.7, at(0.4), at(1.0), 0.011), at=at(0.7))
    slow = b.body(bid + 2, "spring lower half " + tag, "spring damper", 0.65, rod_inertia(0.65, at(0.35), at(0.62), 0.06),
                  at=at(0.48))
    supp = b.body(bid + 3, "spring upper half " + tag, "spring damper", 0.65, rod_inertia(0.65, at(0.62), at(0.92), 0.06),
                  at=at(0.77))
    slide_t, slide_r = [1.0e7, 1.0e7, 0.0], [5.0e4, 5.0e4, 2.0]
    slide_dt, slide_dr = [1.0e4, 1.0e4, 20.0], [10.0, 10.0, 0.05]
    if fork:
        # damper fork: two bushings side by side on the wheel mount
        side = [0.0, 0.03, 0.0]
        ax.bushing("damper fork front " + tag, tube, lower_body, add(lower_point, [0.03, 0, 0]), [4.0e6] * 3, [300.0] * 3, o)
        ax.bushing("damper fork rear " + tag, tube, lower_body, add(lower_point, [-0.03, 0, 0]), [4.0e6] * 3, [300.0] * 3, o)
    else:
        ax.bushing("damper lower mount " + tag, tube, lower_body, lower_point, [5.0e6] * 3, [150.0, 150.0, 150.0], o)
    ax.bushing("top mount " + tag, rod, ground, upper_point, [1.5e6, 1.5e6, 6.0e5], [600.0, 600.0, 40.0], o)
    ax.bushing("rod guide " + tag, rod, tube, at(0.55), slide_t, slide_r, o, damp_t=slide_dt, damp_r=slide_dr)
    ax.bushing("piston " + tag, rod, tube, at(0.42), slide_t, [0.0, 0.0, 0.0], o, damp_t=slide_dt, damp_r=[0.0] * 3)
    ax.bushing("spring lower seat " + tag, slow, tube, at(0.35), STIFF_T, [2.0e4] * 3, o)
    ax.bushing("spring upper seat " + tag, supp, rod, at(0.92), STIFF_T, [2.0e4] * 3, o)
    if isolator:
        ax.bushing("spring isolator " + tag, supp, ground, at(0.95), [8.0e5, 8.0e5, 3.0e6], [200.0, 200.0, 20.0], o)
    ax.bushing("spring guide " + tag, supp, slow, at(0.62), slide_t, slide_r, o, damp_t=slide_dt, damp_r=slide_dr)
    free = 0.57 * L + spring_force / spring_rate
    ax.p2p("main spring " + tag, slow, at(0.35), supp, at(0.92), free_length=free, spring=spring_rate)
    ax.p2p("damper " + tag, tube, at(0.05), rod, at(0.98), damper={"curve": 1})
    ax.p2p("bump stop " + tag, tube, at(0.56), rod, at(0.80),
           **{"bump stop": {"clearance [m]": 0.05, "stiffness [N/m]": {"curve": 2}}})
    ax.p2p("rebound stop " + tag, tube, at(0.50), rod, at(0.44) if False else at(0.70),
           **{"rebound stop": {"clearance [m]": 0.06, "stiffness [N/m]": {"curve": 3}}})
    if rebound_spring:
        ax.p2p("rebound spring " + tag, tube, at(0.52), rod, at(0.66),
               **{"rebound stop": {"clearance [m]": 0.035, "stiffness [N/m]": 2.0e4}})
    return {"tube": tube, "rod": rod}


def anti_roll_bar_half(ax, tag, s, bid, axis_x, axis_z, bar_y_mount, end_point, link_to_body, link_to_point, mount_body,
                       flexible_bar=None):
    """Bar half from the middle (y = 0) to its arm end, clamped to mount_body, with a drop link to
    link_to_body. Returns (bar body, marker of the torsion joint). With flexible_bar (a body id), the
    clamp and the drop link hold that body instead of a rigid half of its own."""
    b = ax.b
    centre = [axis_x, 0.0, axis_z]
    corner = [axis_x, s * abs(end_point[1]), axis_z]
    pts = [centre, corner, end_point]
    if flexible_bar is None:
        bar = b.body(bid, "anti-roll bar half " + tag, "anti-roll bar", 2.2, plate_inertia(2.2, pts), at=centroid(*pts))
    else:
        bar = flexible_bar
    link = b.body(bid + 1, "anti-roll bar link " + tag, "anti-roll bar", 0.35,
                  rod_inertia(0.35, end_point, link_to_point, 0.008), at=centroid(end_point, link_to_point))
    bar_axis = (s * math.pi / 2, 0, 0)  # x along the bar: torsion is rx
    ax.bushing("bar clamp " + tag, bar, mount_body, [axis_x, s * bar_y_mount, axis_z], [2.0e6, 2.0e6, 2.0e6],
               [15.0, 800.0, 800.0], bar_axis)
    ax.bushing("bar link lower " + tag, link, bar, end_point, BALL_T, BALL_R)
    ax.bushing("bar link upper " + tag, link, link_to_body, link_to_point, BALL_T, BALL_R)
    return bar


def wheel_and_mount(ax, tag, s, bid, wc, mount_at, mount_mass, mount_inertia):
    b = ax.b
    mount = b.body(bid, "wheel mount " + tag, "wheel", mount_mass, mount_inertia, at=mount_at)
    wheel = b.body(bid + 1, "wheel " + tag, "wheel", 22.0, [1.5, 0.9, 0.9, 0.0, 0.0, 0.0], at=wc,
                   orientation=(s * math.pi / 2, 0, 0))
    axle = (s * math.pi / 2, 0, 0)
    ax.bushing("wheel bearing " + tag, wheel, mount, wc, [2.0e7] * 3, [0.0, 8.0e4, 8.0e4], axle,
               damp_r=[0.2, 16.0, 16.0])
    centre = ax.m("wheel centre " + tag, wheel, wc)
    return mount, wheel, centre


def link(ax, name, tag, bid, p_in, body_in, p_out, body_out, mass, inner_t, inner_r, outer_ball=True):
    body = ax.b.body(bid, name + " " + tag, "control arms", mass, rod_inertia(mass, p_in, p_out, 0.015),
                     at=centroid(p_in, p_out))
    inner = ax.bushing(name + " inner " + tag, body, body_in, p_in, inner_t, inner_r)
    ax.bushing(name + " outer " + tag, body, body_out, p_out, BALL_T if outer_ball else inner_t,
               BALL_R if outer_ball else inner_r)
    return body, inner


def load_cases_and_inputs(b, centres, fz=5000.0, fx=-2500.0):
    inputs, lc1, lc2 = [], [], []
    k = 1
    for tag, mk in centres:
        inputs.append({"id": k, "name": "Fx wheel " + tag, "marker": mk, "kind": "force", "frame": "global",
                       "direction": [1.0, 0.0, 0.0]})
        inputs.append({"id": k + 1, "name": "Fz wheel " + tag, "marker": mk, "kind": "force", "frame": "global",
                       "direction": [0.0, 0.0, 1.0]})
        lc1 += [{"input": k, "type": "step", "time [s]": 5.0, "before": 0.0, "after": fx},
                {"input": k + 1, "type": "constant", "value": fz}]
        lc2 += [{"input": k, "type": "chirp", "offset": fx, "amplitude": -fx / 5.0, "start [s]": 5.0, "end [s]": 20.0,
                 "start frequency [Hz]": 0.0, "end frequency [Hz]": 30.0},
                {"input": k + 1, "type": "constant", "value": fz}]
        k += 2
    b.p["inputs"] = inputs
    b.p["load cases"] = [
        {"name": "LC1", "duration [s]": 15.0, "initial state": "equilibrium", "signals": lc1},
        {"name": "LC2", "duration [s]": 20.0, "initial state": "equilibrium", "signals": lc2},
    ]


# The viscoelastic variant's trailing-arm bushings, longitudinal: two Maxwell branches
# (stiffness [N/m], damping [N s/m]) on the static curve 4 (5e5 N/m near zero), relaxation
# rates k/c of 20 and 250 1/s. Dynamic stiffness 1.30 x static at 10 Hz, 1.50 x at 50 Hz
# (with the bushing's own 600 N s/m), loss angle 9.3 degrees at 10 Hz, 19 at 50 Hz (projects/README.md).
TRAILING_ARM_MAXWELL = [(1.5e5, 7500.0), (1.0e5, 400.0)]


# The flexible anti-roll bar of double_wishbone_flexible_bar.json: a solid round steel bar,
# d = 24 mm (Saint-Venant torsion 2630 N m^2, so 2330 N m/rad between the corners 1.13 m apart,
# near the rigid variant's 2500 N m/rad torsion bushing), along the rigid halves' axis and arms.
FLEX_BAR_D = 0.024


def flexible_anti_roll_bar(b, bid, axis_x, axis_z, bar_y_mount, end_y, modes=8):
    """One body for the whole bar, from the left arm end over the clamps to the right arm end,
    flexible (docs/flexible-bodies.md): beams along its axis, the markers of clamps and drop links
    on its nodes. Returns its body id."""
    d = FLEX_BAR_D
    i = math.pi * d ** 4 / 64
    b.p["bodies"].append({"id": bid, "name": "anti-roll bar", "subsystem": "anti-roll bar",
                          "position [m]": [0.0, 0.0, 0.0], "orientation [rad]": [0.0, 0.0, 0.0]})
    b.body_pos[bid] = ([0.0, 0.0, 0.0], (0, 0, 0))
    points = [[0.0, end_y, axis_z], [axis_x, end_y, axis_z], [axis_x, bar_y_mount, axis_z],
              [axis_x, -bar_y_mount, axis_z], [axis_x, -end_y, axis_z], [0.0, -end_y, axis_z]]
    b.p.setdefault("flexible bodies", []).append({
        "id": 1, "name": "anti-roll bar beams", "body": bid, "points [m]": points, "elements per segment": 4,
        "up": [0.0, 0.0, 1.0],
        "section": {"area [m^2]": math.pi * d * d / 4, "iy [m^4]": i, "iz [m^4]": i, "torsion [m^4]": 2 * i,
                    "shear y": 0.9, "shear z": 0.9},
        "material": {"E [Pa]": 210e9, "G [Pa]": 80.77e9, "density [kg/m^3]": 7850.0},
        "modes": modes, "damping ratio": 0.02})
    return bid


def double_wishbone(viscoelastic=False, flexible_bar=False):
    description = ("Full double wishbone axle after Archut & Corves (paper 003 Fig. 2 left): per side wheel, wheel "
                   "mount, upper wishbone, lower wishbone, track rod, trailing arm, damper tube, piston rod, upper and "
                   "lower spring half, anti-roll bar link and half; the bar halves joined by a torsion bushing. "
                   "Vehicle body fixed. 24 bodies, 144 DOF.")
    if viscoelastic:
        description += (" Variant: the trailing-arm front bushings are viscoelastic in x (two Maxwell branches on "
                        "the static curve); otherwise identical to double_wishbone.json.")
    if flexible_bar:
        description += (" Variant: the anti-roll bar is one flexible body (a 24 mm solid steel bar as beams, "
                        "Craig-Bampton onto its clamps and link ends with 8 fixed-interface modes) instead of two "
                        "rigid halves and a torsion bushing; otherwise identical to double_wishbone.json.")
    b = Builder("Double wishbone axle, viscoelastic trailing-arm bushings" if viscoelastic
                else "Double wishbone axle, flexible anti-roll bar" if flexible_bar
                else "Double wishbone axle (papers' topology)", description)
    shared_curves(b)
    b.body(0, "vehicle body", "vehicle body", fixed=True)
    # The track rods' inner joints sit on a steering rack: a fixed body that input 5 moves along y
    # (a driven rig body, docs/analyses.md). Listed after the axle's bodies.
    rack = b.body(25, "steering rack", "steering", fixed=True)
    rack_row = b.p["bodies"].pop()
    ax = Axle(b)
    centres, outputs = [], []
    bars = {}
    flex_bar = flexible_anti_roll_bar(b, 11, -0.25, 0.16, 0.45, 0.565) if flexible_bar else None
    for s, tag, base in [(1, "left", 1), (-1, "right", 13)]:
        P = lambda x, y, z: [x, s * y, z]
        wc = P(0.0, 0.780, 0.310)
        UF, UR, UB = P(0.120, 0.450, 0.520), P(-0.120, 0.450, 0.525), P(-0.010, 0.680, 0.500)
        LI, LB = P(-0.020, 0.330, 0.190), P(0.000, 0.720, 0.170)
        TI, TO = P(-0.150, 0.360, 0.300), P(-0.140, 0.700, 0.300)
        TA_B, TA_M = P(0.450, 0.580, 0.260), P(0.040, 0.730, 0.240)
        SL = lerp(LI, LB, 0.62)
        SU = P(0.000, 0.540, 0.640)
        axle_marker = ax.next_marker  # the wheel bearing's marker on the wheel: x along the axle
        mount, wheel, centre = wheel_and_mount(ax, tag, s, base, wc, centroid(LB, UB, wc), 9.0, [0.08, 0.06, 0.05, 0, 0, 0])
        centres.append((tag, centre))
        upper = b.body(base + 2, "upper wishbone " + tag, "control arms", 2.1, plate_inertia(2.1, [UF, UR, UB]),
                       at=centroid(UF, UR, UB))
        ax.bushing("upper wishbone front " + tag, upper, 0, UF, [2.0e6] * 3, [100.0, 2000.0, 2000.0])
        ax.bushing("upper wishbone rear " + tag, upper, 0, UR, [2.0e6] * 3, [100.0, 2000.0, 2000.0])
        upper_ball = ax.next_marker + 1  # the (j) marker, on the wheel mount
        ax.bushing("upper ball joint " + tag, upper, mount, UB, BALL_T, BALL_R)
        lower_ball = ax.next_marker + 3  # the outer joint's (j) marker
        lower, _ = link(ax, "lower wishbone", tag, base + 3, LI, 0, LB, mount, 3.8, [3.0e6] * 3, [120.0, 2500.0, 2500.0])
        b.wheel(1 if s > 0 else 2, "wheel " + tag, axle_marker, mount, 0.31, tag, (upper_ball, lower_ball))
        link(ax, "track rod", tag, base + 4, TI, rack, TO, mount, 0.9, BALL_T, BALL_R)
        trailing = b.body(base + 5, "trailing arm " + tag, "control arms", 2.6, rod_inertia(2.6, TA_B, TA_M, 0.02),
                          at=centroid(TA_B, TA_M))
        ta_bushing = ax.bushing("trailing arm front bushing " + tag, trailing, 0, TA_B,
                                [{"curve": 4}, 2.5e6, 2.5e6], [150.0, 2500.0, 2500.0], damp_t=[600.0, 2500.0, 2500.0])
        if viscoelastic:
            b.p["bushings"][-1]["x"]["maxwell"] = [{"stiffness [N/m]": k, "damping [N s/m]": c}
                                                   for k, c in TRAILING_ARM_MAXWELL]
        ax.bushing("trailing arm rear joint " + tag, trailing, mount, TA_M, BALL_T, BALL_R)
        sdu = spring_damper_unit(ax, tag, lower, SL, SU, 0, base + 6, 68000.0, 9400.0)
        tube_point = lerp(SL, SU, 0.25)
        bars[s] = anti_roll_bar_half(ax, tag, s, base + 10, -0.25, 0.16, 0.45, P(0.0, 0.565, 0.16), sdu["tube"],
                                     tube_point, 0, flexible_bar=flex_bar)
        outputs += [
            {"name": "wheel centre x " + tag, "quantity": "marker displacement", "marker": centre, "component": "x"},
            {"name": "wheel centre z " + tag, "quantity": "marker displacement", "marker": centre, "component": "z"},
            {"name": "trailing arm bushing fx " + tag, "quantity": "bushing force", "bushing": ta_bushing, "component": "x"},
        ]
        if viscoelastic:
            outputs += [{"name": "trailing arm bushing branch %d x %s" % (i, tag), "quantity": "bushing branch deflection",
                         "bushing": ta_bushing, "component": "x%d" % i} for i in (1, 2)]
    if not flexible_bar:
        ax.bushing("anti-roll bar torsion", bars[1], bars[-1], [-0.25, 0.0, 0.16], STIFF_T, [2500.0, 1.0e5, 1.0e5],
                   (math.pi / 2, 0, 0), damp_r=[2.0, 20.0, 20.0])
    load_cases_and_inputs(b, centres)
    b.p["bodies"].append(rack_row)
    b.marker(200, "rack centre", rack, [-0.15, 0.0, 0.3])
    b.p["inputs"].append({"id": 5, "name": "rack travel", "marker": 200, "kind": "translation", "frame": "global",
                          "direction": [0.0, 1.0, 0.0]})
    b.vehicle("front", 1.0, PAPERS_FRONT_ROLL)
    b.p["outputs"] = outputs
    # A passenger car's front-axle ranges: the papers' axle misses most (docs/analyses.md, "Targets").
    b.p["targets"] = FRONT_AXLE_TARGETS + [
        {"id": 6, "metric": "toe compliance, braking (-Fx at contact)", "lower": 0.0,
         "note": "toe-in under braking: straight-line stability"}]
    b.write("double_wishbone_viscoelastic.json" if viscoelastic
            else "double_wishbone_flexible_bar.json" if flexible_bar else "double_wishbone.json")


def multilink():
    b = Builder("Multilink axle (papers' topology)",
                "Full multilink axle after Archut & Corves (paper 003 Fig. 2 right): per side wheel, wheel mount, "
                "five control arms on a subframe, spring damper unit between wheel mount and vehicle body, "
                "anti-roll bar on the spring link via a link; the subframe is bushed to the vehicle body. "
                "27 bodies, 162 DOF, 63 force elements.")
    shared_curves(b)
    b.body(0, "vehicle body", "vehicle body", fixed=True)
    ax = Axle(b)
    sub_pts = [[0.35, 0.45, 0.40], [0.35, -0.45, 0.40], [-0.35, 0.45, 0.40], [-0.35, -0.45, 0.40],
               [0.0, 0.52, 0.42], [0.0, -0.52, 0.42]]
    subframe = b.body(27, "subframe", "subframe", 24.0, [2.6, 0.9, 3.2, 0.0, 0.0, 0.0], at=[0.0, 0.0, 0.36])
    for k, p in enumerate(sub_pts):
        ax.bushing("subframe mount %d" % (k + 1), subframe, 0, p, [1.2e6, 1.2e6, 2.0e6], [300.0, 300.0, 300.0])
    centres, outputs, bars = [], [], {}
    for s, tag, base in [(1, "left", 1), (-1, "right", 14)]:
        P = lambda x, y, z: [x, s * y, z]
        wc = P(0.0, 0.780, 0.320)
        axle_marker = ax.next_marker  # the wheel bearing's marker on the wheel: x along the axle
        mount, wheel, centre = wheel_and_mount(ax, tag, s, base, wc, P(0.0, 0.70, 0.33), 10.5, [0.11, 0.08, 0.07, 0, 0, 0])
        centres.append((tag, centre))
        # No steering axis: the toe links end on the elastic subframe (docs/analyses.md, "Not yet").
        b.wheel(1 if s > 0 else 2, "wheel " + tag, axle_marker, mount, 0.32, tag)
        links = [
            ("upper front link", P(0.10, 0.40, 0.50), P(0.08, 0.70, 0.52), 1.0),
            ("upper rear link", P(-0.15, 0.42, 0.50), P(-0.08, 0.70, 0.51), 1.0),
            ("toe link", P(-0.22, 0.40, 0.28), P(-0.16, 0.72, 0.28), 0.9),
            ("spring link", P(0.00, 0.36, 0.20), P(0.00, 0.72, 0.17), 3.2),
            ("trailing link", P(0.42, 0.55, 0.28), P(0.05, 0.72, 0.26), 1.4),
        ]
        bodies = {}
        tl_bushing = None
        for k, (name, pin, pout, mass) in enumerate(links):
            inner_t = [{"curve": 4}, 2.5e6, 2.5e6] if name == "trailing link" else [3.0e6] * 3
            # Conical stiffness at the low end of control-arm bushings (300-3000 N m/rad): with five
            # links it otherwise dominates the wheel rate.
            body, inner = link(ax, name, tag, base + 2 + k, pin, subframe, pout, mount, mass, inner_t,
                               [120.0, 800.0, 800.0], outer_ball=(name != "spring link"))
            bodies[name] = (body, pin, pout)
            if name == "trailing link":
                tl_bushing = inner
        sdu = spring_damper_unit(ax, tag, mount, P(-0.06, 0.66, 0.25), P(-0.08, 0.58, 0.68), 0, base + 7, 27000.0,
                                 5800.0, fork=True, isolator=True, rebound_spring=True)
        sl_body, sl_in, sl_out = bodies["spring link"]
        on_link = lerp(sl_in, sl_out, 0.6)
        bars[s] = anti_roll_bar_half(ax, tag, s, base + 11, -0.30, 0.32, 0.42, P(0.0, 0.58, 0.32), sl_body, on_link,
                                     subframe)
        outputs += [
            {"name": "wheel centre x " + tag, "quantity": "marker displacement", "marker": centre, "component": "x"},
            {"name": "wheel centre z " + tag, "quantity": "marker displacement", "marker": centre, "component": "z"},
            {"name": "trailing link bushing fx " + tag, "quantity": "bushing force", "bushing": tl_bushing,
             "component": "x"},
        ]
    ax.bushing("anti-roll bar torsion", bars[1], bars[-1], [-0.30, 0.0, 0.32], STIFF_T, [2500.0, 1.0e5, 1.0e5],
               (math.pi / 2, 0, 0), damp_r=[2.0, 20.0, 20.0])
    load_cases_and_inputs(b, centres)
    b.vehicle("rear", 0.0, PAPERS_REAR_ROLL)
    b.p["outputs"] = outputs
    b.write("multilink.json")


# ---------------------------------------------------------------------------------------------
# A passenger car's MacPherson strut front axle: the workbench's default project.
# ---------------------------------------------------------------------------------------------

# Typical ranges of a passenger car's front axle at the design position, the K&C targets the
# MacPherson project carries (docs/analyses.md, "A passenger car's front axle").
FRONT_AXLE_TARGETS = [
    {"id": 1, "metric": "bump steer", "lower": -15.0, "upper": 15.0,
     "note": "small toe change over travel (Reimpell, The Automotive Chassis)"},
    {"id": 2, "metric": "bump camber", "lower": -30.0, "upper": -5.0,
     "note": "negative camber in bump keeps the outer wheel upright in a turn"},
    {"id": 3, "metric": "roll centre height (above the contact points)", "lower": 20.0, "upper": 120.0,
     "note": "front roll centre below the rear's"},
    {"id": 4, "metric": "wheel rate", "lower": 20.0, "upper": 40.0, "note": "passenger-car front corner"},
    {"id": 5, "metric": "toe compliance, lateral force inboard (at contact)", "upper": 0.0,
     "note": "outer front wheel toes out under cornering force: understeer"},
]


def macpherson_front(tie_rod_inner=(0.310, 0.256), filename="macpherson_front.json"):
    """A mid-size passenger car's MacPherson strut front axle (the most common front suspension):
    per side wheel, knuckle with the strut tube, piston rod in the strut (a sliding bushing free
    along the strut axis), top mount with a bearing, L-shaped lower control arm on two bushings
    (the rear one soft, for longitudinal compliance), tie rod to a steering rack; coil spring,
    damper, bump and rebound stop between strut and body; anti-roll bar with drop links to the
    struts. Vehicle body fixed. Geometry: track 1.54 m, tyre radius 0.31 m, kingpin axis from the
    lower ball joint to the top mount (caster and kingpin inclination about 5 and 12 deg, small
    positive scrub radius, trail about 27 mm)."""
    b = Builder("MacPherson strut front axle (passenger car)",
                "A mid-size passenger car's MacPherson strut front axle: per side wheel, knuckle with strut "
                "tube, piston rod sliding in the strut (a bushing free along the strut axis), top mount with "
                "bearing, L-shaped lower control arm, tie rod to a driven steering rack; coil spring, damper, "
                "bump and rebound stop; anti-roll bar with drop links. Vehicle body fixed. Typical K&C of a "
                "front axle (docs/analyses.md); data: geometry and rates of the class from Reimpell, The "
                "Automotive Chassis, and Heissing/Ersoy, Chassis Handbook (not a particular car).")
    shared_curves(b)
    b.body(0, "vehicle body", "vehicle body", fixed=True)
    rack = b.body(40, "steering rack", "steering", fixed=True)
    rack_row = b.p["bodies"].pop()
    ax = Axle(b)
    centres, outputs, bars = [], [], {}
    for s, tag, base in [(1, "left", 1), (-1, "right", 20)]:
        P = lambda x, y, z: [x, s * y, z]
        wc = P(0.0, 0.770, 0.310)
        LB = P(0.015, 0.730, 0.150)           # lower ball joint
        T = P(-0.035, 0.610, 0.700)           # top mount centre: the kingpin axis is LB-T
        LF, LR = P(0.090, 0.370, 0.172), P(-0.300, 0.400, 0.178)  # lower arm inner bushings
        # Front steer: rack and tie rods ahead of the axle, so that the knuckle's inboard deflection
        # under a cornering force toes the outer wheel out (understeer). The inner joint's place
        # (y, z) was chosen by scanning for the flattest toe curve over +-80 mm (0.06 deg at most).
        TI, TO = P(0.150, tie_rod_inner[0], tie_rod_inner[1]), P(0.135, 0.725, 0.240)  # tie rod inner (rack), outer
        # The strut axis: from a point on the knuckle below the spring seat to the top mount, a
        # little inboard of the kingpin axis at the bottom (the strut sits inside the wheel).
        SB = P(-0.020, 0.660, 0.330)
        L = norm(sub(T, SB))
        u = [x / L for x in sub(T, SB)]
        o = axis_orientation([u[0], u[1], u[2]])
        at = lambda f: lerp(SB, T, f)
        axle_marker = ax.next_marker
        mount, wheel, centre = wheel_and_mount(ax, tag, s, base, wc, centroid(LB, SB, wc, at(0.35)), 14.0,
                                               [0.35, 0.32, 0.08, 0, 0, 0])
        centres.append((tag, centre))
        rod = b.body(base + 2, "piston rod " + tag, "spring damper", 1.1, rod_inertia(1.1, at(0.45), T, 0.011),
                     at=at(0.75))
        # The strut: rod in the tube (the knuckle), free along and about the strut axis.
        slide_t, slide_r = [1.0e7, 1.0e7, 0.0], [5.0e4, 5.0e4, 2.0]
        slide_dt, slide_dr = [1.0e4, 1.0e4, 40.0], [10.0, 10.0, 0.05]
        ax.bushing("strut rod guide " + tag, rod, mount, at(0.62), slide_t, slide_r, o, damp_t=slide_dt, damp_r=slide_dr)
        ax.bushing("strut piston " + tag, rod, mount, at(0.42), slide_t, [0.0, 0.0, 0.0], o, damp_t=slide_dt,
                   damp_r=[0.0] * 3)
        # Top mount with its bearing: the strut turns about its axis when the wheel steers.
        ax.bushing("top mount " + tag, rod, 0, T, [2.5e6, 2.5e6, 1.2e6], [700.0, 700.0, 1.0], o,
                   damp_r=[0.5, 0.5, 0.02])
        lower = b.body(base + 3, "lower control arm " + tag, "control arms", 4.2, plate_inertia(4.2, [LF, LR, LB]),
                       at=centroid(LF, LR, LB))
        ax.bushing("lower arm front bushing " + tag, lower, 0, LF, [6.0e6, 6.0e6, 6.0e6], [150.0, 2500.0, 2500.0])
        lr = ax.bushing("lower arm rear bushing " + tag, lower, 0, LR, [{"curve": 4}, 1.6e6, 1.0e6],
                        [150.0, 1200.0, 1200.0], damp_t=[600.0, 1600.0, 1000.0])
        lower_ball = ax.next_marker + 1
        ax.bushing("lower ball joint " + tag, lower, mount, LB, BALL_T, BALL_R)
        b.wheel(1 if s > 0 else 2, "wheel " + tag, axle_marker, mount, 0.31, tag)
        b.p["wheels"][-1]["steering input"] = 5
        link(ax, "tie rod", tag, base + 4, TI, rack, TO, mount, 0.9, BALL_T, BALL_R)
        # Spring between the strut's lower seat on the knuckle and the top mount; damper and
        # stops between tube and rod.
        rate, preload = 30000.0, 4300.0
        seat, top = at(0.30), at(0.97)
        spring_length = norm(sub(top, seat))
        ax.p2p("coil spring " + tag, mount, seat, rod, top, free_length=spring_length + preload / rate, spring=rate)
        ax.p2p("damper " + tag, mount, at(0.05), rod, at(0.99), damper={"curve": 1})
        ax.p2p("bump stop " + tag, mount, at(0.66), rod, at(0.92),
               **{"bump stop": {"clearance [m]": 0.062, "stiffness [N/m]": {"curve": 2}}})
        ax.p2p("rebound stop " + tag, mount, at(0.58), rod, at(0.74),
               **{"rebound stop": {"clearance [m]": 0.075, "stiffness [N/m]": {"curve": 3}}})
        # Anti-roll bar: drop link from the bar's arm end to the strut tube.
        bars[s] = anti_roll_bar_half(ax, tag, s, base + 5, 0.26, 0.17, 0.42, P(0.04, 0.600, 0.200), mount,
                                     at(0.18), 0)
        outputs += [
            {"name": "toe " + tag, "quantity": "wheel", "wheel": 1 if s > 0 else 2, "component": "toe"},
            {"name": "camber " + tag, "quantity": "wheel", "wheel": 1 if s > 0 else 2, "component": "camber"},
            {"name": "wheel centre x " + tag, "quantity": "marker displacement", "marker": centre, "component": "x"},
            {"name": "wheel centre z " + tag, "quantity": "marker displacement", "marker": centre, "component": "z"},
            {"name": "lower arm rear bushing fx " + tag, "quantity": "bushing force", "bushing": lr, "component": "x"},
        ]
    ax.bushing("anti-roll bar torsion", bars[1], bars[-1], [0.26, 0.0, 0.17], STIFF_T, [3000.0, 1.0e5, 1.0e5],
               (math.pi / 2, 0, 0), damp_r=[2.0, 20.0, 20.0])
    load_cases_and_inputs(b, centres)
    b.p["bodies"].append(rack_row)
    b.marker(300, "rack centre", rack, [0.15, 0.0, tie_rod_inner[1]])
    b.p["inputs"].append({"id": 5, "name": "rack travel", "marker": 300, "kind": "translation", "frame": "global",
                          "direction": [0.0, 1.0, 0.0]})
    b.vehicle("front", 1.0)
    b.p["outputs"] = outputs
    b.p["targets"] = FRONT_AXLE_TARGETS
    b.write(filename)


# ---------------------------------------------------------------------------------------------
# Full vehicle on a four-post rig: both axles under one free vehicle body, tyres to driven pads.
# ---------------------------------------------------------------------------------------------

WHEELBASE, SPEED, TRACK_OFFSET = 2.7, 20.0, 1000  # [m], [m/s], id offset of the rear axle's rows


def road_tables(folder):
    """Pad heights [m] over time [s] at SPEED of an ISO 8608 class C random road, left and right
    tracks independent, the rear wheels delayed by wheelbase / speed. Written as table signals."""
    import random
    os.makedirs(folder, exist_ok=True)
    delay = WHEELBASE / SPEED

    def write(name, times, values):
        with open(os.path.join(folder, name), "w") as f:
            f.write("time [s],height [m]\n")
            for t, z in zip(times, values):
                f.write("%.6f,%.9f\n" % (t, z))

    # Random road: ISO 8608 class C, Gd(n) = 256e-6 m^3 (n / 0.1 cycle/m)^-2, as a sum of cosines
    # of random phase over 0.011-2.83 cycles/m (seed 8608), faded in over the first 0.5 s.
    rng = random.Random(8608)
    dn, nmin, nmax = 0.005, 0.011, 2.83
    bands = [nmin + (k + 0.5) * dn for k in range(int((nmax - nmin) / dn))]
    dtr, duration = 0.001, 10.0
    ts = [k * dtr for k in range(int(round(duration / dtr)) + 1)]
    for side in ("left", "right"):
        comps = [(math.sqrt(2.0 * 256e-6 * (nb / 0.1) ** -2 * dn), nb, rng.uniform(0, 2 * math.pi)) for nb in bands]
        z = []
        for t in ts:
            x = SPEED * t
            fade = min(1.0, t / 0.5)
            z.append(fade * sum(a * math.cos(2 * math.pi * nb * x + ph) for a, nb, ph in comps))
        write("random_c_front_%s.csv" % side, ts, z)
        write("random_c_rear_%s.csv" % side, [t + delay for t in ts], z)


# The papers' car: the double wishbone in front, the multilink behind, 5 kN per wheel on both.
PAPERS_FULL_VEHICLE = {
    "front": "double_wishbone.json", "rear": "multilink.json", "loads": (5000.0, 5000.0),
    "grounds": {"front": {0, 25}, "rear": {0}}, "dropped markers": {"front": {200}, "rear": set()},
    "roll and yaw inertia": (650.0, 3600.0),  # [kg m^2]: a large saloon of this mass
    "name": "Full vehicle on a four-post rig",
    "description": "The double wishbone axle in front and the multilink axle behind (wheelbase 2.7 m) under "
                   "a free vehicle body (%.1f kg, centre of gravity 0.55 m high and half-way); each tyre a "
                   "bushing from the wheel mount's contact point to a pad that the load case moves up and "
                   "down. Load cases: the papers' bump at 20 m/s, an ISO 8608 class C road, braking at "
                   "0.6 g. Generated by scripts/make_projects.py from the two axles.",
    "file": "full_vehicle.json"}

# A compact car: the MacPherson strut in front (4.35 kN per wheel), the twist beam behind (3.5 kN).
COMPACT_FULL_VEHICLE = {
    "front": "macpherson_front.json", "rear": "twist_beam_rear.json", "loads": (4350.0, 3500.0),
    "grounds": {"front": {0, 40}, "rear": {0}}, "dropped markers": {"front": {300}, "rear": set()},
    "roll and yaw inertia": (500.0, 2900.0),  # [kg m^2]: a compact car of this mass
    "name": "Compact car on a four-post rig (MacPherson front, twist-beam rear)",
    "description": "The MacPherson strut axle in front and the twist-beam axle behind (its cross member a "
                   "flexible body from a CalculiX shell model; wheelbase 2.7 m) under a free vehicle body "
                   "(%.1f kg, centre of gravity 0.55 m high, where the axles' design loads put it); each tyre a "
                   "bushing from the wheel mount's contact point to a pad that the load case moves up and "
                   "down. Load cases: the papers' bump at 20 m/s, an ISO 8608 class C road, braking at "
                   "0.6 g. Generated by scripts/make_projects.py from the two axles.",
    "file": "full_vehicle_compact.json"}


def full_vehicle(car=PAPERS_FULL_VEHICLE):
    """Merges two shipped axles (the front one as it is, the rear one moved back by the wheelbase)
    under a free vehicle body and stands the car on four driven pads (docs/full-vehicle.md)."""
    front = json.load(open(os.path.join(OUT, car["front"])))
    rear = json.load(open(os.path.join(OUT, car["rear"])))
    curves = {c["id"]: c for c in front["curves"]}
    for c in rear["curves"]:
        assert curves.setdefault(c["id"], c) == c, "the axles' curves of one id are the same"
    axle_mass = sum(b.get("mass [kg]", 0.0) for b in front["bodies"] + rear["bodies"])
    axle_mass += sum(f["reduced body"]["mass [kg]"] for f in front.get("flexible bodies", []) + rear.get("flexible bodies", [])
                     if "reduced body" in f)
    load_front, load_rear = car["loads"]  # [N]: the axles' design load per wheel (their load cases)
    body_mass = round(2 * (load_front + load_rear) / 9.81 - axle_mass, 1)
    a = WHEELBASE * load_rear / (load_front + load_rear)  # the design loads put the centre of gravity there
    b_ = WHEELBASE - a
    cg = [-a, 0.0, 0.55]
    # Pitch inertia for a dynamic index Iyy / (m a b) = 1 (heave and pitch decouple into the front
    # and rear ride modes); roll and yaw of a large saloon of this mass.
    roll, yaw = car["roll and yaw inertia"]
    inertia = [roll, round(body_mass * a * b_, 0), yaw, 0.0, 0.0, 0.0]
    p = {
        "format": "elastokin-project", "version": 1, "name": car["name"],
        "description": car["description"] % body_mass,
        "gravity [m/s^2]": [0.0, 0.0, -9.81],
        "simulation": front["simulation"],
        "bodies": [], "markers": [], "bushings": [], "p2p elements": [], "curves": sorted(curves.values(), key=lambda c: c["id"]),
        "inputs": [], "load cases": [], "outputs": [],
    }
    p["bodies"].append({"id": 0, "name": "vehicle body", "subsystem": "vehicle body", "position [m]": cg,
                        "orientation [rad]": [0.0, 0.0, 0.0], "mass [kg]": body_mass, "com [m]": [0.0, 0.0, 0.0],
                        "inertia [kg m^2]": inertia})
    grounds = car["grounds"]  # the vehicle body and the steering rack, fixed to it
    dropped_markers = car["dropped markers"]  # the rack's input marker
    for tag, axle, shift, off in [("front", front, 0.0, 0), ("rear", rear, -WHEELBASE, TRACK_OFFSET)]:
        def oid(i):
            return i + off
        for body in axle["bodies"]:
            if body["id"] in grounds[tag]:
                continue
            body = dict(body, id=oid(body["id"]))
            body["position [m]"] = [body["position [m]"][0] + shift] + body["position [m]"][1:]
            body["subsystem"] = "%s %s" % (tag, body["subsystem"])
            body["name"] = "%s (%s)" % (body["name"], tag)
            p["bodies"].append(body)
        for m in axle["markers"]:
            if m["id"] in dropped_markers[tag]:
                continue
            m = dict(m, id=oid(m["id"]))
            if m["body"] in grounds[tag]:  # on the vehicle body: local = world - cg (ground at the origin)
                w = m["position [m]"]
                m["position [m]"] = [w[0] + shift - cg[0], w[1] - cg[1], w[2] - cg[2]]
                m["body"] = 0
            else:
                m["body"] = oid(m["body"])
            p["markers"].append(m)
        for e in axle["bushings"]:
            p["bushings"].append(dict(e, id=oid(e["id"]), marker_i=oid(e["marker_i"]), marker_j=oid(e["marker_j"]),
                                      name="%s (%s)" % (e["name"], tag)))
        for e in axle["p2p elements"]:
            p["p2p elements"].append(dict(e, id=oid(e["id"]), marker_i=oid(e["marker_i"]), marker_j=oid(e["marker_j"]),
                                          name="%s (%s)" % (e["name"], tag)))
        for f in axle.get("flexible bodies", []):
            f = dict(f, id=oid(f["id"]), body=oid(f["body"]), name="%s (%s)" % (f["name"], tag))
            if "reduced body" in f:
                f["reduced body"] = dict(f["reduced body"],
                                         **{"interface markers": [oid(m) for m in f["reduced body"]["interface markers"]]})
            p.setdefault("flexible bodies", []).append(f)

    def marker_world(mid):
        m = next(m for m in p["markers"] if m["id"] == mid)
        body = next(b for b in p["bodies"] if b["id"] == m["body"])
        R = rot(body["orientation [rad]"])
        return [body["position [m]"][i] + sum(R[i][k] * m["position [m]"][k] for k in range(3)) for i in range(3)]

    def marker(mid, name, body, world):
        row = next(b for b in p["bodies"] if b["id"] == body)
        assert row["orientation [rad]"] == [0.0, 0.0, 0.0]
        bpos = row["position [m]"]
        p["markers"].append({"id": mid, "name": name, "body": body,
                             "position [m]": [round(world[i] - bpos[i], 9) + 0.0 for i in range(3)],
                             "orientation [rad]": [0.0, 0.0, 0.0]})
        return mid

    marker(3000, "vehicle centre of gravity", 0, cg)
    # Wheels: (tag, wheel centre marker, wheel mount body, tyre radius) from the axles' wheel tables.
    corners = []
    for tag, axle, off, short in [("front", front, 0, "F"), ("rear", rear, TRACK_OFFSET, "R")]:
        for w in axle["wheels"]:
            centre_name = "wheel centre " + w["side"]
            centre = next(m["id"] for m in axle["markers"] if m["name"] == centre_name) + off
            corners.append(("%s %s" % (tag, w["side"]), short + w["side"][0].upper(), centre, w["carrier"] + off,
                            w["radius [m]"]))
    # Tyre: vertically a compression-only spring (a P2P stop without clearance from the contact point
    # to a pad marker 1 m below it, so that its line stays vertical; no pull, so a wheel can lift off;
    # free length such that the design load deflects it to the design height), horizontally a
    # bushing to the pad (longitudinal and lateral carcass stiffness; the pad holds the tyre).
    tyre_z = 2.5e5  # [N/m]
    tyre_t, tyre_r = [2.5e5, 1.8e5, 0.0], [0.0, 0.0, 0.0]
    tyre_dt, tyre_dr = [500.0, 500.0, 0.0], [0.0, 0.0, 0.0]
    outputs = [
        {"name": "body heave", "quantity": "marker displacement", "marker": 3000, "component": "z"},
        {"name": "body pitch", "quantity": "body angles", "body": 0, "component": "ry"},
        {"name": "body roll", "quantity": "body angles", "body": 0, "component": "rx"},
    ]
    for k, (tag, short, centre, mount, radius) in enumerate(corners):
        wc = marker_world(centre)
        contact = [wc[0], wc[1], wc[2] - radius]
        pad = 301 + k
        p["bodies"].append({"id": pad, "name": "pad " + tag, "fixed": True, "subsystem": "four-post rig",
                            "position [m]": contact, "orientation [rad]": [0.0, 0.0, 0.0]})
        mi = marker(2001 + 2 * k, "tyre contact " + tag, mount, contact)
        mj = marker(2002 + 2 * k, "pad " + tag, pad, contact)
        row = {"id": 3001 + k, "name": "tyre horizontal " + tag, "marker_i": mi, "marker_j": mj}
        for d, axis in enumerate("xyz"):
            row[axis] = {"stiffness [N/m]": tyre_t[d], "damping [N s/m]": tyre_dt[d], "preload [N]": 0.0}
        for d, axis in enumerate(["rx", "ry", "rz"]):
            row[axis] = {"stiffness [N m/rad]": tyre_r[d], "damping [N m s/rad]": tyre_dr[d], "preload [N m]": 0.0}
        p["bushings"].append(row)
        below = marker(2201 + k, "pad anchor " + tag, pad, [contact[0], contact[1], contact[2] - 1.0])
        p["p2p elements"].append({"id": 3101 + k, "name": "tyre vertical " + tag, "marker_i": mi, "marker_j": below,
                                  "free length [m]": 1.0 + (load_front if tag.startswith("front") else load_rear) / tyre_z,
                                  "preload [N]": 0.0,
                                  "spring [N/m]": 0.0, "damper [N s/m]": 0.0,
                                  "bump stop": {"clearance [m]": 0.0, "stiffness [N/m]": tyre_z}})
        # Wheel travel: a measuring element (no force) from the wheel centre to the body above it.
        top = marker(2101 + k, "wheel travel sensor top " + tag, 0, [wc[0], wc[1], wc[2] + 0.3])
        p["p2p elements"].append({"id": 3001 + k, "name": "wheel travel sensor " + tag, "marker_i": top,
                                  "marker_j": centre, "free length [m]": 0.3, "preload [N]": 0.0,
                                  "spring [N/m]": 0.0, "damper [N s/m]": 0.0})
        p["inputs"].append({"id": 1 + k, "name": "pad height " + tag, "marker": mj, "kind": "translation",
                            "frame": "global", "direction": [0.0, 0.0, 1.0]})
        outputs += [
            {"name": "wheel travel sensor " + tag, "quantity": "p2p length", "p2p": 3001 + k},
            {"name": "tyre load " + tag, "quantity": "p2p force", "p2p": 3101 + k},
        ]
    p["inputs"].append({"id": 5, "name": "braking inertia force", "marker": 3000, "kind": "force",
                        "frame": "global", "direction": [1.0, 0.0, 0.0]})
    # The papers' bushing forces: trailing arm (front) and trailing link (rear) bushings.
    for tag, axle, off in [("front", front, 0), ("rear", rear, TRACK_OFFSET)]:
        for o in axle["outputs"]:
            if o["quantity"] == "bushing force":
                outputs.append(dict(o, name="%s (%s)" % (o["name"], tag), bushing=o["bushing"] + off))
    p["outputs"] = outputs
    road_tables(os.path.join(OUT, "road"))
    pads = [(1 + k, tag) for k, (tag, *_rest) in enumerate(corners)]
    delay = WHEELBASE / SPEED
    table = lambda f: {"type": "table", "file": "road/" + f}
    p["load cases"] = [
        # Paper 001 Sect. 5: a sinusoidal bump 0.1 m high and 3 m long at 20 m/s, reached at 0.5 s.
        {"name": "bump", "duration [s]": 3.0, "initial state": "equilibrium",
         "signals": [{"input": i, "type": "bump", "offset": 0.0, "height": 0.1,
                      "start [s]": 0.5 + (delay if tag.startswith("rear") else 0.0),
                      "end [s]": 0.5 + 3.0 / SPEED + (delay if tag.startswith("rear") else 0.0)} for i, tag in pads]},
        {"name": "random road", "duration [s]": 10.0, "initial state": "equilibrium",
         "signals": [{"input": i, **table("random_c_%s_%s.csv" % tuple(tag.split()))} for i, tag in pads]},
        # d'Alembert force of a 0.6 g deceleration on the body's mass, built up in 0.2 s.
        {"name": "braking", "duration [s]": 3.0, "initial state": "equilibrium",
         "signals": [{"input": 5, "type": "ramp", "start [s]": 0.5, "end [s]": 0.7, "from": 0.0,
                      "to": round(0.6 * 9.81 * body_mass, 1)}]},
    ]
    write_project(p, car["file"])


# ---------------------------------------------------------------------------------------------
# The full vehicle on Magic Formula tyres, steered through a rack.
# ---------------------------------------------------------------------------------------------

TYRE_FILE = "tyres/passenger_205_60R15_mf61.tir"  # projects/README.md names the coefficients' source
STEERING_RATIO = -0.0085  # [m/rad]: 53 mm of rack travel per turn; negative: a positive angle turns left
COLUMN = (2000.0, 1.0)    # column and torsion bar: [N m/rad], [N m s/rad]


def full_vehicle_tyres(filename="full_vehicle_tyres.json"):
    """The full vehicle of full_vehicle() on four Magic Formula tyres on a flat road instead of the
    four-post rig, driving at SPEED, its front track rods on a steering rack that the steering-wheel
    angle drives (docs/steering.md, docs/tyres.md)."""
    p = json.load(open(os.path.join(OUT, PAPERS_FULL_VEHICLE["file"])))
    pads = {b["id"] for b in p["bodies"] if b.get("fixed")}
    pad_markers = {m["id"] for m in p["markers"] if m["body"] in pads}
    contact_markers = {m["id"] for m in p["markers"] if m["name"].startswith("tyre contact")}
    p["bodies"] = [b for b in p["bodies"] if b["id"] not in pads]
    p["bushings"] = [e for e in p["bushings"] if e["marker_j"] not in pad_markers]
    p["p2p elements"] = [e for e in p["p2p elements"] if e["marker_j"] not in pad_markers]
    p["markers"] = [m for m in p["markers"] if m["id"] not in pad_markers | contact_markers]
    p["outputs"] = [o for o in p["outputs"] if not o["name"].startswith("tyre load")]
    bodies = {b["id"]: b for b in p["bodies"]}
    markers = {m["id"]: m for m in p["markers"]}

    def world(mid):
        m = markers[mid]
        b = bodies[m["body"]]
        R = rot(b["orientation [rad]"])
        return [b["position [m]"][i] + sum(R[i][k] * m["position [m]"][k] for k in range(3)) for i in range(3)]

    # The wheel bodies become the hubs, which do not spin (the tyre's slot carries the spin): the
    # bearings hold rx; the spin inertia is the tyre file's IYY.
    for e in p["bushings"]:
        if e["name"].startswith("wheel bearing"):
            e["rx"] = {"stiffness [N m/rad]": 2e5, "damping [N m s/rad]": 20.0, "preload [N m]": 0.0}
    p["wheels"] = []
    hubs = [(2, 1, "front left"), (14, 13, "front right"), (1002, 1001, "rear left"), (1015, 1014, "rear right")]
    for k, (hub, carrier, tag) in enumerate(hubs):
        centre = 4001 + k  # at the hub's origin in its axes: x is the spin axis
        p["markers"].append({"id": centre, "name": "tyre centre " + tag, "body": hub, "position [m]": [0.0, 0.0, 0.0],
                             "orientation [rad]": [0.0, 0.0, 0.0]})
        p["wheels"].append({"id": 1 + k, "name": "wheel " + tag, "marker": centre, "carrier": carrier,
                            "radius [m]": 0.3135, "side": tag.split()[1], "tyre": TYRE_FILE})
    # Steering: the front track rods' inner joints move from the vehicle body onto a rack of 3 kg,
    # guided along y by the body (free along the rack), pulled by the column.
    inner = [m["id"] for m in p["markers"] if m["name"].startswith("track rod inner") and m["body"] == 0]
    assert len(inner) == 2, inner
    points = [world(i) for i in inner]
    centre = [round((points[0][k] + points[1][k]) / 2, 9) for k in range(3)]
    p["bodies"].append({"id": 500, "name": "steering rack", "subsystem": "front steering", "position [m]": centre,
                        "orientation [rad]": [0.0, 0.0, 0.0], "mass [kg]": 3.0, "com [m]": [0.0, 0.0, 0.0],
                        "inertia [kg m^2]": [0.16, 0.001, 0.16, 0.0, 0.0, 0.0]})
    for i, w in zip(inner, points):
        markers[i].update(body=500, name="track inner rack", **{"position [m]": [round(w[k] - centre[k], 9) for k in range(3)]})
    cg = bodies[0]["position [m]"]
    along_y = [0.0, 0.0, -math.pi / 2]  # z of the rack's markers along +y
    p["markers"].append({"id": 4101, "name": "rack", "body": 500, "position [m]": [0.0, 0.0, 0.0], "orientation [rad]": along_y})
    p["markers"].append({"id": 4102, "name": "rack housing", "body": 0,
                         "position [m]": [round(centre[k] - cg[k], 9) for k in range(3)], "orientation [rad]": along_y})
    guide = {"id": 4001, "name": "steering rack guide", "marker_i": 4101, "marker_j": 4102}
    for axis, k, c in [("x", 5e7, 5e3), ("y", 5e7, 5e3), ("z", 0.0, 50.0)]:
        guide[axis] = {"stiffness [N/m]": k, "damping [N s/m]": c, "preload [N]": 0.0}
    for axis in ["rx", "ry", "rz"]:
        guide[axis] = {"stiffness [N m/rad]": 1e5, "damping [N m s/rad]": 10.0, "preload [N m]": 0.0}
    p["bushings"].append(guide)
    # The steering wheel: a rig body that the angle turns about the column (its z axis, towards
    # the driver), so that the 3D view shows the angle; the rack reads the angle itself.
    p["bodies"].append({"id": 501, "name": "steering wheel", "fixed": True, "subsystem": "driver",
                        "position [m]": [-1.8, 0.37, 0.95], "orientation [rad]": [0.0, 0.0, 0.0]})
    p["markers"].append({"id": 4103, "name": "steering column", "body": 501, "position [m]": [0.0, 0.0, 0.0],
                         "orientation [rad]": [0.0, -1.2, 0.0]})
    p["inputs"] = [{"id": 1, "name": "steering wheel angle", "marker": 4103, "kind": "rotation", "frame": "marker",
                    "direction": [0.0, 0.0, 1.0]}]
    # Rear-wheel drive: a torque on each rear wheel's spin, reacting on the vehicle body (the
    # differential's housing) at the centre of gravity; the speed follower sets them.
    for k, w in enumerate(p["wheels"][2:]):
        p["inputs"].append({"id": 2 + k, "name": "drive torque " + w["name"][len("wheel "):], "marker": 3000,
                            "kind": "torque", "frame": "global", "direction": [0.0, 1.0, 0.0]})
        w["drive input"] = 2 + k
    p["steering racks"] = [{"id": 1, "name": "steering rack", "steering input": 1, "marker_i": 4101, "marker_j": 4102,
                            "ratio [m/rad]": STEERING_RATIO, "column stiffness [N m/rad]": COLUMN[0],
                            "column damping [N m s/rad]": COLUMN[1]}]
    for b in p["bodies"]:
        if not b.get("fixed"):
            b["velocity [m/s]"] = [SPEED, 0.0, 0.0]
    p["outputs"] += [
        {"name": "speed", "quantity": "marker velocity", "marker": 3000, "component": "x"},
        {"name": "yaw rate", "quantity": "body angular velocity", "body": 0, "component": "rz"},
        {"name": "steering wheel angle", "quantity": "input", "input": 1},
        {"name": "drive torque rear left", "quantity": "input", "input": 2},
        {"name": "rack travel", "quantity": "steering rack", "steering rack": 1, "component": "travel"},
        {"name": "steering torque", "quantity": "steering rack", "steering rack": 1, "component": "column torque"},
    ]
    for w in p["wheels"]:
        tag = w["name"][len("wheel "):]
        p["outputs"] += [{"name": "toe " + tag, "quantity": "wheel", "wheel": w["id"], "component": "toe"}]
        p["outputs"] += [{"name": "%s %s" % (c, tag), "quantity": "tyre", "wheel": w["id"], "component": c}
                         for c in ("fx", "fy", "fz", "slip angle")]
    p["load cases"] = [
        # The car set down at SPEED with the suspension as modelled: it settles within 1 s and
        # rolls on, slowed by the tyres' rolling resistance.
        {"name": "straight", "duration [s]": 3.0, "initial state": "as modelled", "signals": []},
        # A step of the steering-wheel angle (ISO 7401: within 0.15 s) after the car has settled,
        # the speed held by the rear wheels' drive (docs/steering.md, "Speed follower").
        {"name": "step steer", "duration [s]": 4.0, "initial state": "as modelled",
         "signals": [{"input": 1, "type": "ramp", "start [s]": 1.5, "end [s]": 1.65, "from": 0.0, "to": 0.5}],
         "speed follower": {"body": 0, "speed [m/s]": SPEED, "drive inputs": [2, 3], "gain [N m s/m]": 4000.0}},
    ]
    p["name"] = "full vehicle on tyres"
    p["description"] = ("The full vehicle (full_vehicle.json) on four Magic Formula 6.1 tyres (%s) on a flat road "
                        "instead of the four-post rig, set down at %g m/s; the front track rods on a steering rack "
                        "(%g mm per turn) that the steering-wheel angle (input 1) drives through the column "
                        "(%g N m/rad); rear-wheel drive (inputs 2, 3). Load cases: straight running (coasting), a step "
                        "steer of 0.5 rad at a held speed. Generated by "
                        "scripts/make_projects.py." % (TYRE_FILE, SPEED, abs(STEERING_RATIO) * 2e3 * math.pi, COLUMN[0]))
    write_project(p, filename)


# ---------------------------------------------------------------------------------------------
# Twist-beam rear axle: trailing arms welded to a flexible cross member from a CalculiX shell model.
# ---------------------------------------------------------------------------------------------

TWIST_BEAM_DECK = os.path.join(OUT, "fe", "twist_beam_cross_member.inp")
TWIST_BEAM_MODES = 4  # fixed-interface modes of the cross member (10 elastic modes with the constraint modes)

# The compact car the axle belongs to: sprung mass, 60 % on the front axle, and the front axle the
# MacPherson strut of macpherson_front.json (its roll stiffness and roll centre height,
# elastokin-sim projects/macpherson_front.json --analysis opposite-travel).
TWIST_BEAM_CAR = {"sprung mass [kg]": 1150.0, "sprung mass front share": 0.6,
                  "other axle roll stiffness [N m/deg]": 2774.2, "other axle roll centre height [m]": 0.0948}

# The class's ranges (Heissing/Ersoy, Chassis Handbook, twist-beam axle; Reimpell, The Automotive
# Chassis): projects/README.md, "twist_beam_rear.json".
TWIST_BEAM_TARGETS = [
    {"id": 1, "metric": "wheel rate", "lower": 15.0, "upper": 30.0, "note": "compact car, rear corner"},
    {"id": 2, "metric": "bump steer", "lower": -10.0, "upper": 10.0,
     "note": "both wheels in bump: the arms pivot about one axis, little toe change"},
    {"id": 3, "metric": "roll steer (toe per roll angle, wheel in bump)", "lower": -0.05,
     "note": "no marked roll oversteer: the outer rear wheel does not toe out"},
    {"id": 4, "metric": "roll camber (camber per roll angle, wheel in bump)", "lower": -0.8, "upper": -0.2,
     "note": "against the body between a trailing arm's 0 and a rigid axle's -1"},
    {"id": 5, "metric": "toe compliance, lateral force inboard (at contact)", "lower": -0.15, "upper": 0.05,
     "note": "lateral-force oversteer of the class kept small by the body bushings"},
    {"id": 6, "metric": "roll stiffness (wheel pads)", "lower": 300.0, "upper": 900.0, "note": "compact car rear axle"},
    {"id": 7, "metric": "roll stiffness share of the twist beam", "lower": 20.0, "upper": 70.0,
     "note": "the cross member is the axle's anti-roll bar"},
    {"id": 8, "metric": "wheel centre recession, braking (-Fx at contact)", "lower": 0.5, "upper": 5.0,
     "note": "longitudinal compliance of the body bushings for ride comfort"},
]


def twist_beam_rear(filename="twist_beam_rear.json"):
    """A compact car's twist-beam (torsion-beam) rear axle: per side a trailing arm on a body
    bushing, a wheel carrier bolted to its end and the wheel; the two arms welded to a cross
    member, an inverted-U steel profile that twists in roll (a flexible body reduced from the shell
    model projects/fe/twist_beam_cross_member.inp by CalculiX and Craig-Bampton); coil spring and
    bump stop on the arm ahead of the wheel, damper and rebound stop behind it. Vehicle body fixed."""
    sys.path.insert(0, os.path.join(OUT, "fe"))
    import twist_beam_cross_member as cm
    zc = cm.section_properties()[0] / 1000.0
    xc, span = cm.X0 / 1000.0, cm.HALF_SPAN / 1000.0
    b = Builder("Twist-beam rear axle (compact car)",
                "A compact car's twist-beam rear axle: per side trailing arm on a body bushing, wheel carrier "
                "and wheel; the arms welded to a flexible cross member (an inverted-U steel profile, 90 x 70 x "
                "4.5 mm, from a CalculiX shell model reduced by Craig-Bampton: projects/fe/); coil spring with "
                "bump stop and damper with rebound stop to the vehicle body (fixed). Rear axle, not driven. "
                "Typical K&C of the class (docs/analyses.md); data: geometry and rates of the class from "
                "Reimpell, The Automotive Chassis, and Heissing/Ersoy, Chassis Handbook (not a particular car).")
    shared_curves(b)
    b.curve(5, "twist-beam damper force vs rate (rebound positive)",
            [[-1.5, -1000.0], [-0.5, -500.0], [-0.13, -160.0], [0.0, 0.0], [0.13, 320.0], [0.5, 1000.0],
             [1.5, 2000.0]])
    b.body(0, "vehicle body", "vehicle body", fixed=True)
    beam = b.body(30, "cross member", "twist beam", 9.75, [1.17, 0.012, 1.17, 0.0, 0.0, 0.0])
    ax = Axle(b)
    centres, outputs, welds = [], [], {}
    weld_t, weld_r = [1.0e8] * 3, [1.0e6] * 3
    for s, tag, base in [(1, "left", 1), (-1, "right", 20)]:
        P = lambda x, y, z: [x, s * y, z]
        wc = P(0.0, 0.740, 0.300)
        pivot = P(0.470, 0.620, 0.330)      # body bushing, ahead of and above the wheel centre
        arm_end = P(0.0, 0.660, 0.300)      # the carrier's flange
        weld = P(xc, span, zc)              # the cross member's end section (its centroid)
        seat, top = P(0.080, 0.500, 0.280), P(0.080, 0.500, 0.540)   # spring seats (arm, body)
        d_low, d_up = P(-0.060, 0.600, 0.240), P(-0.100, 0.580, 0.620)  # damper (arm, body)
        axle_marker = ax.next_marker
        carrier, wheel, centre = wheel_and_mount(ax, tag, s, base, wc, P(0.0, 0.700, 0.300), 7.0,
                                                 [0.030, 0.025, 0.030, 0.0, 0.0, 0.0])
        centres.append((tag, centre))
        b.wheel(1 if s > 0 else 2, "wheel " + tag, axle_marker, carrier, 0.30, tag)
        arm = b.body(base + 2, "trailing arm " + tag, "twist beam", 4.5,
                     rod_inertia(4.5, pivot, arm_end, 0.03), at=centroid(pivot, arm_end))
        ax.bushing("carrier mount " + tag, carrier, arm, arm_end, STIFF_T, STIFF_R)
        bushing = ax.bushing("body bushing " + tag, arm, 0, pivot, [1.2e6, 6.0e5, 2.5e6], [400.0, 30.0, 400.0])
        welds[s] = ax.bushing("cross member weld " + tag, beam, arm, weld, weld_t, weld_r)
        rate, force = 35000.0, 3860.0  # the design vertical force 3.5 kN (the load cases' Fz)
        ax.p2p("coil spring " + tag, arm, seat, 0, top, free_length=norm(sub(top, seat)) + force / rate, spring=rate)
        ax.p2p("bump stop " + tag, arm, add(seat, [0, 0, 0.03]), 0, add(top, [0, 0, -0.03]),
               **{"bump stop": {"clearance [m]": 0.055, "stiffness [N/m]": {"curve": 2}}})
        ax.p2p("damper " + tag, arm, d_low, 0, d_up, damper={"curve": 5})
        ax.p2p("rebound stop " + tag, arm, d_low, 0, d_up,
               **{"rebound stop": {"clearance [m]": 0.080, "stiffness [N/m]": {"curve": 3}}})
        outputs += [
            {"name": "toe " + tag, "quantity": "wheel", "wheel": 1 if s > 0 else 2, "component": "toe"},
            {"name": "camber " + tag, "quantity": "wheel", "wheel": 1 if s > 0 else 2, "component": "camber"},
            {"name": "wheel centre x " + tag, "quantity": "marker displacement", "marker": centre, "component": "x"},
            {"name": "wheel centre z " + tag, "quantity": "marker displacement", "marker": centre, "component": "z"},
            {"name": "body bushing fx " + tag, "quantity": "bushing force", "bushing": bushing, "component": "x"},
        ]
    load_cases_and_inputs(b, centres, fz=3500.0, fx=-1750.0)
    b.vehicle("rear", 1.0, TWIST_BEAM_CAR)
    b.p["outputs"] = outputs
    b.p["targets"] = TWIST_BEAM_TARGETS
    # The cross member's weld markers (I of the welds) are the reduced body's interfaces.
    weld_marker = {s: next(r["marker_i"] for r in b.p["bushings"] if r["id"] == welds[s]) for s in (1, -1)}
    base_name = filename.replace(".json", ".rigid-cross-member.json")
    b.write(base_name)
    if not os.path.exists(SIM) or not shutil.which("ccx"):
        sys.exit("twist_beam_rear: needs build/app/elastokin-sim and ccx (calculix-ccx) to reduce the cross member")
    with tempfile.TemporaryDirectory() as tmp:
        deck = os.path.join(tmp, os.path.basename(TWIST_BEAM_DECK))
        shutil.copy(TWIST_BEAM_DECK, deck)
        base = os.path.join(OUT, base_name)
        try:
            subprocess.run([SIM, base, "--import-fe", deck, "--onto", "body:%d" % beam, "--interface",
                            "LEFT_END=%d,RIGHT_END=%d" % (weld_marker[1], weld_marker[-1]),
                            "--modes", str(TWIST_BEAM_MODES), "--write-project", os.path.join(OUT, filename)],
                           check=True, stdout=subprocess.DEVNULL)
        finally:
            os.remove(base)
    print("wrote", os.path.relpath(os.path.join(OUT, filename)))


if __name__ == "__main__":
    quarter_double_wishbone()
    double_wishbone()
    double_wishbone(viscoelastic=True)
    double_wishbone(flexible_bar=True)
    multilink()
    macpherson_front()
    full_vehicle()
    full_vehicle_tyres()
    twist_beam_rear()
    full_vehicle(COMPACT_FULL_VEHICLE)
