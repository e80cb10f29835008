// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file kinematics.h
/// Stages 1 and 2 of the online linearization (paper 003 Sect. 4, Fig. 5).

#include "engine/dynamics/workspace.h"

namespace ek {

/// (r, v) => per free body: R_WB, T^-1 (block of K, eq. 2a), R*T, w_W and N = d(T^-1 w_B)/d(alpha).
/// (ws.u, ws.uDot) => pose and velocity of every driven body and their partials (ws.drives).
void calcBodyKinematics(const SuspensionModel& model, const State& state, Workspace& ws);

/// Body kinematics => p_WM, R_WM, v_WM, w_WM and their partials w.r.t. the body's
/// (p, theta, v, w_B).
/// @pre calcBodyKinematics() ran.
void calcMarkerKinematics(const SuspensionModel& model, Workspace& ws);

/// Chain rule through a marker: partials of a 6-row quantity w.r.t. the marker's
/// (p, theta, v, w_W) => partials w.r.t. its body's (p, theta, v, w_B).
Mat6x12 chainMarker(const Mat6x12& dW_dMarker, const MarkerKinematics& mk);

}  // namespace ek
