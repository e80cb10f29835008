// SPDX-License-Identifier: GPL-3.0-or-later
// Every file the engine reads or writes is the same in every locale (issue 34): under de_DE.UTF-8
// (C and C++ global locales: the C library's strtod stops at a point, printf writes a comma) the
// shipped full vehicle with its road tables reads, and the project text, the results CSV, the
// K&C, frequency-response and modes CSVs, a study's results and the bushing-measurement CSV are
// byte for byte what the C locale writes.
#include <QTemporaryDir>
#include <QtTest>

#include <clocale>
#include <fstream>
#include <functional>
#include <locale>
#include <sstream>
#include <string>

#include "engine/analysis/bushing_dynamics.h"
#include "engine/analysis/kc.h"
#include "engine/analysis/linear_analysis.h"
#include "engine/analysis/simulation.h"
#include "engine/analysis/study_runner.h"
#include "engine/dynamics/outputs.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "engine/model/signal.h"

using namespace ek;

namespace {

const std::string kProjects = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs `write(folder)` in the C locale and in de_DE.UTF-8 and returns both folders' file.
struct TwoLocales {
  std::string c, de;
};

bool germanAvailable() { return std::setlocale(LC_ALL, "de_DE.UTF-8") && std::setlocale(LC_ALL, "C"); }

TwoLocales inBothLocales(const QTemporaryDir& dir, const std::string& name,
                         const std::function<void(const std::string& path)>& write) {
  TwoLocales out;
  std::setlocale(LC_ALL, "C");
  std::locale::global(std::locale::classic());
  write(dir.filePath(QString::fromStdString("c_" + name)).toStdString());
  std::setlocale(LC_ALL, "de_DE.UTF-8");
  std::locale::global(std::locale("de_DE.UTF-8"));
  try {
    write(dir.filePath(QString::fromStdString("de_" + name)).toStdString());
  } catch (...) {
    std::setlocale(LC_ALL, "C");
    std::locale::global(std::locale::classic());
    throw;
  }
  std::setlocale(LC_ALL, "C");
  std::locale::global(std::locale::classic());
  out.c = slurp(dir.filePath(QString::fromStdString("c_" + name)).toStdString());
  out.de = slurp(dir.filePath(QString::fromStdString("de_" + name)).toStdString());
  return out;
}

}  // namespace

class TestLocale : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    if (!germanAvailable()) QFAIL("the locale de_DE.UTF-8 is missing: scripts/setup-debian.sh generates it");
  }

  void fullVehicleRoadTablesRead() {
    const auto both = inBothLocales(dir_, "full_vehicle.json", [](const std::string& path) {
      const Project p = readProject(kProjects + "full_vehicle.json");
      const auto model = SuspensionModel::build(p);
      // The road profiles are tables of "0.000000"-style decimals.
      for (const auto& lc : p.loadCases) InputSignals tables(*model, lc);
      writeProject(p, path);
    });
    QVERIFY(!both.c.empty());
    QCOMPARE(both.de, both.c);
  }

  void resultsAndAnalysesAreTheSame() {
    const auto model = SuspensionModel::build(readProject(kProjects + "quarter_double_wishbone.json"));
    auto results = inBothLocales(dir_, "lc1.csv", [&](const std::string& path) {
      RunOptions o;
      o.start = 4.95;
      o.duration = 0.1;
      Simulation sim(model, "LC1", o);
      sim.run();
      writeCsv(sim.results(), path);
    });
    QVERIFY(results.c.find("0.001") != std::string::npos);
    QCOMPARE(results.de, results.c);
    auto kc = inBothLocales(dir_, "kc.csv", [&](const std::string& path) {
      KcOptions o;
      o.points = 11;
      writeKcCsv(runKc(*model, o), path);
    });
    QCOMPARE(kc.de, kc.c);
    const OperatingPoint point = designPoint(*model);
    auto modes = inBothLocales(dir_, "modes.csv",
                               [&](const std::string& path) { writeModesCsv(*model, computeModes(*model, point), path); });
    QCOMPARE(modes.de, modes.c);
    auto frf = inBothLocales(dir_, "frf.csv", [&](const std::string& path) {
      ResponseInput in;
      in.kind = ResponseInput::Kind::WheelLoad;
      in.index = 0;
      in.load = 2;
      FrequencyOptions o;
      o.points = 20;
      writeFrequencyResponseCsv(frequencyResponse(*model, point, in, responseChannels(*model), o), path);
    });
    QVERIFY(frf.c.find('.') != std::string::npos);
    QCOMPARE(frf.de, frf.c);
  }

  void studyResultsAreTheSame() {
    const std::string study = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/studies/oscillator_doe.study.json";
    auto rows = inBothLocales(dir_, "study.csv", [&](const std::string& path) {
      StudyContext c = loadStudy(study);
      c.study.resultsPath = path;
      ThreadExecutor one(c, 1);
      StudyRunOptions o;
      o.fresh = true;
      o.maxNewRuns = 3;
      runStudy(c, one, o);
      // Read back in the same locale: resuming parses what was written.
      QCOMPARE(readResults(c.study, path).size(), std::size_t(3));
    });
    QCOMPARE(rows.de, rows.c);
  }

  void bushingMeasurementIsTheSame() {
    auto csv = inBothLocales(dir_, "stiffness.csv", [&](const std::string& path) {
      const StiffnessMeasurement m =
          readStiffnessCsv(kProjects + "bushing_data/trailing_arm_x_noisy.csv");
      std::ofstream(path, std::ios::binary) << stiffnessCsvText(m, "measured");
    });
    QVERIFY(csv.c.find("frequency [Hz]") != std::string::npos);
    QCOMPARE(csv.de, csv.c);
  }
};

QTEST_GUILESS_MAIN(TestLocale)
#include "tst_locale.moc"
