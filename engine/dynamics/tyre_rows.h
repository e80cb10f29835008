// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file tyre_rows.h
/// Magic Formula tyres in the engine's rows (docs/tyres.md). A wheel with a tyre keeps its body
/// as the non-spinning hub; the tyre's own state slot (mass 1, R = I, r' = v like a modal slot)
/// holds v = (Omega, u, v_y, 0, 0, 0): the wheel's absolute spin rate about its axis and the two
/// contact deflections, r their integrals (the spin angle first). Its rows:
///   Omega' = tau_y / I_spin,   u' and v_y' of tyreContact(),
/// and the hub's row gets the contact's force and torque (about its centre of mass) and the
/// spinning wheel's gyroscopic reaction -I_spin Omega (w x y). Partials by the hub's (p, theta,
/// v, w_B) and the slot's v, chained from tyreContact()'s exact ones, into the pattern's blocks
/// (hub, hub), (hub, slot), (slot, hub), (slot, slot).

#include <vector>

#include "engine/dynamics/workspace.h"

namespace ek {

/// The tyre slots' kinematics (R = I, T^-1 = I, N = 0, the six coordinates raw).
/// @pre calcBodyKinematics() ran.
void calcTyreKinematics(const SuspensionModel& model, Workspace& ws);

/// Each tyre's contact (tyreContact(), with `partials` its partial derivatives) into ws.tyres:
/// the tyres' force law, run with the force elements. @pre calcMarkerKinematics() and
/// calcTyreKinematics().
void calcTyreContacts(const SuspensionModel& model, Workspace& ws, bool partials);
/// The contact of wheel k alone (a wheel with a tyre), into ws.tyres[k]: what calcTyreContacts()
/// does for it (the parallel step spreads the wheels over its threads).
void calcTyreContact(const SuspensionModel& model, Workspace& ws, int k, bool partials);

/// The tyres' wrenches added to their hubs' rows and their slots' rows (ws.wrench), with
/// `partials` also into ws.Jw_r and ws.Jw_v. @pre calcTyreContacts() with the same `partials`.
void addTyreForces(const SuspensionModel& model, Workspace& ws, bool partials);

/// Where a tyre's contact patch stays while the suspension settles at rest (the static
/// equilibrium, docs/tyres.md "At rest"): the contact point and the W axes where the tyre was set
/// down, the hub body's pose and the wheel's spin angle then, and its effective rolling radius.
struct TyrePatch {
  Vec3 point = Vec3::Zero(), forwards = Vec3::UnitX(), lateral = Vec3::UnitY();
  Vec3 hubPosition = Vec3::Zero();
  Mat3 hubRotation = Mat3::Identity();
  double spinAngle = 0.0, effectiveRadius = 0.0;
};

/// The patches (per wheel; a wheel without a tyre gets a default one) where the tyres stand at
/// `state`. Runs the kinematics and the contacts' values into ws.
std::vector<TyrePatch> tyrePatches(const SuspensionModel& model, const State& state, Workspace& ws);

/// At rest: the deflections that keep each patch where `patches` has it, into the tyre slots of
/// state.v (spin rate 0): u = -d . x_W0 + R_e0 (phi - phi_0), v_y = -d . y_W0, d the displacement
/// of the hub's material point that was at the patch. Runs the body kinematics into ws.
void setRestDeflections(const SuspensionModel& model, const std::vector<TyrePatch>& patches, State& state,
                        Workspace& ws);

/// At rest: adds to ws.Jr the deflections' dependence on the hub's pose and the spin angle (J_v's
/// deflection columns times their exact partials), so that the static equilibrium's steps see
/// each tyre as the spring it is at rest. @pre linearize() at a state from setRestDeflections().
void addRestDeflectionPartials(const SuspensionModel& model, const std::vector<TyrePatch>& patches, Workspace& ws);

}  // namespace ek
