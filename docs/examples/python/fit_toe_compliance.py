# SPDX-License-Identifier: GPL-3.0-or-later
"""Fitting one bushing to a target toe compliance (docs/python.md, example 3).

The double wishbone's lateral-force toe compliance (Fy at the contact point, wheel left) is
brought to a target by the radial stiffness of the lower wishbone's inner bushings (x and y,
left and right together): a root of compliance(k) - target, found by SciPy's brentq where SciPy is
installed, else by bisection. Usage: fit_toe_compliance.py [OUTPUT_FOLDER]
"""
import os
import sys

import elastokin as ek

ROOT = os.environ.get("ELASTOKIN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
project = ek.Project.load(os.path.join(ROOT, "projects", "double_wishbone.json"))
METRIC = "toe compliance, lateral force inboard (at contact)"
TARGET = 0.10  # deg/kN (toe-in per kN of cornering force)
CELLS = [f"bushings/{b}/{d}.stiffness [N/m]" for b in (5, 25) for d in ("x", "y")]
evaluations = []


def compliance(k):
    """The metric with the bushings' radial stiffness k [N/m] (the design position's linearization)."""
    r = ek.kc(project.with_values({c: k for c in CELLS}), "static-load", load="fy-contact", from_=-1.0, to=1.0, points=2)
    value = r.metric(METRIC, "wheel left")
    evaluations.append((k, value))
    return value


k0 = project.get(CELLS[0])
print(f"as modelled: k = {k0:.4g} N/m, {METRIC} = {compliance(k0):.5f} deg/kN; target {TARGET} deg/kN")
low, high = k0 / 10.0, k0 * 10.0
f = lambda k: compliance(k) - TARGET
try:
    from scipy.optimize import brentq
    k, info = brentq(f, low, high, xtol=1.0, full_output=True)
    method = f"scipy.optimize.brentq, {info.function_calls} evaluations"
except ImportError:
    a, b = low, high
    fa = f(a)
    while b - a > 1.0:
        m = 0.5 * (a + b)
        fm = f(m)
        if (fm < 0) == (fa < 0):
            a, fa = m, fm
        else:
            b = m
    k, method = 0.5 * (a + b), "bisection (SciPy not installed)"
final = compliance(k)
print(f"fitted: k = {k:.6g} N/m ({k / k0:.4f} x as modelled), {METRIC} = {final:.6f} deg/kN ({method})")
print(f"deviation from the target: {abs(final - TARGET):.2e} deg/kN")
out = sys.argv[1] if len(sys.argv) > 1 else None
if out:
    os.makedirs(out, exist_ok=True)
    fitted = project.with_values({c: k for c in CELLS})
    fitted.save(os.path.join(out, "double_wishbone_fitted.json"))
    print(f"project -> {os.path.join(out, 'double_wishbone_fitted.json')}")
