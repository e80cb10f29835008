// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file parallel_step.h
/// The threads of LSRT2's parallel step (--threads N > 1): a pool of N threads, each owning the
/// free bodies of one part of the solver's split (TopologySolver: a subtree of the elimination
/// tree) from their kinematics to their part of the factorization and the substitutions, so that
/// what one core writes the same core reads. The solver labels its parts to agree with contiguous
/// ranges of bodies, and the separator's bodies stay in those ranges (rows of different threads
/// interleaved in the workspace share cache lines). The results equal those of the serial step
/// bit for bit (parallel_linearize.h, topology_solver.h). A run on one thread never builds it.

#include <memory>
#include <vector>

#include "engine/parallel/parallel_linearize.h"
#include "engine/parallel/worker_pool.h"
#include "engine/solvers/linear_solver.h"

namespace ek {

class TopologySolver;

class ParallelStep {
 public:
  /// Splits `solver` (which outlives this) into `threads` parts.
  ParallelStep(const SuspensionModel& model, int threads, LinearSolver& solver);

  int threads() const { return pool_.size(); }
  /// The free bodies (state slots, increasing) of thread t.
  const std::vector<int>& rowsOf(int t) const { return linearizer_.rowsOf(t); }

  /// linearize() on the threads, with the caller's work per body (null: none).
  void linearize(const State& state, const VecX& u, const VecX& uDot, Workspace& ws, const LinearizeOptions& options,
                 RowWork* work) {
    linearizer_.linearize(state, u, uDot, ws, options, work);
  }
  /// Factorizes the A written through the solver's block storage: the subtrees on the threads,
  /// then the separator; a solver without a split on the calling thread.
  void factorizeInPlace();
  /// job(t) on every thread t; returns when all returned.
  template <class Job>
  void run(Job& job) {
    pool_.run(job);
  }
  /// The solver with subtrees and a separator for the split solves, or null (no split).
  TopologySolver* topology() const { return topology_; }

 private:
  WorkerPool pool_;
  LinearSolver& solver_;
  TopologySolver* topology_ = nullptr;
  ParallelLinearizer linearizer_;
};

}  // namespace ek
