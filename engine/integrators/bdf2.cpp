// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/bdf2.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "engine/core/time_grid.h"
#include "engine/dynamics/linearize.h"
#include "engine/core/text.h"

namespace ek {

Bdf2::Bdf2(const SuspensionModel& model, Bdf2Options options, std::unique_ptr<LinearSolver> solver)
    : model_(model), options_(options), system_(model, std::move(solver), options.kinematicsDerivative) {
  if (!(options_.dt > 0.0)) throw std::invalid_argument("the step dt must be positive");
  if (options_.linearizeEvery < 1) throw std::invalid_argument("--lin-every must be at least 1");
  if (options_.iterations < 1) throw std::invalid_argument("BDF2 needs at least one Newton iteration");
  const int n = model.nDof(), nu = model.nInputs();
  Y_.r.setZero(n);
  Y_.v.setZero(n);
  for (VecX* v : {&rPrev_, &vPrev_, &rHist_, &vHist_, &hY_, &rDotY_, &Rr_, &MRv_, &dr_, &dv_, &tmp_})
    v->setZero(n);
  for (VecX* v : {&u_, &ud_}) v->setZero(nu);
}

void Bdf2::startHistory(const State& state, const InputSignals& inputs, Workspace& ws) {
  // y_-1 = y_0 - h f(t_0, y_0): with it the first step's BDF2 formula is second order.
  const double h = options_.dt;
  inputs.evaluate(state.t, u_);
  if (model_.hasMotionInputs()) inputs.evaluateRate(state.t, ud_);
  evaluateRhs(model_, state, u_, ud_, ws, hY_, rDotY_);
  ++rhsEvaluations_;
  rPrev_ = state.r - h * rDotY_;
  massSolve(model_, hY_, tmp_);
  vPrev_ = state.v - h * tmp_;
}

void Bdf2::step(State& state, const InputSignals& inputs, Workspace& ws) {
  const double h = options_.dt, t = state.t, hg = 2.0 * h / 3.0;
  // A state set from outside (the first step, a new run) starts a new history.
  if (!history_.continues(state)) {
    startHistory(state, inputs, ws);
    sinceStart_ = 0;
  }
  const double tNext = gridTime(t, h, 1.0), tEnd = std::nextafter(tNext, t);
  rHist_ = (4.0 / 3.0) * state.r - (1.0 / 3.0) * rPrev_;
  vHist_ = (4.0 / 3.0) * state.v - (1.0 / 3.0) * vPrev_;
  Y_.r = 2.0 * state.r - rPrev_;  // predictor: linear extrapolation
  Y_.v = 2.0 * state.v - vPrev_;
  Y_.t = tEnd;
  inputs.evaluate(tEnd, u_);
  if (model_.hasMotionInputs()) inputs.evaluateRate(tEnd, ud_);
  const bool linearizes = sinceStart_ % options_.linearizeEvery == 0;
  for (int k = 0; k < options_.iterations; ++k) {
    if (k == 0 && linearizes) {
      // At the predictor: also the first residual's f.
      linearize(model_, Y_, u_, ud_, ws, LinearizeOptions{false, 0.0});
      system_.factorize(ws, hg);
      hY_ = ws.h;
      kinematicRates(model_, ws, Y_.v, rDotY_);
    } else {
      evaluateRhs(model_, Y_, u_, ud_, ws, hY_, rDotY_);
    }
    ++rhsEvaluations_;
    // -G(Y) = hist - Y + hg f(Y), the velocity rows multiplied by M.
    Rr_ = rHist_ - Y_.r + hg * rDotY_;
    tmp_ = vHist_ - Y_.v;
    massTimes(model_, tmp_, MRv_);
    MRv_ += hg * hY_;
    system_.solve(ws, Rr_, MRv_, dr_, dv_);
    Y_.r += dr_;
    Y_.v += dv_;
  }
  rPrev_ = state.r;
  vPrev_ = state.v;
  state.r = Y_.r;
  state.v = Y_.v;
  state.t = tNext;
  history_.leave(state);
  ++sinceStart_;
}

std::string Bdf2::describe() const {
  char buf[200];
  ek::csnprintf(buf, sizeof buf, "BDF2, dt = %g s, %d Newton iterations per step, linearized every %d step(s), %s solver%s",
                options_.dt, options_.iterations, options_.linearizeEvery, system_.solver().name().c_str(),
                options_.kinematicsDerivative ? "" : ", frozen kinematics (papers' K_lin)");
  return buf;
}

}  // namespace ek
