// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file project_diff.h
/// What changed between two versions of a project, in the words of its tables: the legend of
/// a kept result ("bushings 9 'trailing arm bushing left': x stiffness [N/m] 1e+06 -> 5e+05").

#include <string>
#include <vector>

#include "engine/model/project.h"

namespace ek {

/// One line per changed field (rows matched by id, load cases and outputs by name; rows added
/// or removed are one line each), in table order; at most `limit` lines, then "... and N more".
/// Empty when the projects are equal as stored. A marker's position is given as a hardpoint's:
/// "global position [m]" as modelled (its body's pose applied, to the nanometre), so moving a
/// joint reads in vehicle coordinates and a body's move lists the points it moved.
std::vector<std::string> describeChanges(const Project& before, const Project& after, std::size_t limit = 20);

}  // namespace ek
