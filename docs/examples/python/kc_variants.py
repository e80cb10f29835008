# SPDX-License-Identifier: GPL-3.0-or-later
"""A K&C comparison of two variants (docs/python.md, example 2).

The double wishbone as modelled against a variant whose outer track rod points (both sides) are
10 mm higher: the parallel-travel sweep of each, the metrics side by side with their difference,
and the toe curves over the travel in one plot. Usage: kc_variants.py [OUTPUT_FOLDER]
"""
import os
import sys

import numpy as np

import elastokin as ek

ROOT = os.environ.get("ELASTOKIN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)

base = ek.Project.load(os.path.join(ROOT, "projects", "double_wishbone.json"))
# The outer track rod joint's two markers on each side (I on the knuckle, J on the rod).
raised = {f"markers/{m}/position [m][3]": base.get(f"markers/{m}/position [m][3]") + 0.010 for m in (16, 17, 65, 66)}
variant = base.with_values(raised)

a = ek.kc(base, "parallel-travel", from_=-0.06, to=0.06, points=25)
b = ek.kc(variant, "parallel-travel", from_=-0.06, to=0.06, points=25)

print(f"{'metric (wheel left)':<52} {'as modelled':>12} {'+10 mm':>12} {'delta':>10}  unit")
for name in ("bump steer", "bump camber", "wheel rate", "half-track change (contact point, outboard)",
             "toe compliance, lateral force inboard (at contact)"):
    x, y = a.metric(name, "wheel left"), b.metric(name, "wheel left")
    unit = next(m.unit for m in a.metrics if m.name == name)
    print(f"{name:<52} {x:12.4f} {y:12.4f} {y - x:10.4f}  {unit}")
x, y = a.metric("roll centre height (above the contact points)"), b.metric("roll centre height (above the contact points)")
print(f"{'roll centre height':<52} {x:12.4f} {y:12.4f} {y - x:10.4f}  mm")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot")
    sys.exit(0)
fig, ax = plt.subplots(figsize=(7, 4.5))
ax.plot(np.degrees(a["wheel left toe"]), a.sweep * 1000.0, label="as modelled")
ax.plot(np.degrees(b["wheel left toe"]), b.sweep * 1000.0, "--", label="outer track rod +10 mm")
ax.set_xlabel("toe, wheel left [deg]")
ax.set_ylabel("wheel centre travel [mm]")
ax.set_title("Double wishbone: bump steer of two variants")
ax.grid(True, alpha=0.4)
ax.legend()
fig.tight_layout()
path = os.path.join(out, "kc_variants.png")
fig.savefig(path, dpi=100)
print(f"plot -> {path}")
