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
///
/// Local error estimate: the embedded solution y + dt k_1 (b^ = (1, 0), first order: stage 1 is
/// a linear-implicit Euler step with gamma) against y + dt k_2 gives dt (k_2 - k_1) per
/// coordinate, from the stages already computed (docs/method.md, "Error estimate").

#include <memory>

#include "engine/parallel/parallel_step.h"
#include "engine/dynamics/workspace.h"
#include "engine/integrators/integrator.h"
#include "engine/model/signal.h"
#include "engine/solvers/linear_solver.h"

namespace ek {

struct Lsrt2Options {
  double dt = 1e-3;         ///< fixed step [s]
  int linearizeEvery = 1;   ///< Delta t_lin / Delta t
  /// Include N = d(K(r) v)/dr in the linear model (second order also for rotating bodies).
  /// Off: the papers' frozen K_lin.
  bool kinematicsDerivative = true;
  /// Threads of the parallel step (1: serial). Results are identical for every count.
  int threads = 1;
  /// After a first stage at the linearization, take the second stage's J_r dr1 + J_v dv1 from
  /// the first stage's equation (one block product less; docs/method.md). Off: both products
  /// (the same results to round-off; for verification).
  bool secondStageFromFirst = true;
};

/// Wall time spent per phase, accumulated over steps (when enabled).
struct PhaseTimes {
  double linearize = 0.0, assemble = 0.0, factorize = 0.0, solve = 0.0, other = 0.0;  ///< [s]
  long long linearizations = 0, steps = 0;
};

class Lsrt2 final : public Integrator {
 public:
  static constexpr double kGamma = 0.29289321881345248;  // 1 - sqrt(2)/2

  /// With options.threads > 1: a ParallelStep of that many threads for the run (the
  /// linearization, the factorization and the solves by the solver's subtrees; other solvers
  /// than TopologySolver factorize and solve on the calling thread).
  Lsrt2(const SuspensionModel& model, Lsrt2Options options, std::unique_ptr<LinearSolver> solver);
  ~Lsrt2() override;

  /// Advances state by one step dt. Linearizes at the step start when due.
  /// @throws SimulationError (singular matrix, element singularity).
  void step(State& state, const InputSignals& inputs, Workspace& ws) override;
  std::string describe() const override;

  /// True if the last step() linearized at the state it started from (ws then holds the
  /// kinematics and element results of that state).
  bool workspaceHoldsStepStart() const override { return linearizedLast_; }
  const Lsrt2Options& options() const { return options_; }
  /// Phase timing for benchmarks (off by default; costs a clock read per phase when on).
  void enableTiming(bool on) { timing_ = on; }
  const PhaseTimes& phaseTimes() const { return times_; }
  const LinearSolver& solver() const { return *solver_; }
  const LocalErrorEstimate* localError() const override { return &error_; }
  std::string errorEstimateSource() const override { return "embedded first-order solution"; }
  void resetLinearization() override { steps_ = 0; }

 private:
  void relinearize(const State& state, Workspace& ws);
  /// Calls f(l) for every free body l: on one thread, or on the pool by the threads' rows.
  template <class RowFn>
  void forRows(const std::vector<std::vector<int>>& rows, RowFn&& f);
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
  std::unique_ptr<LinearSolver> solver_;
  std::unique_ptr<ParallelStep> parallel_;  ///< threads > 1 only
  /// Free bodies by thread (one list on one thread): the solver's subtrees, as the parallel
  /// linearization splits them too.
  std::vector<std::vector<int>> rows_;
  long long steps_ = 0;
  bool linearizedLast_ = false;
  bool timing_ = false;
  PhaseTimes times_;
  // Linearization point and per-body matrices of the linear model.
  VecX rLin_, vLin_, uLin_;
  std::vector<Mat3> P_, Kt_;
  std::vector<Mat3> RTKt_;  ///< per body R T Kt: Kt in the world-wrench partials' coordinates
  void stageKinematicsOfBody(const Workspace& ws, int l, double hg);  ///< P_, Kt_, RTKt_ of body l
  std::vector<Mat6> A_;  ///< A, for a solver without storage of its own (empty otherwise)
  /// Where A's blocks are assembled: the solver's own storage (factorized in place), else A_.
  std::vector<Mat6*> Aslot_;
  bool inPlace_ = false;
  // Step buffers (sized once).
  VecX uK_, uNext_, uHalf_, uDot_, udDiff_, uBar_;
  // Rates of the inputs (driven bodies only): at the linearization point, the stage values.
  VecX udLin_, udK_, udNext_, udHalf_, udBar_;
  VecX rBar_, vBar_, G_, y_, rhs_, dr1_, dv1_, dr2_, dv2_, tmp_;
  VecX yW_;  ///< y in the world-wrench partials' coordinates (toWrenchCoordinatesRow())
  VecX q_;   ///< a stage's rows without the J_r, J_v products: h plus the inputs' part
  // Maxwell branches: element states at the linearization, their directions' rates there, the
  // stage values and increments, per-direction scratch (force changes, rate changes).
  VecX zLin_, rateLin_, zBar_, dz1_, dz2_, branchForce_, branchRate_, branchDeflection_;
  void branchForcesOfStage(const VecX& zbar, double hg, const Workspace& ws);
  void branchIncrements(const VecX& rbar, const VecX& vbar, const VecX& zbar, const VecX& dr, const VecX& dv,
                        double hg, const Workspace& ws, VecX& dz);
};

}  // namespace ek
