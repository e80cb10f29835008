// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/parallel/parallel_step.h"

#include "engine/solvers/topology_solver.h"

namespace ek {
namespace {
/// The solver split into `threads` parts along contiguous ranges of bodies; the solver itself.
LinearSolver& splitSolver(const SuspensionModel& model, int threads, LinearSolver& solver) {
  solver.split(threads, ParallelLinearizer::contiguousRanges(model, threads));
  return solver;
}
}  // namespace

ParallelStep::ParallelStep(const SuspensionModel& model, int threads, LinearSolver& solver)
    : pool_(threads),
      solver_(splitSolver(model, threads, solver)),
      topology_(dynamic_cast<TopologySolver*>(&solver)),
      linearizer_(model, pool_, solver.bodyParts()) {
  if (topology_ && topology_->parts() != pool_.size()) topology_ = nullptr;
}

void ParallelStep::factorizeInPlace() {
  if (!topology_) {
    solver_.factorizeInPlace();
    return;
  }
  auto subtrees = [&](int t) { topology_->factorizeSubtree(t); };
  pool_.run(subtrees);
  topology_->factorizeSeparator();
}

}  // namespace ek
