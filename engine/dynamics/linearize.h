// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file linearize.h
/// Stages 4-6 of the online linearization (paper 003 Sect. 4, Fig. 5) and the function that runs
/// all stages in order.

#include "engine/dynamics/workspace.h"

namespace ek {

/// Force elements => world wrenches about each free body's centre of mass (ws.wrench) and their
/// partials w.r.t. (p, theta, v, w_B) in the block pattern (ws.Jw_r, ws.Jw_v), lever arms included.
/// @pre calcBushings() and calcP2Ps() ran.
void calcSurfaceForces(const SuspensionModel& model, Workspace& ws);

/// Adds gravity and the input wrenches for ws.u (h_g, h_u of eq. 2b) to the world wrenches and
/// their partials; fills J_u and J_udot (motion inputs: from the element partials that
/// calcSurfaceForces() collected in Jw_u, Jw_udot).
/// @pre calcSurfaceForces() ran.
void calcBodyForces(const SuspensionModel& model, Workspace& ws);

/// World wrenches => h = h_s - h_w + h_g + h_u in generalized coordinates (force global, torque in
/// body axes), J_r = dh/dr (through d theta = R T d alpha), J_v = dh/dv including the gyroscopic
/// term, the blocks of K and of N = d(K v)/dr.
/// @pre calcBodyForces() ran.
void assembleLinearization(const SuspensionModel& model, Workspace& ws);

/// Runs every stage in order at (state, u, u_dot): body kinematics (driven bodies included),
/// marker kinematics, bushings, P2P elements, surface forces, body forces, assembly (paper 003
/// eqs. 8-9, analytic). u_dot, the inputs' rates, moves driven bodies; loads ignore it.
void linearize(const SuspensionModel& model, const State& state, const VecX& u, const VecX& uDot, Workspace& ws);

/// The same with the inputs at rest (u_dot = 0): equilibria, K&C points, operating points.
void linearize(const SuspensionModel& model, const State& state, const VecX& u, Workspace& ws);

/// y += J x for a matrix in the block pattern (J_r, J_v or A).
void blockMultiplyAdd(const BlockPattern& pattern, const std::vector<Mat6>& blocks, const VecX& x, VecX& y);

/// Dense copy of a block-pattern matrix (for checks and the dense solver).
MatX blockToDense(const BlockPattern& pattern, const std::vector<Mat6>& blocks);

}  // namespace ek
