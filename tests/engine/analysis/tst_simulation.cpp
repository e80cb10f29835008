// SPDX-License-Identifier: GPL-3.0-or-later
// Physics sanity of whole runs (DESIGN.md section 7): natural frequencies,
// momentum conservation; divergence stops with time, step and body; sampling and CSV.
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/rotation.h"
#include "engine/core/time_grid.h"
#include "engine/dynamics/linearize.h"
#include "engine/model/project_io.h"
#include "engine/model/signal.h"
#include "engine/model/validate.h"
#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

/// Frequency [Hz] of a decaying oscillation from its mean-crossing times (linear interpolation).
double measuredFrequency(const Recorder& rec, std::size_t channel) {
  const std::vector<double> x = rec.series(channel);
  std::vector<double> crossings;
  for (std::size_t k = 1; k < x.size(); ++k)
    if ((x[k - 1] < 0.0) != (x[k] < 0.0))
      crossings.push_back(rec.time(k - 1) + (rec.time(k) - rec.time(k - 1)) * x[k - 1] / (x[k - 1] - x[k]));
  if (crossings.size() < 3) return 0.0;
  return 0.5 * static_cast<double>(crossings.size() - 1) / (crossings.back() - crossings.front());
}

Vec3 linearMomentum(const SuspensionModel& m, const State& s) {
  Vec3 P = Vec3::Zero();
  for (int l = 0; l < m.nFreeBodies(); ++l) P += m.bodies[m.freeBodies[l]].mass * s.v.segment<3>(6 * l);
  return P;
}
Vec3 angularMomentum(const SuspensionModel& m, const State& s) {
  Vec3 L = Vec3::Zero();
  for (int l = 0; l < m.nFreeBodies(); ++l) {
    const ModelBody& b = m.bodies[m.freeBodies[l]];
    const Mat3 R = rotation::matrix(s.r.segment<3>(6 * l + 3));
    L += s.r.segment<3>(6 * l).cross(b.mass * s.v.segment<3>(6 * l)) + R * b.inertia * s.v.segment<3>(6 * l + 3);
  }
  return L;
}

}  // namespace

class TestSimulation : public QObject {
  Q_OBJECT
 private slots:
  void translationalNaturalFrequency() {
    // m = 2 kg, k = 2e5 N/m: f = sqrt(k/m) / 2 pi = 50.33 Hz.
    const Project p = test::freeOscillator();
    const auto sim = test::runProject(p, "free", 2e-5);
    const double f = measuredFrequency(sim->results(), 0), exact = std::sqrt(2e5 / 2.0) / (2 * M_PI);
    qInfo("translational: %.5f Hz, exact %.5f Hz, relative error %.2e", f, exact, std::abs(f / exact - 1));
    QVERIFY(std::abs(f / exact - 1) < 1e-3);
  }

  void rotationalNaturalFrequency() {
    // Ixx = 0.05 kg m^2, kr = 500 N m/rad: f = sqrt(kr/I) / 2 pi = 15.92 Hz (pure roll is linear).
    Project p = test::singleBushing(2.0, Vec3(0.05, 0.04, 0.03), 2e5, 500.0);
    p.gravity.setZero();
    p.bodies[1].orientation = Vec3(0, 0, 0.01);
    p.outputs.push_back({"roll", OutputQuantity::BodyAngles, 1, "rx"});
    test::addFreeLoadCase(p, 0.3);
    const auto sim = test::runProject(p, "free", 5e-5);
    const double f = measuredFrequency(sim->results(), 0), exact = std::sqrt(500.0 / 0.05) / (2 * M_PI);
    qInfo("rotational: %.5f Hz, exact %.5f Hz, relative error %.2e", f, exact, std::abs(f / exact - 1));
    QVERIFY(std::abs(f / exact - 1) < 1e-3);
  }



  // The equations conserve both momenta exactly: dL/dt = sum(p x F + R tau_B) = 0 with
  // tau_B = h_rot + w x I w, at a random stiff, damped, nonlinear state.
  void equationsConserveMomentum() {
    Project p = test::randomProject(77, 3, 4, 2, false);
    p.gravity.setZero();
    p.inputs.clear();
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    Workspace ws(*m);
    linearize(*m, s, VecX(), ws);
    Vec3 dP = Vec3::Zero(), dL = Vec3::Zero();
    double scaleP = 0.0, scaleL = 0.0;
    for (int l = 0; l < m->nFreeBodies(); ++l) {
      const ModelBody& b = m->bodies[m->freeBodies[l]];
      const Vec3 F = ws.h.segment<3>(6 * l), w = s.v.segment<3>(6 * l + 3);
      const Vec3 tauB = ws.h.segment<3>(6 * l + 3) + w.cross(b.inertia * w);
      const Vec3 termL = s.r.segment<3>(6 * l).cross(F) + rotation::matrix(s.r.segment<3>(6 * l + 3)) * tauB;
      dP += F;
      dL += termL;
      scaleP += F.norm();
      scaleL += termL.norm();
    }
    qInfo("|dP/dt| / sum|F| = %.2e, |dL/dt| / sum|terms| = %.2e", dP.norm() / scaleP, dL.norm() / scaleL);
    QVERIFY(dP.norm() <= 1e-12 * scaleP);
    QVERIFY(dL.norm() <= 1e-12 * scaleL);
  }

  // Two bodies joined by a damped bushing, no ground, no gravity, spinning and moving.
  // LSRT2 keeps linear momentum exactly (internal forces cancel in every stage); angular
  // momentum, a quadratic invariant, only up to its O(dt^2) integration error.
  void momentumConservedWithoutGround() {
    Project p;
    BodyRow a;
    a.id = 1;
    a.name = "a";
    a.mass = 10.0;
    a.inertia = {0.4, 0.5, 0.6, 0, 0, 0};
    a.velocity = Vec3(1.0, 0.5, -0.2);
    a.angularVelocity = Vec3(0.3, 0.8, -0.5);
    BodyRow b = a;
    b.id = 2;
    b.name = "b";
    b.mass = 8.0;
    b.inertia = {0.3, 0.35, 0.4, 0, 0, 0};
    b.position = Vec3(0.5, 0, 0);
    b.velocity = Vec3(1.0, 0.7, -0.2);
    b.angularVelocity = Vec3(-0.2, 0.5, 0.6);
    p.bodies = {a, b};
    p.gravity.setZero();
    p.markers = {{1, "a end", 1, Vec3(0.25, 0, 0), Vec3::Zero()}, {2, "b end", 2, Vec3(-0.25, 0, 0), Vec3::Zero()}};
    BushingRow bu;
    bu.id = 1;
    bu.markerI = 1;
    bu.markerJ = 2;
    for (int d = 0; d < 6; ++d) {
      bu.directions[d].stiffness.coefficient = d < 3 ? 2e4 : 300.0;
      bu.directions[d].damping.coefficient = d < 3 ? 50.0 : 0.5;
    }
    p.bushings = {bu};
    test::addFreeLoadCase(p, 1.0);
    const auto model = SuspensionModel::build(p);
    State s0;
    model->initialState(s0.r, s0.v);
    const Vec3 P0 = linearMomentum(*model, s0), L0 = angularMomentum(*model, s0);
    std::vector<double> errL;
    for (double dt : {1e-3, 5e-4, 1e-4}) {
      const auto sim = test::runProject(p, "free", dt);
      const double eP = (linearMomentum(*model, sim->state()) - P0).norm() / P0.norm();
      const double eL = (angularMomentum(*model, sim->state()) - L0).norm() / L0.norm();
      qInfo("dt %.1e s: linear momentum error %.2e, angular momentum error %.2e (relative, after 1 s)", dt, eP, eL);
      QVERIFY(eP < 1e-9);
      errL.push_back(eL);
    }
    QVERIFY(errL[2] < 1e-9);                               // at dt = 0.1 ms
    QVERIFY(errL[0] / errL[1] > 3.0 && errL[0] / errL[1] < 5.0);  // O(dt^2)
  }

  void divergenceNamesTimeStepAndBody() {
    // A negative-stiffness bushing is unstable: the body runs away and the run must stop.
    Project p = test::singleBushing(1.0, Vec3(0.01, 0.01, 0.01), 1e4, 10.0);
    p.curves.push_back({9, "softening", "linear", "linear", {{-1.0, 1e4}, {0.0, 0.0}, {1.0, -1e4}}});
    p.bushings[0].directions[2].stiffness = LawRow{0.0, 9};
    p.bodies[1].name = "runaway";
    p.bodies[1].position = Vec3(0, 0, 1e-3);
    test::addFreeLoadCase(p, 5.0);
    RunOptions o;
    Simulation sim(SuspensionModel::build(p), "free", o);
    sim.initialize();
    try {
      while (sim.step()) {
      }
      QFAIL("the run did not stop");
    } catch (const SimulationError& e) {
      const QString msg = e.what();
      qInfo("%s", e.what());
      QVERIFY(msg.contains("diverged at t = "));
      QVERIFY(msg.contains("(step "));
      QVERIFY(msg.contains("body 1 ('runaway')"));
      QVERIFY(sim.stepsDone() < sim.totalSteps());
      QVERIFY(sim.results().size() > 0);  // results up to the stop are kept
    }
  }

  // A curve whose slope overflows makes A non-finite, which the solver sees as a failed pivot:
  // the message says "not finite" (not "singular") and names the bushing and its deflection.
  void nonFiniteJacobianNamesTheElement() {
    Project p = test::singleBushing(1.0, Vec3(0.01, 0.01, 0.01), 1e4, 10.0);
    p.curves.push_back({9, "overflowing", "linear", "linear", {{-0.02, -1.7e308}, {0.0, 0.0}, {0.02, 1.7e308}}});
    p.bushings[0].directions[2].stiffness = LawRow{0.0, 9};
    p.bushings[0].name = "steep";
    test::addFreeLoadCase(p, 0.1);
    for (const char* solver : {"topology", "dense", "klu"}) {
      RunOptions o;
      o.solver = solver;
      Simulation sim(SuspensionModel::build(p), "free", o);
      sim.initialize();
      try {
        while (sim.step()) {
        }
        QFAIL("the run did not stop");
      } catch (const SimulationError& e) {
        const QString msg = e.what();
        qInfo("%s: %s", solver, e.what());
        QVERIFY2(msg.startsWith("run stopped at t = 0 s (step 1): bushing 1 ('steep'): its "), qPrintable(msg));
        QVERIFY2(msg.contains("not finite (NaN or Inf) at the deflection"), qPrintable(msg));
        QVERIFY2(msg.contains("A is not finite"), qPrintable(msg));
        QVERIFY2(!msg.contains("singular"), qPrintable(msg));
      }
    }
  }

  // An input of 1e300 along a direction of 1e300 overflows to Inf: the message names the input,
  // with time and step, not a consequence (a P2P element whose markers became NaN).
  void divergenceNamesTheFirstCause() {
    Project p = test::singleBushing(1.0, Vec3(0.01, 0.01, 0.01), 1e4, 10.0);
    p.markers.push_back(MarkerRow{3, "top", 0, Vec3(0, 0, 0.5), Vec3::Zero()});
    p.p2ps.push_back({1, "strut", 2, 3, {}, 0.0, LawRow{1e3, {}}, LawRow{}, {}, {}});
    p.inputs.push_back({5, "push", 2, InputKind::Force, InputFrame::Global, Vec3(1e300, 0, 0)});
    LoadCaseRow lc;
    lc.name = "blow";
    lc.duration = 0.1;
    lc.initialState = InitialState::AsModelled;
    SignalRow step;
    step.type = SignalType::Step, step.t0 = 0.05, step.value = 0.0, step.value2 = 1e300;
    lc.drives.push_back({5, step});
    p.loadCases.push_back(lc);
    p.outputs.push_back({"strut force", OutputQuantity::P2PForce, 1, ""});
    Simulation sim(SuspensionModel::build(p), "blow", RunOptions{});
    sim.initialize();
    try {
      while (sim.step()) {
      }
      QFAIL("the run did not stop");
    } catch (const SimulationError& e) {
      const QString msg = e.what();
      qInfo("%s", e.what());
      QVERIFY2(msg.startsWith("run diverged at t = 0.05 s (step 50): input 5 ('push'): its force is not finite"),
               qPrintable(msg));
      QCOMPARE(sim.stepsDone(), 50LL);
    }
  }

  // A run that would not fit is refused before it starts, saying how large it would be.
  void runSizeIsLimited() {
    Project p = test::singleBushing(2.0, Vec3(0.01, 0.01, 0.01), 2e5, 50.0);
    test::addFreeLoadCase(p, 1.0);
    RunOptions o;
    o.duration = 1e16;
    try {
      Simulation(SuspensionModel::build(p), "free", o);
      QFAIL("no error");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("the run would take 1e+19 steps"), e.what());
    }
    o.duration = std::numeric_limits<double>::infinity();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Simulation(SuspensionModel::build(p), "free", o));
    o.duration = 1e9;  // 1e12 steps at 1 ms
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Simulation(SuspensionModel::build(p), "free", o));
    o.duration = 2e6;  // 2e9 steps fit, 2e9 samples of 1 channel and time do not
    p.outputs.push_back({"z", OutputQuantity::MarkerPosition, 2, "z"});
    try {
      Simulation(SuspensionModel::build(p), "free", o);
      QFAIL("no error");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("would record 2000000002 samples of 1 channels"), e.what());
    }
    // The same limit on a load case is a project error, found by validation.
    p.loadCases[0].duration = 1e9;
    QVERIFY(QString::fromStdString(check(p).text(Severity::Error)).contains("a run takes at most 2147483647 steps"));
  }

  // Grid times are the doubles nearest to their decimal values: a chirp that ends at 1.4 s is
  // still on at the sample at 1.4 s (1400 x 0.001 = 1.4000000000000001 was past its end).
  void intervalEndsAreHitExactly() {
    QCOMPARE(gridTime(0.0, 1e-3, 1400.0), 1.4);
    QCOMPARE(gridTime(1.399, 1e-3, 1.0), 1.4);
    QCOMPARE(gridTime(4.9, 1e-3, 100.0), 5.0);
    QCOMPARE(gridTime(1.399, 1e-3, 0.5), 1.3995);
    QCOMPARE(gridTime(0.0, 2.5e-4, 5600.0), 1.4);
    QCOMPARE(gridTime(0.0, 3e-4, 2.0), 6e-4);  // 1/dt is not an integer: t + steps dt
    QVERIFY(1400 * 1e-3 > 1.4);                  // what the grid avoids

    Project p = test::singleBushing(1.0, Vec3(0.01, 0.01, 0.01), 1e4, 10.0);
    p.inputs.push_back({5, "shaker", 2, InputKind::Force, InputFrame::Global, Vec3(0, 0, 1)});
    LoadCaseRow lc;
    lc.name = "chirp";
    lc.duration = 1.4;
    lc.initialState = InitialState::AsModelled;
    SignalRow chirp;
    chirp.type = SignalType::Chirp, chirp.value = 7.0, chirp.amplitude = 100.0, chirp.t0 = 0.2, chirp.t1 = 1.4;
    chirp.frequency = 1.0, chirp.frequency2 = 3.3;
    lc.drives.push_back({5, chirp});
    p.loadCases.push_back(lc);
    p.outputs.push_back({"shaker force", OutputQuantity::Input, 5, ""});
    Simulation sim(SuspensionModel::build(p), "chirp", RunOptions{});
    sim.run();
    const Recorder& rec = sim.results();
    QCOMPARE(rec.time(rec.size() - 1), 1.4);
    const double expected = ek::evaluate(chirp, 1.4);
    qInfo("last sample at t = %.17g: %.6f N (the chirp at its end: %.6f N, the offset %.1f N)", rec.time(rec.size() - 1),
          rec.value(rec.size() - 1, 0), expected, chirp.value);
    QVERIFY(std::abs(expected - chirp.value) > 1.0);  // the end value is not the offset
    QCOMPARE(rec.value(rec.size() - 1, 0), expected);
  }

  // Channel names with commas and quotes are quoted (RFC 4180); times are exact at any step.
  void csvQuotingAndExactTimes() {
    Project p = test::singleBushing(2.0, Vec3(0.01, 0.01, 0.01), 2e5, 50.0);
    p.outputs.push_back({"z, \"body\"", OutputQuantity::MarkerPosition, 2, "z"});
    test::addFreeLoadCase(p, 13.0);
    RunOptions o;
    o.dt = 1e-7;
    o.start = 12.3;
    o.duration = 1e-5;
    Simulation sim(SuspensionModel::build(p), "free", o);
    sim.run();
    const QString path = QDir::temp().filePath("elastokin_tst_quoting.csv");
    writeCsv(sim.results(), path.toStdString());
    std::ifstream in(path.toStdString());
    std::string header;
    std::getline(in, header);
    QCOMPARE(QString::fromStdString(header), QString("time [s],\"z, \"\"body\"\" [m]\""));
    std::set<std::string> times;
    int rows = 0;
    for (std::string line; std::getline(in, line); ++rows) times.insert(line.substr(0, line.find(',')));
    QCOMPARE(rows, 101);
    QCOMPARE(int(times.size()), 101);
    QVERIFY(times.count("12.3") && times.count("12.30001"));
    QVERIFY(!QFileInfo::exists(QDir::temp().filePath(".elastokin_tst_quoting.csv.partial")));
    // An unwritable path fails before a run and leaves nothing behind.
    QVERIFY_THROWS_EXCEPTION(IoError, checkWritable("/nonexistent/dir/x.csv"));
    QVERIFY_THROWS_EXCEPTION(IoError, writeCsv(sim.results(), "/nonexistent/dir/x.csv"));
  }

  // The error-estimate outputs sample the estimate of the step that ended at each sample time,
  // whether the sample comes from the next step's linearization (LSRT2) or is evaluated (the
  // W-method, a stride of 5); a run of a method without an estimate refuses such an output.
  void errorEstimateChannels_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<int>("linEvery");
    QTest::addColumn<double>("sampleRate");
    QTest::newRow("lsrt2, every sample") << "lsrt2" << 1 << 1000.0;
    QTest::newRow("lsrt2, every 5th") << "lsrt2" << 1 << 200.0;
    QTest::newRow("ros34pw2 lin-every 2") << "ros34pw2" << 2 << 1000.0;
    QTest::newRow("lsrt2 lin-every 3, every 2nd") << "lsrt2" << 3 << 500.0;
  }
  void errorEstimateChannels() {
    QFETCH(QString, method);
    QFETCH(int, linEvery);
    QFETCH(double, sampleRate);
    Project p = test::spinningBody();
    p.outputs.push_back({"error position", OutputQuantity::ErrorEstimate, 0, "position"});
    p.outputs.push_back({"error angle", OutputQuantity::ErrorEstimate, 0, "angle"});
    p.outputs.push_back({"error velocity", OutputQuantity::ErrorEstimate, 0, "velocity"});
    p.outputs.push_back({"error angular velocity", OutputQuantity::ErrorEstimate, 0, "angular velocity"});
    validate(p);
    RunOptions o;
    o.integrator = method.toStdString();
    o.linearizeEvery = linEvery;
    o.sampleRate = sampleRate;
    o.duration = 0.1;
    Simulation sim(SuspensionModel::build(p), "free", o);
    const Recorder& rec = sim.results();
    QCOMPARE(resolveChannels(sim.model(), {}).size(), std::size_t(4));
    QVERIFY(stateChannels(sim.model()).empty());  // what K&C and linear analyses report
    QCOMPARE(rec.channels()[0].unit, std::string("m"));
    QCOMPARE(rec.channels()[3].unit, std::string("rad/s"));
    sim.initialize();
    std::map<double, LocalErrorEstimate> byTime;
    for (bool more = true; more;) {
      more = sim.step();
      byTime[sim.state().t] = *sim.integrator().localError();
    }
    QCOMPARE(rec.size(), std::size_t(std::llround(0.1 * sampleRate)) + 1);
    for (std::size_t c = 0; c < 4; ++c) QCOMPARE(rec.value(0, c), 0.0);  // no step before the start
    double largest = 0.0;
    for (std::size_t k = 1; k < rec.size(); ++k) {
      QVERIFY2(byTime.count(rec.time(k)), qPrintable(QString("no step ended at %1 s").arg(rec.time(k))));
      const LocalErrorEstimate& e = byTime.at(rec.time(k));
      QCOMPARE(rec.value(k, 0), e.position);
      QCOMPARE(rec.value(k, 1), e.angle);
      QCOMPARE(rec.value(k, 2), e.velocity);
      QCOMPARE(rec.value(k, 3), e.angularVelocity);
      QVERIFY(e.position > 0.0 && e.angle > 0.0);  // the body moves: every step has an error
      largest = std::max(largest, rec.value(k, 0));
    }
    if (sampleRate == 1000.0) QCOMPARE(largest, sim.errorSummary().positionMax);

    o.integrator = "bdf2";
    try {
      Simulation(SuspensionModel::build(p), "free", o);
      QFAIL("bdf2 accepted an error-estimate output");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("output 'error position'") && QString(e.what()).contains("'bdf2'"), e.what());
    }
    p.outputs.erase(p.outputs.end() - 4, p.outputs.end());
    Simulation(SuspensionModel::build(p), "free", o).run();
  }

  void samplingAndCsv() {
    Project p = test::singleBushing(2.0, Vec3(0.01, 0.01, 0.01), 2e5, 50.0);
    p.outputs.push_back({"z body", OutputQuantity::MarkerPosition, 2, "z"});
    p.outputs.push_back({"bushing fz", OutputQuantity::BushingForce, 1, "z"});
    test::addFreeLoadCase(p, 0.1);
    RunOptions o;
    o.dt = 1e-3;
    o.sampleRate = 100.0;
    Simulation sim(SuspensionModel::build(p), "free", o);
    sim.run();
    QCOMPARE(sim.results().size(), std::size_t(11));
    QCOMPARE(sim.results().time(10), 0.1);
    const QString path = QDir::temp().filePath("elastokin_tst_simulation.csv");
    writeCsv(sim.results(), path.toStdString());
    std::ifstream in(path.toStdString());
    std::string header;
    std::getline(in, header);
    QCOMPARE(QString::fromStdString(header), QString("time [s],z body [m],bushing fz [N]"));
    int rows = 0;
    for (std::string line; std::getline(in, line);) ++rows;
    QCOMPARE(rows, 11);
    o.sampleRate = 300.0;  // does not divide 1000 Hz
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Simulation(SuspensionModel::build(p), "free", o));
  }

  // Inputs set from outside (holdInput, as an FMU's importer sets them): held at a value from
  // the start, a run equals the run of a load case whose signal is that constant, to round-off;
  // released, the input follows the load case again.
  void inputsHeldFromOutside() {
    Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/quarter_double_wishbone.json");
    const std::string lc = p.loadCases.front().name;
    Project constant = p;
    LoadCaseRow& row = constant.loadCases.front();
    bool replaced = false;
    for (auto& d : row.drives)
      if (d.input == p.inputs.front().id) d.signal = SignalRow{}, d.signal.value = 1234.5, replaced = true;
    if (!replaced) row.drives.push_back({p.inputs.front().id, SignalRow{}}), row.drives.back().signal.value = 1234.5;
    RunOptions o;
    o.duration = 0.2;
    o.record = false;
    Simulation a(SuspensionModel::build(constant), lc, o), b(SuspensionModel::build(p), lc, o);
    b.holdInput(0, 1234.5);
    QVERIFY(b.inputHeld(0) && !b.inputHeld(1));
    a.initialize();
    b.initialize();
    while (a.step()) QVERIFY(b.step());
    qInfo("held against constant signal: largest position difference %.3e", (a.state().r - b.state().r).cwiseAbs().maxCoeff());
    QVERIFY((a.state().r - b.state().r).cwiseAbs().maxCoeff() < 1e-12);
    QVERIFY((a.state().v - b.state().v).cwiseAbs().maxCoeff() < 1e-9);
    VecX u;
    b.inputValues(u);
    QCOMPARE(u[0], 1234.5);
    b.releaseInput(0);
    QVERIFY(!b.inputHeld(0));
    Simulation c(SuspensionModel::build(p), lc, o);
    c.initialize();
    VecX w;
    b.inputValues(u);
    for (int k = 0; k < 200; ++k) c.step();
    c.inputValues(w);
    QCOMPARE(u[0], w[0]);  // the load case's value at the same time
  }

  // snapshot() and restore(): a run set back continues as it did the first time, bit for bit
  // (linearizing every step); with a linearization kept over steps the restore relinearizes, so
  // the continuation differs from the first one by round-off (4.9e-16 m here).
  void snapshotRestoresTheRun() {
    const Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/quarter_double_wishbone.json");
    for (int linEvery : {1, 3}) {
      RunOptions o;
      o.duration = 0.3;
      o.record = false;
      o.linearizeEvery = linEvery;
      Simulation s(SuspensionModel::build(p), p.loadCases.front().name, o);
      s.initialize();
      for (int k = 0; k < 100; ++k) s.step();
      VecX u;
      s.inputValues(u);
      s.holdInput(1, u[1]);  // held where the load case is: a smooth continuation
      const Simulation::Snapshot saved = s.snapshot();
      for (int k = 0; k < 50; ++k) s.step();
      const State first = s.state();
      s.releaseInput(1);
      s.restore(saved);
      QVERIFY(s.inputHeld(1));  // the held inputs come back with the state
      QCOMPARE(s.stepsDone(), 100LL);
      for (int k = 0; k < 50; ++k) s.step();
      const double dr = (s.state().r - first.r).cwiseAbs().maxCoeff();
      qInfo("lin-every %d: largest position difference after the restore %.3e", linEvery, dr);
      if (linEvery == 1) QVERIFY(s.state().r == first.r && s.state().v == first.v && s.state().t == first.t);
      else QVERIFY(dr < 1e-9);  // relinearized at the restore point: round-off, not the same steps
    }
  }

  // advanceTo(): communication points on the grid (accumulated sums of 1 and 5 ms, with their
  // round-off) take exactly the steps of step(), bit for bit; points between grid times (every
  // 0.3 ms, a stop at 10.5 ms) take shorter steps of the same method whose results at the grid
  // times are as accurate as the whole steps' (against a run at dt = 0.1 ms, across the step in
  // Fx at 5 s); a state off the grid is saved and restored; a multistep method says it cannot.
  void advanceToTimesBetweenSteps() {
    const Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/quarter_double_wishbone.json");
    const auto model = SuspensionModel::build(p);
    for (const std::string method : {"lsrt2", "ros34pw2"}) {
      RunOptions o;
      o.start = 4.98;
      o.duration = 0.06;
      o.record = false;
      o.integrator = method;
      auto run = [&](double dt) {
        RunOptions r = o;
        r.dt = dt;
        auto s = std::make_unique<Simulation>(model, "LC1", r);
        s->initialize();
        return s;
      };
      // The grid: whole steps, and advanceTo along 1 ms and 5 ms sums.
      auto whole = run(1e-3), by1 = run(1e-3), by5 = run(1e-3);
      std::map<long long, State> grid;  // whole-step states by step number
      for (bool more = true; more;) {
        more = whole->step();
        grid[whole->stepsDone()] = whole->state();
      }
      double t1 = o.start, t5 = o.start;
      for (int k = 0; k < 60; ++k) by1->advanceTo(t1 += 1e-3);
      for (int k = 0; k < 12; ++k) by5->advanceTo(t5 += 5e-3);
      QVERIFY(!by1->offGrid() && !by5->offGrid());
      QCOMPARE(by1->stepsDone(), 60LL);
      QVERIFY(by1->state().r == whole->state().r && by1->state().v == whole->state().v);
      QVERIFY(by5->state().r == whole->state().r && by5->state().v == whole->state().v);

      // Between grid times: every 0.3 ms, compared at the 3 ms points with a fine reference.
      auto fine = run(1e-4), between = run(1e-3);
      double tb = o.start, errWhole = 0.0, errBetween = 0.0, apart = 0.0;
      for (int k = 1; k <= 200; ++k) {
        between->advanceTo(tb += 3e-4);
        if (k % 10 != 0) continue;
        fine->advanceTo(gridTime(o.start, 1e-3, 0.3 * k));
        QVERIFY(!between->offGrid());
        QVERIFY2(grid.count(between->stepsDone()), qPrintable(QString("step %1 at t = %2").arg(between->stepsDone()).arg(between->state().t, 0, 'g', 17)));
        const State& w = grid.at(between->stepsDone());
        errWhole = std::max(errWhole, (w.r - fine->state().r).cwiseAbs().maxCoeff());
        errBetween = std::max(errBetween, (between->state().r - fine->state().r).cwiseAbs().maxCoeff());
        apart = std::max(apart, (between->state().r - w.r).cwiseAbs().maxCoeff());
      }
      qInfo("%s: largest position error against dt = 0.1 ms: whole steps %.3e m, with 0.3 ms points %.3e m "
            "(apart %.3e m); largest local error estimate %.3e m",
            method.c_str(), errWhole, errBetween, apart, between->errorSummary().positionMax);
      QVERIFY(errWhole > 1e-9);  // the comparison resolves the method's error
      QVERIFY(errBetween <= 1.5 * errWhole);
      QVERIFY(apart > 0.0 && apart <= 2.5 * errWhole);

      // A stop time off the grid is reached; a state between grid times rolls back exactly.
      auto stop = run(1e-3);
      stop->advanceTo(o.start + 0.0104);
      const Simulation::Snapshot saved = stop->snapshot();
      QVERIFY(stop->offGrid() && stop->stepsDone() == 10);
      stop->advanceTo(stop->endTime());
      const State first = stop->state();
      QCOMPARE(first.t, o.start + 0.06);
      stop->restore(saved);
      QVERIFY(stop->offGrid());
      stop->advanceTo(stop->endTime());
      QVERIFY(stop->state().r == first.r && stop->state().v == first.v);
      bool refused = false;
      try {
        stop->advanceTo(stop->endTime() + 1e-3);
      } catch (const std::invalid_argument& e) {
        refused = QString(e.what()).contains("past the run's end");
      }
      QVERIFY(refused);
    }
    RunOptions o;
    o.duration = 0.01;
    o.record = false;
    o.integrator = "bdf2";
    Simulation bdf2(model, "LC1", o);
    bdf2.initialize();
    try {
      bdf2.advanceTo(0.0025);
      QFAIL("BDF2 took a step between grid times");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("takes whole steps only"), e.what());
    }
    QCOMPARE(bdf2.stepsDone(), 2LL);
    QVERIFY(!bdf2.offGrid());
  }

  // A snapshot that does not fit (another model, damaged values) is refused with every reason
  // and leaves the run as it was; far from t = 0 a run whose steps would vanish in round-off is
  // refused before it starts (start 1e300 froze time).
  void restoreRefusesWhatDoesNotFit() {
    const Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/quarter_double_wishbone.json");
    Project other = test::singleBushing(2.0, Vec3(0.01, 0.01, 0.01), 2e5, 50.0);
    test::addFreeLoadCase(other, 1.0);
    RunOptions o;
    o.duration = 0.1;
    o.record = false;
    Simulation s(SuspensionModel::build(p), p.loadCases.front().name, o);
    Simulation t(SuspensionModel::build(other), "free", o);
    s.initialize();
    t.initialize();
    for (int k = 0; k < 10; ++k) s.step();
    const State before = s.state();
    auto refused = [&](const Simulation::Snapshot& bad) -> QString {
      try {
        s.restore(bad);
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
      return "accepted";
    };
    QString m = refused(t.snapshot());
    QVERIFY2(m.contains("the position state has 6 values, the model 30 (a snapshot of another model)") &&
                 m.contains("the held-input flags"), qPrintable(m));
    Simulation::Snapshot bad = s.snapshot();
    bad.state.t = std::nan("");
    bad.step = -3;
    bad.state.z = VecX::Zero(4);
    m = refused(bad);
    QVERIFY2(m.contains("its time is nan") && m.contains("its step -3 is outside the run's 0..100") &&
                 m.contains("the bushing branch state has 4 values, the model 0"), qPrintable(m));
    bad = s.snapshot();
    bad.state.v[2] = std::numeric_limits<double>::infinity();
    QVERIFY(refused(bad).contains("not finite"));
    QVERIFY(s.state().r == before.r && s.state().t == before.t && s.stepsDone() == 10);

    o.start = 1e300;
    try {
      Simulation(SuspensionModel::build(other), "free", o);
      QFAIL("a run at 1e300 s was accepted");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("cannot be told apart from round-off"), e.what());
    }
    o.start = 1e5;  // 1e5 s + 0.1 s at 1 ms: steps of 1.5e-11 relative round-off, fine
    o.duration = 0.1;
    Simulation late(SuspensionModel::build(other), "free", o);
  }

  // outputValues() is what the recorder records after a step (samplesFromNextStep off), for any
  // channels, without recording.
  void outputValuesEqualTheSamples() {
    const Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/quarter_double_wishbone.json");
    RunOptions o;
    o.duration = 0.05;
    o.samplesFromNextStep = false;
    Simulation recorded(SuspensionModel::build(p), p.loadCases.front().name, o);
    recorded.run();
    o.record = false;
    Simulation read(SuspensionModel::build(p), p.loadCases.front().name, o);
    read.initialize();
    const std::vector<Channel>& channels = recorded.results().channels();
    std::vector<double> values(channels.size());
    std::size_t k = 0, compared = 0;
    do {
      while (k < recorded.results().size() && recorded.results().time(k) < read.state().t - 1e-12) ++k;
      if (k < recorded.results().size() && std::abs(recorded.results().time(k) - read.state().t) < 1e-12) {
        read.outputValues(channels, values.data());
        for (std::size_t c = 0; c < channels.size(); ++c) QCOMPARE(values[c], recorded.results().value(k, c));
        ++compared;
      }
    } while (read.step());
    QCOMPARE(read.results().size(), std::size_t(0));  // nothing recorded
    QVERIFY(compared >= 10);
  }
};

QTEST_APPLESS_MAIN(TestSimulation)
#include "tst_simulation.moc"
