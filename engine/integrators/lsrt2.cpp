// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/lsrt2.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>

#include "engine/core/error.h"
#include "engine/core/time_grid.h"
#include "engine/dynamics/linearize.h"
#include "engine/integrators/stage_system.h"
#include "engine/solvers/topology_solver.h"
#include "engine/core/text.h"

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
  for (VecX* v : {&rLin_, &vLin_, &rBar_, &vBar_, &G_, &y_, &rhs_, &dr1_, &dv1_, &dr2_, &dv2_, &tmp_, &yW_, &q_})
    v->setZero(n);
  for (VecX* v : {&uLin_, &uK_, &uNext_, &uHalf_, &uDot_, &udDiff_, &uBar_, &udLin_, &udK_, &udNext_, &udHalf_, &udBar_})
    v->setZero(nu);
  const int nz = model.nElementStates(), nd = static_cast<int>(model.branchDirections.size());
  for (VecX* v : {&zLin_, &zBar_, &dz1_, &dz2_}) v->setZero(nz);
  for (VecX* v : {&rateLin_, &branchForce_, &branchRate_, &branchDeflection_}) v->setZero(nd);
  P_.assign(m, Mat3::Identity());
  Kt_.assign(m, Mat3::Identity());
  RTKt_.assign(m, Mat3::Identity());
  inPlace_ = solver_->blockStorage(0) != nullptr;
  if (!inPlace_) A_.assign(model.pattern.nBlocks(), Mat6::Zero());
  for (int s = 0; s < model.pattern.nBlocks(); ++s) Aslot_.push_back(inPlace_ ? solver_->blockStorage(s) : &A_[s]);
  if (options_.threads < 1) throw std::invalid_argument("the number of threads must be at least 1");
  if (options_.threads > 1) {
    // Every stage by the solver's subtrees (parallel_step.h).
    parallel_ = std::make_unique<ParallelStep>(model, options_.threads, *solver_);
    for (int t = 0; t < parallel_->threads(); ++t) rows_.push_back(parallel_->rowsOf(t));
  } else {
    rows_.emplace_back(m);
    std::iota(rows_[0].begin(), rows_[0].end(), 0);
  }
}

Lsrt2::~Lsrt2() = default;

template <class RowFn>
void Lsrt2::forRows(const std::vector<std::vector<int>>& rows, RowFn&& f) {
  if (!parallel_) {
    for (int l = 0, m = model_.nFreeBodies(); l < m; ++l) f(l);
    return;
  }
  auto job = [&](int t) {
    for (int l : rows[t]) f(l);
  };
  parallel_->run(job);
}

void Lsrt2::relinearize(const State& state, Workspace& ws) {
  auto t0 = Clock::now();
  const double hg = options_.dt * kGamma;
  // The Maxwell branches eliminated from A (docs/method.md); no J_r, J_v: A and the stage
  // products are built from the world-wrench partials (stage_system.h).
  const LinearizeOptions options{false, hg};
  if (parallel_) {
    // The bodies' stage kinematics and the rows of A inside the linearization's regions.
    struct StageRows final : RowWork {
      Lsrt2& self;
      const Workspace& ws;
      double hg;
      StageRows(Lsrt2& s, const Workspace& w, double g) : self(s), ws(w), hg(g) {}
      void body(int l) override { self.stageKinematicsOfBody(ws, l, hg); }
      void row(int l) override {
        assembleStageMatrixRowFromWrenches(self.model_, ws, l, hg, hg * hg, self.RTKt_, self.Aslot_.data());
      }
    } work(*this, ws, hg);
    parallel_->linearize(state, uLin_, udLin_, ws, options, &work);
  } else {
    linearize(model_, state, uLin_, udLin_, ws, options);
  }
  if (timing_) times_.linearize += since(t0);
  rLin_ = state.r;
  vLin_ = state.v;
  if (model_.nElementStates() > 0) {
    zLin_ = state.z;
    branchRates(model_, ws, rateLin_);
  }
  if (!parallel_) {
    for (int l = 0, m = model_.nFreeBodies(); l < m; ++l) stageKinematicsOfBody(ws, l, hg);
    for (int l = 0, m = model_.nFreeBodies(); l < m; ++l)
      assembleStageMatrixRowFromWrenches(model_, ws, l, hg, hg * hg, RTKt_, Aslot_.data());
  }
  if (timing_) times_.assemble += since(t0);
  if (inPlace_ && parallel_) parallel_->factorizeInPlace();
  else if (inPlace_) solver_->factorizeInPlace();
  else solver_->factorize(A_);
  if (timing_) {
    times_.factorize += since(t0);
    ++times_.linearizations;
  }
}

void Lsrt2::stageKinematicsOfBody(const Workspace& ws, int l, double hg) {
  stageKinematics(ws.bodies[model_.freeBodies[l]], hg, options_.kinematicsDerivative, P_[l], Kt_[l], RTKt_[l]);
}

void Lsrt2::stage(const VecX& rbar, const VecX& vbar, const VecX& zbar, const VecX& ubar, const VecX& udotbar,
                  StageProducts products, const Workspace& ws, VecX& dr, VecX& dv, VecX& dz) {
  // At the linearization point, rbar - r_lin and vbar - v_lin are exactly zero: their products
  // are left out (adding them would add exact zeros). After a first stage there, the second
  // stage's c (J_r dr1 + J_v dv1) is c (M dv1 - q1) / hg by the first stage's equation, which
  // leaves J_r (hg G) as the only product (docs/method.md, "LSRT2's second stage"). Everything
  // is computed by body rows, on the pool's threads in the parallel step (the same operations as
  // on one thread); the rows go to A's world-torque rows last (torqueRowToWorld()).
  const double hg = options_.dt * kGamma;
  const bool motion = model_.hasMotionInputs();
  const bool general = products == StageProducts::General;
  const double cOverHg = options_.dt * (0.5 - kGamma) / hg;  // c = dt (a21 + gamma21), step()
  uDot_ = ubar - uLin_;
  if (motion) udDiff_ = udotbar - udLin_;
  forRows(rows_, [&](int l) {
    G_.segment<3>(6 * l) = vbar.segment<3>(6 * l);
    Vec3 g = ws.Kinv[l] * vbar.segment<3>(6 * l + 3);
    if (options_.kinematicsDerivative && products != StageProducts::AtLinearization)
      g += ws.N[l] * (rbar.segment<3>(6 * l + 3) - rLin_.segment<3>(6 * l + 3));
    G_.segment<3>(6 * l + 3) = P_[l] * g;
    if (general) {
      y_.segment<6>(6 * l) = rbar.segment<6>(6 * l) - rLin_.segment<6>(6 * l) + hg * G_.segment<6>(6 * l);
      tmp_.segment<6>(6 * l) = vbar.segment<6>(6 * l) - vLin_.segment<6>(6 * l);
    } else {
      y_.segment<6>(6 * l) = hg * G_.segment<6>(6 * l);
    }
    toWrenchCoordinatesRow(model_, ws, l, y_, yW_);
  });
  auto rhsRow = [&](int l) {
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
    stageProductRow(model_, ws, l, yW_, general ? &tmp_ : nullptr, q_, rhs_);
  };
  auto toWorld = [&](int l) { torqueRowToWorld(model_, ws, l, rhs_); };
  auto drRow = [&](int l) {
    dr.segment<3>(6 * l) = G_.segment<3>(6 * l) + hg * dv.segment<3>(6 * l);
    dr.segment<3>(6 * l + 3) = G_.segment<3>(6 * l + 3) + hg * Kt_[l] * dv.segment<3>(6 * l + 3);
  };
  const bool branches = model_.nElementStates() > 0;
  Clock::time_point t0;
  if (!parallel_) {
    for (int l = 0, m = model_.nFreeBodies(); l < m; ++l) rhsRow(l);
    if (branches) branchForcesOfStage(zbar, hg, ws);
    for (int l = 0, m = model_.nFreeBodies(); l < m; ++l) toWorld(l);
    t0 = Clock::now();
    solver_->solve(rhs_, dv);
    if (timing_) times_.solve += since(t0);
    for (int l : rows_[0]) drRow(l);
    if (branches) branchIncrements(rbar, vbar, zbar, dr, dv, hg, ws, dz);
    return;
  }
  TopologySolver* const topology = parallel_->topology();
  if (branches) {
    // The branch forces reach rows of other threads: the rows first, the forces on one thread,
    // then the forward substitution (one more handoff, only with branches).
    auto rowsJob = [&](int t) {
      for (int l : rows_[t]) rhsRow(l);
    };
    parallel_->run(rowsJob);
    branchForcesOfStage(zbar, hg, ws);
    auto forwardOnly = [&](int t) {
      for (int l : rows_[t]) toWorld(l);
      if (topology) topology->forwardSubtrees(t, rhs_);
    };
    parallel_->run(forwardOnly);
  } else {
    auto forwardJob = [&](int t) {
      for (int l : rows_[t]) rhsRow(l), toWorld(l);
      if (topology) topology->forwardSubtrees(t, rhs_);
    };
    parallel_->run(forwardJob);
  }
  t0 = Clock::now();
  if (topology) topology->solveSeparator(rhs_, dv);
  else solver_->solve(rhs_, dv);
  if (timing_) times_.solve += since(t0);
  auto backJob = [&](int t) {
    if (topology) topology->backSubstituteSubtrees(t, dv);
    for (int l : rows_[t]) drRow(l);
  };
  parallel_->run(backJob);
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
  addBranchForces(ws, branchForce_, rhs_);
}

void Lsrt2::branchIncrements(const VecX& rbar, const VecX& vbar, const VecX& zbar, const VecX& dr, const VecX& dv,
                             double hg, const Workspace& ws, VecX& dz) {
  y_ = rbar - rLin_ + hg * dr;  // y_ and tmp_ are free after the solve
  tmp_ = vbar - vLin_ + hg * dv;
  branchRate_ = rateLin_;
  addBranchRateChanges(ws, y_, tmp_, branchRate_);
  if (model_.hasMotionInputs()) addBranchInputRateChanges(model_, ws, uDot_, udDiff_, branchRate_);
  branchDeflection_.setZero();
  addBranchDeflectionChanges(model_, ws, y_, uDot_, branchDeflection_);
  eliminatedBranchIncrements(model_, ws, nullptr, branchRate_, &zbar, zLin_, branchDeflection_, hg, dz);
}

void Lsrt2::step(State& state, const InputSignals& inputs, Workspace& ws) {
  const auto start = Clock::now();
  if (state.z.size() != model_.nElementStates()) state.z = model_.relaxedElementStates();
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
  if (timing_) {
    const double total = std::chrono::duration<double>(Clock::now() - start).count();
    times_.other += total - (times_.linearize - before.linearize) - (times_.assemble - before.assemble) -
                    (times_.factorize - before.factorize) - (times_.solve - before.solve);
    ++times_.steps;
  }
}

std::string Lsrt2::describe() const {
  char buf[160];
  ek::csnprintf(buf, sizeof buf, "LSRT2, dt = %g s, linearized every %d step(s), %s solver%s%s", options_.dt,
                options_.linearizeEvery, solver_->name().c_str(),
                options_.kinematicsDerivative ? "" : ", frozen kinematics (papers' K_lin)",
                options_.threads > 1 ? (", " + std::to_string(options_.threads) + " threads").c_str() : "");
  return buf;
}

}  // namespace ek
