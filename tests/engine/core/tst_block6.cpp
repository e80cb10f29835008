// SPDX-License-Identifier: GPL-3.0-or-later
// engine/core/block6.h: the 6x6 kernels against Eigen's products on random blocks (their sums
// are ordered differently, so they agree to round-off, not bit for bit), and the product in place.
#include <QtTest>

#include <cmath>
#include <random>

#include "engine/core/block6.h"
#include "engine/core/types.h"

using namespace ek;

class TestBlock6 : public QObject {
  Q_OBJECT
 private slots:
  void kernelsEqualEigensProducts() {
    std::mt19937_64 gen(5);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    auto random6 = [&] {
      Mat6 m;
      for (int k = 0; k < 36; ++k) m.data()[k] = unit(gen) * std::pow(10.0, 3.0 * unit(gen));
      return m;
    };
    double worst = 0.0;
    for (int trial = 0; trial < 2000; ++trial) {
      const Mat6 A = random6(), B = random6(), C0 = random6();
      Vec6 x, y;
      for (int k = 0; k < 6; ++k) x[k] = unit(gen), y[k] = unit(gen);
      // Running sums of blocks times vectors.
      block6::Sums s;
      s.add(A.data(), x.data());
      s.add(B.data(), y.data());
      Vec6 sum;
      s.get(sum.data());
      const Vec6 ref = A * x + B * y;
      const double scale = (A.cwiseAbs() * x.cwiseAbs() + B.cwiseAbs() * y.cwiseAbs()).maxCoeff();
      worst = std::max(worst, (sum - ref).cwiseAbs().maxCoeff() / scale);
      // C -= A B and C = A B.
      Mat6 C = C0;
      block6::subtractProduct(C.data(), A.data(), B.data());
      const double pscale = (A.cwiseAbs() * B.cwiseAbs()).maxCoeff() + C0.cwiseAbs().maxCoeff();
      worst = std::max(worst, (C - (C0 - A * B)).cwiseAbs().maxCoeff() / pscale);
      Mat6 P;
      block6::product(P.data(), A.data(), B.data());
      worst = std::max(worst, (P - A * B).cwiseAbs().maxCoeff() / pscale);
      // In place (C = A), as the factorization forms L_ik = F_ik D_k^-1 (round-off apart from the
      // product into a copy: the compiler may fuse the multiply-adds differently where inlined).
      Mat6 Q = A;
      block6::product(Q.data(), Q.data(), B.data());
      worst = std::max(worst, (Q - A * B).cwiseAbs().maxCoeff() / pscale);
    }
    qInfo("largest difference from Eigen: %.2e of the terms' magnitude", worst);
    QVERIFY(worst <= 1e-15);
  }

  // A block of zeros times anything adds nothing; a sum of no blocks is zero.
  void emptyAndZeroSums() {
    block6::Sums s;
    Vec6 out = Vec6::Constant(7.0);
    s.get(out.data());
    QVERIFY(out.isZero(0.0));
    const Mat6 Z = Mat6::Zero();
    const Vec6 x = Vec6::Constant(3.0);
    s.add(Z.data(), x.data());
    s.get(out.data());
    QVERIFY(out.isZero(0.0));
  }
};

QTEST_APPLESS_MAIN(TestBlock6)
#include "tst_block6.moc"
