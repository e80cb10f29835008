// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file calculix.h
/// A flexible body from a CalculiX model (docs/flexible-bodies.md, "From CalculiX"): the input
/// deck's nodes and node sets, the assembled stiffness and mass that CalculiX stores with
/// `*FREQUENCY, SOLVER=MATRIXSTORAGE` (`JOB.sti`, `JOB.mas`: the upper triangle as "row column
/// value", 1-based; `JOB.dof`: "node.direction" per row), interface node sets coupled rigidly to
/// a reference node each (every node of the set follows the reference node's frame, as an RBE2
/// or CalculiX's `*RIGID BODY`), and the Craig-Bampton reduction of the coupled model onto the
/// reference nodes into the floating-frame data of the engine.
///
/// Read: solid elements (C3D...), point masses and axial springs. CalculiX stores shell and beam
/// elements through an expansion into solids whose nodes the `.dof` names by the original node
/// (each twice or three times), without their positions; such models are refused with that reason.

#include <map>
#include <string>
#include <vector>

#include "engine/fe/floating_frame.h"

namespace ek::fe {

/// The units of a model in SI, time in seconds; the force unit follows (mass x length / s^2):
/// {1e-3, 1e3} is mm, t, s, N, MPa, the usual set of CalculiX models.
struct FeUnits {
  double length = 1.0;  ///< m per model length unit
  double mass = 1.0;    ///< kg per model mass unit
};

/// What the import reads of an input deck (`*INCLUDE`s followed): nodes and node sets.
struct CalculixDeck {
  std::string path;
  std::vector<int> nodeIds;                          ///< file order
  std::vector<Vec3> nodes;                           ///< same order, model units
  std::map<std::string, std::vector<int>> nodeSets;  ///< upper-case name -> node ids, unique, file order
  std::map<std::string, int> elementTypes;           ///< upper-case type -> count
};

/// Reads the deck. @throws ModelError naming the file and line of every problem found in one pass
/// (a node given twice, a set naming an unknown node or set, an element type the import does not
/// read, a number that is not one).
CalculixDeck readCalculixDeck(const std::string& path);

/// The matrices of `JOB.sti`, `JOB.mas` and `JOB.dof` (job: the path without the extension).
struct CalculixMatrices {
  SparseMatrix stiffness, mass;                 ///< full symmetric storage, model units
  std::vector<std::pair<int, int>> dofs;        ///< per row: node id, direction 1..3
  /// The nodes CalculiX made knots of (a fold of a shell: the node's copies through the thickness
  /// follow the node, a rotation node and an expansion node as a rigid body), in the order it made
  /// them, from `JOB.12d` (empty when that file is missing).
  std::vector<int> knots;
  std::string report;                           ///< the .12d file's path (read or not)
};
/// @throws ModelError naming the file and line (a missing file, a row beyond the `.dof`, a bad number).
/// `JOB.12d` is optional: it is needed only when the model has knots.
CalculixMatrices readCalculixMatrices(const std::string& job);

/// One interface: the nodes of `set` follow a reference node at `position` (model units).
struct RigidInterface {
  std::string set;
  Vec3 position = Vec3::Zero();
};

/// The floating-frame body of the model with each interface coupled rigidly to its reference
/// node and reduced onto the reference nodes' six degrees of freedom plus fixed-interface modes.
/// Node k of the result is interface k's reference node (six degrees of freedom); the model's
/// free nodes follow (translations only). SI units.
/// @throws ModelError naming the files when the deck and the matrices do not fit, a set is unknown,
/// empty or shares a node with another, or the model is held (a direction of a node missing).
ModalBody reduceCalculixModel(const CalculixDeck& deck, const CalculixMatrices& matrices,
                              const std::vector<RigidInterface>& interfaces, const FeUnits& units,
                              const ReductionOptions& options);

}  // namespace ek::fe
