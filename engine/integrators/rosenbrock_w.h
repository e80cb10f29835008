// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file rosenbrock_w.h
/// Linear-implicit one-step methods in W form (Rosenbrock-W): one factorization of
/// I - h gamma J per linearization, one right-hand side evaluation and one solve per stage.
/// J is the analytic linearization at the last linearization point; a W-method keeps its order
/// with any J, so linearizing only every --lin-every steps costs accuracy constants, not order.
///
///   (I - h gamma J) k_i = f(t + alpha_i h, y + h sum_j alpha_ij k_j) + h J sum_j gamma_ij k_j
///                         + h gamma_i f_t,                 y_1 = y + h sum_i b_i k_i
///
/// solved in the variables U_i = h sum_{j<=i} gamma_ij k_j, which need no product with J
/// (docs/method.md, "W-methods"). f_t is approximated by J_u (u(t+h) - u(t))/h (and J_udot for the
/// rates of driven bodies), any approximation keeping a W-method's order. Inputs are sampled in
/// the step's interval [t, t + h): at its end as their limit from the left, so an input that jumps
/// at a grid time acts from that time on (as in the CVODE reference, which restarts there).
///
/// Tableaux:
/// - "lie": the linear-implicit Euler method (s = 1, gamma = 1), the one-stage method that
///   paper 003 compares LSRT2 with; order 1, L-stable.
/// - "ros34pw2": the four-stage W-method ROS34PW2 of Rang and Angermann (BIT 45, 2005): order 3
///   for any J, L-stable, stiffly accurate, with an embedded order-2 solution for the error
///   estimate.

#include <memory>
#include <string>
#include <vector>

#include "engine/integrators/integrator.h"
#include "engine/integrators/stage_system.h"

namespace ek {

/// A Rosenbrock-W tableau in the k form above (row-major s x s, strictly lower alpha, lower
/// gamma with gamma on the diagonal); bHat empty when the method has no embedded solution.
struct WTableau {
  std::string name, title;
  int stages = 1, order = 1;
  double gamma = 1.0;
  std::vector<double> alpha, gammas, b, bHat;
};

const WTableau& linearImplicitEulerTableau();
const WTableau& ros34pw2Tableau();
/// The tableau of a method name ("lie", "ros34pw2"); nullptr for any other name.
const WTableau* findWTableau(const std::string& name);

struct RosenbrockWOptions {
  double dt = 1e-3;
  int linearizeEvery = 1;
  bool kinematicsDerivative = true;
};

class RosenbrockW final : public Integrator {
 public:
  RosenbrockW(const SuspensionModel& model, const WTableau& tableau, RosenbrockWOptions options,
              std::unique_ptr<LinearSolver> solver);

  void step(State& state, const InputSignals& inputs, Workspace& ws) override;
  void shortStep(double h, State& state, const InputSignals& inputs, Workspace& ws) override;
  std::string describe() const override;
  const LocalErrorEstimate* localError() const override { return tableau_.bHat.empty() ? nullptr : &error_; }
  std::string errorEstimateSource() const override;
  void resetLinearization() override { steps_ = 0; }

  /// Counts for the cost-per-step checks: right-hand side evaluations (a linearization counts as
  /// one), factorizations, linear solves.
  long long rhsEvaluations() const { return rhsEvaluations_; }
  const StageSystem& system() const { return system_; }

 private:
  const SuspensionModel& model_;
  const WTableau& tableau_;
  RosenbrockWOptions options_;
  StageSystem system_;
  // The tableau in U form: Y_i = y + sum_j a_ij U_j; the stage right-hand side adds
  // sum_j (c_ij / h) U_j; y_1 = y + sum_j m_j U_j; the estimate sum_j e_j U_j.
  std::vector<double> a_, c_, m_, e_, alphaSum_, gammaSum_;
  long long steps_ = 0, rhsEvaluations_ = 0;
  LocalErrorEstimate error_;
  State Y_;
  // Inputs at the step's start and (left limit) end, at an inner stage, their change over the
  // step and its share in a stage's f_t term.
  VecX uStart_, udStart_, uEnd_, udEnd_, uI_, udI_, du_, dud_, duStage_, dudStage_;
  VecX hY_, rDotY_, Rr_, MRv_, sum_;
  std::vector<VecX> Ur_, Uv_;
  // Maxwell branches (docs/method.md): their states at the linearization, a stage's z' and its
  // right-hand side R_z, the stage increments U_z, and per direction the force, rate and
  // deflection changes of the elimination.
  VecX zLin_, zDotY_, Rz_, branchForce_, branchRate_, branchDeflection_, hgUr_, hgUv_;
  std::vector<VecX> Uz_;
  void branchForcesOfStage(double hg, const Workspace& ws);
  void branchStage(int i, double hg, const Workspace& ws);
};

}  // namespace ek
