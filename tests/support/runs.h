// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Helpers to run a project programmatically in tests.

#include <memory>

#include "engine/analysis/simulation.h"

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

}  // namespace ek::test
