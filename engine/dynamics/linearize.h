// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file linearize.h
/// Stages 4-6 of the online linearization (paper 003 Sect. 4, Fig. 5) and the function that runs
/// all stages in order.

#include <string>

#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/workspace.h"

namespace ek {

/// Force elements => world wrenches about each free body's centre of mass (ws.wrench) and, with
/// pass.partials, their partials w.r.t. (p, theta, v, w_B) in the block pattern (ws.Jw_r, ws.Jw_v),
/// lever arms included. Elements in the kernels' order: the row blocks of ws.bushingOrder, then of
/// ws.p2pOrder, each in the order of forEachRowBlock().
///   pass.blocks = RowBlocks::InElements: clears the rows, then adds each element's wrench and
///     blocks. @pre calcBushings() and calcP2Ps() ran.
///   pass.blocks = RowBlocks::AddToRows: the kernels added the blocks already; adds the wrenches
///     and the partials w.r.t. driven bodies (Jw_u, Jw_udot).
///     @pre clearSurfaceForces(), then calcBushingList(ws.bushingOrder) and
///     calcP2PList(ws.p2pOrder) with RowBlocks::AddToRows ran.
///   Without pass.partials (kValuesOnly): the wrenches alone, cleared first; no partial is touched.
/// Every way, every block and wrench receives the same sums in the same order.
void calcSurfaceForces(const SuspensionModel& model, Workspace& ws, const ElementPass& pass = {});
/// The steering racks' part of calcSurfaceForces() (their wrenches, with `partials` their blocks
/// and steering-wheel angle columns), after the bushings' and P2P elements'; a rack with a side on
/// a flexible body goes through addFlexibleElementForces() instead.
void scatterSteeringRacks(const SuspensionModel& model, Workspace& ws, bool partials);
/// Sets the world wrenches and all their partials (ws.wrench, Jw_r, Jw_v, Jw_u, Jw_udot) to zero.
void clearSurfaceForces(const SuspensionModel& model, Workspace& ws);

/// A force element by kind and index, for the work lists of the parallel step.
struct ElementRef {
  enum Kind { Bushing, P2P, SteeringRack } kind;
  int index;
};

/// What calcSurfaceForces() does, split by the rows of one free body l (state slot), for the
/// parallel step: clear row l, then add the element blocks whose rows are l (scatterElementBlock()),
/// in the order of calcSurfaceForces() (so every block receives the same sums in the same order).
void clearSurfaceForceRow(const SuspensionModel& model, int l, Workspace& ws);
/// Adds one row block of an element (RowBlocks::InElements) to the rows: aa with the element's
/// wrench and its partials w.r.t. a driven J side to the rows of the body of its marker I; bb with
/// the reaction and its partials w.r.t. a driven I side to the rows of J's body; ab and ba where
/// both bodies are free. A block in the rows of a fixed or driven body adds nothing.
void scatterElementBlock(const SuspensionModel& model, ElementRef e, RowBlock block, Workspace& ws);

/// Adds gravity and the input wrenches for ws.u (h_g, h_u of eq. 2b) to the world wrenches and
/// their partials; fills J_u and J_udot (motion inputs: from the element partials that
/// calcSurfaceForces() collected in Jw_u, Jw_udot).
/// `wheelLoads`: the loads of a K&C rig on the wheels (kWheelLoads per wheel), added after all
/// rows; null: none (runs of load cases).
/// @pre calcSurfaceForces() ran.
void calcBodyForces(const SuspensionModel& model, Workspace& ws, const VecX* wheelLoads = nullptr);
/// Row l of calcBodyForces() without the wheel loads (which calcBodyForces() adds after all rows;
/// they are zero in runs of load cases): gravity, the loads of inputs on body l and, with
/// `partials`, the rows of J_u and J_udot and the loads' position partials.
void addBodyForcesRow(const SuspensionModel& model, int l, Workspace& ws, bool partials = true);

/// Row l of h = h_s - h_w + h_g + h_u (force global, torque in body axes) from body l's world
/// wrench and kinematics in ws, into h (ws.h for the linearization).
void bodyRhsRow(const SuspensionModel& model, int l, const Workspace& ws, VecX& h);

/// World wrenches => h = h_s - h_w + h_g + h_u in generalized coordinates (force global, torque in
/// body axes), J_r = dh/dr (through d theta = R T d alpha), J_v = dh/dv including the gyroscopic
/// term, the blocks of K and of N = d(K v)/dr.
/// @pre calcBodyForces() ran.
void assembleLinearization(const SuspensionModel& model, Workspace& ws);
/// Row l (free body l) of assembleLinearization(); h, K and N only without `jacobians`.
void assembleLinearizationRow(const SuspensionModel& model, int l, Workspace& ws, bool jacobians = true);

/// The forward stages at (state, u, u_dot): body kinematics (driven bodies included), marker
/// kinematics and the force elements with what `pass` asks: values only, or with their partials
/// stored to the elements or added to the rows of ws.Jw_r, Jw_v (cleared first). The one pipeline
/// behind linearize(), evaluateRhs(), the outputs (evaluateOutputsState()) and nonFiniteElement().
void evaluateElements(const SuspensionModel& model, const State& state, const VecX& u, const VecX& uDot,
                      Workspace& ws, const ElementPass& pass);

/// The options of one linearization (arguments, never state of the Workspace).
struct LinearizeOptions {
  /// Assemble J_r and J_v (generalized coordinates). LSRT2 leaves them out: it builds its stage
  /// matrix and products from the world-wrench partials Jw_r, Jw_v (stage_system.h).
  bool jacobians = true;
  /// The Maxwell branches eliminated from a stage matrix I - g J with this g (ElementPass).
  double branchStageGain = 0.0;
  /// The loads of a K&C rig on the wheels (kWheelLoads per wheel, dynamics/wheels.h); null: none.
  const VecX* wheelLoads = nullptr;
};

/// Runs every stage in order at (state, u, u_dot): body kinematics (driven bodies included),
/// marker kinematics, bushings, P2P elements, surface forces, body forces, assembly (paper 003
/// eqs. 8-9, analytic). u_dot, the inputs' rates, moves driven bodies; loads ignore it.
void linearize(const SuspensionModel& model, const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
               const LinearizeOptions& options = {});

/// The same with the inputs at rest (u_dot = 0): equilibria, K&C points, operating points, with the
/// loads of a K&C rig on the wheels (null: none).
void linearize(const SuspensionModel& model, const State& state, const VecX& u, Workspace& ws,
               const VecX* wheelLoads = nullptr);

/// The right-hand side alone at (state, u, u_dot), without any partial: h(r, v, u) of M v' = h
/// into `h` and r' = K(r) v into `rDot` (the stage evaluations of the W-methods, the residuals of
/// BDF2 and generalized-alpha). The same sums as linearize() in the same order, so h equals its
/// ws.h to the last bit. Overwrites the kinematics, element values and wrenches in ws, never the
/// Jacobians (J_r, J_v, J_u, J_udot, K, N). No wheel loads (a run's right-hand side).
/// @throws SimulationError as the element stages do.
void evaluateRhs(const SuspensionModel& model, const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
                 VecX& h, VecX& rDot);

/// Why a linearization at (state, u) is not finite, for the message after a failed factorization
/// (a NaN or Inf in A looks like a singular pivot to the solvers): the first force element
/// (bushings, then P2P elements) whose force or partials are NaN or Inf, with its deflection, or
/// an element stage's own error. Empty when the elements are finite. Off the step's path: it
/// evaluates every element again.
std::string nonFiniteElement(const SuspensionModel& model, const State& state, const VecX& u, Workspace& ws);

/// y += J x for a matrix in the block pattern (J_r, J_v or A).
void blockMultiplyAdd(const BlockPattern& pattern, const std::vector<Mat6>& blocks, const VecX& x, VecX& y);
/// Block row l of blockMultiplyAdd().
inline void blockMultiplyAddRow(const BlockPattern& bp, const std::vector<Mat6>& blocks, int l, const VecX& x, VecX& y) {
  for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s)
    y.segment<6>(6 * l).noalias() += blocks[s] * x.segment<6>(6 * bp.col[s]);
}

/// Row l of y += J_u du (+ J_udot dud for the motion inputs when `motion`), in the slots of the
/// input pattern, inputs ascending (one machine code for the serial and the parallel step).
void inputMultiplyAddRow(const SuspensionModel& model, const Workspace& ws, int l, const VecX& du, const VecX& dud,
                         bool motion, VecX& y);
/// Column k of J_u or J_udot (ws.Ju, ws.Judot) as a dense vector of nDof (for the analyses).
VecX inputColumn(const SuspensionModel& model, const std::vector<Vec6>& slots, int k);
/// All columns (nDof x nInputs), for checks.
MatX inputMatrix(const SuspensionModel& model, const std::vector<Vec6>& slots);

/// Dense copy of a block-pattern matrix (for checks and the dense solver).
MatX blockToDense(const BlockPattern& pattern, const std::vector<Mat6>& blocks);

}  // namespace ek
