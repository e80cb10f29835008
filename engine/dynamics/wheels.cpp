// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/wheels.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <cmath>
#include <limits>
#include <unsupported/Eigen/AutoDiff>

namespace ek {
namespace {

template <class S>
using Vec3Of = Eigen::Matrix<S, 3, 1>;

template <class S>
S length(const Vec3Of<S>& v) {
  using std::sqrt;
  return sqrt(v.dot(v));
}

/// The alignment formulas of wheels.h (all channels but spin) from the wheel centre, the
/// outboard spin axis and the steering axis' upper and lower points. Templated so that the same
/// text gives values (double) and exact gradients (AutoDiffScalar).
template <class S>
void alignment(const Vec3Of<S>& centre, const Vec3Of<S>& axis, const Vec3Of<S>& upper, const Vec3Of<S>& lower, double radius,
               double side, bool steering, std::array<S, kWheelChannels>& out) {
  using std::asin;
  using std::atan2;
  const Vec3Of<S> a = axis / length(axis);
  out[kToe] = atan2(a.x(), S(side) * a.y());
  out[kCamber] = -asin(a.z());
  const Vec3Of<S> up(S(0.0), S(0.0), S(1.0));
  Vec3Of<S> e = up - a.z() * a;  // the road normal's projection on the wheel plane
  e /= length(e);
  const Vec3Of<S> contact = centre - S(radius) * e;
  for (int k = 0; k < 3; ++k) {
    out[kCentreX + k] = centre[k];
    out[kContactX + k] = contact[k];
  }
  if (!steering) return;
  Vec3Of<S> s = upper - lower;
  s /= length(s);
  out[kCaster] = atan2(-s.x(), s.z());
  out[kKingpin] = atan2(S(-side) * s.y(), s.z());
  const Vec3Of<S> ground = lower + ((contact.z() - lower.z()) / s.z()) * s;
  Vec3Of<S> lateral(a.x(), a.y(), S(0.0));
  lateral /= length(lateral);
  const Vec3Of<S> forward = S(side) * lateral.cross(up);
  out[kScrub] = (contact - ground).dot(lateral);
  out[kTrail] = (ground - contact).dot(forward);
}

/// Spin of the wheel relative to its carrier since the design pose: the twist about x of
/// D = R_CM0^T R_C^T R_M.
Mat3 relativeToCarrier(const ModelWheel& w, const Workspace& ws) {
  return w.R_CM0.transpose() * ws.bodies[w.carrier.value].R.transpose() * ws.markers[w.marker.value].R;
}
double twistAboutX(const Mat3& D) { return std::atan2(D(2, 1) - D(1, 2), D(1, 1) + D(2, 2)); }

struct WheelPoints {
  Vec3 centre, axis, upper, lower;
};
WheelPoints points(const ModelWheel& w, const Workspace& ws) {
  WheelPoints p;
  const MarkerKinematics& mk = ws.markers[w.marker.value];
  p.centre = mk.p;
  p.axis = w.axisSign * mk.R.col(0);
  if (w.hasSteeringAxis()) {
    p.upper = ws.markers[w.steerUpper.value].p;
    p.lower = ws.markers[w.steerLower.value].p;
  } else {
    p.upper = p.lower = Vec3::Zero();
  }
  return p;
}

/// g += d/d(angles) and d/d(position) of a body given the partials with respect to its position
/// and global rotation vector (d theta = R T d alpha). Fixed bodies contribute nothing.
void addToBody(const SuspensionModel& model, const Workspace& ws, BodyIndex body, const Eigen::RowVector3d& dp,
               const Eigen::RowVector3d& dth, VecX& g) {
  const int s = model.bodies[body.value].state;
  if (s < 0) return;
  g.segment<3>(6 * s) += dp.transpose();
  g.segment<3>(6 * s + 3) += (dth * ws.bodies[body.value].RT).transpose();
}

/// World torques of a load (force F at the contact point or the centre, torque T) about the
/// wheel's centre of mass and on the carrier.
template <class S>
void loadTorques(const Vec3Of<S>& centre, const Vec3Of<S>& axis, const Vec3Of<S>& com, double radius, const Vec3& Fc,
                 const Vec3& T, const Vec3& Fcentre, Vec3Of<S>& tauWheel, Vec3Of<S>& tauCarrier) {
  const Vec3Of<S> a = axis / length(axis);
  const Vec3Of<S> up(S(0.0), S(0.0), S(1.0));
  Vec3Of<S> e = up - a.z() * a;
  e /= length(e);
  const Vec3Of<S> arm = -S(radius) * e;  // contact - centre
  const Vec3Of<S> F = Fc.cast<S>(), Tq = T.cast<S>(), Ft = Fcentre.cast<S>();
  const Vec3Of<S> aboutCentre = arm.cross(F) + Tq;
  const S brake = a.dot(aboutCentre);  // carried by the locked brake
  tauWheel = (centre + arm - com).cross(F) + Tq + (centre - com).cross(Ft) - brake * a;
  tauCarrier = brake * a;
}

struct LoadVectors {
  Vec3 Fc, T, Ft;
};
LoadVectors loadVectors(const double* l) {
  return {Vec3(l[kFxContact], l[kFyContact], l[kFzContact]), Vec3(l[kMxContact], l[kMyContact], l[kMzContact]),
          Vec3(l[kFxCentre], 0.0, 0.0)};
}

}  // namespace

const char* wheelChannelUnit(int channel) {
  switch (channel) {
    case kToe: case kCamber: case kSpin: case kCaster: case kKingpin: return "rad";
    default: return "m";
  }
}

namespace {

/// Every channel of a wheel from its points; steering channels only with `steering`.
std::array<double, kWheelChannels> channelsOf(const ModelWheel& w, const Workspace& ws, const WheelPoints& p,
                                              bool steering) {
  std::array<double, kWheelChannels> out;
  out.fill(std::numeric_limits<double>::quiet_NaN());
  alignment<double>(p.centre, p.axis, p.upper, p.lower, w.radius, w.side, steering, out);
  out[kSpin] = twistAboutX(relativeToCarrier(w, ws));
  return out;
}

}  // namespace

std::array<double, kWheelChannels> wheelChannels(const ModelWheel& w, const Workspace& ws) {
  return channelsOf(w, ws, points(w, ws), w.hasSteeringAxis());
}

std::array<double, kWheelChannels> wheelChannels(const ModelWheel& w, const Workspace& ws, const Vec3& axisPoint,
                                                 const Vec3& axisDirection) {
  WheelPoints p = points(w, ws);
  const bool axis = axisDirection.allFinite() && axisPoint.allFinite() && axisDirection.norm() > 0.0;
  p.lower = axisPoint;
  p.upper = axisPoint + (axisDirection.z() < 0.0 ? Vec3(-axisDirection) : axisDirection);
  return channelsOf(w, ws, p, axis);
}

void wheelChannelGradient(const SuspensionModel& model, const Workspace& ws, int wheel, int channel, VecX& g) {
  g = VecX::Zero(model.nDof());
  const ModelWheel& w = model.wheels[wheel];
  const MarkerKinematics& mk = ws.markers[w.marker.value];
  if (channel == kSpin) {
    // dD = D [w]x with w = R_M^T (d theta_wheel - d theta_carrier).
    const Mat3 D = relativeToCarrier(w, ws);
    const double S = D(2, 1) - D(1, 2), C = D(1, 1) + D(2, 2);
    Eigen::RowVector3d dw;
    for (int k = 0; k < 3; ++k) {
      const Mat3 dD = D * skew(Vec3::Unit(k));
      dw[k] = (C * (dD(2, 1) - dD(1, 2)) - S * (dD(1, 1) + dD(2, 2))) / (S * S + C * C);
    }
    const Eigen::RowVector3d dth = dw * mk.R.transpose();
    addToBody(model, ws, w.body, Eigen::RowVector3d::Zero(), dth, g);
    addToBody(model, ws, w.carrier, Eigen::RowVector3d::Zero(), -dth, g);
    return;
  }
  if (needsSteeringAxis(channel) && !w.hasSteeringAxis()) return;
  using AD = Eigen::AutoDiffScalar<Eigen::Matrix<double, 12, 1>>;
  const WheelPoints p = points(w, ws);
  Vec3Of<AD> c, a, u, l;
  for (int k = 0; k < 3; ++k) {
    c[k] = AD(p.centre[k], 12, k);
    a[k] = AD(p.axis[k], 12, 3 + k);
    u[k] = AD(p.upper[k], 12, 6 + k);
    l[k] = AD(p.lower[k], 12, 9 + k);
  }
  std::array<AD, kWheelChannels> out;
  alignment<AD>(c, a, u, l, w.radius, w.side, w.hasSteeringAxis(), out);
  const Eigen::Matrix<double, 12, 1>& d = out[channel].derivatives();
  const Eigen::RowVector3d dc = d.segment<3>(0).transpose(), da = d.segment<3>(3).transpose();
  // centre: d c = d p + dp_dth d theta; axis: d a = d theta x a.
  addToBody(model, ws, w.body, dc, -dc * skew(mk.rho) - da * skew(p.axis), g);
  if (w.hasSteeringAxis()) {
    for (const auto& [marker, first] : {std::pair{w.steerUpper, 6}, std::pair{w.steerLower, 9}}) {
      const Eigen::RowVector3d dm = d.segment<3>(first).transpose();
      addToBody(model, ws, model.markers[marker.value].body, dm, -dm * skew(ws.markers[marker.value].rho), g);
    }
  }
}

void addWheelLoads(const SuspensionModel& model, const VecX& wheelLoads, Workspace& ws) {
  if (wheelLoads.size() == 0 || wheelLoads.isZero(0.0)) return;
  if (wheelLoads.size() != kWheelLoads * static_cast<Eigen::Index>(model.wheels.size()))
    throw std::logic_error("wheel loads for " + std::to_string(wheelLoads.size() / kWheelLoads) + " wheels, the model has " +
                           std::to_string(model.wheels.size()));
  using AD = Eigen::AutoDiffScalar<Eigen::Matrix<double, 9, 1>>;
  for (std::size_t k = 0; k < model.wheels.size(); ++k) {
    const double* l = wheelLoads.data() + kWheelLoads * k;
    if (std::all_of(l, l + kWheelLoads, [](double v) { return v == 0.0; })) continue;
    const ModelWheel& w = model.wheels[k];
    const MarkerKinematics& mk = ws.markers[w.marker.value];
    const BodyKinematics& bw = ws.bodies[w.body.value];
    const LoadVectors L = loadVectors(l);
    Vec3Of<AD> c, a, com;
    const Vec3 axis = mk.R.col(0);
    for (int i = 0; i < 3; ++i) {
      c[i] = AD(mk.p[i], 9, i);
      a[i] = AD(axis[i], 9, 3 + i);
      com[i] = AD(bw.p[i], 9, 6 + i);
    }
    Vec3Of<AD> tw, tc;
    loadTorques<AD>(c, a, com, w.radius, L.Fc, L.T, L.Ft, tw, tc);
    // Partials of each torque with respect to the wheel body's (p, theta).
    auto partials = [&](const Vec3Of<AD>& t, Mat3& dp, Mat3& dth) {
      for (int i = 0; i < 3; ++i) {
        const Eigen::Matrix<double, 9, 1>& d = t[i].derivatives();
        const Eigen::RowVector3d dc = d.segment<3>(0).transpose(), da = d.segment<3>(3).transpose(),
                                 dcom = d.segment<3>(6).transpose();
        dp.row(i) = dc + dcom;
        dth.row(i) = -dc * skew(mk.rho) - da * skew(axis);
      }
    };
    Mat3 dpW, dthW, dpC, dthC;
    partials(tw, dpW, dthW);
    partials(tc, dpC, dthC);
    const int sw = model.bodies[w.body.value].state;
    const int sc = model.bodies[w.carrier.value].state;
    Vec3 tauW, tauC;
    for (int i = 0; i < 3; ++i) tauW[i] = tw[i].value(), tauC[i] = tc[i].value();
    const bool carrierIsWheel = w.carrier == w.body;
    ws.wrench[sw].head<3>() += L.Fc + L.Ft;
    ws.wrench[sw].tail<3>() += tauW + (carrierIsWheel ? tauC : Vec3::Zero());
    ws.Jw_r[w.slotWheel].block<3, 3>(3, 0) += dpW + (carrierIsWheel ? dpC : Mat3::Zero());
    ws.Jw_r[w.slotWheel].block<3, 3>(3, 3) += dthW + (carrierIsWheel ? dthC : Mat3::Zero());
    if (!carrierIsWheel && sc >= 0) {
      ws.wrench[sc].tail<3>() += tauC;
      ws.Jw_r[w.slotCarrier].block<3, 3>(3, 0) += dpC;
      ws.Jw_r[w.slotCarrier].block<3, 3>(3, 3) += dthC;
    }
  }
}

void wheelLoadColumn(const SuspensionModel& model, const Workspace& ws, int wheel, int load, VecX& column) {
  column = VecX::Zero(model.nDof());
  const ModelWheel& w = model.wheels[wheel];
  const MarkerKinematics& mk = ws.markers[w.marker.value];
  double l[kWheelLoads] = {};
  l[load] = 1.0;
  const LoadVectors L = loadVectors(l);
  Vec3 tw, tc;
  loadTorques<double>(mk.p, Vec3(mk.R.col(0)), ws.bodies[w.body.value].p, w.radius, L.Fc, L.T, L.Ft, tw, tc);
  const int sw = model.bodies[w.body.value].state;
  const int sc = model.bodies[w.carrier.value].state;
  if (w.carrier == w.body) tw += tc;
  column.segment<3>(6 * sw) = L.Fc + L.Ft;
  column.segment<3>(6 * sw + 3) = ws.bodies[w.body.value].R.transpose() * tw;
  if (w.carrier != w.body && sc >= 0) column.segment<3>(6 * sc + 3) += ws.bodies[w.carrier.value].R.transpose() * tc;
}

}  // namespace ek
