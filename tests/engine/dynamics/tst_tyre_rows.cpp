// SPDX-License-Identifier: GPL-3.0-or-later
// A Magic Formula tyre in the engine: a wheel with a .tir file gets a state slot (spin, two
// deflections); J_r and J_v of a rolling, steered, cambered wheel against central differences of
// h; the values-only pass equal to the full pass; and a carriage rolling at 10 m/s with its wheel
// turned by a slip angle: after the transient the tyre's lateral force is the Magic Formula's at
// the kinematic slip angle and the carriage's weight, the wheel rolls freely, and LSRT2 at 1 ms
// agrees with CVODE.
#include <QtTest>

#include <cmath>

#include "engine/dynamics/linearize.h"
#include "engine/dynamics/magic_formula.h"
#include "engine/dynamics/tyre_rows.h"
#include "engine/model/model.h"
#include "support/fd.h"
#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

constexpr double kMass = test::kCarriageMass;
constexpr double kSpeed = test::kCarriageSpeed;
constexpr double kSlipAngle = 0.03;  // the wheel's heading against the motion [rad]

Project carriage(double slipAngle) { return test::tyreCarriage(slipAngle); }

VecX hAt(const SuspensionModel& m, const State& s, const VecX& u = VecX::Zero(0)) {
  Workspace ws(m);
  VecX h(m.nDof()), rDot(m.nDof());
  evaluateRhs(m, s, u, VecX::Zero(u.size()), ws, h, rDot);
  return h;
}

/// The carriage, wheel straight, with a 10 kg differential held to it by a stiff mount: the
/// drive input (1) reacts on the differential, the brake input (2) on the carriage (the carrier);
/// both constant in the load case.
Project drivenCarriage(double drive, double brake) {
  Project p = carriage(0.0);
  BodyRow diff;
  diff.id = 2;
  diff.name = "differential";
  diff.mass = 10.0;
  diff.inertia = {0.2, 0.2, 0.2, 0, 0, 0};
  diff.position = p.bodies[1].position + Vec3(0.3, 0.0, 0.0);
  diff.velocity = p.bodies[1].velocity;
  p.bodies.push_back(diff);
  p.markers.push_back(MarkerRow{4, "differential mount", 1, Vec3(0.3, 0.0, 0.0), Vec3::Zero()});
  p.markers.push_back(MarkerRow{5, "differential", 2, Vec3::Zero(), Vec3::Zero()});
  BushingRow mount;
  mount.id = 2;
  mount.name = "mount";
  mount.markerI = 5;
  mount.markerJ = 4;
  for (int d = 0; d < 6; ++d) {
    mount.directions[d].stiffness.coefficient = d < 3 ? 1e6 : 1e5;
    mount.directions[d].damping.coefficient = d < 3 ? 2e3 : 200.0;
  }
  p.bushings.push_back(mount);
  p.inputs = {InputRow{1, "drive torque", 5, InputKind::Torque}, InputRow{2, "brake torque", 3, InputKind::Torque}};
  p.wheels[0].driveInput = 1;
  p.wheels[0].brakeInput = 2;
  SignalRow d, b;
  d.value = drive;
  b.value = brake;
  p.loadCases[0].drives = {{1, d}, {2, b}};
  return p;
}

}  // namespace

class TestTyreRows : public QObject {
  Q_OBJECT
 private slots:
  void aWheelWithATyreGetsASlot() {
    const auto m = SuspensionModel::build(carriage(kSlipAngle));
    QCOMPARE(m->nFreeBodies(), 2);
    QVERIFY(m->hasTyres());
    const ModelWheel& w = m->wheels[0];
    QCOMPARE(w.tyreSlot, 1);
    QVERIFY(!w.tyreMirrored);                  // measured on the left, runs on the left
    QCOMPARE(w.spinInertia, w.tyre->iyy);      // from the file
    VecX r, v;
    m->initialState(r, v);
    QVERIFY(v[6] > kSpeed / 0.3135 && v[6] < kSpeed / 0.29);  // rolling with its hub
    // A right wheel with the left-measured tyre runs mirrored; a missing file is named.
    Project right = carriage(kSlipAngle);
    right.wheels[0].side = WheelSide::Right;
    right.markers[2].orientation = Vec3(-M_PI / 2, 0.0, 0.0);
    QVERIFY(SuspensionModel::build(right)->wheels[0].tyreMirrored);
    Project missing = carriage(kSlipAngle);
    missing.wheels[0].tyre = "/nonexistent/tyre.tir";
    try {
      SuspensionModel::build(missing);
      QFAIL("a missing tyre file was accepted");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).contains("tyre"), e.what());
    }
  }

  // J_r and J_v at a state where the hub rolls, yaws, pitches and moves in every direction, the
  // wheel spins faster than it rolls and both deflections are non-zero.
  void jacobians() {
    Project p = carriage(kSlipAngle);
    p.bodies[1].orientation = Vec3(0.1, 0.04, -0.05);
    p.bodies[1].angularVelocity = Vec3(0.3, -0.2, 0.5);
    p.bodies[1].velocity = Vec3(kSpeed, 0.4, -0.1);
    p.wheels[0].lowSpeedDamping = 1500.0;
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    s.v.segment<3>(6) = Vec3(s.v[6] * 1.04, 0.003, -0.004);
    s.r.segment<3>(6) = Vec3(0.7, 0.01, -0.02);
    Workspace ws(*m);
    linearize(*m, s, VecX::Zero(0), ws);
    const MatX fdR = test::centralDifference([&](const VecX& r) { return hAt(*m, State{0.0, r, s.v}); }, s.r, 1e-7);
    // h is smooth but not quadratic in v (the slip): Richardson's extrapolation of two central
    // differences, exact to the fourth order, at steps far above round-off.
    auto hOfV = [&](const VecX& v) { return hAt(*m, State{0.0, s.r, v}); };
    const MatX fdV = (4.0 * test::centralDifference(hOfV, s.v, 1e-5) - test::centralDifference(hOfV, s.v, 2e-5)) / 3.0;
    const double eR = test::blockRelativeError(blockToDense(m->pattern, ws.Jr), fdR, 3, 3);
    const double eV = test::blockRelativeError(blockToDense(m->pattern, ws.Jv), fdV, 3, 3);
    qInfo("tyre on a moving hub: relative errors J_r %.2e, J_v %.2e (Fz %.1f N, kappa %.4f, alpha %.4f)", eR, eV,
          ws.tyres[0].fz, ws.tyres[0].kappa, ws.tyres[0].alpha);
    QVERIFY2(eR <= 1e-6, qPrintable(QString("J_r error %1").arg(eR)));
    QVERIFY2(eV <= 1e-6, qPrintable(QString("J_v error %1").arg(eV)));
    // The values-only pass equals the full pass bit for bit.
    const VecX h = hAt(*m, s);
    QVERIFY(h == ws.h);
    QVERIFY(std::abs(ws.tyres[0].kappa) > 1e-3 && std::abs(ws.tyres[0].alpha) > 1e-3);
  }

  // Drive and brake torques: J_r, J_v and J_u against differences near standstill, where the
  // brake's tanh(Omega / Omega_0) is neither flat nor saturated; the input's columns reach the
  // slot and the reaction bodies only.
  void spinTorqueJacobians() {
    Project p = drivenCarriage(0.0, 0.0);
    p.bodies[1].orientation = Vec3(0.05, 0.02, -0.03);
    p.bodies[1].angularVelocity = Vec3(0.1, -0.2, 0.3);
    p.bodies[1].velocity = Vec3(0.3, 0.05, -0.02);
    p.bodies[2].velocity = p.bodies[1].velocity;
    p.wheels[0].lowSpeedDamping = 1500.0;
    const auto m = SuspensionModel::build(p);
    QCOMPARE(m->nFreeBodies(), 3);
    const int slot = m->wheels[0].tyreSlot;
    QVERIFY(m->inputs[0].spinTorque && m->inputs[1].spinTorque);
    QVERIFY(m->wheels[0].drive.reaction == 1 && m->wheels[0].brake.reaction == 0);
    State s;
    m->initialState(s.r, s.v);
    s.v.segment<3>(6 * slot) = Vec3(0.4, 0.002, -0.003);
    s.r.segment<3>(6 * slot) = Vec3(0.7, 0.01, -0.02);
    const VecX u = (VecX(2) << 150.0, 800.0).finished();
    Workspace ws(*m);
    linearize(*m, s, u, ws);
    const MatX fdR = test::centralDifference([&](const VecX& r) { return hAt(*m, State{0.0, r, s.v}, u); }, s.r, 1e-7);
    // Steps small against the rim slip's speed scale VXLOW / 10 = 0.1 m/s and the secant's ramp
    // where the deflections unload against the slip (docs/tyres.md).
    auto hOfV = [&](const VecX& v) { return hAt(*m, State{0.0, s.r, v}, u); };
    const MatX fdV = (4.0 * test::centralDifference(hOfV, s.v, 1e-6) - test::centralDifference(hOfV, s.v, 2e-6)) / 3.0;
    const MatX fdU = test::centralDifference([&](const VecX& x) { return hAt(*m, s, x); }, u, 1e-3);
    const MatX Ju = inputMatrix(*m, ws.Ju);
    const double eR = test::blockRelativeError(blockToDense(m->pattern, ws.Jr), fdR, 3, 3);
    const double eV = test::blockRelativeError(blockToDense(m->pattern, ws.Jv), fdV, 3, 3);
    const double eU = test::blockRelativeError(Ju, fdU, 3, 1);
    qInfo("drive 150 N m, brake 800 N m at Omega 0.4 rad/s: relative errors J_r %.2e, J_v %.2e, J_u %.2e", eR, eV, eU);
    QVERIFY2(eR <= 1e-6, qPrintable(QString("J_r error %1").arg(eR)));
    QVERIFY2(eV <= 1e-6, qPrintable(QString("J_v error %1").arg(eV)));
    QVERIFY2(eU <= 1e-6, qPrintable(QString("J_u error %1").arg(eU)));
    // The drive's column: the spin (1 / I) and the differential's torque only; the brake's: the
    // spin and the carriage.
    const double inertia = m->wheels[0].spinInertia;
    QVERIFY(std::abs(Ju(6 * slot, 0) - 1.0 / inertia) < 1e-12 / inertia);
    QVERIFY(Ju.col(0).segment<6>(0).isZero() && Ju.col(0).segment<3>(6).isZero());
    QVERIFY(Ju.col(0).segment<3>(9).norm() > 0.99);
    QVERIFY(std::abs(Ju(6 * slot, 1) + std::tanh(0.4 / 0.5) / inertia) < 1e-12);
    QVERIFY(Ju.col(1).segment<6>(6).isZero() && Ju.col(1).segment<3>(3).norm() > 0.6);
    QVERIFY(hAt(*m, s, u) == ws.h);
  }

  // A drive torque accelerates the carriage by T / (m R_l + I / R_e) more than it rolls without
  // one (Fx = m a acts at the loaded radius R_l below the centre, the wheel turns at a / R_e), and
  // its reaction twists the differential's mount; a brake beyond the tyre's grip locks the wheel
  // and stops the carriage in the time the Magic Formula's locked-wheel force gives; there it
  // stays, rocking on the tyre's carcass spring (docs/tyres.md, the secant relaxation length).
  void driveAndBrakeOnACarriage() {
    const double torque = 200.0, duration = 0.8;  // within the divergence guard's 10 m
    Project free = drivenCarriage(0.0, 0.0), driven = drivenCarriage(torque, 0.0);
    free.loadCases[0].duration = driven.loadCases[0].duration = duration;
    const auto a = test::runProject(free, "free", 1e-3), b = test::runProject(driven, "free", 1e-3);
    const SuspensionModel& m = b->model();
    Workspace ws(m);
    const VecX u = (VecX(2) << torque, 0.0).finished();
    linearize(m, b->state(), u, ws);
    const double re = ws.tyres[0].effectiveRadius, inertia = m.wheels[0].spinInertia, mass = kMass + 10.0;
    const double loaded = b->state().r[2] - ws.tyres[0].point.z();
    const double gain = b->state().v[0] - a->state().v[0];
    const double expected = torque * duration / (mass * loaded + inertia / re);
    qInfo("drive %.0f N m for %.1f s: speed gain %.4f m/s, T t / (m R_l + I / R_e) %.4f m/s (R_l %.4f, R_e %.4f m); "
          "kappa %.4f",
          torque, duration, gain, expected, loaded, re, ws.tyres[0].kappa);
    QVERIFY(std::abs(gain - expected) < 0.005 * expected);
    QVERIFY(ws.tyres[0].kappa > 0.0 && ws.tyres[0].forces[kMfFx] > 0.0);
    // The mount holds the differential against the reaction -T y: its torque on the differential
    // is T about the wheel's axis (+y).
    const Vec3 tau = ws.bushings[1].wrench.tau;
    qInfo("mount's torque on the differential (%.2f, %.2f, %.2f) N m", tau.x(), tau.y(), tau.z());
    QVERIFY(std::abs(tau.y() - torque) < 0.01 * torque && std::abs(tau.x()) + std::abs(tau.z()) < 0.01 * torque);

    const double capacity = 5000.0, stopAfter = 2.0;
    Project braked = drivenCarriage(0.0, capacity);
    braked.loadCases[0].duration = stopAfter;
    braked.wheels[0].lowSpeedDamping = 2000.0;
    braked.outputs = {{"speed", OutputQuantity::MarkerVelocity, 2, "x"}, {"x", OutputQuantity::MarkerPosition, 2, "x"}};
    const auto c = test::runProject(braked, "free", 1e-3);
    const Recorder& rec = c->results();
    double stopped = -1.0;
    for (std::size_t k = 0; k < rec.size() && stopped < 0.0; ++k)
      if (rec.value(k, 0) < 0.05) stopped = rec.time(k);
    const MfForces locked = magicFormula(*m.wheels[0].tyre, {-1.0, 0.0, 0.0, mass * 9.81, 0.5 * kSpeed});
    const double predicted = mass * kSpeed / std::abs(locked[kMfFx]);
    qInfo("brake %.0f N m from %.0f m/s: stopped after %.3f s (m V / |Fx(kappa = -1)| %.3f s); speed at %.1f s %.2e m/s",
          capacity, kSpeed, stopped, predicted, stopAfter, c->state().v[0]);
    QVERIFY(stopped > 0.0 && std::abs(stopped - predicted) < 0.05 * predicted);
    // Standstill: the locked tyre's deflection is Fx over the carcass stiffness Kxk / sigma_kappa0
    // (the secant relaxation length), so the carriage rocks on that spring where it stopped and
    // the low-speed damping calms it; it does not roll back.
    const MfTransient tr = transientProperties(*m.wheels[0].tyre, mass * 9.81, 0.0);
    const double deflection = std::abs(locked[kMfFx]) / (tr.kxk / tr.sigmaKappa);
    double drift = 0.0, firstPeak = 0.0, lastPeak = 0.0, stopAt = 0.0;
    for (std::size_t k = 0; k < rec.size(); ++k) {
      const double t = rec.time(k), v = std::abs(rec.value(k, 0));
      if (t < stopped) continue;
      if (stopAt == 0.0) stopAt = rec.value(k, 1);
      drift = std::max(drift, std::abs(rec.value(k, 1) - stopAt));
      if (t < stopped + 0.2) firstPeak = std::max(firstPeak, v);
      if (t > stopAfter - 0.2) lastPeak = std::max(lastPeak, v);
    }
    qInfo("after the stop: within %.1f mm of where it stopped (the locked deflection Fx / C %.1f mm); speed peaks "
          "%.3f m/s in its first 0.2 s, %.3f m/s in the last 0.2 s",
          1e3 * drift, 1e3 * deflection, firstPeak, lastPeak);
    QVERIFY(drift < 2.0 * deflection);  // released without damping it swings to twice the stored deflection
    QVERIFY(lastPeak < 0.2 * firstPeak);
    QVERIFY(std::abs(c->state().v[0]) < 0.01);
  }

  // At rest the deflections follow the hub and the spin angle (setRestDeflections()); J_r with
  // their part (addRestDeflectionPartials()) against central differences of h at rest, the hub
  // shifted, turned and the wheel turned away from where the patch was set down.
  void restDeflectionPartials() {
    Project p = carriage(kSlipAngle);
    p.bodies[1].velocity = Vec3::Zero();
    const auto m = SuspensionModel::build(p);
    const int slot = m->wheels[0].tyreSlot;
    State s;
    m->initialState(s.r, s.v);
    s.v.setZero();
    Workspace ws(*m);
    const std::vector<TyrePatch> patches = tyrePatches(*m, s, ws);
    s.r.head<3>() += Vec3(0.004, -0.003, -0.002);
    s.r.segment<3>(3) += Vec3(0.01, -0.02, 0.015);
    s.r[6 * slot] += 0.02;
    auto hAtRest = [&](const VecX& r) {
      State q = s;
      q.r = r;
      Workspace w(*m);
      setRestDeflections(*m, patches, q, w);
      return hAt(*m, q);
    };
    State q = s;
    setRestDeflections(*m, patches, q, ws);
    linearize(*m, q, VecX::Zero(0), ws);
    addRestDeflectionPartials(*m, patches, ws);
    const MatX fd = test::centralDifference(hAtRest, s.r, 1e-7);
    const double e = test::blockRelativeError(blockToDense(m->pattern, ws.Jr), fd, 3, 3);
    qInfo("at rest, deflections u %.3f mm, v_y %.3f mm from the patch: J_r against central differences %.2e",
          1e3 * q.v[6 * slot + 1], 1e3 * q.v[6 * slot + 2], e);
    QVERIFY(std::abs(q.v[6 * slot + 1]) > 1e-3 && std::abs(q.v[6 * slot + 2]) > 1e-3);
    QVERIFY2(e <= 1e-6, qPrintable(QString("J_r error %1").arg(e)));
  }

  // The static equilibrium holds the contact patch where the tyre was set down (docs/tyres.md,
  // "At rest"): the deflections follow the hub's displacement (and the wheel's turn), so at rest
  // the tyre is a spring of the carcass's stiffness, C_y = |Kya| / sigma_alpha0 sideways and
  // C_x = Kxk / sigma_kappa0 lengthwise. The carriage at rest, its guide given 20 kN/m along x and
  // across, set down 5 mm high, pushed sideways by 400 N and driven by 60 N m (reacting on the
  // carriage): the tyre carries the weight, deflects 400 N / C_y more sideways than without the
  // push and Fx / C_x lengthwise where Fx R_l = 60 N m; the spin balances; and a run from there
  // stays where it is.
  void staticEquilibriumOnTheTyre() {
    struct Settled {
      std::unique_ptr<Simulation> sim;
      State start;
      TyreContact contact;
      double slack;  // the carriage's speed and travel after 1 s, the larger
    };
    auto settle = [](double push, double drive) {
      Project p = carriage(0.0);
      p.bodies[1].velocity = Vec3::Zero();
      p.bodies[1].position.z() += 0.005;
      for (int d : {0, 1}) {
        p.bushings[0].directions[d].stiffness.coefficient = 2e4;
        p.bushings[0].directions[d].damping.coefficient = 2e3;
      }
      p.inputs = {InputRow{1, "push", 2, InputKind::Force, InputFrame::Global, Vec3::UnitY()},
                  InputRow{2, "drive", 2, InputKind::Torque}};
      p.wheels[0].driveInput = 2;
      SignalRow a, b;
      a.value = push;
      b.value = drive;
      p.loadCases[0].drives = {{1, a}, {2, b}};
      p.loadCases[0].initialState = InitialState::Equilibrium;
      RunOptions o;
      o.dt = 1e-3;
      Settled s{std::make_unique<Simulation>(SuspensionModel::build(p), "free", o), {}, {}, 0.0};
      s.sim->initialize();
      s.start = s.sim->state();
      const SuspensionModel& m = s.sim->model();
      Workspace ws(m);
      linearize(m, s.start, (VecX(2) << push, drive).finished(), ws);
      s.contact = ws.tyres[0];
      while (s.sim->step()) {
      }
      s.slack = std::max((s.sim->state().r - s.start.r).head<3>().norm(), s.sim->state().v.head<3>().norm());
      return s;
    };
    const Settled none = settle(0.0, 0.0), pushed = settle(400.0, 0.0), driven = settle(0.0, 60.0);
    const SuspensionModel& m = none.sim->model();
    const int slot = m.wheels[0].tyreSlot;
    const MfTransient tr = transientProperties(*m.wheels[0].tyre, none.contact.fz, 0.0);
    const double cx = tr.kxk / tr.sigmaKappa, cy = std::abs(tr.kya) / tr.sigmaAlpha;
    const double weight = kMass * 9.81;
    const double shift = pushed.start.r[1] - none.start.r[1], roll = pushed.start.r[5] - none.start.r[5];
    const double vyShift = pushed.start.v[6 * slot + 2] - none.start.v[6 * slot + 2];
    const double loaded = driven.start.r[2] - driven.contact.point.z();
    // The guide's 20 kN/m works beside the tyre sideways; the shifts' forces (Fx, Fy at zero
    // slip) are in both runs, so the differences are the carcass springs'.
    const double guide = 2e4, expectedDeflection = (400.0 - guide * shift) / cy;
    const double fx = driven.contact.forces[kMfFx] - none.contact.forces[kMfFx];
    const double du = driven.start.v[6 * slot + 1] - none.start.v[6 * slot + 1];
    qInfo("at rest: Fz %.2f N (weight %.2f); pushed by 400 N: the carriage moves %.4f mm and rolls %.2e rad, v_y "
          "%.4f mm ((400 N - guide) / C_y = %.4f mm); driven by 60 N m: Fx %.2f N (60 N m / R_l = %.2f N), u %.4f mm "
          "(Fx / C_x = %.4f mm)",
          none.contact.fz, weight, 1e3 * shift, roll, 1e3 * vyShift, -1e3 * expectedDeflection, fx, 60.0 / loaded,
          1e3 * du, 1e3 * fx / cx);
    qInfo("after 1 s from the equilibrium: moved or moving at most %.2e (m, m/s), %.2e, %.2e", none.slack, pushed.slack,
          driven.slack);
    QVERIFY(std::abs(none.contact.fz - weight) < 1e-6 * weight);
    QVERIFY(std::abs(none.contact.forces[kMfFx]) < 1e-6 * weight);  // no rolling resistance at rest
    QVERIFY(std::abs(pushed.contact.forces[kMfFy] - none.contact.forces[kMfFy] + 400.0 - guide * shift) < 1e-6 * 400.0);
    QVERIFY(std::abs(vyShift + expectedDeflection) < 0.01 * expectedDeflection);
    // The patch stays: v_y is less the shift of the carriage's point on it (its roll turns it).
    const double rollLoaded = pushed.start.r[2] - pushed.contact.point.z();
    QVERIFY(std::abs(vyShift + shift + roll * rollLoaded) < 1e-3 * shift);
    QVERIFY(std::abs(fx - 60.0 / loaded) < 1e-6 * 60.0 / loaded);
    QVERIFY(std::abs(du - fx / cx) < 0.01 * std::abs(fx / cx));
    for (const Settled* s : {&none, &pushed, &driven}) QVERIFY(s->slack < 1e-6);
  }

  // The carriage rolls 1 s with its wheel turned by 0.03 rad: after ~17 relaxation lengths the
  // slip angle is the kinematic one, the lateral force is the Magic Formula's at the carriage's
  // weight, the wheel rolls freely (its torque balance: Fx R_l = My), and LSRT2 at 1 ms agrees
  // with CVODE.
  void slipAngleOnACarriage() {
    Project p = carriage(kSlipAngle);
    for (const char* c : kTyreComponents) p.outputs.push_back({std::string("tyre ") + c, OutputQuantity::Tyre, 1, c});
    const auto sim = test::runProject(p, "free", 1e-3);
    const SuspensionModel& m = sim->model();
    const State& s = sim->state();
    Workspace ws(m);
    linearize(m, s, VecX::Zero(0), ws);
    const TyreContact& c = ws.tyres[0];
    // The hub's velocity in the wheel's W axes, the heading the carriage's yaw (0.03 rad less
    // what the aligning torque turns the guide): tan(alpha) = V_y / V_x.
    const double heading = s.r[3];
    const double vy = s.v[1] * std::cos(heading) - s.v[0] * std::sin(heading);
    const double vx = s.v[0] * std::cos(heading) + s.v[1] * std::sin(heading);
    qInfo("after 1 s: speed %.4f m/s, Fz %.2f N (weight %.2f), alpha %.6f (kinematic %.6f), kappa %.2e", vx, c.fz,
          kMass * 9.81, c.alpha, std::atan(vy / vx), c.kappa);
    QVERIFY(std::abs(c.fz - kMass * 9.81) < 1e-3 * kMass * 9.81);
    QVERIFY(std::abs(c.alpha - std::atan(vy / vx)) < 1e-6 * kSlipAngle);
    QVERIFY(std::abs(c.alpha + kSlipAngle) < 0.1 * kSlipAngle);  // the wheel heads left of its motion
    const MfForces mf = magicFormula(*m.wheels[0].tyre, {c.kappa, c.alpha, c.gamma, c.fz, c.vx});
    const double loaded = s.r[2] - c.point.z();  // upright wheel: centre height above the contact
    qInfo("Fy %.3f N (Magic Formula %.3f), Fx %.3f N, My / R_l %.3f N", c.forces[kMfFy], mf[kMfFy], c.forces[kMfFx],
          c.forces[kMfMy] / loaded);
    QVERIFY(std::abs(c.forces[kMfFy] - mf[kMfFy]) < 1e-9 * std::abs(mf[kMfFy]));
    // The wheel rolls with the carriage: its spin slows as the carriage does (Omega' = V_x' / R_e),
    // and what turns it is the rolling resistance less the longitudinal force's moment.
    const double spinRate = ws.h[6], deceleration = ws.h[0] / kMass;
    const double inertia = m.wheels[0].spinInertia;
    // The torque on the wheel by hand: the contact's force and moment in the W axes of the hub's
    // axis (its +y), about the centre, along the axis.
    const Vec3 y = ws.bodies[m.wheels[0].body.value].R.col(1);
    const Vec3 xW = y.cross(Vec3::UnitZ()).normalized(), yW = Vec3::UnitZ().cross(xW);
    const Vec3 force = c.forces[kMfFx] * xW + c.forces[kMfFy] * yW + c.fz * Vec3::UnitZ();
    const Vec3 moment = c.forces[kMfMx] * xW + c.forces[kMfMy] * yW + c.forces[kMfMz] * Vec3::UnitZ();
    const double torque = ((c.point - s.r.head<3>()).cross(force) + moment).dot(y);
    qInfo("Omega' %.5f rad/s^2, V_x' / R_e %.5f; I Omega' %.6f N m, the contact's torque by hand %.6f N m", spinRate,
          deceleration * std::cos(heading) / c.effectiveRadius, inertia * spinRate, torque);
    QVERIFY(std::abs(spinRate - deceleration * std::cos(heading) / c.effectiveRadius) < 0.01 * std::abs(spinRate));
    QVERIFY(std::abs(inertia * spinRate - torque) < 1e-9 * c.fz);
    QVERIFY(c.forces[kMfFy] > 500.0);  // pushes the wheel to the left
    RunOptions o;
    o.dt = 1e-3;
    o.integrator = "cvode";
    const auto ref = test::runProject(p, "free", o);
    // The tyre's output channels at the last sample are the contact's values at the end state.
    const Recorder& rec = sim->results();
    const double expected[] = {c.forces[kMfFx], c.forces[kMfFy], c.fz, c.forces[kMfMx], c.forces[kMfMy], c.forces[kMfMz],
                               c.kappa, c.alpha, c.gamma, c.vx, s.v[6], c.effectiveRadius};
    for (int k = 0; k < static_cast<int>(kTyreComponents.size()); ++k) {
      const double got = rec.value(rec.size() - 1, static_cast<std::size_t>(k));
      QVERIFY2(std::abs(got - expected[k]) <= 1e-9 * (1.0 + std::abs(expected[k])),
               qPrintable(QString("%1: %2 against %3").arg(kTyreComponents[k]).arg(got).arg(expected[k])));
    }
    QCOMPARE(QString::fromStdString(rec.channels()[1].unit), QString("N"));
    QCOMPARE(QString::fromStdString(rec.channels()[7].unit), QString("rad"));
    const double dy = (s.r - ref->state().r).head<3>().norm(), dv = (s.v - ref->state().v).norm();
    qInfo("LSRT2 1 ms against CVODE: carriage position %.2e m, velocities %.2e", dy, dv);
    QVERIFY(dy < 1e-4);
  }
};

QTEST_APPLESS_MAIN(TestTyreRows)
#include "tst_tyre_rows.moc"
