// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file equilibrium.h
/// Static equilibrium of the suspension under constant inputs: the initial state of a load case
/// (and the operating point of the modal analysis).

#include "engine/dynamics/workspace.h"

namespace ek {

/// Static equilibrium: r with h(r, 0, u) = 0, by Newton's method on J_r regularised with a
/// Levenberg-Marquardt term (J_r - mu M) so that free directions (e.g. wheel spin, zero
/// stiffness) stay where they are. Converged when every body's acceleration M^-1 h is below
/// `tolerance` (m/s^2 and rad/s^2), or when the Newton correction of every body is below
/// 1e-10 m and 1e-10 rad (the round-off floor of stiff models with light links).
struct EquilibriumResult {
  int iterations = 0;
  double residual = 0.0;  ///< largest acceleration left
};
/// @throws SimulationError if it does not converge in maxIterations.
EquilibriumResult solveEquilibrium(const SuspensionModel& model, const VecX& u, State& state, Workspace& ws,
                                   double tolerance = 1e-8, int maxIterations = 500);

/// Largest acceleration magnitude of M^-1 h in ws (after linearize()).
double maxAcceleration(const SuspensionModel& model, const Workspace& ws);

}  // namespace ek
