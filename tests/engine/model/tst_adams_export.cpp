// SPDX-License-Identifier: GPL-3.0-or-later
// Export of a project's bushing, spring, damper and stops as Adams property files (adams_export.h):
// import(export(x)) gives the same laws as x (the force at every deflection, inside and beyond
// the tables, to 1e-12 of the largest) for every type in mm/N/deg/s, m/N/rad/s and
// inch/lbf/deg/s; export(import(file)) read back holds the file's values; what a type cannot hold
// (Maxwell branches) is listed; the text is Adams' syntax (one [UNITS] block, tables with labels).
#include <QtTest>

#include <cmath>
#include <memory>

#include "engine/model/adams_export.h"
#include "engine/model/adams_import.h"
#include "engine/model/curve.h"
#include "engine/model/project_io.h"
#include "engine/model/teim_orbit.h"
#include "engine/model/validate.h"

using namespace ek;

namespace {

const std::string kRoot = ELASTOKIN_SOURCE_DIR;
const std::string kData = kRoot + "/tests/data/adams/";

/// The quarter axle with laws of every kind on bushing 3 and P2P elements 1 to 3.
Project testProject() {
  Project p = readProject(kRoot + "/projects/quarter_double_wishbone.json");
  int id = 100;
  auto curve = [&](std::vector<std::array<double, 2>> pts, const char* interp = "pchip", const char* extrap = "linear") {
    p.curves.push_back({id, "c" + std::to_string(id), interp, extrap, std::move(pts)});
    return LawRow{0.0, id++};
  };
  BushingRow& b = p.bushings[2];
  b.directions[0].stiffness = curve({{-0.01, -45000}, {-0.004, -7920}, {0, 0}, {0.004, 7920}, {0.01, 45000}});
  b.directions[1].stiffness = LawRow{2.5e6, std::nullopt};
  b.directions[2].stiffness = curve({{-0.015, -9000}, {0, 0}, {0.005, 2100}, {0.015, 9000}}, "linear", "constant");
  b.directions[3].stiffness = LawRow{230.0, std::nullopt};
  b.directions[4].stiffness = curve({{-0.2, -4000}, {-0.05, -700}, {0, 0}, {0.1, 1600}, {0.2, 4100}}, "spline");
  b.directions[5].stiffness = LawRow{3400.0, std::nullopt};
  b.directions[0].damping = curve({{-1, -2500}, {0, 0}, {0.2, 300}, {1, 1100}});
  for (int d = 1; d < 6; ++d) b.directions[d].damping = LawRow{d < 3 ? 1200.0 : 4.5, std::nullopt};
  b.directions[1].preload = 150.0;
  b.directions[5].preload = -2.5;
  b.directions[2].maxwell = {{2e5, 1500.0}};
  P2PRow& spring = p.p2ps[0];
  spring.spring = curve({{-0.1, -3080}, {-0.06, -1800}, {0, 0}, {0.04, 1200}});
  spring.preload = 250.0;
  P2PRow& damper = p.p2ps[1];
  damper.damper = LawRow{2800.0, std::nullopt};
  P2PRow& stops = p.p2ps[2];
  stops.bumpStop = StopRow{0.035, curve({{0, 0}, {0.005, 250}, {0.01, 800}, {0.02, 4500}})};
  stops.reboundStop = StopRow{0.06, LawRow{4e5, std::nullopt}};
  return p;
}

/// The value of a law at x, as the engine evaluates it.
double value(const Project& p, const LawRow& law, double x) {
  if (!law.curve) return law.coefficient * x;
  for (const CurveRow& c : p.curves)
    if (c.id == *law.curve) {
      std::vector<double> xs, ys;
      for (const auto& pt : c.points) xs.push_back(pt[0]), ys.push_back(pt[1]);
      Interpolation i{};
      Extrapolation e{};
      parseInterpolation(c.interpolation, i);
      parseExtrapolation(c.extrapolation, e);
      return Curve(xs, ys, i, e).eval(x).y;
    }
  throw std::runtime_error("no curve");
}

/// The largest difference of two laws over [-span, span] (inside and beyond their tables),
/// relative to the largest value.
double lawDifference(const Project& a, const LawRow& la, double offsetA, const Project& b, const LawRow& lb,
                     double offsetB, double span) {
  double worst = 0.0, scale = 0.0;
  for (int k = -200; k <= 200; ++k) {
    const double x = span * k / 100.0;  // twice the span: the extrapolation too
    const double va = offsetA + value(a, la, x), vb = offsetB + value(b, lb, x);
    worst = std::max(worst, std::abs(va - vb));
    scale = std::max(scale, std::abs(va));
  }
  return worst / std::max(scale, 1e-300);
}

PropertyImport reimport(const Project& target, PropertyType type, int id, const PropertyExport& e, const std::string& name) {
  const PropertyData d = readPropertyText(e.text, name);
  return importPropertyData(target, type == PropertyType::Bushing ? ImportTarget::Bushing : ImportTarget::P2P, id, d);
}

}  // namespace

class TestAdamsExport : public QObject {
  Q_OBJECT
 private slots:
  void roundTripEveryTypeAndUnitSet_data() {
    QTest::addColumn<QString>("units");
    QTest::newRow("mm N deg s") << "mm,newton,degrees,second";
    QTest::newRow("m N rad s") << "meter,newton,radians,second";
    QTest::newRow("inch lbf deg s") << "inch,pound_force,degrees,second,pound_mass";
  }
  void roundTripEveryTypeAndUnitSet() {
    QFETCH(QString, units);
    const PropertyUnits u = parseUnitList(units.toStdString());
    const Project x = testProject();
    QVERIFY(!check(x).hasErrors());
    // A target whose laws all differ, so that every law compared comes from the file.
    Project target = x;
    for (auto& d : target.bushings[2].directions) d = BushingDirectionRow{LawRow{1.0, std::nullopt}, LawRow{1.0, std::nullopt}, 0.0, {}, false};
    for (auto& e : target.p2ps) e.preload = 0.0;

    const PropertyExport bus = exportPropertyFile(x, PropertyType::Bushing, 3, u);
    QVERIFY(bus.text.find("[TZ_CURVE]") != std::string::npos && bus.text.find("[FX_DAMPING_CURVE]") != std::string::npos);
    QCOMPARE(bus.leftOut.size(), std::size_t(1));  // z's Maxwell branch
    const Project back = reimport(target, PropertyType::Bushing, 3, bus, "x.bus").project;
    double worstBus = 0.0, worstP2p = 0.0;  // printed: the round trips' largest relative errors
    for (int d = 0; d < 6; ++d) {
      const auto& o = x.bushings[2].directions[d];
      const auto& n = back.bushings[2].directions[d];
      const double span = d >= 3 ? 0.3 : 0.02;
      const double ds = lawDifference(x, o.stiffness, 0.0, back, n.stiffness, 0.0, span);
      const double dd = lawDifference(x, o.damping, 0.0, back, n.damping, 0.0, 1.5);
      QVERIFY2(ds <= 1e-12 && dd <= 1e-12, qPrintable(QString("direction %1: stiffness %2, damping %3").arg(d).arg(ds).arg(dd)));
      worstBus = std::max({worstBus, ds, dd});
      QVERIFY(std::abs(n.preload - o.preload) <= 1e-12 * std::max(1.0, std::abs(o.preload)));
    }
    // Spring (its preload folded into the curve), damper, both stops.
    const PropertyExport spr = exportPropertyFile(x, PropertyType::Spring, 1, u);
    const Project s = reimport(target, PropertyType::Spring, 1, spr, "x.spr").project;
    const double ds = lawDifference(x, x.p2ps[0].spring, x.p2ps[0].preload, s, s.p2ps[0].spring, s.p2ps[0].preload, 0.12);
    QVERIFY(ds <= 1e-12);
    QVERIFY(std::abs(*s.p2ps[0].freeLength - *x.p2ps[0].freeLength) <= 1e-12);
    const PropertyExport dpr = exportPropertyFile(x, PropertyType::Damper, 2, u);
    const Project d = reimport(target, PropertyType::Damper, 2, dpr, "x.dpr").project;
    const double dd = lawDifference(x, x.p2ps[1].damper, 0.0, d, d.p2ps[1].damper, 0.0, 2.0);
    QVERIFY(dd <= 1e-12);
    worstP2p = std::max(ds, dd);
    for (PropertyType t : {PropertyType::BumpStop, PropertyType::ReboundStop}) {
      const PropertyExport e = exportPropertyFile(x, t, 3, u);
      const Project r = reimport(target, t, 3, e, t == PropertyType::BumpStop ? "x.bum" : "x.reb").project;
      const bool bump = t == PropertyType::BumpStop;
      const StopRow& a = bump ? *x.p2ps[2].bumpStop : *x.p2ps[2].reboundStop;
      const StopRow& b = bump ? *r.p2ps[2].bumpStop : *r.p2ps[2].reboundStop;
      const double dl = lawDifference(x, a.law, 0.0, r, b.law, 0.0, 0.03);
      QVERIFY(dl <= 1e-12);
      QVERIFY(std::abs(a.clearance - b.clearance) <= 1e-12 * a.clearance);
      worstP2p = std::max(worstP2p, dl);
    }
    qInfo("%s: import(export(x)) against x, largest relative difference: bushing %.2e, spring/damper/stops %.2e",
          qPrintable(units), worstBus, worstP2p);
  }

  /// The fixtures imported and exported again in their own units hold the same numbers.
  void exportOfAnImportReadsBackTheSame() {
    const Project p = readProject(kRoot + "/projects/quarter_double_wishbone.json");
    struct Case {
      const char* file;
      PropertyType type;
      int id;
    };
    for (const Case& c : {Case{"bushing_mm_deg.bus", PropertyType::Bushing, 3}, Case{"bushing_inch_lbf.bus", PropertyType::Bushing, 3},
                          Case{"bushing_m_rad_kn_ms.bus", PropertyType::Bushing, 3}, Case{"spring_mm.spr", PropertyType::Spring, 1},
                          Case{"damper_mm.dpr", PropertyType::Damper, 2}, Case{"bumpstop_mm.bum", PropertyType::BumpStop, 3}}) {
      const PropertyData original = readPropertyFile(kData + c.file);
      Project imported = importPropertyData(p, c.type == PropertyType::Bushing ? ImportTarget::Bushing : ImportTarget::P2P, c.id,
                                            original).project;
      if (c.type == PropertyType::Spring) imported.p2ps[0].preload = 0.0;
      const PropertyExport e = exportPropertyFile(imported, c.type, c.id, original.units);
      const PropertyData again = readPropertyText(e.text, c.file);
      auto same = [&](const PropertyLaw& a, const PropertyLaw& b) {
        if (a.coefficient) return b.coefficient && std::abs(*a.coefficient - *b.coefficient) <= 1e-12 * std::abs(*a.coefficient);
        if (!a.table || !b.table || a.table->points.size() != b.table->points.size()) return false;
        for (std::size_t k = 0; k < a.table->points.size(); ++k)
          for (int q = 0; q < 2; ++q)
            if (std::abs(a.table->points[k][q] - b.table->points[k][q]) > 1e-12 * std::max(1e-9, std::abs(a.table->points[k][q])))
              return false;
        return true;
      };
      if (c.type == PropertyType::Bushing) {
        for (int d = 0; d < 6; ++d) {
          QVERIFY2(same(original.stiffness[d], again.stiffness[d]), c.file);
          QVERIFY2(same(original.damping[d], again.damping[d]), c.file);
        }
      } else {
        QVERIFY2(same(original.law, again.law), c.file);
      }
      QCOMPARE(again.units.describe(), original.units.describe());
    }
  }

  void elementSpecsAndErrors() {
    PropertyType t{};
    int id = 0;
    QVERIFY(parseExportElement("bushing:3", t, id) && t == PropertyType::Bushing && id == 3);
    QVERIFY(parseExportElement("reboundstop:12", t, id) && t == PropertyType::ReboundStop && id == 12);
    QVERIFY(!parseExportElement("bushing:", t, id) && !parseExportElement("spring:x", t, id) && !parseExportElement("p2p:1", t, id));
    const Project p = testProject();
    QVERIFY_THROWS_EXCEPTION(ModelError, exportPropertyFile(p, PropertyType::Bushing, 77, parseUnitList("mm,newton,degrees,second")));
    Project noStop = p;
    noStop.p2ps[0].bumpStop.reset();
    try {
      (void)exportPropertyFile(noStop, PropertyType::BumpStop, 1, parseUnitList("mm,newton,degrees,second"));
      QFAIL("exported a missing stop");
    } catch (const ModelError& e) {
      QVERIFY(std::string(e.what()).find("has no bump stop to export") != std::string::npos);
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseUnitList("mm,newton,degrees"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, parseUnitList("furlong,newton,degrees,second"));
  }

  // An export always reads back: a project name with a line break, a quote and a control
  // character stays one comment line; a value the chosen units cannot hold (forces of 1.7e306 N
  // in dyne: beyond a double) is an error, never "inf" in the file.
  void exportsAlwaysReadBack() {
    Project p = testProject();
    p.name = "axle 'A'\nline two\r\x01 end";
    const PropertyUnits u = parseUnitList("mm,newton,degrees,second");
    const PropertyExport e = exportPropertyFile(p, PropertyType::Bushing, 3, u);
    QVERIFY2(e.text.find("line two") != std::string::npos, e.text.c_str());
    Diagnostics diag;
    (void)parseTeimOrbit(e.text, "readback.bus", diag);
    QVERIFY2(!diag.hasErrors(), diag.text(Severity::Error).c_str());
    (void)reimport(p, PropertyType::Bushing, 3, e, "readback.bus");
    Project huge = testProject();
    for (auto& d : huge.bushings[2].directions) d.stiffness = LawRow{1.7e308, std::nullopt};
    try {
      (void)exportPropertyFile(huge, PropertyType::Bushing, 3, parseUnitList("mm,dyne,degrees,second"));
      QFAIL("exported a value that does not fit a number");
    } catch (const std::invalid_argument& ex) {
      QVERIFY2(QString(ex.what()).contains("does not fit a number; choose other units"), ex.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestAdamsExport)
#include "tst_adams_export.moc"
