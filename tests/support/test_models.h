// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Programmatic test projects: hand-built fixtures and random topologies.

#include <random>

#include "engine/model/project.h"

namespace ek::test {

/// One free body (id 1) on a bushing (id 1) to the ground (id 0); marker 1 on the ground and
/// marker 2 on the body, both at `at`; linear stiffness k (all translational), kr (rotational).
Project singleBushing(double mass, const Vec3& inertia, double k, double kr, const Vec3& at = Vec3::Zero());

/// A random connected topology: nFree free bodies plus ground, random poses (angles up to
/// +-60 deg), random velocities, nBushings bushings and nP2P P2P elements with nonlinear curves
/// (pchip, spline and linear), stops, preloads, damping curves and a global and a marker-frame
/// input force and torque. Deterministic for a seed.
Project randomProject(unsigned seed, int nFree, int nBushings, int nP2P, bool withGround = true);

}  // namespace ek::test
