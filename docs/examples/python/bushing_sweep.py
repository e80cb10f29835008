# SPDX-License-Identifier: GPL-3.0-or-later
"""A bushing stiffness sweep (docs/python.md, example 1).

The double wishbone's trailing arm front bushings (left and right share curve 4, their
longitudinal stiffness) scaled from half to twice: for each, a braking-force sweep (static load
Fx at the contact point, +-3 kN) gives the toe and wheel-centre compliances, and the toe curves are
plotted against the force. Usage: bushing_sweep.py [OUTPUT_FOLDER]
"""
import os
import sys

import numpy as np

import elastokin as ek

ROOT = os.environ.get("ELASTOKIN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)

project = ek.Project.load(os.path.join(ROOT, "projects", "double_wishbone.json"))
SCALE = "curves/4/scale"  # the bushing's x stiffness curve, as a factor (1: as modelled)
BRAKING = "toe compliance, braking (-Fx at contact)"
CENTRE_X = "wheel centre recession, braking (-Fx at contact)"

print(f"{'scale':>6} {'toe [deg/kN]':>13} {'centre x [mm/kN]':>17}")
curves = []
for scale in (0.5, 0.75, 1.0, 1.5, 2.0):
    variant = project.with_values({SCALE: scale})
    r = ek.static_load(variant, "fx-contact", from_=-3000.0, to=3000.0, points=13)
    toe, centre = r.metric(BRAKING, "wheel left"), r.metric(CENTRE_X, "wheel left")
    print(f"{scale:6.2f} {toe:13.5f} {centre:17.4f}")
    curves.append((scale, r.sweep, r["wheel left toe"]))  # [rad], as every angle in the engine

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot")
    sys.exit(0)
fig, ax = plt.subplots(figsize=(7, 4.5))
for scale, force, toe in curves:
    ax.plot(force / 1000.0, np.degrees(toe), marker="o", markersize=3, label=f"x stiffness x {scale:g}")
ax.set_xlabel("Fx at the contact point, wheel left [kN] (braking: negative)")
ax.set_ylabel("toe, wheel left [deg]")
ax.set_title("Double wishbone: trailing arm bushing stiffness")
ax.grid(True, alpha=0.4)
ax.legend()
fig.tight_layout()
path = os.path.join(out, "bushing_sweep.png")
fig.savefig(path, dpi=100)
print(f"plot -> {path}")
