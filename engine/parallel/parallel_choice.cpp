// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/parallel/parallel_choice.h"

#include <algorithm>
#include <chrono>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace ek {
namespace {

/// Blocks per integrator and check, alternating which goes first.
constexpr int kRounds = 8;

double median(std::vector<double>& x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

}  // namespace

ParallelWhenItPays::ParallelWhenItPays(std::unique_ptr<Lsrt2> parallel, std::unique_ptr<Lsrt2> serial,
                                       long long recheckSteps)
    : parallel_(std::move(parallel)), serial_(std::move(serial)), current_(serial_.get()) {
  linearizeEvery_ = serial_->options().linearizeEvery;
  // Checks at steps that linearize anyway: the switch then changes nothing in the results.
  recheck_ = std::max<long long>(linearizeEvery_, recheckSteps - recheckSteps % linearizeEvery_);
  timesParallel_.reserve(kRounds);
  timesSerial_.reserve(kRounds);
}

void ParallelWhenItPays::resetLinearization() {
  parallel_->resetLinearization();
  serial_->resetLinearization();
  // The next step linearizes: a check may come with it (the step counts stay aligned).
  steps_ = 0;
}

void ParallelWhenItPays::shortStep(double h, State& state, const InputSignals& inputs, Workspace& ws) {
  current_->shortStep(h, state, inputs, ws);
  parallel_->resetLinearization();
  serial_->resetLinearization();
  // The linearizations count from here: the next check comes at a whole linearization interval.
  steps_ = (steps_ + linearizeEvery_ - 1) / linearizeEvery_ * linearizeEvery_;
}

void ParallelWhenItPays::choose(const State& state, const InputSignals& inputs, const Workspace& ws) {
  using Clock = std::chrono::steady_clock;
  if (!scratchWs_) scratchWs_ = std::make_unique<Workspace>(ws);
  // Blocks of whole linearization intervals, at least 4 steps, from the same state each time.
  const int block = linearizeEvery_ * std::max(1, (4 + linearizeEvery_ - 1) / linearizeEvery_);
  timesParallel_.clear();
  timesSerial_.clear();
  // Steps of one integrator from a copy of the state [s per step].
  auto timeSteps = [&](Lsrt2& lsrt2, int steps) {
    scratch_ = state;
    *scratchWs_ = ws;
    lsrt2.resetLinearization();
    const auto t0 = Clock::now();
    for (int s = 0; s < steps; ++s) lsrt2.step(scratch_, inputs, *scratchWs_);
    return std::chrono::duration<double>(Clock::now() - t0).count() / steps;
  };
  try {
    // A probe of one step each first: threads that share a core (or a host that keeps them far
    // apart) make a handoff cost a scheduler's time slice, and the parallel step is then many
    // times slower; the check stops there, at the cost of one such step.
    // (The pool's threads sleep after 5 ms without work: one untimed step wakes them.)
    timeSteps(*parallel_, 1);
    const double serialProbe = timeSteps(*serial_, 1);
    const double parallelProbe = timeSteps(*parallel_, 1);
    if (parallelProbe > 5.0 * serialProbe) {
      timesSerial_.push_back(serialProbe);
      timesParallel_.push_back(parallelProbe);
    } else {
      for (int round = 0; round < kRounds; ++round)
        for (int k = 0; k < 2; ++k) {
          const bool parallel = (round + k) % 2 == 1;
          (parallel ? timesParallel_ : timesSerial_).push_back(timeSteps(parallel ? *parallel_ : *serial_, block));
        }
    }
  } catch (const SimulationError&) {
    // The copies diverged (the run itself will say where): keep the integrator as it is.
    current_->resetLinearization();
    return;
  }
  parallelTime_ = median(timesParallel_);
  serialTime_ = median(timesSerial_);
  ++checks_;
  current_ = parallelTime_ < serialTime_ ? parallel_.get() : serial_.get();
  parallelChoices_ += current_ == parallel_.get();
  current_->resetLinearization();  // linearizes at the real state next (due anyway)
}

void ParallelWhenItPays::step(State& state, const InputSignals& inputs, Workspace& ws) {
  if (steps_ % recheck_ == 0) choose(state, inputs, ws);
  current_->step(state, inputs, ws);
  ++steps_;
}

std::string ParallelWhenItPays::describe() const {
  const int threads = parallel_->threads();
  std::string text = current_->describe();
  if (checks_ == 0) return text + "; " + std::to_string(threads) + " threads when they are faster";
  char buf[200];
  ek::csnprintf(buf, sizeof buf,
                "; %d threads asked: %d of %d checks chose them (last check %.2f us per step on %d threads, "
                "%.2f us on 1)",
                threads, parallelChoices_, checks_, 1e6 * parallelTime_, threads, 1e6 * serialTime_);
  return text + buf;
}

}  // namespace ek
