// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/generalized_alpha.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <Eigen/Geometry>

#include "engine/core/rotation.h"
#include "engine/core/time_grid.h"
#include "engine/dynamics/linearize.h"
#include "engine/core/text.h"

namespace ek {
namespace {
constexpr double kTwoPi = 6.283185307179586;
}  // namespace

GeneralizedAlpha::GeneralizedAlpha(const SuspensionModel& model, GeneralizedAlphaOptions options,
                                   std::unique_ptr<LinearSolver> solver)
    : model_(model), options_(options), system_(model, std::move(solver), false) {
  if (!(options_.dt > 0.0)) throw std::invalid_argument("the step dt must be positive");
  if (options_.linearizeEvery < 1) throw std::invalid_argument("--lin-every must be at least 1");
  if (options_.iterations < 1) throw std::invalid_argument("generalized-alpha needs at least one Newton iteration");
  const double rho = options_.rhoInfinity;
  if (!(rho >= 0.0 && rho <= 1.0)) throw std::invalid_argument("the spectral radius at infinity must be in [0, 1]");
  alphaM_ = (2.0 * rho - 1.0) / (rho + 1.0);
  alphaF_ = rho / (rho + 1.0);
  gamma_ = 0.5 + alphaF_ - alphaM_;
  beta_ = 0.25 * (gamma_ + 0.5) * (gamma_ + 0.5);
  const int n = model.nDof(), nu = model.nInputs();
  Y_.r.setZero(n);
  Y_.v.setZero(n);
  for (VecX* v : {&a_, &vdot_, &aNew_, &vdotNew_, &hY_, &rDotY_, &rhs_, &da_, &tmp_}) v->setZero(n);
  for (VecX* v : {&u_, &ud_}) v->setZero(nu);
}

void GeneralizedAlpha::start(const State& state, const InputSignals& inputs, Workspace& ws) {
  inputs.evaluate(state.t, u_);
  if (model_.hasMotionInputs()) inputs.evaluateRate(state.t, ud_);
  evaluateRhs(model_, state, u_, ud_, ws, hY_, rDotY_);
  ++rhsEvaluations_;
  massSolve(model_, hY_, vdot_);  // a_0 = nu'_0
  a_ = vdot_;
}

void GeneralizedAlpha::advance(const State& state) {
  const double h = options_.dt;
  for (int l = 0, m = model_.nFreeBodies(); l < m; ++l) {
    const Vec6 D = state.v.segment<6>(6 * l) + h * (0.5 - beta_) * a_.segment<6>(6 * l) +
                   h * beta_ * aNew_.segment<6>(6 * l);
    Y_.r.segment<3>(6 * l) = state.r.segment<3>(6 * l) + h * D.head<3>();
    Y_.v.segment<6>(6 * l) = state.v.segment<6>(6 * l) + h * (1.0 - gamma_) * a_.segment<6>(6 * l) +
                             h * gamma_ * aNew_.segment<6>(6 * l);
    if (model_.bodies[model_.freeBodies[l]].modal) {  // modal coordinates: a vector space, r' = v
      Y_.r.segment<3>(6 * l + 3) = state.r.segment<3>(6 * l + 3) + h * D.tail<3>();
      continue;
    }
    const Vec3 angles = state.r.segment<3>(6 * l + 3);
    const Vec3 phi = h * D.tail<3>();
    const double norm = phi.norm();
    Vec3 next = angles;
    if (norm > 0.0) {
      const Mat3 R = rotation::matrix(angles) * Eigen::AngleAxisd(norm, phi / norm).toRotationMatrix();
      next = rotation::anglesFromMatrix(R);
      for (int k : {0, 2}) next[k] += kTwoPi * std::round((angles[k] - next[k]) / kTwoPi);  // continuous
    }
    Y_.r.segment<3>(6 * l + 3) = next;
  }
}

void GeneralizedAlpha::step(State& state, const InputSignals& inputs, Workspace& ws) {
  const double h = options_.dt, t = state.t;
  if (!history_.continues(state)) {
    start(state, inputs, ws);
    sinceStart_ = 0;
  }
  const double tNext = gridTime(t, h, 1.0), tEnd = std::nextafter(tNext, t);
  inputs.evaluate(tEnd, u_);
  if (model_.hasMotionInputs()) inputs.evaluateRate(tEnd, ud_);
  Y_.t = tEnd;
  const double mu = (1.0 - alphaM_) / (1.0 - alphaF_);
  const bool linearizes = options_.frozen ? !factorized_ : sinceStart_ % options_.linearizeEvery == 0;
  aNew_ = a_;  // predictor
  for (int k = 0; k < options_.iterations; ++k) {
    advance(state);
    if (k == 0 && linearizes) {
      linearize(model_, Y_, u_, ud_, ws, LinearizeOptions{false, 0.0});  // at the predicted state: also the first residual's h
      system_.factorizeVelocityMatrix(ws, h * gamma_ / mu, h * h * beta_ / mu);
      factorized_ = true;
      hY_ = ws.h;
    } else {
      evaluateRhs(model_, Y_, u_, ud_, ws, hY_, rDotY_);
    }
    ++rhsEvaluations_;
    // F = M nu'(a) - h(Y);  A da = -F / mu
    vdotNew_ = ((1.0 - alphaM_) * aNew_ + alphaM_ * a_ - alphaF_ * vdot_) / (1.0 - alphaF_);
    massTimes(model_, vdotNew_, tmp_);
    rhs_ = (hY_ - tmp_) / mu;
    system_.solveVelocity(rhs_, da_);
    aNew_ += da_;
  }
  advance(state);
  vdot_ = ((1.0 - alphaM_) * aNew_ + alphaM_ * a_ - alphaF_ * vdot_) / (1.0 - alphaF_);
  a_ = aNew_;
  state.r = Y_.r;
  state.v = Y_.v;
  state.t = tNext;
  history_.leave(state);
  ++sinceStart_;
}

std::string GeneralizedAlpha::describe() const {
  char buf[220];
  char every[64];
  if (options_.frozen) ek::csnprintf(every, sizeof every, "iteration matrix of the first step only");
  else ek::csnprintf(every, sizeof every, "linearized every %d step(s)", options_.linearizeEvery);
  ek::csnprintf(buf, sizeof buf, "generalized-alpha (rho_inf = %g), dt = %g s, %d Newton iterations per step, %s, %s solver",
                options_.rhoInfinity, options_.dt, options_.iterations, every, system_.solver().name().c_str());
  return buf;
}

}  // namespace ek
