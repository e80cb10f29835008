// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Programmatic test projects: hand-built fixtures and random topologies.

#include <random>

#include "engine/model/project.h"

namespace ek::test {

/// The fixed body 0, "ground".
BodyRow groundRow();

/// One free body (id 1) on a bushing (id 1) to the ground (id 0); marker 1 on the ground and
/// marker 2 on the body, both at `at`; linear stiffness k (all translational), kr (rotational).
Project singleBushing(double mass, const Vec3& inertia, double k, double kr, const Vec3& at = Vec3::Zero());

/// An undamped translational oscillator: singleBushing(2 kg, k = 2e5 N/m, kr = 50 N m/rad)
/// without gravity, the body started 1 mm along x, output "x" (the body marker's x), load case
/// "free" of 0.1 s. x(t) = 1 mm cos(sqrt(k/m) t).
Project freeOscillator();

/// A stiff undamped oscillator: k = 1e7 N/m on m = 1 kg (omega = 3162 rad/s; omega dt = 15.8 at
/// dt = 5 ms), soft rotations (1e3 N m/rad), no gravity, started 1 mm along x, output "x", load
/// case "free" of `duration`.
Project stiffOscillator(double duration);

/// A spinning, translating body on a soft bushing and an offset P2P spring, under gravity:
/// smooth (linear laws), geometrically nonlinear, all six coordinates active; load case "free"
/// of 0.5 s (the convergence-order tests of the integrators).
Project spinningBody();

/// A random connected topology: nFree free bodies plus ground, random poses (angles up to
/// +-60 deg), random velocities, nBushings bushings and nP2P P2P elements with nonlinear curves
/// (pchip, spline and linear), stops, preloads, damping curves and a global and a marker-frame
/// input force and torque. Deterministic for a seed.
Project randomProject(unsigned seed, int nFree, int nBushings, int nP2P, bool withGround = true);

/// Gives every bushing one or two Maxwell branches in three random directions (translational
/// k 2e4-2e5 N/m, rotational 20-200 N m/rad, relaxation rates k/c 5-500 1/s); a direction whose
/// stiffness is a curve scales them with its slope.
void addMaxwellBranches(Project& p, unsigned seed);

/// A flexible anti-roll-bar-like beam body (tube, bent ends, `modes` fixed-interface modes) on
/// two bushings to the ground, one end on a P2P link to the ground, the other on a P2P link
/// and an offset bushing to a rigid arm that a bushing holds to the ground; markers turned
/// against their bodies, the bar's frame turned against the ground, no gravity unless asked.
Project flexibleBar(int modes, bool gravity = false);
/// A steering wheel: a fixed body (id 200) at (0.3, 0, 0.8) m with a marker (id 1000, turned by
/// `orientation`) and input 900, the steering-wheel angle, a rotation about the marker's z axis
/// (the input a steering rack's row names).
void addSteeringWheel(Project& p, const Vec3& orientation);
/// To flexibleBar(): a rig body (id 3, fixed) with a pad (marker 30, turned by `padOrientation`)
/// 5 cm below the left ground mount, joined to the bar's left end (marker 12) by a copy of the
/// left mount bushing (id 5), and input 1, a translation of the rig along `lift`.
void addDrivenRig(Project& p, const Vec3& lift, const Vec3& padOrientation);

/// One wheel corner (docs/analyses.md's test fixture): ground (id 0), a carrier (id 1, wheel
/// mount) on a bushing to the ground, a wheel (id 2) on a bearing bushing (free about the axle)
/// to the carrier, and wheel 1 (radius 0.3 m, centre at (0, side 0.78, 0.3) m, marker 10)
/// posed with the given toe and camber [rad] (ISO 8855 signs), with a steering axis from
/// (-0.03, side 0.65, 0.55) m (marker 20) to (0.01, side 0.72, 0.15) m (marker 21) on the
/// carrier. `side` is +1 (left) or -1 (right).
Project wheelCorner(double side, double toe, double camber);

/// The carriage of tyreCarriage(): its mass with the wheel [kg] and its starting speed [m/s].
inline constexpr double kCarriageMass = 400.0, kCarriageSpeed = 10.0;

/// A tyre test carriage (the hub, body 1) on a bushing to the ground that holds its heading,
/// free along x and vertically, with a left wheel whose heading is turned by `slipAngle` (yaw
/// about z) and its tyre from tests/data/tyres; starting at kCarriageSpeed along x, 17.6 mm
/// deflected (its weight on the file's deflection-load curve), rolling freely. Load case "free"
/// of 1 s, as modelled.
Project tyreCarriage(double slipAngle);

}  // namespace ek::test
