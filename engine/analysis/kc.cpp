// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/kc.h"

#include <Eigen/LU>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/linearize.h"
#include "engine/dynamics/outputs.h"
#include "engine/model/table_path.h"
#include "engine/analysis/simulation.h"

namespace ek {
namespace {

constexpr double kDeg = 180.0 / M_PI;
/// Pseudo time step [s^2] of the continuation from the previous point of a sweep: long enough
/// to be Newton's method at once; the solver shortens it where a step fails.
constexpr double kWarmStartStep = 1e2;

constexpr EnumName<KcKind> kKinds[] = {{KcKind::ParallelTravel, "parallel-travel"},
                               {KcKind::OppositeTravel, "opposite-travel"},
                               {KcKind::SingleTravel, "single-travel"},
                               {KcKind::StaticLoad, "static-load"},
                               {KcKind::Steering, "steering"}};

/// The linearization at an equilibrium and the factorized A = -J_r K + mu M (mu: the tiny
/// regularization of free directions such as wheel spin, as in the equilibrium solver).
class Linearization {
 public:
  Linearization(const SuspensionModel& model, const State& state, const VecX& wheelLoads, const VecX& u)
      : model_(model), ws_(model), sys_(model) {
    linearize(model, state, u, ws_, &wheelLoads);
    sys_.factorize(ws_, 1e-12 * sys_.stiffnessScale(ws_));
  }
  Linearization(const SuspensionModel& model, const KcDesign& design)
      : Linearization(model, design.state, design.wheelLoads, VecX::Zero(model.nInputs())) {}
  const Workspace& ws() const { return ws_; }
  /// The response dq (dr = K dq) to a generalized load column b: J_r dr + b = 0.
  VecX respond(const VecX& b) {
    VecX dq(b.size());
    sys_.solveWithoutRegularization(b, dq);
    return dq;
  }
  /// Gradient of a wheel channel in body-twist increments: dy = g . dq.
  VecX gradient(int wheel, int channel) const {
    VecX g;
    wheelChannelGradient(model_, ws_, wheel, channel, g);
    for (int l = 0; l < model_.nFreeBodies(); ++l) g.segment<3>(6 * l + 3) = ws_.Kinv[l].transpose() * g.segment<3>(6 * l + 3);
    return g;
  }
  VecX loadColumn(int wheel, int load) const {
    VecX b;
    wheelLoadColumn(model_, ws_, wheel, load, b);
    return b;
  }

 private:
  const SuspensionModel& model_;
  Workspace ws_;
  EquilibriumSystem sys_;
};

/// Responses with the wheel-centre heights prescribed: the vertical contact forces (one per
/// wheel) solve for them, like the wheel pads of a K&C rig.
class HeldHeights {
 public:
  HeldHeights(const SuspensionModel& model, Linearization& lin)
      : lin_(lin), m_(static_cast<int>(model.wheels.size())), X_(model.nDof(), m_), CK_(m_, model.nDof()) {
    for (int w = 0; w < m_; ++w) {
      X_.col(w) = lin.respond(lin.loadColumn(w, kFzContact));
      CK_.row(w) = lin.gradient(w, kCentreZ).transpose();
    }
    lu_.compute(CK_ * X_);
    if (lu_.rank() < m_)
      throw SimulationError("the wheel heights cannot be driven by the vertical forces at the contact points "
                            "(the vertical stiffness of the suspension is singular here)");
    refuseFloating(model);
  }
  /// The rig's pads hold the wheels only vertically: a model whose bodies can move together
  /// along the ground (a vehicle body held by nothing but its wheels) has free directions that
  /// every channel sees, and its compliances would be the regularization's. A horizontal force at
  /// a wheel's contact point that moves a body by more than 1 cm per newton (a suspension yields
  /// by micrometres) is that case: refused, naming the body.
  void refuseFloating(const SuspensionModel& model) {
    constexpr double kFloating = 1e-2;  // [m/N]
    for (int w = 0; w < m_; ++w)
      for (int load : {kFxContact, kFyContact}) {
        const VecX dq = respond(lin_.loadColumn(w, load));
        for (int l = 0; l < model.nFreeBodies(); ++l) {
          const ModelBody& b = model.bodies[model.freeBodies[l]];
          if (b.modal || !(dq.segment<3>(6 * l).norm() > kFloating)) continue;
          throw SimulationError("body " + std::to_string(b.id) + " '" + b.name + "' moves " +
                                significant(dq.segment<3>(6 * l).norm()) + " m per newton of " +
                                (load == kFxContact ? "longitudinal" : "lateral") + " force at wheel " +
                                std::to_string(model.wheels[w].id) + " '" + model.wheels[w].name +
                                "': the K&C rig holds the wheels only vertically, so a vehicle body held by "
                                "nothing else floats; make the vehicle body fixed (\"fixed\": true) in the "
                                "project the K&C analyses run on");
        }
      }
  }
  /// dq when the heights change by dz (per wheel) and nothing else; the vertical forces into `forces`.
  VecX move(const VecX& dz, VecX& forces) {
    forces = lu_.solve(dz);
    return X_ * forces;
  }
  /// The changes of the vertical forces at the contact points that hold the heights under a
  /// generalized load column b (per wheel, upward positive).
  VecX heldForces(const VecX& b) { return -lu_.solve(CK_ * lin_.respond(b)); }
  /// dq for a generalized load column b, the heights held.
  VecX respond(const VecX& b) {
    const VecX dq0 = lin_.respond(b);
    return dq0 - X_ * lu_.solve(CK_ * dq0);
  }

 private:
  Linearization& lin_;
  int m_;
  MatX X_, CK_;
  Eigen::FullPivLU<MatX> lu_;
};

/// Rates of every wheel channel and of every vertical force when the wheel centres move with
/// d(height) = pattern (one entry per wheel), the vertical forces solving for it.
struct TravelRates {
  MatX channel;  ///< [wheel][channel] per metre of travel
  VecX force;    ///< vertical force per metre [N/m]
  /// Longitudinal (x) and vertical (z) rates of the carrier-fixed point at the contact patch per
  /// metre of travel: the point a braking force acts on when the brake locks wheel and carrier
  /// (outboard brakes). Unlike the geometric contact point (the wheel's lowest point, kContactX),
  /// it follows the carrier's pitch.
  VecX carrierContactX, carrierContactZ;
  /// The carrier's pitch rate (world y component of its angular velocity) per metre of travel.
  VecX carrierPitch;
  VecX dq;  ///< the motion per metre of travel
};

/// d(x, z, pitch) / d q of the wheel's carrier: rows 0 and 1 the x and z of the carrier-fixed
/// point at the contact patch now, row 2 the world y component of the carrier's rotation
/// (body-twist increments: dP = dp + (R dtheta_B) x (P - p)); zero when the carrier is fixed.
Eigen::Matrix<double, 3, Eigen::Dynamic> carrierSideViewGradient(const SuspensionModel& model, const Workspace& ws,
                                                                 int w) {
  Eigen::Matrix<double, 3, Eigen::Dynamic> g = Eigen::Matrix<double, 3, Eigen::Dynamic>::Zero(3, model.nDof());
  const ModelWheel& wheel = model.wheels[w];
  const int carrier = wheel.carrier.value >= 0 ? wheel.carrier.value : wheel.body.value;
  const int slot = model.bodies[carrier].state;
  if (slot < 0) return g;
  const std::array<double, kWheelChannels> ch = wheelChannels(wheel, ws);
  const BodyKinematics& b = ws.bodies[carrier];
  const Vec3 rho = Vec3(ch[kContactX], ch[kContactY], ch[kContactZ]) - b.p;
  // e . ((R dtheta) x rho) = (rho x e) . (R dtheta)
  g(0, 6 * slot) = 1.0;
  g(1, 6 * slot + 2) = 1.0;
  g.block<1, 3>(0, 6 * slot + 3) = (b.R.transpose() * rho.cross(Vec3::UnitX())).transpose();
  g.block<1, 3>(1, 6 * slot + 3) = (b.R.transpose() * rho.cross(Vec3::UnitZ())).transpose();
  g.block<1, 3>(2, 6 * slot + 3) = b.R.row(1);
  return g;
}
TravelRates travelRates(const SuspensionModel& model, Linearization& lin, HeldHeights& held, const VecX& pattern) {
  const int m = static_cast<int>(model.wheels.size());
  TravelRates t;
  t.dq = held.move(pattern, t.force);
  const VecX& dq = t.dq;
  t.channel.resize(m, kWheelChannels);
  t.carrierContactX.resize(m);
  t.carrierContactZ.resize(m);
  t.carrierPitch.resize(m);
  for (int w = 0; w < m; ++w) {
    for (int c = 0; c < kWheelChannels; ++c) t.channel(w, c) = lin.gradient(w, c).dot(dq);
    const Vec3 rates = carrierSideViewGradient(model, lin.ws(), w) * dq;
    t.carrierContactX[w] = rates[0];
    t.carrierContactZ[w] = rates[1];
    t.carrierPitch[w] = rates[2];
  }
  return t;
}

/// The kinematic roll centre (y, z) in the front view: each contact point moves perpendicular to
/// the line from it to the roll centre; a left and a right wheel's lines intersect there (one side
/// only: the line meets the centre plane y = 0). False where the lines are parallel.
bool rollCentre(const SuspensionModel& model, const std::vector<std::array<double, kWheelChannels>>& at,
                const TravelRates& par, Eigen::Vector2d& rc) {
  const int m = static_cast<int>(model.wheels.size());
  int left = -1, right = -1;
  for (int w = m - 1; w >= 0; --w) (model.wheels[w].side > 0 ? left : right) = w;  // the first of each side
  auto line = [&](int w, Eigen::Vector2d& p, Eigen::Vector2d& d) {
    p = {at[w][kContactY], at[w][kContactZ]};
    d = {-par.channel(w, kContactZ), par.channel(w, kContactY)};  // perpendicular to the velocity
  };
  if (left >= 0 && right >= 0) {
    Eigen::Vector2d p1, d1, p2, d2;
    line(left, p1, d1);
    line(right, p2, d2);
    Eigen::Matrix2d M;
    M << d1, -d2;
    if (!(std::abs(M.determinant()) > 1e-12 * d1.norm() * d2.norm())) return false;
    const Eigen::Vector2d t = M.lu().solve(p2 - p1);
    rc = p1 + t[0] * d1;
    return true;
  }
  if (m == 0) return false;
  Eigen::Vector2d p, d;
  line(0, p, d);
  if (!(std::abs(d.x()) > 1e-12 * d.norm())) return false;
  rc = p + (-p.x() / d.x()) * d;
  return true;
}

/// Instant centres of a wheel's carrier moving with that wheel's own travel (the other wheel
/// centres held): in the front view (y, z), about which it turns in the y-z plane, and in the
/// side view (x, z). NaN in a view where the carrier does not turn.
std::array<double, 4> instantCentres(const SuspensionModel& model, Linearization& lin, HeldHeights& held, int wheel) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::array<double, 4> out{nan, nan, nan, nan};
  const ModelWheel& w = model.wheels[wheel];
  const int s = model.bodies[w.carrier.value].state;
  if (s < 0) return out;
  VecX dz = VecX::Zero(static_cast<Eigen::Index>(model.wheels.size())), forces;
  dz[wheel] = 1.0;
  const VecX dq = held.move(dz, forces);
  const BodyKinematics& c = lin.ws().bodies[w.carrier.value];
  const Vec3 v = dq.segment<3>(6 * s), omega = c.R * dq.segment<3>(6 * s + 3);
  // v_P = v + omega x (P - C) without its in-plane components at the instant centre.
  if (std::abs(omega.x()) > 1e-9 * v.norm()) out[0] = c.p.y() - v.z() / omega.x(), out[1] = c.p.z() + v.y() / omega.x();
  if (std::abs(omega.y()) > 1e-9 * v.norm()) out[2] = c.p.x() + v.z() / omega.y(), out[3] = c.p.z() - v.x() / omega.y();
  return out;
}

/// A flexible body's modal coordinate increments in dq (mode k at entry k % 6 of slot
/// firstModalSlot + k / 6).
VecX modalIncrements(const ModelFlexibleBody& f, const VecX& dq) {
  VecX eta(f.modes());
  for (int k = 0; k < f.modes(); ++k) eta[k] = dq[6 * (f.firstModalSlot + k / 6) + k % 6];
  return eta;
}

/// A marker's global displacement and rotation for body increments dq (world translation of the
/// body's centre of mass, rotation in body axes, as the Linearization's responses hold them), with
/// the elastic part of a marker on a flexible body (its node's mode shapes times the modal
/// increments).
Vec3 markerShift(const SuspensionModel& model, const Workspace& ws, int marker, const VecX& dq) {
  const MarkerKinematics& k = ws.markers[marker];
  if (k.state < 0) return Vec3::Zero();
  const Mat3& R = ws.bodies[k.body].R;
  const Vec3 theta = R * dq.segment<3>(6 * k.state + 3);
  Vec3 shift = dq.segment<3>(6 * k.state) + theta.cross(k.rho);
  if (const ModelMarker& mm = model.markers[marker]; mm.flexible >= 0)
    shift += R * (mm.shape.translation * modalIncrements(model.flexibleBodies[mm.flexible], dq));
  return shift;
}
Vec3 markerTurn(const SuspensionModel& model, const Workspace& ws, int marker, const VecX& dq) {
  const MarkerKinematics& k = ws.markers[marker];
  if (k.state < 0) return Vec3::Zero();
  const Mat3& R = ws.bodies[k.body].R;
  Vec3 turn = R * dq.segment<3>(6 * k.state + 3);
  if (const ModelMarker& mm = model.markers[marker]; mm.flexible >= 0)
    turn += R * (ws.flexibleMarkers[marker].jl *
                 (mm.shape.rotation * modalIncrements(model.flexibleBodies[mm.flexible], dq)));
  return turn;
}

/// True when a body belongs to a subsystem whose name ends in `group` ("anti-roll bar", "twist
/// beam": the project's grouping).
bool inGroup(const SuspensionModel& model, int body, std::string_view group) {
  const int id = model.bodies[body].id;
  for (const BodyRow& b : model.project().bodies)
    if (b.id == id) return asciiLower(b.subsystem).ends_with(group);
  return false;
}
bool isAntiRollBar(const SuspensionModel& model, int body) { return inGroup(model, body, "anti-roll bar"); }

/// Motion ratios, each wheel moved alone (the other wheel centres held at their heights):
/// every P2P element's compression per wheel travel [mm/mm] for the wheel that moves it most,
/// and the twist of every torsion spring of an anti-roll bar (a bushing joining two bodies of the
/// subsystem "anti-roll bar" whose stiffness about x is at least a tenth of the stiffest such
/// bushing's) about its J marker's x axis per travel
/// of each wheel [deg/mm], signed so that a symmetric axle has the same figure on both sides
/// (the left wheel's sign).
void addMotionRatios(const SuspensionModel& model, Linearization& lin,
                     const std::function<void(const std::string&, int, double, const std::string&)>& add) {
  const int m = static_cast<int>(model.wheels.size());
  HeldHeights held(model, lin);
  std::vector<VecX> single(m);
  for (int w = 0; w < m; ++w) {
    VecX dz = VecX::Zero(m), forces;
    dz[w] = 1.0;
    single[w] = held.move(dz, forces);
  }
  const Workspace& ws = lin.ws();
  for (const ModelP2P& e : model.p2ps) {
    const int i = e.i.value, j = e.j.value;
    const Vec3 d = ws.markers[i].p - ws.markers[j].p;
    if (!(d.norm() > 0.0)) continue;  // no line of action at design
    const Vec3 u = d.normalized();
    int best = -1;
    double rate = 0.0;
    for (int w = 0; w < m; ++w) {
      const double r = -u.dot(markerShift(model, ws, i, single[w]) - markerShift(model, ws, j, single[w]));
      if (std::abs(r) > std::abs(rate)) rate = r, best = w;
    }
    if (best >= 0 && std::abs(rate) > 1e-6)
      add("motion ratio, " + e.name + " (compression per wheel travel)", best, rate, "mm/mm");
  }
  // The bars' torsion springs: bushings between two bar bodies whose torsional rate is at least
  // a tenth of the stiffest one's (the links' ball joints turn almost freely).
  std::vector<const ModelBushing*> bar;
  double stiffest = 0.0;
  for (const ModelBushing& b : model.bushings)
    if (isAntiRollBar(model, model.markers[b.i.value].body.value) &&
        isAntiRollBar(model, model.markers[b.j.value].body.value)) {
      bar.push_back(&b);
      stiffest = std::max(stiffest, std::abs(b.stiffness[3].eval(0.0).dydx));
    }
  for (const ModelBushing* torsion : bar) {
    const ModelBushing& b = *torsion;
    const int i = b.i.value, j = b.j.value;
    if (!(std::abs(b.stiffness[3].eval(0.0).dydx) >= 0.1 * stiffest) || stiffest == 0.0) continue;
    const Vec3 axis = ws.markers[j].R.col(0);
    for (int w = 0; w < m; ++w) {
      const double twist = axis.dot(markerTurn(model, ws, i, single[w]) - markerTurn(model, ws, j, single[w]));
      add("anti-roll bar twist, " + b.name + " (per wheel travel)", w, model.wheels[w].side * twist * kDeg / 1000.0,
          "deg/mm");
    }
  }
}

/// A roll spring's share of a motion dq (the anti-roll bar's, or a twist beam's: the bodies of the
/// subsystem `group`): its elastic stiffness along dq, dq^T K_group dq [N m per unit of dq squared],
/// -1 when the model has no such group. K_group holds every bushing joining two bodies of the group
/// (each direction's rate at its design deflection, deflections in marker J's axes) and the modal
/// stiffness of every flexible body of the group: for a roll motion per radian it is the bar's roll
/// stiffness, its torsional rate times its twist per roll angle squared (the textbook figure, here
/// with the twist the linkage's compliance leaves it).
double groupStiffnessAlong(const SuspensionModel& model, const Workspace& ws, const VecX& dq, std::string_view group) {
  bool found = false;
  double sum = 0.0;
  for (const ModelBushing& b : model.bushings) {
    const int i = b.i.value, j = b.j.value;
    if (!inGroup(model, model.markers[i].body.value, group) || !inGroup(model, model.markers[j].body.value, group))
      continue;
    found = true;
    const Mat3& Rj = ws.markers[j].R;
    const Mat3 Rji = Rj.transpose() * ws.markers[i].R;
    const Vec3 at = Rj.transpose() * (ws.markers[i].p - ws.markers[j].p);
    const Vec3 angle(0.5 * (Rji(2, 1) - Rji(1, 2)), 0.5 * (Rji(0, 2) - Rji(2, 0)), 0.5 * (Rji(1, 0) - Rji(0, 1)));
    const Vec3 dt = Rj.transpose() * (markerShift(model, ws, i, dq) - markerShift(model, ws, j, dq));
    const Vec3 dr = Rj.transpose() * (markerTurn(model, ws, i, dq) - markerTurn(model, ws, j, dq));
    for (int k = 0; k < 3; ++k) {
      sum += b.stiffness[k].eval(at[k]).dydx * dt[k] * dt[k];
      sum += b.stiffness[3 + k].eval(angle[k]).dydx * dr[k] * dr[k];
    }
  }
  for (const ModelFlexibleBody& f : model.flexibleBodies) {
    if (!inGroup(model, f.body, group)) continue;
    found = true;
    const VecX eta = modalIncrements(f, dq);
    sum += eta.dot(f.modal.stiffness.cwiseProduct(eta));  // unit modal masses: omega_k^2 eta_k^2
  }
  return found ? sum : -1.0;
}

/// The vehicle's roll gradient (docs/analyses.md) from this axle's roll stiffness [N m/rad] and
/// roll centre height above the ground [m] (none: not found) and the vehicle row's sprung mass,
/// its front share and the other axle's roll stiffness and roll centre: the sprung mass rolls
/// about the axis through both roll centres, phi / a_y = m h' / (K_this + K_other - m g h'), h'
/// the centre of gravity above the roll axis; NaN where gravity's moment exceeds the stiffness.
void addRollGradient(const VehicleRow& v, double stiffness, std::optional<double> rollCentre, double gravity,
                     const std::function<void(const std::string&, int, double, const std::string&)>& add) {
  const double total = stiffness + v.otherAxleRollStiffness * kDeg;
  add("roll stiffness share of this axle", -1, stiffness / total * 100.0, "%");
  if (!rollCentre) return;
  // Distance from this axle to the centre of gravity along the wheelbase.
  const double toCg = v.wheelbase * (v.frontAxle ? 1.0 - v.frontMassShare : v.frontMassShare);
  const double axis = *rollCentre + (v.otherAxleRollCentreHeight - *rollCentre) * toCg / v.wheelbase;
  const double arm = v.cgHeight - axis;
  const double margin = total - v.sprungMass * gravity * arm;
  constexpr double g0 = 9.80665;  // one g of lateral acceleration
  add("roll gradient", -1,
      margin > 0.0 ? v.sprungMass * arm * g0 / margin * kDeg : std::numeric_limits<double>::quiet_NaN(), "deg/g");
  add("roll axis height below the centre of gravity", -1, arm * 1000.0, "mm");
}

/// The carrier's instantaneous screw axis under the wheel's steering input, heights held.
std::pair<Vec3, Vec3> screwAxis(const SuspensionModel& model, Linearization& lin, HeldHeights& held, int wheel) {
  const ModelWheel& w = model.wheels[wheel];
  const Vec3 nan = Vec3::Constant(std::numeric_limits<double>::quiet_NaN());
  const int s = model.bodies[w.carrier.value].state;
  if (w.steeringInput < 0 || s < 0) return {nan, nan};
  const VecX dq = held.respond(inputColumn(model, lin.ws().Ju, w.steeringInput));
  const BodyKinematics& c = lin.ws().bodies[w.carrier.value];
  const Vec3 v = dq.segment<3>(6 * s);                // velocity of the carrier's centre of mass
  const Vec3 omega = c.R * dq.segment<3>(6 * s + 3);  // dq holds body-axis rotation increments
  const double turn = omega.norm();
  if (!(turn > 0.0) || turn <= 1e-12 * v.norm()) return {nan, nan};  // a translation: no axis
  // The axis: direction omega, through the point where the velocity is parallel to omega.
  Vec3 dir = omega.normalized();
  if (dir.z() < 0.0) dir = -dir;
  return {c.p + omega.cross(v) / omega.squaredNorm(), dir};
}

/// ISO steer angle (positive to the left) of a wheel from its toe (positive in on both sides).
double steerAngle(const ModelWheel& w, double toe) { return -w.side * toe; }

}  // namespace

const char* toString(KcKind kind) { return nameOf(kKinds, kind, ""); }

bool parseKcKind(const std::string& name, KcKind& kind) { return valueOf(kKinds, name, kind); }

const char* renamedKcMetric(const std::string& name) {
  static const std::pair<const char*, const char*> kRenamed[] = {
      {"toe compliance, braking Fx at contact", "toe compliance, braking (-Fx at contact)"},
      {"camber compliance, braking Fx at contact", "camber compliance, braking (-Fx at contact)"},
      {"wheel centre x compliance, braking Fx at contact", "wheel centre recession, braking (-Fx at contact)"},
      {"toe compliance, Fx at wheel centre", "toe compliance, traction (+Fx at wheel centre)"},
      {"camber compliance, Fx at wheel centre", "camber compliance, traction (+Fx at wheel centre)"},
      {"wheel centre x compliance, Fx at wheel centre", "wheel centre x compliance, traction (+Fx at wheel centre)"},
      {"toe compliance, lateral Fy (+y) at contact", "toe compliance, lateral force inboard (at contact)"},
      {"camber compliance, lateral Fy (+y) at contact", "camber compliance, lateral force inboard (at contact)"},
      {"wheel centre y compliance, lateral Fy (+y) at contact", "wheel centre inboard compliance, lateral force inboard (at contact)"},
      {"toe compliance, aligning torque Mz", "toe compliance, aligning torque (front outboard)"},
      {"camber change per roll angle (left wheels up)", "roll camber (camber per roll angle, wheel in bump)"}};
  for (const auto& [old, now] : kRenamed)
    if (name == old) return now;
  return nullptr;
}

const char* kcMetricSign(const std::string& name) {
  static const std::pair<const char*, const char*> kSigns[] = {
      {"bump steer", "toe-in per metre of bump (wheel centre up) positive"},
      {"bump camber", "camber (top outboard) per metre of bump positive"},
      {"wheel rate, single wheel", "vertical contact force increase per mm of bump of this wheel alone, the other "
                                   "wheels' heights held"},
      {"wheel rate", "vertical contact force increase per mm of bump, every wheel of the axle moved together "
                     "(parallel travel)"},
      {"bump steer, single wheel", "toe-in per metre of bump of this wheel alone positive"},
      {"bump camber, single wheel", "camber (top outboard) per metre of bump of this wheel alone positive"},
      {"opposite wheel force per single-wheel bump", "vertical contact force increase on the other side's wheel per mm "
                                                     "of this wheel's bump, heights held (the anti-roll bar's coupling)"},
      {"static-load slope", "the sweep's channel per unit of its load at the design position, loaded as the sweep "
                            "loads (the wheel or wheels named), vertical forces held"},
      {"vertical force at design", "upward force on the tyre at the contact point"},
      {"half-track change", "contact point outboard per metre of bump positive"},
      {"wheelbase change", "wheel centre forwards (+x) per metre of bump positive"},
      {"contact point x change", "contact point forwards (+x) per metre of bump positive"},
      {"roll centre height", "above the contact points positive"},
      {"roll centre lateral position", "+y (vehicle left) positive"},
      {"roll stiffness of the anti-roll bar", "the bar's torsional rate times its twist per roll angle squared "
                                              "(its share of the moment resisting roll, per degree)"},
      {"roll stiffness share of the anti-roll bar", "the bar's roll stiffness over the axle's"},
      {"roll stiffness of the twist beam", "the elastic stiffness of the twist beam's arms, welds and cross member "
                                           "along the roll motion (its share of the moment resisting roll, per degree)"},
      {"roll stiffness share of the twist beam", "the twist beam's roll stiffness over the axle's"},
      {"roll stiffness share of this axle", "this axle's roll stiffness over both axles' (the other from the vehicle "
                                            "row)"},
      {"roll stiffness", "moment resisting roll per degree of roll"},
      {"roll gradient", "body roll towards the outside of a turn per g of lateral acceleration positive (sprung "
                        "mass about the roll axis, rigid tyres)"},
      {"roll axis height below the centre of gravity", "the sprung mass's lever about the roll axis, the centre of "
                                                      "gravity above the axis positive"},
      {"roll steer", "toe-in of the wheel in bump per degree of roll positive"},
      {"roll camber", "camber (top outboard) of the wheel in bump per degree of roll positive"},
      {"anti-", "share of the pitch moment taken by the geometry; positive resists"},
      {"side-view swing arm angle", "line from the point the force acts on to the carrier's side-view instant centre, "
                                    "above the ground towards the vehicle centre positive"},
      {"side-view swing arm length", "horizontal distance from the contact point to the carrier's side-view instant "
                                     "centre, towards the vehicle centre positive"},
      {"side-view instant centre height", "above the contact point positive"},
      {"toe compliance, braking", "toe-in per kN of braking force (-x at the contact point) positive"},
      {"camber compliance, braking", "camber per kN of braking force (-x at the contact point) positive"},
      {"wheel centre recession", "wheel centre rearwards per kN of braking force positive"},
      {"toe compliance, traction", "toe-in per kN of drive force (+x at the wheel centre) positive"},
      {"camber compliance, traction", "camber per kN of drive force (+x at the wheel centre) positive"},
      {"wheel centre x compliance, traction", "wheel centre forwards per kN of drive force positive"},
      {"toe compliance, lateral", "toe-in per kN of lateral force towards the vehicle centre positive"},
      {"camber compliance, lateral", "camber per kN of lateral force towards the vehicle centre positive"},
      {"wheel centre inboard compliance", "wheel centre inboard per kN of lateral force inboard positive"},
      {"toe compliance, aligning torque", "toe-in per kN m of torque turning the wheel's front outboard positive"},
      {"motion ratio, ", "element compression per unit of that wheel's bump positive (the other wheels held)"},
      {"anti-roll bar twist, ", "rotation of marker I against J about J's x per mm of bump, the left wheel's "
                                "sign (the right wheel's mirrored)"},
      {"steering gain", "wheel steer angle (ISO, to the left positive) per unit of the input"},
      {"Ackermann", "(inner - outer) / (inner - ideal outer) steer angle: 100 % ideal Ackermann, 0 % parallel"}};
  for (const auto& [prefix, sign] : kSigns)
    if (name.rfind(prefix, 0) == 0) return sign;
  return "";
}

KcOptions defaultKcOptions(KcKind kind, bool rotationInput) {
  KcOptions o;
  o.kind = kind;
  const bool steering = kind == KcKind::Steering, load = kind == KcKind::StaticLoad;
  const double range = steering ? (rotationInput ? 30.0 * M_PI / 180.0 : 0.05) : load ? 5000.0 : 0.08;
  o.from = -range;
  o.to = range;
  o.points = steering ? 101 : load ? 21 : 161;
  return o;
}

std::string kcMetricsJson(const KcResult& r, const std::string& analysis, const std::vector<TargetCheck>& targets) {
  nlohmann::ordered_json metrics = nlohmann::ordered_json::array();
  for (const KcMetric& m : r.metrics) {
    nlohmann::ordered_json j;
    j["name"] = m.name;
    j["wheel"] = m.wheel;
    j["unit"] = m.unit;
    if (const std::string sign = kcMetricSign(m.name); !sign.empty()) j["sign"] = sign;
    if (std::isfinite(m.value)) j["value"] = m.value;
    else j["value"] = nullptr;
    metrics.push_back(j);
  }
  nlohmann::ordered_json doc;
  doc["analysis"] = analysis;
  doc["sweep"] = {{"name", r.sweepName}, {"unit", r.sweepUnit}};
  doc["metrics"] = metrics;
  if (!targets.empty()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const TargetCheck& t : targets) {
      nlohmann::ordered_json j;
      j["id"] = t.id;
      j["metric"] = t.metric;
      j["wheel"] = t.wheel;
      j["unit"] = t.unit;
      j["lower"] = t.lower ? nlohmann::ordered_json(*t.lower) : nlohmann::ordered_json(nullptr);
      j["upper"] = t.upper ? nlohmann::ordered_json(*t.upper) : nlohmann::ordered_json(nullptr);
      j["value"] = std::isfinite(t.value) ? nlohmann::ordered_json(t.value) : nlohmann::ordered_json(nullptr);
      j["status"] = toString(t.status);
      if (!t.message.empty()) j["message"] = t.message;
      if (!t.note.empty()) j["note"] = t.note;
      list.push_back(j);
    }
    doc["targets"] = list;
  }
  return doc.dump(2) + "\n";
}

const char* toString(TargetCheck::Status status) {
  switch (status) {
    case TargetCheck::Status::Met: return "met";
    case TargetCheck::Status::Missed: return "missed";
    case TargetCheck::Status::NoMetric: break;
  }
  return "no metric";
}

std::vector<TargetCheck> checkTargets(const Project& project, const std::vector<KcMetric>& metrics) {
  std::vector<TargetCheck> out;
  for (const TargetRow& t : project.targets) {
    if (!t.manoeuvre.empty()) continue;  // a manoeuvre's metric: runManoeuvre judges it
    TargetCheck base;
    base.id = t.id;
    base.metric = t.metric;
    base.wheel = t.wheel;
    base.note = t.note;
    base.lower = t.lower;
    base.upper = t.upper;
    bool any = false;
    for (const KcMetric& m : metrics) {
      if (m.name != t.metric || (!t.wheel.empty() && m.wheel != t.wheel)) continue;
      TargetCheck c = base;
      c.wheel = m.wheel;
      c.unit = m.unit;
      c.value = m.value;
      c.status = withinTarget(m.value, t.lower, t.upper) ? TargetCheck::Status::Met : TargetCheck::Status::Missed;
      out.push_back(c);
      any = true;
    }
    if (any) continue;
    bool named = false;
    for (const KcMetric& m : metrics) named = named || m.name == t.metric;
    if (const char* now = renamedKcMetric(t.metric))
      base.message = "the metric is now '" + std::string(now) + "', with the sign of the load direction it names";
    else if (named)
      base.message = "the metric is not one of the wheel '" + t.wheel + "'";
    else
      base.message = "no K&C metric '" + t.metric + "' at the design position (elastokin-sim P.json --analysis "
                     "parallel-travel lists them)";
    out.push_back(base);
  }
  return out;
}

std::string targetRange(const std::optional<double>& lower, const std::optional<double>& upper, const std::string& unit_) {
  const std::string unit = unit_.empty() ? "" : " " + unit_;
  if (lower && upper) return "[" + significant(*lower, 6) + ", " + significant(*upper, 6) + "]" + unit;
  if (lower) return "at least " + significant(*lower, 6) + unit;
  if (upper) return "at most " + significant(*upper, 6) + unit;
  return "";
}

std::string targetRange(const TargetCheck& t) { return targetRange(t.lower, t.upper, t.unit); }

int KcResult::column(const std::string& name) const {
  for (std::size_t k = 0; k < columns.size(); ++k)
    if (columns[k] == name) return static_cast<int>(k);
  return -1;
}

KcDesign solveDesign(const SuspensionModel& model, double tolerance, const std::vector<double>& heights) {
  if (!heights.empty() && heights.size() != model.wheels.size())
    throw std::invalid_argument("the design position needs one height per wheel (" + std::to_string(model.wheels.size()) +
                                "), got " + std::to_string(heights.size()));
  if (model.wheels.empty())
    throw std::invalid_argument("the project has no wheels: K&C analyses need the 'wheels' table");
  // The rig holds each wheel centre on its pad; a tyre's road contact would push beside the pad.
  for (const ModelWheel& w : model.wheels)
    if (w.tyre)
      throw std::invalid_argument("wheel " + std::to_string(w.id) + " '" + w.name +
                                  "' stands on a Magic Formula tyre: the K&C analyses hold the wheels on the rig's "
                                  "pads, and the tyre's road contact would act beside them; analyse a copy of the "
                                  "project whose wheels have no 'tyre' and whose vehicle body is fixed");
  KcDesign d;
  model.initialState(d.state.r, d.state.v);
  d.state.v.setZero();
  Workspace ws(model);
  calcBodyKinematics(model, d.state, ws);
  calcMarkerKinematics(model, ws);
  std::vector<WheelHeight> held;
  for (std::size_t w = 0; w < model.wheels.size(); ++w) {
    d.centreZ.push_back(heights.empty() ? wheelChannels(model.wheels[w], ws)[kCentreZ] : heights[w]);
    held.push_back({static_cast<int>(w), d.centreZ.back()});
  }
  d.wheelLoads = VecX::Zero(kWheelLoads * static_cast<Eigen::Index>(model.wheels.size()));
  try {
    solveEquilibrium(model, VecX::Zero(model.nInputs()), d.state, ws, tolerance, 2000, held, 0.0, &d.wheelLoads);
  } catch (const SimulationError& e) {
    throw SimulationError(std::string("design position: ") + e.what());
  }
  return d;
}

std::pair<Vec3, Vec3> screwSteeringAxis(const SuspensionModel& model, const State& state, const VecX& wheelLoads,
                                        const VecX& u, int wheel) {
  Linearization lin(model, state, wheelLoads, u);
  HeldHeights held(model, lin);
  return screwAxis(model, lin, held, wheel);
}

MatX wheelCompliance(const SuspensionModel& model, const KcDesign& design, int wheel, int load, PadsHold pads) {
  Linearization lin(model, design);
  VecX dq;
  if (pads == PadsHold::Heights) {
    HeldHeights held(model, lin);
    dq = held.respond(lin.loadColumn(wheel, load));
  } else {
    dq = lin.respond(lin.loadColumn(wheel, load));
  }
  const int m = static_cast<int>(model.wheels.size());
  MatX out(m, kWheelChannels);
  for (int w = 0; w < m; ++w)
    for (int c = 0; c < kWheelChannels; ++c) out(w, c) = lin.gradient(w, c).dot(dq);
  return out;
}

std::vector<KcMetric> designMetrics(const SuspensionModel& model, const KcDesign& design) {
  Linearization lin(model, design);
  const int m = static_cast<int>(model.wheels.size());
  std::vector<KcMetric> out;
  auto add = [&](const std::string& name, int w, double value, const std::string& unit) {
    out.push_back({name, w >= 0 ? model.wheels[w].name : std::string(), unit, value});
  };
  std::vector<std::array<double, kWheelChannels>> design0;
  for (int w = 0; w < m; ++w) design0.push_back(wheelChannels(model.wheels[w], lin.ws()));

  // Every travel pattern below solves with the heights held through one factorization.
  HeldHeights held(model, lin);
  // Parallel travel.
  const TravelRates par = travelRates(model, lin, held, VecX::Ones(m));
  for (int w = 0; w < m; ++w) {
    const double side = model.wheels[w].side;
    add("bump steer", w, par.channel(w, kToe) * kDeg, "deg/m");
    add("bump camber", w, par.channel(w, kCamber) * kDeg, "deg/m");
    add("wheel rate", w, par.force[w] / 1000.0, "N/mm");
    add("vertical force at design", w, design.wheelLoads[kWheelLoads * w + kFzContact], "N");
    add("half-track change (contact point, outboard)", w, side * par.channel(w, kContactY) * 1000.0, "mm/m");
    add("wheelbase change (wheel centre x)", w, par.channel(w, kCentreX) * 1000.0, "mm/m");
    add("contact point x change", w, par.channel(w, kContactX) * 1000.0, "mm/m");
  }
  // Single-wheel travel: one wheel moves, every other wheel's height held (the single-travel
  // sweep's definition). With an anti-roll bar the single-wheel rate exceeds the parallel one by
  // the bar's share; the force change on the opposite wheel is the bar's coupling.
  for (int w = 0; w < m; ++w) {
    VecX pattern = VecX::Zero(m);
    pattern[w] = 1.0;
    const TravelRates single = travelRates(model, lin, held, pattern);
    add("wheel rate, single wheel (other wheels held)", w, single.force[w] / 1000.0, "N/mm");
    add("bump steer, single wheel (other wheels held)", w, single.channel(w, kToe) * kDeg, "deg/m");
    add("bump camber, single wheel (other wheels held)", w, single.channel(w, kCamber) * kDeg, "deg/m");
    int opposite = -1;
    for (int k = 0; k < m && opposite < 0; ++k)
      if (model.wheels[k].side == -model.wheels[w].side) opposite = k;
    if (opposite >= 0)
      add("opposite wheel force per single-wheel bump", w, single.force[opposite] / 1000.0, "N/mm");
  }
  // Kinematic roll centre: each contact point moves perpendicular to the line from it to the
  // roll centre in the front view; intersect a left and a right wheel's lines (or a line with the
  // vehicle centre plane y = 0 when the model has one side only).
  {
    int left = -1, right = -1;
    for (int w = m - 1; w >= 0; --w) (model.wheels[w].side > 0 ? left : right) = w;  // the first of each side
    Eigen::Vector2d rc;
    const bool found = rollCentre(model, design0, par, rc);
    double ground = 0.0;
    for (int w = 0; w < m; ++w) ground += design0[w][kContactZ] / m;
    if (found) {
      add("roll centre height (above the contact points)", -1, (rc.y() - ground) * 1000.0, "mm");
      add("roll centre lateral position (y)", -1, rc.x() * 1000.0, "mm");
    }
    // Roll stiffness from opposite travel of a left and a right wheel.
    if (left >= 0 && right >= 0) {
      VecX pattern = VecX::Zero(m);
      for (int w = 0; w < m; ++w) pattern[w] = model.wheels[w].side;
      const TravelRates opp = travelRates(model, lin, held, pattern);
      double moment = 0.0;
      for (int w = 0; w < m; ++w) moment += opp.force[w] * design0[w][kContactY];
      const double track = design0[left][kContactY] - design0[right][kContactY];
      const double roll = 2.0 / track;  // roll angle of the pattern [rad]
      const double stiffness = moment / roll;  // [N m/rad]
      add("roll stiffness (wheel pads)", -1, stiffness / kDeg, "N m/deg");
      // The bar's part of it (or a twist beam's: its arms, welds and cross member): its stiffness
      // along the roll motion, per radian of roll squared.
      for (const std::string_view group : {"anti-roll bar", "twist beam"})
        if (const double bar = groupStiffnessAlong(model, lin.ws(), opp.dq, group); bar >= 0.0) {
          add("roll stiffness of the " + std::string(group), -1, bar / (roll * roll) / kDeg, "N m/deg");
          add("roll stiffness share of the " + std::string(group), -1, bar / (roll * roll) / stiffness * 100.0, "%");
        }
      if (const auto& v = model.project().vehicle; v && v->sprungMass > 0.0)
        addRollGradient(*v, stiffness, found ? std::optional<double>(rc.y() - ground) : std::nullopt,
                        model.gravity.norm(), add);
      // Roll angle phi = (travel left - travel right) / track: d(travel left) / d(phi) = track / 2.
      // Per wheel for the roll that puts it in bump (the outer wheel of a turn): the same figure
      // on both sides of a symmetric axle.
      for (int w = 0; w < m; ++w) {
        const double side = model.wheels[w].side;
        add("roll steer (toe per roll angle, wheel in bump)", w, side * opp.channel(w, kToe) * (track / 2.0), "deg/deg");
        add("roll camber (camber per roll angle, wheel in bump)", w, side * opp.channel(w, kCamber) * (track / 2.0), "deg/deg");
      }
    }
  }
  // Anti-dive / anti-lift / anti-squat (docs/analyses.md): the share of the pitching load transfer
  // the suspension takes, from the vertical force that holds each wheel's height when every wheel
  // carries 1 N of longitudinal force where it acts: outboard brakes react on the carrier, so the
  // braking force acts at the contact point on wheel and carrier as one body; inboard brakes and
  // drive shafts react on the vehicle, so braking (inboard) and traction act at the wheel centre.
  // The side-view swing arm is the geometry of it: the path of the point B the force acts on,
  // tan(angle) = s dx_B/dz (s = +1 front, -1 rear), positive with the instant centre above B,
  // towards the vehicle centre; with a symmetric stiffness (Maxwell-Betti) the two agree exactly.
  if (const auto& v = model.project().vehicle) {
    const double lever = v->wheelbase / v->cgHeight, s = v->frontAxle ? 1.0 : -1.0;
    const double brakeShare = v->frontAxle ? v->frontBrakeShare : 1.0 - v->frontBrakeShare;
    const double driveShare = v->frontAxle ? v->frontDriveShare : 1.0 - v->frontDriveShare;
    const std::string braking = v->frontAxle ? "anti-dive (braking)" : "anti-lift (braking)";
    const std::string traction = v->frontAxle ? "anti-lift (traction)" : "anti-squat (traction)";
    auto jacking = [&](int load) {  // upward pad force per N of force along +x at `load` on every wheel
      VecX b = VecX::Zero(model.nDof());
      for (int w = 0; w < m; ++w) b += lin.loadColumn(w, load);
      return held.heldForces(b);
    };
    const VecX atCentre = jacking(kFxCentre);
    const VecX atBrake = v->inboardBrakes ? atCentre : jacking(kFxContact);
    for (int w = 0; w < m; ++w) {
      // Per N along +x the pad force changes by at[w] (virtual work: -at = dx_B/dz). Positive
      // figures resist the pitch: braking (-x) loads a front pad and unloads a rear one, traction
      // (+x) unloads a front pad and loads a rear one; both read -s at x lever x share.
      add(braking, w, -s * atBrake[w] * lever * brakeShare * 100.0, "%");
      if (driveShare > 0.0) add(traction, w, -s * atCentre[w] * lever * driveShare * 100.0, "%");
      const double cp = par.carrierContactX[w], wc = par.channel(w, kCentreX);
      add("side-view swing arm angle (braking)", w, std::atan(s * (v->inboardBrakes ? wc : cp)) * kDeg, "deg");
      if (driveShare > 0.0) add("side-view swing arm angle (traction)", w, std::atan(s * wc) * kDeg, "deg");
      // The carrier's side-view instant centre: the point of its plane motion (x, z; pitch rate
      // omega) that stands still, IC = P + (v_z, -v_x) / omega for the carrier-fixed point P at the
      // contact patch; at infinity (no pitch, parallel links) no length is given.
      const double vx = cp, vz = par.carrierContactZ[w], omega = par.carrierPitch[w];
      if (std::abs(omega) * 1e4 > std::hypot(vx, vz)) {  // closer than 10 km
        add("side-view swing arm length", w, -s * vz / omega * 1000.0, "mm");
        add("side-view instant centre height (above the contact point)", w, -vx / omega * 1000.0, "mm");
      }
    }
  }
  // Compliances: each wheel under its own loads, vertical forces held.
  for (int w = 0; w < m; ++w) {
    auto response = [&](int load) {
      const VecX dq = lin.respond(lin.loadColumn(w, load));
      std::array<double, kWheelChannels> r{};
      for (int c = 0; c < kWheelChannels; ++c) r[c] = lin.gradient(w, c).dot(dq);
      return r;
    };
    const auto brake = response(kFxContact), drive = response(kFxCentre), lateral = response(kFyContact),
               align = response(kMzContact);
    // Each load in the direction it has in use (ISO 8855 axes; docs/analyses.md): braking is -x
    // at the contact point, traction +x at the wheel centre, the lateral force points inboard
    // (towards the turn centre, on the outer wheel of a turn), the aligning torque turns the
    // wheel's front outboard; toe-in and camber top-outboard positive. A symmetric axle has the
    // same figures on both sides.
    const double side = model.wheels[w].side;
    add("toe compliance, braking (-Fx at contact)", w, -brake[kToe] * kDeg * 1000.0, "deg/kN");
    add("camber compliance, braking (-Fx at contact)", w, -brake[kCamber] * kDeg * 1000.0, "deg/kN");
    add("wheel centre recession, braking (-Fx at contact)", w, brake[kCentreX] * 1e6, "mm/kN");
    add("toe compliance, traction (+Fx at wheel centre)", w, drive[kToe] * kDeg * 1000.0, "deg/kN");
    add("camber compliance, traction (+Fx at wheel centre)", w, drive[kCamber] * kDeg * 1000.0, "deg/kN");
    add("wheel centre x compliance, traction (+Fx at wheel centre)", w, drive[kCentreX] * 1e6, "mm/kN");
    add("toe compliance, lateral force inboard (at contact)", w, -side * lateral[kToe] * kDeg * 1000.0, "deg/kN");
    add("camber compliance, lateral force inboard (at contact)", w, -side * lateral[kCamber] * kDeg * 1000.0, "deg/kN");
    add("wheel centre inboard compliance, lateral force inboard (at contact)", w, lateral[kCentreY] * 1e6, "mm/kN");
    add("toe compliance, aligning torque (front outboard)", w, side * align[kToe] * kDeg * 1000.0, "deg/kN m");
  }
  addMotionRatios(model, lin, add);
  return out;
}

KcResult runKc(const SuspensionModel& model, const KcOptions& o, const std::function<void(double)>& progress,
               const std::atomic<bool>* cancel) {
  const int m = static_cast<int>(model.wheels.size());
  if (m == 0) throw std::invalid_argument("the project has no wheels: K&C analyses need the 'wheels' table");
  if (o.points < 2) throw std::invalid_argument("a sweep needs at least 2 points");
  if (!(o.to > o.from)) throw std::invalid_argument("the sweep's end must be greater than its start");
  if ((o.kind == KcKind::SingleTravel && (o.wheel < 0 || o.wheel >= m)) || (o.wheel >= m))
    throw std::invalid_argument("wheel index " + std::to_string(o.wheel) + " does not exist (the project has " +
                                std::to_string(m) + " wheels)");
  if (o.kind == KcKind::StaticLoad && (o.load < 0 || o.load >= kWheelLoads))
    throw std::invalid_argument("unknown wheel load");
  const bool steering = o.kind == KcKind::Steering;
  if (steering && (o.input < 0 || o.input >= model.nInputs() || !model.inputs[o.input].motion()))
    throw std::invalid_argument("a steering sweep needs a translation or rotation input (the steering rack)");
  const bool travel = o.kind != KcKind::StaticLoad && !steering;
  KcDesign design = solveDesign(model, o.tolerance);

  KcResult res;
  if (travel) {
    res.sweepName = o.kind == KcKind::OppositeTravel ? "travel (left wheels)" : "travel";
    res.sweepUnit = "m";
  } else if (steering) {
    res.sweepName = model.inputs[o.input].name;
    res.sweepUnit = inputUnit(model.inputs[o.input].kind);
  } else {
    res.sweepName = kWheelLoadNames[o.load];
    res.sweepUnit = (o.load >= kMxContact && o.load <= kMzContact) ? "N m" : "N";
  }
  bool screw = false;  // a wheel's steering axis is the screw axis under its steering input
  for (int w = 0; w < m; ++w) {
    const ModelWheel& wheel = model.wheels[w];
    screw |= !wheel.hasSteeringAxis() && wheel.steeringInput >= 0;
    for (int c = 0; c < kWheelChannels; ++c) {
      if (needsSteeringAxis(c) && !wheel.hasKcSteeringAxis()) continue;
      res.columns.push_back(wheel.name + " " + kWheelComponents[c]);
      res.units.push_back(wheelChannelUnit(c));
    }
    res.columns.push_back(wheel.name + " vertical force");
    res.units.push_back("N");
    if (steering) {
      res.columns.push_back(wheel.name + " steer angle");
      res.units.push_back("rad");
    }
  }
  // Ackermann: one left and one right wheel and the wheelbase from the vehicle table.
  int left = -1, right = -1;
  for (int w = 0; w < m; ++w) (model.wheels[w].side > 0 ? left : right) = w;
  const bool ackermann = steering && m == 2 && left >= 0 && right >= 0 && model.project().vehicle;
  if (ackermann) {
    res.columns.push_back("Ackermann error");
    res.units.push_back("rad");
    res.columns.push_back("Ackermann");
    res.units.push_back("%");
  }
  const std::vector<Channel> outputs = stateChannels(model);
  for (const auto& c : outputs) {
    res.columns.push_back(c.name);
    res.units.push_back(c.unit);
  }
  // Instant centres per wheel and the roll centre at every point (from the linearization there).
  for (int w = 0; w < m; ++w)
    for (const char* c : {" instant centre front view y", " instant centre front view z", " instant centre side view x",
                          " instant centre side view z"}) {
      res.columns.push_back(model.wheels[w].name + c);
      res.units.push_back("m");
    }
  res.columns.push_back("roll centre height");  // above the contact points' mean height
  res.units.push_back("m");
  res.columns.push_back("roll centre y");
  res.units.push_back("m");
  res.columns.push_back("travel limit");  // 1 at the point where the sweep met the mechanism's limit
  res.units.push_back("-");
  const std::vector<Vec3> markerStart = markerPositionsAsModelled(model);

  const std::vector<double>& z0 = design.centreZ;
  auto targets = [&](double s) {
    std::vector<WheelHeight> held;
    if (steering) {
      for (int w = 0; w < m; ++w) held.push_back({w, z0[w]});
      return held;
    }
    if (!travel) return held;
    for (int w = 0; w < m; ++w) {
      double e = 1.0;
      if (o.kind == KcKind::OppositeTravel) e = model.wheels[w].side;
      if (o.kind == KcKind::SingleTravel) e = w == o.wheel ? 1.0 : 0.0;
      held.push_back({w, z0[w] + s * e});
    }
    return held;
  };
  // Track at the contact points and wheelbase for the ideal (Ackermann) outer angle.
  double track = 0.0;
  if (ackermann) {
    Workspace out(model);
    evaluateOutputsState(model, design.state, VecX::Zero(model.nInputs()), out);
    track = wheelChannels(model.wheels[left], out)[kContactY] - wheelChannels(model.wheels[right], out)[kContactY];
  }
  auto inputs = [&](double s) {
    VecX u = VecX::Zero(model.nInputs());
    if (steering) u[o.input] = s;
    return u;
  };
  auto record = [&](double s, const State& st, const VecX& loads) {
    std::vector<double> row;
    Workspace out(model);
    const VecX u = inputs(s);
    evaluateOutputsState(model, st, u, out);
    // The linearization at this point: screw axes, instant centres, the roll centre.
    std::unique_ptr<Linearization> lin = std::make_unique<Linearization>(model, st, loads, u);
    std::unique_ptr<HeldHeights> held;
    try {
      held = std::make_unique<HeldHeights>(model, *lin);
    } catch (const SimulationError&) {
      if (screw) throw;  // the steering axis needs it; the centres are NaN without it
    }
    std::vector<double> steer(m);
    for (int w = 0; w < m; ++w) {
      const ModelWheel& wheel = model.wheels[w];
      std::array<double, kWheelChannels> ch;
      if (!wheel.hasSteeringAxis() && wheel.steeringInput >= 0) {
        const auto [point, dir] = screwAxis(model, *lin, *held, w);
        ch = wheelChannels(wheel, out, point, dir);
      } else {
        ch = wheelChannels(wheel, out);
      }
      for (int c = 0; c < kWheelChannels; ++c)
        if (!(needsSteeringAxis(c) && !wheel.hasKcSteeringAxis())) row.push_back(ch[c]);
      row.push_back(loads[kWheelLoads * w + kFzContact]);
      steer[w] = steerAngle(wheel, ch[kToe]);
      if (steering) row.push_back(steer[w]);
    }
    if (ackermann) {
      // Turning left the left wheel is inside: cot(outer) = cot(inner) + track / wheelbase.
      const bool leftTurn = steer[left] + steer[right] > 0.0;
      const double inner = leftTurn ? steer[left] : steer[right], outer = leftTurn ? steer[right] : steer[left];
      const double sign = inner >= 0.0 ? 1.0 : -1.0, L = model.project().vehicle->wheelbase;
      const double ideal = sign * std::atan(1.0 / (1.0 / std::tan(std::abs(inner)) + track / L));
      const bool defined = std::abs(inner) > 0.5 / kDeg;  // the percentage is 0/0 near straight ahead
      row.push_back(outer - ideal);
      row.push_back(defined ? 100.0 * (inner - outer) / (inner - ideal) : std::numeric_limits<double>::quiet_NaN());
    }
    for (const auto& c : outputs) row.push_back(channelValue(c, out, markerStart));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<std::array<double, kWheelChannels>> at;
    double ground = 0.0;
    for (int w = 0; w < m; ++w) {
      at.push_back(wheelChannels(model.wheels[w], out));
      ground += at.back()[kContactZ] / m;
      const auto ic = held ? instantCentres(model, *lin, *held, w) : std::array<double, 4>{nan, nan, nan, nan};
      row.insert(row.end(), ic.begin(), ic.end());
    }
    Eigen::Vector2d rc;
    if (held && rollCentre(model, at, travelRates(model, *lin, *held, VecX::Ones(m)), rc)) {
      row.push_back(rc.y() - ground);
      row.push_back(rc.x());
    } else {
      row.push_back(nan);
      row.push_back(nan);
    }
    row.push_back(0.0);  // travel limit, set by the sweep
    return std::pair{s, row};
  };
  // The load scale of the travel limit: the largest design vertical wheel load.
  double loadScale = 0.0;
  for (int w = 0; w < m; ++w) loadScale = std::max(loadScale, std::abs(design.wheelLoads[kWheelLoads * w + kFzContact]));
  // The largest element force at a point, and which element carries it.
  auto largestForce = [&](const State& st, double s, std::string& element) {
    Workspace out(model);
    evaluateOutputsState(model, st, inputs(s), out);
    double worst = 0.0;
    for (std::size_t b = 0; b < model.bushings.size(); ++b)
      if (const double f = out.bushings[b].force.head<3>().norm(); f > worst)
        worst = f, element = "bushing '" + model.bushings[b].name + "'";
    for (std::size_t e = 0; e < model.p2ps.size(); ++e)
      if (const double f = std::abs(out.p2ps[e].tension); f > worst)
        worst = f, element = "P2P element '" + model.p2ps[e].name + "'";
    return worst;
  };

  // The stop holding the most at a point (a P2P element's bump or rebound stop beyond its
  // clearance), as "; the bump stop of P2P element 'NAME' holds N kN", or "; no stop engaged".
  // Of stops holding alike (a symmetric axle's), the one named on the side of `wheel`.
  auto engagedStop = [&](const State& st, double s, int wheel) {
    Workspace out(model);
    evaluateOutputsState(model, st, inputs(s), out);
    const std::string side = model.wheels[wheel].side > 0 ? "left" : "right";
    auto onSide = [&](const std::string& name) { return swapSides(name) != name && name.find(side) != std::string::npos; };
    double most = 0.0;
    std::string which, name;
    for (std::size_t e = 0; e < model.p2ps.size(); ++e) {
      const ModelP2P& p = model.p2ps[e];
      const double ext = out.p2ps[e].length - p.freeLength;
      for (const auto& [stop, penetration, kind] :
           {std::tuple{&p.bump, -ext - p.bump.clearance, "bump"}, std::tuple{&p.rebound, ext - p.rebound.clearance, "rebound"}})
        if (stop->active && penetration > 0.0) {
          const double f = std::abs(stop->law.eval(penetration).y);
          const bool alike = std::abs(f - most) <= 1e-6 * most;
          if ((f > most && !alike) || (alike && onSide(p.name) && !onSide(name)))
            most = std::max(f, most), name = p.name, which = std::string("the ") + kind + " stop of P2P element '" + p.name + "'";
        }
    }
    return which.empty() ? std::string("; no stop engaged: links at full stretch or over centre")
                         : "; " + which + " holds " + significant(most / 1000.0, 4) + " kN";
  };

  // Points from the design value outwards in both directions, each from its neighbour.
  std::vector<double> grid(o.points);
  for (int k = 0; k < o.points; ++k) grid[k] = o.from + (o.to - o.from) * k / (o.points - 1);
  std::vector<std::pair<double, std::vector<double>>> rows;
  std::string unreachable;  // the last point that could not be reached, and why
  int done = 0;
  for (int direction : {+1, -1}) {
    State st = design.state;
    Workspace wsp(model);
    VecX loads = design.wheelLoads;
    std::vector<int> order;
    for (int k = 0; k < o.points; ++k)
      if ((direction > 0 && grid[k] >= 0.0) || (direction < 0 && grid[k] < 0.0)) order.push_back(k);
    if (direction < 0) std::reverse(order.begin(), order.end());
    double previous = 0.0;  // the swept value of the state in st (the design position: 0)
    int reachedHere = 0;    // points reached in this direction
    for (int k : order) {
      if (cancel && cancel->load()) {
        res.cancelled = true;
        break;
      }
      const double s = grid[k];
      // From the previous point; where that fails, in 2, 4, ... 64 smaller steps of the swept value
      // (continuation), each from the last.
      const State before = st;
      const VecX loadsBefore = loads;
      const double sBefore = previous;
      std::string failure;
      bool reached = false;
      for (int parts = 1; parts <= 64 && !reached; parts *= 2) {
        st = before;
        loads = loadsBefore;
        try {
          for (int j = 1; j <= parts; ++j) {
            const double sj = j == parts ? s : sBefore + (s - sBefore) * j / parts;
            if (!travel && !steering)
              for (int w = 0; w < m; ++w)
                if (o.wheel < 0 || o.wheel == w) loads[kWheelLoads * w + o.load] = sj;
            res.iterations +=
                solveEquilibrium(model, inputs(sj), st, wsp, o.tolerance, 2000, targets(sj), kWarmStartStep, &loads)
                    .iterations;
          }
          reached = true;
          if (parts > 1) ++res.subdividedPoints;
        } catch (const SimulationError& e) {
          if (failure.empty()) failure = e.what();
        }
      }
      if (!reached) {
        // A dead point (a link at full stretch, a toggle position) or a point beyond the
        // mechanism's reach: the sweep stops there in this direction and keeps what it has.
        const std::string where = "point " + std::to_string(k + 1) + " of " + std::to_string(o.points) + " (" +
                                  res.sweepName + " = " + significant(s) + " " + res.sweepUnit + ")";
        unreachable = where + ": " + failure + " (also in 64 smaller steps from the previous point, " +
                      significant(sBefore) + " " + res.sweepUnit + ")";
        if (reachedHere > 0) rows.back().second.back() = 1.0;
        res.warnings.push_back("travel limit before " + where + ": the equilibrium cannot be reached from " +
                               significant(sBefore) + " " + res.sweepUnit + " (" + failure +
                               ", also in 64 smaller steps): a dead point or the end of the mechanism's reach; the "
                               "sweep stops there in this direction and keeps the points done");
        break;
      }
      previous = s;
      rows.push_back(record(s, st, loads));
      ++reachedHere;
      if (progress) progress(double(++done) / o.points);
      std::string element;
      const double scale = std::max(loadScale, travel || steering ? 0.0 : std::abs(s));
      if (travel || steering) {
        // The pads: a wheel held with a vertical force far beyond its design load.
        int worst = -1;
        double change = 0.0;
        for (int w = 0; w < m; ++w) {
          const double design0 = design.wheelLoads[kWheelLoads * w + kFzContact];
          const double d = std::abs(loads[kWheelLoads * w + kFzContact] - design0);
          if (std::abs(design0) >= 1.0 && d > o.padForceLimitFactor * std::abs(design0) && d > change) worst = w, change = d;
        }
        if (worst >= 0) {
          rows.back().second.back() = 1.0;
          const double fz = loads[kWheelLoads * worst + kFzContact], fz0 = design.wheelLoads[kWheelLoads * worst + kFzContact];
          res.warnings.push_back("travel limit at point " + std::to_string(k + 1) + " of " + std::to_string(o.points) + " (" +
                                 res.sweepName + " = " + significant(s) + " " + res.sweepUnit + "): the pad of " +
                                 model.wheels[worst].name + " holds it with " + significant(fz / 1000.0, 4) +
                                 " kN against " + significant(fz0 / 1000.0, 4) + " kN at design, a change of more than " +
                                 significant(o.padForceLimitFactor) + " times the design wheel load" +
                                 engagedStop(st, s, worst) + ": the mechanism is at the end of its travel; the sweep stops "
                                 "there in this direction");
          break;
        }
      }
      const double force = largestForce(st, s, element);
      if (scale >= 1.0 && force > o.forceLimitFactor * scale) {  // below 1 N (no gravity, no preload): no scale
        rows.back().second.back() = 1.0;
        res.warnings.push_back("travel limit at point " + std::to_string(k + 1) + " of " + std::to_string(o.points) + " (" +
                               res.sweepName + " = " + significant(s) + " " + res.sweepUnit + "): " + element +
                               " carries " + significant(force / 1000.0, 4) + " kN, more than " +
                               significant(o.forceLimitFactor) + " times the load scale (" +
                               significant(scale / 1000.0, 4) + " kN): the mechanism is at the end of its travel; "
                               "the sweep stops there in this direction");
        break;
      }
    }
  }
  if (rows.empty() && !res.cancelled) throw SimulationError(unreachable);  // nothing to keep
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [s, row] : rows) {
    res.sweep.push_back(s);
    res.values.push_back(std::move(row));
  }
  if (res.cancelled) return res;
  res.metrics = designMetrics(model, design);
  if (!travel && !steering) {
    // The sweep's own slopes at the design position: the load on the wheel or wheels the sweep
    // loads, the vertical forces held as in the sweep (the compliance metrics above load one
    // wheel at a time; with an anti-roll bar or a twist beam the two differ).
    Linearization lin(model, design);
    VecX b = VecX::Zero(model.nDof());
    for (int w = 0; w < m; ++w)
      if (o.wheel < 0 || o.wheel == w) b += lin.loadColumn(w, o.load);
    const VecX dq = lin.respond(b);
    const bool moment = o.load >= kMxContact && o.load <= kMzContact;
    const std::string per = moment ? "/kN m" : "/kN";
    const std::string loaded = std::string(kWheelLoadNames[o.load]) + " on " +
                               (o.wheel < 0 ? std::string("every wheel") : model.wheels[o.wheel].name + " only");
    for (int w = 0; w < m; ++w) {
      auto slope = [&](int c) { return lin.gradient(w, c).dot(dq) * 1000.0; };  // per kN (kN m)
      res.metrics.push_back({"static-load slope, toe (" + loaded + ")", model.wheels[w].name, "deg" + per, slope(kToe) * kDeg});
      res.metrics.push_back({"static-load slope, camber (" + loaded + ")", model.wheels[w].name, "deg" + per, slope(kCamber) * kDeg});
      for (const auto& [c, axis] : {std::pair{kCentreX, "x"}, std::pair{kCentreY, "y"}, std::pair{kCentreZ, "z"}})
        res.metrics.push_back({std::string("static-load slope, wheel centre ") + axis + " (" + loaded + ")", model.wheels[w].name,
                               "mm" + per, slope(c) * 1000.0});
    }
  }
  if (steering) {
    // Steering gain at the design position (analytic, heights held), Ackermann at both locks.
    Linearization lin(model, design);
    HeldHeights held(model, lin);
    const VecX dq = held.respond(inputColumn(model, lin.ws().Ju, o.input));
    const bool mm = model.inputs[o.input].kind == InputKind::Translation;
    for (int w = 0; w < m; ++w) {
      const double gain = steerAngle(model.wheels[w], lin.gradient(w, kToe).dot(dq)) * kDeg * (mm ? 1e-3 : 1.0 / kDeg);
      res.metrics.push_back({"steering gain", model.wheels[w].name, mm ? "deg/mm" : "deg/deg", gain});
    }
    if (ackermann) {
      const int col = res.column("Ackermann");
      res.metrics.push_back({"Ackermann at the sweep's start", "", "%", res.values.front()[col]});
      res.metrics.push_back({"Ackermann at the sweep's end", "", "%", res.values.back()[col]});
    }
  }
  return res;
}

void writeKcCsv(const KcResult& r, const std::string& path) {
  std::string text = csvField(r.sweepName + " [" + r.sweepUnit + "]");
  for (std::size_t c = 0; c < r.columns.size(); ++c) text += "," + csvField(r.columns[c] + " [" + r.units[c] + "]");
  text += "\n";
  for (std::size_t k = 0; k < r.sweep.size(); ++k) {
    text += shortestText(r.sweep[k]);
    for (double v : r.values[k]) text += "," + shortestText(v);  // exact, as the run's results
    text += "\n";
  }
  writeFile(path, text, "analysis results");
}

}  // namespace ek
