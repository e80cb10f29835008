// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file cvode_integrator.h
/// Reference integrator: SUNDIALS CVODE, variable-order BDF with Newton iterations and a direct
/// linear solver (SUNDIALS dense LU for axles, sparse KLU above kDenseLimit) on y = (r, v, z), y' = (K(r) v, M^-1 h(r, v, z, u(t)),
/// x'(r, v) - Lambda z), with the engine's analytic Jacobian [[N, K, 0], [M^-1 J_r, M^-1 J_v, M^-1 H_z],
/// [G_r, G_v, -Lambda]]; z are the Maxwell branch deflections, x' their directions' deflection
/// rates and Lambda = diag(k_i / c_i) (docs/method.md, "Maxwell branches"). Discontinuities of the inputs (step times,
/// ramp/chirp ends, table points) are breakpoints: the integration stops and restarts there.

#include <sundials/sundials_types.h>

#include <memory>
#include <utility>
#include <vector>

#include "engine/integrators/integrator.h"

namespace ek {

class CvodeIntegrator final : public Integrator {
 public:
  CvodeIntegrator(const SuspensionModel& model, const IntegratorOptions& options, const LoadCaseRow& loadCase);
  ~CvodeIntegrator() override;
  CvodeIntegrator(const CvodeIntegrator&) = delete;
  CvodeIntegrator& operator=(const CvodeIntegrator&) = delete;

  void step(State& state, const InputSignals& inputs, Workspace& ws) override;
  std::string describe() const override;

  /// Evaluates y' (public for the C callbacks).
  void rhs(double t, const double* y, double* ydot);
  void jacobian(double t, const double* y, double* J, long ld);
  /// The same Jacobian in compressed sparse columns (fixed pattern, rows ascending per column).
  void sparseJacobian(double t, const double* y, sunindextype* colPtr, sunindextype* rowIdx, double* val);
  /// True when the Newton systems are solved by sparse KLU (options "klu", or "auto" above kDenseLimit).
  bool sparse() const;
  long jacobianNonzeros() const;
  static constexpr int kDenseLimit = 60;   ///< degrees of freedom up to which "auto" stays dense
  long long rhsEvaluations() const { return nRhs_; }
  /// The inputs rhs() and the Jacobians evaluate (step() binds them; for tests).
  void bindInputs(const InputSignals& inputs) { inputs_ = &inputs; }

 private:
  void restart(double t, const State& state);
  double inputTime(double t) const;
  void load(const double* y);
  /// Loads y and linearizes at (t, y) into ws_: what rhs() and both Jacobians start from.
  void linearizeAt(double t, const double* y);

  const SuspensionModel& model_;
  IntegratorOptions options_;
  std::vector<double> breakpoints_;
  const InputSignals* inputs_ = nullptr;
  Workspace ws_;
  State s_;
  VecX u_, ud_;  ///< inputs and their rates at the current time
  double segmentStart_ = 0.0, segmentEnd_ = 0.0;
  std::vector<std::vector<std::pair<int, int>>> columnBlocks_;  ///< per body c: (row body l, block index)
  std::vector<Mat3> inertiaInverse_;
  /// Per body c: the (branch direction, branch state) pairs whose rate depends on c's r and v,
  /// in increasing state (the rows below the force rows in c's columns).
  std::vector<std::vector<std::pair<int, int>>> branchColumns_;
  std::vector<std::pair<int, Vec6>> branchSides_;  ///< a branch column's force rows (sparseJacobian())
  /// M_l^-1 h for body slot l: (h_F / m, I^-1 h_tau).
  Vec6 generalizedAcceleration(int l, const Vec6& h) const;
  bool started_ = false;
  long long nRhs_ = 0;
  struct Sundials;
  std::unique_ptr<Sundials> sd_;
};

}  // namespace ek
