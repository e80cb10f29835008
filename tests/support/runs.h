// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Helpers to run a project programmatically in tests.

#include <memory>

#include "engine/analysis/simulation.h"
#include "engine/model/project_io.h"

namespace ek::test {

/// Adds a load case "free" (as modelled, no inputs) of the given duration.
void addFreeLoadCase(Project& p, double duration);

/// Paper 003 eq. (27): RMS of y - ref over |mean of ref|.
double error27(const std::vector<double>& y, const std::vector<double>& ref);

/// Runs load case `name` and returns the simulation (already finished).
std::unique_ptr<Simulation> runProject(const Project& p, const std::string& name, double dt, int linEvery = 1,
                                       bool kinematicsDerivative = true);
/// The same with every run option given (integrator, solver, ...).
std::unique_ptr<Simulation> runProject(const Project& p, const std::string& name, const RunOptions& options);

/// The end state of test::spinningBody()'s "free" run by ROS34PW2 at 0.1 ms: the reference of the
/// integrators' convergence tests.
State spinningBodyReference();
/// Errors (norms) of r and v at the end of that run with a method, step and linearization
/// interval, against `ref`.
struct StateErrors {
  double r, v;
};
StateErrors spinningBodyErrors(const std::string& method, double dt, int linEvery, const State& ref);

/// test::stiffOscillator(1 s) at dt = 5 ms with a method: the largest |x|, |x| after 5 steps and
/// at the end (the start is 1 mm).
struct StiffDecay {
  double maxAbs, after5, final;
};
StiffDecay stiffOscillatorDecay(const std::string& method);

/// Work counts of a fixed-step method over a run: right-hand side evaluations (a linearization
/// counting as one), factorizations, linear solves.
struct StepCounts {
  long long evaluations = 0, factorizations = 0, solves = 0;
  bool operator==(const StepCounts& o) const {
    return evaluations == o.evaluations && factorizations == o.factorizations && solves == o.solves;
  }
};

/// Runs `steps` steps of 1 ms of load case LC1 of a project file from `start` with `method` (an
/// Integrator class with rhsEvaluations() and system()) and returns its counts.
template <class Method>
StepCounts countsOnLc1(const std::string& projectFile, const std::string& method, int linEvery, double start,
                       int steps) {
  RunOptions o;
  o.integrator = method;
  o.linearizeEvery = linEvery;
  o.start = start;
  o.duration = 1e-3 * steps;
  Simulation sim(SuspensionModel::build(readProject(projectFile)), "LC1", o);
  sim.run();
  const auto& m = dynamic_cast<const Method&>(sim.integrator());
  return {m.rhsEvaluations(), m.system().factorizations(), m.system().solves()};
}

}  // namespace ek::test
