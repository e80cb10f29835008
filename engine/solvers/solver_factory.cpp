// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/solvers/solver_factory.h"

#include <stdexcept>

#include "engine/solvers/topology_solver.h"

namespace ek {

std::unique_ptr<LinearSolver> makeLinearSolver(const std::string& name, const SuspensionModel& model) {
  if (name == "dense") return std::make_unique<DenseLuSolver>(model);
  if (name == "klu") return makeKluSolver(model);
  if (name == "topology") return std::make_unique<TopologySolver>(model);
  throw std::invalid_argument("unknown linear solver '" + name + "' (available: topology, klu, dense)");
}

}  // namespace ek
