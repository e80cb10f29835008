// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file generalized_alpha.h
/// Generalized-alpha for the second-order form (Chung and Hulbert 1993; Arnold and Bruls 2007), as
/// paper 002 uses it, with the rotations updated on the rotation group (Bruls and Cardona 2010):
///
///   D       = nu_n + h (1/2 - beta) a_n + h beta a_n+1           (per body: velocity units)
///   p_n+1   = p_n + h D_p,    R_n+1 = R_n exp(h [D_w]x)          (Cardan angles from R_n+1)
///   nu_n+1  = nu_n + h (1 - gamma) a_n + h gamma a_n+1
///   (1 - alpha_m) a_n+1 + alpha_m a_n = (1 - alpha_f) nu'_n+1 + alpha_f nu'_n
///   M nu'_n+1 = h(r_n+1, nu_n+1, u(t_n+1))
///
/// nu = (v, w_B) are the velocities of the state, a the acceleration-like variables. The
/// parameters follow from the spectral radius at infinity rho (default 0.9):
/// alpha_m = (2 rho - 1)/(rho + 1), alpha_f = rho/(rho + 1), gamma = 1/2 + alpha_f - alpha_m,
/// beta = (gamma + 1/2)^2 / 4: second order, unconditionally stable, high frequencies damped
/// to rho per step.
///
/// The equation of motion is solved for a_n+1 from the predictor a_n by exactly `iterations`
/// (default 2) Newton iterations with the matrix mu M - h gamma J_v - h^2 beta J_r K,
/// mu = (1 - alpha_m)/(1 - alpha_f), of the analytic linearization at the predicted state,
/// refreshed every --lin-every steps or, with `frozen`, taken once at the initial state
/// (paper 002). Every step costs the same: `iterations` right-hand side evaluations (a
/// linearization counting as one) and solves. The first step evaluates nu'_0 once more
/// (a_0 = nu'_0). Inputs at t_n+1 are sampled as their limit from the left.

#include <memory>
#include <string>

#include "engine/integrators/integrator.h"
#include "engine/integrators/stage_system.h"

namespace ek {

struct GeneralizedAlphaOptions {
  double dt = 1e-3;
  int linearizeEvery = 1;
  double rhoInfinity = 0.9;  ///< spectral radius at infinity, [0, 1]
  int iterations = 2;        ///< Newton iterations per step, fixed
  bool frozen = false;       ///< iteration matrix of the initial state only (paper 002)
};

class GeneralizedAlpha final : public Integrator {
 public:
  GeneralizedAlpha(const SuspensionModel& model, GeneralizedAlphaOptions options, std::unique_ptr<LinearSolver> solver);

  void step(State& state, const InputSignals& inputs, Workspace& ws) override;
  std::string describe() const override;

  long long rhsEvaluations() const { return rhsEvaluations_; }
  const StageSystem& system() const { return system_; }

 private:
  /// Y_ = the state at t_n+1 for the accelerations aNew_ (from state, a_).
  void advance(const State& state);
  void start(const State& state, const InputSignals& inputs, Workspace& ws);

  const SuspensionModel& model_;
  GeneralizedAlphaOptions options_;
  StageSystem system_;
  double alphaM_ = 0.0, alphaF_ = 0.0, gamma_ = 0.0, beta_ = 0.0;
  long long sinceStart_ = 0, rhsEvaluations_ = 0;
  bool factorized_ = false;
  StepHistory history_;  ///< notices a state set from outside
  State Y_;
  VecX a_, vdot_, aNew_, vdotNew_, u_, ud_, hY_, rDotY_, rhs_, da_, tmp_;
};

}  // namespace ek
