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

#include "engine/dynamics/workspace.h"

namespace ek {

/// The tyre slots' kinematics (R = I, T^-1 = I, N = 0, the six coordinates raw).
/// @pre calcBodyKinematics() ran.
void calcTyreKinematics(const SuspensionModel& model, Workspace& ws);

/// Each tyre's contact (tyreContact(), with `partials` its partial derivatives) into ws.tyres:
/// the tyres' force law, run with the force elements. @pre calcMarkerKinematics() and
/// calcTyreKinematics().
void calcTyreContacts(const SuspensionModel& model, Workspace& ws, bool partials);

/// The tyres' wrenches added to their hubs' rows and their slots' rows (ws.wrench), with
/// `partials` also into ws.Jw_r and ws.Jw_v. @pre calcTyreContacts() with the same `partials`.
void addTyreForces(const SuspensionModel& model, Workspace& ws, bool partials);

}  // namespace ek
