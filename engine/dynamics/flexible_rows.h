// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file flexible_rows.h
/// Flexible bodies in the stages (docs/flexible-bodies.md, "In the step"): the kinematics of
/// their modal slots and of the markers riding on their nodes, the force elements with a side on
/// one (chained through the nodes' mode shapes), and the body's rows as the engine integrates
/// them. The engine keeps one constant block mass: a flexible body's frame has diag(m, J0) and
/// its modal slots the identity, and its rows carry h~ = M0 M(q)^-1 (rhs), which holds the
/// floating-frame equations exactly (flexible_body.h, engineRows()).
///
/// So that every consumer of the rows (assembly, stage matrices, products) stays as it is for
/// rigid bodies, a flexible body's rows are written back in their world-wrench form:
///   frame, rotation:  W = R (h~_w + w x J0 w) (the generalized row is R^T W - w x J0 w = h~_w),
///   modal slot:       W = h~_q (R = I, unit mass and inertia: no gyroscopic term),
/// with the partials of W; on a modal slot's diagonal block, -[W_rot]x, which the consumers add
/// back as the rotation of a rigid body's torque (R = I there: nothing turns).
///
/// A marker on node i with offset d rides with the node: with phi = R_s q (body axes),
///   rho = R (s + T q),  R_WM = R Exp(phi) R_BM,  v = v_B + w x rho + R T q',
///   w_M = w + R Jl(phi) R_s q',
/// Jl the left Jacobian of Exp (Exp(phi + dphi) = Exp(Jl(phi) dphi) Exp(phi)); a force F and
/// torque tau on it give the frame F and tau + rho x F, and the modes
/// Q = T^T R^T F + R_s^T Jl(phi)^T R^T tau (virtual work).

#include "engine/dynamics/workspace.h"

namespace ek {

/// The modal slots' kinematics (R = I, T^-1 = I, N = 0, the six coordinates raw) and every marker
/// on a flexible body, its node's motion included; each body's q and q' (ws.flexible).
/// @pre calcBodyKinematics() ran (the frames).
void calcFlexibleKinematics(const SuspensionModel& model, const State& state, Workspace& ws);

/// The force elements with a side on a flexible body: their values (the scalar laws) into
/// ws.bushings and ws.p2ps, the Maxwell branches eliminated with `branchStageGain` as
/// ElementPass says. @pre calcFlexibleKinematics() and calcMarkerKinematics() ran.
void calcFlexibleElements(const SuspensionModel& model, Workspace& ws, double branchStageGain = 0.0);

/// Their wrenches (and with `partials` their partials, marker motions chained through the nodes'
/// mode shapes) added to the rows of the bodies they join: a flexible body's frame and modal
/// slots get F, the torque about the centre of mass and the modal forces, a rigid body what
/// calcSurfaceForces() gives it. @pre calcFlexibleElements().
void addFlexibleElementForces(const SuspensionModel& model, Workspace& ws, bool partials);

/// Each flexible body's rows in the world-wrench form above, from what the elements and the
/// body forces added: first the force and torque inputs at markers on flexible bodies
/// (ws.flexibleLoads: their values, their partials by the body's coordinates and their J_u
/// columns), then rhs = (R^T tau; Q) + f(w, q, q'), h~ = M0 M(q)^-1 rhs and (with `partials`) its
/// partials, the body's J_u and J_udot columns mapped through M0 M(q)^-1 as well.
/// @pre calcSurfaceForces() and the body forces.
void flexibleBodyRows(const SuspensionModel& model, Workspace& ws, bool partials);

namespace so3 {
/// Exp(phi) = I + sin a / a [phi]x + (1 - cos a) / a^2 [phi]x^2, a = |phi|.
Mat3 exp(const Vec3& phi);
/// The left Jacobian Jl(phi) = I + (1 - cos a) / a^2 [phi]x + (a - sin a) / a^3 [phi]x^2.
Mat3 leftJacobian(const Vec3& phi);
/// d(Jl(phi) y)/d(phi).
Mat3 leftJacobianTimesPartial(const Vec3& phi, const Vec3& y);
}  // namespace so3

}  // namespace ek
