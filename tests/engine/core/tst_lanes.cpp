// SPDX-License-Identifier: GPL-3.0-or-later
// engine/core/lanes.h: the lane-wise sin/cos against std::sin/std::cos, atan2 against std::atan2 (units in the last place over all
// octants, the reduction's boundary, magnitudes from 1e-6 to 1e6, zeros, NaN), the square root
// against std::sqrt bit for bit, the transposing loads and stores, and lane independence.
#include <QtTest>

#include <cmath>
#include <random>

#include "engine/core/lanes.h"

using namespace ek::lanes;

namespace {
/// |a - b| in units of the last place of b.
double ulps(double a, double b) {
  if (a == b) return 0.0;
  return std::abs(a - b) / (std::nextafter(std::abs(b), INFINITY) - std::abs(b));
}
}  // namespace

class TestLanes : public QObject {
  Q_OBJECT
 private slots:
  void atan2MatchesTheLibrary() {
    std::mt19937_64 gen(7);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    double worst = 0.0;
    for (int i = 0; i < 200000; ++i) {
      Pack y, x;
      for (int l = 0; l < kLanes; ++l) {
        y[l] = unit(gen) * std::pow(10.0, 6.0 * unit(gen));
        x[l] = unit(gen) * std::pow(10.0, 6.0 * unit(gen));
        if (i % 5 == 1) x[l] = y[l] * (1.0 + 1e-3 * unit(gen));                // near the diagonals
        if (i % 5 == 2) x[l] = y[l] / (0.2679491924311227 + 1e-6 * unit(gen));  // the reduction's edge
        if (i % 5 == 3) x[l] = -y[l] * 1e-9;                                   // near the axes
      }
      const Pack r = ek::lanes::atan2(y, x);
      for (int l = 0; l < kLanes; ++l) worst = std::max(worst, ulps(r[l], std::atan2(y[l], x[l])));
    }
    qInfo("largest difference from std::atan2: %.1f units in the last place", worst);
    QVERIFY(worst <= 8.0);
  }

  // sin and cos for the bodies' angles: |x| from 1e-8 to 1e5, near multiples of pi/4 (quadrant
  // edges and the reduction's limit), against std::sin and std::cos; beyond 1e5, NaN and Inf the
  // library's own values.
  void sincosMatchesTheLibrary() {
    std::mt19937_64 gen(11);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    double worstS = 0.0, worstC = 0.0;
    for (int i = 0; i < 200000; ++i) {
      Pack x;
      for (int l = 0; l < kLanes; ++l) {
        x[l] = unit(gen) * std::pow(10.0, 6.5 * unit(gen) - 1.5);
        if (i % 3 == 1) x[l] = std::round(400.0 * unit(gen)) * M_PI / 4.0 * (1.0 + 1e-12 * unit(gen));
        if (i % 3 == 2) x[l] = 4.0 * unit(gen);  // the Cardan angles' range
      }
      Pack s, c;
      ek::lanes::sincos(x, s, c);
      for (int l = 0; l < kLanes; ++l) {
        // Units of the last place of the larger of |sin|, |cos| (both are computed from one r).
        const double ref = std::max(std::abs(std::sin(x[l])), std::abs(std::cos(x[l])));
        const double ulp = std::nextafter(ref, INFINITY) - ref;
        worstS = std::max(worstS, std::abs(s[l] - std::sin(x[l])) / ulp);
        worstC = std::max(worstC, std::abs(c[l] - std::cos(x[l])) / ulp);
        if (std::abs(x[l]) < 0.7) {  // small angles: relative to the value itself
          worstS = std::max(worstS, ulps(s[l], std::sin(x[l])));
          worstC = std::max(worstC, ulps(c[l], std::cos(x[l])));
        }
      }
    }
    qInfo("largest difference from std::sin / std::cos: %.1f / %.1f units in the last place", worstS, worstC);
    QVERIFY(worstS <= 2.0 && worstC <= 2.0);
    const double nan = std::nan("");
    Pack s, c;
    ek::lanes::sincos(Pack{nan, INFINITY, 3e7, 0.0}, s, c);
    QVERIFY(std::isnan(s[0]) && std::isnan(c[0]) && std::isnan(s[1]) && std::isnan(c[1]));
    QCOMPARE(s[2], std::sin(3e7));
    QCOMPARE(c[2], std::cos(3e7));
    QCOMPARE(s[3], 0.0);
    QCOMPARE(c[3], 1.0);
  }

  void atan2SpecialValues() {
    const double nan = std::nan("");
    const Pack y = {0.0, 0.0, 1.0, -1.0}, x = {0.0, -1.0, 0.0, 0.0};
    const Pack r = ek::lanes::atan2(y, x);
    QCOMPARE(r[0], 0.0);
    QCOMPARE(r[1], M_PI);
    QCOMPARE(r[2], M_PI / 2.0);
    QCOMPARE(r[3], -M_PI / 2.0);
    const Pack n = ek::lanes::atan2(Pack{nan, 1.0, nan, 0.5}, Pack{1.0, nan, nan, 0.5});
    QVERIFY(std::isnan(n[0]) && std::isnan(n[1]) && std::isnan(n[2]));
    QCOMPARE(n[3], std::atan2(0.5, 0.5));
  }

  void sqrtIsTheLibrarys() {
    const Pack a = {2.0, 1e-300, 12345.678, 0.0};
    const Pack r = ek::lanes::sqrt(a);
    for (int l = 0; l < kLanes; ++l) QCOMPARE(r[l], std::sqrt(a[l]));
  }

  // storeLanes() and loadLanes() transpose: out[l][i] = e[i][l]; loading back gives e.
  void transposingLoadsAndStores() {
    Pack e[8];
    for (int i = 0; i < 8; ++i)
      for (int l = 0; l < kLanes; ++l) e[i][l] = 100.0 * i + l;
    double buf[kLanes][8];
    double* out[kLanes];
    const double* in[kLanes];
    for (int l = 0; l < kLanes; ++l) out[l] = buf[l], in[l] = buf[l];
    storeLanes(e, out);
    for (int l = 0; l < kLanes; ++l)
      for (int i = 0; i < 8; ++i) QCOMPARE(buf[l][i], 100.0 * i + l);
    Pack back[8];
    loadLanes(in, back);
    for (int i = 0; i < 8; ++i)
      for (int l = 0; l < kLanes; ++l) QCOMPARE(back[i][l], e[i][l]);
  }

  // putLanes<true>() adds lane l of the packs at the given addresses to out[l], lanes that share a
  // destination one after the other; putLanes<false>() stores them as storeLanes() does.
  void addingLanes() {
    Pack e[4];
    for (int i = 0; i < 4; ++i)
      for (int l = 0; l < kLanes; ++l) e[i][l] = 100.0 * i + l;
    double a[4] = {1, 2, 3, 4}, b[4] = {0.5, 0.5, 0.5, 0.5}, c[4] = {0, 0, 0, 0}, d[4] = {0, 0, 0, 0};
    double* out[kLanes];
    for (int l = 0; l < kLanes; ++l) out[l] = l == 0 ? a : l == 1 ? c : l < 4 ? b : d;  // lanes 4..7: all to d
    const Pack* const at[4] = {&e[0], &e[1], &e[2], &e[3]};
    ek::lanes::putLanes<true>(at, out);
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(a[i], 1.0 + i + 100.0 * i);
      QCOMPARE(c[i], 100.0 * i + 1);
      QCOMPARE(b[i], 0.5 + (100.0 * i + 2) + (100.0 * i + 3));
      double sum = 0.0;
      for (int l = 4; l < kLanes; ++l) sum += 100.0 * i + l;
      QCOMPARE(d[i], sum);
    }
    double stored[kLanes][4], put[kLanes][4];
    double *toStored[kLanes], *toPut[kLanes];
    for (int l = 0; l < kLanes; ++l) toStored[l] = stored[l], toPut[l] = put[l];
    storeLanes(e, toStored);
    ek::lanes::putLanes<false>(at, toPut);
    for (int l = 0; l < kLanes; ++l)
      for (int i = 0; i < 4; ++i) QCOMPARE(put[l][i], stored[l][i]);
  }

  // A lane's result depends on its own inputs only: the same value in any lane, next to any
  // other values, gives the same bits (what the element kernels' batches rely on).
  void lanesAreIndependent() {
    const double y = 0.123456789, x = -0.987654321;
    const double alone = ek::lanes::atan2(splat(y), splat(x))[0];
    for (int l = 0; l < kLanes; ++l) {
      Pack py = {1e-7, -3.0, 5e5, 0.0}, px = {2.0, -1e-9, 7.0, -1.0};
      py[l] = y, px[l] = x;
      QCOMPARE(ek::lanes::atan2(py, px)[l], alone);
    }
  }
};

QTEST_APPLESS_MAIN(TestLanes)
#include "tst_lanes.moc"
