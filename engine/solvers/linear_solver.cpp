// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/solvers/linear_solver.h"

#include <cmath>
#include <stdexcept>

#include "engine/core/error.h"
#include "engine/solvers/klu_solver.h"
#include "engine/solvers/topology_solver.h"

namespace ek {

DenseLuSolver::DenseLuSolver(const SuspensionModel& model)
    : pattern_(model.pattern), dense_(MatX::Zero(model.nDof(), model.nDof())), lu_(model.nDof()) {}

void DenseLuSolver::factorize(const std::vector<Mat6>& blocks) {
  // Only pattern blocks are ever written, so the zeros elsewhere stay zero.
  for (int l = 0; l < pattern_.nBodies; ++l)
    for (int s = pattern_.rowStart[l]; s < pattern_.rowStart[l + 1]; ++s)
      dense_.block<6, 6>(6 * l, 6 * pattern_.col[s]) = blocks[s];
  lu_.compute(dense_);
  const auto d = lu_.matrixLU().diagonal();
  for (Eigen::Index k = 0; k < d.size(); ++k)
    if (!std::isfinite(d[k]) || d[k] == 0.0)
      throw SimulationError("the coefficient matrix A is singular (pivot " + std::to_string(k) + ", body slot " +
                            std::to_string(k / 6) + ")");
}

void DenseLuSolver::solve(const VecX& b, VecX& x) { x = lu_.solve(b); }

std::unique_ptr<LinearSolver> makeLinearSolver(const std::string& name, const SuspensionModel& model) {
  if (name == "dense") return std::make_unique<DenseLuSolver>(model);
  if (name == "klu") return std::make_unique<KluSolver>(model);
  if (name == "topology") return std::make_unique<TopologySolver>(model);
  throw std::invalid_argument("unknown linear solver '" + name + "' (available: topology, klu, dense)");
}

}  // namespace ek
