// SPDX-License-Identifier: GPL-3.0-or-later
// The shipped axles (paper 003 Sect. 2): counts, rest at equilibrium, LSRT2 against the CVODE
// reference around the LC1 force step, LSRT2's error estimate against its true error, and LC1
// against a stored baseline.
#include <QtTest>

#include <algorithm>

#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "engine/analysis/kc.h"
#include "engine/analysis/simulation.h"
#include "engine/core/rotation.h"
#include "engine/core/text.h"
#include "engine/dynamics/linearize.h"
#include "engine/integrators/lsrt2.h"
#include "engine/model/project_diff.h"
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
    for (std::string cell; std::getline(ss, cell, ',');) {
      double x = std::nan("");
      ek::parseDecimal(cell, x);  // the C locale's digits, whatever the process's locale
      row.push_back(x);
    }
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
    QTest::newRow("MacPherson front") << "macpherson_front";
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
  // A stiff transient: the double wishbone released from its modelled pose (not the
  // equilibrium), 0.2 s, no inputs. Error: the RMS deviation of the wheel centre's x and z from
  // CVODE (rtol 1e-10) on the common 2 ms samples; observed orders between successive steps and
  // fitted over 2 ... 0.125 ms.
  // Rosenbrock-type methods can lose order on stiff components here.
  void ordersOnAStiffTransient() {
    Project p = readProject(kRoot + "/projects/double_wishbone.json");
    test::addFreeLoadCase(p, 0.2);
    const auto m = SuspensionModel::build(p);
    RunOptions o;
    o.channels = {"wheel centre x left", "wheel centre z left"};
    o.sampleRate = 500.0;
    o.integrator = "cvode";
    o.relativeTolerance = 1e-10;
    o.dt = 2e-3;
    Simulation ref(m, "free", o);
    ref.run();
    o.relativeTolerance = 1e-11;
    Simulation check(m, "free", o);
    check.run();
    double refError = 0.0;
    for (int c = 0; c < 2; ++c)
      for (std::size_t k = 0; k < ref.results().size(); ++k)
        refError = std::max(refError, std::abs(ref.results().series(c)[k] - check.results().series(c)[k]));
    qInfo("reference rtol 1e-10 against 1e-11: %.2e m", refError);
    struct Expect {
      const char* method;
      int linEvery;
      double lowest;  // the least fitted order accepted
    };
    // Measured 2026-11-23 (fitted): LSRT2 1.95, ROS34PW2 2.08 (lin-every 5: 2.40), BDF2 1.69,
    // generalized-alpha 2.78 (irregular), linear-implicit Euler 0.93; accepted 0.25-0.8 lower.
    for (const Expect& x : {Expect{"lsrt2", 1, 1.7}, Expect{"ros34pw2", 1, 1.8}, Expect{"ros34pw2", 5, 2.1},
                            Expect{"bdf2", 1, 1.4}, Expect{"galpha", 1, 2.0}, Expect{"lie", 1, 0.8}}) {
      std::vector<double> errors;
      for (double dt : {2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4}) {
        o.integrator = x.method;
        o.linearizeEvery = x.linEvery;
        o.dt = dt;
        Simulation a(m, "free", o);
        a.run();
        double sq = 0.0;
        for (int c = 0; c < 2; ++c) {
          const auto& y = a.results().series(c);
          const auto& r = ref.results().series(c);
          for (std::size_t k = 0; k < r.size(); ++k) sq += (y[k] - r[k]) * (y[k] - r[k]);
        }
        errors.push_back(std::sqrt(sq / (2.0 * static_cast<double>(ref.results().size()))));
      }
      // Local orders, and the least-squares slope of log(error) over log(dt) (dt halves: x = -k).
      QString line;
      double sx = 0, sy = 0, sxx = 0, sxy = 0;
      const int n = static_cast<int>(errors.size());
      for (int k = 0; k < n; ++k) {
        if (k > 0) line += QString(" %1").arg(std::log2(errors[k - 1] / errors[k]), 0, 'f', 2);
        const double xk = k, yk = -std::log2(errors[k]);
        sx += xk, sy += yk, sxx += xk * xk, sxy += xk * yk;
      }
      const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
      qInfo("%-9s lin-every %d: RMS errors %.2e %.2e %.2e %.2e %.2e m at 2 ... 0.125 ms; orders%s; fitted %.2f",
            x.method, x.linEvery, errors[0], errors[1], errors[2], errors[3], errors[4], qPrintable(line), slope);
      QVERIFY2(slope >= x.lowest, x.method);
    }
  }

  // Every fixed-step method at 1 ms against CVODE (rtol 1e-7) over LC1's force step (4.9-5.5 s),
  // eq. (27) on the wheel centre's x and the bushing force, each within its band: the measured
  // error with a margin of about 1.5 (measured 2026-11-23, larger of e_x and e_f, double wishbone /
  // multilink: LSRT2 0.27 / 0.97 %, ROS34PW2 0.029 / 0.068 % (lin-every 5: 0.028 / 0.066 %),
  // BDF2 3.7 / 11.8 %, generalized-alpha 2.4 / 6.6 % (frozen matrix the same), linear-implicit
  // Euler 10.4 / 48.4 %).
  void everyMethodMatchesReferenceAroundStep_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("force");
    QTest::newRow("double wishbone") << "double_wishbone" << "trailing arm bushing fx left";
    QTest::newRow("multilink") << "multilink" << "trailing link bushing fx left";
  }
  void everyMethodMatchesReferenceAroundStep() {
    QFETCH(QString, project);
    QFETCH(QString, force);
    const auto m = load(project.toStdString());
    RunOptions o;
    o.start = 4.9;
    o.duration = 0.6;
    o.channels = {"wheel centre x left", force.toStdString()};
    o.integrator = "cvode";
    o.relativeTolerance = 1e-7;
    Simulation ref(m, "LC1", o);
    ref.run();
    struct Band {
      const char* method;
      int linEvery;
      double dw, ml;  // band of the larger of e_x, e_f on each axle
    };
    for (const Band& b : {Band{"lsrt2", 1, 0.004, 0.015}, Band{"ros34pw2", 1, 0.00045, 0.001},
                          Band{"ros34pw2", 5, 0.00045, 0.001}, Band{"bdf2", 1, 0.055, 0.17},
                          Band{"galpha", 1, 0.036, 0.10}, Band{"galpha-frozen", 1, 0.036, 0.10},
                          Band{"lie", 1, 0.15, 0.70}}) {
      o.integrator = b.method;
      o.linearizeEvery = b.linEvery;
      Simulation a(m, "LC1", o);
      a.run();
      QCOMPARE(a.results().size(), ref.results().size());
      const double ex = test::error27(a.results().series(0), ref.results().series(0));
      const double ef = test::error27(a.results().series(1), ref.results().series(1));
      const double band = project == "double_wishbone" ? b.dw : b.ml;
      qInfo("%-13s lin-every %d, 4.9-5.5 s: e_x = %.4f %%, e_f = %.4f %% (band %.3g %%)", b.method, b.linEvery,
            100 * ex, 100 * ef, 100 * band);
      QVERIFY2(std::max(ex, ef) <= band, b.method);
    }
  }

  // The local error estimates of LSRT2 (embedded first-order solution) and ROS34PW2 (embedded
  // second-order solution) against the true error, the difference to CVODE (rtol 1e-9) in the
  // positions, step by step over LC1's step and LC2's sweep at 24-26 Hz. LSRT2: the same order of
  // magnitude (RMS ratio 0.24-0.57), following the time profile on the double wishbone
  // (correlation of the 10 ms maxima 0.56 / 0.62) but not on the multilink (0.04 / -0.06), whose
  // accumulated error is not where its local error is largest: only the magnitude is checked
  // there. ROS34PW2: RMS ratio 0.09-0.19, largest values within a factor 2-6, correlation 0.45 /
  // 0.36 on the double wishbone.
  void errorEstimateTracksTrueError_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("loadCase");
    QTest::addColumn<double>("start");
    QTest::addColumn<bool>("profile");
    QTest::addColumn<QString>("method");
    for (const char* method : {"lsrt2", "ros34pw2"}) {
      const std::string tag = std::string(" ") + method;
      QTest::newRow(("double wishbone LC1" + tag).c_str()) << "double_wishbone" << "LC1" << 4.9 << true << method;
      QTest::newRow(("multilink LC1" + tag).c_str()) << "multilink" << "LC1" << 4.9 << false << method;
      QTest::newRow(("double wishbone LC2" + tag).c_str()) << "double_wishbone" << "LC2" << 17.0 << true << method;
      QTest::newRow(("multilink LC2" + tag).c_str()) << "multilink" << "LC2" << 17.0 << false << method;
    }
  }
  void errorEstimateTracksTrueError() {
    QFETCH(QString, project);
    QFETCH(QString, loadCase);
    QFETCH(double, start);
    QFETCH(bool, profile);
    QFETCH(QString, method);
    const auto m = load(project.toStdString());
    RunOptions o;
    o.start = start;
    o.duration = 0.6;
    o.integrator = method.toStdString();
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
    const double largest = *std::max_element(est.begin(), est.end()) / *std::max_element(err.begin(), err.end());
    QVERIFY(largest > 0.1 && largest < 10.0);
    // ROS34PW2's estimate is its second-order solution's local error, per step; its third-order
    // solution's error is mostly carried from earlier steps: 5-11 times the estimate in RMS,
    // profile correlation 0.45 / 0.36 on the double wishbone (measured 2026-11-23).
    const bool w = method == "ros34pw2";
    QVERIFY(ratio > (w ? 0.05 : 0.1) && ratio < 10.0);
    if (profile) QVERIFY(corr > (w ? 0.3 : 0.5));
  }

  // The viscoelastic variant is the double wishbone with Maxwell branches on the trailing-arm
  // bushings' x and their deflections as outputs, nothing else changed (a stale copy fails here).
  /// The default project, a passenger car's MacPherson front axle, has a front axle's K&C: it
  /// meets its targets (bump steer, bump camber, roll centre, wheel rate, lateral force toe-out),
  /// caster 4-7 deg, kingpin inclination 10-15 deg, trail 15-30 mm at design, the toe within
  /// 0.2 deg over +-80 mm, and its bump stop engages within the travel (wheel rate at +80 mm
  /// more than twice the design's).
  void macphersonHasAFrontAxlesKc() {
    const auto m = load("macpherson_front");
    const KcResult r = runKc(*m, KcOptions{});
    int met = 0;
    const auto targets = checkTargets(m->project(), r.metrics);
    for (const auto& t : targets) {
      qInfo("target %d %s (%s): %.4g %s", t.id, t.metric.c_str(), t.wheel.c_str(), t.value, toString(t.status));
      met += t.met();
    }
    QCOMPARE(met, int(targets.size()));
    QVERIFY(targets.size() >= 9);
    const int mid = 80;  // the design position of the 161-point sweep
    QCOMPARE(r.sweep[mid], 0.0);
    auto at = [&](const std::string& column, int k) { return r.values[k][r.column(column)]; };
    const double deg = 180 / M_PI;
    for (const std::string w : {"wheel left", "wheel right"}) {
      const double caster = at(w + " caster", mid) * deg, kpi = at(w + " kingpin inclination", mid) * deg,
                   trail = at(w + " trail", mid) * 1000;
      double toe = 0.0;
      for (std::size_t k = 0; k < r.sweep.size(); ++k) toe = std::max(toe, std::abs(at(w + " toe", k) - at(w + " toe", mid)) * deg);
      const auto rate = [&](int k) { return (at(w + " vertical force", k + 1) - at(w + " vertical force", k - 1)) / 2e-3; };
      const double stop = (at(w + " vertical force", 160) - at(w + " vertical force", 159)) / 1e-3;
      qInfo("%s: caster %.2f deg, kingpin inclination %.2f deg, trail %.1f mm, toe within %.3f deg, wheel rate %.1f N/mm "
            "at design, %.1f N/mm at +80 mm", w.c_str(), caster, kpi, trail, toe, rate(mid) / 1000, stop / 1000);
      QVERIFY(caster > 4 && caster < 7);
      QVERIFY(kpi > 10 && kpi < 15);
      QVERIFY(trail > 15 && trail < 30);
      QVERIFY(toe < 0.2);
      QVERIFY(stop > 2 * rate(mid));
    }
  }

  void viscoelasticVariantDiffersOnlyInTheBranches() {
    const Project base = readProject(kRoot + "/projects/double_wishbone.json");
    const Project variant = readProject(kRoot + "/projects/double_wishbone_viscoelastic.json");
    const auto lines = describeChanges(base, variant, 100);
    int branchLines = 0, outputLines = 0;
    for (const std::string& line : lines) {
      const QString l = QString::fromStdString(line);
      if (l.startsWith("name ") || l.startsWith("description ")) continue;
      if (l.startsWith("outputs 'trailing arm bushing branch ") && l.endsWith(" added")) {
        ++outputLines;
        continue;
      }
      QVERIFY2(l.contains("trailing arm front bushing") && l.contains(": x maxwell"), line.c_str());
      ++branchLines;
    }
    QCOMPARE(branchLines, 2);
    QCOMPARE(outputLines, 4);
    QCOMPARE(SuspensionModel::build(variant)->nElementStates(), 4);
  }

  // The flexible-bar variant is the double wishbone with one flexible body for the two bar halves
  // (ids 11 and 23) and their torsion bushing: every other body, bushing, P2P element, input,
  // wheel, load case and output is the same, and the markers that held a half hold the bar at
  // the same global positions.
  void flexibleBarVariantDiffersOnlyInTheBar() {
    const Project base = readProject(kRoot + "/projects/double_wishbone.json");
    const Project variant = readProject(kRoot + "/projects/double_wishbone_flexible_bar.json");
    QCOMPARE(int(variant.flexibleBodies.size()), 1);
    QCOMPARE(variant.flexibleBodies[0].body, 11);
    auto bodyOf = [](const Project& p, int id) -> const BodyRow& {
      return *std::find_if(p.bodies.begin(), p.bodies.end(), [&](const BodyRow& b) { return b.id == id; });
    };
    for (const BodyRow& b : base.bodies)
      if (b.id != 11 && b.id != 23) QVERIFY2(bodyOf(variant, b.id) == b, b.name.c_str());
    QCOMPARE(variant.bodies.size(), base.bodies.size() - 1);
    auto global = [&](const Project& p, const MarkerRow& m) {
      const BodyRow& b = bodyOf(p, m.body);
      return Vec3(b.position + rotation::matrix(b.orientation) * m.position);
    };
    QCOMPARE(variant.markers.size(), base.markers.size() - 2);  // the torsion bushing's pair
    for (const MarkerRow& m : variant.markers) {
      const auto it = std::find_if(base.markers.begin(), base.markers.end(), [&](const MarkerRow& k) { return k.id == m.id; });
      QVERIFY(it != base.markers.end());
      if (it->body == 11 || it->body == 23) {
        QCOMPARE(m.body, 11);
        QVERIFY((global(variant, m) - global(base, *it)).norm() < 1e-9);
      } else {
        QVERIFY2(m == *it, m.name.c_str());
      }
    }
    std::vector<BushingRow> kept;
    for (const BushingRow& b : base.bushings)
      if (b.name != "anti-roll bar torsion") kept.push_back(b);
    QCOMPARE(variant.bushings.size(), kept.size());
    for (std::size_t k = 0; k < kept.size(); ++k) {
      QCOMPARE(variant.bushings[k].name, kept[k].name);
      QVERIFY(variant.bushings[k].directions == kept[k].directions);
    }
    QVERIFY(variant.p2ps == base.p2ps && variant.inputs == base.inputs && variant.wheels == base.wheels);
    QVERIFY(variant.loadCases == base.loadCases && variant.outputs == base.outputs);
  }

  // The viscoelastic variant: LSRT2 and ROS34PW2 (1 ms) against CVODE (rtol 1e-7, branch
  // deflections as its states) over LC1's force step and a second of LC2's sweep (22-24 Hz),
  // eq. (27) on the wheel centre's x and the viscoelastic bushing's force: e <= 1 % (the issue's
  // bound). Measured 2026-11-24 over the whole load cases with LSRT2 (elastokin-sim,
  // docs/method.md): LC1 0.046 %, LC2 0.24 %.
  void viscoelasticVariantMatchesReference_data() {
    QTest::addColumn<QString>("loadCase");
    QTest::addColumn<double>("start");
    QTest::addColumn<double>("duration");
    QTest::newRow("LC1 4.9-5.9 s") << "LC1" << 4.9 << 1.0;
    QTest::newRow("LC2 16.0-17.0 s") << "LC2" << 16.0 << 1.0;
  }
  void viscoelasticVariantMatchesReference() {
    QFETCH(QString, loadCase);
    QFETCH(double, start);
    QFETCH(double, duration);
    const auto m = load("double_wishbone_viscoelastic");
    RunOptions o;
    o.start = start;
    o.duration = duration;
    o.channels = {"wheel centre x left", "trailing arm bushing fx left"};
    o.integrator = "cvode";
    o.relativeTolerance = 1e-7;
    Simulation ref(m, loadCase.toStdString(), o);
    ref.initialize();
    double largestBranch = 0.0;  // the branches take part: their largest deflection
    while (ref.step()) largestBranch = std::max(largestBranch, ref.state().z.cwiseAbs().maxCoeff());
    QVERIFY(largestBranch > 1e-4);
    for (const char* method : {"lsrt2", "ros34pw2"}) {
      o.integrator = method;
      Simulation a(m, loadCase.toStdString(), o);
      a.run();
      QCOMPARE(a.results().size(), ref.results().size());
      QCOMPARE(a.state().z.size(), 4);
      const double ex = test::error27(a.results().series(0), ref.results().series(0));
      const double ef = test::error27(a.results().series(1), ref.results().series(1));
      qInfo("%s %s: e_x = %.4f %%, e_f = %.4f %%; largest branch deflection %.3g mm", qPrintable(loadCase), method,
            100 * ex, 100 * ef, 1e3 * largestBranch);
      QVERIFY(ex <= 0.01 && ef <= 0.01);
    }
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
