// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file mirror.h
/// "Mirror left to right": every row whose name contains "left" and has no twin with "right" is
/// copied, mirrored at the vehicle's centre plane y = 0 (S = diag(1, -1, 1)): bodies (position,
/// orientation S R S, centre of mass, inertia S I S, velocities), their markers, markers named
/// "left" on other bodies (e.g. mounts on the vehicle body), and the force elements, inputs,
/// outputs and load-case signals that use them. New ids follow the largest existing ones.

#include <QString>

#include "engine/model/project.h"

namespace ek::ui {

class ProjectDocument;

/// The mirrored project (pure function, for tests). `added` counts the new rows.
Project mirrorLeftToRight(const Project& p, int* added = nullptr);

/// Applies the mirror to the document as one undo step if the engine accepts the result.
/// @returns an error text (nothing changed) or empty.
QString applyMirror(ProjectDocument* doc);

}  // namespace ek::ui
