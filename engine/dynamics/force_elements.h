// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file force_elements.h
/// Stage 3 of the online linearization: force elements with their partial derivatives.
///
/// Bushing (DESIGN.md section 2): with d_W = p_I - p_J, the translational deflection is
/// d = R_WJ^T d_W and the rotational deflection a = (alpha_z, alpha_y', alpha_x'') the Cardan
/// angles of R_JI = R_WJ^T R_WI (reported as rx = alpha_x'', ry = alpha_y', rz = alpha_z).
/// Per direction the force on I is f = preload - S(deflection) - D(rate). The translational
/// force acts at p_I along J's axes; the rotational generalized forces f_a are conjugate to a, so
/// the torque on I is tau = R_WI T(a)^-T f_a (virtual work, exact for large angles). The
/// reactions act on J's body at p_I (with the lever arm to its centre of mass).
///
/// P2P: along e = d_W/|d_W|; tension T = preload + S(l - l0) + D(l_dot) - bump + rebound,
/// force on I is -T e, on J +T e.
///
/// Steering rack (SteeringRackRow): along z = R_WJ e_z, travel s = d_W . z - s0 and rate
/// s' = (v_I - v_J - w_J x d_W) . z; with g = s - ratio u the force on I is F = -(k g + c g') z at
/// p_I (u the steering-wheel angle): a bushing's z direction whose zero moves with the input.

#include <vector>

#include "engine/core/lanes.h"
#include "engine/dynamics/workspace.h"

namespace ek {

/// The elements a kernel computes at once (lanes::kLanes): the batches of a list are its
/// consecutive groups of kElementBatch.
constexpr int kElementBatch = lanes::kLanes;

/// An element's row blocks (ElementWrench::Slot, BlockSlots; a = body of marker I, b = body of
/// marker J): the A half in a's rows (aa, ab), the B half, the reaction, in b's rows (ba, bb).
/// Numbered in the order the kernels add them.
enum RowBlock { kBlockAA, kBlockBA, kBlockAB, kBlockBB };

/// The order in which the row blocks (and with them the wrenches) of the elements of `list` are
/// added to the rows: batch after batch, in a batch every element's aa, then every element's ba,
/// ab and bb (what a kernel adding to the rows does). f(element, block) for each.
template <class F>
void forEachRowBlock(const std::vector<int>& list, F&& f) {
  const int n = static_cast<int>(list.size());
  for (int first = 0; first < n; first += kElementBatch)
    for (int b = kBlockAA; b <= kBlockBB; ++b)
      for (int k = first; k < n && k < first + kElementBatch; ++k) f(list[k], static_cast<RowBlock>(b));
}

/// Where the element kernels put the row blocks of their partials (ElementWrench::Slot).
enum class RowBlocks {
  /// In the elements (ws.bushings[e].wrench.aa ...), for scatterElementBlock() to add.
  InElements,
  /// Added straight to the slots of ws.Jw_r and ws.Jw_v they belong to, in the order of
  /// forEachRowBlock(): the serial linearization, which clears the rows before
  /// (clearSurfaceForces()) and scatters the wrenches after. The elements' blocks are not written.
  AddToRows,
};

/// What a pass over the force elements computes: the values (deflections, rates, forces,
/// wrenches) always, their partials if asked, and where the row blocks go. The one option of the
/// laws themselves is the gain of the Maxwell branches' elimination.
struct ElementPass {
  bool partials = true;  ///< the wrenches' partials too (false: values only, outputs and right-hand sides)
  RowBlocks blocks = RowBlocks::InElements;
  /// Branch elimination: when positive, the bushings' partials include, per viscoelastic
  /// direction, the effective damping sum_i k_i g / (1 + g k_i / c_i) of its branches eliminated
  /// from a stage matrix I - g J (g = h gamma; docs/method.md, "Maxwell branches"). Zero: J itself.
  double branchStageGain = 0.0;
  /// Also store every element's side partials (ElementWrench::Fp .. TwB); otherwise only those of
  /// elements on driven bodies are (the rows' blocks are what the linearization adds). For checks.
  bool allSidePartials = false;
};
/// Values only.
inline constexpr ElementPass kValuesOnly{false, RowBlocks::InElements, 0.0, false};

/// Marker kinematics => bushing deflections, rates, forces, wrench and (pass.partials) the
/// wrench's partials (ws.bushings), kLanes bushings at a time (the lane instantiation of the laws).
/// @pre calcMarkerKinematics() ran.
/// @throws SimulationError when a relative rotation reaches the Cardan singularity.
void calcBushings(const SuspensionModel& model, Workspace& ws, const ElementPass& pass = {});
/// Marker kinematics => P2P length, rate, tension, wrench and (pass.partials) its partials (ws.p2ps).
/// @pre calcMarkerKinematics() ran.
/// @throws SimulationError when the two markers coincide (no line of action).
void calcP2Ps(const SuspensionModel& model, Workspace& ws, const ElementPass& pass = {});

/// The bushings of `list` (indices), kLanes at a time (engine/core/lanes.h), as calcBushings()
/// does for all: elements are independent of each other, and each one's results are the same bit
/// for bit whatever the list. A block is written (or added) only where its row and column bodies
/// are free: the A half's blocks aa (and ab, ba, where J's body is free too), the B half's bb.
void calcBushingList(const SuspensionModel& model, Workspace& ws, const std::vector<int>& list,
                     const ElementPass& pass = {});
/// The P2P elements of `list`, as calcBushingList() does for bushings.
void calcP2PList(const SuspensionModel& model, Workspace& ws, const std::vector<int>& list,
                 const ElementPass& pass = {});

/// Marker kinematics and the steering-wheel angles (ws.u, ws.uDot) => each steering rack's travel,
/// force, column torque and wrench, with `partials` its side partials and row blocks
/// (RowBlocks::InElements) in ws.steeringRacks. One element at a time (a vehicle has one rack).
/// @pre calcMarkerKinematics() ran.
void calcSteeringRacks(const SuspensionModel& model, Workspace& ws, bool partials);

/// Bushing e with the scalar instantiation of the same laws (S = double, force_elements.cpp): its
/// values, side partials (always), the row blocks of its moving sides (as RowBlocks::InElements)
/// and branch couplings. The reference the lane kernels are compared with and that the finite-
/// difference tests check; off the step's path.
void calcBushingScalar(const SuspensionModel& model, Workspace& ws, int e, double branchStageGain = 0.0);
/// P2P element e with the scalar instantiation, as calcBushingScalar().
void calcP2PScalar(const SuspensionModel& model, Workspace& ws, int e);

/// `elements` (bushings or P2P elements) reordered so that elements whose bodies move alike
/// (both, only I's, only J's) follow each other, ascending within each group: a batch then stores
/// the row blocks of the moving sides only. The order does not change any result.
std::vector<int> batchOrder(const SuspensionModel& model, std::vector<int> elements, bool bushings);

}  // namespace ek
