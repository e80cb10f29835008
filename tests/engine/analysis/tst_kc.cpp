// SPDX-License-Identifier: GPL-3.0-or-later
// K&C analyses: mechanisms with closed-form answers (swing axle, trailing arm, double wishbone
// with parallel equal arms and with inclined arms), and the analytic compliance and travel rates
// against finite differences of static equilibria on the shipped axles.
#include <QtTest>

#include <optional>

#include <nlohmann/json.hpp>

#include "engine/analysis/kc.h"
#include "engine/core/rotation.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/linearize.h"
#include "engine/dynamics/wheels.h"
#include "engine/model/project_io.h"
#include "engine/model/table_path.h"
#include "support/test_models.h"

using namespace ek;

namespace {

const std::string kProjects = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/";

/// A joint that turns freely (stiffness kTurn) about the global axis `axis` (0: x, 1: y) and is
/// stiff in every other direction: markers at the same global point, identity orientation.
BushingRow joint(int id, int markerI, int markerJ, int axis, double kTurn) {
  BushingRow b;
  b.id = id;
  b.name = "joint " + std::to_string(id);
  b.markerI = markerI;
  b.markerJ = markerJ;
  for (int d = 0; d < 3; ++d) b.directions[d].stiffness.coefficient = 1e10;
  for (int d = 3; d < 6; ++d) b.directions[d].stiffness.coefficient = 1e8;
  // Deflection angles: rx = alpha_x'', ry = alpha_y' (about J's axes, near the identity).
  b.directions[3 + axis].stiffness.coefficient = kTurn;
  return b;
}

BodyRow freeBody(int id, const std::string& name, const Vec3& at, double mass) {
  BodyRow b;
  b.id = id;
  b.name = name;
  b.mass = mass;
  b.inertia = {0.2, 0.2, 0.2, 0, 0, 0};
  b.position = at;
  return b;
}

BodyRow groundBody() {
  BodyRow g;
  g.id = 0;
  g.name = "ground";
  g.fixed = true;
  return g;
}

/// Wheel 1 on marker 1 of body 1, which is its own carrier.
WheelRow wheelOnItself(double radius) {
  WheelRow w;
  w.id = 1;
  w.name = "wheel";
  w.marker = 1;
  w.carrier = 1;
  w.radius = radius;
  return w;
}

/// A wheel body on one pivot to the ground: a swing axle (pivot axis x at the vehicle centre,
/// arm along y) or a trailing arm (pivot axis y ahead of the wheel, arm along x). The wheel is
/// its own carrier; the pivot's turning stiffness holds it. The pivot is at the wheel centre's
/// height unless `pivotHeight` is given.
Project singlePivot(bool swingAxle, double arm, double radius, std::optional<double> pivotHeight = {}) {
  Project p;
  p.gravity = Vec3::Zero();
  const BodyRow ground = groundBody();
  const Vec3 centre(0.0, 0.75, radius);
  const double hp = pivotHeight.value_or(radius);
  const Vec3 pivot = swingAxle ? Vec3(0.0, 0.75 - arm, hp) : Vec3(arm, 0.75, hp);
  BodyRow wheel = freeBody(1, "wheel", centre, 20.0);
  wheel.orientation = Vec3(M_PI / 2, 0.0, 0.0);  // body x along the axle (+y)
  p.bodies = {ground, wheel};
  const Mat3 Rw = rotation::matrix(wheel.orientation);
  p.markers = {MarkerRow{1, "wheel centre", 1, Vec3::Zero(), Vec3::Zero()},
               MarkerRow{2, "pivot (wheel)", 1, Rw.transpose() * (pivot - centre), Vec3(-M_PI / 2, 0.0, 0.0)},
               MarkerRow{3, "pivot (ground)", 0, pivot, Vec3::Zero()}};
  p.bushings = {joint(1, 2, 3, swingAxle ? 0 : 1, 2000.0)};
  p.wheels = {wheelOnItself(radius)};
  return p;
}

/// A planar double wishbone (left side): upright = wheel = carrier, upper and lower arm turning
/// about x at both ends, the lower inner pivot's turning stiffness as the spring.
Project planarDoubleWishbone(const Vec3& upperInner, const Vec3& upperOuter, const Vec3& lowerInner,
                             const Vec3& lowerOuter, const Vec3& centre, double radius) {
  Project p;
  p.gravity = Vec3::Zero();
  const BodyRow ground = groundBody();
  BodyRow upright = freeBody(1, "upright", centre, 25.0);
  upright.orientation = Vec3(M_PI / 2, 0.0, 0.0);
  const Mat3 Ru = rotation::matrix(upright.orientation);
  const Vec3 undo(-M_PI / 2, 0.0, 0.0);  // markers on the upright aligned with the global axes
  BodyRow upper = freeBody(2, "upper arm", 0.5 * (upperInner + upperOuter), 2.0);
  BodyRow lower = freeBody(3, "lower arm", 0.5 * (lowerInner + lowerOuter), 3.0);
  p.bodies = {ground, upright, upper, lower};
  p.markers = {MarkerRow{1, "wheel centre", 1, Vec3::Zero(), Vec3::Zero()},
               MarkerRow{2, "upper outer (upright)", 1, Ru.transpose() * (upperOuter - centre), undo},
               MarkerRow{3, "lower outer (upright)", 1, Ru.transpose() * (lowerOuter - centre), undo},
               MarkerRow{4, "upper outer (arm)", 2, upperOuter - upper.position, Vec3::Zero()},
               MarkerRow{5, "upper inner (arm)", 2, upperInner - upper.position, Vec3::Zero()},
               MarkerRow{6, "lower outer (arm)", 3, lowerOuter - lower.position, Vec3::Zero()},
               MarkerRow{7, "lower inner (arm)", 3, lowerInner - lower.position, Vec3::Zero()},
               MarkerRow{8, "upper inner (ground)", 0, upperInner, Vec3::Zero()},
               MarkerRow{9, "lower inner (ground)", 0, lowerInner, Vec3::Zero()}};
  p.bushings = {joint(1, 4, 2, 0, 0.0), joint(2, 6, 3, 0, 0.0), joint(3, 5, 8, 0, 0.0), joint(4, 7, 9, 0, 3000.0)};
  p.wheels = {wheelOnItself(radius)};
  return p;
}

/// A steered knuckle on two spherical joints to the ground (upper A, lower B: the kingpin), a
/// wheel on a bearing, a tie rod (a stiff P2P element) from a driven rack to a steering arm
/// behind the axis. The wheel centre lies on the kingpin (turning about AB does not lift it, so
/// holding its height does not fight the stiff joints); the contact point does not, so scrub
/// radius and trail are not zero. Steering axis: the markers A, B on the knuckle, or
/// (screw = true) the rack input.
Project kingpinKnuckle(bool screw) {
  Project p;
  p.gravity = Vec3::Zero();
  const Vec3 A(-0.02, 0.68, 0.55), B(0.01, 0.74, 0.15), c(-0.002, 0.716, 0.31), arm(-0.15, 0.72, 0.25),
      rack(-0.15, 0.35, 0.25);
  BodyRow rackBody = groundBody();
  rackBody.id = 50;
  rackBody.name = "rack";
  BodyRow wheel = freeBody(2, "wheel", c, 20.0);
  wheel.orientation = Vec3(M_PI / 2, 0.0, 0.0);  // body x along the axle (+y)
  BodyRow knuckle = freeBody(1, "knuckle", Vec3(0.0, 0.75, 0.3), 15.0);
  knuckle.orientation = Vec3(0.3, -0.2, 0.1);  // a turned body frame: the axis is found in global axes
  p.bodies = {groundBody(), rackBody, knuckle, wheel};
  const Vec3 k0 = knuckle.position;
  const Mat3 Rk = rotation::matrix(knuckle.orientation);
  auto local = [&](const Vec3& x) { return Vec3(Rk.transpose() * (x - k0)); };
  const Vec3 axle = rotation::anglesFromMatrix(Rk.transpose() * rotation::matrix(Vec3(M_PI / 2, 0.0, 0.0)));
  const Vec3 aligned = rotation::anglesFromMatrix(Rk.transpose());
  p.markers = {MarkerRow{1, "wheel centre", 2, Vec3::Zero(), Vec3::Zero()},
               MarkerRow{2, "bearing (knuckle)", 1, local(c), axle},
               MarkerRow{3, "A (knuckle)", 1, local(A), aligned},
               MarkerRow{4, "B (knuckle)", 1, local(B), aligned},
               MarkerRow{5, "A (ground)", 0, A, Vec3::Zero()},
               MarkerRow{6, "B (ground)", 0, B, Vec3::Zero()},
               MarkerRow{7, "steering arm", 1, local(arm), Vec3::Zero()},
               MarkerRow{8, "rack end", 50, rack, Vec3::Zero()}};
  BushingRow bearing = joint(1, 1, 2, 0, 0.0);  // turns about the J marker's x axis: the axle
  BushingRow upper = joint(2, 3, 5, 0, 0.0), lower = joint(3, 4, 6, 0, 0.0);
  for (BushingRow* b : {&upper, &lower})
    for (int d = 3; d < 6; ++d) b->directions[d].stiffness.coefficient = 0.0;  // spherical
  p.bushings = {bearing, upper, lower};
  P2PRow rod;
  rod.id = 1;
  rod.name = "tie rod";
  rod.markerI = 7;
  rod.markerJ = 8;
  rod.spring.coefficient = 1e10;
  p.p2ps = {rod};
  p.inputs = {InputRow{1, "rack travel", 8, InputKind::Translation, InputFrame::Global, Vec3::UnitY()}};
  WheelRow w = wheelOnItself(0.31);
  w.carrier = 1;
  if (screw) w.steeringInput = 1;
  else w.steeringAxis = std::array<int, 2>{3, 4};
  p.wheels = {w};
  return p;
}

double metric(const std::vector<KcMetric>& ms, const std::string& name, const std::string& wheel = "") {
  for (const auto& m : ms)
    if (m.name == name && (wheel.empty() || m.wheel == wheel)) return m.value;
  return std::numeric_limits<double>::quiet_NaN();
}

/// Wheel channels at an equilibrium under the design loads plus `extra` on one wheel's load.
std::array<double, kWheelChannels> channelsUnder(const SuspensionModel& m, const KcDesign& d, int wheel, int load,
                                                 double extra) {
  State s = d.state;
  Workspace ws(m);
  VecX loads = d.wheelLoads;
  loads[kWheelLoads * wheel + load] += extra;
  solveEquilibrium(m, VecX::Zero(m.nInputs()), s, ws, 1e-9, 2000, {}, 0.0, &loads);
  return wheelChannels(m.wheels[wheel], ws);
}

/// The same with every wheel centre's height held at the design's (the pads' forces solve for it).
std::array<double, kWheelChannels> channelsUnderHeldHeights(const SuspensionModel& m, const KcDesign& d, int wheel,
                                                            int load, double extra) {
  State s = d.state;
  Workspace ws(m);
  VecX loads = d.wheelLoads;
  loads[kWheelLoads * wheel + load] += extra;
  std::vector<WheelHeight> held;
  for (std::size_t w = 0; w < m.wheels.size(); ++w) held.push_back({static_cast<int>(w), d.centreZ[w]});
  solveEquilibrium(m, VecX::Zero(m.nInputs()), s, ws, 1e-9, 2000, held, 0.0, &loads);
  return wheelChannels(m.wheels[wheel], ws);
}

}  // namespace

class TestKc : public QObject {
  Q_OBJECT
 private slots:
  /// Swing axle: camber = -asin(travel / arm) exactly (pivot at the wheel centre's height);
  /// trailing arm: the wheel centre moves on a circle, x = arm (1 - cos(asin(travel / arm))).
  void singlePivot() {
    const double arm = 0.75, radius = 0.3;
    for (bool swing : {true, false}) {
      const auto model = SuspensionModel::build(::singlePivot(swing, arm, radius));
      KcOptions o;
      o.from = -0.08;
      o.to = 0.08;
      o.points = 33;
      const KcResult r = runKc(*model, o);
      QCOMPARE(int(r.sweep.size()), 33);
      const int camber = r.column("wheel camber"), cx = r.column("wheel centre x"), cz = r.column("wheel centre z");
      QVERIFY(camber >= 0 && cx >= 0 && cz >= 0);
      double worst = 0.0;
      for (std::size_t k = 0; k < r.sweep.size(); ++k) {
        const double s = r.sweep[k];
        QVERIFY(std::abs(r.values[k][cz] - (radius + s)) < 1e-9);
        const double phi = std::asin(s / arm);
        const double err = swing ? std::abs(r.values[k][camber] + phi)
                                 : std::abs(r.values[k][cx] - arm * (1.0 - std::cos(phi)));
        worst = std::max(worst, err);
      }
      qInfo("%s: worst error %.2e %s", swing ? "swing axle camber" : "trailing arm wheel centre x", worst,
            swing ? "rad" : "m");
      QVERIFY2(worst < 1e-7, qPrintable(QString::number(worst)));
    }
  }

  /// Parallel equal arms: the upright translates, so camber stays zero over the whole travel (up
  /// to the joints' elastic deflection);
  /// inclined arms: the roll centre by the instant-centre construction, to 1 mm.
  void doubleWishbone() {
    const double radius = 0.3;
    const Vec3 centre(0.0, 0.75, radius);
    {
      const auto model = SuspensionModel::build(planarDoubleWishbone(
          Vec3(0, 0.35, 0.50), Vec3(0, 0.70, 0.50), Vec3(0, 0.35, 0.15), Vec3(0, 0.70, 0.15), centre, radius));
      KcOptions o;
      o.points = 17;
      const KcResult r = runKc(*model, o);
      const int camber = r.column("wheel camber");
      double worst = 0.0;
      for (const auto& row : r.values) worst = std::max(worst, std::abs(row[camber]));
      qInfo("parallel equal arms: largest camber over +-80 mm %.2e rad, bump camber %.2e deg/m", worst,
            metric(r.metrics, "bump camber"));
      // What is left is the joints' elastic deflection (stiffness 1e10 N/m against ~2 kN).
      QVERIFY(worst < 2e-6);
      QVERIFY(std::abs(metric(r.metrics, "bump camber")) < 1e-3);
    }
    {
      const Vec3 ui(0, 0.40, 0.52), uo(0, 0.68, 0.48), li(0, 0.30, 0.12), lo(0, 0.72, 0.14);
      const auto model = SuspensionModel::build(planarDoubleWishbone(ui, uo, li, lo, centre, radius));
      const KcDesign d = solveDesign(*model);
      const auto ms = designMetrics(*model, d);
      // Instant centre: the arms' lines in the front view (y, z); the roll centre where the line
      // from the contact point (0.75, 0) through it crosses y = 0.
      auto lineThrough = [](const Vec3& a, const Vec3& b) { return Eigen::Vector2d(b.y() - a.y(), b.z() - a.z()); };
      Eigen::Matrix2d M;
      M << lineThrough(ui, uo), -lineThrough(li, lo);
      const Eigen::Vector2d t = M.lu().solve(Eigen::Vector2d(li.y() - ui.y(), li.z() - ui.z()));
      const Eigen::Vector2d ic = Eigen::Vector2d(ui.y(), ui.z()) + t[0] * lineThrough(ui, uo);
      const Eigen::Vector2d cp(0.75, 0.0);
      const double rcHeight = cp.y() + (ic.y() - cp.y()) * (0.0 - cp.x()) / (ic.x() - cp.x());
      const double got = metric(ms, "roll centre height (above the contact points)") / 1000.0;
      qInfo("inclined arms: instant centre (%.4f, %.4f) m, roll centre %.5f m by construction, %.5f m computed",
            ic.x(), ic.y(), rcHeight, got);
      QVERIFY(std::abs(got - rcHeight) < 1e-3);
      // The same at every sweep point as channels: the instant centre (front view) and the roll
      // centre at the design point of a 3-point sweep.
      KcOptions o;
      o.from = -0.01;
      o.to = 0.01;
      o.points = 3;
      const KcResult r = runKc(*model, o);
      const double icY = r.values[1][r.column("wheel instant centre front view y")],
                   icZ = r.values[1][r.column("wheel instant centre front view z")],
                   rcZ = r.values[1][r.column("roll centre height")];
      qInfo("instant centre channel (%.5f, %.5f) m, roll centre channel %.5f m", icY, icZ, rcZ);
      QVERIFY(std::abs(icY - ic.x()) < 1e-3 && std::abs(icZ - ic.y()) < 1e-3);
      QVERIFY(std::abs(rcZ - got) < 1e-6);
      // The side view: both arms turn about x only, so the carrier does not turn in it.
      QVERIFY(std::isnan(r.values[1][r.column("wheel instant centre side view x")]));
    }
  }

  /// The compliances as the joints stiffen: every translational rate of 1e7 N/m or more raised
  /// to k. Against a dense reference (the stiffness assembled and solved by a complete orthogonal
  /// decomposition, least squares, so the free wheel spin takes no part) to 1e-7, and against
  /// central differences of equilibria (+-5 N: at +-0.5 N the equilibria's round-off, 1e-5 N of
  /// force through 1e11 N/m, shows at 2e-5) to 1e-5. Before the solve refined its residual the
  /// regularization (1e-12 of the stiffest joint's rate) and the block elimination's round-off
  /// left 4.6e-4 at 1e11 N/m.
  void complianceWithStiffJoints_data() {
    QTest::addColumn<double>("k");
    QTest::newRow("1e9 N/m") << 1e9;
    QTest::newRow("1e11 N/m") << 1e11;
  }
  void complianceWithStiffJoints() {
    QFETCH(double, k);
    Project p = readProject(kProjects + std::string("quarter_double_wishbone.json"));
    int raised = 0;
    for (auto& b : p.bushings)
      for (int d = 0; d < 3; ++d)
        if (auto& s = b.directions[d].stiffness; !s.curve && s.coefficient >= 1e7) {
          s.coefficient = k;
          ++raised;
        }
    QVERIFY(raised > 0);
    const auto model = SuspensionModel::build(p);
    const KcDesign d = solveDesign(*model, 1e-9);
    Workspace ws(*model);
    linearize(*model, d.state, VecX::Zero(model->nInputs()), ws, &d.wheelLoads);
    const BlockPattern& bp = model->pattern;
    MatX A = MatX::Zero(model->nDof(), model->nDof());
    for (int row = 0; row < bp.nBodies; ++row)
      for (int s = bp.rowStart[row]; s < bp.rowStart[row + 1]; ++s) {
        Mat6 b = -ws.Jr[s];
        b.rightCols<3>() = b.rightCols<3>() * ws.Kinv[bp.col[s]];  // columns in body-twist increments
        A.block<6, 6>(6 * row, 6 * bp.col[s]) = b;
      }
    Eigen::CompleteOrthogonalDecomposition<MatX> cod(A);
    cod.setThreshold(1e-15);
    QCOMPARE(int(cod.rank()), model->nDof() - 1);  // the wheel's spin is free
    double worstDense = 0.0, worstFd = 0.0;
    for (int load : {int(kFxContact), int(kFyContact), int(kMzContact), int(kFxCentre)}) {
      const MatX c = wheelCompliance(*model, d, 0, load);
      VecX b, g;
      wheelLoadColumn(*model, ws, 0, load, b);
      const VecX dq = cod.solve(b);
      const auto plus = channelsUnder(*model, d, 0, load, 5.0), minus = channelsUnder(*model, d, 0, load, -5.0);
      for (int ch : {int(kToe), int(kCamber), int(kCentreX), int(kCentreY), int(kCentreZ)}) {
        wheelChannelGradient(*model, ws, 0, ch, g);
        for (int l = 0; l < model->nFreeBodies(); ++l)
          g.segment<3>(6 * l + 3) = ws.Kinv[l].transpose() * g.segment<3>(6 * l + 3);
        const double dense = g.dot(dq), fd = (plus[ch] - minus[ch]) / 10.0;
        const double eDense = std::abs(c(0, ch) - dense) / std::abs(dense), eFd = std::abs(c(0, ch) - fd) / std::abs(fd);
        worstDense = std::max(worstDense, eDense);
        worstFd = std::max(worstFd, eFd);
        QVERIFY2(eDense < 1e-7 && eFd < 1e-5,
                 qPrintable(QString("load %1, channel %2: analytic %3, dense %4, differences %5")
                                .arg(kWheelLoadNames[load]).arg(kWheelComponents[ch]).arg(c(0, ch), 0, 'g', 10)
                                .arg(dense, 0, 'g', 10).arg(fd, 0, 'g', 10)));
      }
    }
    qInfo("%d joint directions at %.0e N/m: worst relative difference to the dense solve %.2e, to the "
          "differences %.2e", raised, k, worstDense, worstFd);
  }

  /// -C J_r^-1 B against central differences of equilibria (+-0.5 N, vertical forces held or the
  /// wheel heights held: then the heights' compliance is below 1e-12 m/N), and
  /// the travel rates against differences of held equilibria (+-0.5 mm), on the shipped axles.
  void complianceMatchesEquilibria_data() {
    QTest::addColumn<QString>("project");
    QTest::newRow("quarter double wishbone") << "quarter_double_wishbone.json";
    QTest::newRow("double wishbone") << "double_wishbone.json";
    QTest::newRow("multilink") << "multilink.json";
  }
  void complianceMatchesEquilibria() {
    QFETCH(QString, project);
    const auto model = SuspensionModel::build(readProject(kProjects + project.toStdString()));
    const SuspensionModel& m = *model;
    const KcDesign d = solveDesign(m, 1e-9);
    double worst = 0.0;
    for (PadsHold pads : {PadsHold::VerticalForces, PadsHold::Heights})
      for (int load : {int(kFxContact), int(kFyContact), int(kMzContact), int(kFxCentre)}) {
        const double delta = 0.5;  // [N] or [N m]: the axles' curves make larger steps' differences nonlinear
        const MatX c = wheelCompliance(m, d, 0, load, pads);
        const bool heights = pads == PadsHold::Heights;
        const auto plus = heights ? channelsUnderHeldHeights(m, d, 0, load, delta) : channelsUnder(m, d, 0, load, delta);
        const auto minus = heights ? channelsUnderHeldHeights(m, d, 0, load, -delta) : channelsUnder(m, d, 0, load, -delta);
        for (int ch : {int(kToe), int(kCamber), int(kCentreX), int(kCentreY), int(kCentreZ)}) {
          const double fd = (plus[ch] - minus[ch]) / (2 * delta);
          if (heights && ch == kCentreZ) {  // held: no difference to compare with, zero to round-off
            QVERIFY2(std::abs(c(0, ch)) < 1e-12, qPrintable(QString("held height moves %1 per load").arg(c(0, ch))));
            continue;
          }
          const double e = std::abs(c(0, ch) - fd) / std::max(std::abs(fd), 1e-12);
          worst = std::max(worst, e);
          QVERIFY2(e < 1e-5, qPrintable(QString("%1, load %2, channel %3: analytic %4, differences %5")
                                            .arg(heights ? "heights held" : "vertical forces held")
                                            .arg(kWheelLoadNames[load]).arg(kWheelComponents[ch]).arg(c(0, ch)).arg(fd)));
        }
      }
    // Bump steer and wheel rate: held equilibria at +-0.5 mm of parallel travel.
    const auto ms = designMetrics(m, d);
    KcOptions o;
    o.from = -0.0005;
    o.to = 0.0005;
    o.points = 3;
    o.tolerance = 1e-9;
    const KcResult r = runKc(m, o);
    const std::string w = m.wheels[0].name;
    const double toeRate = (r.values[2][r.column(w + " toe")] - r.values[0][r.column(w + " toe")]) / 0.001;
    const double forceRate =
        (r.values[2][r.column(w + " vertical force")] - r.values[0][r.column(w + " vertical force")]) / 0.001;
    const double eSteer = std::abs(metric(ms, "bump steer", w) - toeRate * 180 / M_PI) / std::abs(toeRate * 180 / M_PI);
    const double eRate = std::abs(metric(ms, "wheel rate", w) - forceRate / 1000) / std::abs(forceRate / 1000);
    qInfo("worst relative difference: compliances %.2e, bump steer %.2e, wheel rate %.2e", worst, eSteer, eRate);
    QVERIFY2(eSteer < 1e-4, qPrintable(QString::number(eSteer)));
    QVERIFY2(eRate < 1e-4, qPrintable(QString::number(eRate)));
  }

  /// Metrics per analysis, each by the definition of its sweep (issue: single-travel printed the
  /// parallel wheel rate; static-load loads both wheels while the compliances load one): the
  /// single-wheel rate, bump steer and the opposite wheel's force against a single-travel sweep of
  /// +-0.1 mm, and the static-load slopes (every wheel, and one wheel) against a sweep of +-1 N,
  /// central differences, to 2e-6 (relative to 0.01 deg/kN or mm/kN at least for the slopes):
  /// the differences' own floor here (at +-0.01 mm and +-0.1 N the equilibria's round-off makes
  /// them 1.5e-6 worse, at +-0.4 mm and +-4 N their truncation 7e-6); 1.3e-6 the largest seen. With the anti-roll bar the single-wheel rate exceeds the
  /// parallel one and the opposite wheel's force falls.
  void metricsFollowTheirSweeps_data() {
    QTest::addColumn<QString>("project");
    QTest::newRow("double wishbone") << "double_wishbone.json";
    QTest::newRow("MacPherson") << "macpherson_front.json";
    QTest::newRow("multilink") << "multilink.json";
    QTest::newRow("twist beam") << "twist_beam_rear.json";
  }
  void metricsFollowTheirSweeps() {
    QFETCH(QString, project);
    const auto model = SuspensionModel::build(readProject(kProjects + project.toStdString()));
    const SuspensionModel& m = *model;
    const std::vector<KcMetric> ms = designMetrics(m, solveDesign(m, 1e-10));
    const std::string w = m.wheels[0].name, other = m.wheels[1].name;
    double worst = 0.0;
    // Relative, with a floor for slopes near zero (a multilink's lateral toe of 1e-4 deg/kN).
    auto check = [&](const char* what, double metricValue, double sweepValue, double floor = 0.0) {
      const double e = std::abs(metricValue - sweepValue) / std::max(std::abs(sweepValue), floor);
      worst = std::max(worst, e);
      QVERIFY2(e < 2e-6, qPrintable(QString("%1: metric %2, sweep %3").arg(what).arg(metricValue, 0, 'g', 10).arg(sweepValue, 0, 'g', 10)));
    };
    KcOptions o = defaultKcOptions(KcKind::SingleTravel);
    o.wheel = 0;
    o.from = -1e-4;
    o.to = 1e-4;
    o.points = 3;
    o.tolerance = 1e-13;
    KcResult r = runKc(m, o);
    auto rate = [&](const std::string& column, double h) {
      const int c = r.column(column);
      if (c < 0) throw std::runtime_error("no column " + column);
      return (r.values[2][c] - r.values[0][c]) / (2.0 * h);
    };
    const double single = metric(ms, "wheel rate, single wheel (other wheels held)", w);
    check("single-wheel rate", single, rate(w + " vertical force", 1e-4) / 1000.0);
    check("single-wheel bump steer", metric(ms, "bump steer, single wheel (other wheels held)", w),
          rate(w + " toe", 1e-4) * 180.0 / M_PI);
    const double opposite = metric(ms, "opposite wheel force per single-wheel bump", w);
    check("opposite wheel force", opposite, rate(other + " vertical force", 1e-4) / 1000.0);
    const double parallel = metric(ms, "wheel rate", w);
    qInfo("wheel rate: single wheel %.4f N/mm, parallel %.4f N/mm, opposite wheel %.4f N/mm", single, parallel, opposite);
    QVERIFY(single > parallel && opposite < 0.0);  // the bar: stiffer alone, unloads the other side

    for (int loaded : {-1, 0}) {
      KcOptions s = defaultKcOptions(KcKind::StaticLoad);
      s.load = kFyContact;
      s.wheel = loaded;
      s.from = -1.0;
      s.to = 1.0;
      s.points = 3;
      s.tolerance = 1e-13;
      r = runKc(m, s);
      const std::string how = std::string(kWheelLoadNames[kFyContact]) + " on " + (loaded < 0 ? "every wheel" : w + " only");
      for (const std::string& wheel : {w, other}) {
        check("static-load toe slope", metric(r.metrics, "static-load slope, toe (" + how + ")", wheel),
              rate(wheel + " toe", 1.0) * 1000.0 * 180.0 / M_PI, 0.01);
        check("static-load wheel centre y slope", metric(r.metrics, "static-load slope, wheel centre y (" + how + ")", wheel),
              rate(wheel + " centre y", 1.0) * 1e6, 0.01);
      }
      if (loaded == 0)  // one wheel loaded: its slope is the compliance metric's (signs as the metric's)
        check("one wheel = lateral toe compliance", -m.wheels[0].side * metric(r.metrics, "static-load slope, toe (" + how + ")", w),
              metric(ms, "toe compliance, lateral force inboard (at contact)", w));
    }
    qInfo("largest relative difference metric vs sweep: %.2e", worst);
  }

  /// Signs (ISO 8855, loads in the directions they have in use): the shipped axles are built as
  /// mirror images of one corner, so every per-wheel metric is the same on both sides; and the
  /// compliances have the signs the load directions give them: braking toe = -(toe per +Fx at
  /// the contact), lateral toe = -side x (toe per +Fy), recession and inboard compliance positive.
  void metricsAreSymmetric_data() {
    QTest::addColumn<QString>("project");
    QTest::newRow("double wishbone") << "double_wishbone.json";
    QTest::newRow("multilink") << "multilink.json";
    QTest::newRow("twist beam") << "twist_beam_rear.json";
  }
  void metricsAreSymmetric() {
    QFETCH(QString, project);
    const auto model = SuspensionModel::build(readProject(kProjects + project.toStdString()));
    const SuspensionModel& m = *model;
    QCOMPARE(int(m.wheels.size()), 2);
    QVERIFY(m.wheels[0].side > 0 && m.wheels[1].side < 0);
    const KcDesign d = solveDesign(m, 1e-10);
    const auto ms = designMetrics(m, d);
    const std::string left = m.wheels[0].name, right = m.wheels[1].name;
    int pairs = 0;
    double worst = 0.0;
    for (const auto& a : ms) {
      if (a.wheel != left) continue;
      double b = metric(ms, a.name, right);
      if (!std::isfinite(b)) {  // a metric of an element of one side: its mirror image's
        std::string mirrored = a.name;
        const auto at = mirrored.rfind(" left");
        if (at != std::string::npos) mirrored.replace(at, 5, " right");
        b = metric(ms, mirrored, right);
      }
      QVERIFY2(std::isfinite(b), qPrintable(QString::fromStdString(a.name + ": no right-wheel value")));
      const double e = std::abs(a.value - b) / std::max(std::abs(a.value), 1e-6);
      worst = std::max(worst, e);
      QVERIFY2(e < 1e-7, qPrintable(QString("%1: left %2, right %3").arg(QString::fromStdString(a.name)).arg(a.value).arg(b)));
      ++pairs;
    }
    for (const auto& a : ms)  // every metric says what its positive value means (--metrics "sign")
      QVERIFY2(*kcMetricSign(a.name), qPrintable(QString::fromStdString(a.name)));
    qInfo("%d per-wheel metrics, largest left/right difference %.2e relative", pairs, worst);
    QVERIFY(pairs >= 20);
    for (int w = 0; w < 2; ++w) {
      const std::string& name = m.wheels[w].name;
      const double side = m.wheels[w].side, toDegPerKn = 180.0 / M_PI * 1000.0;
      const MatX brake = wheelCompliance(m, d, w, kFxContact), lateral = wheelCompliance(m, d, w, kFyContact);
      auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
      QVERIFY(near(metric(ms, "toe compliance, braking (-Fx at contact)", name), -brake(w, kToe) * toDegPerKn));
      QVERIFY(near(metric(ms, "toe compliance, lateral force inboard (at contact)", name),
                   -side * lateral(w, kToe) * toDegPerKn));
      QVERIFY(metric(ms, "wheel centre recession, braking (-Fx at contact)", name) > 0.0);
      QVERIFY(metric(ms, "wheel centre inboard compliance, lateral force inboard (at contact)", name) > 0.0);
      // An inboard force at the ground tilts the wheel's top outboard: positive camber.
      QVERIFY(metric(ms, "camber compliance, lateral force inboard (at contact)", name) > 0.0);
    }
  }

  /// Motion ratios against central differences of held equilibria (the left wheel centre at
  /// +-0.5 mm, the right one held at its design height): each P2P element's length and the
  /// anti-roll bar's relative rotation about its J marker's x axis.
  void motionRatiosMatchEquilibria() {
    const auto model = SuspensionModel::build(readProject(kProjects + "double_wishbone.json"));
    const SuspensionModel& m = *model;
    const KcDesign d = solveDesign(m, 1e-10);
    const auto ms = designMetrics(m, d);
    const double h = 0.0005;
    std::vector<Workspace> at;
    for (double dz : {h, -h}) {
      State s = d.state;
      Workspace ws(m);
      solveEquilibrium(m, VecX::Zero(m.nInputs()), s, ws, 1e-10, 2000,
                       {WheelHeight{0, d.centreZ[0] + dz}, WheelHeight{1, d.centreZ[1]}});
      at.push_back(std::move(ws));
    }
    int checked = 0;
    for (const ModelP2P& e : m.p2ps) {
      const double value = metric(ms, "motion ratio, " + e.name + " (compression per wheel travel)", "wheel left");
      if (e.name.find("left") == std::string::npos) {
        QVERIFY(!std::isfinite(value));  // the right side's elements belong to the right wheel
        continue;
      }
      auto length = [&](const Workspace& ws) { return (ws.markers[e.i.value].p - ws.markers[e.j.value].p).norm(); };
      const double fd = -(length(at[0]) - length(at[1])) / (2 * h);
      qInfo("%-22s motion ratio %.6f, differences %.6f", e.name.c_str(), value, fd);
      QVERIFY2(std::abs(value - fd) < 1e-4 * std::abs(fd), qPrintable(QString::fromStdString(e.name)));
      ++checked;
    }
    QCOMPARE(checked, 4);  // spring, damper, bump and rebound stop of the left corner
    const ModelBushing* bar = nullptr;
    for (const auto& b : m.bushings)
      if (b.name == "anti-roll bar torsion") bar = &b;
    QVERIFY(bar);
    auto relative = [&](const Workspace& ws) { return Mat3(ws.markers[bar->j.value].R.transpose() * ws.markers[bar->i.value].R); };
    const Eigen::AngleAxisd turn(Mat3(relative(at[0]) * relative(at[1]).transpose()));
    const double fd = (turn.angle() * turn.axis()).x() / (2 * h) * 180 / M_PI / 1000;  // deg/mm
    const double twist = metric(ms, "anti-roll bar twist, anti-roll bar torsion (per wheel travel)", "wheel left");
    qInfo("anti-roll bar twist %.6f deg/mm, differences %.6f deg/mm", twist, fd);
    QVERIFY(std::abs(twist - fd) < 1e-3 * std::abs(fd));
    QVERIFY(std::abs(fd) > 1e-3);
  }

  /// The roll stiffness and the anti-roll bar's part of it against equilibria rolled by +-phi
  /// (the wheel heights held at +-track/2 phi): the roll moment of the pad forces about the design
  /// contact points per roll angle,
  /// and the bar's stiffness along the roll motion, sum k (deflection per roll angle)^2 over its
  /// bushings (deflections from the markers' poses) and omega^2 (modal coordinate per roll
  /// angle)^2 over a flexible bar's modes.
  void rollStiffnessOfTheBarMatchesEquilibria_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("group");  // the subsystem of the roll spring: bar, or a twist beam's arms and cross member
    for (const char* p : {"double_wishbone", "double_wishbone_flexible_bar"}) QTest::newRow(p) << p << "anti-roll bar";
    QTest::newRow("twist_beam_rear") << "twist_beam_rear" << "twist beam";
  }
  void rollStiffnessOfTheBarMatchesEquilibria() {
    QFETCH(QString, project);
    QFETCH(QString, group);
    const auto model = SuspensionModel::build(readProject(kProjects + project.toStdString() + ".json"));
    const SuspensionModel& m = *model;
    const int n = static_cast<int>(m.wheels.size());
    const KcDesign d = solveDesign(m, 1e-11);
    const auto ms = designMetrics(m, d);
    int left = -1, right = -1;
    for (int w = n - 1; w >= 0; --w) (m.wheels[w].side > 0 ? left : right) = w;
    double track = 0.0;
    std::vector<double> padY(n, 0.0);
    const double phi = 2e-4;  // [rad]
    struct Rolled {
      State s;
      std::unique_ptr<Workspace> ws;
      double moment = 0.0;
    };
    auto roll = [&](double angle) {
      Rolled r{d.state, std::make_unique<Workspace>(m)};
      std::vector<WheelHeight> held;
      for (int w = 0; w < n; ++w) held.push_back({w, d.centreZ[w] + m.wheels[w].side * angle * track / 2.0});
      VecX loads = d.wheelLoads;
      solveEquilibrium(m, VecX::Zero(m.nInputs()), r.s, *r.ws, 1e-11, 2000, held, 0.0, &loads);
      // About the design contact points, as a rig's pads measure it (docs/analyses.md).
      for (int w = 0; w < n; ++w) r.moment += loads[kWheelLoads * w + kFzContact] * padY[w];
      return r;
    };
    const Rolled level = roll(0.0);
    const Workspace& design = *level.ws;
    track = wheelChannels(m.wheels[left], design)[kContactY] - wheelChannels(m.wheels[right], design)[kContactY];
    for (int w = 0; w < n; ++w) padY[w] = wheelChannels(m.wheels[w], design)[kContactY];
    const Rolled up = roll(phi), down = roll(-phi);
    const double total = (up.moment - down.moment) / (2 * phi) * M_PI / 180.0;  // N m/deg
    const double toolTotal = metric(ms, "roll stiffness (wheel pads)");
    // The bar's bushings and modes.
    auto isBar = [&](int body) {
      for (const BodyRow& b : m.project().bodies)
        if (b.id == m.bodies[body].id) return b.subsystem == group.toStdString();
      return false;
    };
    double bar = 0.0;
    int parts = 0;
    for (const ModelBushing& b : m.bushings) {
      const int i = b.i.value, j = b.j.value;
      if (!isBar(m.markers[i].body.value) || !isBar(m.markers[j].body.value)) continue;
      auto offset = [&](const Workspace& ws) { return Vec3(ws.markers[j].R.transpose() * (ws.markers[i].p - ws.markers[j].p)); };
      auto relative = [&](const Workspace& ws) { return Mat3(ws.markers[j].R.transpose() * ws.markers[i].R); };
      const Vec3 dt = (offset(*up.ws) - offset(*down.ws)) / (2 * phi);
      const Eigen::AngleAxisd turn(Mat3(relative(*up.ws) * relative(*down.ws).transpose()));
      const Vec3 dr = turn.angle() * turn.axis() / (2 * phi);
      const Vec3 at = offset(design);
      const Eigen::AngleAxisd rest(relative(design));
      const Vec3 angle = rest.angle() * rest.axis();
      for (int k = 0; k < 3; ++k)
        bar += b.stiffness[k].eval(at[k]).dydx * dt[k] * dt[k] + b.stiffness[3 + k].eval(angle[k]).dydx * dr[k] * dr[k];
      ++parts;
    }
    for (const ModelFlexibleBody& f : m.flexibleBodies) {
      if (!isBar(f.body)) continue;
      for (int k = 0; k < f.modes(); ++k) {
        const int at = 6 * (f.firstModalSlot + k / 6) + k % 6;
        const double rate = (up.s.r[at] - down.s.r[at]) / (2 * phi);
        bar += f.modal.stiffness[k] * rate * rate;
      }
      ++parts;
    }
    bar *= M_PI / 180.0;  // N m/deg
    const double toolBar = metric(ms, "roll stiffness of the " + group.toStdString());
    const double toolShare = metric(ms, "roll stiffness share of the " + group.toStdString());
    qInfo("%s: roll stiffness %.3f N m/deg (tool) vs %.3f (equilibria); the bar's %.3f vs %.3f N m/deg, share %.3f %%",
          qPrintable(project), toolTotal, total, toolBar, bar, toolShare);
    QVERIFY(parts > 0);
    QVERIFY2(std::abs(toolTotal - total) < 1e-5 * total, qPrintable(QString("%1 vs %2").arg(toolTotal).arg(total)));
    QVERIFY2(std::abs(toolBar - bar) < 1e-4 * bar, qPrintable(QString("%1 vs %2").arg(toolBar).arg(bar)));
    QVERIFY(std::abs(toolShare - 100.0 * toolBar / toolTotal) < 1e-9 * toolShare);
    QVERIFY(toolShare > 1.0 && toolShare < 100.0);
  }

  /// The twist-beam rear axle (its cross member a flexible body from a CalculiX shell model) against
  /// the class's ranges, its project's targets (projects/README.md names the sources): every target
  /// met, and the metrics that make a twist beam one: the outer wheel's roll camber between a
  /// trailing arm's (0) and a rigid axle's (-1), the beam's share of the roll stiffness, the
  /// single-wheel rate above the parallel one (the beam couples the wheels).
  void twistBeamMeetsTheClassRanges() {
    const Project p = readProject(kProjects + "twist_beam_rear.json");
    const auto model = SuspensionModel::build(p);
    QCOMPARE(model->flexibleBodies.size(), std::size_t(1));
    const auto ms = designMetrics(*model, solveDesign(*model, 1e-10));
    const std::vector<TargetCheck> checks = checkTargets(p, ms);
    int met = 0;
    for (const TargetCheck& c : checks) {
      qInfo("target %d: %-60s %-12s %10.4f  %s", c.id, c.metric.c_str(), c.wheel.c_str(), c.value,
            toString(c.status));
      met += c.status == TargetCheck::Status::Met;
    }
    QCOMPARE(checks.size(), std::size_t(14));  // 8 targets, 6 of them per wheel
    QCOMPARE(met, static_cast<int>(checks.size()));
    const double camber = metric(ms, "roll camber (camber per roll angle, wheel in bump)", "wheel left");
    QVERIFY(camber < -0.1 && camber > -0.9);
    const double share = metric(ms, "roll stiffness share of the twist beam");
    QVERIFY(share > 20.0 && share < 70.0);
    QVERIFY(metric(ms, "wheel rate, single wheel (other wheels held)", "wheel left") > metric(ms, "wheel rate", "wheel left"));
  }

  /// The roll gradient from the vehicle row: the sprung mass rolls about the axis through both
  /// roll centres; phi / a_y = m h' / (K_front + K_rear - m g h'), by hand from the axle's own
  /// metrics. Left out without a sprung mass; not a number where the roll is unstable.
  void rollGradientFromTheVehicleRow() {
    Project p = readProject(kProjects + "double_wishbone.json");
    QVERIFY(p.vehicle.has_value());
    VehicleRow& v = *p.vehicle;
    v.sprungMass = 0.0;  // not given: no roll gradient
    {
      const auto without = SuspensionModel::build(p);
      const auto ms = designMetrics(*without, solveDesign(*without));
      for (const KcMetric& x : ms) QVERIFY(x.name != "roll gradient" && x.name != "roll stiffness share of this axle");
    }
    v.frontAxle = true;
    v.sprungMass = 1500.0;
    v.frontMassShare = 0.55;
    v.otherAxleRollStiffness = 700.0;
    v.otherAxleRollCentreHeight = 0.12;
    const auto model = SuspensionModel::build(p);
    const auto ms = designMetrics(*model, solveDesign(*model, 1e-10));
    const double k = metric(ms, "roll stiffness (wheel pads)") * 180.0 / M_PI;  // N m/rad
    const double kOther = 700.0 * 180.0 / M_PI;
    const double hFront = metric(ms, "roll centre height (above the contact points)") / 1000.0;
    const double a = v.wheelbase * 0.45;  // centre of gravity behind the front axle
    const double arm = v.cgHeight - (hFront + (0.12 - hFront) * a / v.wheelbase);
    const double g = model->gravity.norm();
    const double expected = 1500.0 * arm * 9.80665 / (k + kOther - 1500.0 * g * arm) * 180.0 / M_PI;
    const double got = metric(ms, "roll gradient");
    qInfo("roll gradient %.6f deg/g (by hand %.6f), roll axis %.1f mm below the centre of gravity, front share %.2f %%",
          got, expected, metric(ms, "roll axis height below the centre of gravity"),
          metric(ms, "roll stiffness share of this axle"));
    QVERIFY(std::abs(got - expected) < 1e-9 * expected);
    QVERIFY(got > 0.5 && got < 20.0);
    QVERIFY(std::abs(metric(ms, "roll stiffness share of this axle") - 100.0 * k / (k + kOther)) < 1e-9);
    QVERIFY(std::abs(metric(ms, "roll axis height below the centre of gravity") - arm * 1000.0) < 1e-9);
    // As a rear axle the centre of gravity lies 0.55 wheelbases ahead of it.
    v.frontAxle = false;
    const auto rear = SuspensionModel::build(p);
    const auto rs = designMetrics(*rear, solveDesign(*rear, 1e-10));
    const double armRear = v.cgHeight - (hFront + (0.12 - hFront) * (v.wheelbase * 0.55) / v.wheelbase);
    QVERIFY(std::abs(metric(rs, "roll axis height below the centre of gravity") - armRear * 1000.0) < 1e-6);
    // Gravity's moment beyond both axles' stiffness: no steady roll.
    v.otherAxleRollStiffness = 0.0;
    v.sprungMass = 1e7;
    const auto unstable = SuspensionModel::build(p);
    const auto us = designMetrics(*unstable, solveDesign(*unstable, 1e-10));
    QVERIFY(std::isnan(metric(us, "roll gradient")));
    bool listed = false;
    for (const KcMetric& x : us) listed = listed || x.name == "roll gradient";
    QVERIFY(listed);  // stated, not left out
  }

  /// The papers' car: the double wishbone's and the multilink's vehicle rows hold the full
  /// vehicle's sprung mass and centre of gravity and each other's roll stiffness and roll centre
  /// (as the generator rounds them), so their roll gradients are the same car's.
  void shippedVehicleRowsNameEachOther() {
    const Project full = readProject(kProjects + "full_vehicle.json");
    struct Axle {
      Project p;
      std::vector<KcMetric> ms;
    };
    auto axle = [&](const char* name) {
      Axle a{readProject(kProjects + name)};
      const auto model = SuspensionModel::build(a.p);
      a.ms = designMetrics(*model, solveDesign(*model, 1e-10));
      return a;
    };
    const Axle front = axle("double_wishbone.json"), rear = axle("multilink.json");
    for (const Axle* a : {&front, &rear}) {
      const VehicleRow& v = *a->p.vehicle;
      QCOMPARE(v.sprungMass, full.bodies[0].mass);
      QVERIFY(std::abs(v.wheelbase * (1.0 - v.frontMassShare) + full.bodies[0].position.x()) < 1e-9);  // cg at x = -a
      QVERIFY(std::abs(v.cgHeight - full.bodies[0].position.z()) < 1e-9);
      const Axle& other = a == &front ? rear : front;
      const double k = metric(other.ms, "roll stiffness (wheel pads)");
      const double h = metric(other.ms, "roll centre height (above the contact points)") / 1000.0;
      QVERIFY2(std::abs(v.otherAxleRollStiffness - k) < 1e-4 * k, qPrintable(QString("%1 vs %2").arg(v.otherAxleRollStiffness).arg(k)));
      QVERIFY2(std::abs(v.otherAxleRollCentreHeight - h) < 1e-4, qPrintable(QString("%1 vs %2").arg(v.otherAxleRollCentreHeight).arg(h)));
    }
    // One car, one roll gradient (to the generator's rounding).
    const double g1 = metric(front.ms, "roll gradient"), g2 = metric(rear.ms, "roll gradient");
    qInfo("papers' car: roll gradient %.4f deg/g (from the front axle's project), %.4f (rear); front share %.2f %%",
          g1, g2, metric(front.ms, "roll stiffness share of this axle"));
    QVERIFY(std::abs(g1 - g2) < 1e-3 * g1);
    QVERIFY(std::abs(metric(front.ms, "roll stiffness share of this axle") + metric(rear.ms, "roll stiffness share of this axle") - 100.0) < 0.01);
  }

  /// Targets against constructed metrics: per-wheel expansion, one- and two-sided ranges with
  /// their bounds included, a value that is not finite, an unknown, a renamed and a wheel-less
  /// metric.
  void targetsMetAndMissed() {
    const std::vector<KcMetric> ms = {{"bump steer", "wheel left", "deg/m", -10.0},
                                      {"bump steer", "wheel right", "deg/m", -20.0},
                                      {"roll centre height (above the contact points)", "", "mm", 120.0},
                                      {"wheel rate", "wheel left", "N/mm", std::nan("")}};
    Project p;
    auto target = [&](int id, const std::string& metric, const std::string& wheel, std::optional<double> lower,
                      std::optional<double> upper) {
      TargetRow t;
      t.id = id;
      t.metric = metric;
      t.wheel = wheel;
      t.lower = lower;
      t.upper = upper;
      p.targets.push_back(t);
    };
    target(1, "bump steer", "", -15.0, 15.0);
    target(2, "roll centre height (above the contact points)", "", std::nullopt, 120.0);  // on the bound
    target(3, "wheel rate", "wheel left", 20.0, std::nullopt);
    target(4, "toe stiffness", "", 0.0, std::nullopt);
    target(5, "toe compliance, braking Fx at contact", "wheel left", 0.0, std::nullopt);
    target(6, "bump steer", "wheel middle", 0.0, std::nullopt);
    const auto c = checkTargets(p, ms);
    QCOMPARE(int(c.size()), 7);
    using S = TargetCheck::Status;
    QCOMPARE(c[0].wheel, std::string("wheel left"));
    QVERIFY(c[0].status == S::Met && c[1].status == S::Missed && c[1].value == -20.0);
    QVERIFY(c[2].status == S::Met && c[2].unit == "mm");
    QVERIFY(c[3].status == S::Missed);  // NaN meets no range
    QVERIFY(c[4].status == S::NoMetric && c[4].message.find("no K&C metric 'toe stiffness'") != std::string::npos);
    QVERIFY(c[5].status == S::NoMetric && c[5].message.find("is now 'toe compliance, braking (-Fx at contact)'") != std::string::npos);
    QVERIFY(c[6].status == S::NoMetric && c[6].message.find("not one of the wheel 'wheel middle'") != std::string::npos);
    QCOMPARE(targetRange(c[0]), std::string("[-15, 15] deg/m"));
    QCOMPARE(targetRange(c[2]), std::string("at most 120 mm"));
    QCOMPARE(targetRange(c[3]), std::string("at least 20 N/mm"));
    KcResult r;
    r.metrics = ms;
    const auto doc = nlohmann::json::parse(kcMetricsJson(r, "parallel-travel", c));
    QCOMPARE(doc["targets"].size(), std::size_t(7));
    QCOMPARE(doc["targets"][1]["status"].get<std::string>(), std::string("missed"));
    QVERIFY(doc["targets"][3]["value"].is_null());
    QVERIFY(doc["targets"][2]["lower"].is_null());
  }

  /// Robust load sweeps: the +-5 kN braking-force sweep on the double wishbone with its outer
  /// track rod joints raised 10 mm (21 points, and 41 points to 4.5 kN) converges, and its slope
  /// at the design position is the analytic compliance.
  void loadSweepOnRaisedTrackRods() {
    Project p = readProject(kProjects + "double_wishbone.json");
    std::vector<std::pair<std::string, double>> raised;
    for (int m : {16, 17, 65, 66}) {
      const std::string cell = "markers/" + std::to_string(m) + "/position [m][3]";
      raised.push_back({cell, tableValue(p, cell) + 0.010});
    }
    const auto model = SuspensionModel::build(withTableValues(p, raised));
    for (const auto& [to, points] : {std::pair{5000.0, 21}, std::pair{4500.0, 41}}) {
      KcOptions o = defaultKcOptions(KcKind::StaticLoad);
      o.load = kFxContact;
      o.from = -to;
      o.to = to;
      o.points = points;
      KcResult r;
      try {
        r = runKc(*model, o);
      } catch (const std::exception& e) {
        QFAIL(e.what());
      }
      QCOMPARE(int(r.sweep.size()), points);
      QVERIFY(r.warnings.empty());
      qInfo("+-%.0f N, %d points: %d equilibrium iterations, %d points in smaller steps", to, points, r.iterations,
            r.subdividedPoints);
    }
    // The slope at the design position from a +-1 N sweep against -C J_r^-1 B.
    KcOptions o = defaultKcOptions(KcKind::StaticLoad);
    o.load = kFxContact;
    o.wheel = 0;
    o.from = -1.0;
    o.to = 1.0;
    o.points = 3;
    o.tolerance = 1e-10;
    const KcResult r = runKc(*model, o);
    const int toe = r.column("wheel left toe");
    const double slope = (r.values[2][toe] - r.values[0][toe]) / 2.0;
    const double analytic = wheelCompliance(*model, solveDesign(*model, 1e-10), 0, kFxContact)(0, kToe);
    qInfo("toe per +Fx at the contact: sweep %.6e, analytic %.6e rad/N", slope, analytic);
    QVERIFY(std::abs(slope - analytic) < 1e-3 * std::abs(analytic));
  }

  /// Anti-dive (front) and anti-lift under braking (rear) with outboard brakes follow the carrier-
  /// fixed point at the contact patch (issue 50): the metric equals the jacking force, the change
  /// of the vertical pad force per braking force at the contact points of both wheels (+-1 N, a
  /// static equilibrium with the wheel heights held as on a K&C rig), times wheelbase / CG height
  /// and the axle's brake share, on every shipped axle with vehicle data. (The geometric contact
  /// point, which does not follow the carrier's pitch, gave 0.50 % instead of 11.9 % on the
  /// MacPherson axle.)
  /// Every anti metric (from the analytic linearization) against the jacking force of the
  /// nonlinear model: a held-height static equilibrium with 1 N of
  /// longitudinal force at both wheels, at the contact point (outboard brakes: the carrier reacts
  /// the brake torque) or at the wheel centre (inboard brakes and traction: the drive shaft reacts
  /// it); vertical pad force per N of force x wheelbase / cg height x share x 100 gives the anti
  /// figure the metric must equal, within 1e-5 relative. Every shipped axle with a `vehicle`
  /// object, outboard and inboard brakes, front and rear drive.
  void antiFeaturesEqualTheJackingForce_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<bool>("inboard");
    for (const char* p : {"macpherson_front", "double_wishbone", "double_wishbone_viscoelastic",
                          "double_wishbone_flexible_bar", "quarter_double_wishbone", "multilink"})
      for (bool inboard : {false, true})
        QTest::newRow(qPrintable(QString("%1, %2 brakes").arg(p, inboard ? "inboard" : "outboard"))) << p << inboard;
  }
  void antiFeaturesEqualTheJackingForce() {
    QFETCH(QString, project);
    QFETCH(bool, inboard);
    Project p = readProject(kProjects + project.toStdString() + ".json");
    QVERIFY(p.vehicle.has_value());
    p.vehicle->inboardBrakes = inboard;
    p.vehicle->frontDriveShare = 0.4;  // both axles driven: traction metrics on either
    const auto model = SuspensionModel::build(p);
    const SuspensionModel& m = *model;
    const VehicleRow& v = *m.project().vehicle;
    const KcDesign design = solveDesign(m, 1e-10);
    const std::vector<KcMetric> ms = designMetrics(m, design);
    std::vector<WheelHeight> held;
    for (int w = 0; w < static_cast<int>(m.wheels.size()); ++w) held.push_back({w, design.centreZ[w]});
    // -d(pad force of wheel 0)/d(force along +x at `load` on every wheel)
    auto perForce = [&](int load) {
      auto pad = [&](double fx) {
        State s = design.state;
        Workspace ws(m);
        VecX loads = design.wheelLoads;
        for (int w = 0; w < static_cast<int>(m.wheels.size()); ++w) loads[kWheelLoads * w + load] = fx;
        solveEquilibrium(m, VecX::Zero(m.nInputs()), s, ws, 1e-10, 2000, held, 0.0, &loads);
        return loads[kFzContact];
      };
      return -(pad(1.0) - pad(-1.0)) / 2.0;
    };
    const double lever = v.wheelbase / v.cgHeight, s = v.frontAxle ? 1.0 : -1.0;
    const double brakeShare = v.frontAxle ? v.frontBrakeShare : 1.0 - v.frontBrakeShare;
    const double driveShare = v.frontAxle ? v.frontDriveShare : 1.0 - v.frontDriveShare;
    const double centre = perForce(kFxCentre);
    const double braking = s * (inboard ? centre : perForce(kFxContact)) * lever * brakeShare * 100.0;
    const double traction = s * centre * lever * driveShare * 100.0;
    const std::string brakeName = v.frontAxle ? "anti-dive (braking)" : "anti-lift (braking)";
    const std::string driveName = v.frontAxle ? "anti-lift (traction)" : "anti-squat (traction)";
    const double toolBraking = metric(ms, brakeName, "wheel left"), toolTraction = metric(ms, driveName, "wheel left");
    qInfo("%s, %s brakes: %s %.6f %% (tool) vs %.6f %% (jacking force); %s %.6f %% vs %.6f %%", qPrintable(project),
          inboard ? "inboard" : "outboard", brakeName.c_str(), toolBraking, braking, driveName.c_str(), toolTraction,
          traction);
    QVERIFY2(std::abs(toolBraking - braking) <= 1e-5 * std::max(1.0, std::abs(braking)),
             qPrintable(QString("braking: tool %1 %, jacking %2 %").arg(toolBraking).arg(braking)));
    QVERIFY2(std::abs(toolTraction - traction) <= 1e-5 * std::max(1.0, std::abs(traction)),
             qPrintable(QString("traction: tool %1 %, jacking %2 %").arg(toolTraction).arg(traction)));
    // The swing arm's angle is the anti figure's geometry, tan(angle) x lever x share: equal to the
    // force-based figure where the stiffness is symmetric (Maxwell-Betti), close on these axles,
    // whose preloaded bushings make it slightly unsymmetric.
    const double angle = metric(ms, "side-view swing arm angle (braking)", "wheel left");
    const double geometric = std::tan(angle * M_PI / 180.0) * lever * brakeShare * 100.0;
    qInfo("  geometric (swing arm angle %.4f deg): %.4f %%", angle, geometric);
    QVERIFY2(std::abs(geometric - toolBraking) <= 5e-3 * std::max(1.0, std::abs(toolBraking)),
             qPrintable(QString("geometric %1 %, force %2 %").arg(geometric).arg(toolBraking)));
  }

  /// The side-view swing arm of a trailing arm is the arm: its instant centre is the pivot, at
  /// any height. Rear axle: length = the arm (the pivot ahead of the wheel, towards the vehicle
  /// centre), instant centre height = the pivot's above the ground, angle atan(height / arm).
  void sideViewSwingArmOfATrailingArm() {
    const double arm = 0.45, radius = 0.3;
    for (double pivotHeight : {0.3, 0.42, 0.18}) {
      Project p = ::singlePivot(false, arm, radius, pivotHeight);
      VehicleRow v;
      v.frontAxle = false;
      p.vehicle = v;
      const auto model = SuspensionModel::build(p);
      const std::vector<KcMetric> ms = designMetrics(*model, solveDesign(*model, 1e-10));
      const double length = metric(ms, "side-view swing arm length") / 1000.0;
      const double height = metric(ms, "side-view instant centre height (above the contact point)") / 1000.0;
      const double angle = metric(ms, "side-view swing arm angle (braking)") * M_PI / 180.0;
      qInfo("pivot %.3f m high, %.3f m ahead: length %.9f m, height %.9f m, angle %.9f rad (exact %.9f)", pivotHeight,
            arm, length, height, angle, std::atan2(pivotHeight, arm));
      QVERIFY2(std::abs(length - arm) < 1e-6, qPrintable(QString::number(length)));
      QVERIFY2(std::abs(height - pivotHeight) < 1e-6, qPrintable(QString::number(height)));
      QVERIFY2(std::abs(angle - std::atan2(pivotHeight, arm)) < 1e-6, qPrintable(QString::number(angle)));
    }
  }

  /// A sweep past the mechanism's travel stops there in that direction, flagged (column "travel
  /// limit") with a warning naming the cause, and keeps every point done; the other direction is
  /// complete. Two causes: a pad force that changed by more than 3 times the design wheel load
  /// (double wishbone, +-200 mm: -11.97 kN at -145 mm rebound against 5.49 kN at design, where
  /// the sweep went on to -65 kN at -200 mm before), and, with that check off, a joint's force
  /// beyond 20 times the largest design wheel load (+-300 mm).
  void travelLimitIsFlagged() {
    const auto model = SuspensionModel::build(readProject(kProjects + "double_wishbone.json"));
    for (const bool pads : {true, false}) {
      KcOptions o;
      o.from = pads ? -0.2 : -0.3;
      o.to = -o.from;
      o.points = pads ? 81 : 61;
      if (!pads) o.padForceLimitFactor = 1e9;
      const KcResult r = runKc(*model, o);
      QCOMPARE(int(r.warnings.size()), 1);
      qInfo("%s", r.warnings[0].c_str());
      // The pad's cause names the stop that holds the most, on the pad's side (the axle's two
      // rebound stops hold alike).
      const QString cause = pads ? "the pad of wheel (left|right) holds it with -?[0-9.]+ kN against 5\\.49\\d kN at design, a change of "
                                   "more than 3 times the design wheel load; the rebound stop of P2P element 'rebound stop \\1' "
                                   "holds [0-9.]+ kN: "
                                 : "bushing '[^']+' carries [0-9.]+ kN, more than 20 times";
      QVERIFY(QString::fromStdString(r.warnings[0]).contains(QRegularExpression(
          QString("^travel limit at point \\d+ of %1 \\(travel = -0\\.\\d+ m\\): ").arg(o.points) + cause)));
      const int flag = r.column("travel limit");
      QVERIFY(flag >= 0);
      QCOMPARE(r.values.front()[flag], 1.0);  // the last point reached downwards
      for (std::size_t k = 1; k < r.values.size(); ++k) QCOMPARE(r.values[k][flag], 0.0);
      QVERIFY(r.sweep.front() > o.from + 1e-9);
      QCOMPARE(r.sweep.back(), o.to);  // upwards complete
      if (pads) QVERIFY2(std::abs(r.sweep.front() + 0.145) < 1e-9, qPrintable(QString::number(r.sweep.front())));
    }
  }

  /// The screw axis of a knuckle on two spherical joints under the rack is the joints' line:
  /// caster, kingpin inclination, scrub radius and trail from the screw axis equal those from
  /// the joint markers at every point of a steering sweep, and the construction's angles.
  void screwAxisIsTheKingpin() {
    const auto byMarkers = SuspensionModel::build(kingpinKnuckle(false));
    const auto byScrew = SuspensionModel::build(kingpinKnuckle(true));
    KcOptions o;
    o.kind = KcKind::Steering;
    o.input = 0;
    o.from = -0.03;
    o.to = 0.03;
    o.points = 7;
    KcResult a, b;
    try {
      a = runKc(*byMarkers, o);
      b = runKc(*byScrew, o);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QCOMPARE(a.columns, b.columns);
    double worstAngle = 0.0, worstLength = 0.0;
    for (const char* name : {"wheel caster", "wheel kingpin inclination", "wheel scrub radius", "wheel trail"}) {
      const int col = a.column(name);
      QVERIFY2(col >= 0, name);
      for (std::size_t k = 0; k < a.sweep.size(); ++k) {
        const double d = std::abs(a.values[k][col] - b.values[k][col]);
        (a.units[col] == "rad" ? worstAngle : worstLength) = std::max(a.units[col] == "rad" ? worstAngle : worstLength, d);
      }
    }
    const int mid = 3, steer = a.column("wheel steer angle");
    qInfo("screw axis vs joint markers over +-%.0f deg of steer: angles %.2e rad, lengths %.2e m",
          std::abs(a.values.back()[steer]) * 180 / M_PI, worstAngle, worstLength);
    QVERIFY(worstAngle < 1e-6 && worstLength < 1e-6);
    QVERIFY(std::abs(a.values.back()[steer]) > 0.1);  // the sweep really steers
    // The construction: s = A - B = (-0.03, -0.06, 0.4).
    QVERIFY(std::abs(b.values[mid][b.column("wheel caster")] - std::atan2(0.03, 0.4)) < 1e-6);
    QVERIFY(std::abs(b.values[mid][b.column("wheel kingpin inclination")] - std::atan2(0.06, 0.4)) < 1e-6);
    // The analytic steering gain at design against the sweep's central difference (h = 10 mm).
    const double gain = metric(b.metrics, "steering gain", "wheel");
    const double fd = (b.values[mid + 1][steer] - b.values[mid - 1][steer]) / 20.0 * 180 / M_PI;  // deg/mm
    qInfo("steering gain %.6f deg/mm, sweep difference %.6f deg/mm", gain, fd);
    QVERIFY(std::abs(gain - fd) < 2e-3 * std::abs(fd));
  }

  /// A sweep point that cannot be reached (a swing arm beyond its reach) stops the sweep in its
  /// direction with a warning naming the point and the cause, and keeps the points done; with no
  /// point reached at all it is an error naming the point.
  void unreachablePointIsNamed() {
    const auto model = SuspensionModel::build(::singlePivot(true, 0.75, 0.3));
    KcOptions o;
    o.from = -0.5;
    o.to = 0.9;  // beyond the arm's reach: asin(0.9 / 0.75) does not exist
    o.points = 15;
    const KcResult r = runKc(*model, o);
    QCOMPARE(int(r.warnings.size()), 1);
    qInfo("%s; last point %.3f m", r.warnings[0].c_str(), r.sweep.back());
    QVERIFY(QString::fromStdString(r.warnings[0])
                .contains(QRegularExpression("^travel limit before point \\d+ of 15 \\(travel = 0\\.\\d+ m\\): the "
                                             "equilibrium cannot be reached from 0\\.\\d+ m \\(.+\\): a dead point")));
    QCOMPARE(r.sweep.front(), -0.5);             // downwards complete
    QVERIFY(r.sweep.back() < 0.75);              // upwards short of the arm's reach
    QVERIFY(r.sweep.back() > 0.6);               // and every point below it kept
    QCOMPARE(int(r.sweep.size()), 1 + int(std::floor((r.sweep.back() + 0.5) / 0.1 + 0.5)));
    QCOMPARE(r.values.back()[r.column("travel limit")], 1.0);
    QVERIFY(!r.metrics.empty());
    // Nothing reachable at all: an error naming the point.
    o.from = 0.8;
    try {
      runKc(*model, o);
      QFAIL("a sweep with no point reached went through");
    } catch (const SimulationError& e) {
      qInfo("%s", e.what());
      QVERIFY(QString(e.what()).contains(QRegularExpression("point \\d+ of 15 \\(travel = 0\\.\\d+ m\\)")));
    }
  }

  // A wheel on a Magic Formula tyre is refused by name: the rig's pads hold the wheels, and the
  // tyre's road contact would push beside them (a result that mixes the two is no K&C result).
  void wheelsOnTyresAreRefused() {
    const auto model = SuspensionModel::build(test::tyreCarriage(0.0));
    KcOptions o;
    o.from = -0.01, o.to = 0.01, o.points = 3;
    try {
      runKc(*model, o);
      QFAIL("a K&C sweep of a wheel on a tyre went through");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("wheel 1 'wheel' stands on a Magic Formula tyre"), e.what());
    }
  }

  // The shipped vehicle on tyres, its tyres taken off as the message above asks: the vehicle body
  // is held by nothing but the pads' vertical forces, so it floats along the ground, and every
  // compliance would be the regularization's (1e5 deg/kN before this was refused). Refused naming
  // the body; with the body fixed, the same sweep gives a suspension's figures.
  void aFloatingVehicleIsRefused() {
    Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/full_vehicle_tyres.json");
    for (WheelRow& w : p.wheels) {
      w.tyre.clear();
      w.driveInput.reset();
    }
    p.loadCases.clear();
    p.outputs.clear();
    KcOptions o = defaultKcOptions(KcKind::OppositeTravel);
    o.from = -0.01, o.to = 0.01, o.points = 3;
    try {
      runKc(*SuspensionModel::build(p), o);
      QFAIL("a K&C sweep of a floating vehicle went through");
    } catch (const SimulationError& e) {
      QVERIFY2(QString(e.what()).contains("body 0 'vehicle body' moves") && QString(e.what()).contains("fixed"), e.what());
    }
    p.bodies[0].fixed = true;
    p.bodies[0].mass = 0.0;
    const KcResult r = runKc(*SuspensionModel::build(p), o);
    for (const KcMetric& m : r.metrics)
      if (m.name.rfind("toe compliance, lateral", 0) == 0)
        QVERIFY2(std::abs(m.value) < 1.0, (m.name + " " + std::to_string(m.value)).c_str());  // deg/kN
  }
};

QTEST_APPLESS_MAIN(TestKc)
#include "tst_kc.moc"
