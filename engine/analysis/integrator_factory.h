// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file integrator_factory.h
/// The integrators by name, with their linear solver, and LSRT2 on threads where the build has
/// them (ELASTOKIN_THREADS, engine/parallel): the one file that knows every method and layer.

#include <memory>
#include <string>

#include "engine/integrators/integrator.h"

namespace ek {

/// The method names makeIntegrator() knows, comma-separated (for messages and usage texts).
std::string integratorNames();

/// Whether this build runs LSRT2 on threads (-DELASTOKIN_THREADS=ON, the default).
bool threadsAvailable();

/// @throws std::invalid_argument for an unknown method or solver, or threads where the method or
/// the build has none; std::runtime_error when the threads cannot be created.
std::unique_ptr<Integrator> makeIntegrator(const SuspensionModel& model, const IntegratorOptions& options,
                                           const LoadCaseRow& loadCase);

}  // namespace ek
