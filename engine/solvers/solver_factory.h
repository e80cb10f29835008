// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file solver_factory.h
/// The linear solvers by name (the one file that knows them all).

#include <memory>
#include <string>

#include "engine/solvers/linear_solver.h"

namespace ek {

/// Creates a solver by name: "topology", "klu" or "dense". @throws std::invalid_argument for an unknown name.
std::unique_ptr<LinearSolver> makeLinearSolver(const std::string& name, const SuspensionModel& model);

/// SuiteSparse KLU (klu_solver.h). Defined in klu_solver.cpp; a build without SuiteSparse (the
/// source FMU, docs/fmi.md) defines it as an error instead (fmu/without_sparse_libraries.cpp).
std::unique_ptr<LinearSolver> makeKluSolver(const SuspensionModel& model);

}  // namespace ek
