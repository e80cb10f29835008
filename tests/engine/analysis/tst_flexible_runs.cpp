// SPDX-License-Identifier: GPL-3.0-or-later
// Runs of a model with a flexible body (docs/flexible-bodies.md, "In the step"): every integrator
// carries it without a special case and agrees with CVODE's reference; the rigid limit (beams
// stiffened towards infinity) approaches the rigid body with the beams' mass properties.
#include <QtTest>

#include <algorithm>

#include "engine/analysis/equilibrium.h"
#include "engine/analysis/kc.h"
#include "engine/analysis/linear_analysis.h"
#include "engine/analysis/simulation.h"
#include "engine/dynamics/linearize.h"
#include "engine/model/project_io.h"
#include "support/runs.h"
#include "support/sanitized.h"
#include "support/test_models.h"

using namespace ek;

namespace {

/// The flexible bar with gravity, a "free" load case and the outputs the runs compare: the bar's
/// ends and the arm (positions), and a bushing's force.
Project barRun(int modes, double duration) {
  Project p = test::flexibleBar(modes, true);
  p.outputs = {{"bar end z", OutputQuantity::MarkerPosition, 13, "z"},
               {"bar end left z", OutputQuantity::MarkerPosition, 12, "z"},
               {"arm x", OutputQuantity::MarkerPosition, 20, "x"},
               {"arm z", OutputQuantity::MarkerPosition, 20, "z"},
               {"mount force z", OutputQuantity::BushingForce, 1, "z"}};
  test::addFreeLoadCase(p, duration);
  return p;
}

/// barRun() with viscoelastic mounts and arm link (docs/flexible-bodies.md, "Maxwell branches"):
/// Maxwell branches on the bar's two ground mounts (z: two branches, y: one; the left mount's
/// marker I on the bar, the right's J) and on the arm's bushing to it (x, rx), and the branch
/// deflections and a mount's force (springs and branches) as outputs.
Project viscoelasticBarRun(int modes, double duration) {
  Project p = barRun(modes, duration);
  for (BushingRow& b : p.bushings) {
    if (b.id == 1 || b.id == 2) {
      b.directions[2].maxwell = {{1e6, 1e6 / 200.0}, {5e5, 5e5 / 20.0}};
      b.directions[1].maxwell = {{8e5, 8e5 / 80.0}};
    } else if (b.id == 4) {
      b.directions[0].maxwell = {{5e4, 5e4 / 50.0}};
      b.directions[3].maxwell = {{200.0, 200.0 / 120.0}};
    }
  }
  p.outputs.push_back({"left z1", OutputQuantity::BushingBranchDeflection, 1, "z1"});
  p.outputs.push_back({"right z2", OutputQuantity::BushingBranchDeflection, 2, "z2"});
  p.outputs.push_back({"arm link x1", OutputQuantity::BushingBranchDeflection, 4, "x1"});
  p.outputs.push_back({"arm link rx1", OutputQuantity::BushingBranchDeflection, 4, "rx1"});
  return p;
}

/// Drives input `input` of the last load case by a sine.
void addSineDrive(Project& p, int input, double amplitude, double frequency) {
  LoadCaseRow::Drive drive;
  drive.input = input;
  drive.signal.type = SignalType::Sine;
  drive.signal.amplitude = amplitude;
  drive.signal.frequency = frequency;
  p.loadCases.back().drives.push_back(drive);
}

/// The same body rigid: the beams' mass, centre of mass and inertia on the body row.
Project rigidTwin(const Project& flexible) {
  Project p = flexible;
  const auto m = SuspensionModel::build(flexible);
  const ModelFlexibleBody& f = m->flexibleBodies[0];
  BodyRow& bar = p.bodies[1];
  bar.mass = f.modal.mass;
  bar.com = f.modal.centre;
  const Mat3& J = f.modal.inertia;
  bar.inertia = {J(0, 0), J(1, 1), J(2, 2), J(0, 1), J(0, 2), J(1, 2)};
  p.flexibleBodies.clear();
  return p;
}

std::vector<double> column(const Simulation& sim, const std::string& name) {
  const Recorder& rec = sim.results();
  for (std::size_t c = 0; c < rec.channels().size(); ++c)
    if (rec.channels()[c].name == name) return rec.series(c);
  return {};
}

/// Largest difference of a channel between two runs, relative to the channel's range in the second.
double relativeDifference(const Simulation& a, const Simulation& b, const std::string& name) {
  const std::vector<double> x = column(a, name), y = column(b, name);
  double diff = 0.0, lo = y.at(0), hi = y.at(0);
  for (std::size_t k = 0; k < y.size(); ++k) {
    diff = std::max(diff, std::abs(x.at(k) - y[k]));
    lo = std::min(lo, y[k]);
    hi = std::max(hi, y[k]);
  }
  return diff / std::max(hi - lo, 1e-12);
}

/// A steel tube cantilever along x (L = 0.5 m, 10 beam elements), its root held by a bushing a
/// million times stiffer than the beam, with a force and a torque input at its tip: the force
/// along global z, the torque about the tip marker's x axis (it turns with the node).
constexpr double kTipLength = 0.5, kTubeOuter = 0.022, kTubeInner = 0.016;
Project loadedCantilever() {
  Project p;
  p.name = "cantilever";
  p.gravity.setZero();
  BodyRow beam;
  beam.id = 1;
  beam.name = "beam";
  p.bodies = {test::groundRow(), beam};
  FlexibleBodyRow f;
  f.id = 1;
  f.name = "tube";
  f.body = 1;
  f.points = {{0.0, 0.0, 0.0}, {kTipLength, 0.0, 0.0}};
  f.elementsPerSegment = 10;
  f.section.area = M_PI * (kTubeOuter * kTubeOuter - kTubeInner * kTubeInner) / 4;
  f.section.iy = f.section.iz = M_PI * (std::pow(kTubeOuter, 4) - std::pow(kTubeInner, 4)) / 64;
  f.section.torsion = 2 * f.section.iy;
  f.section.shearY = f.section.shearZ = 0.53;
  f.material = {210e9, 80.77e9, 7850.0};
  f.modes = 4;
  p.flexibleBodies = {f};
  p.markers = {MarkerRow{1, "ground mount", 0, Vec3::Zero(), Vec3::Zero()}, MarkerRow{10, "root", 1, Vec3::Zero(), Vec3::Zero()},
               MarkerRow{11, "tip", 1, Vec3(kTipLength, 0.0, 0.0), Vec3::Zero()}};
  BushingRow clamp;
  clamp.id = 1;
  clamp.name = "clamp";
  clamp.markerI = 10;
  clamp.markerJ = 1;
  for (int d = 0; d < 3; ++d) clamp.directions[d].stiffness.coefficient = 1e12;
  for (int d = 3; d < 6; ++d) clamp.directions[d].stiffness.coefficient = 1e10;
  p.bushings = {clamp};
  InputRow force;
  force.id = 1;
  force.name = "tip force";
  force.marker = 11;
  force.kind = InputKind::Force;
  force.direction = Vec3::UnitZ();
  InputRow torque = force;
  torque.id = 2;
  torque.name = "tip torque";
  torque.kind = InputKind::Torque;
  torque.frame = InputFrame::Marker;
  torque.direction = Vec3::UnitX();
  p.inputs = {force, torque};
  return p;
}

}  // namespace

class TestFlexibleRuns : public QObject {
  Q_OBJECT
 private slots:
  // The bar drops into its mounts and links under gravity and rings (26 modes, 70 Hz to 11 kHz).
  // Every method follows CVODE (relative tolerance 1e-10) at a step that resolves the modes
  // (0.1 ms), within a few times the error it has on the rigid twin; LSRT2 and ROS34PW2 also at
  // the real-time step of 1 ms, where they damp the modes they cannot resolve.
  void everyIntegratorCarriesAFlexibleBody_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<double>("dt");
    QTest::addColumn<double>("limit");
    QTest::newRow("lsrt2 0.1 ms") << "lsrt2" << 1e-4 << 1.5e-3;
    QTest::newRow("ros34pw2 0.1 ms") << "ros34pw2" << 1e-4 << 6e-4;
    QTest::newRow("bdf2 0.1 ms") << "bdf2" << 1e-4 << 1.2e-2;
    QTest::newRow("galpha 0.1 ms") << "galpha" << 1e-4 << 3e-3;
    QTest::newRow("galpha-frozen 0.1 ms") << "galpha-frozen" << 1e-4 << 3e-3;
    QTest::newRow("lie 0.1 ms") << "lie" << 1e-4 << 0.2;
    QTest::newRow("lsrt2 1 ms") << "lsrt2" << 1e-3 << 5e-2;
    QTest::newRow("ros34pw2 1 ms") << "ros34pw2" << 1e-3 << 3e-2;
  }
  void everyIntegratorCarriesAFlexibleBody() {
    QFETCH(QString, method);
    QFETCH(double, dt);
    QFETCH(double, limit);
    const Project p = barRun(6, 0.2);
    static std::unique_ptr<Simulation> reference;
    if (!reference) {
      RunOptions o;
      o.integrator = "cvode";
      o.relativeTolerance = 1e-10;
      reference = test::runProject(p, "free", o);
    }
    RunOptions o;
    o.integrator = method.toStdString();
    o.dt = dt;
    o.sampleRate = 1000.0;
    const auto sim = test::runProject(p, "free", o);
    double worst = 0.0;
    for (const char* c : {"bar end z", "bar end left z", "arm x", "arm z"}) worst = std::max(worst, relativeDifference(*sim, *reference, c));
    qInfo("%s at %g ms: the positions differ from CVODE by at most %.2e of their range", qPrintable(method), 1e3 * dt, worst);
    QVERIFY2(worst < limit, qPrintable(QString::number(worst)));
  }

  // Maxwell branches on bushings that ride on the bar's nodes: the branch forces act on its frame
  // and, through the nodes' mode shapes, on its modes; the branch deflections' rates follow the
  // nodes. LSRT2 and ROS34PW2 against CVODE (relative tolerance 1e-10, its Jacobian checked
  // against differences in tst_cvode): positions, branch deflections and a mount's force (which
  // the bar's kHz modes ring in: the largest differences); LSRT2's error falls with the step's
  // square (its stages need the branch coupling's modal parts).
  void maxwellBranchesOnTheBar() {
    const Project p = viscoelasticBarRun(6, 0.2);
    RunOptions ref;
    ref.integrator = "cvode";
    ref.relativeTolerance = 1e-10;
    const auto reference = test::runProject(p, "free", ref);
    const std::vector<std::string> positions{"bar end z", "bar end left z", "arm x", "arm z"};
    std::vector<std::string> all = positions;
    for (const char* c : {"mount force z", "left z1", "right z2", "arm link x1", "arm link rx1"}) all.push_back(c);
    for (const std::string& c : all) {
      const std::vector<double> x = column(*reference, c);
      QVERIFY2(!x.empty(), c.c_str());
      const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
      QVERIFY2(*hi - *lo > 0.0, c.c_str());  // every channel moves
    }
    auto worstOf = [&](const std::string& method, double dt, const std::vector<std::string>& channels) {
      RunOptions o;
      o.integrator = method;
      o.dt = dt;
      o.sampleRate = 1000.0;
      const auto sim = test::runProject(p, "free", o);
      double worst = 0.0;
      for (const std::string& c : channels) worst = std::max(worst, relativeDifference(*sim, *reference, c));
      return worst;
    };
    const double coarse = worstOf("lsrt2", 2e-4, all), fine = worstOf("lsrt2", 1e-4, all);
    const double finer = worstOf("lsrt2", 5e-5, all), rt = worstOf("lsrt2", 1e-3, positions);
    const double ros = worstOf("ros34pw2", 1e-4, all);
    qInfo("branches on the bar: largest difference from CVODE, of a channel's range: LSRT2 %.2e (0.2 ms), %.2e "
          "(0.1 ms), %.2e (0.05 ms; ratios %.2f, %.2f), the positions at 1 ms %.2e; ROS34PW2 %.2e (0.1 ms)",
          coarse, fine, finer, coarse / fine, fine / finer, rt, ros);
    QVERIFY2(fine < 4e-2 && finer < 1e-2, qPrintable(QString("%1 %2").arg(fine).arg(finer)));
    QVERIFY2(coarse / fine > 3.0 && fine / finer > 3.0, qPrintable(QString("%1 %2").arg(coarse / fine).arg(fine / finer)));
    QVERIFY2(rt < 5e-2, qPrintable(QString::number(rt)));
    QVERIFY2(ros < 3e-2, qPrintable(QString::number(ros)));
  }

  // A steering rack whose housing is the bar (docs/flexible-bodies.md, "Steering racks"): the rack
  // on the arm, steered by a 3 Hz sine of 0.2 rad, pulls the arm and, at the housing's node, bends
  // the bar. LSRT2 against CVODE (relative tolerance 1e-10): second order in the step; the rack's
  // force, the rack's travel and the positions.
  void steeringRackHousedInTheBar() {
    Project p = barRun(6, 0.2);
    test::addSteeringWheel(p, Vec3::Zero());
    const FlexibleBodyRow& f = p.flexibleBodies[0];
    p.markers.push_back({1001, "housing on the bar", 1, f.points[3] + Vec3(0.0, -0.05, 0.0), Vec3(0.0, -1.5708, 0.0)});
    p.markers.push_back({1002, "rack on the arm", 2, Vec3(0.0, -0.05, 0.0), Vec3::Zero()});
    p.steeringRacks.push_back({700, "rack", 900, 1002, 1001, 0.008, 60.0, 0.2});
    addSineDrive(p, 900, 0.2, 3.0);
    p.outputs.push_back({"rack force", OutputQuantity::SteeringRack, 700, "force"});
    p.outputs.push_back({"rack travel", OutputQuantity::SteeringRack, 700, "travel"});
    RunOptions ref;
    ref.integrator = "cvode";
    ref.relativeTolerance = 1e-10;
    const auto reference = test::runProject(p, "free", ref);
    const char* channels[] = {"bar end z", "arm x", "arm z", "rack force", "rack travel"};
    auto worstOf = [&](double dt) {
      RunOptions o;
      o.dt = dt;
      o.sampleRate = 1000.0;
      const auto sim = test::runProject(p, "free", o);
      double worst = 0.0;
      for (const char* c : channels) worst = std::max(worst, relativeDifference(*sim, *reference, c));
      return worst;
    };
    const std::vector<double> force = column(*reference, "rack force");
    const double peak = std::max(*std::max_element(force.begin(), force.end()), -*std::min_element(force.begin(), force.end()));
    const double coarse = worstOf(2e-4), fine = worstOf(1e-4), rt = worstOf(1e-3);
    qInfo("rack housed in the bar (peak rack force %.0f N): LSRT2 against CVODE %.2e (0.2 ms), %.2e (0.1 ms; ratio "
          "%.2f), %.2e (1 ms) of a channel's range",
          peak, coarse, fine, coarse / fine, rt);
    QVERIFY(peak > 100.0);
    QVERIFY2(fine < 2e-3, qPrintable(QString::number(fine)));
    QVERIFY2(coarse / fine > 3.0, qPrintable(QString::number(coarse / fine)));
    QVERIFY2(rt < 5e-2, qPrintable(QString::number(rt)));
  }

  // The viscoelastic bar stiffened towards rigid equals its rigid twin with the same branches:
  // the frame's part of the coupling is the rigid body's (LSRT2 at 1 ms, beams 1e10 times stiffer).
  void maxwellBranchesInTheRigidLimit() {
    Project p = viscoelasticBarRun(4, 0.1);
    p.flexibleBodies[0].material.youngsModulus *= 1e10;
    p.flexibleBodies[0].material.shearModulus *= 1e10;
    const auto flexible = test::runProject(p, "free", 1e-3);
    const auto rigid = test::runProject(rigidTwin(p), "free", 1e-3);
    double worst = 0.0;
    for (const char* c : {"bar end z", "bar end left z", "arm x", "arm z", "left z1", "right z2", "arm link x1", "arm link rx1"})
      worst = std::max(worst, relativeDifference(*flexible, *rigid, c));
    qInfo("branches, beams stiffened 1e10 times: largest difference from the rigid twin %.2e of the range", worst);
    QVERIFY2(worst < 1e-8, qPrintable(QString::number(worst)));
  }

  // Beams stiffened by a factor s approach the rigid body with their mass properties: the
  // difference falls with 1/s (the static deflection under the same loads), to 2.6e-10 of the
  // positions' range at s = 1e10 (LSRT2 at 1 ms; the modes then reach 3e8 Hz).
  void rigidLimit() {
    double last = 0.0;
    for (double s : {1e2, 1e5, 1e8, 1e10}) {
      Project p = barRun(4, 0.1);
      p.flexibleBodies[0].material.youngsModulus *= s;
      p.flexibleBodies[0].material.shearModulus *= s;
      const auto flexible = test::runProject(p, "free", 1e-3);
      const auto rigid = test::runProject(rigidTwin(p), "free", 1e-3);
      double worst = 0.0;
      for (const char* c : {"bar end z", "bar end left z", "arm x", "arm z"})
        worst = std::max(worst, relativeDifference(*flexible, *rigid, c));
      qInfo("stiffness x %.0e: largest difference from the rigid body %.2e of the range", s, worst);
      if (last > 0.0) QVERIFY2(worst < 0.02 * last, qPrintable(QString::number(worst)));
      last = worst;
    }
    QVERIFY2(last < 1e-9, qPrintable(QString::number(last)));
  }

  // The double wishbone's anti-roll bar as one flexible body (projects/double_wishbone_flexible_bar)
  // against the same bar as two rigid halves joined by a torsion bushing of the beam's torsional
  // stiffness G J / L (L = 1.13 m between the arms): with the bar's bending made rigid, so that it
  // works in torsion only, the axle's roll stiffness at the design position is the same; with its
  // real section the arms bend too and the flexible bar is softer.
  void antiRollBarAgainstItsTorsionSpring() {
    const std::string root = ELASTOKIN_SOURCE_DIR;
    Project flex = readProject(root + "/projects/double_wishbone_flexible_bar.json");
    Project rigid = readProject(root + "/projects/double_wishbone.json");
    FlexibleBodyRow& bar = flex.flexibleBodies.at(0);
    const double torsion = bar.material.shearModulus * bar.section.torsion / 1.13;
    auto roll = [](const Project& p) {
      const auto m = SuspensionModel::build(p);
      for (const KcMetric& k : designMetrics(*m, solveDesign(*m)))
        if (k.name == "roll stiffness (wheel pads)") return k.value;
      return std::nan("");
    };
    const double realBar = roll(flex);
    bar.section.iy *= 1e4;
    bar.section.iz *= 1e4;
    const double torsionOnly = roll(flex);
    bool found = false;
    for (BushingRow& b : rigid.bushings)
      if (b.name == "anti-roll bar torsion") {
        b.directions[3].stiffness.coefficient = torsion;
        found = true;
      }
    QVERIFY(found);
    const double spring = roll(rigid);
    qInfo("roll stiffness [N m/deg]: flexible bar %.2f, its bending rigid %.2f, rigid halves with a %.1f N m/rad "
          "torsion bushing %.2f (difference %.1e)",
          realBar, torsionOnly, torsion, spring, torsionOnly / spring - 1.0);
    QVERIFY2(std::abs(torsionOnly / spring - 1.0) < 2e-3, qPrintable(QString::number(torsionOnly / spring - 1.0)));
    QVERIFY(realBar < 0.99 * torsionOnly);
    // Modes at the design position: the flexible bar adds no free direction (the unused entries
    // of its last modal slot are no coordinates) and its first elastic modes.
    auto zeroModes = [](const Project& p) {
      const auto m = SuspensionModel::build(p);
      return computeModes(*m, designPoint(*m)).zeroModes;
    };
    QCOMPARE(zeroModes(readProject(root + "/projects/double_wishbone_flexible_bar.json")),
             zeroModes(readProject(root + "/projects/double_wishbone.json")));
  }

  /// The second truncation (`max frequency [Hz]`) on the shipped bar: the roll stiffness with the
  /// modes above each cut left out, against all modes kept. Leaving out modes can only stiffen
  /// the bar (fewer shapes to deform in), and a cut above the highest mode changes nothing.
  void frequencyCutOfTheBar() {
    const std::string root = ELASTOKIN_SOURCE_DIR;
    const Project shipped = readProject(root + "/projects/double_wishbone_flexible_bar.json");
    auto roll = [](const Project& p, int& modes) {
      const auto m = SuspensionModel::build(p);
      modes = m->flexibleBodies.at(0).modes();
      for (const KcMetric& k : designMetrics(*m, solveDesign(*m)))
        if (k.name == "roll stiffness (wheel pads)") return k.value;
      return std::nan("");
    };
    Project all = shipped;
    all.flexibleBodies.at(0).maxFrequency = 0.0;
    int allModes = 0;
    const double reference = roll(all, allModes);
    all.flexibleBodies.at(0).maxFrequency = 1e6;
    int same = 0;
    QCOMPARE(roll(all, same), reference);
    QCOMPARE(same, allModes);
    double previous = reference;
    int previousModes = allModes;
    for (double cut : {5000.0, 2000.0, 1000.0, 500.0, 200.0}) {
      Project p = shipped;
      p.flexibleBodies.at(0).maxFrequency = cut;
      int modes = 0;
      const double k = roll(p, modes);
      qInfo("max frequency %6.0f Hz: %2d of %d modes, roll stiffness %.2f N m/deg (%+.2f %%)", cut, modes, allModes, k,
            100.0 * (k / reference - 1.0));
      QVERIFY(modes <= previousModes);
      previousModes = modes;
      QVERIFY2(k >= previous * (1.0 - 1e-9), qPrintable(QString("%1 < %2").arg(k).arg(previous)));
      previous = k;
    }
    QVERIFY(previousModes < allModes);
    Project none = shipped;
    none.flexibleBodies.at(0).maxFrequency = 10.0;
    try {
      SuspensionModel::build(none);
      QFAIL("a cut below every mode was accepted");
    } catch (const ModelError& e) {
      qInfo("%s", e.what());
      QVERIFY(QString(e.what()).contains("max frequency [Hz]"));
      QVERIFY(QString(e.what()).contains("keeps no elastic mode: the lowest is at 49.64"));
    }
  }

  // The modal coordinates as output channels: the coordinate of the lowest mode and its rate,
  // the rate equal to the coordinate's central differences (20 us samples: the drop into the
  // mounts excites the mode's coordinate up to kHz, 0.3 % of truncation at 1 kHz); a rigid body, a mode the body does not keep and a malformed component
  // are named.
  // Force and torque inputs at a flexible body's marker load its modes: the static tip deflection
  // and rotations of a cantilever against Timoshenko's beam and Saint-Venant torsion (the tip node
  // is an interface node, so the reduction holds the static solution exactly).
  void tipLoadsOnACantilever() {
    const Project p = loadedCantilever();
    const auto m = SuspensionModel::build(p);
    const FlexibleBodyRow& f = p.flexibleBodies[0];
    const double E = f.material.youngsModulus, G = f.material.shearModulus, I = f.section.iy, L = kTipLength;
    const int tip = m->markerById(11).value;
    auto solve = [&](double force, double torque, Vec3& displacement, Vec3& rotation) {
      State s;
      m->initialState(s.r, s.v);
      Workspace ws(*m);
      const VecX u = Eigen::Vector2d(force, torque);
      solveEquilibrium(*m, u, s, ws, 1e-9);
      linearize(*m, s, u, ws);
      displacement = ws.markers[tip].p - Vec3(L, 0.0, 0.0);
      const Eigen::AngleAxisd turn(ws.markers[tip].R);
      rotation = turn.angle() * turn.axis();
    };
    Vec3 d, a;
    const double F = 100.0, T = 10.0;
    solve(F, 0.0, d, a);
    const double bending = F * L * L * L / (3 * E * I), shear = F * L / (f.section.shearZ * G * f.section.area);
    const double slope = F * L * L / (2 * E * I);
    qInfo("tip force %.0f N: deflection %.6e m (Timoshenko %.6e), rotation %.6e rad (%.6e)", F, d.z(), bending + shear, -a.y(),
          slope);
    QVERIFY2(std::abs(d.z() / (bending + shear) - 1.0) < 1e-4, qPrintable(QString::number(d.z() / (bending + shear) - 1.0)));
    QVERIFY2(std::abs(-a.y() / slope - 1.0) < 1e-4, qPrintable(QString::number(-a.y() / slope - 1.0)));
    solve(0.0, T, d, a);
    const double twist = T * L / (G * f.section.torsion);
    qInfo("tip torque %.0f N m: twist %.6e rad (Saint-Venant %.6e), tip moved %.1e m", T, a.x(), twist, d.norm());
    QVERIFY2(std::abs(a.x() / twist - 1.0) < 1e-4, qPrintable(QString::number(a.x() / twist - 1.0)));
    QVERIFY(d.norm() < 1e-7);
  }

  // A rig body moved by a motion input, joined to the bar: LSRT2 follows CVODE with its second
  // order (its stages take the input's columns of J_u and J_udot through the bar's rows; a wrong
  // column costs the order), as close as it follows it on the bar's rigid twin.
  void drivenRigShakesTheBar() {
    Project p = barRun(6, 0.1);
    test::addDrivenRig(p, Vec3::UnitZ(), Vec3::Zero());
    addSineDrive(p, 1, 0.01, 30.0);
#ifdef EK_SANITIZED
    {  // The input's columns through the bar's rows, once; the order against CVODE is the normal build's.
      RunOptions o;
      o.integrator = "lsrt2";
      o.dt = 1e-4;
      o.sampleRate = 1000.0;
      QVERIFY(test::runProject(p, "free", o)->results().channels().size() > 3);
    }
    QSKIP("three CVODE runs at 1e-10 and four LSRT2 runs are left to the normal build (sanitizers: one run)");
#endif
    // Largest difference of LSRT2 at step dt from CVODE, of the channels' ranges.
    auto lsrt2Error = [](const Project& q, double dt) {
      RunOptions o;
      o.integrator = "cvode";
      o.relativeTolerance = 1e-10;
      const auto reference = test::runProject(q, "free", o);
      o.integrator = "lsrt2";
      o.dt = dt;
      o.sampleRate = 1000.0;
      const auto sim = test::runProject(q, "free", o);
      double worst = 0.0;
      for (const char* c : {"bar end z", "bar end left z", "arm z"}) worst = std::max(worst, relativeDifference(*sim, *reference, c));
      return worst;
    };
    const double coarse = lsrt2Error(p, 1e-4), fine = lsrt2Error(p, 5e-5), rigid = lsrt2Error(rigidTwin(p), 1e-4);
    qInfo("rig at 30 Hz, 10 mm: LSRT2 differs from CVODE by %.2e (0.1 ms) and %.2e (0.05 ms) of the range; on the "
          "rigid twin by %.2e (0.1 ms)", coarse, fine, rigid);
    QVERIFY2(coarse / fine > 3.0, qPrintable(QString::number(coarse / fine)));
    QVERIFY2(coarse < 2.0 * rigid, qPrintable(QString::number(coarse / rigid)));
  }

  void modalCoordinateChannels() {
    Project p = barRun(6, 0.05);
    const int bar = p.flexibleBodies.at(0).body;
    p.outputs.push_back({"bar q1", OutputQuantity::ModalCoordinate, bar, "q1"});
    p.outputs.push_back({"bar qd1", OutputQuantity::ModalCoordinate, bar, "qd1"});
    RunOptions o;
    o.integrator = "lsrt2";
    o.dt = 2e-5;
    o.sampleRate = 5e4;
    const auto sim = test::runProject(p, "free", o);
    const std::vector<double> q = column(*sim, "bar q1"), qd = column(*sim, "bar qd1");
    QVERIFY(q.size() > 100 && q.size() == qd.size());
    double worst = 0.0, range = 0.0, qRange = 0.0;
    for (std::size_t k = 1; k + 1 < q.size(); ++k) {
      worst = std::max(worst, std::abs((q[k + 1] - q[k - 1]) / 4e-5 - qd[k]));
      range = std::max(range, std::abs(qd[k]));
      qRange = std::max(qRange, std::abs(q[k]));
    }
    const Recorder& rec = sim->results();
    std::string unit, rateUnit;
    for (const Channel& c : rec.channels()) {
      if (c.name == "bar q1") unit = c.unit;
      if (c.name == "bar qd1") rateUnit = c.unit;
    }
    qInfo("mode 1: |q| up to %.3e %s, |qd| up to %.3e %s; rate against differences %.2e of its range", qRange,
          unit.c_str(), range, rateUnit.c_str(), worst / range);
    QVERIFY(qRange > 0.0 && range > 0.0);
    QCOMPARE(unit, std::string("m kg^0.5"));
    QCOMPARE(rateUnit, std::string("m kg^0.5/s"));
    QVERIFY2(worst < 1e-2 * range, qPrintable(QString::number(worst / range)));
    const auto model = SuspensionModel::build(p);
    const std::string description = describeChannel(*model, resolveChannels(*model, {"bar q1"}).at(0));
    qInfo("%s", description.c_str());
    QVERIFY(description.find("coordinate of elastic mode 1 (") != std::string::npos);

    Project many = p;
    many.outputs.back().component = "q99";
    try {
      resolveChannels(*SuspensionModel::build(many), {});
      QFAIL("mode 99 of a body keeping 6 + constraint modes was accepted");
    } catch (const std::invalid_argument& e) {
      qInfo("%s", e.what());
      QVERIFY(QString(e.what()).contains("output 'bar qd1'") && QString(e.what()).contains("no mode 99"));
    }
    Project rigid = p;
    rigid.outputs.back().element = p.bodies.at(0).id == bar ? p.bodies.at(2).id : p.bodies.at(0).id;
    rigid.outputs.back().component = "q0";
    try {
      SuspensionModel::build(rigid);
      QFAIL("a modal coordinate of a rigid body was accepted");
    } catch (const ModelError& e) {
      qInfo("%s", e.what());
      QVERIFY(QString(e.what()).contains("q or qd and the mode's number from 1"));
    }
    rigid.outputs.back().component = "qd2";
    try {
      SuspensionModel::build(rigid);
      QFAIL("a modal coordinate of a rigid body was accepted");
    } catch (const ModelError& e) {
      QVERIFY2(QString(e.what()).contains("is not flexible"), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestFlexibleRuns)
#include "tst_flexible_runs.moc"
