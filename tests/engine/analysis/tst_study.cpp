// SPDX-License-Identifier: GPL-3.0-or-later
// Parameter studies on a body on a spring-damper pushed by a constant force (tests/data/studies):
// J(c) = int (x - x_static)^2 dt = x_static^2 (1 + 4 zeta^2) / (4 zeta omega) has its least value
// at damping ratio 0.5 and the derivative dJ/dc in closed form. Checked: the optimizers find it,
// the sensitivities equal the derivative, paper 001's multi-criterion finds its closed-form
// optimum, results are the same on 1 and 2 threads, a stopped study resumes with exactly the
// remaining runs and the same results file, failed runs are recorded and the study goes on, and
// bad study files are named with entry and field, all problems in one pass.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/analysis/study_runner.h"
#include "engine/analysis/kc.h"
#include "engine/core/text.h"
#include "engine/model/validate.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "engine/model/table_path.h"
#include "support/schema_check.h"

using namespace ek;

namespace {
const std::string kData = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/studies/";
constexpr double kMass = 10.0, kStiffness = 1000.0, kStatic = 0.01;

double zetaOf(double c) { return c / (2.0 * std::sqrt(kStiffness * kMass)); }
double closedFormJ(double c) {
  const double z = zetaOf(c), w = std::sqrt(kStiffness / kMass);
  return kStatic * kStatic * (1 + 4 * z * z) / (4 * z * w);
}
double closedFormDJdc(double c) {
  const double z = zetaOf(c), w = std::sqrt(kStiffness / kMass);
  return kStatic * kStatic / (4 * w) * (4 - 1 / (z * z)) / (2.0 * std::sqrt(kStiffness * kMass));
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

/// The header, then the rows sorted by run number.
std::string sortedRows(const std::string& path) {
  std::istringstream in(readAll(path));
  std::string header, line;
  std::getline(in, header);
  std::vector<std::pair<long long, std::string>> rows;
  while (std::getline(in, line)) rows.emplace_back(std::stoll(line), line);
  std::sort(rows.begin(), rows.end());
  std::string out = header + "\n";
  for (const auto& r : rows) out += r.second + "\n";
  return out;
}

StudyContext load(const std::string& name, const QTemporaryDir& dir) {
  StudyContext c = loadStudy(kData + name);
  c.study.resultsPath = dir.filePath(QString::fromStdString(name + ".results.csv")).toStdString();
  c.study.bestProjectPath = dir.filePath(QString::fromStdString(name + ".best.json")).toStdString();
  return c;
}

/// The errors of a study file written into dir (the project named by its absolute path).
QString studyErrors(const QTemporaryDir& dir, const std::string& text) {
  const std::string path = dir.filePath("bad.study.json").toStdString();
  std::ofstream(path) << text;
  try {
    (void)loadStudy(path);
  } catch (const ModelError& e) {
    return e.what();
  }
  return {};
}
}  // namespace

class TestStudy : public QObject {
  Q_OBJECT
 private slots:
  void optimizersFindDampingRatioOneHalf_data() {
    QTest::addColumn<QString>("method");
    for (const char* a : {"bobyqa", "cobyla", "direct", "mma", "slsqp"}) QTest::newRow(a) << QString(a);
  }
  void optimizersFindDampingRatioOneHalf() {
    QFETCH(QString, method);
    const std::string name = method.toStdString();
    const char* algorithm = name.c_str();
    QTemporaryDir dir;
    const std::string projectText = readAll(kData + "oscillator.json");
    {
      StudyContext c = load("oscillator_optimize.study.json", dir);
      c.study.settings.algorithm = algorithm;
      ThreadExecutor threads(c, 2);
      const StudyOutcome out = runStudy(c, threads, {true});
      QCOMPARE(out.optimizations.size(), std::size_t(1));
      const OptimizationResult& r = out.optimizations[0];
      const double zeta = zetaOf(r.best[0]);
      qInfo("%-6s: %3d evaluations, %3lld runs, best c = %.6g N s/m, damping ratio %.6f (error %.2e), J = %.8g "
            "(closed form %.8g)", algorithm, r.evaluations, out.newRuns, r.best[0], zeta, zeta / 0.5 - 1, r.bestObjective,
            closedFormJ(r.best[0]));
      QVERIFY(std::abs(zeta / 0.5 - 1) < 0.01);
      QVERIFY(r.best[0] >= 20.0 && r.best[0] <= 400.0);
      QVERIFY(std::abs(r.bestObjective / closedFormJ(r.best[0]) - 1) < 1e-3);
      QVERIFY(std::abs(r.startObjective / closedFormJ(60.0) - 1) < 1e-3);
      // The best design as a new project; the study's project is unchanged.
      const Project best = readProject(c.study.bestProjectPath);
      QCOMPARE(best.bushings[0].directions[0].damping.coefficient, r.best[0]);
      QCOMPARE(readAll(kData + "oscillator.json"), projectText);
      // Every run of the study is a row of the results file.
      QCOMPARE(readResults(c.study, c.study.resultsPath).size(), out.records.size());
    }
  }

  void limitsAreConstraints_data() {
    QTest::addColumn<QString>("method");
    for (const char* a : {"cobyla", "slsqp"}) QTest::newRow(a) << QString(a);
  }
  void limitsAreConstraints() {
    // Least int (x - xs)^2 dt with int v^2 dt = xs^2 omega / (4 zeta) at most 3.125e-4: zeta >= 0.8,
    // and as J grows for zeta > 0.5 the optimum is on the limit, c = 2 * 0.8 * sqrt(k m) = 160 N s/m.
    QFETCH(QString, method);
    QTemporaryDir dir;
    StudyContext c = load("oscillator_multi.study.json", dir);
    c.study.settings.objective = "settling";
    c.study.settings.algorithm = method.toStdString();
    c.study.criteria[1].atMost = 3.125e-4;
    c.study.settings.tolerance = 1e-6;  // SLSQP's steps near the active limit are short
    ThreadExecutor threads(c, 2);
    const StudyOutcome out = runStudy(c, threads, {true});
    const OptimizationResult& r = out.optimizations.at(0);
    qInfo("%-6s: %2d evaluations, %3lld runs, c = %.6g N s/m (on the limit: 160), int v^2 dt = %.6g (limit 3.125e-4); %s",
          qPrintable(method), r.evaluations, out.newRuns, r.best[0], r.bestCriteria[1], r.stopReason.c_str());
    QVERIFY(r.bestFeasible);
    QVERIFY(r.bestCriteria[1] <= 3.125e-4);
    QVERIFY(std::abs(r.best[0] / 160.0 - 1) < 0.01);
    // A method without constraints is refused for a study with limits.
    const std::string path = dir.filePath("limits.study.json").toStdString();
    std::ofstream(path) << "{\"project\": \"" + kData + "oscillator.json\", "
                           "\"variables\": [{\"path\": \"bushings/1/x.damping [N s/m]\", \"lower\": 20, \"upper\": 400}], "
                           "\"criteria\": [{\"name\": \"a\", \"load case\": \"step\", \"channel\": \"x\", "
                           "\"kind\": \"rms\", \"at most\": 1, \"at least\": 2}], "
                           "\"study\": {\"type\": \"optimization\", \"objective\": \"a\"}}";
    try {
      (void)loadStudy(path);
      QFAIL("limits with BOBYQA accepted");
    } catch (const ModelError& e) {
      QVERIFY(QString(e.what()).contains("field 'algorithm': the limits of 'a' are constraints, which only 'cobyla' and 'slsqp' handle (not 'bobyqa')"));
      QVERIFY(QString(e.what()).contains("field 'at least': the limits exclude every value"));
    }
  }

  void sensitivityIsTheAnalyticDerivative() {
    QTemporaryDir dir;
    StudyContext c = load("oscillator_sensitivity.study.json", dir);
    ThreadExecutor threads(c, 2);
    const StudyOutcome out = runStudy(c, threads, {true});
    QCOMPARE(out.sensitivities.size(), std::size_t(1));
    const Sensitivity& s = out.sensitivities[0];
    QVERIFY(s.ok);
    const double exact = closedFormDJdc(60.0);
    qInfo("dJ/dc = %.10g, closed form %.10g: relative error %.2e; normalized %.6f (closed form %.6f)", s.derivative, exact,
          std::abs(s.derivative / exact - 1), s.normalized, exact * 60.0 / closedFormJ(60.0));
    QVERIFY(std::abs(s.derivative / exact - 1) < 1e-4);
    QVERIFY(std::abs(s.value / closedFormJ(60.0) - 1) < 1e-6);
    QVERIFY(std::abs(s.normalized / (exact * 60.0 / closedFormJ(60.0)) - 1) < 1e-4);
  }

  void multiCriterionOfPaper001() {
    // psi = 1/2 J1/J1* + 1/2 J2/J2*, J1 = int (x - xs)^2 (least at zeta 0.5), J2 = int v^2 dt =
    // xs^2 omega / (4 zeta) (least at the bound, zeta 2): psi = (zeta + 1/(4 zeta))/2 + (2/zeta)/2,
    // least at zeta^2 = (1/8 + 1)/(1/2) = 2.25: zeta = 1.5, c = 300 N s/m, psi = 1.5.
    QTemporaryDir dir;
    StudyContext c = load("oscillator_multi.study.json", dir);
    ThreadExecutor threads(c, 2);
    const StudyOutcome out = runStudy(c, threads, {true});
    QCOMPARE(out.optimizations.size(), std::size_t(3));
    QVERIFY(std::abs(out.normalization[0] / closedFormJ(100.0) - 1) < 1e-3);
    QVERIFY(std::abs(out.normalization[1] / (kStatic * kStatic * 10.0 / (4 * 2.0)) - 1) < 1e-3);
    const OptimizationResult& m = out.optimizations[2];
    qInfo("single optima: c = %.6g and %.6g N s/m; multi: c = %.6g N s/m (closed form 300), psi = %.6f (1.5)",
          out.optimizations[0].best[0], out.optimizations[1].best[0], m.best[0], m.bestObjective);
    QVERIFY(std::abs(out.optimizations[0].best[0] / 100.0 - 1) < 0.01);
    QVERIFY(std::abs(out.optimizations[1].best[0] / 400.0 - 1) < 0.01);
    QVERIFY(std::abs(m.best[0] / 300.0 - 1) < 0.01);
    QVERIFY(std::abs(m.bestObjective / 1.5 - 1) < 1e-3);
  }

  void threadsAndResumeGiveTheSameResults() {
    QTemporaryDir dir;
    StudyContext one = load("oscillator_doe.study.json", dir);
    one.study.resultsPath = dir.filePath("one.csv").toStdString();
    ThreadExecutor single(one, 1);
    const StudyOutcome all = runStudy(one, single, {true});
    QCOMPARE(all.newRuns, 12LL);
    QVERIFY(!all.stopped);

    StudyContext two = one;
    two.study.resultsPath = dir.filePath("two.csv").toStdString();
    ThreadExecutor pair(two, 2);
    QCOMPARE(runStudy(two, pair, {true}).newRuns, 12LL);
    QCOMPARE(sortedRows(two.study.resultsPath), sortedRows(one.study.resultsPath));

    // Stopped after 5 runs, and a row cut off while it was written: resuming runs exactly the 7
    // others and the file ends up as the uninterrupted one (sorted).
    StudyContext cut = one;
    cut.study.resultsPath = dir.filePath("cut.csv").toStdString();
    ThreadExecutor pairCut(cut, 2);
    StudyRunOptions budget;
    budget.fresh = true;
    budget.maxNewRuns = 5;
    const StudyOutcome first = runStudy(cut, pairCut, budget);
    QVERIFY(first.stopped);
    QCOMPARE(first.newRuns, 5LL);
    std::ofstream(cut.study.resultsPath, std::ios::app) << "6,plan,ok,123.4";
    const StudyOutcome rest = runStudy(cut, pairCut, {});
    QVERIFY(!rest.stopped);
    QCOMPARE(rest.cachedRuns, 5LL);
    QCOMPARE(rest.newRuns, 7LL);
    QVERIFY(QString::fromStdString(rest.summary).contains("dropped the incomplete last line"));
    QCOMPARE(sortedRows(cut.study.resultsPath), sortedRows(one.study.resultsPath));

    // An empty results file (made by hand, or left by a full disk) gets the header before its rows.
    StudyContext empty = one;
    empty.study.resultsPath = dir.filePath("empty.csv").toStdString();
    std::ofstream(empty.study.resultsPath).close();
    ThreadExecutor pairEmpty(empty, 2);
    QCOMPARE(runStudy(empty, pairEmpty, {}).newRuns, 12LL);
    QCOMPARE(sortedRows(empty.study.resultsPath), sortedRows(one.study.resultsPath));
    std::ifstream firstLine(empty.study.resultsPath);
    std::string header;
    std::getline(firstLine, header);
    QVERIFY2(header.rfind("run,phase,status,damping,mass", 0) == 0, header.c_str());

    // An optimization resumes along the same path: the optimizer gets the same values back.
    StudyContext opt = load("oscillator_optimize.study.json", dir);
    ThreadExecutor optThreads(opt, 1);
    const StudyOutcome whole = runStudy(opt, optThreads, {true});
    const std::string wholeRows = sortedRows(opt.study.resultsPath);
    StudyRunOptions four;
    four.fresh = true;
    four.maxNewRuns = 4;
    QVERIFY(runStudy(opt, optThreads, four).stopped);
    const StudyOutcome resumed = runStudy(opt, optThreads, {});
    QCOMPARE(resumed.newRuns, whole.newRuns - 4);
    QCOMPARE(sortedRows(opt.study.resultsPath), wholeRows);
    QCOMPARE(resumed.optimizations[0].best, whole.optimizations[0].best);

    // The same study on a changed project, or with a changed criterion, does not resume the file.
    for (int change = 0; change < 2; ++change) {
      StudyContext changed = load("oscillator_optimize.study.json", dir);
      if (change == 0) changed.project.bodies[1].mass = 11.0;
      else changed.study.criteria[0].criterion.from = 0.5;
      ThreadExecutor changedThreads(changed, 1);
      try {
        (void)runStudy(changed, changedThreads, {});
        QFAIL("a results file of another project or criterion was resumed");
      } catch (const IoError& e) {
        QVERIFY2(QString(e.what()).contains("changed since these results were written"), e.what());
      }
      QCOMPARE(sortedRows(opt.study.resultsPath), wholeRows);
    }

    // A results file of another study is refused, not overwritten.
    StudyContext other = load("oscillator_sensitivity.study.json", dir);
    other.study.resultsPath = one.study.resultsPath;
    other.study.criteria[0].name = "renamed";
    ThreadExecutor otherThreads(other, 1);
    const std::string before = readAll(one.study.resultsPath);
    try {
      (void)runStudy(other, otherThreads, {});
      QFAIL("a results file with other columns was accepted");
    } catch (const IoError& e) {
      QVERIFY(QString(e.what()).contains("line 1: the columns are not this study's"));
    }
    QCOMPARE(readAll(one.study.resultsPath), before);
  }

  void reportingFailureStopsTheThreads() {
    // The results file failing mid-batch (here: the report throws at the third design) stops new
    // designs, joins the threads and reaches the caller; nothing terminates.
    QTemporaryDir dir;
    StudyContext c = load("oscillator_doe.study.json", dir);
    ThreadExecutor threads(c, 2);
    std::vector<std::vector<double>> designs(12, c.startValues);
    for (std::size_t k = 0; k < designs.size(); ++k) designs[k][0] = 40.0 + 10.0 * k;
    std::atomic<bool> stop{false};
    int reported = 0;
    try {
      threads.evaluate(designs, [&](std::size_t, const DesignResult&) {
        if (++reported == 3) throw IoError("disk full");
      }, stop);
      QFAIL("the report's exception was lost");
    } catch (const IoError& e) {
      QCOMPARE(QString(e.what()), QString("disk full"));
    }
    QCOMPARE(reported, 3);
  }

  void failedRunsAreRecordedAndTheStudyGoesOn() {
    // Damping from -100 to 300 N s/m: the designs with negative damping are not valid models.
    QTemporaryDir dir;
    StudyContext c = load("oscillator_doe.study.json", dir);
    c.study.variables[0].lower = -100.0;
    c.study.variables[0].upper = 300.0;
    ThreadExecutor threads(c, 2);
    const StudyOutcome out = runStudy(c, threads, {true});
    QCOMPARE(out.records.size(), std::size_t(12));
    int failed = 0;
    for (const StudyRecord& r : out.records) {
      QCOMPARE(r.result.ok, r.values[0] >= 0.0);
      if (!r.result.ok) {
        ++failed;
        QVERIFY2(QString::fromStdString(r.result.message).contains("damping"), r.result.message.c_str());
      }
    }
    QVERIFY(failed >= 2);
    QCOMPARE(out.failedRuns, static_cast<long long>(failed));
    const auto rows = readResults(c.study, c.study.resultsPath);
    QCOMPARE(rows.size(), std::size_t(12));
    for (const StudyRecord& r : rows)
      if (!r.result.ok) QVERIFY(!r.result.message.empty() && std::isnan(r.result.criteria[0]));
  }

  void shippedStudiesFollowTheSchemaAndCheck() {
    std::ifstream in(std::string(ELASTOKIN_SOURCE_DIR) + "/resources/study.schema.json");
    const test::Json schema = test::Json::parse(in);
    int n = 0;
    for (const std::string folder : {kData, std::string(ELASTOKIN_SOURCE_DIR) + "/projects/studies/"})
      for (const auto& f : std::filesystem::directory_iterator(folder)) {
        const std::string path = f.path().string();
        if (path.size() < 11 || path.compare(path.size() - 11, 11, ".study.json") != 0) continue;
        std::vector<std::string> problems;
        test::checkAgainstSchema(schema, schema, test::Json::parse(std::ifstream(path)), "$", problems);
        for (const auto& p : problems) qWarning("%s: %s", path.c_str(), p.c_str());
        QVERIFY(problems.empty());
        (void)loadStudy(path);  // reads and checks against its project
        ++n;
      }
    QVERIFY(n >= 6);
  }

  void kcMetricCriteria() {
    // A K&C metric of the design position as a criterion: the double wishbone's toe compliance
    // under braking against the trailing-arm bushing's stiffness; each design's value is the one
    // the K&C analysis gives for the changed project.
    QTemporaryDir dir;
    const std::string project = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json";
    const std::string path = dir.filePath("kc.study.json").toStdString();
    const std::string toe = "\"kind\": \"kc metric\", \"metric\": \"toe compliance, braking (-Fx at contact)\", \"wheel\": \"wheel left\"";
    std::ofstream(path) << "{\"project\": \"" + project + "\", "
                           "\"variables\": [{\"name\": \"k\", \"path\": \"curves/4/scale\", \"lower\": 0.5, \"upper\": 2}], "
                           "\"criteria\": [{\"name\": \"toe\", " + toe + "}, {\"name\": \"toe off 0.01\", " + toe +
                               ", \"reference\": 0.01, \"absolute\": true}, "
                           "{\"name\": \"rate\", \"kind\": \"kc metric\", \"metric\": \"wheel rate\", \"wheel\": \"wheel right\"}], "
                           "\"study\": {\"type\": \"evaluate\"}}";
    const StudyContext c = loadStudy(path);
    QVERIFY(c.study.loadCases().empty());
    for (double scale : {1.0, 2.0}) {
      const DesignResult r = evaluateDesign(c, {scale});
      QVERIFY2(r.ok, r.message.c_str());
      const auto model = SuspensionModel::build(withTableValue(c.project, "curves/4/scale", scale));
      double toe = 0, rate = 0;
      for (const KcMetric& m : designMetrics(*model, solveDesign(*model))) {
        if (m.name == "toe compliance, braking (-Fx at contact)" && m.wheel == "wheel left") toe = m.value;
        if (m.name == "wheel rate" && m.wheel == "wheel right") rate = m.value;
      }
      qInfo("stiffness scale %g: toe compliance %.6g deg/kN, wheel rate %.6g N/mm", scale, r.criteria[0], r.criteria[2]);
      QCOMPARE(r.criteria[0], toe);
      QCOMPARE(r.criteria[1], std::abs(toe - 0.01));
      QCOMPARE(r.criteria[2], rate);
    }
    QVERIFY(evaluateDesign(c, {2.0}).criteria[0] != evaluateDesign(c, {1.0}).criteria[0]);
    std::ofstream(path) << "{\"project\": \"" + project + "\", \"variables\": [], "
                           "\"criteria\": [{\"name\": \"a\", \"kind\": \"kc metric\", \"metric\": \"toe stiffness\"}, "
                           "{\"name\": \"b\", \"kind\": \"kc metric\", \"metric\": \"wheel rate\", \"wheel\": \"middle\"}, "
                           "{\"name\": \"c\", \"kind\": \"kc metric\", \"metric\": \"toe compliance, braking Fx at contact\"}], "
                           "\"study\": {\"type\": \"evaluate\"}}";
    try {
      (void)loadStudy(path);
      QFAIL("unknown metrics accepted");
    } catch (const ModelError& e) {
      QVERIFY(QString(e.what()).contains("row 1 ('a'), field 'metric': no K&C metric 'toe stiffness' (the project's: "));
      QVERIFY(QString(e.what()).contains("row 2 ('b'), field 'wheel': the metric 'wheel rate' is of the wheels 'wheel left', 'wheel right', not 'middle'"));
      // A name from before the compliances got their load directions' signs: the new name.
      QVERIFY(QString(e.what()).contains("row 3 ('c'), field 'metric': the K&C metric 'toe compliance, braking Fx at "
                                         "contact' is now 'toe compliance, braking (-Fx at contact)'"));
    }
  }

  // A flexible body's cells as design variables (docs/studies.md): the anti-roll bar's torsion
  // constant and modal damping ratio on the double wishbone with the flexible bar. Each design's
  // roll stiffness is the K&C analysis's of the changed project; a stiffer section stiffens the
  // axle in roll and the damping ratio leaves the static figure alone, while it changes a run's
  // criterion (the bar's modes ring less over the load case's bumps).
  void flexibleBodyCellsAsVariables() {
    QTemporaryDir dir;
    const std::string project = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone_flexible_bar.json";
    const std::string path = dir.filePath("bar.study.json").toStdString();
    const std::string torsion = "flexible bodies/1/section.torsion [m^4]", damping = "flexible bodies/1/damping ratio";
    std::ofstream(path) << "{\"project\": \"" + project + "\", "
                           "\"variables\": [{\"name\": \"J\", \"path\": \"" + torsion + "\", \"lower\": 1e-8, \"upper\": 1e-7}, "
                           "{\"name\": \"zeta\", \"path\": \"" + damping + "\", \"lower\": 0.01, \"upper\": 0.5}], "
                           "\"criteria\": [{\"name\": \"roll\", \"kind\": \"kc metric\", \"metric\": \"roll stiffness (wheel pads)\"}, "
                           "{\"name\": \"force rms\", \"load case\": \"LC1\", \"channel\": \"trailing arm bushing fx left\", "
                           "\"kind\": \"rms\", \"from [s]\": 4.0}], "
                           "\"study\": {\"type\": \"evaluate\"}}";
    const StudyContext c = loadStudy(path);
    const double j0 = tableValue(c.project, torsion);
    auto roll = [&](double j, double zeta) {
      const auto model = SuspensionModel::build(withTableValue(withTableValue(c.project, torsion, j), damping, zeta));
      for (const KcMetric& m : designMetrics(*model, solveDesign(*model)))
        if (m.name == "roll stiffness (wheel pads)") return m.value;
      return std::nan("");
    };
    const DesignResult base = evaluateDesign(c, {j0, 0.02}), stiffer = evaluateDesign(c, {2.0 * j0, 0.02});
    const DesignResult damped = evaluateDesign(c, {j0, 0.3});
    for (const DesignResult* r : {&base, &stiffer, &damped}) QVERIFY2(r->ok, r->message.c_str());
    qInfo("roll stiffness %.2f N m/deg (J %.3g m^4), %.2f (2 J), %.2f (zeta 0.3); trailing-arm force rms %.4f N, "
          "%.4f N (zeta 0.3)",
          base.criteria[0], j0, stiffer.criteria[0], damped.criteria[0], base.criteria[1], damped.criteria[1]);
    QCOMPARE(base.criteria[0], roll(j0, 0.02));
    QCOMPARE(stiffer.criteria[0], roll(2.0 * j0, 0.02));
    QVERIFY(stiffer.criteria[0] > 1.1 * base.criteria[0]);
    QVERIFY(std::abs(damped.criteria[0] / base.criteria[0] - 1.0) < 1e-9);
    QVERIFY(std::abs(damped.criteria[1] - base.criteria[1]) > 1e-9 * base.criteria[1]);  // beyond round-off
  }

  /// The project's K&C targets as limits: one criterion per target and wheel with the metric's
  /// value; COBYLA keeps the wheel centre's recession at least 2.2 mm/kN while it takes the toe
  /// compliance under braking towards zero (unconstrained: 1.89 mm/kN at the optimum), so the
  /// limit is active at the constrained optimum.
  void projectTargetsAsLimits() {
    QTemporaryDir dir;
    Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json");
    TargetRow recession;
    recession.id = 7;
    recession.metric = "wheel centre recession, braking (-Fx at contact)";
    recession.wheel = "wheel left";
    recession.lower = 2.2;
    recession.note = "ride comfort over cleats";
    TargetRow steer;
    steer.id = 8;
    steer.metric = "bump steer";
    steer.lower = -40.0;
    steer.upper = 0.0;
    p.targets = {recession, steer};
    const std::string project = dir.filePath("dw.json").toStdString();
    writeProject(p, project);
    QCOMPARE(readProject(project).targets, p.targets);  // the table round-trips
    const std::string path = dir.filePath("targets.study.json").toStdString();
    std::ofstream(path) << "{\"project\": \"dw.json\", "
                           "\"variables\": [{\"name\": \"k\", \"path\": \"curves/4/scale\", \"lower\": 0.5, \"upper\": 3}], "
                           "\"criteria\": [{\"name\": \"toe\", \"kind\": \"kc metric\", \"metric\": "
                           "\"toe compliance, braking (-Fx at contact)\", \"wheel\": \"wheel left\", \"absolute\": true}], "
                           "\"study\": {\"type\": \"optimization\", \"algorithm\": \"cobyla\", \"objective\": \"toe\", "
                           "\"targets as limits\": true, \"tolerance\": 1e-7}}";
    const StudyContext c = loadStudy(path);
    QStringList names;
    for (const auto& cr : c.study.criteria) names << QString::fromStdString(cr.name);
    QCOMPARE(names, QStringList({"toe", "target 7: wheel centre recession, braking (-Fx at contact) (wheel left)",
                                 "target 8: bump steer (wheel left)", "target 8: bump steer (wheel right)"}));
    QCOMPARE(*c.study.criteria[1].atLeast, 2.2);
    QVERIFY(!c.study.criteria[1].atMost);
    QCOMPARE(*c.study.criteria[2].atMost, 0.0);
    const DesignResult start = evaluateDesign(c, {1.0});
    QVERIFY(start.ok);
    qInfo("as modelled: recession %.6g mm/kN, bump steer %.6g deg/m", start.criteria[1], start.criteria[2]);
    QVERIFY(std::abs(start.criteria[1] - 2.6148) < 1e-3);
    ThreadExecutor threads(c, 1);
    const StudyOutcome out = runStudy(c, threads, {true});
    QVERIFY2(out.optimizations.size() == 1, "one optimization");
    const auto& best = out.optimizations[0];
    qInfo("constrained optimum: k = %.6g, toe %.3g deg/kN, recession %.6g mm/kN (at least 2.2), %s", best.best[0],
          best.bestCriteria[0], best.bestCriteria[1], best.bestFeasible ? "feasible" : "infeasible");
    QVERIFY(best.bestFeasible);
    QVERIFY(std::abs(best.bestCriteria[1] - 2.2) < 1e-4);  // the active limit
    QVERIFY(best.bestCriteria[0] > 1e-3);                  // the toe cannot reach zero there
    // A target whose metric the project does not have is named with the target's id.
    p.targets = {recession};
    p.targets[0].metric = "toe compliance, braking Fx at contact";
    writeProject(p, project);
    try {
      (void)loadStudy(path);
      QFAIL("an unknown target metric was accepted");
    } catch (const ModelError& e) {
      qInfo("%s", e.what());
      QVERIFY(QString(e.what()).contains("field 'targets as limits': the project's target 7 ('toe compliance, braking Fx at "
                                         "contact'): the metric is now 'toe compliance, braking (-Fx at contact)'"));
    }
  }

  /// Hardpoints as design variables: a marker's global coordinate moves both markers of its
  /// joint; "symmetric" moves the mirror-image joint with it (y mirrored). Raising the outer
  /// track rod joints 10 mm gives the bump steer the same move by marker cells gives
  /// (docs/python.md's kc_variants: -43.372 deg/m), equal on both sides.
  void hardpointVariables() {
    const std::string dw = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json";
    const Project p = readProject(dw);
    QCOMPARE(twinPath(p, "hardpoints/16/z [m]"), std::string("hardpoints/65/z [m]"));
    QCOMPARE(twinPath(p, "hardpoints/16/y [m]"), std::string("hardpoints/65/mirror y [m]"));
    QVERIFY(std::abs(tableValue(p, "hardpoints/65/mirror y [m]") - tableValue(p, "hardpoints/16/y [m]")) < 1e-9);
    QTemporaryDir dir;
    const std::string path = dir.filePath("tie_rod.study.json").toStdString();
    const double z0 = tableValue(p, "hardpoints/16/z [m]");
    std::ofstream(path) << "{\"project\": \"" + dw + "\", \"results\": \"" + dir.filePath("r.csv").toStdString() +
                               "\", \"best project\": \"" + dir.filePath("b.json").toStdString() + "\", "
                           "\"variables\": [{\"name\": \"tie rod z\", \"path\": \"hardpoints/16/z [m]\", \"symmetric\": true, "
                           "\"lower\": " + shortestText(z0 - 0.03) + ", \"upper\": " + shortestText(z0 + 0.03) + "}], "
                           "\"criteria\": [{\"name\": \"bs left\", \"kind\": \"kc metric\", \"metric\": \"bump steer\", \"wheel\": \"wheel left\"}, "
                           "{\"name\": \"bs right\", \"kind\": \"kc metric\", \"metric\": \"bump steer\", \"wheel\": \"wheel right\"}], "
                           "\"study\": {\"type\": \"evaluate\"}}";
    const StudyContext c = loadStudy(path);
    QCOMPARE(c.study.variables[0].twins, std::vector<std::string>{"hardpoints/65/z [m]"});
    const Project raised = applyDesign(c, {z0 + 0.010});
    for (const MarkerRow& m : raised.markers) {
      const MarkerRow* before = nullptr;
      for (const MarkerRow& b : p.markers)
        if (b.id == m.id) before = &b;
      const Vec3 d = markerPositionAsModelled(raised, m) - markerPositionAsModelled(p, *before);
      const bool joint = m.id == 16 || m.id == 17 || m.id == 65 || m.id == 66;
      // The joint's two markers end at one point: the named marker's, moved (they were 1e-9 apart).
      QVERIFY2((d - (joint ? Vec3(0, 0, 0.010) : Vec3::Zero())).norm() < (joint ? 1e-8 : 1e-15), qPrintable(QString::number(m.id)));
    }
    const DesignResult r = evaluateDesign(c, {z0 + 0.010});
    QVERIFY(r.ok);
    qInfo("outer track rod joints +10 mm: bump steer %.4f / %.4f deg/m (left / right)", r.criteria[0], r.criteria[1]);
    QVERIFY(std::abs(r.criteria[0] - r.criteria[1]) < 1e-6 * std::abs(r.criteria[0]));
    QVERIFY(std::abs(r.criteria[0] - (-43.3720)) < 1e-3);
  }

  // One identity per cell: two markers of one joint on one axis, or a hardpoint and a marker
  // position at its joint, are one cell (the later won, or the joint was torn apart).
  void aliasesOfOneCellAreErrors() {
    const std::string dw = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json";
    const Project p = readProject(dw);
    auto aliases = [&](std::vector<std::string> paths) { return aliasedCells(p, paths); };
    auto a = aliases({"hardpoints/16/z [m]", "hardpoints/17/z [m]"});
    QCOMPARE(a.size(), std::size_t(1));
    QVERIFY2(QString::fromStdString(a[0].message).contains("'hardpoints/17/z [m]' sets the same cell as 'hardpoints/16/z [m]' (the joint of marker 16, z [m])"),
             a[0].message.c_str());
    QCOMPARE(aliases({"hardpoints/16/y [m]", "hardpoints/17/y [m]"}).size(), std::size_t(1));
    a = aliases({"hardpoints/16/z [m]", "markers/17/position [m][3]"});
    QCOMPARE(a.size(), std::size_t(1));
    QVERIFY2(QString::fromStdString(a[0].message).contains("the position of marker 17, which the hardpoint moves with its joint"), a[0].message.c_str());
    QVERIFY(aliases({"hardpoints/16/z [m]", "hardpoints/16/x [m]", "hardpoints/65/z [m]", "bushings/3/x.stiffness [N/m]",
                     "bushings/3/y.stiffness [N/m]", "markers/30/position [m][1]", "markers/30/position [m][2]"})
                .empty());
    QTemporaryDir dir;
    const QString e = studyErrors(dir, std::string(
        "{\"project\": \"" + dw + "\", \"variables\": ["
        "{\"name\": \"a\", \"path\": \"hardpoints/16/z [m]\", \"lower\": -1, \"upper\": 1},"
        "{\"name\": \"b\", \"path\": \"hardpoints/17/z [m]\", \"lower\": -1, \"upper\": 1}],"
        "\"criteria\": [{\"name\": \"bs\", \"kind\": \"kc metric\", \"metric\": \"bump steer\", \"wheel\": \"wheel left\"}],"
        "\"study\": {\"type\": \"evaluate\"}}"));
    QVERIFY2(e.contains("table 'variables', row 2 ('b'), field 'path': 'hardpoints/17/z [m]' sets the same cell as "
                        "'hardpoints/16/z [m]' (the joint of marker 16, z [m]): give it once (variable 1, 'a')"),
             qPrintable(e));
  }

  void badStudyFilesAreNamed() {
    QTemporaryDir dir;
    const std::string project = kData + "oscillator.json";
    const QString e = studyErrors(dir, R"({
      "format": "elastokin-study", "version": 1, "project": ")" + project + R"(",
      "variables": [
        {"name": "k", "path": "bushings/1/x.stifness [N/m]", "lower": 1, "upper": 2},
        {"name": "c", "path": "bushings/1/x.damping [N s/m]", "lower": 400, "upper": 20},
        {"name": "m", "path": "bodies/1/mass [kg]", "lower": 1, "upper": 5, "colour": "red"}
      ],
      "criteria": [
        {"name": "a", "load case": "step", "channel": "z", "kind": "rms"},
        {"name": "b", "load case": "free", "channel": "push", "kind": "max"},
        {"name": "d", "load case": "step", "channel": "x", "kind": "value at", "time [s]": 9},
        {"name": "e", "load case": "nope", "channel": "x", "kind": "peak"}
      ],
      "study": {"type": "optimization", "algorithm": "newton", "objective": "f"}
    })");
    qInfo("%s", qPrintable(e));
    const QString file = dir.filePath("bad.study.json");
    QVERIFY(e.startsWith(file));
    QVERIFY(e.contains("table 'variables', row 1 ('k'), field 'path': 'bushings/1/x.stifness [N/m]': no field 'stifness [N/m]'"));
    QVERIFY(e.contains("table 'variables', row 2 ('c'), field 'upper': the bounds are reversed"));
    QVERIFY(e.contains("table 'variables', row 3 ('m'), field 'colour': unknown field"));
    QVERIFY(e.contains("table 'variables', row 3 ('m'), field 'lower': the project's value 10"));
    QVERIFY(e.contains("table 'criteria', row 1 ('a'), field 'channel': unknown channel 'z'"));
    QVERIFY(e.contains("table 'criteria', row 2 ('b'), field 'channel': the load case 'free' does not drive input 1"));
    QVERIFY(e.contains("table 'criteria', row 3 ('d'), field 'time [s]': the time 9"));
    QVERIFY(e.contains("table 'criteria', row 4 ('e'), field 'load case': the project has no load case 'nope'"));
    QVERIFY(e.contains("table 'criteria', row 4 ('e'), field 'kind': unknown criterion 'peak'"));
    QVERIFY(e.contains("table 'study', field 'algorithm': unknown algorithm 'newton' (known: 'bobyqa', 'cobyla', 'sbplx', 'direct'"));
    QVERIFY(e.contains("table 'study', field 'objective': no criterion named 'f'"));
    // Syntax errors with line and column; a missing project; the project as the best design's file.
    QVERIFY(studyErrors(dir, "{\n  \"project\": 3,\n}").contains("malformed JSON at line 3, column 1"));
    QVERIFY(studyErrors(dir, R"({"project": "missing.json", "variables": [], "criteria": [], "study": {"type": "evaluate"}})")
                .contains("field 'project': cannot use the project"));
    QVERIFY(studyErrors(dir, R"({"project": ")" + project + R"(", "best project": ")" + project +
                                 R"(", "variables": [], "criteria": [{"name": "a", "load case": "step", "channel": "x", "kind": "rms"}],
                                 "study": {"type": "evaluate"}})")
                .contains(QString::fromStdString("field 'best project': " + project + " is the study's project; the study writes it")));
  }

  /// What a study writes never replaces what it reads, one cell has one variable, bounds and names
  /// that would break the plans or the results file are refused (issue 34).
  void studyOutputsAndVariablesAreChecked() {
    QTemporaryDir dir;
    const std::string project = kData + "oscillator.json";
    const std::string study = dir.filePath("bad.study.json").toStdString();
    const std::string criteria = R"("criteria": [{"name": "a", "load case": "step", "channel": "x", "kind": "rms"}],
                                     "study": {"type": "doe", "points": 4})";
    auto withVariables = [&](const std::string& extra, const std::string& variables) {
      return "{\"project\": \"" + project + "\"" + extra + ", \"variables\": [" + variables + "], " + criteria + "}";
    };
    const std::string oneVariable = R"({"name": "c", "path": "bushings/1/x.damping [N s/m]", "lower": 20, "upper": 400})";
    QVERIFY(studyErrors(dir, withVariables(R"(, "best project": "bad.study.json")", oneVariable))
                .contains(QString::fromStdString("field 'best project': " + study + " is the study file; the study writes it")));
    QVERIFY(studyErrors(dir, withVariables(", \"results\": \"" + project + "\"", oneVariable))
                .contains(QString::fromStdString("field 'results': " + project + " is the study's project")));
    QDir(dir.path()).mkdir("folder");
    QVERIFY(studyErrors(dir, withVariables(R"(, "results": "folder")", oneVariable)).contains("field 'results': "));
    QVERIFY(studyErrors(dir, withVariables(R"(, "results": "folder")", oneVariable)).contains("folder is a folder; name a file"));
    QVERIFY(studyErrors(dir, "{\"project\": \"\", \"variables\": [" + oneVariable + "], " + criteria + "}")
                .contains("field 'project': is empty; name the project file"));
    QVERIFY(studyErrors(dir, withVariables(R"(, "best project": "bad.study.results.csv")", oneVariable))
                .contains("is also the results file"));
    QVERIFY(studyErrors(dir, withVariables(R"(, "best project": "bad.study.results.csv.fingerprint")", oneVariable))
                .contains("is the results' fingerprint file"));
    const QString e = studyErrors(dir, withVariables("", oneVariable + "," + R"(
        {"name": "c2", "path": "bushings/1/x.damping [N s/m]", "lower": 20, "upper": 400},
        {"name": "k", "path": "bushings/1/x.stiffness [N/m]", "lower": -1.7e308, "upper": 1.7e308},
        {"name": "line\nbreak", "path": "bodies/1/mass [kg]", "lower": 1, "upper": 20},
        {"name": "self", "path": "bushings/1/y.stiffness [N/m]", "twins": ["bushings/1/y.stiffness [N/m]"],
         "lower": 1, "upper": 2e5})"));
    qInfo("%s", qPrintable(e));
    QVERIFY(e.contains("row 2 ('c2'), field 'path': the cell 'bushings/1/x.damping [N s/m]' is also set by variable 1 ('c')"));
    QVERIFY(e.contains("row 3 ('k'), field 'upper': the range from -1.7e+308 to 1.7e+308 is wider than a number can hold"));
    QVERIFY(e.contains("field 'name': 'line\\nbreak' holds a control character"));
    QVERIFY(e.contains("row 5 ('self'), field 'twins': the cell 'bushings/1/y.stiffness [N/m]' is set twice by this variable"));
  }

  /// The fingerprint covers the files the project reads: editing a road profile's CSV after runs
  /// makes the old results another study's.
  void fingerprintCoversSignalTables() {
    QTemporaryDir dir;
    std::ifstream in(kData + "oscillator.json");
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["load cases"][0]["signals"][0] = {{"input", 1}, {"type", "table"}, {"file", "push.csv"}};
    const std::string projectPath = dir.filePath("p.json").toStdString();
    std::ofstream(projectPath) << doc.dump(1);
    std::ofstream(dir.filePath("push.csv").toStdString()) << "time [s],force [N]\n0,10\n4,10\n";
    const std::string studyPath = dir.filePath("s.study.json").toStdString();
    std::ofstream(studyPath) << R"({"project": "p.json", "variables": [{"name": "c", "path": "bushings/1/x.damping [N s/m]",
      "lower": 20, "upper": 400}], "criteria": [{"name": "a", "load case": "step", "channel": "x", "kind": "rms"}],
      "study": {"type": "evaluate"}})";
    const std::string before = studyFingerprint(loadStudy(studyPath));
    QCOMPARE(studyFingerprint(loadStudy(studyPath)), before);
    std::ofstream(dir.filePath("push.csv").toStdString()) << "time [s],force [N]\n0,10\n4,12\n";
    QVERIFY(studyFingerprint(loadStudy(studyPath)) != before);
    // A signal table as the best project is refused.
    std::ofstream(studyPath) << R"({"project": "p.json", "best project": "push.csv", "variables": [{"name": "c",
      "path": "bushings/1/x.damping [N s/m]", "lower": 20, "upper": 400}], "criteria": [{"name": "a", "load case": "step",
      "channel": "x", "kind": "rms"}], "study": {"type": "evaluate"}})";
    try {
      (void)loadStudy(studyPath);
      QFAIL("a signal table as the best project was accepted");
    } catch (const ModelError& e) {
      QVERIFY2(QString(e.what()).contains("field 'best project': ") && QString(e.what()).contains("is a file the project reads"),
               e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestStudy)
#include "tst_study.moc"
