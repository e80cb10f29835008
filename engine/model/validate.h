// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file validate.h
/// Validation of the project tables: every reference and value a model needs, checked before
/// it is compiled (SuspensionModel::build) and after every edit in the workbench.

#include "engine/core/error.h"
#include "engine/model/project.h"

namespace ek {

/// A bushing whose markers are farther apart than this as modelled gets a warning [m].
inline constexpr double kBushingGap = 1e-3;

/// A marker's global position as modelled (its body's pose as modelled; the marker's own
/// position if the body does not exist).
Vec3 markerPositionAsModelled(const Project& project, const MarkerRow& marker);

/// Every problem of the project in one pass, each naming file, table, row (id and name) and
/// field. Errors: non-finite values, duplicate ids, missing bodies/markers/curves/inputs, both
/// markers of an element on one body, non-positive mass, inertia not positive definite or
/// violating the triangle inequality, a body pitched to the Cardan singularity, a bushing whose
/// markers are modelled 90 deg apart in pitch, coincident P2P markers, curves with fewer than 2
/// points or non-increasing abscissae, bad signals and outputs. Warnings: a bushing without any
/// stiffness, a bushing whose markers are more than 1 mm apart as modelled, a force or torque
/// input on a fixed body, a free body that no force element acts on.
Diagnostics check(const Project& project);

/// A law's slope at zero (its curve's derivative there, or the coefficient); NaN when the curve
/// is missing or not a valid curve (check() reports those).
double lawSlopeAtZero(const Project& project, const LawRow& law);

/// @throws ModelError carrying every error of check() (warnings do not throw).
void validate(const Project& project);

}  // namespace ek
