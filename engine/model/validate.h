// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file validate.h
/// Validation of the project tables: every reference and value a model needs, checked before
/// it is compiled (SuspensionModel::build) and after every edit in the workbench.

#include "engine/model/project.h"

namespace ek {

/// Throws ModelError for the first broken reference or value in the project (file, table, row,
/// field): duplicate ids, missing bodies/markers/curves/inputs, both markers of an element on
/// one body, non-positive mass, inertia not positive definite or violating the triangle
/// inequality, curves with fewer than 2 points or non-increasing abscissae, ...
void validate(const Project& project);

}  // namespace ek
