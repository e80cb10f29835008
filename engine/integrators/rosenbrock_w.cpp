// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/rosenbrock_w.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "engine/core/time_grid.h"
#include "engine/dynamics/linearize.h"
#include "engine/core/text.h"

namespace ek {

const WTableau& linearImplicitEulerTableau() {
  static const WTableau t{"lie", "linear-implicit Euler", 1, 1, 1.0, {0.0}, {1.0}, {1.0}, {}};
  return t;
}

const WTableau& ros34pw2Tableau() {
  // Rang and Angermann, BIT Numerical Mathematics 45 (2005) 761-787, method ROS34PW2.
  static const WTableau t{
      "ros34pw2",
      "ROS34PW2 (W-method, order 3)",
      4,
      3,
      4.3586652150845900e-01,
      {0.0, 0.0, 0.0, 0.0,                                            //
       8.7173304301691801e-01, 0.0, 0.0, 0.0,                         //
       8.4457060015369423e-01, -1.1299064236484185e-01, 0.0, 0.0,     //
       0.0, 0.0, 1.0, 0.0},
      {4.3586652150845900e-01, 0.0, 0.0, 0.0,                                                  //
       -8.7173304301691801e-01, 4.3586652150845900e-01, 0.0, 0.0,                              //
       -9.0338057013044082e-01, 5.4180672388095326e-02, 4.3586652150845900e-01, 0.0,           //
       2.4212380706095346e-01, -1.2232505839045147e+00, 5.4526025533510214e-01, 4.3586652150845900e-01},
      {2.4212380706095346e-01, -1.2232505839045147e+00, 1.5452602553351020e+00, 4.3586652150845900e-01},
      {3.7810903145819369e-01, -9.6042292212423178e-02, 5.0000000000000000e-01, 2.1793326075422950e-01}};
  return t;
}

const WTableau* findWTableau(const std::string& name) {
  if (name == "lie") return &linearImplicitEulerTableau();
  if (name == "ros34pw2") return &ros34pw2Tableau();
  return nullptr;
}

RosenbrockW::RosenbrockW(const SuspensionModel& model, const WTableau& tableau, RosenbrockWOptions options,
                         std::unique_ptr<LinearSolver> solver)
    : model_(model), tableau_(tableau), options_(options),
      system_(model, std::move(solver), options.kinematicsDerivative) {
  if (!(options_.dt > 0.0)) throw std::invalid_argument("the step dt must be positive");
  if (options_.linearizeEvery < 1) throw std::invalid_argument("--lin-every must be at least 1");
  const int s = tableau.stages;
  // Gamma^-1 by forward substitution (Gamma is lower triangular with gamma on the diagonal).
  std::vector<double> gi(s * s, 0.0);
  auto G = [&](int i, int j) { return tableau.gammas[i * s + j]; };
  for (int j = 0; j < s; ++j) {
    gi[j * s + j] = 1.0 / G(j, j);
    for (int i = j + 1; i < s; ++i) {
      double sum = 0.0;
      for (int k = j; k < i; ++k) sum += G(i, k) * gi[k * s + j];
      gi[i * s + j] = -sum / G(i, i);
    }
  }
  a_.assign(s * s, 0.0);
  c_.assign(s * s, 0.0);
  m_.assign(s, 0.0);
  e_.assign(s, 0.0);
  alphaSum_.assign(s, 0.0);
  gammaSum_.assign(s, 0.0);
  for (int i = 0; i < s; ++i) {
    for (int j = 0; j < s; ++j) {
      for (int k = 0; k < s; ++k) a_[i * s + j] += tableau.alpha[i * s + k] * gi[k * s + j];
      if (j < i) c_[i * s + j] = -gi[i * s + j];
      alphaSum_[i] += tableau.alpha[i * s + j];
      gammaSum_[i] += G(i, j);
    }
    for (int k = 0; k < s; ++k) {
      m_[i] += tableau.b[k] * gi[k * s + i];
      if (!tableau.bHat.empty()) e_[i] += (tableau.b[k] - tableau.bHat[k]) * gi[k * s + i];
    }
  }
  const int n = model.nDof(), nu = model.nInputs();
  Y_.r.setZero(n);
  Y_.v.setZero(n);
  for (VecX* v : {&hY_, &rDotY_, &Rr_, &MRv_, &sum_}) v->setZero(n);
  for (VecX* v : {&uStart_, &udStart_, &uEnd_, &udEnd_, &uI_, &udI_, &du_, &dud_, &duStage_, &dudStage_})
    v->setZero(nu);
  Ur_.assign(s, VecX::Zero(n));
  Uv_.assign(s, VecX::Zero(n));
  const int nz = model.nElementStates(), nd = static_cast<int>(model.branchDirections.size());
  Y_.z.setZero(nz);
  for (VecX* v : {&zLin_, &zDotY_, &Rz_}) v->setZero(nz);
  for (VecX* v : {&branchForce_, &branchRate_, &branchDeflection_}) v->setZero(nd);
  for (VecX* v : {&hgUr_, &hgUv_}) v->setZero(nz > 0 ? n : 0);
  Uz_.assign(s, VecX::Zero(nz));
}

void RosenbrockW::step(State& state, const InputSignals& inputs, Workspace& ws) {
  const double h = options_.dt, t = state.t, hg = h * tableau_.gamma;
  const int s = tableau_.stages, m = model_.nFreeBodies();
  const bool motion = model_.hasMotionInputs();
  const bool linearizes = steps_ % options_.linearizeEvery == 0;
  // The inputs inside the step [t, t + h): at its end their limit from the left, so that a jump
  // at a grid time (a step input) acts from that time on, as in the CVODE reference, and not one
  // step early through the last stage and f_t.
  const double tNext = gridTime(t, h, 1.0), tEnd = std::nextafter(tNext, t);
  inputs.evaluate(t, uStart_);
  inputs.evaluate(tEnd, uEnd_);
  if (motion) {
    inputs.evaluateRate(t, udStart_);
    inputs.evaluateRate(tEnd, udEnd_);
  }
  const bool branches = model_.nElementStates() > 0;
  if (linearizes) {
    // The Maxwell branches eliminated from the stage matrix.
    linearize(model_, state, uStart_, udStart_, ws, LinearizeOptions{false, hg});
    system_.factorize(ws, hg);
    if (branches) zLin_ = state.z;
    ++rhsEvaluations_;
  }
  // f_t ~ (J_u du + J_udot dud) / h over the step, scaled per stage below.
  du_ = uEnd_ - uStart_;
  if (motion) dud_ = udEnd_ - udStart_;
  for (int i = 0; i < s; ++i) {
    Y_.r = state.r;
    Y_.v = state.v;
    if (branches) Y_.z = state.z;
    for (int j = 0; j < i; ++j)
      if (const double a = a_[i * s + j]; a != 0.0) {
        Y_.r += a * Ur_[j];
        Y_.v += a * Uv_[j];
        if (branches) Y_.z += a * Uz_[j];
      }
    if (i == 0 && linearizes) {
      hY_ = ws.h;  // f(t, y) came with the linearization
      kinematicRates(model_, ws, state.v, rDotY_);
    } else {
      const VecX* u = &uStart_;
      const VecX* ud = &udStart_;
      Y_.t = t;
      if (alphaSum_[i] >= 1.0) {
        u = &uEnd_, ud = &udEnd_;
        Y_.t = tEnd;
      } else if (alphaSum_[i] > 0.0) {
        Y_.t = gridTime(t, h, alphaSum_[i]);
        inputs.evaluate(Y_.t, uI_);
        if (motion) inputs.evaluateRate(Y_.t, udI_);
        u = &uI_, ud = &udI_;
      }
      evaluateRhs(model_, Y_, *u, *ud, ws, hY_, rDotY_);
      ++rhsEvaluations_;
    }
    if (branches) branchStateRates(model_, ws, Y_.z, zDotY_);
    // R_r = hg (r' + sum_j c_ij/h U_r,j),  M R_v = hg (h + M sum_j c_ij/h U_v,j + gamma_i h f_t)
    Rr_ = rDotY_;
    sum_.setZero();
    for (int j = 0; j < i; ++j)
      if (const double c = c_[i * s + j] / h; c != 0.0) {
        Rr_ += c * Ur_[j];
        sum_ += c * Uv_[j];
      }
    Rr_ *= hg;
    massTimes(model_, sum_, MRv_);
    MRv_ += hY_;
    MRv_ *= hg;
    const bool ft = gammaSum_[i] != 0.0 && model_.nInputs() > 0;
    if (ft) {
      const double f = hg * gammaSum_[i];
      duStage_ = f * du_;
      if (motion) dudStage_ = f * dud_;
      for (int l = 0; l < m; ++l) inputMultiplyAddRow(model_, ws, l, duStage_, dudStage_, motion, MRv_);
    } else if (branches && model_.nInputs() > 0) {
      duStage_.setZero();
      if (motion) dudStage_.setZero();
    }
    if (branches) {  // R_z = hg (z' + sum_j c_ij/h U_z,j), and its force in the v rows
      Rz_ = zDotY_;
      for (int j = 0; j < i; ++j)
        if (const double c = c_[i * s + j] / h; c != 0.0) Rz_ += c * Uz_[j];
      Rz_ *= hg;
      branchForcesOfStage(hg, ws);
    }
    system_.solve(ws, Rr_, MRv_, Ur_[i], Uv_[i]);
    if (branches) branchStage(i, hg, ws);
  }
  for (int j = 0; j < s; ++j) {
    state.r += m_[j] * Ur_[j];
    state.v += m_[j] * Uv_[j];
    if (branches) state.z += m_[j] * Uz_[j];
  }
  if (!tableau_.bHat.empty()) {  // the stage buffers are free now
    Rr_.setZero();
    sum_.setZero();
    for (int j = 0; j < s; ++j) {
      Rr_ += e_[j] * Ur_[j];
      sum_ += e_[j] * Uv_[j];
    }
    error_ = largestPerKind(m, Rr_, sum_);
  }
  state.t = tNext;
  ++steps_;
}

// The branch rows of a stage, eliminated (docs/method.md, "Maxwell branches"): with the
// linearization's coupling (G, D, s, s' at z_lin) and l_i = k_i / c_i,
//   U_z,i (1 + hg l_i s) = R_z,i + hg (G_r U_r + G_v U_v - l_i s' z_lin,i D U_r) + (its f_t part),
// so the v rows' right-hand side (M R_v) loses hg W_d sum_i k_i s R_z,i / (1 + hg l_i s); the parts in U_r,
// U_v are in the stage matrix (c_eff, s_eff of the linearization with branchStageGain = hg), the
// f_t part in J_u of that linearization.
void RosenbrockW::branchForcesOfStage(double hg, const Workspace& ws) {
  for (std::size_t d = 0; d < model_.branchDirections.size(); ++d) {
    const ModelBranchDirection& dir = model_.branchDirections[d];
    const double sc = ws.branches[d].scale;
    double f = 0.0;
    for (std::size_t i = 0; i < dir.branches.size(); ++i) {
      const MaxwellBranch& b = dir.branches[i];
      f += b.k * sc * Rz_[dir.first + static_cast<int>(i)] / (1.0 + hg * b.lambda() * sc);
    }
    branchForce_[d] = hg * f;
  }
  addBranchForces(ws, branchForce_, MRv_);
}

void RosenbrockW::branchStage(int i, double hg, const Workspace& ws) {
  hgUr_ = hg * Ur_[i];
  hgUv_ = hg * Uv_[i];
  branchRate_.setZero();
  addBranchRateChanges(ws, hgUr_, hgUv_, branchRate_);
  branchDeflection_.setZero();
  // The inputs' share (f_t): duStage_ = hg gamma_i du, zero in a stage without it.
  if (model_.hasMotionInputs()) addBranchInputRateChanges(model_, ws, duStage_, dudStage_, branchRate_);
  addBranchDeflectionChanges(model_, ws, hgUr_, duStage_, branchDeflection_);
  eliminatedBranchIncrements(model_, ws, &Rz_, branchRate_, nullptr, zLin_, branchDeflection_, hg, Uz_[i]);
}

std::string RosenbrockW::errorEstimateSource() const {
  if (tableau_.bHat.empty()) return {};
  static const char* const kOrdinal[] = {"zeroth", "first", "second", "third"};
  return std::string("embedded ") + kOrdinal[std::min(tableau_.order - 1, 3)] + "-order solution";
}

void RosenbrockW::shortStep(double h, State& state, const InputSignals& inputs, Workspace& ws) {
  // As Lsrt2::shortStep: W = I - h gamma J is factorized for h, and again for dt next step.
  withShortStep(h, options_.dt, steps_, [&] { step(state, inputs, ws); });
}

std::string RosenbrockW::describe() const {
  char buf[200];
  ek::csnprintf(buf, sizeof buf, "%s, dt = %g s, linearized every %d step(s), %s solver%s", tableau_.title.c_str(),
                options_.dt, options_.linearizeEvery, system_.solver().name().c_str(),
                options_.kinematicsDerivative ? "" : ", frozen kinematics (papers' K_lin)");
  return buf;
}

}  // namespace ek
