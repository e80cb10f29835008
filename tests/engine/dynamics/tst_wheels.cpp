// SPDX-License-Identifier: GPL-3.0-or-later
// Wheel alignment channels on hand-posed wheels (ISO 8855 signs, both sides), their analytic
// gradients and the K&C wheel loads' partials against central finite differences.
#include <QtTest>

#include <Eigen/Geometry>

#include "engine/core/rotation.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/linearize.h"
#include "engine/dynamics/wheels.h"
#include "support/fd.h"
#include "support/test_models.h"

using namespace ek;

namespace {

std::array<double, kWheelChannels> channelsAt(const SuspensionModel& m, const State& s) {
  Workspace ws(m);
  calcBodyKinematics(m, s, ws);
  calcMarkerKinematics(m, ws);
  return wheelChannels(m.wheels[0], ws);
}

/// A state near the design pose: every body moved and turned a little.
State perturbed(const SuspensionModel& m, unsigned seed) {
  State s;
  m.initialState(s.r, s.v);
  std::srand(seed);
  for (int k = 0; k < m.nDof(); ++k) s.r[k] += (k % 6 < 3 ? 0.01 : 0.05) * VecX::Random(1)[0];
  s.v.setZero();
  return s;
}

}  // namespace

class TestWheels : public QObject {
  Q_OBJECT
 private slots:
  void handPosed_data() {
    QTest::addColumn<double>("side");
    QTest::addColumn<double>("toe");
    QTest::addColumn<double>("camber");
    for (double side : {1.0, -1.0}) {
      const char* s = side > 0 ? "left" : "right";
      QTest::addRow("%s, straight", s) << side << 0.0 << 0.0;
      QTest::addRow("%s, toe-in 0.5 deg", s) << side << 0.5 * M_PI / 180 << 0.0;
      QTest::addRow("%s, toe-out 2 deg, camber -1.5 deg", s) << side << -2.0 * M_PI / 180 << -1.5 * M_PI / 180;
      QTest::addRow("%s, toe-in 10 deg, camber +4 deg", s) << side << 10.0 * M_PI / 180 << 4.0 * M_PI / 180;
    }
  }
  /// Toe and camber as posed, to 1e-9 rad; the contact point below the centre by the radius in
  /// the wheel plane; the steering axis values from the hand construction of the fixture.
  void handPosed() {
    QFETCH(double, side);
    QFETCH(double, toe);
    QFETCH(double, camber);
    const auto model = SuspensionModel::build(test::wheelCorner(side, toe, camber));
    State s;
    model->initialState(s.r, s.v);
    const auto c = channelsAt(*model, s);
    QVERIFY2(std::abs(c[kToe] - toe) < 1e-9, qPrintable(QString("toe %1, posed %2").arg(c[kToe]).arg(toe)));
    QVERIFY2(std::abs(c[kCamber] - camber) < 1e-9, qPrintable(QString("camber %1, posed %2").arg(c[kCamber]).arg(camber)));
    QVERIFY(std::abs(c[kSpin]) < 1e-12);
    QVERIFY(std::abs(c[kCentreY] - side * 0.78) < 1e-12 && std::abs(c[kCentreZ] - 0.30) < 1e-12);
    // The contact point: in the wheel plane, 0.3 m from the centre, lowest of the circle:
    // straight down when camber is zero; inboard by r sin(camber) when the top leans outboard.
    const Vec3 contact(c[kContactX], c[kContactY], c[kContactZ]);
    const Vec3 centre(c[kCentreX], c[kCentreY], c[kCentreZ]);
    QVERIFY(std::abs((contact - centre).norm() - 0.30) < 1e-12);
    QVERIFY(std::abs(contact.z() - (0.30 - 0.30 * std::cos(camber))) < 1e-12);
    const Vec3 heading(std::cos(-side * toe), std::sin(-side * toe), 0.0);
    const Vec3 outboard = Vec3::UnitZ().cross(heading) * side;
    QVERIFY(std::abs((contact - centre).dot(outboard) + 0.30 * std::sin(camber)) < 1e-12);
    // Steering axis from (-0.03, 0.65, 0.55) to (0.01, 0.72, 0.15) (y times side): caster
    // atan(0.04 / 0.4), kingpin inclination atan(0.07 / 0.4). Extended to the ground z = 0 it
    // meets it at x = 0.025, |y| = 0.74625, so on a straight wheel (contact at x = 0, |y| = 0.78)
    // the scrub radius is 0.03375 m and the trail 0.025 m.
    QVERIFY(std::abs(c[kCaster] - std::atan(0.1)) < 1e-12);
    QVERIFY(std::abs(c[kKingpin] - std::atan(0.175)) < 1e-12);
    if (toe == 0.0 && camber == 0.0) {
      QVERIFY2(std::abs(c[kScrub] - 0.03375) < 1e-12, qPrintable(QString::number(c[kScrub], 'g', 12)));
      QVERIFY2(std::abs(c[kTrail] - 0.025) < 1e-12, qPrintable(QString::number(c[kTrail], 'g', 12)));
    }
  }

  /// The spin channel follows a rotation of the wheel about its axle relative to the carrier,
  /// whichever way the carrier itself is turned.
  void spin() {
    for (double side : {1.0, -1.0}) {
      const auto model = SuspensionModel::build(test::wheelCorner(side, 0.02, -0.01));
      State s;
      model->initialState(s.r, s.v);
      const int w = model->bodies[model->wheels[0].body.value].state;
      const int c = model->bodies[model->wheels[0].carrier.value].state;
      const Mat3 carrierTurn = rotation::matrix(Vec3(0.1, -0.05, 0.07));
      const Mat3 Rw = rotation::matrix(s.r.segment<3>(6 * w + 3));
      const Vec3 axle = Rw.col(0);
      for (double phi : {0.3, -1.2, 2.5}) {
        State t = s;
        t.r.segment<3>(6 * c + 3) = rotation::anglesFromMatrix(carrierTurn);
        t.r.segment<3>(6 * w + 3) =
            rotation::anglesFromMatrix(carrierTurn * Mat3(Eigen::AngleAxisd(phi, axle)) * Rw);
        const auto ch = channelsAt(*model, t);
        QVERIFY2(std::abs(ch[kSpin] - phi) < 1e-12, qPrintable(QString("spin %1, turned %2").arg(ch[kSpin]).arg(phi)));
      }
    }
  }

  /// Analytic gradients of every channel with respect to r against central differences.
  void gradients() {
    double worst = 0.0;
    for (double side : {1.0, -1.0})
      for (unsigned seed : {1u, 2u, 3u}) {
        const auto model = SuspensionModel::build(test::wheelCorner(side, 0.03, -0.02));
        const SuspensionModel& m = *model;
        const State s = perturbed(m, seed);
        Workspace ws(m);
        calcBodyKinematics(m, s, ws);
        calcMarkerKinematics(m, ws);
        const MatX fd = test::centralDifference(
            [&](const VecX& r) {
              const auto c = channelsAt(m, State{0.0, r, s.v});
              return VecX(Eigen::Map<const VecX>(c.data(), kWheelChannels));
            },
            s.r, 1e-6);
        for (int ch = 0; ch < kWheelChannels; ++ch) {
          VecX g;
          wheelChannelGradient(m, ws, 0, ch, g);
          const double scale = std::max(fd.row(ch).cwiseAbs().maxCoeff(), 1e-12);
          const double e = (g.transpose() - fd.row(ch)).cwiseAbs().maxCoeff() / scale;
          worst = std::max(worst, e);
          QVERIFY2(e < 1e-6, qPrintable(QString("channel %1 (%2): relative error %3")
                                            .arg(kWheelComponents[ch]).arg(side).arg(e)));
        }
      }
    qInfo("worst relative error of the channel gradients: %.2e", worst);
  }

  /// Wheel loads: their contributions to h, J_r against central differences (the load follows
  /// the contact point as the wheel turns), and the load columns against differences in the load.
  void loads() {
    double worstJ = 0.0, worstB = 0.0;
    for (double side : {1.0, -1.0}) {
      const auto model = SuspensionModel::build(test::wheelCorner(side, 0.03, -0.02));
      const SuspensionModel& m = *model;
      const State s = perturbed(m, 7);
      VecX loads(kWheelLoads);
      loads << 1800.0, -2500.0, 4000.0, 150.0, -90.0, 210.0, 700.0;
      auto evalH = [&](const VecX& r, const VecX& l) {
        Workspace w(m);
        linearize(m, State{0.0, r, s.v}, VecX::Zero(m.nInputs()), w, &l);
        return VecX(w.h);
      };
      Workspace ws(m);
      linearize(m, s, VecX::Zero(m.nInputs()), ws, &loads);
      const MatX Jr = blockToDense(m.pattern, ws.Jr);
      const MatX fdR = test::centralDifference([&](const VecX& r) { return evalH(r, loads); }, s.r, 1e-6);
      const double eR = test::blockRelativeError(Jr, fdR, 3, 3);
      worstJ = std::max(worstJ, eR);
      QVERIFY2(eR < 1e-6, qPrintable(QString("J_r with wheel loads: %1").arg(eR)));
      MatX B(m.nDof(), kWheelLoads);
      for (int k = 0; k < kWheelLoads; ++k) {
        VecX col;
        wheelLoadColumn(m, ws, 0, k, col);
        B.col(k) = col;
      }
      const MatX fdB = test::centralDifference([&](const VecX& l) { return evalH(s.r, l); }, loads, 100.0);
      const double eB = test::blockRelativeError(B, fdB, 3, 1);
      worstB = std::max(worstB, eB);
      QVERIFY2(eB < 1e-7, qPrintable(QString("load columns: %1").arg(eB)));

      // The brake holds: a braking force at the contact point does not turn the wheel about its
      // axle; the carrier takes radius x force about it.
      const int w = m.bodies[m.wheels[0].body.value].state;
      const int c = m.bodies[m.wheels[0].carrier.value].state;
      const Mat3 Rw = ws.bodies[m.wheels[0].body.value].R, Rc = ws.bodies[m.wheels[0].carrier.value].R;
      const Vec3 axle = ws.markers[m.wheels[0].marker.value].R.col(0);
      const Vec3 tauWheel = Rw * Vec3(B.block<3, 1>(6 * w + 3, kFxContact));
      const Vec3 tauCarrier = Rc * Vec3(B.block<3, 1>(6 * c + 3, kFxContact));
      QVERIFY(std::abs(tauWheel.dot(axle)) < 1e-12);
      const auto ch = channelsAt(m, s);
      const Vec3 arm = Vec3(ch[kContactX], ch[kContactY], ch[kContactZ]) - Vec3(ch[kCentreX], ch[kCentreY], ch[kCentreZ]);
      QVERIFY(std::abs(tauCarrier.dot(axle) - arm.cross(Vec3::UnitX()).dot(axle)) < 1e-12);
    }
    qInfo("worst relative errors: J_r with wheel loads %.2e, load columns %.2e", worstJ, worstB);
  }
};

QTEST_APPLESS_MAIN(TestWheels)
#include "tst_wheels.moc"
