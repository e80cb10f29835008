// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/runs.h"

namespace ek::test {

void addFreeLoadCase(Project& p, double duration) {
  LoadCaseRow lc;
  lc.name = "free";
  lc.duration = duration;
  lc.initialState = InitialState::AsModelled;
  p.loadCases.push_back(lc);
}

std::unique_ptr<Simulation> runProject(const Project& p, const std::string& name, double dt, int linEvery,
                                       bool kinematicsDerivative) {
  RunOptions o;
  o.dt = dt;
  o.linearizeEvery = linEvery;
  o.kinematicsDerivative = kinematicsDerivative;
  auto sim = std::make_unique<Simulation>(SuspensionModel::build(p), name, o);
  sim->run();
  return sim;
}

}  // namespace ek::test
