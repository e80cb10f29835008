// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/kinematics.h"

#include "engine/core/rotation.h"

namespace ek {

void calcBodyKinematics(const SuspensionModel& model, const State& state, Workspace& ws) {
  for (int s = 0; s < model.nFreeBodies(); ++s) {
    BodyKinematics& b = ws.bodies[model.freeBodies[s]];
    b.p = state.r.segment<3>(6 * s);
    b.angles = state.r.segment<3>(6 * s + 3);
    b.v = state.v.segment<3>(6 * s);
    b.w_B = state.v.segment<3>(6 * s + 3);
    b.R = rotation::matrix(b.angles);
    b.Tinv = rotation::bodyToRate(b.angles);
    b.RT = b.R * rotation::rateToBody(b.angles);
    b.w_W = b.R * b.w_B;
    b.N = rotation::dBodyToRateTimes(b.angles, b.w_B);
  }
}

void calcMarkerKinematics(const SuspensionModel& model, Workspace& ws) {
  for (std::size_t k = 0; k < model.markers.size(); ++k) {
    const ModelMarker& m = model.markers[k];
    const BodyKinematics& b = ws.bodies[m.body.value];
    MarkerKinematics& mk = ws.markers[k];
    mk.state = model.bodies[m.body.value].state;
    mk.rho = b.R * m.s;
    mk.p = b.p + mk.rho;
    mk.R = b.R * m.R_BM;
    mk.w = b.w_W;
    mk.v = b.v + b.w_W.cross(mk.rho);
    mk.dp_dth = -skew(mk.rho);
    mk.dv_dth = -skew(b.w_W.cross(mk.rho));
    mk.dv_dw = -skew(mk.rho) * b.R;
    mk.dw_dth = -skew(b.w_W);
    mk.dw_dw = b.R;
  }
}

Mat6x12 chainMarker(const Mat6x12& d, const MarkerKinematics& mk) {
  // Columns of d: marker (p, theta, v, w_W); of the result: body (p, theta, v, w_B).
  Mat6x12 out;
  out.middleCols<3>(0) = d.middleCols<3>(0);
  out.middleCols<3>(3) = d.middleCols<3>(0) * mk.dp_dth + d.middleCols<3>(3) + d.middleCols<3>(6) * mk.dv_dth +
                         d.middleCols<3>(9) * mk.dw_dth;
  out.middleCols<3>(6) = d.middleCols<3>(6);
  out.middleCols<3>(9) = d.middleCols<3>(6) * mk.dv_dw + d.middleCols<3>(9) * mk.dw_dw;
  return out;
}

}  // namespace ek
