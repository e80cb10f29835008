// SPDX-License-Identifier: GPL-3.0-or-later
// Measured K&C data: a rig's CSV read with its columns mapped and its units converted, the
// correlation of a sweep with itself (0) and with a shifted copy (the shift), every file problem
// named in one pass, and a study that fits a bushing to a "measured" sweep.
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "engine/analysis/kc_measured.h"
#include "engine/analysis/study.h"
#include "engine/analysis/study_runner.h"
#include "engine/model/project_io.h"
#include "engine/model/table_path.h"

using namespace ek;

namespace {

const std::string kProjects = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/";

/// A rig's export of a sweep: a comment line, a header in rig units (mm, deg, kN), semicolons.
/// `shiftDeg` is added to the toe column.
std::string rigCsv(const KcResult& r, const std::string& sweepHeader, double sweepToFile, double shiftDeg, int every) {
  const int toe = r.column("wheel left toe"), camber = r.column("wheel left camber"), cx = r.column("wheel left centre x");
  std::string text = "# K&C rig export, test vehicle, run 12\n" + sweepHeader +
                     ";Toe LF [deg];Camber LF [deg];Wheel centre X LF [mm];Steer rack force [kN]\n";
  char line[256];
  for (std::size_t k = 0; k < r.sweep.size(); k += every) {
    std::snprintf(line, sizeof line, "%.17g;%.17g;%.17g;%.17g;0.0\n", r.sweep[k] * sweepToFile,
                  r.values[k][toe] * 180 / M_PI + shiftDeg, r.values[k][camber] * 180 / M_PI, r.values[k][cx] * 1000);
    text += line;
  }
  return text;
}

const std::vector<std::pair<std::string, std::string>> kMapping = {
    {"Toe LF", "wheel left toe"}, {"Camber LF", "wheel left camber"}, {"Wheel centre X LF", "wheel left centre x"}};

/// A three-point parallel-travel sweep of the double wishbone, for files checked against it.
KcResult smallSweep() {
  const auto model = SuspensionModel::build(readProject(kProjects + "double_wishbone.json"));
  KcOptions o;
  o.points = 3;
  o.from = -0.001;
  o.to = 0.001;
  return runKc(*model, o);
}

/// The errors of reading `text` as a rig file against r's channels (and units), or "accepted".
QString measuredErrors(const QTemporaryDir& dir, const KcResult& r, const std::string& text,
                       const std::vector<std::pair<std::string, std::string>>& map, bool withUnits) {
  const std::string path = dir.filePath("bad.csv").toStdString();
  std::ofstream(path) << text;
  try {
    readMeasuredKc(path, map, r.columns, withUnits ? r.units : std::vector<std::string>{});
  } catch (const ModelError& e) {
    return QString(e.what());
  }
  return QString("accepted");
}

}  // namespace

class TestKcMeasured : public QObject {
  Q_OBJECT
 private slots:
  /// The sweep against itself, every 5th point in rig units: 0 to round-off; with the toe
  /// shifted by 0.1 deg: RMS and largest toe deviation 0.1 deg, the others 0.
  void correlationOfItselfAndAShiftedCopy() {
    const auto model = SuspensionModel::build(readProject(kProjects + "double_wishbone.json"));
    const KcResult r = runKc(*model, KcOptions{});
    QTemporaryDir dir;
    for (double shift : {0.0, 0.1}) {
      const std::string path = dir.filePath("rig.csv").toStdString();
      std::ofstream(path) << rigCsv(r, "Wheel travel LF [mm]", 1000.0, shift, 5);
      const MeasuredKc m = readMeasuredKc(path, kMapping, r.columns);
      QCOMPARE(int(m.sweep.size()), 33);
      QCOMPARE(int(m.columns.size()), 3);
      QCOMPARE(m.leftOut, std::vector<std::string>{"Steer rack force [kN]"});
      const auto c = correlate(r, m);
      QCOMPARE(int(c.size()), 3);
      for (const auto& k : c)
        qInfo("shift %.1f deg: %-22s RMS %.3e, largest %.3e %s over %d points", shift, k.channel.c_str(), k.rms, k.max,
              k.unit.c_str(), k.points);
      QCOMPARE(c[0].unit, std::string("deg"));
      QCOMPARE(c[2].unit, std::string("mm"));
      QVERIFY(std::abs(c[0].rms - shift) < 1e-9 && std::abs(c[0].max - shift) < 1e-9);
      // The rig reads `shift` more toe: computed - measured is -shift, everywhere, with its sign.
      QVERIFY(std::abs(c[0].mean + shift) < 1e-9 && std::abs(c[0].largest + shift) < 1e-9);
      QVERIFY(std::abs(c[0].largest) == c[0].max);
      QVERIFY(c[1].max < 1e-9 && c[2].max < 1e-9);
      QCOMPARE(c[0].points, 33);
    }
    // A falling sweep (rigs go from bump to rebound) reads the same.
    const std::string path = dir.filePath("falling.csv").toStdString();
    std::string text = rigCsv(r, "Wheel travel LF [mm]", 1000.0, 0.0, 5);
    {
      std::vector<std::string> rows;
      std::istringstream in(text);
      for (std::string l; std::getline(in, l);) rows.push_back(l);
      std::reverse(rows.begin() + 2, rows.end());
      text.clear();
      for (const auto& l : rows) text += l + "\n";
    }
    std::ofstream(path) << text;
    QVERIFY(correlate(r, readMeasuredKc(path, kMapping, r.columns))[0].max < 1e-9);
  }

  /// A rig's file as rigs write it: names in one row, units in the next (one bracketed, one
  /// column without), columns Elastokin does not compare in units it does not know (N/mm, s),
  /// and a loop 0 -> +60 -> -60 -> 0 mm whose falling branch reads 0.04 deg more toe (friction's
  /// hysteresis). Each branch is compared on its own: the rising ones to round-off, the falling
  /// one off by the 0.04 deg, and the loop's width is 0.04 deg for toe, 0 for camber.
  void rigLoopWithAUnitsRow() {
    const auto model = SuspensionModel::build(readProject(kProjects + "double_wishbone.json"));
    const KcResult r = runKc(*model, KcOptions{});  // -80 .. 80 mm in 1 mm
    const int toe = r.column("wheel left toe"), camber = r.column("wheel left camber");
    std::string text = "# SPMM export, run 7: parallel travel loop\n"
                       "Wheel travel LF;Toe LF;Camber LF;Spring rate LF;Time\n"
                       "mm;deg;[deg];N/mm;s\n";
    std::vector<std::pair<int, double>> path;  // (point of r, toe added)
    for (int k = 80; k <= 140; k += 5) path.push_back({k, 0.0});
    for (int k = 135; k >= 20; k -= 5) path.push_back({k, k == 20 ? 0.0 : 0.04});  // the turning points as measured rising
    for (int k = 25; k <= 80; k += 5) path.push_back({k, 0.0});
    char line[256];
    double time = 0.0;
    for (const auto& [k, extra] : path) {
      std::snprintf(line, sizeof line, "%.17g;%.17g;%.17g;33.4;%.2f\n", r.sweep[k] * 1000, r.values[k][toe] * 180 / M_PI + extra,
                    r.values[k][camber] * 180 / M_PI, time += 0.5);
      text += line;
    }
    QTemporaryDir dir;
    const std::string file = dir.filePath("loop.csv").toStdString();
    std::ofstream(file) << text;
    const MeasuredKc m = readMeasuredKc(file, {{"Toe LF", "wheel left toe"}, {"Camber LF", "wheel left camber"}}, r.columns, r.units);
    QCOMPARE(m.leftOut, (std::vector<std::string>{"Spring rate LF", "Time"}));
    QCOMPARE(int(m.branches.size()), 3);
    QCOMPARE(m.branchName(1), std::string("branch 2 of 3 (falling)"));
    QCOMPARE(int(m.sweep.size()), int(path.size()));
    QVERIFY(std::abs(m.sweep[0]) < 1e-12 && std::abs(m.sweep[12] - 0.06) < 1e-12);  // mm to m, the file's order
    const auto c = correlate(r, m);
    QCOMPARE(int(c.size()), 6);  // two channels, three branches
    for (const auto& k : c)
      qInfo("%-18s %-24s mean %+.3e RMS %.3e largest %+.3e %s (%d points), hysteresis %.3e", k.channel.c_str(),
            k.branch.c_str(), k.mean, k.rms, k.largest, k.unit.c_str(), k.points, k.hysteresis);
    QCOMPARE(c[1].branch, std::string("branch 2 of 3 (falling)"));
    QCOMPARE(c[0].points + c[1].points + c[2].points, int(path.size()) + 2);  // the turning points in two branches
    QVERIFY(c[0].max < 1e-9 && c[2].max < 1e-9);
    QVERIFY(std::abs(c[1].largest + 0.04) < 1e-9);  // computed - measured on the falling branch
    QVERIFY(std::abs(c[0].hysteresis - 0.04) < 1e-9 && c[0].hysteresis == c[1].hysteresis);
    for (int k = 3; k < 6; ++k) QVERIFY(c[k].max < 1e-9 && c[k].hysteresis < 1e-9);
  }

  /// Every problem of a file in one pass, each naming file, line and column; a file whose columns
  /// map to nothing is an error, not an empty comparison.
  void badFilesAreNamed() {
    const KcResult r = smallSweep();
    QTemporaryDir dir;
    auto errors = [&](const std::string& text, const std::vector<std::pair<std::string, std::string>>& map) {
      return measuredErrors(dir, r, text, map, false);
    };
    const QString all = errors("travel [furlong],Toe LF [deg],Camber LF [deg]\n0,0.1,0.2\n1,abc,0.3\n2,0.3\n",
                               {{"Toe LF", "wheel left toe"}, {"Camber LF", "wheel left camber"}, {"Caster LF", "wheel left caster"}});
    qInfo("%s", qPrintable(all));
    for (const char* expected :
         {"field 'travel [furlong]': unknown unit 'furlong'", "line 3, field 'Toe LF [deg]': 'abc' is not a finite decimal number",
          "line 4: 2 fields, the header has 3", "field 'Caster LF': the mapping names a column the file does not have"})
      QVERIFY2(all.contains(expected), expected);
    const QString nothing = errors("travel [mm],Toe LF [deg]\n0,0.1\n1,0.2\n", {});
    QVERIFY2(nothing.contains("no column maps to a channel of the sweep, so nothing would be compared"), qPrintable(nothing));
    const QString still = errors("travel [mm],wheel left toe [deg]\n0,0.1\n1,0.2\n1,0.1\n", {});
    QVERIFY2(still.contains("field 'travel [mm]': the swept quantity stands still from row to row (at 0.001 SI)"),
             qPrintable(still));
    const QString units = errors("travel [mm],Toe LF [deg],Camber LF\nmm,rad,deg,kN\n0,0.1,0.2\n1,0.2,0.3\n",
                                 {{"Toe LF", "wheel left toe"}, {"Camber LF", "wheel left camber"}});
    qInfo("%s", qPrintable(units));
    QVERIFY(units.contains("line 2: the units row has 4 fields, the header 3"));
    QVERIFY(units.contains("line 2, field 'Toe LF [deg]': the units row says 'rad', the header 'deg'"));
    const QString unknown = errors("travel [mm],Toe LF [deg]\n0,0.1\n1,0.2\n", {{"Toe LF", "wheel left tow"}});
    QVERIFY2(unknown.contains("mapped to 'wheel left tow', which is not a channel of the sweep"), qPrintable(unknown));
  }

  /// A column's unit measures what its channel does (toe in mm or kN is no toe); one column per
  /// channel and one mapping per column (the later replaced the earlier).
  void unitKindsAndOneColumnPerChannel() {
    const KcResult r = smallSweep();
    QTemporaryDir dir;
    auto errors = [&](const std::string& text, const std::vector<std::pair<std::string, std::string>>& map) {
      return measuredErrors(dir, r, text, map, true);
    };
    const QString kinds = errors("travel [mm],wheel left toe [mm],wheel left camber [kN],wheel left centre x [deg]\n0,1,2,3\n1,2,3,4\n", {});
    qInfo("%s", qPrintable(kinds));
    for (const char* expected : {"field 'wheel left toe [mm]': the unit 'mm' is a length, but the channel 'wheel left toe' is an angle (rad)",
                                 "field 'wheel left camber [kN]': the unit 'kN' is a force",
                                 "field 'wheel left centre x [deg]': the unit 'deg' is an angle, but the channel 'wheel left centre x' is a length (m)"})
      QVERIFY2(kinds.contains(expected), expected);
    const QString twice = errors("travel [mm],Toe LF [deg],Toe RF [deg]\n0,0.1,0.1\n1,0.2,0.2\n",
                                 {{"Toe LF", "wheel left toe"}, {"Toe RF", "wheel left toe"}, {"Toe LF", "wheel left camber"}});
    QVERIFY2(twice.contains("field 'Toe LF': the mapping names this column twice (to 'wheel left toe' and to 'wheel left camber')"), qPrintable(twice));
    QVERIFY2(twice.contains("field 'Toe RF [deg]': is the second column for the channel 'wheel left toe'"), qPrintable(twice));
    QCOMPARE(errors("travel [mm],wheel left toe [deg],wheel left toe x\n0,0.1,0\n1,0.2,0\n", {}), QString("accepted"));
    // A column not compared may have a unit Elastokin does not know (rigs write N/mm columns).
    QCOMPARE(errors("travel [mm],wheel left toe [deg],Spring rate LF [N/mm]\n0,0.1,30\n1,0.2,31\n", {}), QString("accepted"));
  }

  /// Fitting to measurements: a "measured" braking-force sweep of the double wishbone with its
  /// trailing-arm bushing 1.5 times as stiff; a study of "kc measured" criterion (RMS of the toe
  /// deviation) finds the stiffness scale back.
  void studyFitsABushingToMeasurements() {
    const Project base = readProject(kProjects + "double_wishbone.json");
    const auto stiffer = SuspensionModel::build(withTableValue(base, "curves/4/scale", 1.5));
    KcOptions o = defaultKcOptions(KcKind::StaticLoad);
    o.load = kFxContact;
    o.from = -3000;
    o.to = 3000;
    o.points = 25;
    const KcResult measured = runKc(*stiffer, o);
    QTemporaryDir dir;
    std::ofstream(dir.filePath("braking.csv").toStdString())
        << rigCsv(measured, "Fx LF [kN]", 1e-3, 0.0, 1);
    writeProject(base, dir.filePath("dw.json").toStdString());
    const std::string path = dir.filePath("fit.study.json").toStdString();
    std::ofstream(path) << R"({"project": "dw.json",
      "variables": [{"name": "k", "path": "curves/4/scale", "lower": 0.5, "upper": 3}],
      "criteria": [{"name": "toe vs rig", "kind": "kc measured", "analysis": "static-load", "load": "fx-contact",
                    "file": "braking.csv", "map": {"Toe LF": "wheel left toe"}, "channel": "wheel left toe", "points": 25}],
      "study": {"type": "optimization", "algorithm": "bobyqa", "objective": "toe vs rig", "tolerance": 1e-8}})";
    const StudyContext c = loadStudy(path);
    const DesignResult start = evaluateDesign(c, {1.0}), truth = evaluateDesign(c, {1.5});
    QVERIFY(start.ok && truth.ok);
    qInfo("RMS toe deviation: %.4g deg as modelled, %.3g deg at the measured stiffness", start.criteria[0], truth.criteria[0]);
    QVERIFY(truth.criteria[0] < 1e-9);
    QVERIFY(start.criteria[0] > 1e-3);
    ThreadExecutor threads(c, 1);
    const StudyOutcome out = runStudy(c, threads, {true});
    QCOMPARE(out.optimizations.size(), std::size_t(1));
    const auto& best = out.optimizations[0];
    qInfo("fitted stiffness scale %.6f (measured with 1.5), RMS %.3g deg, %d evaluations", best.best[0], best.bestCriteria[0],
          best.evaluations);
    QVERIFY(std::abs(best.best[0] - 1.5) < 1e-3);
    // A criterion whose channel the file does not map is named.
    std::ofstream(path) << R"({"project": "dw.json", "variables": [],
      "criteria": [{"name": "camber", "kind": "kc measured", "analysis": "static-load", "load": "fx-contact",
                    "file": "braking.csv", "map": {"Toe LF": "wheel left toe"}, "channel": "wheel left camber"}],
      "study": {"type": "evaluate"}})";
    try {
      (void)loadStudy(path);
      QFAIL("a channel without measured data was accepted");
    } catch (const ModelError& e) {
      QVERIFY2(QString(e.what()).contains("field 'channel': the measured file has no column for 'wheel left camber' "
                                          "(its columns map to 'wheel left toe')"),
               e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestKcMeasured)
#include "tst_kc_measured.moc"
