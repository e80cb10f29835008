// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file bdf2.h
/// Fixed-step BDF2 with a fixed number of Newton iterations (paper 004's real-time integrator):
///
///   y_n+1 = 4/3 y_n - 1/3 y_n-1 + 2/3 h f(t_n+1, y_n+1)
///
/// solved from the predictor y^0 = 2 y_n - y_n-1 by exactly `iterations` (default 2) simplified
/// Newton iterations with the matrix I - (2h/3) J, J the analytic linearization at the predictor
/// (every --lin-every steps; in between the last one). A linearization at the predictor also
/// gives the first iteration's residual, so every step costs the same: `iterations` right-hand
/// side evaluations (a linearization counting as one) and solves, one factorization per
/// linearization (docs/method.md, "BDF2"). The first step takes y_-1 = y_0 - h f(t_0, y_0) (one
/// extra evaluation), which keeps second order. Inputs at t_n+1 are sampled as their limit from
/// the left, as in the W-methods.

#include <memory>
#include <string>

#include "engine/integrators/integrator.h"
#include "engine/integrators/stage_system.h"

namespace ek {

struct Bdf2Options {
  double dt = 1e-3;
  int linearizeEvery = 1;
  bool kinematicsDerivative = true;
  int iterations = 2;  ///< Newton iterations per step, fixed
};

class Bdf2 final : public Integrator {
 public:
  Bdf2(const SuspensionModel& model, Bdf2Options options, std::unique_ptr<LinearSolver> solver);

  void step(State& state, const InputSignals& inputs, Workspace& ws) override;
  std::string describe() const override;

  long long rhsEvaluations() const { return rhsEvaluations_; }
  const StageSystem& system() const { return system_; }

 private:
  /// y_-1 from the state the run starts from.
  void startHistory(const State& state, const InputSignals& inputs, Workspace& ws);

  const SuspensionModel& model_;
  Bdf2Options options_;
  StageSystem system_;
  long long sinceStart_ = 0, rhsEvaluations_ = 0;
  StepHistory history_;  ///< notices a state set from outside
  State Y_;
  VecX rPrev_, vPrev_;   ///< y_n-1
  VecX rHist_, vHist_;   ///< 4/3 y_n - 1/3 y_n-1
  VecX u_, ud_, hY_, rDotY_, Rr_, MRv_, dr_, dv_, tmp_;
};

}  // namespace ek
