// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/tyre_rows.h"

#include <algorithm>
#include <cmath>

#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/tyre_contact.h"

namespace ek {

void calcTyreKinematics(const SuspensionModel& model, Workspace& ws) {
  for (const ModelWheel& w : model.wheels) {
    if (w.tyreSlot < 0) continue;
    setUnitMaps(ws.bodies[model.freeBodies[w.tyreSlot]]);
  }
}

namespace {

/// The wheel's axis to the vehicle's left.
Vec3 leftAxis(const ModelWheel& w, const MarkerKinematics& mk) { return w.axisSign * w.side * mk.R.col(0); }

constexpr double kBrakeSpinScale = 0.5;  ///< Omega_0 [rad/s] of the brake's -T tanh(Omega / Omega_0)

/// A drive or brake torque on the spin: tau = a u on the spin, -tau y on the reaction body
/// (docs/tyres.md). Drive: a = 1; brake: a = -tanh(Omega / Omega_0) and u below 0 taken as 0.
void addSpinTorque(const SuspensionModel& model, const ModelWheel& w, const ModelWheel::SpinTorque& t, bool brake,
                   const Vec3& y, double spin, Workspace& ws, bool partials) {
  if (t.input < 0) return;
  const double u = brake ? std::max(ws.u[t.input], 0.0) : ws.u[t.input];
  const double th = brake ? std::tanh(spin / kBrakeSpinScale) : 0.0;
  const double a = brake ? -th : 1.0;                                          // d tau / du
  const double aSpin = brake ? -(1.0 - th * th) / kBrakeSpinScale : 0.0;       // d a / d Omega
  const double duOn = brake && ws.u[t.input] < 0.0 ? 0.0 : 1.0;                // d u / d u_input
  const double inertia = w.spinInertia;
  ws.wrench[w.tyreSlot][0] += a * u / inertia;
  if (t.reaction >= 0) ws.wrench[t.reaction].tail<3>() -= a * u * y;
  if (!partials) return;
  ws.Ju[t.inputSlot][0] += duOn * a / inertia;
  ws.Jw_v[model.pattern.diag[w.tyreSlot]](0, 0) += aSpin * u / inertia;
  if (t.reaction < 0) return;
  const Mat3 Rt = ws.bodies[model.freeBodies[t.reaction]].R.transpose();
  ws.Ju[t.reactionInput].tail<3>() -= duOn * a * (Rt * y);
  ws.Jw_r[t.blockHub].block<3, 3>(3, 3) += a * u * skew(y);  // d y / d theta_hub = -[y]x
  ws.Jw_v[t.blockSlot].block<3, 1>(3, 0) -= aSpin * u * y;
}

}  // namespace

void calcTyreContact(const SuspensionModel& model, Workspace& ws, int k, bool partials) {
  const ModelWheel& w = model.wheels[k];
  const MarkerKinematics& mk = ws.markers[w.marker.value];
  const BodyKinematics& sb = ws.bodies[model.freeBodies[w.tyreSlot]];
  TyreContactState cs;
  cs.centre = mk.p;
  cs.axis = leftAxis(w, mk);
  cs.velocity = mk.v;
  cs.angularVelocity = mk.w;
  cs.spin = sb.v[0];
  cs.deflectionX = sb.v[1];
  cs.deflectionY = sb.v[2];
  tyreContact(*w.tyre, TyreRoad{w.roadHeight}, TyreContactOptions{w.tyreMirrored, w.lowSpeedDamping}, cs, partials,
              ws.tyres[k]);
}

void calcTyreContacts(const SuspensionModel& model, Workspace& ws, bool partials) {
  for (int k = 0, n = static_cast<int>(model.wheels.size()); k < n; ++k)
    if (model.wheels[k].tyre) calcTyreContact(model, ws, k, partials);
}

void addTyreForces(const SuspensionModel& model, Workspace& ws, bool partials) {
  using Mat15x6 = Eigen::Matrix<double, kTyreVariables, 6>;
  if (partials)  // a drive or brake input's columns: only addSpinTorque() writes them
    for (const ModelWheel& w : model.wheels)
      for (const ModelWheel::SpinTorque* t : {&w.drive, &w.brake})
        if (t->input >= 0)
          for (int q = model.inputPattern.colStart[t->input]; q < model.inputPattern.colStart[t->input + 1]; ++q)
            ws.Ju[model.inputPattern.colSlots[q]].setZero();
  for (std::size_t k = 0; k < model.wheels.size(); ++k) {
    const ModelWheel& w = model.wheels[k];
    if (!w.tyre) continue;
    const MarkerKinematics& mk = ws.markers[w.marker.value];
    const int hub = mk.state, slot = w.tyreSlot;
    const BodyKinematics& hb = ws.bodies[w.body.value];
    const TyreContact& c = ws.tyres[k];
    const Vec3 force(c.result[kTyreForce], c.result[kTyreForce + 1], c.result[kTyreForce + 2]);
    const Vec3 torque(c.result[kTyreTorque], c.result[kTyreTorque + 1], c.result[kTyreTorque + 2]);
    const Vec3 y = leftAxis(w, mk);
    const Vec3 wy = mk.w.cross(y);
    const double inertia = w.spinInertia, spin = c.spin;
    const Vec3& rho = mk.rho;
    ws.wrench[hub].head<3>() += force;
    ws.wrench[hub].tail<3>() += torque + rho.cross(force) - inertia * spin * wy;
    ws.wrench[slot].head<3>() +=
        Vec3(c.result[kTyreSpinTorque] / inertia, c.result[kTyreDeflectionRateX], c.result[kTyreDeflectionRateY]);
    addSpinTorque(model, w, w.drive, false, y, spin, ws, partials);
    addSpinTorque(model, w, w.brake, true, y, spin, ws, partials);
    if (!partials) continue;

    // The contact's variables by the hub's (p, theta), (v, w_B) and the slot's v.
    Mat15x6 xr = Mat15x6::Zero(), xv = Mat15x6::Zero();
    xr.block<3, 3>(kTyreCentre, 0).setIdentity();
    xr.block<3, 3>(kTyreCentre, 3) = -skew(rho);
    xr.block<3, 3>(kTyreAxis, 3) = -skew(y);
    xr.block<3, 3>(kTyreVelocity, 3) = skew(rho.cross(mk.w));
    xr.block<3, 3>(kTyreAngularVelocity, 3) = -skew(mk.w);
    xv.block<3, 3>(kTyreVelocity, 0).setIdentity();
    xv.block<3, 3>(kTyreVelocity, 3) = -skew(rho) * hb.R;
    xv.block<3, 3>(kTyreAngularVelocity, 3) = hb.R;
    const auto& p = c.partials;
    // Rows of the hub: (F, M + rho x F + G); of the slot: (tau_y / I, u', v').
    Eigen::Matrix<double, 6, kTyreVariables> hubRows;
    hubRows.topRows<3>() = p.middleRows<3>(kTyreForce);
    hubRows.bottomRows<3>() = p.middleRows<3>(kTyreTorque) + skew(rho) * p.middleRows<3>(kTyreForce);
    Eigen::Matrix<double, 3, kTyreVariables> slotRows;
    slotRows.row(0) = p.row(kTyreSpinTorque) / inertia;
    slotRows.row(1) = p.row(kTyreDeflectionRateX);
    slotRows.row(2) = p.row(kTyreDeflectionRateY);
    const BlockPattern& bp = model.pattern;
    Mat6& hubR = ws.Jw_r[bp.diag[hub]];
    Mat6& hubV = ws.Jw_v[bp.diag[hub]];
    hubR.noalias() += hubRows * xr;
    hubR.block<3, 3>(3, 3) += skew(force) * skew(rho) + inertia * spin * skew(wy);
    hubV.noalias() += hubRows * xv;
    hubV.block<3, 3>(3, 3) += inertia * spin * skew(y) * hb.R;
    Mat6& hubSlot = ws.Jw_v[w.tyreBlockHub];
    hubSlot.leftCols<3>() += hubRows.middleCols<3>(kTyreSpin);
    hubSlot.block<3, 1>(3, 0) -= inertia * wy;
    ws.Jw_r[w.tyreBlockSlot].topRows<3>().noalias() += slotRows * xr;
    ws.Jw_v[w.tyreBlockSlot].topRows<3>().noalias() += slotRows * xv;
    ws.Jw_v[bp.diag[slot]].block<3, 3>(0, 0) += slotRows.middleCols<3>(kTyreSpin);
  }
}

std::vector<TyrePatch> tyrePatches(const SuspensionModel& model, const State& state, Workspace& ws) {
  calcBodyKinematics(model, state, ws);
  calcMarkerKinematics(model, ws);
  calcTyreKinematics(model, ws);
  calcTyreContacts(model, ws, false);
  std::vector<TyrePatch> patches(model.wheels.size());
  for (std::size_t k = 0; k < model.wheels.size(); ++k) {
    const ModelWheel& w = model.wheels[k];
    if (!w.tyre) continue;
    const BodyKinematics& hb = ws.bodies[w.body.value];
    TyrePatch& p = patches[k];
    p.point = ws.tyres[k].point;
    p.forwards = leftAxis(w, ws.markers[w.marker.value]).cross(Vec3::UnitZ()).normalized();
    p.lateral = Vec3::UnitZ().cross(p.forwards);
    p.hubPosition = hb.p;
    p.hubRotation = hb.R;
    p.spinAngle = state.r[6 * w.tyreSlot];
    p.effectiveRadius = ws.tyres[k].effectiveRadius;
  }
  return patches;
}

namespace {

/// The hub's arm to its material point that stood on the patch.
Vec3 patchArm(const TyrePatch& p, const BodyKinematics& hub) {
  return hub.R * (p.hubRotation.transpose() * (p.point - p.hubPosition));
}

}  // namespace

void setRestDeflections(const SuspensionModel& model, const std::vector<TyrePatch>& patches, State& state,
                        Workspace& ws) {
  calcBodyKinematics(model, state, ws);
  for (std::size_t k = 0; k < model.wheels.size(); ++k) {
    const ModelWheel& w = model.wheels[k];
    if (!w.tyre) continue;
    const TyrePatch& p = patches[k];
    const BodyKinematics& hb = ws.bodies[w.body.value];
    const Vec3 d = hb.p + patchArm(p, hb) - p.point;
    const int s = 6 * w.tyreSlot;
    state.v[s] = 0.0;
    state.v[s + 1] = -d.dot(p.forwards) + p.effectiveRadius * (state.r[s] - p.spinAngle);
    state.v[s + 2] = -d.dot(p.lateral);
  }
}

void addRestDeflectionPartials(const SuspensionModel& model, const std::vector<TyrePatch>& patches, Workspace& ws) {
  const BlockPattern& bp = model.pattern;
  for (std::size_t k = 0; k < model.wheels.size(); ++k) {
    const ModelWheel& w = model.wheels[k];
    if (!w.tyre) continue;
    const TyrePatch& p = patches[k];
    const BodyKinematics& hb = ws.bodies[w.body.value];
    const int hub = ws.markers[w.marker.value].state, slot = w.tyreSlot;
    // d(u, v_y) by the hub's (p, Cardan angles): d = p + a - P0, da = -[a]x dtheta (global).
    const Mat3 armCross = skew(patchArm(p, hb));
    Eigen::Matrix<double, 2, 6> D;
    D.block<1, 3>(0, 0) = -p.forwards.transpose();
    D.block<1, 3>(1, 0) = -p.lateral.transpose();
    D.block<1, 3>(0, 3) = p.forwards.transpose() * armCross * hb.RT;
    D.block<1, 3>(1, 3) = p.lateral.transpose() * armCross * hb.RT;
    // Rows of the hub and of the slot: their J_v columns of the deflections.
    const std::pair<int, int> rows[2] = {{w.tyreBlockHub, bp.diag[hub]}, {bp.diag[slot], w.tyreBlockSlot}};
    for (const auto& [rowSlot, rowHub] : rows) {
      const Eigen::Matrix<double, 6, 2> deflections = ws.Jv[rowSlot].middleCols<2>(1);
      ws.Jr[rowHub].noalias() += deflections * D;
      ws.Jr[rowSlot].col(0) += p.effectiveRadius * deflections.col(0);
    }
  }
}

}  // namespace ek
