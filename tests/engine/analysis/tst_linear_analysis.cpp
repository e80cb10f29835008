// SPDX-License-Identifier: GPL-3.0-or-later
// Modes and frequency response from the linearization: closed forms for a body on a damped
// bushing, the Hessenberg solve against a direct solve on the double wishbone, the low-frequency
// limit against the K&C compliance, numeric output gradients against analytic ones, and the
// response against the steady state of time simulations at 2, 15 and 40 Hz.
#include <QtTest>

#include <chrono>
#include <cmath>
#include <complex>

#include "engine/analysis/kc.h"
#include "engine/analysis/linear_analysis.h"
#include "engine/analysis/simulation.h"
#include "engine/core/error.h"
#include "engine/dynamics/linearize.h"
#include "engine/model/project_io.h"
#include "support/test_models.h"

using namespace ek;
using Complex = std::complex<double>;

namespace {

std::shared_ptr<const SuspensionModel> shipped(const char* name) {
  return SuspensionModel::build(readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/" + name));
}

/// A body of 2 kg on a bushing with k = 2e5 N/m and c = 100 N s/m in x, a force input in x.
Project dampedBody() {
  Project p = test::singleBushing(2.0, Vec3(0.05, 0.04, 0.03), 2e5, 500.0);
  p.gravity.setZero();
  p.bushings[0].directions[0].damping.coefficient = 100.0;
  p.inputs.push_back({1, "Fx", 2, InputKind::Force, InputFrame::Global, Vec3::UnitX()});
  p.outputs.push_back({"x", OutputQuantity::MarkerDisplacement, 2, "x"});
  p.outputs.push_back({"fx", OutputQuantity::BushingForce, 1, "x"});
  return p;
}

OperatingPoint restPoint(const SuspensionModel& m) {
  OperatingPoint p;
  m.initialState(p.state.r, p.state.v);
  p.u = VecX::Zero(m.nInputs());
  p.wheelLoads = VecX::Zero(7 * static_cast<Eigen::Index>(m.wheels.size()));
  return p;
}

/// Least-squares fit of a + p sin(w t) + q cos(w t) to samples; returns the complex amplitude
/// p + j q (so that the signal is |.| sin(w t + arg)).
Complex fitSine(const std::vector<double>& t, const std::vector<double>& y, double w) {
  Eigen::MatrixXd A(t.size(), 3);
  Eigen::VectorXd b(t.size());
  for (std::size_t k = 0; k < t.size(); ++k) {
    A.row(k) << 1.0, std::sin(w * t[k]), std::cos(w * t[k]);
    b[k] = y[k];
  }
  const Eigen::Vector3d x = A.colPivHouseholderQr().solve(b);
  return {x[1], x[2]};
}

/// The steady-state complex amplitude of channel c of a run at frequency f, fitted over the last
/// whole periods of at least 0.5 s.
Complex steadyState(const Recorder& rec, std::size_t c, double f, double duration) {
  const double tStart = duration - std::ceil(0.5 * f) / f;
  const std::vector<double> all = rec.series(c);
  std::vector<double> t, y;
  for (std::size_t k = 0; k < rec.size(); ++k)
    if (rec.time(k) >= tStart - 1e-9) {
      t.push_back(rec.time(k));
      y.push_back(all[k]);
    }
  return fitSine(t, y, 2 * M_PI * f);
}

}  // namespace

class TestLinearAnalysis : public QObject {
  Q_OBJECT
 private slots:
  void dampedBodyModesAndResponse() {
    const auto m = SuspensionModel::build(dampedBody());
    const OperatingPoint pt = restPoint(*m);
    const double k = 2e5, mass = 2.0, c = 100.0;
    const double wn = std::sqrt(k / mass), zeta = c / (2.0 * std::sqrt(k * mass));
    const ModesResult modes = computeModes(*m, pt);
    QCOMPARE(modes.zeroModes, 0);
    int found = 0;
    for (const Mode& md : modes.modes)
      if (std::abs(md.frequency / (wn / (2 * M_PI)) - 1) < 1e-9 && std::abs(md.dampingRatio - zeta) < 1e-9) {
        ++found;
        QVERIFY(std::abs(md.dampedFrequency - wn * std::sqrt(1 - zeta * zeta) / (2 * M_PI)) < 1e-9 * md.frequency);
        QCOMPARE(md.dominantBody, 0);
        QVERIFY(std::abs(md.shape[0] - Complex(1.0)) < 1e-12);  // an x translation
        QVERIFY(std::abs(md.shape.segment(1, 5).norm()) < 1e-9);
      }
    QCOMPARE(found, 1);

    FrequencyOptions o;
    o.from = 1.0;
    o.to = 1000.0;
    o.points = 61;
    const FrequencyResponse fr = frequencyResponse(*m, pt, {}, resolveChannels(*m, {}), o);
    QCOMPARE(fr.frequency.size(), std::size_t(61));
    QCOMPARE(QString::fromStdString(fr.inputUnit), QString("N"));
    double worst = 0.0, worstForce = 0.0;
    for (std::size_t i = 0; i < fr.frequency.size(); ++i) {
      const double w = 2 * M_PI * fr.frequency[i];
      const Complex H = 1.0 / Complex(k - mass * w * w, w * c);
      worst = std::max(worst, std::abs(fr.response[0][i] - H) / std::abs(H));
      // Force on the body from the bushing (on marker I): -(k + j w c) x.
      const Complex F = -Complex(k, w * c) * H;
      worstForce = std::max(worstForce, std::abs(fr.response[1][i] - F) / std::abs(F));
    }
    qInfo("single body: largest relative error of x/F %.2e, of the bushing force %.2e", worst, worstForce);
    QVERIFY(worst < 1e-9);
    QVERIFY(worstForce < 1e-7);
  }

  // A driven rig body (docs/method.md): the ground under a single body on a spring-damper bushing
  // moves in x (translation) or turns about z through the body (rotation). Transmissibility
  // y/u = (k + j w c) / (k - m w^2 + j w c), from the frequency response (which needs J_udot and
  // the output's direct dependence on u) and from LSRT2 runs with a sine drive (which need the
  // input rate in the stages: with the rate frozen at the step start the run misses by 1.3 % at
  // 120 Hz).
  void drivenBaseTransmissibility_data() {
    QTest::addColumn<bool>("rotation");
    QTest::newRow("translation") << false;
    QTest::newRow("rotation") << true;
  }
  void drivenBaseTransmissibility() {
    QFETCH(bool, rotation);
    Project p = test::singleBushing(2.0, Vec3(0.05, 0.04, 0.03), 2e5, 500.0, Vec3(0.3, 0.1, 0.2));
    p.gravity.setZero();
    p.bushings[0].directions[0].damping.coefficient = 100.0;
    p.bushings[0].directions[5].damping.coefficient = 0.5;
    p.inputs.push_back({1, "base", 1, rotation ? InputKind::Rotation : InputKind::Translation, InputFrame::Global,
                        rotation ? Vec3::UnitZ() : Vec3::UnitX()});
    if (rotation) p.outputs.push_back({"yaw", OutputQuantity::BodyAngles, 1, "rz"});
    else p.outputs.push_back({"x", OutputQuantity::MarkerDisplacement, 2, "x"});
    p.outputs.push_back({"base", OutputQuantity::Input, 1, ""});
    const double k = rotation ? 500.0 : 2e5, c = rotation ? 0.5 : 100.0, mass = rotation ? 0.03 : 2.0;
    auto closedForm = [&](double f) {
      const double w = 2 * M_PI * f;
      return Complex(k, w * c) / Complex(k - mass * w * w, w * c);
    };
    const auto m = SuspensionModel::build(p);
    const OperatingPoint pt = restPoint(*m);
    const std::vector<Channel> ch = resolveChannels(*m, {});
    FrequencyOptions o;
    o.from = 0.5;
    o.to = 500.0;
    o.points = 41;
    const FrequencyResponse fr = frequencyResponse(*m, pt, {ResponseInput::Kind::ProjectInput, 0, 0}, ch, o);
    QCOMPARE(QString::fromStdString(fr.inputUnit), QString(rotation ? "rad" : "m"));
    double worst = 0.0, worstSelf = 0.0;
    for (std::size_t i = 0; i < fr.frequency.size(); ++i) {
      const Complex T = closedForm(fr.frequency[i]);
      worst = std::max(worst, std::abs(fr.response[0][i] - T) / std::abs(T));
      worstSelf = std::max(worstSelf, std::abs(fr.response[1][i] - 1.0));
    }
    qInfo("%s: frequency response vs closed form %.2e, input channel vs 1: %.2e", rotation ? "rotation" : "translation",
          worst, worstSelf);
    QVERIFY(worst < 1e-8);
    QVERIFY(worstSelf < 1e-8);

    const double amplitude = rotation ? 0.01 : 0.001;
    for (double f : {5.0, rotation ? 20.0 : 50.0, rotation ? 60.0 : 120.0}) {
      Project q = p;
      LoadCaseRow lc;
      lc.name = "sine";
      lc.duration = 2.5;
      lc.initialState = InitialState::AsModelled;
      SignalRow sig;
      sig.type = SignalType::Sine;
      sig.amplitude = amplitude;
      sig.frequency = f;
      lc.drives.push_back({1, sig});
      q.loadCases = {lc};
      RunOptions ro;
      ro.dt = 1e-4;
      ro.sampleRate = 2000.0;
      Simulation sim(SuspensionModel::build(q), "sine", ro);
      sim.run();
      const Complex run = steadyState(sim.results(), 0, f, lc.duration) / amplitude, T = closedForm(f);
      const double err = std::abs(run - T) / std::abs(T);
      qInfo("  LSRT2 at %5.1f Hz: |T| %.5f (closed form %.5f), phase %7.2f deg (%7.2f), difference %.3f %%", f,
            std::abs(run), std::abs(T), std::arg(run) * 180 / M_PI, std::arg(T) * 180 / M_PI, 100 * err);
      QVERIFY2(err < 0.005, qPrintable(QString("%1 Hz: %2").arg(f).arg(err)));
    }
  }

  void hessenbergSolveEqualsDirectSolve() {
    const auto m = shipped("double_wishbone.json");
    const OperatingPoint pt = loadCasePoint(m, "LC1");
    const std::vector<Channel> ch = resolveChannels(*m, {});
    FrequencyOptions o;
    o.from = 0.5;
    o.to = 200.0;
    o.points = 9;
    const FrequencyResponse fr = frequencyResponse(*m, pt, {ResponseInput::Kind::ProjectInput, 1, 0}, ch, o);
    // Direct: (-w^2 M - j w J_v - J_r K) X = b, y = (C_r K + j w C_v) X.
    Workspace ws(*m);
    linearize(*m, pt.state, pt.u, ws);
    const int n = m->nDof();
    MatX M = MatX::Zero(n, n), K = MatX::Zero(n, n);
    for (int l = 0; l < m->nFreeBodies(); ++l) {
      const ModelBody& b = m->bodies[m->freeBodies[l]];
      M.block<3, 3>(6 * l, 6 * l) = b.mass * Mat3::Identity();
      M.block<3, 3>(6 * l + 3, 6 * l + 3) = b.inertia;
      K.block<3, 3>(6 * l, 6 * l).setIdentity();
      K.block<3, 3>(6 * l + 3, 6 * l + 3) = ws.Kinv[l];
    }
    const MatX JrK = blockToDense(m->pattern, ws.Jr) * K, Jv = blockToDense(m->pattern, ws.Jv);
    MatX Cr, Cv;
    outputGradients(*m, pt, ch, Cr, Cv);
    double worst = 0.0;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < fr.frequency.size(); ++i) {
      const double w = 2 * M_PI * fr.frequency[i];
      const Eigen::MatrixXcd Z = (-w * w) * M.cast<Complex>() - Complex(0, w) * Jv.cast<Complex>() - JrK.cast<Complex>();
      const Eigen::VectorXcd X = Z.partialPivLu().solve(inputColumn(*m, ws.Ju, 1).cast<Complex>());
      const Eigen::VectorXcd y = (Cr * K).cast<Complex>() * X + Complex(0, w) * Cv.cast<Complex>() * X;
      for (std::size_t c = 0; c < ch.size(); ++c) worst = std::max(worst, std::abs(fr.response[c][i] - y[c]) / y.norm());
    }
    const double perFrequency =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / fr.frequency.size();
    qInfo("double wishbone: Hessenberg vs direct LU, largest difference %.2e (relative to the response norm); "
          "the direct solve takes %.1f ms per frequency",
          worst, 1e3 * perFrequency);
    QVERIFY(worst < 1e-8);
  }

  void lowFrequencyLimitIsTheCompliance() {
    // At the K&C design position the response to a contact-point load at 1e-7 Hz is the
    // analytic compliance of the equilibria (kc.h).
    for (const char* name : {"double_wishbone.json", "multilink.json"}) {
      const auto m = shipped(name);
      const KcDesign design = solveDesign(*m);
      const OperatingPoint pt = designPoint(*m);
      const std::vector<Channel> ch = wheelOutputChannels(*m);
      FrequencyOptions o;
      o.from = 1e-7;  // the damping's imaginary part is w c / k: 1e-4 at 1e-4 Hz for c / k = 0.1 s
      o.to = 2e-7;
      o.points = 2;
      for (int load : {kFxContact, kFyContact}) {
        const FrequencyResponse fr =
            frequencyResponse(*m, pt, {ResponseInput::Kind::WheelLoad, 0, load}, ch, o);
        const MatX C = wheelCompliance(*m, design, 0, load);
        double worst = 0.0;
        for (std::size_t c = 0; c < ch.size(); ++c) {
          if (ch[c].component == kSpin) continue;
          const double expected = C(ch[c].index, ch[c].component);
          const Complex got = fr.response[c][0];
          const double e = std::abs(got - expected) / std::max(1e-12, std::abs(expected));
          if (e > 1e-5) qInfo("  %s: %.6e vs %.6e", ch[c].name.c_str(), got.real(), expected);
          worst = std::max(worst, e);
        }
        qInfo("%s, %s: response at 1e-7 Hz vs compliance, largest relative difference %.2e", name,
              kWheelLoadNames[load], worst);
        QVERIFY(worst < 1e-5);
      }
    }
  }

  void numericGradientsMatchAnalytic() {
    // A marker-position channel at the wheel centre (numeric) against the wheel-centre channel
    // (analytic AutoDiff) of the same marker.
    const auto m = shipped("double_wishbone.json");
    const OperatingPoint pt = loadCasePoint(m, "LC1");
    std::vector<Channel> ch = wheelOutputChannels(*m);
    Channel marker;
    marker.name = "centre";
    marker.quantity = OutputQuantity::MarkerPosition;
    marker.index = m->wheels[0].marker.value;
    std::vector<Channel> pair;
    for (int comp = 0; comp < 3; ++comp) {
      marker.component = comp;
      pair.push_back(marker);
      pair.push_back(ch[kCentreX + comp]);
    }
    MatX Cr, Cv;
    outputGradients(*m, pt, pair, Cr, Cv);
    double worst = 0.0;
    for (int comp = 0; comp < 3; ++comp)
      worst = std::max(worst, (Cr.row(2 * comp) - Cr.row(2 * comp + 1)).norm() / Cr.row(2 * comp + 1).norm());
    qInfo("numeric vs analytic gradient of the wheel centre: %.2e", worst);
    QVERIFY(worst < 1e-8);
    QVERIFY(Cv.norm() == 0.0);
  }

  void responseMatchesTimeSimulation() {
    // A 2 N sine on the left wheel's vertical force on top of LC1's 5 kN: the steady state of
    // an LSRT2 run (dt = 0.1 ms) against the frequency response at the load case's equilibrium.
    Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json");
    const auto m0 = SuspensionModel::build(p);
    const OperatingPoint pt = loadCasePoint(m0, "LC1");
    const std::vector<Channel> ch = resolveChannels(*m0, {});
    const double amplitude = 2.0;  // small: the error of the linearization grows with it (0.6 % at 20 N)
    for (double f : {2.0, 15.0, 40.0}) {
      FrequencyOptions o;
      o.from = f;
      o.to = 2 * f;
      o.points = 2;
      const FrequencyResponse fr = frequencyResponse(*m0, pt, {ResponseInput::Kind::ProjectInput, 1, 0}, ch, o);
      Project q = p;
      for (auto& d : q.loadCases[0].drives)
        if (d.input == 1 || d.input == 3) {
          d.signal = SignalRow{};  // no braking step
        } else if (d.input == 2) {
          const double offset = d.signal.value;
          d.signal = SignalRow{};
          d.signal.type = SignalType::Sine;
          d.signal.value = offset;
          d.signal.amplitude = amplitude;
          d.signal.frequency = f;
        }
      const auto m = SuspensionModel::build(q);
      RunOptions ro;
      ro.dt = 1e-4;
      ro.duration = 3.0;
      ro.sampleRate = 2000.0;
      Simulation sim(m, "LC1", ro);
      sim.run();
      for (std::size_t c = 0; c < ch.size(); ++c) {
        const Complex run = steadyState(sim.results(), c, f, ro.duration) / amplitude;
        const Complex lin = fr.response[c][0];
        // The right side answers through the anti-roll bar; its error counts against the left twin's size.
        const double err = std::abs(run - lin) / std::max(std::abs(lin), 0.1 * std::abs(fr.response[c % 3][0]));
        qInfo("%5.1f Hz %-30s |H| %.5g (run %.5g), phase %7.2f deg (run %7.2f), difference %.3f %%", f,
              ch[c].name.c_str(), std::abs(lin), std::abs(run), std::arg(lin) * 180 / M_PI, std::arg(run) * 180 / M_PI,
              100 * err);
        QVERIFY2(err < 0.01, ch[c].name.c_str());
      }
    }
  }

  /// Symmetric halves that do not interact have one eigenvalue per pair of modes; each pair is
  /// separated into its left and its right mode. On the double wishbone without the anti-roll
  /// bar's torsion bushing (the corners then meet only at the held body) every pair is a body and
  /// its mirror image, and each wheel's hop mode appears once per side.
  void symmetricPairsSeparateIntoSides() {
    Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json");
    std::erase_if(p.bushings, [](const BushingRow& b) { return b.name == "anti-roll bar torsion"; });
    const auto model = SuspensionModel::build(p);
    const ModesResult r = computeModes(*model, designPoint(*model));
    auto name = [&](int slot) { return model->bodies[model->freeBodies[slot]].name; };
    auto mirrored = [](std::string n) {
      const auto at = n.rfind(" left");
      return at == std::string::npos ? n : n.replace(at, 5, " right");
    };
    int pairs = 0;
    double worstShare = 1.0;
    for (std::size_t k = 0; k + 1 < r.modes.size(); ++k) {
      const Mode &a = r.modes[k], &b = r.modes[k + 1];
      if (std::abs(a.eigenvalue - b.eigenvalue) > 1e-6 * std::abs(a.eigenvalue)) continue;
      // Left first, then its mirror image; each with its energy on its own side.
      QVERIFY2(name(b.dominantBody) == mirrored(name(a.dominantBody)) && name(a.dominantBody) != name(b.dominantBody),
               qPrintable(QString("%1 Hz: %2 and %3").arg(a.frequency).arg(QString::fromStdString(name(a.dominantBody)),
                                                                          QString::fromStdString(name(b.dominantBody)))));
      double left = 0.0, right = 0.0;
      for (int l = 0; l < model->nFreeBodies(); ++l) {
        const double y = model->bodies[model->freeBodies[l]].p0.y();
        (y > 0 ? left : right) += (y > 0 ? a.energy[l] : b.energy[l]);
      }
      worstShare = std::min({worstShare, left, right});
      ++pairs;
      ++k;
    }
    // Modes the steering rack couples (it joins the track rods of both sides) are shared by the
    // mirror images, in phase or in anti-phase: both named, each side counted.
    int hopLeft = 0, hopRight = 0, shared = 0;
    for (const Mode& m : r.modes) {
      hopLeft += name(m.dominantBody) == "wheel left";
      hopRight += name(m.dominantBody) == "wheel right" || (m.twinBody >= 0 && name(m.twinBody) == "wheel right");
      if (m.twinBody >= 0) {
        ++shared;
        QCOMPARE(name(m.twinBody), mirrored(name(m.dominantBody)));
        QVERIFY(std::abs(m.energy[m.twinBody] - m.energy[m.dominantBody]) < 0.01 * m.energy[m.dominantBody]);
      }
    }
    qInfo("%d modes shared by mirror images", shared);
    qInfo("%d modes, %d separated pairs (%d found by the test), smallest share of a pair's energy on its side %.6f; "
          "modes led by wheel left %d, wheel right %d", int(r.modes.size()), r.separatedPairs, pairs, worstShare, hopLeft, hopRight);
    QVERIFY(pairs >= 20);
    QCOMPARE(r.separatedPairs, pairs);
    QVERIFY(worstShare > 0.999);
    QCOMPARE(hopLeft, hopRight);
    QVERIFY(hopLeft >= 7);  // before: the right wheel's overdamped hop mode (a double real root) was lost
  }

  void badOptionsAreRejected() {
    const auto m = SuspensionModel::build(dampedBody());
    const OperatingPoint pt = restPoint(*m);
    FrequencyOptions o;
    o.from = 0.0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, frequencyResponse(*m, pt, {}, resolveChannels(*m, {}), o));
    o.from = 1.0;
    o.points = 1;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, frequencyResponse(*m, pt, {}, resolveChannels(*m, {}), o));
    o.points = 10;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             frequencyResponse(*m, pt, {ResponseInput::Kind::ProjectInput, 3, 0}, resolveChannels(*m, {}), o));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, frequencyResponse(*m, pt, {}, {}, o));
  }
};

QTEST_APPLESS_MAIN(TestLinearAnalysis)
#include "tst_linear_analysis.moc"
