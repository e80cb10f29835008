// SPDX-License-Identifier: GPL-3.0-or-later
// The Magic Formula tyre: a .tir file read in SI and in mm/kN/deg gives the same forces; the pure
// slip peak is D (+ SV) and the slope at zero the slip stiffness, both from the coefficients by
// hand; combined slip reduces each force; a symmetric tyre gives odd Fy and Mz and mirrors onto
// itself; the partial derivatives equal central differences; bad files are named line by line.
#include <QtTest>

#include <cmath>

#include "engine/dynamics/magic_formula.h"
#include "engine/model/tyre_property.h"

using namespace ek;

namespace {

const std::string kTyres = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/tyres/";

/// A grid of states over the file's ranges.
std::vector<MfState> grid() {
  std::vector<MfState> g;
  for (double kappa : {-0.3, -0.05, 0.0, 0.02, 0.15})
    for (double alpha : {-0.2, -0.03, 0.0, 0.01, 0.12})
      for (double gamma : {-0.05, 0.0, 0.04})
        for (double fz : {1500.0, 4000.0, 7000.0}) g.push_back({kappa, alpha, gamma, fz, 20.0});
  return g;
}

/// The parabola's vertex through three points around a maximum, refined by golden sections.
template <class F>
double maximum(F f, double a, double b) {
  const double r = (std::sqrt(5.0) - 1.0) / 2.0;
  double c = b - r * (b - a), d = a + r * (b - a);
  for (int i = 0; i < 200; ++i) {
    if (f(c) > f(d)) b = d;
    else a = c;
    c = b - r * (b - a);
    d = a + r * (b - a);
  }
  return f((a + b) / 2.0);
}

}  // namespace

class TestMagicFormula : public QObject {
  Q_OBJECT
 private slots:
  void readsTheFile() {
    const TyreProperty t = readTyreProperty(kTyres + "car_205_60R15_mf61_si.tir");
    QCOMPARE(int(t.version), int(MfVersion::Mf61));  // from PROPERTY_FILE_FORMAT: no FITTYP
    QCOMPARE(t.useMode, 14);
    QVERIFY(t.transient() && !t.mirrored());
    QCOMPARE(int(t.side), int(TyreSide::Left));
    QCOMPARE(t.unloadedRadius, 0.3135);
    QCOMPARE(t.nominalLoad, 4000.0);
    QCOMPARE(t.mass, 9.3);  // [INERTIA]; [UNITS] has MASS too
    QCOMPARE(t[Mf::PHX1], 2.1615e-4);
    QCOMPARE(t[Mf::PVX1], 2.0283e-5);  // D exponent
    QCOMPARE(t[Mf::QBZ4], 0.0);        // left out: 0
    QCOMPARE(t[Mf::LMUV], 0.0);
    QCOMPARE(int(t.shape.size()), 4);  // [SHAPE] rows without their {radial width} line
    QCOMPARE(int(t.deflectionLoad.size()), 6);
    QCOMPARE(t.deflectionLoad[4].second, 4500.0);
  }

  /// The same tyre in mm, kN and deg: every value in SI equal, and every force to 1e-12.
  void unitsConvert() {
    const TyreProperty si = readTyreProperty(kTyres + "car_205_60R15_mf61_si.tir");
    const TyreProperty mm = readTyreProperty(kTyres + "car_205_60R15_mf61_mm_kN_deg.tir");
    auto same = [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(a)); };
    QVERIFY(same(mm.unloadedRadius, si.unloadedRadius) && same(mm.nominalLoad, si.nominalLoad));
    QVERIFY(same(mm.verticalStiffness, si.verticalStiffness) && same(mm.verticalDamping, si.verticalDamping));
    QVERIFY(same(mm.nominalPressure, si.nominalPressure) && same(mm.longvl, si.longvl) && same(mm.vxlow, si.vxlow));
    QVERIFY(same(mm.ixx, si.ixx) && same(mm.deflectionLoad[5].first, si.deflectionLoad[5].first));
    QVERIFY(same(mm.deflectionLoad[5].second, si.deflectionLoad[5].second));
    double worst = 0.0;
    for (const MfState& s : grid()) {
      const MfForces a = magicFormula(si, s), b = magicFormula(mm, s);
      for (int o = 0; o < kMfOutputs; ++o) worst = std::max(worst, std::abs(a[o] - b[o]) / std::max(1.0, std::abs(a[o])));
    }
    qInfo("SI against mm/kN/deg: largest relative difference %.2e over %d states", worst, int(grid().size()));
    QVERIFY(worst < 1e-12);
  }

  /// Pure longitudinal slip (alpha = 0, where the combined weighting is 1): the peak is
  /// Dx + SVx and the slope where kappa + SHx = 0 is Kxk, both from the coefficients.
  void pureSlipPeakAndSlope() {
    const TyreProperty t = readTyreProperty(kTyres + "car_205_60R15_mf61_si.tir");
    for (double fz : {2000.0, 4000.0, 6500.0}) {
      const double fz0 = t.nominalLoad, dfz = (fz - fz0) / fz0;
      const double dx = (t[Mf::PDX1] + t[Mf::PDX2] * dfz) * fz;  // pressure at nominal, no camber
      const double svx = fz * (t[Mf::PVX1] + t[Mf::PVX2] * dfz);
      const double shx = t[Mf::PHX1] + t[Mf::PHX2] * dfz;
      const double kxk = fz * (t[Mf::PKX1] + t[Mf::PKX2] * dfz) * std::exp(t[Mf::PKX3] * dfz);
      auto fx = [&](double kappa) { return magicFormula(t, {kappa, 0.0, 0.0, fz, 20.0})[kMfFx]; };
      const double peak = maximum(fx, 0.0, 0.5);
      MfPartials d{};
      magicFormula(t, {-shx, 0.0, 0.0, fz, 20.0}, false, d);
      qInfo("Fz %.0f N: Fx peak %.4f N (Dx + SVx %.4f), slope %.2f N (Kxk %.2f)", fz, peak, dx + svx,
            d[kMfFx][kMfKappa], kxk);
      QVERIFY(std::abs(peak - (dx + svx)) < 1e-9 * dx);
      QVERIFY(std::abs(d[kMfFx][kMfKappa] - kxk) < 1e-8 * kxk);
      // Lateral, no camber, no longitudinal slip: the slope where alpha* + SHy = 0 is
      // Kya (1 + tan^2 alpha); the peak Dy + SVy.
      const double kya = t[Mf::PKY1] * fz0 * std::sin(t[Mf::PKY4] * std::atan(fz / (t[Mf::PKY2] * fz0)));
      const double shy = t[Mf::PHY1] + t[Mf::PHY2] * dfz, svy = fz * (t[Mf::PVY1] + t[Mf::PVY2] * dfz);
      const double dy = (t[Mf::PDY1] + t[Mf::PDY2] * dfz) * fz;
      const double a0 = std::atan(-shy);
      magicFormula(t, {0.0, a0, 0.0, fz, 20.0}, false, d);
      QVERIFY2(std::abs(d[kMfFy][kMfAlpha] - kya * (1.0 + shy * shy)) < 1e-8 * std::abs(kya),
               qPrintable(QString("%1 vs %2").arg(d[kMfFy][kMfAlpha]).arg(kya)));
      auto fy = [&](double alpha) { return -magicFormula(t, {0.0, alpha, 0.0, fz, 20.0})[kMfFy]; };  // Kya < 0
      const double lateralPeak = maximum(fy, 0.0, 0.6);
      QVERIFY2(std::abs(lateralPeak - (dy - svy)) < 1e-9 * dy, qPrintable(QString("%1 vs %2").arg(lateralPeak).arg(dy - svy)));
      magicFormula(t, {0.0, 0.0, 0.0, fz, t.longvl}, false, d);  // the slopes at zero slip
      QCOMPARE(corneringStiffness(t, fz), d[kMfFy][kMfAlpha]);
      QCOMPARE(longitudinalSlipStiffness(t, fz), d[kMfFx][kMfKappa]);
    }
  }

  /// Each force under the other slip is smaller than alone.
  void combinedSlipReduces() {
    const TyreProperty t = readTyreProperty(kTyres + "car_205_60R15_mf61_si.tir");
    for (double kappa : {-0.1, 0.05, 0.2})
      for (double alpha : {-0.1, 0.04, 0.15}) {
        const double fxAlone = magicFormula(t, {kappa, 0.0, 0.0, 4000.0, 20.0})[kMfFx];
        const double fyAlone = magicFormula(t, {0.0, alpha, 0.0, 4000.0, 20.0})[kMfFy];
        const MfForces both = magicFormula(t, {kappa, alpha, 0.0, 4000.0, 20.0});
        QVERIFY2(std::abs(both[kMfFx]) < std::abs(fxAlone), qPrintable(QString("%1 %2").arg(kappa).arg(alpha)));
        QVERIFY2(std::abs(both[kMfFy]) < std::abs(fyAlone), qPrintable(QString("%1 %2").arg(kappa).arg(alpha)));
      }
  }

  /// The asymmetric coefficients (shifts, and the sign-dependent curvatures PEY3, QEZ4) set to zero: Fy, Mz and Mx odd in (alpha, gamma), Fx and My
  /// even; mirrored, the tyre equals itself.
  void symmetricTyre() {
    TyreProperty t = readTyreProperty(kTyres + "car_205_60R15_mf61_si.tir");
    for (Mf c : {Mf::PHY1, Mf::PHY2, Mf::PVY1, Mf::PVY2, Mf::PEY3, Mf::RHY1, Mf::RHY2, Mf::RVY1, Mf::RVY2, Mf::RBY3,
                 Mf::QHZ1, Mf::QHZ2, Mf::QEZ4, Mf::SSZ1, Mf::QSX1, Mf::RHX1, Mf::QDZ6, Mf::QDZ7})
      t.coefficient[int(c)] = 0.0;
    for (const MfState& s : grid()) {
      MfState m = s;
      m.alpha = -s.alpha;
      m.gamma = -s.gamma;
      const MfForces a = magicFormula(t, s), b = magicFormula(t, m), mirrored = magicFormula(t, s, true);
      const double scale = 1.0 + std::abs(a[kMfFx]) + std::abs(a[kMfFy]);
      QVERIFY(std::abs(a[kMfFy] + b[kMfFy]) < 1e-9 * scale);
      QVERIFY(std::abs(a[kMfMz] + b[kMfMz]) < 1e-9 * scale);
      QVERIFY(std::abs(a[kMfMx] + b[kMfMx]) < 1e-9 * scale);
      QVERIFY(std::abs(a[kMfFx] - b[kMfFx]) < 1e-9 * scale);
      for (int o = 0; o < kMfOutputs; ++o) QVERIFY(std::abs(a[o] - mirrored[o]) < 1e-9 * scale);
    }
  }

  /// The rolling resistance moment fades below VXLOW (docs/tyres.md): 0 at rest, odd in V_x,
  /// continuous with its slope at VXLOW, and its partial by V_x the formula's there.
  void rollingResistanceFadesAtRest() {
    const TyreProperty t = readTyreProperty(kTyres + "car_205_60R15_mf61_si.tir");
    const double fz = 4000.0, low = t.vxlow;
    auto my = [&](double vx) { return magicFormula(t, {0.01, 0.02, 0.0, fz, vx})[kMfMy]; };
    QCOMPARE(my(0.0), 0.0);
    const double h = 1e-7, below = (my(low - h) - my(low - 3 * h)) / (2 * h), above = (my(low + 3 * h) - my(low + h)) / (2 * h);
    qInfo("My at rest %.3g N m, at 0.5 VXLOW %.4f N m, at VXLOW %.4f N m; slope just below and above VXLOW %.5f, %.5f",
          my(0.0), my(0.5 * low), my(low), below, above);
    QVERIFY(std::abs(my(0.5 * low) + my(-0.5 * low)) < 1e-12 * std::abs(my(low)));
    QVERIFY(std::abs(my(0.5 * low)) < std::abs(my(low)) && my(0.5 * low) * my(low) > 0.0);
    QVERIFY(std::abs(my(low - 1e-12) - my(low + 1e-12)) < 1e-9 * std::abs(my(low)));
    QVERIFY(std::abs(below - above) < 1e-4 * std::abs(my(low)));
  }

  /// Every partial derivative against central differences (steps 1e-6 of the input's scale).
  void partialsMatchDifferences() {
    const TyreProperty t = readTyreProperty(kTyres + "car_205_60R15_mf61_si.tir");
    double worst = 0.0;
    const double step[kMfInputs] = {1e-6, 1e-6, 1e-6, 1e-2, 1e-5};
    for (bool mirrored : {false, true})
      for (MfState s : grid()) {
        // E switches with the slip's sign, and |gamma| terms have their kink, at zero.
        if (s.kappa == 0.0 || s.alpha == 0.0 || s.gamma == 0.0) continue;
        MfPartials d{};
        magicFormula(t, s, mirrored, d);
        for (int i = 0; i < kMfInputs; ++i) {
          MfState p = s, m = s;
          double* pv[kMfInputs] = {&p.kappa, &p.alpha, &p.gamma, &p.fz, &p.vx};
          double* mv[kMfInputs] = {&m.kappa, &m.alpha, &m.gamma, &m.fz, &m.vx};
          *pv[i] += step[i];
          *mv[i] -= step[i];
          const MfForces fp = magicFormula(t, p, mirrored), fm = magicFormula(t, m, mirrored);
          for (int o = 0; o < kMfOutputs; ++o) {
            const double fd = (fp[o] - fm[o]) / (2.0 * step[i]);
            const double scale = std::max({std::abs(fd), std::abs(d[o][i]), 1.0});
            const double e = std::abs(d[o][i] - fd) / scale;
            worst = std::max(worst, e);
            QVERIFY2(e < 1e-5, qPrintable(QString("output %1 by input %2 at kappa %3 alpha %4 gamma %5 fz %6: %7 vs %8")
                                              .arg(o).arg(i).arg(s.kappa).arg(s.alpha).arg(s.gamma).arg(s.fz)
                                              .arg(d[o][i]).arg(fd)));
          }
        }
      }
    qInfo("partial derivatives against central differences: largest relative difference %.2e", worst);
  }

  /// Every problem in one pass, each with its line.
  void badFilesAreNamed() {
    std::string text = "[MDI_HEADER]\nFILE_TYPE = 'tir'\n[UNITS]\nLENGTH = 'meter'\nFORCE = 'newton'\n"
                       "ANGLE = 'radians'\nMASS = 'kg'\nTIME = 'second'\n[MODEL]\nFITTYP = 62\n"
                       "PROPERTY_FILE_FORMAT = 'MF_61'\nUSE_MODE = 7\n[DIMENSION]\nUNLOADED_RADIUS = 0.3\n"
                       "[VERTICAL]\nFNOMIN = 4000\nVERTICAL_STIFFNESS = 2e5\n[LATERAL_COEFFICIENTS]\nPKY9 = 1\n"
                       "PCY1 = 1.3\nPCY1 = 1.4\n[TYRE_COLOUR]\nBLACK = 1\n";
    try {
      parseTyreProperty(text, "bad.tir");
      QFAIL("no error");
    } catch (const ModelError& e) {
      const QString m = e.what();
      qInfo("%s", e.what());
      QVERIFY(m.contains("bad.tir"));
      QVERIFY(m.contains("line 10") && m.contains("name different versions"));
      QVERIFY(m.contains("line 12") && m.contains("USE_MODE 7"));
      QVERIFY(m.contains("line 19") && m.contains("PKY9"));
      QVERIFY(m.contains("line 21") && m.contains("PCY1"));
      QVERIFY(m.contains("line 22") && m.contains("TYRE_COLOUR"));
    }
  }
};

QTEST_APPLESS_MAIN(TestMagicFormula)
#include "tst_magic_formula.moc"
