// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/lsrt2.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "engine/core/error.h"
#include "engine/dynamics/linearize.h"

namespace ek {
namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point& t0) {
  const auto t1 = Clock::now();
  const double s = std::chrono::duration<double>(t1 - t0).count();
  t0 = t1;
  return s;
}
}  // namespace

Lsrt2::Lsrt2(const SuspensionModel& model, Lsrt2Options options, std::unique_ptr<LinearSolver> solver)
    : model_(model), options_(options), solver_(std::move(solver)) {
  const int n = model.nDof(), m = model.nFreeBodies(), nu = model.nInputs();
  for (VecX* v : {&rLin_, &vLin_, &rBar_, &vBar_, &G_, &y_, &rhs_, &dr1_, &dv1_, &dr2_, &dv2_, &tmp_})
    v->setZero(n);
  for (VecX* v : {&uLin_, &uK_, &uNext_, &uHalf_, &uDot_, &uBar_, &udLin_, &udK_, &udNext_, &udHalf_, &udBar_})
    v->setZero(nu);
  P_.assign(m, Mat3::Identity());
  Kt_.assign(m, Mat3::Identity());
  A_.assign(model.pattern.nBlocks(), Mat6::Zero());
}

void Lsrt2::relinearize(const State& state, Workspace& ws) {
  auto t0 = Clock::now();
  linearize(model_, state, uLin_, udLin_, ws);
  if (timing_) times_.linearize += since(t0);
  rLin_ = state.r;
  vLin_ = state.v;
  const double hg = options_.dt * kGamma;
  for (int l = 0; l < model_.nFreeBodies(); ++l) {
    P_[l] = options_.kinematicsDerivative ? Mat3((Mat3::Identity() - hg * ws.N[l]).inverse()) : Mat3::Identity();
    Kt_[l] = P_[l] * ws.Kinv[l];
  }
  // A = M - dt gamma J_v - (dt gamma)^2 J_r Kt   (paper 003 eq. 19)
  const BlockPattern& bp = model_.pattern;
  for (int l = 0; l < bp.nBodies; ++l) {
    for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s) {
      const Mat6& Jr = ws.Jr[s];
      Mat6& A = A_[s];
      A = -hg * ws.Jv[s];
      A.leftCols<3>() -= hg * hg * Jr.leftCols<3>();
      A.rightCols<3>() -= hg * hg * Jr.rightCols<3>() * Kt_[bp.col[s]];
    }
    const ModelBody& body = model_.bodies[model_.freeBodies[l]];
    Mat6& D = A_[bp.diag[l]];
    D.topLeftCorner<3, 3>().diagonal().array() += body.mass;
    D.bottomRightCorner<3, 3>() += body.inertia;
  }
  if (timing_) times_.assemble += since(t0);
  solver_->factorize(A_);
  if (timing_) {
    times_.factorize += since(t0);
    ++times_.linearizations;
  }
}

void Lsrt2::stage(const VecX& rbar, const VecX& vbar, const VecX& ubar, const VecX& udotbar, bool atLinearization,
                  const Workspace& ws, VecX& dr, VecX& dv) {
  // At the linearization point, rbar - r_lin and vbar - v_lin are exactly zero: their products
  // are left out (adding them would add exact zeros).
  const double hg = options_.dt * kGamma;
  for (int l = 0; l < model_.nFreeBodies(); ++l) {
    G_.segment<3>(6 * l) = vbar.segment<3>(6 * l);
    Vec3 g = ws.Kinv[l] * vbar.segment<3>(6 * l + 3);
    if (options_.kinematicsDerivative && !atLinearization)
      g += ws.N[l] * (rbar.segment<3>(6 * l + 3) - rLin_.segment<3>(6 * l + 3));
    G_.segment<3>(6 * l + 3) = P_[l] * g;
  }
  if (atLinearization) y_ = hg * G_;
  else y_ = rbar - rLin_ + hg * G_;
  rhs_ = ws.h;
  blockMultiplyAdd(model_.pattern, ws.Jr, y_, rhs_);
  if (!atLinearization) {
    tmp_ = vbar - vLin_;
    blockMultiplyAdd(model_.pattern, ws.Jv, tmp_, rhs_);
  }
  uDot_ = ubar - uLin_;  // reused as scratch: u_dot is not needed after u_bar is formed
  rhs_.noalias() += ws.Ju * uDot_;
  if (model_.hasMotionInputs()) {
    uDot_ = udotbar - udLin_;
    rhs_.noalias() += ws.Judot * uDot_;
  }
  auto t0 = Clock::now();
  solver_->solve(rhs_, dv);
  if (timing_) times_.solve += since(t0);
  for (int l = 0; l < model_.nFreeBodies(); ++l) {
    dr.segment<3>(6 * l) = G_.segment<3>(6 * l) + hg * dv.segment<3>(6 * l);
    dr.segment<3>(6 * l + 3) = G_.segment<3>(6 * l + 3) + hg * Kt_[l] * dv.segment<3>(6 * l + 3);
  }
}

void Lsrt2::step(State& state, const InputSignals& inputs, Workspace& ws) {
  const auto start = Clock::now();
  const PhaseTimes before = times_;
  const double dt = options_.dt, t = state.t;
  linearizedLast_ = steps_ % options_.linearizeEvery == 0;
  if (linearizedLast_) {
    inputs.evaluate(t, uLin_);
    if (model_.hasMotionInputs()) inputs.evaluateRate(t, udLin_);
    relinearize(state, ws);
  }
  // u_dot ~ (u(t + dt) - u(t)) / dt (eq. 12); u_bar_1 = u(t) + dt gamma u_dot, u_bar_2 = u(t + dt/2)
  // because gamma21 + gamma22 = 0 (eq. 16c).
  inputs.evaluate(t, uK_);
  inputs.evaluate(t + dt, uNext_);
  inputs.evaluate(t + 0.5 * dt, uHalf_);
  uBar_ = uK_ + kGamma * (uNext_ - uK_);
  if (model_.hasMotionInputs()) {  // the rates of driven bodies take the same stage values
    inputs.evaluateRate(t, udK_);
    inputs.evaluateRate(t + dt, udNext_);
    inputs.evaluateRate(t + 0.5 * dt, udHalf_);
    udBar_ = udK_ + kGamma * (udNext_ - udK_);
  }
  stage(state.r, state.v, uBar_, udBar_, linearizedLast_, ws, dr1_, dv1_);
  const double c = dt * (0.5 - kGamma);  // dt (a21 + gamma21), eq. (16a/b)
  rBar_ = state.r + c * dr1_;
  vBar_ = state.v + c * dv1_;
  stage(rBar_, vBar_, uHalf_, udHalf_, false, ws, dr2_, dv2_);
  state.r += dt * dr2_;  // b = (0, 1), eq. (10)
  state.v += dt * dv2_;
  state.t = t + dt;
  ++steps_;
  if (timing_) {
    const double total = std::chrono::duration<double>(Clock::now() - start).count();
    times_.other += total - (times_.linearize - before.linearize) - (times_.assemble - before.assemble) -
                    (times_.factorize - before.factorize) - (times_.solve - before.solve);
    ++times_.steps;
  }
}

std::string Lsrt2::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "LSRT2, dt = %g s, linearized every %d step(s), %s solver%s", options_.dt,
                options_.linearizeEvery, solver_->name().c_str(),
                options_.kinematicsDerivative ? "" : ", frozen kinematics (papers' K_lin)");
  return buf;
}

}  // namespace ek
