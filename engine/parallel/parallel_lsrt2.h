// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file parallel_lsrt2.h
/// LSRT2 with its rows on threads (--threads N > 1): the same step as Lsrt2 (lsrt2.h), whose
/// row work runs on a ThreadedStageRunner. The linearization, A's rows, the factorization and
/// the substitutions go by the solver's subtrees (parallel_step.h); every row is computed by the
/// serial code, so the results equal the serial step's bit for bit.

#include <memory>

#include "engine/integrators/lsrt2.h"
#include "engine/parallel/parallel_step.h"

namespace ek {

/// StageRunner on a ParallelStep: regions of the pool, one per call.
class ThreadedStageRunner final : public StageRunner {
 public:
  /// Splits `solver` (which outlives this) into `threads` parts.
  ThreadedStageRunner(const SuspensionModel& model, int threads, LinearSolver& solver);
  void linearizeAndFactorize(const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
                             const LinearizeOptions& options, StageSystem& system) override;
  void forRows(Rows f) override;
  void solve(Rows before, StageSystem& system, VecX& x, Rows after) override;
  int threads() const override { return step_.threads(); }

 private:
  ParallelStep step_;
};

class ParallelLsrt2 final : public Lsrt2 {
 public:
  /// @throws std::invalid_argument for threads < 2; std::runtime_error when the threads cannot
  /// be created.
  ParallelLsrt2(const SuspensionModel& model, Lsrt2Options options, int threads, std::unique_ptr<LinearSolver> solver);
};

}  // namespace ek
