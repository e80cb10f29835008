// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/equilibrium.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "engine/core/error.h"
#include "engine/dynamics/linearize.h"

namespace ek {
namespace {
std::string fmtG(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

double maxAcceleration(const SuspensionModel& model, const Workspace& ws) {
  double worst = 0.0;
  for (int l = 0; l < model.nFreeBodies(); ++l) {
    const ModelBody& b = model.bodies[model.freeBodies[l]];
    const double a = ws.h.segment<3>(6 * l).norm() / b.mass;
    const double alpha = b.inertia.ldlt().solve(Vec3(ws.h.segment<3>(6 * l + 3))).norm();
    worst = std::max({worst, a, alpha});
  }
  return worst;
}

EquilibriumResult solveEquilibrium(const SuspensionModel& model, const VecX& u, State& state, Workspace& ws,
                                   double tolerance, int maxIterations) {
  const int n = model.nDof();
  state.v.setZero();
  VecX Mdiag(n), dx(n);
  for (int l = 0; l < model.nFreeBodies(); ++l) {
    const ModelBody& b = model.bodies[model.freeBodies[l]];
    Mdiag.segment<3>(6 * l).setConstant(b.mass);
    Mdiag.segment<3>(6 * l + 3) = b.inertia.diagonal();
  }
  auto weightedNorm = [&](const VecX& h) { return (h.array() / Mdiag.array()).matrix().norm(); };

  linearize(model, state, u, ws);
  double scale = 0.0;  // a squared frequency: size of J_r relative to M
  {
    const MatX Jr = blockToDense(model.pattern, ws.Jr);
    for (int k = 0; k < n; ++k) scale = std::max(scale, std::abs(Jr(k, k)) / Mdiag[k]);
    if (scale == 0.0) scale = 1.0;
  }
  // A tiny mass-proportional term keeps free directions (zero stiffness, e.g. wheel spin) where
  // they are without changing the Newton direction elsewhere.
  double mu = 1e-9 * scale;  // lowered after full steps (down to 1e-15 scale), raised when steps are cut
  const double maxTranslation = 0.02, maxRotation = 0.1;  // per iteration [m], [rad]
  Eigen::PartialPivLU<MatX> lu(n);
  State trial = state;
  Workspace wt(model);
  for (int it = 0; it < maxIterations; ++it) {
    const double acc = maxAcceleration(model, ws);
    if (acc < tolerance) return {it, acc};
    const double norm0 = weightedNorm(ws.h);
    // Newton in body-twist increments dq (dr = K dq): the columns then pair with the rows of h
    // (force, body-frame torque) and the mass-proportional term acts on the right coordinate.
    MatX Jd = blockToDense(model.pattern, ws.Jr);
    for (int l = 0; l < model.nFreeBodies(); ++l) Jd.middleCols<3>(6 * l + 3) *= ws.Kinv[l];
    Jd.diagonal() -= mu * Mdiag;
    lu.compute(Jd);
    dx = lu.solve(-ws.h);
    for (int l = 0; l < model.nFreeBodies(); ++l) dx.segment<3>(6 * l + 3) = ws.Kinv[l] * dx.segment<3>(6 * l + 3);
    if (!dx.allFinite())
      throw SimulationError("static equilibrium not found: the stiffness matrix J_r is singular; is every body "
                            "held by force elements?");
    // Round-off floor: the residual of light links cannot go below ~1e-7 m/s^2, but once the
    // Newton correction is below 1e-10 m / 1e-10 rad for every body the pose is pinned.
    double largest = 0.0;
    for (int l = 0; l < model.nFreeBodies(); ++l)
      largest = std::max({largest, dx.segment<3>(6 * l).norm(), dx.segment<3>(6 * l + 3).norm()});
    if (largest < 1e-10) return {it, acc};
    double limit = 1.0;
    for (int l = 0; l < model.nFreeBodies(); ++l) {
      limit = std::min(limit, maxTranslation / std::max(dx.segment<3>(6 * l).norm(), 1e-300));
      limit = std::min(limit, maxRotation / std::max(dx.segment<3>(6 * l + 3).norm(), 1e-300));
    }
    // Backtracking along the Newton direction: with an exact J_r it is a descent direction of
    // the weighted residual, so some step length reduces it.
    bool accepted = false;
    double alpha = limit;
    for (; alpha > 1e-8 && !accepted; alpha *= 0.5) {
      trial.r = state.r + alpha * dx;
      try {
        linearize(model, trial, u, wt);
        accepted = wt.h.allFinite() && weightedNorm(wt.h) < (1.0 - 1e-4 * alpha) * norm0;
      } catch (const SimulationError&) {
        accepted = false;
      }
    }
    if (!accepted)
      throw SimulationError("static equilibrium not found: no step reduces the residual after " + std::to_string(it) +
                            " iterations (largest acceleration " + fmtG(acc) + ")");
    state.r = trial.r;
    std::swap(ws, wt);
    // alpha was halved once more after acceptance: 2 alpha is the step taken.
    mu = (2.0 * alpha >= limit && limit == 1.0) ? std::max(mu * 0.1, 1e-15 * scale) : std::min(mu * 10.0, 1e-6 * scale);
  }
  const double acc = maxAcceleration(model, ws);
  if (acc < tolerance) return {maxIterations, acc};
  throw SimulationError("static equilibrium not found in " + std::to_string(maxIterations) +
                        " iterations (largest acceleration left " + fmtG(acc) + ")");
}

}  // namespace ek
