// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file parallel_choice.h
/// LSRT2's parallel step only where it pays. `--threads N` builds two LSRT2 integrators, one on
/// a pool of N threads and one serial, which give the same results bit for bit (parallel_
/// linearize.h). Before the first step, and again every few thousand steps, both step copies of
/// the current state in interleaved blocks; the faster one (median time per step) takes the run
/// on, the serial one unless the parallel one is faster. A handoff between the cores costs 50 ns
/// when the host places the two virtual CPUs close and over 300 ns when it places them apart,
/// and that changes within minutes (docs/performance.md): a choice made once would not hold.
/// The switch happens at a step where the integrator linearizes anyway, so the results are those
/// of the serial run, whichever integrator computes a step.

#include <memory>
#include <string>

#include "engine/parallel/parallel_lsrt2.h"

namespace ek {

class ParallelWhenItPays final : public Integrator {
 public:
  /// `parallel` on threads > 1, `serial` on one; both of the same model and options.
  /// A check every `recheckSteps` steps (rounded down to whole linearization intervals; the
  /// default 5000: every 5 s of simulated time at 1 ms; a check costs about 64 steps' time).
  ParallelWhenItPays(std::unique_ptr<Lsrt2> parallel, std::unique_ptr<Lsrt2> serial, long long recheckSteps = 5000);

  void step(State& state, const InputSignals& inputs, Workspace& ws) override;
  /// By the current integrator; both linearize afresh after it.
  void shortStep(double h, State& state, const InputSignals& inputs, Workspace& ws) override;
  std::string describe() const override;
  bool workspaceHoldsStepStart() const override { return current_->workspaceHoldsStepStart(); }
  const LocalErrorEstimate* localError() const override { return current_->localError(); }
  std::string errorEstimateSource() const override { return current_->errorEstimateSource(); }
  void resetLinearization() override;

  /// The integrator stepping now, and whether it is the parallel one.
  const Lsrt2& current() const { return *current_; }
  bool parallelChosen() const { return current_ == parallel_.get(); }
  /// The last check's median time per step [s] of the parallel and the serial integrator.
  double parallelStepTime() const { return parallelTime_; }
  double serialStepTime() const { return serialTime_; }
  /// Checks so far, and how many of them chose the parallel step.
  int checks() const { return checks_; }
  int parallelChoices() const { return parallelChoices_; }

 private:
  /// Times both integrators on copies of (state, ws) and makes the faster one current.
  void choose(const State& state, const InputSignals& inputs, const Workspace& ws);

  std::unique_ptr<Lsrt2> parallel_, serial_;
  Lsrt2* current_;
  long long steps_ = 0;  ///< steps of this run
  long long recheck_ = 5000;  ///< steps between checks, a multiple of the linearization interval
  int linearizeEvery_ = 1;
  int checks_ = 0, parallelChoices_ = 0;
  double parallelTime_ = 0.0, serialTime_ = 0.0;
  // Scratch copies for the checks, sized once.
  State scratch_;
  std::unique_ptr<Workspace> scratchWs_;
  std::vector<double> timesParallel_, timesSerial_;
};

}  // namespace ek
