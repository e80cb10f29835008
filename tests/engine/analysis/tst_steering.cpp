// SPDX-License-Identifier: GPL-3.0-or-later
// A steering rack driven by the steering-wheel angle (docs/steering.md) on a rack held by a guide
// bushing whose axial stiffness stands for what the tie rods feed back: the static travel is the
// column and the guide in series, the column's torque the ratio times the guide's force, the
// twist that torque over the column's stiffness; a ramp of the angle is followed with the lag a
// first-order solution of the rack's equation gives; a negative ratio turns the rack the other way.
// The shipped vehicle on tyres rolls straight on and turns left under a positive angle, its tyres
// carrying its weight and the centripetal force.
#include <QtTest>

#include <cmath>

#include "engine/analysis/simulation.h"
#include "engine/dynamics/linearize.h"
#include "engine/dynamics/tyre_contact.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"

using namespace ek;

namespace {

constexpr double kColumnStiffness = 1500.0;  // [N m/rad]
constexpr double kColumnDamping = 0.5;       // [N m s/rad]
constexpr double kGuide = 2e6;               // the guide's axial stiffness [N/m]
constexpr double kGuideDamping = 300.0;      // [N s/m]
constexpr double kRatio = 0.008;             // [m/rad]: 50 mm per turn

/// Ground, a steering wheel (fixed, turned by input 1 about its marker's z axis) and a rack of
/// 3 kg along global y, guided by a bushing (stiff but along the rack) and pulled by the column.
Project rackOnGuide(double ratio, const SignalRow& angle, InitialState start) {
  Project p;
  p.name = "rack on a guide";
  p.gravity = Vec3::Zero();
  BodyRow ground, wheel, rack;
  ground.id = 1, ground.name = "ground", ground.fixed = true;
  wheel.id = 2, wheel.name = "steering wheel", wheel.fixed = true, wheel.position = Vec3(0.4, 0.35, 0.8);
  rack.id = 3, rack.name = "rack", rack.mass = 3.0, rack.inertia = {0.16, 0.001, 0.16, 0.0, 0.0, 0.0};
  rack.position = Vec3(0.1, 0.0, 0.25);
  p.bodies = {ground, wheel, rack};
  const Vec3 alongY(0.0, 0.0, -M_PI / 2.0);  // Cardan angles that turn z onto global +y
  p.markers = {{10, "housing", 1, Vec3(0.1, 0.0, 0.25), alongY},
               {11, "rack", 3, Vec3::Zero(), alongY},
               {20, "column", 2, Vec3::Zero(), Vec3(0.0, -0.4, 0.0)}};
  BushingRow guide;
  guide.id = 5, guide.name = "guide", guide.markerI = 11, guide.markerJ = 10;
  for (int d = 0; d < 6; ++d)
    guide.directions[d] = {{d < 2 ? 1e8 : d == 2 ? kGuide : 1e6, {}}, {d == 2 ? kGuideDamping : 2e3, {}}, 0.0};
  p.bushings = {guide};
  p.inputs = {InputRow{1, "steering wheel angle", 20, InputKind::Rotation, InputFrame::Marker, Vec3::UnitZ()}};
  p.steeringRacks = {SteeringRackRow{1, "rack", 1, 11, 10, ratio, kColumnStiffness, kColumnDamping}};
  LoadCaseRow lc;
  lc.name = "steer";
  lc.duration = 1.0;
  lc.initialState = start;
  lc.drives = {{1, angle}};
  p.loadCases = {lc};
  return p;
}

/// rackOnGuide() on a variable ratio: the travel curve S(u) = S0 + r0 u + a u^3 sampled as a spline
/// (quicker towards the lock: 6.8 mm/rad at the centre, 9.5 at 3 rad), S0 = 50 mm (a curve of the
/// rack's position: the angle zero stands for the rack as modelled).
Project variableRack(const SignalRow& angle, InitialState start) {
  Project p = rackOnGuide(kRatio, angle, start);
  CurveRow travel{7, "rack travel", "spline", "linear", {}};
  for (double u = -3.0; u <= 3.0 + 1e-9; u += 0.75) travel.points.push_back({u, 0.05 + 0.0068 * u + 1e-4 * u * u * u});
  p.curves = {travel};
  p.steeringRacks[0].ratio = 0.0;
  p.steeringRacks[0].travelCurve = 7;
  return p;
}

SteeringRackResult rackAt(const SuspensionModel& m, const State& s, double angle, double rate) {
  Workspace ws(m);
  VecX u(1), ud(1);
  u << angle;
  ud << rate;
  linearize(m, s, u, ud, ws);
  return ws.steeringRacks[0];
}

}  // namespace

class TestSteering : public QObject {
  Q_OBJECT
 private slots:
  // At rest under a steering-wheel angle u the column (k_r = K_c / ratio^2 at the rack) and the
  // guide share the travel: s = k_r ratio u / (k_r + k_g); the column holds ratio k_g s, twisted
  // by that over K_c. Both signs of the ratio.
  void staticTravelThroughTheColumn() {
    for (double ratio : {kRatio, -kRatio}) {
      SignalRow angle;
      angle.value = 0.5;
      Simulation sim(SuspensionModel::build(rackOnGuide(ratio, angle, InitialState::Equilibrium)), "steer", RunOptions{});
      sim.initialize();
      const SteeringRackResult r = rackAt(sim.model(), sim.state(), 0.5, 0.0);
      const double kr = kColumnStiffness / (ratio * ratio);
      const double travel = kr * ratio * 0.5 / (kr + kGuide);
      qInfo("ratio %+.3f m/rad: travel %.9f mm (expected %.9f), column torque %.6f N m, twist %.6f deg", ratio,
            1e3 * r.travel, 1e3 * travel, r.columnTorque, r.columnTwist * 180.0 / M_PI);
      QVERIFY(std::abs(r.travel - travel) <= 1e-10);
      // The rack moves along global y (the housing's z) by that much.
      const Vec3 rackAt0 = sim.model().bodies[2].p0;
      QVERIFY((sim.state().r.head<3>() - rackAt0 - Vec3(0.0, travel, 0.0)).norm() <= 1e-10);
      QVERIFY(std::abs(r.force - kGuide * travel) <= 1e-6 * kGuide * std::abs(travel));
      QVERIFY(std::abs(r.columnTorque - ratio * kGuide * travel) <= 1e-6 * std::abs(r.columnTorque));
      QVERIFY(std::abs(r.columnTwist - r.columnTorque / kColumnStiffness) <= 1e-9);
      QVERIFY(r.columnTorque > 0.0);  // the driver holds against the turn, whichever way the rack runs
    }
  }

  // A variable ratio (docs/steering.md, "Variable ratio"): at rest under an angle u the column, at
  // the rack k_r = K_c / S'(u)^2, and the guide share the travel S(u) - S(0): s = k_r (S(u) -
  // S(0)) / (k_r + k_g); the column holds S'(u) k_g s, twisted by that over K_c. Beyond the curve's
  // points (3.6 rad) it continues with its end slope; quicker towards the lock than the centre's
  // ratio would take the rack.
  void variableRatioStaticTravel() {
    const Project p = variableRack(SignalRow{}, InitialState::Equilibrium);
    for (double angle : {0.5, -1.7, 3.6}) {
      Project q = p;
      q.loadCases[0].drives[0].signal.value = angle;
      Simulation sim(SuspensionModel::build(q), "steer", RunOptions{});
      sim.initialize();
      const ModelSteeringRack& rack = sim.model().steeringRacks[0];
      const CurveValue at = rack.travelCurve->eval(angle), zero = rack.travelCurve->eval(0.0);
      const SteeringRackResult r = rackAt(sim.model(), sim.state(), angle, 0.0);
      const double kr = kColumnStiffness / (at.dydx * at.dydx);
      const double travel = kr * (at.y - zero.y) / (kr + kGuide);
      qInfo("angle %+.2f rad: ratio %.5f m/rad (%.5f at 0), travel %.9f mm (expected %.9f), column torque %.6f N m",
            angle, at.dydx, zero.dydx, 1e3 * r.travel, 1e3 * travel, r.columnTorque);
      QVERIFY(std::abs(r.travel - travel) <= 1e-10);
      QVERIFY(std::abs(r.columnTorque - at.dydx * kGuide * travel) <= 1e-6 * std::abs(r.columnTorque));
      QVERIFY(std::abs(r.columnTwist - r.columnTorque / kColumnStiffness) <= 1e-9);
      // Towards the lock the rack runs further than the centre's ratio times the angle.
      QVERIFY(std::abs(travel) > std::abs(kr * zero.dydx * angle / (kr + kGuide)));
    }
  }

  // A travel curve that is the straight line ratio x u runs as the constant ratio: the rack's
  // equation, its partials by the angle (the integrator's J_u) and the ramp's whole run agree to
  // round-off.
  void straightTravelCurveIsTheRatio() {
    SignalRow ramp;
    ramp.type = SignalType::Ramp, ramp.value = 0.0, ramp.value2 = 1.5, ramp.t0 = 0.1, ramp.t1 = 0.6;
    Project line = rackOnGuide(kRatio, ramp, InitialState::AsModelled);
    line.curves = {CurveRow{7, "line", "linear", "linear", {{-2.0, -2.0 * kRatio}, {2.0, 2.0 * kRatio}}}};
    line.steeringRacks[0].ratio = 0.0;
    line.steeringRacks[0].travelCurve = 7;
    Simulation a(SuspensionModel::build(rackOnGuide(kRatio, ramp, InitialState::AsModelled)), "steer", RunOptions{});
    Simulation b(SuspensionModel::build(line), "steer", RunOptions{});
    a.initialize();
    b.initialize();
    double worst = 0.0, largest = 0.0;
    for (bool more = true; more;) {
      more = a.step();
      QCOMPARE(b.step(), more);
      worst = std::max(worst, (a.state().r - b.state().r).cwiseAbs().maxCoeff());
      largest = std::max(largest, a.state().r.cwiseAbs().maxCoeff());
    }
    qInfo("straight travel curve against the ratio: largest difference %.3e m of %.3f m", worst, largest);
    QCOMPARE(a.state().t, b.state().t);
    QVERIFY(worst <= 1e-12 * largest);
  }

  // A ramp of the angle, u = a (t - t0): once the start's transient has died the rack's equation
  // m s'' = -k_g s - c_g s' - k_r (s - ratio u) - c_r (s' - ratio u') has the solution s = A (t - t0)
  // + B, A = k_r ratio a / (k_r + k_g), B = -(c_g A + c_r (A - ratio a)) / (k_r + k_g); after the
  // ramp the rack settles at the static travel.
  void followsTheSteeringWheel() {
    SignalRow ramp;
    ramp.type = SignalType::Ramp, ramp.value = 0.0, ramp.value2 = 1.5, ramp.t0 = 0.1, ramp.t1 = 0.6;
    Simulation sim(SuspensionModel::build(rackOnGuide(kRatio, ramp, InitialState::AsModelled)), "steer", RunOptions{});
    sim.initialize();
    const double a = 1.5 / 0.5, kr = kColumnStiffness / (kRatio * kRatio), cr = kColumnDamping / (kRatio * kRatio);
    const double A = kr * kRatio * a / (kr + kGuide);
    const double B = -(kGuideDamping * A + cr * (A - kRatio * a)) / (kr + kGuide);
    double worst = 0.0;
    while (sim.step()) {
      const double t = sim.state().t;
      if (t > 0.15 && t < 0.55) {
        const SteeringRackResult r = rackAt(sim.model(), sim.state(), a * (t - 0.1), a);
        worst = std::max(worst, std::abs(r.travel - (A * (t - 0.1) + B)));
      }
    }
    const SteeringRackResult end = rackAt(sim.model(), sim.state(), 1.5, 0.0);
    const double settled = kr * kRatio * 1.5 / (kr + kGuide);
    qInfo("ramp: lag B = %.4e m, largest departure from A t + B %.3e m; end travel %.9f mm (static %.9f)", B, worst,
          1e3 * end.travel, 1e3 * settled);
    QVERIFY(std::abs(B) > 1e-7);
    QVERIFY(worst <= 0.01 * std::abs(B));
    QVERIFY(std::abs(end.travel - settled) <= 1e-9);
  }

  // projects/full_vehicle_tyres.json: set down at 20 m/s it settles and rolls straight on (no yaw,
  // no drift; the four tyres carry the weight); a step of +0.5 rad turns it left (ISO 8855), the
  // driver holding the column and the speed follower the speed (its drive torque the gain times
  // the speed error, the error what the driving resistance's torque leaves), and once the yaw rate
  // has settled the tyres' forces across the path are the mass times the centripetal acceleration
  // V Omega (Newton for the whole car).
  void shippedVehicleOnTyres() {
    const auto model = SuspensionModel::build(readProject(std::string(ELASTOKIN_SOURCE_DIR) +
                                                          "/projects/full_vehicle_tyres.json"));
    const SuspensionModel& m = *model;
    double mass = 0.0;
    for (int b : m.freeBodies) mass += m.bodies[b].modal ? 0.0 : m.bodies[b].mass;
    const int body = m.bodyById(0).value;
    struct End {
      Vec3 velocity, forceSum;
      double forwardSpeed = 0.0, yawRate = 0.0, columnTorque = 0.0, rackForce = 0.0, driveTorque = 0.0;
    };
    auto runTo = [&](const std::string& loadCase, double angle) {
      Simulation sim(model, loadCase, RunOptions{});
      sim.initialize();
      while (sim.step()) {
      }
      Workspace ws(m);
      VecX u = VecX::Zero(m.nInputs());
      u[m.inputById(1)] = angle;
      End e;
      const Recorder& r = sim.results();
      for (std::size_t c = 0; c < r.channels().size(); ++c)
        if (r.channels()[c].name == "drive torque rear left") e.driveTorque = r.value(r.size() - 1, c);
      u[m.inputById(2)] = u[m.inputById(3)] = e.driveTorque;
      linearize(m, sim.state(), u, ws);
      e.velocity = ws.bodies[body].v;
      e.forwardSpeed = ws.bodies[body].R.col(0).dot(e.velocity);
      e.yawRate = ws.bodies[body].w_W.z();
      e.forceSum = Vec3::Zero();
      for (const TyreContact& t : ws.tyres) e.forceSum += Vec3(t.result[kTyreForce], t.result[kTyreForce + 1], t.result[kTyreForce + 2]);
      e.columnTorque = ws.steeringRacks[0].columnTorque;
      e.rackForce = ws.steeringRacks[0].force;
      return e;
    };
    const End straight = runTo("straight", 0.0);
    qInfo("straight, 3 s: speed %.4f m/s, lateral %.2e m/s, yaw rate %.2e rad/s; tyres carry %.2f N of %.2f N",
          straight.velocity.x(), straight.velocity.y(), straight.yawRate, straight.forceSum.z(), mass * 9.81);
    QVERIFY(straight.velocity.x() > 19.0 && straight.velocity.x() < 20.0);  // coasting, slowed by the tyres
    QVERIFY(std::abs(straight.velocity.y()) < 1e-6 && std::abs(straight.yawRate) < 1e-6);
    QVERIFY(std::abs(straight.forceSum.z() - mass * 9.81) < 2e-3 * mass * 9.81);

    const End turn = runTo("step steer", 0.5);
    const double speed = turn.velocity.head<2>().norm();
    const Vec3 across = Vec3::UnitZ().cross(turn.velocity).normalized();  // towards the centre of the turn
    const double centripetal = mass * speed * turn.yawRate;
    const SpeedFollowerRow& follower = *m.loadCase("step steer")->speedFollower;
    qInfo("step steer, 4 s: yaw rate %.4f rad/s at %.3f m/s forwards (%.3f g); tyre forces across the path %.1f N, "
          "m V Omega %.1f N; column torque %.3f N m; drive %.2f N m per wheel",
          turn.yawRate, turn.forwardSpeed, speed * turn.yawRate / 9.81, turn.forceSum.dot(across), centripetal,
          turn.columnTorque, turn.driveTorque);
    QVERIFY(turn.yawRate > 0.05);  // a left turn
    QVERIFY(std::abs(turn.forceSum.dot(across) - centripetal) < 0.01 * centripetal);
    QVERIFY(turn.columnTorque > 0.0);
    QCOMPARE(turn.columnTorque, m.steeringRacks[0].ratio * turn.rackForce);
    // The follower: the speed held to what the turn's resistance leaves, the torque its law's.
    QVERIFY(std::abs(turn.forwardSpeed - follower.speed) < 0.05);
    QVERIFY(turn.driveTorque > 20.0);  // the turn's resistance needs drive
    QVERIFY(std::abs(turn.driveTorque - follower.gain * (follower.speed - turn.forwardSpeed) / 2.0) <
            0.02 * turn.driveTorque);  // the law at the last step's start, 1 ms before
  }
};

QTEST_APPLESS_MAIN(TestSteering)
#include "tst_steering.moc"
