// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file equilibrium.h
/// Static equilibrium of the suspension under constant inputs: the initial state of a load case
/// (and the operating point of the modal analysis).

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/dynamics/workspace.h"
#include "engine/solvers/solver_factory.h"

namespace ek {

/// The iteration matrix A = -J_r K + c M in the block pattern, factorized by the topology
/// solver, and steps in body-twist coordinates dq (dr = K dq).
class EquilibriumSystem {
 public:
  explicit EquilibriumSystem(const SuspensionModel& model)
      : model_(model), solver_(makeLinearSolver("topology", model)), blocks_(model.pattern.nBlocks()) {
    const int n = model.nDof();
    mass_.resize(n);
    for (int l = 0; l < model.nFreeBodies(); ++l) {
      const ModelBody& b = model.bodies[model.freeBodies[l]];
      mass_.segment<3>(6 * l).setConstant(b.mass);
      mass_.segment<3>(6 * l + 3) = b.inertia.diagonal();
    }
  }

  /// Factorizes -J_r K + c M at the linearization in ws. @throws SimulationError if singular.
  void factorize(const Workspace& ws, double c) {
    c_ = c;
    const BlockPattern& p = model_.pattern;
    for (int row = 0; row < p.nBodies; ++row)
      for (int s = p.rowStart[row]; s < p.rowStart[row + 1]; ++s) {
        Mat6 A = -ws.Jr[s];
        A.rightCols<3>() = A.rightCols<3>() * ws.Kinv[p.col[s]];  // columns pair with body-twist increments
        if (p.col[s] == row) A.diagonal() += c * mass_.segment<6>(6 * row);
        blocks_[s] = A;
      }
    solver_->factorize(blocks_);
  }
  /// dq = A^-1 h.
  void solve(const VecX& h, VecX& dq) { solver_->solve(h, dq); }
  /// dq = (-J_r K)^-1 h, where A regularizes a singular stiffness (free wheel spin) with a small
  /// c, by iterative refinement: the solve with A, then steps dq += A^-1 (h - (A - c M) dq) on
  /// the residual of the unregularized matrix. Each step shrinks both the regularization's share
  /// (c M / k on a direction of stiffness k; c follows the stiffest joint) and the factorization's
  /// round-off (the block elimination pivots in block order only; beside joints of 1e11 N/m both
  /// leave 1e-5..5e-4 in a compliance). A free direction keeps a finite part no channel sees.
  void solveWithoutRegularization(const VecX& h, VecX& dq, int refinements = 2) {
    solver_->solve(h, dq);
    VecX r(dq.size()), e(dq.size());
    const BlockPattern& p = model_.pattern;
    for (int i = 0; i < refinements; ++i) {
      r = h + c_ * mass_.cwiseProduct(dq);
      for (int row = 0; row < p.nBodies; ++row)
        for (int s = p.rowStart[row]; s < p.rowStart[row + 1]; ++s)
          r.segment<6>(6 * row).noalias() -= blocks_[s] * dq.segment<6>(6 * p.col[s]);
      solver_->solve(r, e);
      dq += e;
    }
  }
  /// The diagonal of A's scale: largest |J_r,ii| / M_ii, a squared frequency.
  double stiffnessScale(const Workspace& ws) const {
    double s = 0.0;
    for (int l = 0; l < model_.nFreeBodies(); ++l)
      for (int k = 0; k < 6; ++k) s = std::max(s, std::abs(ws.Jr[model_.pattern.diag[l]](k, k)) / mass_[6 * l + k]);
    return s > 0.0 ? s : 1.0;
  }
  /// r + K(r) dq.
  void advance(const VecX& r, const Workspace& ws, const VecX& dq, VecX& out) const {
    out = r;
    for (int l = 0; l < model_.nFreeBodies(); ++l) {
      out.segment<3>(6 * l) += dq.segment<3>(6 * l);
      out.segment<3>(6 * l + 3) += ws.Kinv[l] * dq.segment<3>(6 * l + 3);
    }
  }
  /// True if no body moves more than 20 mm or turns more than 0.1 rad.
  bool withinLimits(const VecX& dq) const {
    for (int l = 0; l < model_.nFreeBodies(); ++l)
      if (dq.segment<3>(6 * l).norm() > 0.02 || dq.segment<3>(6 * l + 3).norm() > 0.1) return false;
    return true;
  }
  double largestBodyStep(const VecX& dq) const {
    double s = 0.0;
    for (int l = 0; l < model_.nFreeBodies(); ++l)
      s = std::max({s, dq.segment<3>(6 * l).norm(), dq.segment<3>(6 * l + 3).norm()});
    return s;
  }

 private:
  const SuspensionModel& model_;
  std::unique_ptr<LinearSolver> solver_;
  std::vector<Mat6> blocks_;
  VecX mass_;
  double c_ = 0.0;
};


/// Static equilibrium: r with h(r, 0, u) = 0, by Newton's method on J_r regularised with a
/// Levenberg-Marquardt term (J_r - mu M) so that free directions (e.g. wheel spin, zero
/// stiffness) stay where they are. Converged when every body's acceleration M^-1 h is below
/// `tolerance` (m/s^2 and rad/s^2), or when the Newton correction of every body is below
/// 1e-10 m and 1e-10 rad (the round-off floor of stiff models with light links).
struct EquilibriumResult {
  int iterations = 0;
  double residual = 0.0;  ///< largest acceleration left
};
/// A wheel centre held at a height by the vertical force at the wheel's contact point, like the
/// wheel pad of a K&C rig: the force (the wheel loads' kFzContact) is an unknown of the equilibrium.
struct WheelHeight {
  int wheel = 0;          ///< index into model.wheels
  double centreZ = 0.0;   ///< target height of the wheel centre [m]
};

/// `initialPseudoStep` [s^2] > 0 starts the continuation there (large: close to Newton's method,
/// for a start next to the solution such as the previous point of a sweep); 0 chooses it from the
/// initial residual. Converged also requires every held wheel centre within 1e-9 m of its target.
/// `wheelLoads` (kWheelLoads per wheel; null: none) are applied as they are, except that the
/// vertical force of each held wheel is solved for, warm-started from and returned in them.
/// @throws SimulationError if it does not converge in maxIterations.
EquilibriumResult solveEquilibrium(const SuspensionModel& model, const VecX& u, State& state, Workspace& ws,
                                   double tolerance = 1e-8, int maxIterations = 500,
                                   const std::vector<WheelHeight>& held = {}, double initialPseudoStep = 0.0,
                                   VecX* wheelLoads = nullptr);

/// Largest acceleration magnitude of M^-1 h in ws (after linearize()).
double maxAcceleration(const SuspensionModel& model, const Workspace& ws);

}  // namespace ek
