// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file table_path.h
/// Numeric cells of a project addressed by a path, for parameter studies (docs/studies.md):
///   TABLE/ROW/FIELD
/// TABLE is a table's key in the project file ("bodies", "markers", "bushings", "p2p elements",
/// "curves", "inputs", "load cases"), ROW the row's id (a load case: its name), FIELD the keys
/// below the row joined by '.', a list element by its number from 1 in brackets:
///   bodies/3/mass [kg]                 markers/18/position [m][2]
///   bushings/9/x.damping [N s/m]       bushings/9/x.maxwell[1].stiffness [N/m]
///   p2p elements/1/spring [N/m]        load cases/LC1/duration [s]
/// and curves/ID/scale, a factor on every y of a curve (1 is the curve as it is), and
///   hardpoints/MARKER/x [m]  (y [m], z [m]; mirror y [m] is -y)
/// a marker's global coordinate as modelled: setting it moves every marker at that point (the two
/// markers of a joint; within 1e-6 m) in its body's frame, the bodies staying where they are.

#include <string>
#include <utility>
#include <vector>

#include "engine/model/project.h"

namespace ek {

/// The value at `path`. @throws std::invalid_argument naming the path and what is wrong (unknown
/// table, no such row, no such field, a field that is not a number, e.g. a law given by a curve).
double tableValue(const Project& project, const std::string& path);

/// A copy of `project` with the value at `path` set (curves/ID/scale: the curve's y values times
/// `value`, relative to `project`'s). @throws std::invalid_argument as tableValue().
Project withTableValue(const Project& project, const std::string& path, double value);
/// Several cells at once (one pass through the project file's form).
Project withTableValues(const Project& project, const std::vector<std::pair<std::string, double>>& cells);

/// `name` with the whole words left and right (any case as written) swapped: "trailing arm front
/// bushing left" -> "... right"; unchanged if it has neither.
std::string swapSides(const std::string& name);

/// The same cell of the row's left/right twin: the row of the same table whose name is this row's
/// with the words left and right swapped ("trailing arm front bushing left" -> "... right").
/// A hardpoint's twin is the marker at the mirror point (x, -y, z), its y as "mirror y [m]" (so
/// that one value moves both points symmetrically).
/// @throws std::invalid_argument when the name says neither side or no row has the twin's name.
std::string twinPath(const Project& project, const std::string& path);

/// Cells that would be set twice through different paths (aliases): two hardpoints of one joint
/// on the same axis ("hardpoints/16/z" and "hardpoints/17/z" where markers 16 and 17 coincide, or
/// "y [m]" and "mirror y [m]"), a hardpoint and a marker position at that joint (which would tear
/// the joint apart), or one path given twice. One message per clash, naming both paths and
/// the cell; empty when every path sets a cell of its own. Paths that do not resolve are left
/// to tableValue()'s errors.
struct CellAlias {
  std::size_t first = 0, second = 0;  ///< indices into paths, first < second
  std::string message;
};
std::vector<CellAlias> aliasedCells(const Project& project, const std::vector<std::string>& paths);

}  // namespace ek
