// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file lsrt2.h
/// The linear-implicit L-stable real-time integrator with two stages (paper 003 Sect. 3.1,
/// eqs. 10-17; parameters from paper 000 Table 1):
/// s = 2, b = (0, 1), c = (0, 1/2), a21 = 1/2, gamma = 1 - sqrt(2)/2, gamma21 = -gamma.
///
/// Stage i (eq. 15 generalised, see docs/method.md):
///   A dv_i = h_lin + J_r (r_bar - r_lin + dt gamma G_i) + J_v (v_bar - v_lin) + J_u (u_bar - u_lin)
///            + J_udot (udot_bar - udot_lin)   (driven bodies: their motion's rate, like u_bar)
///   dr_i   = G_i + dt gamma Kt dv_i                                                      (eq. 17)
///   A      = M - dt gamma J_v - (dt gamma)^2 J_r Kt                                      (eq. 19)
/// with G_i = P (K_lin v_bar + N (r_bar - r_lin)), Kt = P K_lin, P = (I - dt gamma N)^-1 per body.
/// With N = 0 (option kinematicsDerivative off) this is exactly the papers' eqs. (15)-(17).
/// It is StageSystem's stage with R_r = K_lin v_bar + N (r_bar - r_lin), b = h_lin + J_u (u_bar -
/// u_lin) + ..., dr0 = r_bar - r_lin, dv0 = v_bar - v_lin: a step reads "linearize, factorize, two
/// solves", and the rows run on a StageRunner (one thread here; engine/parallel has the threads).
///
/// Local error estimate: the embedded solution y + dt k_1 (b^ = (1, 0), first order: stage 1 is
/// a linear-implicit Euler step with gamma) against y + dt k_2 gives dt (k_2 - k_1) per
/// coordinate, from the stages already computed (docs/method.md, "Error estimate").

#include <memory>

#include "engine/dynamics/workspace.h"
#include "engine/integrators/integrator.h"
#include "engine/integrators/stage_system.h"
#include "engine/model/signal.h"
#include "engine/solvers/linear_solver.h"

namespace ek {

struct Lsrt2Options {
  double dt = 1e-3;         ///< fixed step [s]
  int linearizeEvery = 1;   ///< Delta t_lin / Delta t
  /// Include N = d(K(r) v)/dr in the linear model (second order also for rotating bodies).
  /// Off: the papers' frozen K_lin.
  bool kinematicsDerivative = true;
  /// After a first stage at the linearization, take the second stage's J_r dr1 + J_v dv1 from
  /// the first stage's equation (one block product less; docs/method.md). Off: both products
  /// (the same results to round-off; for verification).
  bool secondStageFromFirst = true;
};

class Lsrt2 : public Integrator {
 public:
  static constexpr double kGamma = 0.29289321881345248;  // 1 - sqrt(2)/2

  /// On the calling thread (a SerialStageRunner).
  Lsrt2(const SuspensionModel& model, Lsrt2Options options, std::unique_ptr<LinearSolver> solver);
  ~Lsrt2() override;

  /// Advances state by one step dt. Linearizes at the step start when due.
  /// @throws SimulationError (singular matrix, element singularity).
  void step(State& state, const InputSignals& inputs, Workspace& ws) override;
  void shortStep(double h, State& state, const InputSignals& inputs, Workspace& ws) override;
  std::string describe() const override;

  /// True if the last step() linearized at the state it started from (ws then holds the
  /// kinematics and element results of that state).
  bool workspaceHoldsStepStart() const override { return linearizedLast_; }
  const Lsrt2Options& options() const { return options_; }
  /// The threads the rows run on.
  int threads() const { return runner_->threads(); }
  /// Phase timing for benchmarks (off by default; costs a clock read per phase when on).
  void enableTiming(bool on) { runner_->enableTiming(on); }
  const PhaseTimes& phaseTimes() const { return runner_->phaseTimes(); }
  const LinearSolver& solver() const { return system_.solver(); }
  const LocalErrorEstimate* localError() const override { return &error_; }
  std::string errorEstimateSource() const override { return "embedded first-order solution"; }
  void resetLinearization() override { steps_ = 0; }

 protected:
  /// For a runner on other threads (engine/parallel): built on this integrator's solver.
  StageSystem& system() { return system_; }
  void setRunner(std::unique_ptr<StageRunner> runner) { runner_ = std::move(runner); }

 private:
  /// How a stage's J_r y + J_v (vbar - v_lin) is formed (docs/method.md, "LSRT2's second stage"):
  enum class StageProducts {
    AtLinearization,  ///< rbar, vbar at the linearization point: J_r hg G only
    General,          ///< both products
    FromFirstStage,   ///< the second stage after a first at the linearization (no branches):
                      ///< J_r hg G plus c (M dv1 - q1) / hg, q1 the first stage's rows without J_r
  };
  void stage(const VecX& rbar, const VecX& vbar, const VecX& zbar, const VecX& ubar, const VecX& udotbar,
             StageProducts products, const Workspace& ws, VecX& dr, VecX& dv, VecX& dz);

  const SuspensionModel& model_;
  LocalErrorEstimate error_;
  Lsrt2Options options_;
  StageSystem system_;
  std::unique_ptr<StageRunner> runner_;
  long long steps_ = 0;
  bool linearizedLast_ = false;
  // Linearization point.
  VecX rLin_, vLin_, uLin_;
  // Step buffers (sized once).
  VecX uK_, uNext_, uHalf_, uDot_, udDiff_, uBar_;
  // Rates of the inputs (driven bodies only): at the linearization point, the stage values.
  VecX udLin_, udK_, udNext_, udHalf_, udBar_;
  VecX rBar_, vBar_, dr1_, dv1_, dr2_, dv2_;
  VecX Rr_;          ///< a stage's R_r: the linear model's kinematic rates at the stage values
  VecX dr0_, dv0_;   ///< a stage's offsets from the linearization point (General products)
  VecX q_;           ///< a stage's b: h plus the inputs' part (and the branch forces), no J_r, J_v products
  // Maxwell branches: element states at the linearization, their directions' rates there, the
  // stage values and increments, per-direction scratch (force changes, rate changes).
  VecX zLin_, rateLin_, zBar_, dz1_, dz2_, branchForce_, branchRate_, branchDeflection_;
  void branchForcesOfStage(const VecX& zbar, double hg, const Workspace& ws);
  void branchIncrements(const VecX& rbar, const VecX& vbar, const VecX& zbar, const VecX& dr, const VecX& dv,
                        double hg, const Workspace& ws, VecX& dz);
};

}  // namespace ek
