// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file fe_import.h
/// A flexible body from a CalculiX model onto a body of a project (docs/import.md, "Finite-element
/// models"): the deck's mesh in the body's frame (scaled by the units), interface node sets coupled
/// rigidly to markers of the body, reduced by Craig-Bampton, stored in the project as a
/// `reduced body` row of the table `flexible bodies`.

#include <string>
#include <utility>
#include <vector>

#include "engine/fe/calculix.h"
#include "engine/fe/sid.h"
#include "engine/model/project.h"

namespace ek {

struct FeImportOptions {
  std::vector<std::pair<std::string, int>> interfaces;  ///< node set name, marker id
  fe::FeUnits units;
  fe::ReductionOptions reduction;                       ///< fixed-interface modes (count or cut)
  double dampingRatio = 0.01;
};

/// What the import did, for the summary.
struct FeImport {
  Project project;
  int flexibleRow = 0;        ///< id of the row written (new or replaced)
  bool replaced = false;
  int nodes = 0, dofs = 0;    ///< of the model read
  double mass = 0.0;
  double previousMass = 0.0;  ///< the body row's mass, replaced (with its centre of mass and inertia) by the model's
  VecX frequencies;           ///< Hz, of the body's elastic modes
  std::vector<std::string> notes;  ///< what was derived or left out, for the summary
  /// Per interface marker (the row's order): what it rides on, "node 13" or "set ROOT (15 nodes)".
  std::vector<std::pair<int, std::string>> riders;
};

/// Reads `deck` (CalculiX input) and the matrices its `*FREQUENCY, SOLVER=MATRIXSTORAGE` step
/// stored beside it (the deck's path without `.inp`, plus `.sti`, `.mas`, `.dof`), and makes body
/// `bodyId` of `project` flexible with it. Each interface's reference node sits at its marker.
/// @throws ModelError naming the file, the option or the row at fault.
FeImport importCalculixBody(const Project& project, int bodyId, const std::string& deck, const FeImportOptions& options);

/// How a SID file goes onto a body.
struct SidImportOptions {
  std::vector<std::pair<int, int>> bindings;  ///< node id of the file, marker id
  double tolerance = 1e-3;  ///< m: a marker not bound by id rides on the nearest node within it
  fe::FeUnits units;        ///< of the file (SI unless told)
  double dampingRatio = 0.01;  ///< when the file has no De
};

/// Reads a SID file (engine/fe/sid.h) and makes body `bodyId` flexible with it: every marker of
/// the body rides on a node of the file, bound by id (options.bindings) or by position (the
/// nearest node within options.tolerance, in the body frame the file's reference frame is taken
/// to be); the nodes no marker rides on are left out.
/// @throws ModelError naming the file, the option or the marker at fault (an unbound marker among
/// them, with its nearest node and distance).
FeImport importSidBody(const Project& project, int bodyId, const std::string& path, const SidImportOptions& options);

/// The SID file (text) of flexible body `bodyId` as the model compiles it (beams reduced, modes
/// above the row's frequency cut left out, its damping), SI units, every node of the body.
/// @throws ModelError when the body is not flexible.
std::string exportSidBody(const Project& project, int bodyId);

/// The job path of a deck: the path without a final ".inp" (any case).
std::string calculixJob(const std::string& deck);

}  // namespace ek
