// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/kinematics.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/core/lanes.h"
#include "engine/core/rotation.h"

namespace ek {

void calcDrivenBodyKinematics(const SuspensionModel& model, Workspace& ws) {
  for (int bi : model.drivenBodies) {
    const ModelBody& body = model.bodies[bi];
    BodyKinematics& b = ws.bodies[bi];
    // p = c + Rot(d, phi) (p0 - c) + sum s_i d_i, R = Rot(d, phi) R0   (docs/method.md)
    Vec3 shift = Vec3::Zero(), shiftRate = Vec3::Zero();
    for (int k : body.drives) {
      const ModelInput& in = model.inputs[k];
      if (in.kind != InputKind::Translation) continue;
      shift += ws.u[k] * in.axis;
      shiftRate += ws.uDot[k] * in.axis;
      DrivePartials& d = ws.drives[k];
      d.dPose_du.setZero();
      d.dPose_dudot.setZero();
      d.dPose_du.head<3>() = in.axis;
      d.dPose_dudot.segment<3>(6) = in.axis;
    }
    b.R = body.R0;
    b.w_W.setZero();
    b.p = body.p0 + shift;
    b.v = shiftRate;
    if (body.rotation >= 0) {
      const ModelInput& in = model.inputs[body.rotation];
      const Mat3 Rot = Eigen::AngleAxisd(ws.u[body.rotation], in.axis).toRotationMatrix();
      const Vec3 q = Rot * (body.p0 - in.centre);  // reference point from the moving centre
      const Vec3 dq = in.axis.cross(q);
      b.R = Rot * body.R0;
      b.w_W = ws.uDot[body.rotation] * in.axis;
      b.p = in.centre + q + shift;
      b.v += b.w_W.cross(q);
      DrivePartials& d = ws.drives[body.rotation];
      d.dPose_du << dq, in.axis, b.w_W.cross(dq), Vec3::Zero();
      d.dPose_dudot << Vec3::Zero(), Vec3::Zero(), dq, b.R.transpose() * in.axis;
    }
    b.w_B = b.R.transpose() * b.w_W;
    b.angles = rotation::anglesFromMatrix(b.R);
  }
}

namespace {
/// One free body from its angles' sines and cosines (never inlined: one machine code for the
/// serial and the parallel step).
[[gnu::noinline]] void freeBody(const SuspensionModel& model, const State& state, int s, const rotation::Trig& t,
                                Workspace& ws) {
  {
    BodyKinematics& b = ws.bodies[model.freeBodies[s]];
    b.p = state.r.segment<3>(6 * s);
    b.angles = state.r.segment<3>(6 * s + 3);
    b.v = state.v.segment<3>(6 * s);
    b.w_B = state.v.segment<3>(6 * s + 3);
    b.R = rotation::matrix(t);
    b.Tinv = rotation::bodyToRate(t);
    b.RT = rotation::rateToWorld(t);
    b.w_W = b.R * b.w_B;
    b.N = rotation::dBodyToRateTimes(t, b.w_B);
  }
}

/// Up to kLanes free bodies (slots[0..count)), their sines and cosines in lanes (free lanes: zero).
void freeBodyBatch(const SuspensionModel& model, const State& state, const int* slots, int count, Workspace& ws) {
  lanes::Pack a[3], sn[3], cs[3];  // psi, theta, phi
  for (int k = 0; k < 3; ++k) {
    a[k] = lanes::Pack{};
    for (int l = 0; l < count; ++l) a[k][l] = state.r[6 * slots[l] + 3 + k];
    lanes::sincos(a[k], sn[k], cs[k]);
  }
  for (int l = 0; l < count; ++l) {
    rotation::Trig t;
    t.sps = sn[0][l], t.cps = cs[0][l], t.sth = sn[1][l], t.cth = cs[1][l], t.sph = sn[2][l], t.cph = cs[2][l];
    freeBody(model, state, slots[l], t, ws);
  }
}

}  // namespace

void calcFreeBodyKinematics(const SuspensionModel& model, const State& state, const int* slots, int n, Workspace& ws) {
  for (int first = 0; first < n; first += lanes::kLanes)
    freeBodyBatch(model, state, slots + first, std::min(lanes::kLanes, n - first), ws);
}

void setElementStates(const SuspensionModel& model, const State& state, Workspace& ws) {
  if (state.z.size() == 0) {
    ws.z.setZero();
  } else {
    if (state.z.size() != model.nElementStates())
      throw std::logic_error("the state has " + std::to_string(state.z.size()) + " element states, the model " +
                             std::to_string(model.nElementStates()));
    ws.z = state.z;
  }
}

void calcBodyKinematics(const SuspensionModel& model, const State& state, Workspace& ws) {
  setElementStates(model, state, ws);
  for (int first = 0, n = model.nFreeBodies(); first < n; first += lanes::kLanes) {
    int slots[lanes::kLanes];
    const int count = std::min(lanes::kLanes, n - first);
    for (int l = 0; l < count; ++l) slots[l] = first + l;
    freeBodyBatch(model, state, slots, count, ws);
  }
  calcDrivenBodyKinematics(model, ws);
}

void markerKinematics(const ModelMarker& m, const BodyKinematics& b, MarkerKinematics& mk) {
  mk.rho = b.R * m.s;
  mk.p = b.p + mk.rho;
  if (m.aligned) mk.R = b.R;  // equal to b.R * I bit for bit, without the product
  else mk.R.noalias() = b.R * m.R_BM;
  mk.w = b.w_W;
  mk.v = b.v + b.w_W.cross(mk.rho);
}

void calcMarkerKinematics(const SuspensionModel& model, Workspace& ws) {
  for (std::size_t k = 0; k < model.markers.size(); ++k) {
    MarkerKinematics& mk = ws.markers[k];
    if (mk.moves) markerKinematics(model.markers[k], ws.bodies[mk.body], mk);
  }
}

MarkerPartials markerPartials(const MarkerKinematics& mk, const BodyKinematics& b) {
  return {-skew(mk.rho), -skew(b.w_W.cross(mk.rho)), -skew(mk.rho) * b.R, -skew(b.w_W), b.R};
}

}  // namespace ek
