#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generates the shipped suspension projects in projects/ from hardpoints and component data.

The JSON files are the source of truth users edit; this script documents how the shipped
numbers were derived (see projects/README.md) and regenerates them reproducibly:

    python3 scripts/make_projects.py
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "projects")


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


class Builder:
    def __init__(self, name, description):
        self.p = {
            "format": "elastokin-project", "version": 1, "name": name, "description": description,
            "gravity [m/s^2]": [0.0, 0.0, -9.81],
            "simulation": {"step [s]": 0.001, "linearize every": 1, "sample rate [Hz]": 1000.0},
            "bodies": [], "markers": [], "bushings": [], "p2p elements": [], "curves": [],
            "inputs": [], "load cases": [], "outputs": [],
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

    def write(self, filename):
        path = os.path.join(OUT, filename)
        with open(path, "w") as f:
            json.dump(self.p, f, indent=2)
            f.write("\n")
        print("wrote", os.path.relpath(path))


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


if __name__ == "__main__":
    quarter_double_wishbone()
