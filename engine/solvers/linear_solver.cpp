// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/solvers/linear_solver.h"

#include <cmath>
#include <stdexcept>

#include "engine/core/error.h"

namespace ek {

DenseLuSolver::DenseLuSolver(const SuspensionModel& model)
    : pattern_(model.pattern), dense_(MatX::Zero(model.nDof(), model.nDof())), lu_(model.nDof()) {}

void DenseLuSolver::factorize(const std::vector<Mat6>& blocks) {
  // Only pattern blocks are ever written, so the zeros elsewhere stay zero.
  for (int l = 0; l < pattern_.nBodies; ++l)
    for (int s = pattern_.rowStart[l]; s < pattern_.rowStart[l + 1]; ++s)
      dense_.block<6, 6>(6 * l, 6 * pattern_.col[s]) = blocks[s];
  if (!dense_.allFinite()) {
    Eigen::Index row = 0, col = 0;
    for (Eigen::Index c = 0; c < dense_.cols(); ++c)
      for (Eigen::Index r = 0; r < dense_.rows(); ++r)
        if (!std::isfinite(dense_(r, c))) row = r, col = c;
    throw SimulationError("the coefficient matrix A is not finite (NaN or Inf) at row " + std::to_string(row) +
                          ", column " + std::to_string(col) + " (body slots " + std::to_string(row / 6) + ", " +
                          std::to_string(col / 6) + ")");
  }
  lu_.compute(dense_);
  const auto d = lu_.matrixLU().diagonal();
  for (Eigen::Index k = 0; k < d.size(); ++k)
    if (!std::isfinite(d[k]) || d[k] == 0.0)
      throw SimulationError("the coefficient matrix A is singular (pivot " + std::to_string(k) + ", body slot " +
                            std::to_string(k / 6) + ")");
}

void DenseLuSolver::solve(const VecX& b, VecX& x) { x = lu_.solve(b); }

}  // namespace ek
