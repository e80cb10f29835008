// SPDX-License-Identifier: GPL-3.0-or-later
// Viscoelastic bushings (generalized Maxwell branches, paper 002 eqs. 4-5) in runs: relaxation
// after a fast deflection and the harmonic steady state against their closed forms, a body on a
// viscoelastic bushing against the exact solution of its linear equations, LSRT2's order; the
// same with the CVODE reference, which integrates the branch deflections as states of its own.
#include <QtTest>

#include <cmath>
#include <complex>
#include <unsupported/Eigen/MatrixFunctions>

#include "engine/analysis/simulation.h"
#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

constexpr double k0 = 1.0e5, k1 = 2.0e5, c1 = 2.0e3;  // lambda = 100 1/s
constexpr double lambda1 = k1 / c1;

/// A rig body (fixed, driven in x by input 1) joined to the ground by a viscoelastic bushing
/// (x: k0 and one branch k1, c1; the other directions stiff), so that the bushing's deflection is
/// the rig's motion; a free body on a soft spring elsewhere gives the run its degrees of freedom.
Project rig(const SignalRow& motion, double duration) {
  Project p = test::singleBushing(1.0, Vec3(0.01, 0.01, 0.01), 1e3, 10.0, Vec3(0, 1, 0));
  p.gravity.setZero();
  BodyRow rigBody;
  rigBody.id = 3;
  rigBody.name = "rig";
  rigBody.fixed = true;
  p.bodies.push_back(rigBody);
  p.markers.push_back({10, "rig mount", 3, Vec3::Zero(), Vec3::Zero()});
  p.markers.push_back({11, "ground side", 0, Vec3::Zero(), Vec3::Zero()});
  BushingRow b;
  b.id = 2;
  b.name = "viscoelastic";
  b.markerI = 10;
  b.markerJ = 11;
  for (int d = 0; d < 6; ++d) b.directions[d].stiffness.coefficient = d < 3 ? 1e6 : 1e4;
  b.directions[0].stiffness.coefficient = k0;
  b.directions[0].maxwell = {{k1, c1}};
  p.bushings.push_back(b);
  p.inputs.push_back({1, "rig x", 10, InputKind::Translation, InputFrame::Global, Vec3(1, 0, 0)});
  LoadCaseRow lc;
  lc.name = "rig";
  lc.duration = duration;
  lc.initialState = InitialState::AsModelled;
  lc.drives.push_back({1, motion});
  p.loadCases.push_back(lc);
  p.outputs.push_back({"force x", OutputQuantity::BushingForce, 2, "x"});
  p.outputs.push_back({"deflection x", OutputQuantity::BushingDeflection, 2, "x"});
  p.outputs.push_back({"branch x1", OutputQuantity::BushingBranchDeflection, 2, "x1"});
  return p;
}

Recorder runRig(const Project& p, const std::string& method, double dt) {
  RunOptions o;
  o.integrator = method;
  o.dt = dt;
  o.sampleRate = 1000.0;
  Simulation sim(SuspensionModel::build(p), "rig", o);
  sim.run();
  return sim.results();
}

}  // namespace

class TestViscoelastic : public QObject {
  Q_OBJECT
 private slots:
  // A 5 ms ramp (5 steps) to x0 at t0, then held: during the ramp z = (x0/T)(1 - e^(-lambda s))/lambda,
  // after it z(T) e^(-lambda (t - t0 - T)); the force on I is -(k0 x + k1 z).
  void relaxationAfterAFastDeflection_data() {
    QTest::addColumn<QString>("method");
    QTest::newRow("lsrt2 1 ms") << "lsrt2";
    QTest::newRow("ros34pw2 1 ms") << "ros34pw2";
    QTest::newRow("cvode") << "cvode";
  }
  void relaxationAfterAFastDeflection() {
    QFETCH(QString, method);
    const double x0 = 1e-3, t0 = 0.05, T = 5e-3;
    SignalRow ramp;
    ramp.type = SignalType::Ramp, ramp.t0 = t0, ramp.t1 = t0 + T, ramp.value = 0.0, ramp.value2 = x0;
    const Recorder rec = runRig(rig(ramp, 0.15), method.toStdString(), 1e-3);
    double worst = 0.0, worstAt = 0.0;
    for (std::size_t k = 0; k < rec.size(); ++k) {
      const double t = rec.time(k);
      double x = 0.0, z = 0.0;
      if (t > t0 && t <= t0 + T) {
        x = x0 * (t - t0) / T;
        z = x0 / T * (1.0 - std::exp(-lambda1 * (t - t0))) / lambda1;
      } else if (t > t0 + T) {
        x = x0;
        z = x0 / T * (1.0 - std::exp(-lambda1 * T)) / lambda1 * std::exp(-lambda1 * (t - t0 - T));
      }
      QVERIFY(std::abs(rec.value(k, 1) - x) <= 1e-12);
      // The branch deflection channel: z itself.
      QVERIFY(std::abs(rec.value(k, 2) - z) <= (method == "cvode" ? 1e-6 : 3e-3) * x0);
      const double expected = -(k0 * x + k1 * z);
      const double e = std::abs(rec.value(k, 0) - expected) / (k0 + k1) / x0;
      if (e > worst) worst = e, worstAt = t;
    }
    qInfo("%s relaxation: largest force error %.3g %% of the peak (k0 + k1) x0, at t = %.3f s", qPrintable(method),
          100 * worst, worstAt);
    QVERIFY(worst <= (method == "cvode" ? 1e-5 : 0.005));
    // Relaxed to the static stiffness: 9.5 time constants after the ramp the force is within 1 %.
    QVERIFY(std::abs(rec.value(rec.size() - 1, 0) + k0 * x0) <= 0.01 * k0 * x0);
  }

  // x = A sin(w t): after the start transient the force is the complex stiffness
  // k0 + k1 j w c1 / (k1 + j w c1) times x, in magnitude and phase.
  void harmonicSteadyStateIsTheComplexStiffness_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<double>("frequency");
    for (const char* method : {"lsrt2", "ros34pw2", "cvode"}) {
      QTest::addRow("%s, 2 Hz", method) << method << 2.0;
      QTest::addRow("%s, 16 Hz (w = lambda)", method) << method << lambda1 / (2 * M_PI);
      QTest::addRow("%s, 60 Hz", method) << method << 60.0;
    }
  }
  void harmonicSteadyStateIsTheComplexStiffness() {
    QFETCH(QString, method);
    QFETCH(double, frequency);
    const double A = 1e-3, w = 2 * M_PI * frequency;
    SignalRow sine;
    sine.type = SignalType::Sine, sine.amplitude = A, sine.frequency = frequency;
    const double periods = std::ceil(0.2 * frequency), settle = 0.1;  // 10 time constants
    const double duration = settle + periods / frequency;
    const Recorder rec = runRig(rig(sine, duration), method.toStdString(), 1e-3);
    // Least squares of the force on (sin, cos) over whole periods after the transient.
    Eigen::Matrix2d N = Eigen::Matrix2d::Zero();
    Eigen::Vector2d b = Eigen::Vector2d::Zero();
    for (std::size_t k = 0; k < rec.size(); ++k) {
      const double t = rec.time(k);
      if (t < settle - 1e-12) continue;
      const Eigen::Vector2d phi(std::sin(w * t), std::cos(w * t));
      N += phi * phi.transpose();
      b += phi * -rec.value(k, 0);
    }
    const Eigen::Vector2d ab = N.ldlt().solve(b);
    const std::complex<double> measured(ab[0] / A, ab[1] / A);  // F = Re(K A e^{j w t}) = |K| A sin(w t + delta)
    const std::complex<double> j(0.0, 1.0);
    const std::complex<double> K = k0 + k1 * j * w * c1 / (k1 + j * w * c1);
    const double eMag = std::abs(std::abs(measured) / std::abs(K) - 1.0);
    const double ePhase = std::abs(std::arg(measured) - std::arg(K));
    qInfo("%s %.2f Hz: |K| %.6g N/m (closed form %.6g), loss angle %.4f deg (%.4f deg); errors %.3g %%, %.3g deg",
          qPrintable(method), frequency, std::abs(measured), std::abs(K), std::arg(measured) * 180 / M_PI, std::arg(K) * 180 / M_PI,
          100 * eMag, ePhase * 180 / M_PI);
    const double tolerance = method == "cvode" ? 1e-5 : 0.005;
    QVERIFY(eMag <= tolerance);
    QVERIFY(ePhase <= tolerance * std::arg(K));
  }

  // A free body (m = 20 kg, 19 Hz) on the viscoelastic bushing, released from x(0) = 1 mm: the linear
  // equations m x'' = -k0 x - k1 z, z' = x' - lambda z have the solution exp(A t) y0. LSRT2 at
  // 1 ms against it, and its order from 2 to 0.25 ms.
  void bodyOnAViscoelasticBushing() {
    const double m = 20.0, x0 = 1e-3, duration = 0.3;
    Project p = test::singleBushing(m, Vec3(0.01, 0.01, 0.01), 4e5, 50.0);
    p.gravity.setZero();
    p.bodies[1].position = Vec3(x0, 0, 0);
    p.bushings[0].directions[0].stiffness.coefficient = k0;
    p.bushings[0].directions[0].maxwell = {{k1, c1}};
    p.outputs.push_back({"x", OutputQuantity::MarkerPosition, 2, "x"});
    p.outputs.push_back({"force x", OutputQuantity::BushingForce, 1, "x"});
    test::addFreeLoadCase(p, duration);
    Eigen::Matrix3d Asys;
    Asys << 0, 1, 0, -k0 / m, 0, -k1 / m, 0, 1, -lambda1;
    const Eigen::Vector3d y0(x0, 0, 0);
    const auto model = SuspensionModel::build(p);
    double errors[4];
    const double dts[4] = {2e-3, 1e-3, 5e-4, 2.5e-4};
    for (int n = 0; n < 4; ++n) {
      RunOptions o;
      o.dt = dts[n];
      o.sampleRate = 500.0;
      Simulation sim(model, "free", o);
      sim.run();
      const Recorder& rec = sim.results();
      double e = 0.0;
      for (std::size_t k = 0; k < rec.size(); ++k) {
        const Eigen::Vector3d y = (Asys * rec.time(k)).exp() * y0;
        e = std::max(e, std::abs(rec.value(k, 0) - y[0]));
        // The force output holds the branch: -(k0 x + k1 z), z from the run against the exact one.
        if (n == 3) QVERIFY(std::abs(rec.value(k, 1) + k0 * y[0] + k1 * y[2]) <= 2e-3 * (k0 + k1) * x0);
      }
      errors[n] = e / x0;
    }
    const double order = std::log2(errors[1] / errors[2]), order2 = std::log2(errors[2] / errors[3]);
    qInfo("largest position error / x0: %.3g (2 ms), %.3g (1 ms), %.3g (0.5 ms), %.3g (0.25 ms); orders %.2f, %.2f",
          errors[0], errors[1], errors[2], errors[3], order, order2);
    QVERIFY(errors[1] <= 0.005);
    QVERIFY(std::abs(order - 2.0) <= 0.2 && std::abs(order2 - 2.0) <= 0.2);

    // The largest position error of a run against exp(A t) y0, relative to x0.
    auto errorOf = [&](const char* method, double dt) {
      RunOptions o;
      o.integrator = method;
      o.dt = dt;
      o.sampleRate = 500.0;
      Simulation sim(model, "free", o);
      sim.run();
      double e = 0.0;
      for (std::size_t k = 0; k < sim.results().size(); ++k)
        e = std::max(e, std::abs(sim.results().value(k, 0) - ((Asys * sim.results().time(k)).exp() * y0)[0]));
      return e / x0;
    };
    // The W-methods (the branches eliminated from their stages the same way): their orders.
    for (const auto& [method, expected] : {std::pair{"ros34pw2", 3.0}, std::pair{"lie", 1.0}}) {
      for (int n = 0; n < 4; ++n) errors[n] = errorOf(method, dts[n]);
      const double o1 = std::log2(errors[1] / errors[2]), o2 = std::log2(errors[2] / errors[3]);
      qInfo("%s: largest position error / x0 %.3g (2 ms), %.3g (1 ms), %.3g (0.5 ms), %.3g (0.25 ms); orders %.2f, %.2f",
            method, errors[0], errors[1], errors[2], errors[3], o1, o2);
      QVERIFY2(std::abs(o1 - expected) <= 0.25 && std::abs(o2 - expected) <= 0.25, method);
    }

    // The CVODE reference (the branch deflection as its own state, rtol 1e-9) against the same solution.
    const double e = errorOf("cvode", 1e-3);
    qInfo("cvode (rtol 1e-9): largest position error / x0 %.3g", e);
    QVERIFY(e <= 1e-5);
  }

  // Branches scaled by the static curve's slope: a 20 kg body released from 8 mm on a progressive
  // curve (a natural spline, C2, so that the scaling S'/S'(0) is smooth; slope 1.6e5 N/m near 0,
  // about 2.7 times that at 8 mm) with one branch. LSRT2 and ROS34PW2 against CVODE (rtol 1e-11):
  // their orders from 2 to 0.25 ms, and the scaling changes the motion. (On a PCHIP curve, C1,
  // the scaling has kinks at the points: LSRT2 kept order 2.2, ROS34PW2 fell to 2.5 and 0.35.)
  void branchesScaledByTheStaticSlope() {
    const double m = 20.0, x0 = 8e-3, duration = 0.2;
    Project p = test::singleBushing(m, Vec3(0.01, 0.01, 0.01), 4e5, 50.0);
    p.gravity.setZero();
    p.bodies[1].position = Vec3(x0, 0, 0);
    const int curve = 1 + static_cast<int>(p.curves.size());
    p.curves.push_back({curve, "progressive", "spline", "linear",
                        {{-0.012, -5000.0}, {-0.006, -1400.0}, {-0.002, -320.0}, {0.0, 0.0}, {0.002, 320.0},
                         {0.006, 1400.0}, {0.012, 5000.0}}});
    BushingDirectionRow& x = p.bushings[0].directions[0];
    x.stiffness = LawRow{0.0, curve};
    x.damping = LawRow{5.0, std::nullopt};
    x.maxwell = {{1e5, 1e3}};
    x.maxwellScaledBySlope = true;
    p.outputs.push_back({"x", OutputQuantity::MarkerPosition, 2, "x"});
    test::addFreeLoadCase(p, duration);
    auto run = [&](const Project& q, const std::string& method, double dt, double rtol = 1e-9) {
      RunOptions o;
      o.integrator = method;
      o.dt = dt;
      o.relativeTolerance = rtol;
      o.sampleRate = 500.0;
      Simulation sim(SuspensionModel::build(q), "free", o);
      sim.run();
      return sim.results().series(0);
    };
    const auto ref = run(p, "cvode", 2e-3, 1e-11);
    auto largest = [&](const std::vector<double>& y) {
      double e = 0.0;
      for (std::size_t k = 0; k < y.size(); ++k) e = std::max(e, std::abs(y[k] - ref[k]));
      return e / x0;
    };
    double errors[4];
    const double dts[4] = {2e-3, 1e-3, 5e-4, 2.5e-4};
    for (int n = 0; n < 4; ++n) errors[n] = largest(run(p, "lsrt2", dts[n]));
    Project unscaled = p;
    unscaled.bushings[0].directions[0].maxwellScaledBySlope = false;
    const double effect = largest(run(unscaled, "cvode", 2e-3, 1e-11));
    const double order = std::log2(errors[1] / errors[2]), order2 = std::log2(errors[2] / errors[3]);
    qInfo("scaled branches: LSRT2 against CVODE, largest error / x0 %.3g (2 ms), %.3g (1 ms), %.3g (0.5 ms), %.3g "
          "(0.25 ms), orders %.2f, %.2f; the unscaled model differs by %.3g x0",
          errors[0], errors[1], errors[2], errors[3], order, order2, effect);
    // Measured 2026-11-24: 2.95e-3 x0 at 1 ms, orders 2.02, 2.01. Without the scaling's change in
    // the stage (the -l s' z D term) the orders were 0.59 and 0.82.
    QVERIFY(errors[1] <= 0.01);
    QVERIFY(std::abs(order - 2.0) <= 0.2 && std::abs(order2 - 2.0) <= 0.2);
    QVERIFY(effect > 15 * errors[1]);
    // ROS34PW2, linearized every step and every 4th (a W-method keeps its order with an old J).
    for (int every : {1, 4}) {
      for (int n = 0; n < 4; ++n) {
        RunOptions o;
        o.integrator = "ros34pw2";
        o.linearizeEvery = every;
        o.dt = dts[n];
        o.sampleRate = 500.0;
        Simulation sim(SuspensionModel::build(p), "free", o);
        sim.run();
        errors[n] = largest(sim.results().series(0));
      }
      const double o1 = std::log2(errors[1] / errors[2]), o2 = std::log2(errors[2] / errors[3]);
      qInfo("ros34pw2, lin-every %d: %.3g (2 ms), %.3g (1 ms), %.3g (0.5 ms), %.3g (0.25 ms); orders %.2f, %.2f", every,
            errors[0], errors[1], errors[2], errors[3], o1, o2);
      QVERIFY(std::abs(o1 - 3.0) <= 0.25 && std::abs(o2 - 3.0) <= 0.25);  // measured 2.96-2.99
    }
  }

  // Methods that do not integrate the branches yet refuse the model with a message naming it.
  void unsupportedMethodsAreNamed() {
    SignalRow hold;
    hold.type = SignalType::Constant;
    const Project p = rig(hold, 0.01);
    for (const char* method : {"bdf2", "galpha", "galpha-frozen"}) {
      RunOptions o;
      o.integrator = method;
      try {
        Simulation(SuspensionModel::build(p), "rig", o);
        QFAIL(qPrintable(QString("%1 accepted Maxwell branches").arg(method)));
      } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("bushing 2 ('viscoelastic') has Maxwell branches"), e.what());
      }
    }
  }
};

QTEST_APPLESS_MAIN(TestViscoelastic)
#include "tst_viscoelastic.moc"
