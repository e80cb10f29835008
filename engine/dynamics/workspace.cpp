// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/workspace.h"

#include <algorithm>
#include <numeric>

#include "engine/core/rotation.h"
#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"

namespace ek {

bool joinsFlexibleBody(const SuspensionModel& model, MarkerIndex i, MarkerIndex j) {
  return model.markers[i.value].flexible >= 0 || model.markers[j.value].flexible >= 0;
}

Workspace::Workspace(const SuspensionModel& m)
    : bodies(m.bodies.size()),
      drives(m.nInputs()),
      markers(m.markers.size()),
      z(VecX::Zero(m.nElementStates())),
      branches(m.branchDirections.size()),
      bushings(m.bushings.size()),
      p2ps(m.p2ps.size()),
      steeringRacks(m.steeringRacks.size()),
      wrench(m.nFreeBodies(), Vec6::Zero()),
      Jw_r(m.pattern.nBlocks(), Mat6::Zero()),
      Jw_v(m.pattern.nBlocks(), Mat6::Zero()),
      Jw_u(m.inputPattern.nSlots(), Vec6::Zero()),
      Jw_udot(m.inputPattern.nSlots(), Vec6::Zero()),
      u(VecX::Zero(m.nInputs())),
      uDot(VecX::Zero(m.nInputs())),
      h(VecX::Zero(m.nDof())),
      Jr(m.pattern.nBlocks(), Mat6::Zero()),
      Jv(m.pattern.nBlocks(), Mat6::Zero()),
      Ju(m.inputPattern.nSlots(), Vec6::Zero()),
      Judot(m.inputPattern.nSlots(), Vec6::Zero()),
      Kinv(m.nFreeBodies(), Mat3::Identity()),
      N(m.nFreeBodies(), Mat3::Zero()) {
  // Fixed bodies never move: their kinematics are set here once.
  for (std::size_t k = 0; k < m.bodies.size(); ++k) {
    const ModelBody& b = m.bodies[k];
    BodyKinematics& bk = bodies[k];
    bk.p = b.p0;
    bk.angles = b.angles0;
    bk.v.setZero();
    bk.w_B.setZero();
    bk.w_W.setZero();
    bk.R = b.R0;
    bk.Tinv = rotation::bodyToRate(b.angles0);
    bk.RT = rotation::rateToWorld(rotation::trig(b.angles0));
    bk.N.setZero();
  }
  // So are their markers; calcMarkerKinematics() updates only those on moving bodies.
  for (std::size_t k = 0; k < m.markers.size(); ++k) {
    MarkerKinematics& mk = markers[k];
    const ModelBody& b = m.bodies[m.markers[k].body.value];
    mk.state = b.state;
    mk.body = m.markers[k].body.value;
    mk.moves = b.state >= 0 || b.driven();
    markerKinematics(m.markers[k], bodies[mk.body], mk);
    if (mk.moves && m.markers[k].flexible < 0) movingMarkers.push_back(static_cast<int>(k));
  }
  // Elements with a side on a flexible body go through the flexible pass, the others through the
  // lane kernels.
  std::vector<int> rigid;
  for (int e = 0; e < static_cast<int>(m.bushings.size()); ++e)
    (joinsFlexibleBody(m, m.bushings[e].i, m.bushings[e].j) ? flexibleBushings : rigid).push_back(e);
  bushingOrder = batchOrder(m, rigid, true);
  rigid.clear();
  for (int e = 0; e < static_cast<int>(m.p2ps.size()); ++e)
    (joinsFlexibleBody(m, m.p2ps[e].i, m.p2ps[e].j) ? flexibleP2Ps : rigid).push_back(e);
  p2pOrder = batchOrder(m, rigid, false);
  for (int e = 0; e < static_cast<int>(m.steeringRacks.size()); ++e)
    (joinsFlexibleBody(m, m.steeringRacks[e].i, m.steeringRacks[e].j) ? flexibleRacks : rigidRacks).push_back(e);
  flexibleMarkers.resize(m.hasFlexibleBodies() ? m.markers.size() : 0);
  tyres.resize(m.hasTyres() ? m.wheels.size() : 0);
  int largest = 0;
  for (const auto& f : m.flexibleBodies) {
    flexible.emplace_back(f, m.pattern);
    largest = std::max(largest, f.modes());
  }
  for (Mat6X& m : flexMotion) m.setZero(6, 12 + 2 * largest);
  flexReaction.setZero(6, 12 + 2 * largest);
  flexRows.setZero(6 + largest, 12 + 2 * largest);
  flexShapeScratch.setZero(3, largest);
  flexJacobianOf.assign(m.hasFlexibleBodies() ? m.markers.size() : 0, -1);
  auto jacobianFor = [&](MarkerIndex k) {
    if (flexJacobianOf[k.value] >= 0) return;
    flexJacobianOf[k.value] = static_cast<int>(flexJacobianMarkers.size());
    flexJacobianMarkers.push_back(k.value);
    flexJacobians.push_back(MatX::Zero(12, 12 + 2 * largest));
  };
  for (int e : flexibleBushings) {
    jacobianFor(m.bushings[e].i);
    jacobianFor(m.bushings[e].j);
  }
  for (int e : flexibleP2Ps) {
    jacobianFor(m.p2ps[e].i);
    jacobianFor(m.p2ps[e].j);
  }
  for (int e : flexibleRacks) {
    jacobianFor(m.steeringRacks[e].i);
    jacobianFor(m.steeringRacks[e].j);
  }
  for (int k = 0; k < m.nInputs(); ++k)
    if (!m.inputs[k].motion() && m.markers[m.inputs[k].marker.value].flexible >= 0) {
      flexibleLoads.push_back(k);
      jacobianFor(m.inputs[k].marker);
    }
  flexValues.setZero(6 + largest);
  // Viscoelastic directions with a side on a flexible body: that side's modal parts.
  for (std::size_t d = 0; d < m.branchDirections.size(); ++d) {
    const ModelBushing& b = m.bushings[m.branchDirections[d].bushing];
    for (const auto& [marker, side] : {std::pair{b.i.value, &branches[d].modalA}, std::pair{b.j.value, &branches[d].modalB}}) {
      const int f = m.bodies[m.markers[marker].body.value].flexible;
      if (f < 0 || m.flexibleBodies[f].modes() == 0) continue;
      const int n = m.flexibleBodies[f].modes();
      side->firstSlot = m.flexibleBodies[f].firstModalSlot;
      side->modes = n;
      side->marker = marker;
      for (VecX* v : {&side->wq, &side->gq, &side->gqd, &side->dq}) v->setZero(n);
    }
  }
}

FlexibleBodyState::FlexibleBodyState(const ModelFlexibleBody& body, const BlockPattern& bp)
    : inertia(body.modes()), q(VecX::Zero(body.modes())), qd(VecX::Zero(body.modes())) {
  const int n = body.modes(), l = body.frameSlot;
  for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s) {
    if (bp.col[s] == body.firstModalSlot) qColumn = 6 * static_cast<int>(cols.size());
    cols.push_back(bp.col[s]);
  }
  for (int m = 0; m <= body.modalSlots; ++m)
    for (int c : cols) blocks.push_back(bp.find(m == 0 ? l : body.firstModalSlot + m - 1, c));
  rhs.setZero(3 + n);
  drhs.setZero(3 + n, 12 * static_cast<int>(cols.size()));
  noColumns.resize(3 + n, 0);
  if (n > 0) {
    inertia.dh.setZero(3 + n, drhs.cols());
    inertia.t.setZero(3, drhs.cols());
    inertia.y.setZero(3, drhs.cols());
  }
}

}  // namespace ek
