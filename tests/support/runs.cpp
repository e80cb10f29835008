// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/runs.h"

#include <algorithm>
#include <cmath>

#include "support/test_models.h"

namespace ek::test {

void addFreeLoadCase(Project& p, double duration) {
  LoadCaseRow lc;
  lc.name = "free";
  lc.duration = duration;
  lc.initialState = InitialState::AsModelled;
  p.loadCases.push_back(lc);
}

double error27(const std::vector<double>& y, const std::vector<double>& ref) {
  double sq = 0.0, mean = 0.0;
  for (std::size_t k = 0; k < y.size(); ++k) {
    sq += (y[k] - ref[k]) * (y[k] - ref[k]);
    mean += ref[k];
  }
  return std::sqrt(sq / y.size()) / std::abs(mean / y.size());
}

std::unique_ptr<Simulation> runProject(const Project& p, const std::string& name, double dt, int linEvery,
                                       bool kinematicsDerivative) {
  RunOptions o;
  o.dt = dt;
  o.linearizeEvery = linEvery;
  o.kinematicsDerivative = kinematicsDerivative;
  return runProject(p, name, o);
}

std::unique_ptr<Simulation> runProject(const Project& p, const std::string& name, const RunOptions& options) {
  auto sim = std::make_unique<Simulation>(SuspensionModel::build(p), name, options);
  sim->run();
  return sim;
}

State spinningBodyReference() {
  RunOptions o;
  o.integrator = "ros34pw2";
  o.dt = 1e-4;
  return runProject(spinningBody(), "free", o)->state();
}

StateErrors spinningBodyErrors(const std::string& method, double dt, int linEvery, const State& ref) {
  RunOptions o;
  o.integrator = method;
  o.dt = dt;
  o.linearizeEvery = linEvery;
  const auto sim = runProject(spinningBody(), "free", o);
  return {(sim->state().r - ref.r).norm(), (sim->state().v - ref.v).norm()};
}

StiffDecay stiffOscillatorDecay(const std::string& method) {
  RunOptions o;
  o.integrator = method;
  o.dt = 5e-3;
  const auto sim = runProject(stiffOscillator(1.0), "free", o);
  const std::vector<double> x = sim->results().series(0);
  double maxAbs = 0.0;
  for (double v : x) maxAbs = std::max(maxAbs, std::abs(v));
  return {maxAbs, std::abs(x[5]), std::abs(x.back())};
}

}  // namespace ek::test
