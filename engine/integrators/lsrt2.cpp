// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/lsrt2.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include "engine/core/text.h"
#include "engine/core/time_grid.h"
#include "engine/dynamics/linearize.h"

namespace ek {

Lsrt2::Lsrt2(const SuspensionModel& model, Lsrt2Options options, std::unique_ptr<LinearSolver> solver)
    : model_(model), options_(options), system_(model, std::move(solver), options.kinematicsDerivative),
      runner_(std::make_unique<SerialStageRunner>(model)) {
  if (!(options_.dt > 0.0)) throw std::invalid_argument("the step dt must be positive");
  if (options_.linearizeEvery < 1) throw std::invalid_argument("--lin-every must be at least 1");
  const int n = model.nDof(), nu = model.nInputs();
  for (VecX* v : {&rLin_, &vLin_, &rBar_, &vBar_, &dr1_, &dv1_, &dr2_, &dv2_, &Rr_, &dr0_, &dv0_, &q_}) v->setZero(n);
  for (VecX* v : {&uLin_, &uK_, &uNext_, &uHalf_, &uDot_, &udDiff_, &uBar_, &udLin_, &udK_, &udNext_, &udHalf_, &udBar_})
    v->setZero(nu);
  const int nz = model.nElementStates(), nd = static_cast<int>(model.branchDirections.size());
  for (VecX* v : {&zLin_, &zBar_, &dz1_, &dz2_}) v->setZero(nz);
  for (VecX* v : {&rateLin_, &branchForce_, &branchRate_, &branchDeflection_}) v->setZero(nd);
}

Lsrt2::~Lsrt2() = default;

void Lsrt2::stage(const VecX& rbar, const VecX& vbar, const VecX& zbar, const VecX& ubar, const VecX& udotbar,
                  StageProducts products, const Workspace& ws, VecX& dr, VecX& dv, VecX& dz) {
  // At the linearization point, rbar - r_lin and vbar - v_lin are exactly zero: their products
  // are left out (adding them would add exact zeros). After a first stage there, the second
  // stage's c (J_r dr1 + J_v dv1) is c (M dv1 - q1) / hg by the first stage's equation, which
  // leaves J_r (hg G) as the only product (docs/method.md, "LSRT2's second stage").
  const double hg = options_.dt * kGamma;
  const bool motion = model_.hasMotionInputs();
  const bool general = products == StageProducts::General;
  const bool withN = options_.kinematicsDerivative && products != StageProducts::AtLinearization;
  const double cOverHg = options_.dt * (0.5 - kGamma) / hg;  // c = dt (a21 + gamma21), step()
  uDot_ = ubar - uLin_;
  if (motion) udDiff_ = udotbar - udLin_;
  runner_->forRows([&](const std::vector<int>& rows) {
    for (int l : rows) {
      // R_r = K_lin vbar + N (rbar - r_lin); the offsets; b.
      Rr_.segment<3>(6 * l) = vbar.segment<3>(6 * l);
      Rr_.segment<3>(6 * l + 3) = ws.Kinv[l] * vbar.segment<3>(6 * l + 3);
      if (withN) Rr_.segment<3>(6 * l + 3) += ws.N[l] * (rbar.segment<3>(6 * l + 3) - rLin_.segment<3>(6 * l + 3));
      if (general) {
        dr0_.segment<6>(6 * l) = rbar.segment<6>(6 * l) - rLin_.segment<6>(6 * l);
        dv0_.segment<6>(6 * l) = vbar.segment<6>(6 * l) - vLin_.segment<6>(6 * l);
      }
      if (products == StageProducts::FromFirstStage) {
        const ModelBody& body = model_.bodies[model_.freeBodies[l]];
        const Vec6 q1 = q_.segment<6>(6 * l);
        q_.segment<3>(6 * l) = ws.h.segment<3>(6 * l) + cOverHg * (body.mass * dv1_.segment<3>(6 * l) - q1.head<3>());
        q_.segment<3>(6 * l + 3) =
            ws.h.segment<3>(6 * l + 3) + cOverHg * (body.inertia * dv1_.segment<3>(6 * l + 3) - q1.tail<3>());
      } else {
        q_.segment<6>(6 * l) = ws.h.segment<6>(6 * l);
      }
      inputMultiplyAddRow(model_, ws, l, uDot_, udDiff_, motion, q_);
      system_.stageRow(l, Rr_, general ? &dr0_ : nullptr);
    }
  });
  const bool branches = model_.nElementStates() > 0;
  if (branches) branchForcesOfStage(zbar, hg, ws);  // into q_, on this thread
  runner_->solve(
      [&](const std::vector<int>& rows) {
        for (int l : rows) system_.rhsRow(ws, l, q_, general ? &dv0_ : nullptr);
      },
      system_, dv,
      [&](const std::vector<int>& rows) {
        for (int l : rows) system_.finishRow(l, dv, dr);
      });
  if (branches) branchIncrements(rbar, vbar, zbar, dr, dv, hg, ws, dz);
}

// The branch rows of the stage, eliminated (docs/method.md, "Maxwell branches"): per branch
//   dz_i (1 + g l_i s) = q_lin + G_r (rbar - r_lin + g dr) + G_v (vbar - v_lin + g dv) - l_i s zbar_i
//                        - l_i s' z_lin,i D (rbar - r_lin + g dr),
// l_i = k_i / c_i, g = h gamma, s and s' the slope scaling at the linearization (1 and 0 when
// unscaled). A (from the linearization with LinearizeOptions::branchStageGain = g) holds the
// terms in dv; the rest enters the right-hand side as the force change sum_i k_i s (zbar_i -
// z_lin,i + g (q_lin - l_i s zbar_i) / (1 + g l_i s)) plus the parts through J_r y and J_v
// (vbar - v_lin).
void Lsrt2::branchForcesOfStage(const VecX& zbar, double hg, const Workspace& ws) {
  for (std::size_t d = 0; d < model_.branchDirections.size(); ++d) {
    const ModelBranchDirection& dir = model_.branchDirections[d];
    const double sc = ws.branches[d].scale;
    double f = 0.0;
    for (std::size_t i = 0; i < dir.branches.size(); ++i) {
      const MaxwellBranch& b = dir.branches[i];
      const int s = dir.first + static_cast<int>(i);
      const double l = b.lambda() * sc;
      f += b.k * sc * (zbar[s] - zLin_[s] + hg * (rateLin_[d] - l * zbar[s]) / (1.0 + hg * l));
    }
    branchForce_[d] = f;
  }
  addBranchForces(ws, branchForce_, q_);
}

void Lsrt2::branchIncrements(const VecX& rbar, const VecX& vbar, const VecX& zbar, const VecX& dr, const VecX& dv,
                             double hg, const Workspace& ws, VecX& dz) {
  dr0_ = rbar - rLin_ + hg * dr;  // dr0_ and dv0_ are free after the solve
  dv0_ = vbar - vLin_ + hg * dv;
  branchRate_ = rateLin_;
  addBranchRateChanges(ws, dr0_, dv0_, branchRate_);
  if (model_.hasMotionInputs()) addBranchInputRateChanges(model_, ws, uDot_, udDiff_, branchRate_);
  branchDeflection_.setZero();
  addBranchDeflectionChanges(model_, ws, dr0_, uDot_, branchDeflection_);
  eliminatedBranchIncrements(model_, ws, nullptr, branchRate_, &zbar, zLin_, branchDeflection_, hg, dz);
}

void Lsrt2::step(State& state, const InputSignals& inputs, Workspace& ws) {
  const auto start = std::chrono::steady_clock::now();
  if (state.z.size() != model_.nElementStates()) state.z = model_.relaxedElementStates();
  const PhaseTimes before = runner_->phaseTimes();
  const double dt = options_.dt, t = state.t;
  linearizedLast_ = steps_ % options_.linearizeEvery == 0;
  if (linearizedLast_) {
    inputs.evaluate(t, uLin_);
    if (model_.hasMotionInputs()) inputs.evaluateRate(t, udLin_);
    // The Maxwell branches eliminated from A (docs/method.md); no J_r, J_v: A and the stage
    // products come from the world-wrench partials (stage_system.h).
    system_.beginAssembly(dt * kGamma);
    runner_->linearizeAndFactorize(state, uLin_, udLin_, ws, LinearizeOptions{false, dt * kGamma}, system_);
    rLin_ = state.r;
    vLin_ = state.v;
    if (model_.nElementStates() > 0) {
      zLin_ = state.z;
      branchRates(model_, ws, rateLin_);
    }
  }
  // u_dot ~ (u(t + dt) - u(t)) / dt (eq. 12); u_bar_1 = u(t) + dt gamma u_dot, u_bar_2 = u(t + dt/2)
  // because gamma21 + gamma22 = 0 (eq. 16c).
  inputs.evaluate(t, uK_);
  const double tNext = gridTime(t, dt, 1.0), tHalf = gridTime(t, dt, 0.5);
  inputs.evaluate(tNext, uNext_);
  inputs.evaluate(tHalf, uHalf_);
  uBar_ = uK_ + kGamma * (uNext_ - uK_);
  if (model_.hasMotionInputs()) {  // the rates of driven bodies take the same stage values
    inputs.evaluateRate(t, udK_);
    inputs.evaluateRate(tNext, udNext_);
    inputs.evaluateRate(tHalf, udHalf_);
    udBar_ = udK_ + kGamma * (udNext_ - udK_);
  }
  stage(state.r, state.v, state.z, uBar_, udBar_,
        linearizedLast_ ? StageProducts::AtLinearization : StageProducts::General, ws, dr1_, dv1_, dz1_);
  const double c = dt * (0.5 - kGamma);  // dt (a21 + gamma21), eq. (16a/b)
  rBar_ = state.r + c * dr1_;
  vBar_ = state.v + c * dv1_;
  if (model_.nElementStates() > 0) zBar_ = state.z + c * dz1_;
  const bool fromFirst = options_.secondStageFromFirst && linearizedLast_ && model_.nElementStates() == 0;
  stage(rBar_, vBar_, zBar_, uHalf_, udHalf_, fromFirst ? StageProducts::FromFirstStage : StageProducts::General, ws,
        dr2_, dv2_, dz2_);
  state.r += dt * dr2_;  // b = (0, 1), eq. (10)
  state.v += dt * dv2_;
  if (model_.nElementStates() > 0) state.z += dt * dz2_;
  // Embedded first-order solution b^ = (1, 0): local error estimate dt (k_2 - k_1).
  rBar_ = dt * (dr2_ - dr1_);  // the stage buffers are free after stage 2
  vBar_ = dt * (dv2_ - dv1_);
  error_ = largestPerKind(model_.nFreeBodies(), rBar_, vBar_);
  state.t = tNext;
  ++steps_;
  if (runner_->timing()) {
    PhaseTimes& times = runner_->phaseTimes();
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    times.other += total - (times.linearize - before.linearize) - (times.assemble - before.assemble) -
                   (times.factorize - before.factorize) - (times.solve - before.solve);
    ++times.steps;
  }
}

void Lsrt2::shortStep(double h, State& state, const InputSignals& inputs, Workspace& ws) {
  // The step reads dt from the options: the same step with h, linearized and factorized at its
  // start (A holds dt gamma); the matrix of the grid's dt is made again by the next step.
  withShortStep(h, options_.dt, steps_, [&] { step(state, inputs, ws); });
}

std::string Lsrt2::describe() const {
  char buf[160];
  const int threads = runner_->threads();
  ek::csnprintf(buf, sizeof buf, "LSRT2, dt = %g s, linearized every %d step(s), %s solver%s%s", options_.dt,
                options_.linearizeEvery, system_.solver().name().c_str(),
                options_.kinematicsDerivative ? "" : ", frozen kinematics (papers' K_lin)",
                threads > 1 ? (", " + std::to_string(threads) + " threads").c_str() : "");
  return buf;
}

}  // namespace ek
