// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/workspace.h"

#include <numeric>

#include "engine/core/rotation.h"
#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"

namespace ek {

Workspace::Workspace(const SuspensionModel& m)
    : bodies(m.bodies.size()),
      drives(m.nInputs()),
      markers(m.markers.size()),
      z(VecX::Zero(m.nElementStates())),
      branches(m.branchDirections.size()),
      bushings(m.bushings.size()),
      p2ps(m.p2ps.size()),
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
    if (mk.moves) movingMarkers.push_back(static_cast<int>(k));
  }
  std::vector<int> all(m.bushings.size());
  std::iota(all.begin(), all.end(), 0);
  bushingOrder = batchOrder(m, all, true);
  all.resize(m.p2ps.size());
  std::iota(all.begin(), all.end(), 0);
  p2pOrder = batchOrder(m, all, false);
}

}  // namespace ek
