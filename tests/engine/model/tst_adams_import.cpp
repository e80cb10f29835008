// SPDX-License-Identifier: GPL-3.0-or-later
// Import of Adams/Car property files as real databases write them (tests/data/adams, made by
// scripts/make_adams_fixtures.py from laws defined in SI; DESIGN.md section 9): a bushing's
// [DAMPING] constants and [FX_CURVE] ... [TZ_CURVE] tables land in its directions with the values
// computed by hand in SI; the same bushing in mm/N/deg/s, m/kN/rad/ms and inch/lbf/deg/s gives the
// same laws to 1e-12; springs, dampers, bump and rebound stops too; every refusal (nothing
// usable, an unknown type or unit, a value or block given twice, a table and a constant for one
// direction, abscissae that do not increase, 94 bad rows reported once) names file, line and block.
#include <QElapsedTimer>
#include <QtTest>

#include <cmath>

#include "engine/core/error.h"
#include "engine/model/adams_import.h"
#include "engine/model/project_io.h"
#include "engine/model/teim_orbit.h"
#include "engine/model/validate.h"

using namespace ek;

namespace {

const std::string kRoot = ELASTOKIN_SOURCE_DIR;
const std::string kData = kRoot + "/tests/data/adams/";
constexpr double kDeg = M_PI / 180.0;

Project corner() { return readProject(kRoot + "/projects/quarter_double_wishbone.json"); }

const CurveRow& curveOf(const Project& p, const LawRow& law) {
  for (const auto& c : p.curves)
    if (law.curve && c.id == *law.curve) return c;
  throw std::runtime_error("no curve");
}

/// The curve's y at a point x it holds (the fixtures' tables hold the points checked).
double at(const CurveRow& c, double x) {
  for (const auto& p : c.points)
    if (std::abs(p[0] - x) <= 1e-12 * std::max(1.0, std::abs(x))) return p[1];
  throw std::runtime_error(c.name + ": no point at " + std::to_string(x));
}

bool near(double a, double b, double rel = 1e-12) { return std::abs(a - b) <= rel * std::max(std::abs(b), 1e-300); }

std::string errorsOf(const std::string& file) {
  try {
    (void)readPropertyFile(kData + file);
  } catch (const ModelError& e) {
    return e.what();
  }
  return {};
}

bool listed(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

class TestAdamsImport : public QObject {
  Q_OBJECT
 private slots:
  void bushingAsDatabasesWriteIt() {
    const Project before = corner();
    const PropertyImport r = importPropertyFile(before, ImportTarget::Bushing, 3, kData + "bushing_mm_deg.bus");
    QCOMPARE(r.fileType, std::string("bus"));
    QCOMPARE(r.units, std::string("mm, newton, degrees, second, kg"));
    const BushingRow& b = r.project.bushings[2];
    QCOMPARE(b.id, 3);
    // x: F = 1500 x + 30 x^3 [N, mm]: at 4 mm, 7920 N; at -10 mm, -45000 N.
    const CurveRow& x = curveOf(r.project, b.directions[0].stiffness);
    QCOMPARE(x.points.size(), std::size_t(11));
    QVERIFY(near(at(x, 0.004), 7920.0));
    QVERIFY(near(at(x, -0.010), -45000.0));
    QCOMPARE(x.interpolation, std::string("pchip"));
    // z: 400 z + 8 z^3: at 9 mm, 9432 N.
    QVERIFY(near(at(curveOf(r.project, b.directions[2].stiffness), 0.009), 9432.0));
    // rx: 4000 a + 2 a^3 [N mm, deg]: at 10 deg, 42 N m; ry: 60000 a + 500 a^3: at -4 deg, -272 N m.
    QVERIFY(near(at(curveOf(r.project, b.directions[3].stiffness), 10 * kDeg), 42.0));
    QVERIFY(near(at(curveOf(r.project, b.directions[4].stiffness), -4 * kDeg), -272.0));
    // [DAMPING]: 1.5 N s/mm = 1500 N s/m; 20 N mm s/deg = 0.02 / (pi/180) N m s/rad.
    QVERIFY(!b.directions[0].damping.curve && near(b.directions[0].damping.coefficient, 1500.0));
    QVERIFY(near(b.directions[2].damping.coefficient, 800.0));
    QVERIFY(near(b.directions[3].damping.coefficient, 0.02 / kDeg));
    QVERIFY(near(b.directions[5].damping.coefficient, 0.1 / kDeg));
    // Nothing else of the project changed; the geometry block is named as left out.
    QCOMPARE(r.project.bushings[1], before.bushings[1]);
    QVERIFY(listed(r.leftOut, "[SHAPE] (line 17): the geometry, for graphics only"));
    QCOMPARE(r.changes.size(), std::size_t(12));
    QVERIFY(!check(r.project).hasErrors());
  }

  void unitSystemsGiveTheSameLaws() {
    const Project p = corner();
    const PropertyImport mm = importPropertyFile(p, ImportTarget::Bushing, 3, kData + "bushing_mm_deg.bus");
    for (const char* other : {"bushing_m_rad_kn_ms.bus", "bushing_inch_lbf.bus"}) {
      const PropertyImport o = importPropertyFile(p, ImportTarget::Bushing, 3, kData + other);
      for (int d = 0; d < 6; ++d) {
        const CurveRow& a = curveOf(mm.project, mm.project.bushings[2].directions[d].stiffness);
        const CurveRow& c = curveOf(o.project, o.project.bushings[2].directions[d].stiffness);
        QCOMPARE(a.points.size(), c.points.size());
        for (std::size_t k = 0; k < a.points.size(); ++k)
          for (int q = 0; q < 2; ++q) QVERIFY2(near(c.points[k][q], a.points[k][q]), other);
        QVERIFY2(near(o.project.bushings[2].directions[d].damping.coefficient,
                      mm.project.bushings[2].directions[d].damping.coefficient),
                 other);
      }
    }
  }

  void springDamperAndStops() {
    const Project p = corner();
    // Spring: compression against compressive force, mirrored to tension against extension.
    const PropertyImport s = importPropertyFile(p, ImportTarget::P2P, 1, kData + "spring_mm.spr");
    const P2PRow& e = s.project.p2ps[0];
    QVERIFY(near(*e.freeLength, 0.31));
    const CurveRow& spring = curveOf(s.project, e.spring);
    QVERIFY(near(at(spring, -0.02), -600.0));  // 20 mm compression: 600 N in compression
    QVERIFY(near(at(spring, 0.04), 1200.0));   // 40 mm extension: 1200 N tension
    QVERIFY(near(at(spring, -0.1), -3080.0));  // 100 mm: 3000 + 0.05 * 40^2
    const PropertyImport si = importPropertyFile(p, ImportTarget::P2P, 1, kData + "spring_inch_lbf.spr");
    QVERIFY(near(*si.project.p2ps[0].freeLength, 0.31));
    const CurveRow& springIn = curveOf(si.project, si.project.p2ps[0].spring);
    for (std::size_t k = 0; k < spring.points.size(); ++k)
      for (int q = 0; q < 2; ++q) QVERIFY(near(springIn.points[k][q], spring.points[k][q]));
    // Damper: velocity [mm/s] against force [N], as Elastokin's (extension and tension positive).
    const PropertyImport d = importPropertyFile(p, ImportTarget::P2P, 2, kData + "damper_mm.dpr");
    const CurveRow& damper = curveOf(d.project, d.project.p2ps[1].damper);
    QVERIFY(near(at(damper, 0.1), 300.0));
    QVERIFY(near(at(damper, -0.5), -0.6 * 780.0));
    // Bump stop with its clearance; rebound stop without one (kept, with a warning).
    const PropertyImport bump = importPropertyFile(p, ImportTarget::P2P, 3, kData + "bumpstop_mm.bum");
    const StopRow& stop = *bump.project.p2ps[2].bumpStop;
    QVERIFY(near(stop.clearance, 0.035));
    QVERIFY(near(at(curveOf(bump.project, stop.law), 0.02), 4500.0));
    QVERIFY(listed(bump.leftOut, "[SHAPE]"));
    const PropertyImport reb = importPropertyFile(p, ImportTarget::P2P, 3, kData + "rebound_mm.reb");
    QVERIFY(near(at(curveOf(reb.project, reb.project.p2ps[2].reboundStop->law), 0.015), 12000.0));
    bool warned = false;
    for (const auto& w : reb.warnings) warned = warned || w.message.find("clearance is not in the file") != std::string::npos;
    QVERIFY(warned);
  }

  void refusalsNameFileLineAndBlock() {
    const std::string rows = errorsOf("bad_rows.bus");
    qInfo("%s", rows.c_str());
    QVERIFY(rows.find("bad_rows.bus: line 11: unknown LENGTH unit 'furlong' ('mm', ") != std::string::npos);
    // 94 rows of three columns: one message with the count.
    QVERIFY(rows.find("bad_rows.bus: line 19: a row of table {x fx} in [FX_CURVE] needs 2 numbers, found 3 values; "
                      "93 more rows of this table cannot be read either (up to line 112)") != std::string::npos);
    QCOMPARE(std::count(rows.begin(), rows.end(), '\n'), 1L);  // two errors, one per line
    const std::string twice = errorsOf("duplicates.bus");
    qInfo("%s", twice.c_str());
    QVERIFY(twice.find("line 15: LENGTH is given twice in [UNITS] (first at line 11 as mm, here as meter)") != std::string::npos);
    QVERIFY(twice.find("line 34: block [FZ_CURVE] appears twice (first at line 26)") != std::string::npos);
    const std::string conflicts = errorsOf("conflicts.bus");
    qInfo("%s", conflicts.c_str());
    QVERIFY(conflicts.find("[FX_DAMPING_CURVE] and FX_DAMPING in [DAMPING] (line 18) both give the x damping") !=
            std::string::npos);
    QVERIFY(conflicts.find("the first column of [FY_CURVE] must increase strictly (-5 after 0)") != std::string::npos);
    const std::string nothing = errorsOf("nothing.bus");
    QVERIFY(nothing.find("nothing.bus: nothing to import: a 'bus' file holds the tables [FX_CURVE] {x fx}") != std::string::npos);
    QVERIFY(nothing.find("this file has [MDI_HEADER], [UNITS], [SHAPE]") != std::string::npos);
    const std::string general = errorsOf("general.gbu");
    QVERIFY(general.find("line 3: FILE_TYPE 'gbu' is not one Elastokin imports (bus, spr, dpr, bum, reb, hbu") !=
            std::string::npos);
    // A bushing file onto a P2P element and a missing row.
    try {
      (void)importPropertyFile(corner(), ImportTarget::P2P, 1, kData + "bushing_mm_deg.bus");
      QFAIL("accepted");
    } catch (const ModelError& e) {
      QVERIFY(std::string(e.what()).find("a 'bus' file describes a bushing, not a row of the p2p elements table") != std::string::npos);
    }
    try {
      (void)importPropertyFile(corner(), ImportTarget::Bushing, 99, kData + "bushing_mm_deg.bus");
      QFAIL("accepted");
    } catch (const ModelError& e) {
      QVERIFY(std::string(e.what()).find("table 'bushings', row id 99, field '': no such row") != std::string::npos ||
              std::string(e.what()).find("table 'bushings', row id 99: no such row") != std::string::npos);
    }
  }

  // A value named twice (SPRING_RATE and STIFFNESS) and a table whose labels say its columns
  // are the other way round ({force disp}) are errors naming the line, not the last value
  // winning or a curve read backwards.
  void oneValueOnceAndColumnsAsLabelled() {
    const std::string head =
        "[MDI_HEADER]\n FILE_TYPE = 'spr'\n FILE_VERSION = 4.0\n FILE_FORMAT = 'ASCII'\n"
        "[UNITS]\n LENGTH = 'mm'\n FORCE = 'newton'\n ANGLE = 'degrees'\n MASS = 'kg'\n TIME = 'second'\n";
    auto errors = [](const std::string& text) -> std::string {
      try {
        (void)readPropertyText(text, "inline.spr");
      } catch (const ModelError& e) {
        return e.what();
      }
      return "accepted";
    };
    const std::string twice = errors(head + "[SPRING_DATA]\n FREE_LENGTH = 300\n SPRING_RATE = 30\n STIFFNESS = 45\n");
    QVERIFY2(twice.find("inline.spr: line 14: STIFFNESS in [SPRING_DATA] gives the spring rate a second time") != std::string::npos,
             twice.c_str());
    const std::string swapped =
        errors(head + "[SPRING_DATA]\n FREE_LENGTH = 300\n[CURVE]\n{ force disp }\n -600 -20\n 0 0\n 600 20\n");
    QVERIFY2(swapped.find("line 14: the table of [CURVE] is labelled {force disp}: the first column must be the displacement") !=
                 std::string::npos,
             swapped.c_str());
    // As labelled, the same numbers read.
    const PropertyData d = readPropertyText(head + "[SPRING_DATA]\n FREE_LENGTH = 300\n[CURVE]\n{ disp force }\n -20 -600\n 0 0\n 20 600\n",
                                            "inline.spr");
    QCOMPARE(d.law.table->points.size(), std::size_t(3));
  }

  // Reading is linear in the file's size: 100 000 sub-blocks and 200 000 attributes (each
  // compared with every earlier one took 27 s and 48 s) are read, a repeated one found; the time
  // is printed, not asserted (machines are shared).
  void manyBlocksAndAttributesReadInLinearTime() {
    std::string subs = "[MDI_HEADER]\n FILE_TYPE = 'bus'\n[MANY]\n";
    for (int k = 0; k < 100000; ++k) subs += "(S" + std::to_string(k) + ")\n";
    subs += "(S7)\n";
    std::string attrs = "[MDI_HEADER]\n FILE_TYPE = 'bus'\n[MANY]\n";
    for (int k = 0; k < 200000; ++k) attrs += " A" + std::to_string(k) + " = 1\n";
    attrs += " A12 = 2\n";
    for (const std::string* text : {&subs, &attrs}) {
      QElapsedTimer clock;
      clock.start();
      Diagnostics diag;
      const TeimFile f = parseTeimOrbit(*text, "many.bus", diag);
      qInfo("%zu bytes read in %lld ms", text->size(), static_cast<long long>(clock.elapsed()));
      QCOMPARE(diag.errorCount(), std::size_t(1));
      const std::string e = diag.text(Severity::Error);
      QVERIFY2(e.find(text == &subs ? "sub-block (S7) appears twice in [MANY] (first at line 11)"
                                    : "A12 is given twice in [MANY] (first at line 16 as 1, here as 2)") != std::string::npos,
               e.c_str());
      QCOMPARE(text == &subs ? f.block("MANY")->subBlocks.size() : f.block("MANY")->attributes.size(),
               std::size_t(text == &subs ? 100000 : 200000));
    }
  }

  void syntaxAsTheFormatAllows() {
    // Comments after '$' and '!' (also at the end of a line, not inside quotes), separator lines,
    // case-insensitive names, tabs, FORTRAN exponents, a text table in the header's comments.
    const std::string text =
        "$--------------------------------------------------------------------MDI_HEADER\n"
        "[mdi_header]\n\tFILE_TYPE = 'spr' ! a spring\n FILE_VERSION = 4.0\n(COMMENTS)\n{comment_string}\n"
        "'a comment with $ and ! inside quotes'\n"
        "[Units]\n length = 'MM' $ millimetres\n force = 'Newton'\n\n"
        "[SPRING_DATA]\n FREE_LENGTH = 3.0D2\n[CURVE]\n{ disp force }\n -1.0d1\t-3.0E2\n 0 0\n 1.0D1 300.0 ! end\n";
    const PropertyData d = readPropertyText(text, "inline.spr");
    QVERIFY(near(*d.freeLength, 0.3));
    QCOMPARE(d.law.table->points.size(), std::size_t(3));
    QVERIFY(near(d.law.table->points[0][0], -0.01) && near(d.law.table->points[0][1], -300.0));
    Diagnostics diag;
    const TeimFile f = parseTeimOrbit(text, "inline.spr", diag);
    QVERIFY(!diag.hasErrors());
    QCOMPARE(f.block("MDI_HEADER")->subBlocks.front().table->textRows.front(), std::string("a comment with $ and ! inside quotes"));
  }
};

QTEST_APPLESS_MAIN(TestAdamsImport)
#include "tst_adams_import.moc"
