// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file kinematics.h
/// Stages 1 and 2 of the online linearization (paper 003 Sect. 4, Fig. 5).

#include "engine/dynamics/workspace.h"

namespace ek {

/// (r, v) => per free body: R_WB, T^-1 (block of K, eq. 2a), R*T, w_W and N = d(T^-1 w_B)/d(alpha),
/// all from one evaluation of the angles' sines and cosines.
/// (ws.u, ws.uDot) => pose and velocity of every driven body and their partials (ws.drives).
/// Also takes the state's element states into ws.z (setElementStates()).
void calcBodyKinematics(const SuspensionModel& model, const State& state, Workspace& ws);

/// ws.z = state.z, or zero (relaxed branches) when the state has none.
/// @throws std::logic_error when the state holds a wrong number of element states.
void setElementStates(const SuspensionModel& model, const State& state, Workspace& ws);
/// The free bodies of state slots slots[0..n), as calcBodyKinematics() does for each: their
/// angles' sines and cosines four bodies at a time (lanes::sincos()); a body's results do not
/// depend on the others in the list.
void calcFreeBodyKinematics(const SuspensionModel& model, const State& state, const int* slots, int n, Workspace& ws);
/// Every driven body, as calcBodyKinematics() does after the free ones.
void calcDrivenBodyKinematics(const SuspensionModel& model, Workspace& ws);
/// A slot whose coordinates are not a pose (a flexible body's modes, a tyre's spin and
/// deflections): R, T^-1 and R T the identity, w_W = w_B, N = 0.
void setUnitMaps(BodyKinematics& b);

/// Body kinematics => p_WM, R_WM, v_WM, w_WM of every marker on a moving (free or driven) body;
/// markers on fixed bodies keep what the Workspace set.
/// @pre calcBodyKinematics() ran.
void calcMarkerKinematics(const SuspensionModel& model, Workspace& ws);

/// The markers markers[0..n) (on moving bodies), as calcMarkerKinematics() does for each, four at
/// a time (engine/core/lanes.h); a marker's results do not depend on the others in the list.
void calcMarkerList(const SuspensionModel& model, Workspace& ws, const int* markers, int n);

/// One marker's global kinematics from its body's (the Workspace's markers on fixed bodies).
void markerKinematics(const ModelMarker& marker, const BodyKinematics& body, MarkerKinematics& mk);

/// Partials of a marker's (p, v, w_W) with respect to its body's theta and w_B (those w.r.t. p
/// and v are the identity).
struct MarkerPartials {
  Mat3 dp_dth;  ///< -[rho]x
  Mat3 dv_dth;  ///< -[w_W x rho]x
  Mat3 dv_dw;   ///< -[rho]x R_WB
  Mat3 dw_dth;  ///< -[w_W]x
  Mat3 dw_dw;   ///< R_WB
};
MarkerPartials markerPartials(const MarkerKinematics& mk, const BodyKinematics& body);

}  // namespace ek
