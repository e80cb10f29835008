// SPDX-License-Identifier: GPL-3.0-or-later
// Cardan-angle kinematics (DESIGN.md section 1) and the derivatives used by the linearization.
#include <QtTest>

#include <random>

#include "engine/core/rotation.h"
#include "support/fd.h"

using namespace ek;

namespace {
Vec3 randomAngles(std::mt19937& rng) {
  std::uniform_real_distribution<double> U(-M_PI / 3, M_PI / 3);  // +-60 deg
  return {3.0 * U(rng), U(rng), 3.0 * U(rng)};
}
}  // namespace

class TestRotation : public QObject {
  Q_OBJECT
 private slots:
  void matrixIsYawPitchRoll() {
    const Vec3 a(0.3, -0.4, 0.7);
    const Mat3 R = Eigen::AngleAxisd(a[0], Vec3::UnitZ()).toRotationMatrix() *
                   Eigen::AngleAxisd(a[1], Vec3::UnitY()).toRotationMatrix() *
                   Eigen::AngleAxisd(a[2], Vec3::UnitX()).toRotationMatrix();
    QVERIFY((rotation::matrix(a) - R).norm() < 1e-15);
  }

  void anglesRoundTrip() {
    std::mt19937 rng(3);
    for (int k = 0; k < 100; ++k) {
      const Vec3 a = randomAngles(rng);
      QVERIFY((rotation::anglesFromMatrix(rotation::matrix(a)) - a).norm() < 1e-12);
    }
  }

  // w_B = T(a) a_dot must equal the body angular velocity from R^T dR/dt.
  void rateToBodyMatchesRotationMatrix() {
    std::mt19937 rng(5);
    for (int k = 0; k < 20; ++k) {
      const Vec3 a = randomAngles(rng), aDot = Vec3::Random();
      const double h = 1e-6;
      const Mat3 dR = (rotation::matrix(a + h * aDot) - rotation::matrix(a - h * aDot)) / (2 * h);
      const Mat3 W = rotation::matrix(a).transpose() * dR;  // [w_B]x
      const Vec3 wB(W(2, 1), W(0, 2), W(1, 0));
      QVERIFY((rotation::rateToBody(a) * aDot - wB).norm() < 1e-8);
      QVERIFY((rotation::bodyToRate(a) * rotation::rateToBody(a) - Mat3::Identity()).norm() < 1e-12);
    }
  }

  void derivativesOfInverseRateMap() {
    std::mt19937 rng(7);
    for (int k = 0; k < 20; ++k) {
      const Vec3 a = randomAngles(rng), w = 5.0 * Vec3::Random(), f = 100.0 * Vec3::Random();
      const MatX fdW = test::centralDifference([&](const VecX& x) { return VecX(rotation::bodyToRate(x) * w); }, a, 1e-6);
      const MatX fdF = test::centralDifference(
          [&](const VecX& x) { return VecX(rotation::bodyToRate(x).transpose() * f); }, a, 1e-6);
      const double e1 = test::blockRelativeError(rotation::dBodyToRateTimes(a, w), fdW, 3, 3);
      const double e2 = test::blockRelativeError(rotation::dBodyToRateTransposedTimes(a, f), fdF, 3, 3);
      QVERIFY2(e1 < 1e-8, qPrintable(QString::number(e1)));
      QVERIFY2(e2 < 1e-8, qPrintable(QString::number(e2)));
    }
  }

  // The world rotation per angle change: dR = [R T da]x R.
  void rotationVectorOfAngleChange() {
    std::mt19937 rng(9);
    for (int k = 0; k < 20; ++k) {
      const Vec3 a = randomAngles(rng), da = Vec3::Random();
      const double h = 1e-6;
      const Mat3 dR = (rotation::matrix(a + h * da) - rotation::matrix(a - h * da)) / (2 * h);
      const Mat3 W = dR * rotation::matrix(a).transpose();
      const Vec3 dth(W(2, 1), W(0, 2), W(1, 0));
      QVERIFY((rotation::matrix(a) * rotation::rateToBody(a) * da - dth).norm() < 1e-8);
      QVERIFY((rotation::rateToWorld(rotation::trig(a)) - rotation::matrix(a) * rotation::rateToBody(a)).norm() < 1e-15);
    }
  }

  // The sines and cosines read off a matrix equal those of its angles, also near theta = +-90 deg
  // and at psi, phi = +-180 deg.
  void trigOfMatrixMatchesTrigOfAngles() {
    std::mt19937 rng(11);
    std::vector<Vec3> cases = {{M_PI, 0.3, -M_PI}, {0.2, M_PI / 2 - 1e-7, -0.4}, {-2.0, -M_PI / 2 + 1e-7, 3.0}};
    for (int k = 0; k < 100; ++k) cases.push_back(randomAngles(rng));
    for (const Vec3& a : cases) {
      Vec3 b;
      const rotation::Trig t = rotation::trigOfMatrix(rotation::matrix(a), b);
      const rotation::Trig u = rotation::trig(b);
      const double e = std::max({std::abs(t.sps - u.sps), std::abs(t.cps - u.cps), std::abs(t.sth - u.sth),
                                 std::abs(t.cth - u.cth), std::abs(t.sph - u.sph), std::abs(t.cph - u.cph)});
      QVERIFY2(e < 2e-15 / u.cth, qPrintable(QString::number(e)));  // phi, psi from cos(theta) * (...)
      QVERIFY((rotation::matrix(t) - rotation::matrix(a)).norm() < 1e-14);
    }
  }

  // Each map is one template: its lane instantiation (the body kinematics, the bushings) gives the
  // double one's numbers lane by lane, to the last bits that a fused multiply-add may change.
  void lanesEqualTheScalarMaps() {
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> U(-1.4, 1.4);
    rotation::TrigT<lanes::Pack> tp;
    lanes::V3T<lanes::Pack> wp;
    rotation::Trig ts[lanes::kLanes];
    Vec3 w[lanes::kLanes];
    for (int l = 0; l < lanes::kLanes; ++l) {
      ts[l] = rotation::trig(Vec3(U(rng), U(rng), U(rng)));
      w[l] = Vec3(U(rng), U(rng), U(rng));
      tp.sps[l] = ts[l].sps, tp.cps[l] = ts[l].cps, tp.sth[l] = ts[l].sth, tp.cth[l] = ts[l].cth;
      tp.sph[l] = ts[l].sph, tp.cph[l] = ts[l].cph;
      wp.x[l] = w[l].x(), wp.y[l] = w[l].y(), wp.z[l] = w[l].z();
    }
    rotation::setSecant(tp);
    const lanes::M3T<lanes::Pack> maps[] = {rotation::matrixOf(tp), rotation::rateToBodyOf(tp), rotation::rateToWorldOf(tp),
                                            rotation::bodyToRateOf(tp), rotation::dBodyToRateTimesOf(tp, wp),
                                            rotation::dBodyToRateTransposedTimesOf(tp, wp)};
    double worst = 0.0;
    for (int l = 0; l < lanes::kLanes; ++l) {
      const Mat3 ref[] = {rotation::matrix(ts[l]), rotation::rateToBody(ts[l]), rotation::rateToWorld(ts[l]),
                          rotation::bodyToRate(ts[l]), rotation::dBodyToRateTimes(ts[l], w[l]),
                          rotation::dBodyToRateTransposedTimes(ts[l], w[l])};
      for (int k = 0; k < 6; ++k)
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c)
            worst = std::max(worst, std::abs(maps[k].m[r][c][l] - ref[k](r, c)) / std::max(1.0, ref[k].norm()));
    }
    qInfo("largest difference lanes - scalar: %.1e", worst);
    QVERIFY(worst <= 4e-16);
  }
};

QTEST_APPLESS_MAIN(TestRotation)
#include "tst_rotation.moc"
