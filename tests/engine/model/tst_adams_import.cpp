// SPDX-License-Identifier: GPL-3.0-or-later
// Import of Adams/Car-style property files (tests/data/adams, written by hand): every supported
// block of a bushing, spring, damper, bump and rebound stop file lands in the tables with the
// values expected in SI; the same bushing and spring in other unit systems give the same curves
// to round-off; blocks not imported are warned about by name; a malformed file names file, line
// and reason for every problem in one pass.
#include <QtTest>

#include <cmath>

#include "engine/core/error.h"
#include "engine/model/adams_import.h"
#include "engine/model/project_io.h"
#include "engine/model/validate.h"

using namespace ek;

namespace {

const std::string kRoot = ELASTOKIN_SOURCE_DIR;
const std::string kData = kRoot + "/tests/data/adams/";

Project corner() { return readProject(kRoot + "/projects/quarter_double_wishbone.json"); }

const CurveRow& curveOf(const Project& p, const LawRow& law) {
  for (const auto& c : p.curves)
    if (law.curve && c.id == *law.curve) return c;
  throw std::runtime_error("no curve");
}

bool hasWarning(const PropertyImport& r, const std::string& text) {
  for (const auto& w : r.warnings)
    if (w.text().find(text) != std::string::npos) return true;
  return false;
}

double largestDifference(const CurveRow& a, const CurveRow& b) {
  if (a.points.size() != b.points.size()) return INFINITY;
  double worst = 0.0;
  for (std::size_t k = 0; k < a.points.size(); ++k)
    for (int c = 0; c < 2; ++c)
      worst = std::max(worst, std::abs(a.points[k][c] - b.points[k][c]) / std::max(std::abs(a.points[k][c]), 1e-300));
  return worst;
}

}  // namespace

class TestAdamsImport : public QObject {
  Q_OBJECT
 private slots:
  void bushingFile() {
    const Project p = corner();
    const PropertyImport r = importPropertyFile(p, ImportTarget::Bushing, 3, kData + "bushing_mm_deg.bus");
    QCOMPARE(r.fileType, std::string("bus"));
    validate(r.project);
    const BushingRow& b = r.project.bushings[2];
    QCOMPARE(b.id, 3);
    const double deg = M_PI / 180;
    // x: a curve, mm and N -> m and N.
    const CurveRow& x = curveOf(r.project, b.directions[0].stiffness);
    QCOMPARE(x.points.size(), std::size_t(7));
    QCOMPARE(x.points.front()[0], -0.012);
    QCOMPARE(x.points.front()[1], -18000.0);
    QCOMPARE(x.interpolation, std::string("pchip"));
    QVERIFY(x.name.find("bushing_mm_deg") != std::string::npos);
    // y: a coefficient in N/mm.
    QVERIFY(!b.directions[1].stiffness.curve);
    QCOMPARE(b.directions[1].stiffness.coefficient, 2.5e6);
    // tx: degrees and N mm -> rad and N m.
    const CurveRow& tx = curveOf(r.project, b.directions[3].stiffness);
    QVERIFY(std::abs(tx.points.back()[0] - 20 * deg) < 1e-15);
    QVERIFY(std::abs(tx.points.back()[1] - 60.0) < 1e-12);
    QVERIFY(std::abs(b.directions[4].stiffness.coefficient - 43633.23 * 1e-3 / deg) < 1e-9);
    // Damping: a coefficient (N s/mm -> N s/m), a curve (mm/s -> m/s), a rotational coefficient.
    QVERIFY(std::abs(b.directions[0].damping.coefficient - 600.0) < 1e-12);
    const CurveRow& yd = curveOf(r.project, b.directions[1].damping);
    QCOMPARE(yd.points.front()[0], -0.1);
    QCOMPARE(yd.points.front()[1], -350.0);
    QVERIFY(std::abs(b.directions[3].damping.coefficient - 0.5236e-3 / deg) < 1e-12);
    // The preload block.
    QCOMPARE(b.directions[0].preload, 150.0);
    QVERIFY(std::abs(b.directions[5].preload + 2.0) < 1e-15);
    // Not in the file: kept. Not imported: warned by name, with the line.
    QVERIFY(b.directions[4].damping == p.bushings[2].directions[4].damping);
    for (const auto& w : r.warnings) qInfo("%s", w.text().c_str());
    QVERIFY(hasWarning(r, "kept as they were: ry damping, rz damping"));
    QVERIFY(hasWarning(r, "bushing_mm_deg.bus: line 17: warning: block [SHAPE] is not imported (the bushing's geometry"));
    QVERIFY(hasWarning(r, "block [HYSTERESIS] is not imported"));
    QCOMPARE(r.project.curves.size(), p.curves.size() + 4);  // x, z, tx stiffness; y damping
    QVERIFY(r.changes.size() >= 10);
  }

  // The same bushing in metre, radian, kilonewton and millisecond: the same tables to round-off.
  void bushingInAnotherUnitSystem() {
    const Project p = corner();
    const PropertyImport a = importPropertyFile(p, ImportTarget::Bushing, 3, kData + "bushing_mm_deg.bus");
    const PropertyImport b = importPropertyFile(p, ImportTarget::Bushing, 3, kData + "bushing_m_rad_kn_ms.bus");
    double worst = 0.0;
    for (int d = 0; d < 6; ++d) {
      const auto& da = a.project.bushings[2].directions[d];
      const auto& db = b.project.bushings[2].directions[d];
      for (const auto& [la, lb] : {std::pair{&da.stiffness, &db.stiffness}, std::pair{&da.damping, &db.damping}}) {
        QCOMPARE(la->curve.has_value(), lb->curve.has_value());
        if (la->curve) worst = std::max(worst, largestDifference(curveOf(a.project, *la), curveOf(b.project, *lb)));
        else worst = std::max(worst, std::abs(la->coefficient - lb->coefficient) / std::max(std::abs(la->coefficient), 1e-300));
      }
      worst = std::max(worst, std::abs(da.preload - db.preload) / std::max(std::abs(da.preload), 1.0));
    }
    qInfo("mm, deg, N, s against m, rad, kN, ms: largest relative difference %.2e", worst);
    QVERIFY(worst <= 1e-12);
  }

  void springDamperAndStops() {
    const Project p = corner();
    // Spring: compression vs compressive force -> tension vs extension; the free length.
    const PropertyImport s = importPropertyFile(p, ImportTarget::P2P, 1, kData + "spring_mm.spr");
    const P2PRow& spring = s.project.p2ps[0];
    QCOMPARE(*spring.freeLength, 0.38);
    const CurveRow& sc = curveOf(s.project, spring.spring);
    QCOMPARE(sc.points.size(), std::size_t(4));
    QCOMPARE(sc.points.front()[0], -0.15);  // 150 mm compression: extension -0.15 m
    QCOMPARE(sc.points.front()[1], -11000.0);
    QCOMPARE(sc.points.back()[0], 0.1);
    QCOMPARE(sc.points.back()[1], 6800.0);
    // The same spring in inch and pound-force.
    const PropertyImport si = importPropertyFile(p, ImportTarget::P2P, 1, kData + "spring_inch_lbf.spr");
    const double springDiff = largestDifference(sc, curveOf(si.project, si.project.p2ps[0].spring));
    qInfo("spring in mm, N against inch, lbf: largest relative difference %.2e", springDiff);
    QVERIFY(springDiff <= 1e-12);
    QVERIFY(std::abs(*si.project.p2ps[0].freeLength - 0.38) <= 1e-15);
    // Damper: mm/s -> m/s.
    const PropertyImport d = importPropertyFile(p, ImportTarget::P2P, 2, kData + "damper_mm.dpr");
    const CurveRow& dc = curveOf(d.project, d.project.p2ps[1].damper);
    QCOMPARE(dc.points.front()[0], -1.0);
    QCOMPARE(dc.points.back()[1], 2600.0);
    // Stops: penetration vs force; an existing stop keeps its clearance, a new one starts at 0.
    const PropertyImport b = importPropertyFile(p, ImportTarget::P2P, 3, kData + "bumpstop_mm.bst");
    const P2PRow& stops = b.project.p2ps[2];
    QCOMPARE(stops.bumpStop->clearance, p.p2ps[2].bumpStop->clearance);
    QCOMPARE(curveOf(b.project, stops.bumpStop->law).points.back()[0], 0.03);
    QVERIFY(!hasWarning(b, "clearance"));
    const PropertyImport r = importPropertyFile(b.project, ImportTarget::P2P, 1, kData + "rebound_mm.reb");
    QVERIFY(r.project.p2ps[0].reboundStop.has_value());
    QCOMPARE(r.project.p2ps[0].reboundStop->clearance, 0.0);
    QCOMPARE(curveOf(r.project, r.project.p2ps[0].reboundStop->law).points.back()[1], 6000.0);
    QVERIFY(hasWarning(r, "clearance is not part of the file: set to 0 m"));
    validate(r.project);
  }

  void malformedFilesNameLineAndReason() {
    const Project p = corner();
    try {
      (void)importPropertyFile(p, ImportTarget::Bushing, 3, kData + "bad_rows.bus");
      QFAIL("a malformed file was imported");
    } catch (const ModelError& e) {
      const QString m = e.what();
      qInfo("%s", e.what());
      QVERIFY(m.contains("bad_rows.bus: line 4: unknown LENGTH unit 'furlong'"));
      QVERIFY(m.contains("bad_rows.bus: line 10: a row of table {disp force} in [X_STIFFNESS] needs 2 numbers, found 3"));
      QVERIFY(m.contains("bad_rows.bus: line 11: \"abc\" in [X_STIFFNESS] is not a finite number"));
      QVERIFY(m.contains("bad_rows.bus: line 16: the first column of [Y_STIFFNESS] must increase strictly"));
      QVERIFY(m.contains("bad_rows.bus: line 18: DAMPING in [Z_DAMPING] must be a finite number, found 'fast'"));
      QVERIFY(m.contains("bad_rows.bus: line 19: expected an attribute"));
      QCOMPARE(m.count('\n'), 5);  // six problems, nothing reported twice
    }
    // The file type must fit the element, and the element must exist.
    try {
      (void)importPropertyFile(p, ImportTarget::Bushing, 3, kData + "spring_mm.spr");
      QFAIL("a spring file accepted onto a bushing");
    } catch (const ModelError& e) {
      QVERIFY2(QString(e.what()).contains("spring_mm.spr: line 3: a 'spr' file describes a P2P element"), e.what());
    }
    try {
      (void)importPropertyFile(p, ImportTarget::P2P, 99, kData + "spring_mm.spr");
      QFAIL("a missing element accepted");
    } catch (const ModelError& e) {
      QVERIFY2(QString(e.what()).contains("table 'p2p elements', row id 99") && QString(e.what()).contains("no such row"),
               e.what());
    }
    auto errorOf = [&](const std::string& text) {
      try {
        (void)importPropertyText(p, ImportTarget::P2P, 2, text, "memory.dpr");
      } catch (const ModelError& e) {
        return QString(e.what());
      }
      return QString();
    };
    QVERIFY(errorOf("[UNITS]\nLENGTH = 'mm'\n").contains("no [MDI_HEADER] block with FILE_TYPE"));
    QVERIFY(errorOf("[MDI_HEADER]\nFILE_TYPE = 'tir'\n").contains("memory.dpr: line 2: FILE_TYPE 'tir' is not supported"));
    QVERIFY(errorOf("[MDI_HEADER]\nFILE_TYPE = 'dpr'\n[CURVE]\n{v f}\n0 0\n1 1\n").contains("no [UNITS] block"));
    QVERIFY(errorOf("[MDI_HEADER]\nFILE_TYPE = 'dpr'\n[UNITS]\nLENGTH='mm'\nFORCE='newton'\n[CURVE]\n{v f}\n0 0\n1 1\n")
                .contains("[UNITS] has no TIME"));
    QVERIFY(errorOf("FILE_TYPE = 'dpr'\n").contains("memory.dpr: line 1: expected a block such as [MDI_HEADER]"));
    QVERIFY(errorOf("[MDI_HEADER\n").contains("line 1: a block name must be closed by ']'"));
    QVERIFY(errorOf("[MDI_HEADER]\nFILE_TYPE = 'dpr'\n[UNITS]\nLENGTH='mm'\nFORCE='newton'\nTIME='second'\n[CURVE]\n{v f}\n0 0\n")
                .contains("line 8: the table of [CURVE] needs at least 2 rows, found 1"));
  }
};

QTEST_APPLESS_MAIN(TestAdamsImport)
#include "tst_adams_import.moc"
