// SPDX-License-Identifier: GPL-3.0-or-later
// The shipped axles (paper 003 Sect. 2): counts, rest at equilibrium, LSRT2 against the CVODE
// reference around the LC1 force step, LSRT2's error estimate against its true error, and LC1
// against a stored baseline.
#include <QtTest>

#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "engine/analysis/simulation.h"
#include "engine/dynamics/linearize.h"
#include "engine/integrators/lsrt2.h"
#include "engine/model/project_io.h"
#include "support/runs.h"

using namespace ek;

namespace {

const std::string kRoot = ELASTOKIN_SOURCE_DIR;

std::shared_ptr<const SuspensionModel> load(const std::string& name) {
  return SuspensionModel::build(readProject(kRoot + "/projects/" + name + ".json"));
}


std::vector<std::vector<double>> readCsv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

class TestShippedProjects : public QObject {
  Q_OBJECT
 private slots:
  void countsMatchThePapers_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<int>("bodies");
    QTest::addColumn<int>("minElements");
    QTest::addColumn<int>("maxElements");
    QTest::newRow("double wishbone") << "double_wishbone" << 24 << 48 << 55;
    QTest::newRow("multilink") << "multilink" << 27 << 63 << 63;
    QTest::newRow("corner") << "quarter_double_wishbone" << 5 << 12 << 12;
  }
  void countsMatchThePapers() {
    QFETCH(QString, project);
    QFETCH(int, bodies);
    QFETCH(int, minElements);
    QFETCH(int, maxElements);
    const auto m = load(project.toStdString());
    const int elements = static_cast<int>(m->bushings.size() + m->p2ps.size());
    QCOMPARE(m->nFreeBodies(), bodies);
    QCOMPARE(m->nDof(), 6 * bodies);
    QVERIFY2(elements >= minElements && elements <= maxElements, qPrintable(QString::number(elements)));
    QVERIFY(m->loadCase("LC1") && m->loadCase("LC2"));
  }

  // Static equilibrium under gravity and F_z = 5 kN: every acceleration below 1e-5 m/s^2 (rad/s^2),
  // and nothing moves before the force step at 5 s.
  void atRestAtEquilibrium_data() {
    QTest::addColumn<QString>("project");
    QTest::newRow("double wishbone") << "double_wishbone";
    QTest::newRow("multilink") << "multilink";
  }
  void atRestAtEquilibrium() {
    QFETCH(QString, project);
    const auto m = load(project.toStdString());
    RunOptions o;
    o.duration = 1.0;
    Simulation sim(m, "LC1", o);
    sim.initialize();
    Workspace ws(*m);
    VecX u(m->nInputs());
    InputSignals(*m, *m->loadCase("LC1")).evaluate(0.0, u);
    linearize(*m, sim.state(), u, ws);
    const double acc = maxAcceleration(*m, ws);
    qInfo("largest acceleration at equilibrium: %.2e (%d Newton iterations)", acc, sim.equilibrium().iterations);
    QVERIFY(acc < 1e-5);
    const VecX r0 = sim.state().r;
    while (sim.step()) {
    }
    const double drift = (sim.state().r - r0).cwiseAbs().maxCoeff();
    qInfo("largest coordinate change over 1 s at rest: %.2e", drift);
    QVERIFY(drift < 1e-9);
  }

  // LSRT2 (dt = 1 ms) against CVODE BDF (rtol 1e-7) over 4.9-5.5 s of LC1: eq. (27) <= 1.5 %.
  void lsrt2MatchesReferenceAroundStep_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("force");
    QTest::newRow("double wishbone") << "double_wishbone" << "trailing arm bushing fx left";
    QTest::newRow("multilink") << "multilink" << "trailing link bushing fx left";
  }
  void lsrt2MatchesReferenceAroundStep() {
    QFETCH(QString, project);
    QFETCH(QString, force);
    const auto m = load(project.toStdString());
    RunOptions o;
    o.start = 4.9;
    o.duration = 0.6;
    o.channels = {"wheel centre x left", force.toStdString()};
    Simulation a(m, "LC1", o);
    a.run();
    o.integrator = "cvode";
    o.relativeTolerance = 1e-7;
    Simulation b(m, "LC1", o);
    b.run();
    QCOMPARE(a.results().size(), b.results().size());
    const double ex = test::error27(a.results().series(0), b.results().series(0));
    const double ef = test::error27(a.results().series(1), b.results().series(1));
    qInfo("4.9-5.5 s: e_x = %.3f %%, e_f = %.3f %%", 100 * ex, 100 * ef);
    QVERIFY(ex <= 0.015);
    QVERIFY(ef <= 0.015);
  }

  // LSRT2's local error estimate (embedded first-order solution) against its true error, the
  // difference to CVODE (rtol 1e-9) in the positions, step by step over LC1's step and LC2's
  // sweep at 24-26 Hz: the estimate is of the same order of magnitude (RMS ratio within 0.1-10;
  // measured 0.24-0.57). It follows the time profile on the double wishbone (correlation of the
  // 10 ms maxima 0.56 / 0.62) but not on the multilink (0.04 / -0.06), whose accumulated error
  // is not where its local error is largest: only the magnitude is checked there.
  void errorEstimateTracksTrueError_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("loadCase");
    QTest::addColumn<double>("start");
    QTest::addColumn<bool>("profile");
    QTest::newRow("double wishbone LC1") << "double_wishbone" << "LC1" << 4.9 << true;
    QTest::newRow("multilink LC1") << "multilink" << "LC1" << 4.9 << false;
    QTest::newRow("double wishbone LC2") << "double_wishbone" << "LC2" << 17.0 << true;
    QTest::newRow("multilink LC2") << "multilink" << "LC2" << 17.0 << false;
  }
  void errorEstimateTracksTrueError() {
    QFETCH(QString, project);
    QFETCH(QString, loadCase);
    QFETCH(double, start);
    QFETCH(bool, profile);
    const auto m = load(project.toStdString());
    RunOptions o;
    o.start = start;
    o.duration = 0.6;
    Simulation a(m, loadCase.toStdString(), o);
    o.integrator = "cvode";
    o.relativeTolerance = 1e-9;
    Simulation b(m, loadCase.toStdString(), o);
    a.initialize();
    b.initialize();
    std::vector<double> est, err;
    while (a.step() && b.step()) {
      est.push_back(a.integrator().localError()->position);
      double worst = 0.0;
      for (int l = 0; l < m->nFreeBodies(); ++l)
        for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(a.state().r[6 * l + k] - b.state().r[6 * l + k]));
      err.push_back(worst);
    }
    // 10 ms windows: the largest of each series in each window.
    std::vector<double> we, wt;
    for (std::size_t k = 0; k + 10 <= est.size(); k += 10) {
      we.push_back(*std::max_element(est.begin() + k, est.begin() + k + 10));
      wt.push_back(*std::max_element(err.begin() + k, err.begin() + k + 10));
    }
    auto rms = [](const std::vector<double>& x) {
      double s = 0.0;
      for (double v : x) s += v * v;
      return std::sqrt(s / x.size());
    };
    auto mean = [](const std::vector<double>& x) { return std::accumulate(x.begin(), x.end(), 0.0) / x.size(); };
    const double me = mean(we), mt = mean(wt);
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (std::size_t k = 0; k < we.size(); ++k) {
      sxy += (we[k] - me) * (wt[k] - mt);
      sxx += (we[k] - me) * (we[k] - me);
      syy += (wt[k] - mt) * (wt[k] - mt);
    }
    const double corr = sxy / std::sqrt(sxx * syy), ratio = rms(est) / rms(err);
    qInfo("estimate RMS %.3g m, true error RMS %.3g m (ratio %.2f); largest %.3g / %.3g m; correlation of the 10 ms "
          "maxima %.2f", rms(est), rms(err), ratio, *std::max_element(est.begin(), est.end()),
          *std::max_element(err.begin(), err.end()), corr);
    QVERIFY(ratio > 0.1 && ratio < 10.0);
    if (profile) QVERIFY(corr > 0.5);
  }

  // LC1 at 100 Hz against the stored baseline (scripts/make_baselines.sh): a physics regression
  // fails here. Tolerance: 1e-9 of each channel's range (the baselines hold exact numbers).
  void lc1MatchesBaseline_data() {
    QTest::addColumn<QString>("project");
    QTest::newRow("double wishbone") << "double_wishbone";
    QTest::newRow("multilink") << "multilink";
  }
  void lc1MatchesBaseline() {
    QFETCH(QString, project);
    const auto base = readCsv(kRoot + "/tests/data/baselines/" + project.toStdString() + "_LC1.csv");
    RunOptions o;
    o.sampleRate = 100.0;
    Simulation sim(load(project.toStdString()), "LC1", o);
    sim.run();
    const Recorder& rec = sim.results();
    QCOMPARE(rec.size(), base.size());
    double worst = 0.0;
    for (std::size_t c = 0; c < rec.channels().size(); ++c) {
      double lo = 1e300, hi = -1e300;
      for (const auto& row : base) lo = std::min(lo, row[c + 1]), hi = std::max(hi, row[c + 1]);
      const double range = std::max(hi - lo, 1e-12);
      for (std::size_t k = 0; k < rec.size(); ++k)
        worst = std::max(worst, std::abs(rec.value(k, c) - base[k][c + 1]) / range);
    }
    qInfo("largest deviation from the baseline: %.2e of the channel range", worst);
    QVERIFY(worst < 1e-9);
  }
};

QTEST_APPLESS_MAIN(TestShippedProjects)
#include "tst_shipped_projects.moc"
