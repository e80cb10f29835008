// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/kinematics.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cstddef>
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

void setUnitMaps(BodyKinematics& b) {
  b.R.setIdentity();
  b.Tinv.setIdentity();
  b.RT.setIdentity();
  b.w_W = b.w_B;
  b.N.setZero();
}

namespace {

// BodyKinematics holds p, angles, v, w_B, R, Tinv, RT, w_W, N as 51 consecutive doubles.
static_assert(offsetof(BodyKinematics, N) == offsetof(BodyKinematics, p) + 42 * sizeof(double));

/// Up to kLanes free bodies (slots[0..count)) in lanes, from their angles' sines and cosines
/// (the lane instantiation of rotation::matrixOf(), bodyToRateOf(), rateToWorldOf(),
/// dBodyToRateTimesOf()): R,
/// T^-1, R T, w_W = R w_B and N = d(T^-1 w_B)/d(alpha). The free lanes compute a body at rest
/// and are not stored. Never inlined: one machine code for the serial and the parallel step, and a
/// body's results do not depend on its batch.
[[gnu::noinline]] void freeBodyBatch(const SuspensionModel& model, const State& state, const int* slots, int count,
                                     Workspace& ws) {
  using namespace lanes;
  Pack x[12];  // p, angles, v, w_B
  for (int k = 0; k < 12; ++k) x[k] = Pack{};
  for (int l = 0; l < count; ++l)
    for (int k = 0; k < 6; ++k) x[k][l] = state.r[6 * slots[l] + k], x[6 + k][l] = state.v[6 * slots[l] + k];
  Pack sn[3], cs[3];  // psi, theta, phi
  for (int k = 0; k < 3; ++k) lanes::sincos(x[3 + k], sn[k], cs[k]);
  rotation::TrigT<Pack> t;
  t.sps = sn[0], t.cps = cs[0], t.sth = sn[1], t.cth = cs[1], t.sph = sn[2], t.cph = cs[2];
  rotation::setSecant(t);
  Pack o[48];  // p .. w_W and N's first two columns; its third column is stored on its own
  for (int k = 0; k < 12; ++k) o[k] = x[k];
  const M3 R = rotation::matrixOf(t), Ti = rotation::bodyToRateOf(t), RT = rotation::rateToWorldOf(t);
  const V3 wB = {x[9], x[10], x[11]};
  const V3 wW = R * wB;
  const M3 N = rotation::dBodyToRateTimesOf(t, wB);
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) o[12 + 3 * c + r] = R.m[r][c], o[21 + 3 * c + r] = Ti.m[r][c], o[30 + 3 * c + r] = RT.m[r][c];
  for (int c = 0; c < 2; ++c)
    for (int r = 0; r < 3; ++r) o[42 + 3 * c + r] = N.m[r][c];
  o[39] = wW.x, o[40] = wW.y, o[41] = wW.z;
  double* out[kLanes];
  alignas(64) double scratch[48];
  for (int l = 0; l < kLanes; ++l) out[l] = l < count ? ws.bodies[model.freeBodies[slots[l]]].p.data() : scratch;
  storeLanes(o, out);
  for (int l = 0; l < count; ++l) {
    Mat3& n = ws.bodies[model.freeBodies[slots[l]]].N;
    n(0, 2) = N.m[0][2][l], n(1, 2) = N.m[1][2][l], n(2, 2) = N.m[2][2][l];
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
    calcFreeBodyKinematics(model, state, slots, count, ws);
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

namespace {

// BodyKinematics holds p, angles, v, w_B, R, ..., w_W, MarkerKinematics p, v, w, R, rho and
// ModelMarker s, R_BM as consecutive doubles (Eigen's fixed 3-vectors and 3x3 matrices are plain
// arrays): they are read and written as vectors.
static_assert(sizeof(Vec3) == 3 * sizeof(double) && sizeof(Mat3) == 9 * sizeof(double));
static_assert(offsetof(BodyKinematics, R) == offsetof(BodyKinematics, p) + 12 * sizeof(double));
static_assert(offsetof(ModelMarker, R_BM) == offsetof(ModelMarker, s) + 3 * sizeof(double));
static_assert(offsetof(MarkerKinematics, rho) == offsetof(MarkerKinematics, p) + 18 * sizeof(double));

/// Up to kLanes markers (list[0..n), the free lanes repeat the last), markerKinematics() in lanes:
/// rho = R s, p = p_B + rho, R_WM = R R_BM (R itself where R_BM is the identity: the products
/// by ones and zeros are exact), w = w_W, v = v_B + w x rho. Never inlined: one machine code for
/// the serial and the parallel step, and a marker's results do not depend on its batch.
[[gnu::noinline]] void markerBatch(const SuspensionModel& model, Workspace& ws, const int* list, int n) {
  using namespace lanes;
  int k[kLanes];
  for (int l = 0; l < kLanes; ++l) k[l] = list[l < n ? l : n - 1];
  const double *body[kLanes], *marker[kLanes], *wW[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const BodyKinematics& b = ws.bodies[ws.markers[k[l]].body];
    body[l] = b.p.data();
    wW[l] = b.w_W.data();
    marker[l] = model.markers[k[l]].s.data();
  }
  Pack e[24];  // p, angles, v, w_B, R (column-major), Tinv's first column
  loadLanes(body, e);
  Pack q[12];  // s, R_BM (column-major)
  loadLanes(marker, q);
  M3 R, Rbm;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) R.m[r][c] = e[12 + 3 * c + r], Rbm.m[r][c] = q[3 + 3 * c + r];
  V3 w;
  for (int l = 0; l < kLanes; ++l) w.x[l] = wW[l][0], w.y[l] = wW[l][1], w.z[l] = wW[l][2];
  const V3 rho = R * V3{q[0], q[1], q[2]};
  const V3 p = V3{e[0], e[1], e[2]} + rho;
  const V3 v = V3{e[6], e[7], e[8]} + cross(w, rho);
  const M3 Rm = R * Rbm;
  Pack o[20];  // p, v, w, R_WM (column-major), rho.x, rho.y
  o[0] = p.x, o[1] = p.y, o[2] = p.z, o[3] = v.x, o[4] = v.y, o[5] = v.z, o[6] = w.x, o[7] = w.y, o[8] = w.z;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) o[9 + 3 * c + r] = Rm.m[r][c];
  o[18] = rho.x, o[19] = rho.y;
  double* out[kLanes];
  alignas(64) double scratch[20];
  for (int l = 0; l < kLanes; ++l) out[l] = l < n ? ws.markers[k[l]].p.data() : scratch;
  storeLanes(o, out);
  for (int l = 0; l < n; ++l) ws.markers[k[l]].rho.z() = rho.z[l];
}

}  // namespace

void calcMarkerList(const SuspensionModel& model, Workspace& ws, const int* markers, int n) {
  for (int first = 0; first < n; first += lanes::kLanes)
    markerBatch(model, ws, markers + first, std::min(lanes::kLanes, n - first));
}

void calcMarkerKinematics(const SuspensionModel& model, Workspace& ws) {
  calcMarkerList(model, ws, ws.movingMarkers.data(), static_cast<int>(ws.movingMarkers.size()));
}

MarkerPartials markerPartials(const MarkerKinematics& mk, const BodyKinematics& b) {
  return {-skew(mk.rho), -skew(b.w_W.cross(mk.rho)), -skew(mk.rho) * b.R, -skew(b.w_W), b.R};
}

}  // namespace ek
