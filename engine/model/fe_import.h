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
};

/// Reads `deck` (CalculiX input) and the matrices its `*FREQUENCY, SOLVER=MATRIXSTORAGE` step
/// stored beside it (the deck's path without `.inp`, plus `.sti`, `.mas`, `.dof`), and makes body
/// `bodyId` of `project` flexible with it. Each interface's reference node sits at its marker.
/// @throws ModelError naming the file, the option or the row at fault.
FeImport importCalculixBody(const Project& project, int bodyId, const std::string& deck, const FeImportOptions& options);

/// The job path of a deck: the path without a final ".inp" (any case).
std::string calculixJob(const std::string& deck);

}  // namespace ek
