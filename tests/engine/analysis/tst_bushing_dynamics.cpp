// SPDX-License-Identifier: GPL-3.0-or-later
// A bushing direction in the frequency domain: the complex stiffness of a project's direction,
// the dynamic-stiffness CSV reader (every problem named with file, line and column), and the
// identification of Maxwell branches: its analytic Jacobian against central differences, the
// generating parameters recovered from the shipped synthetic data (noise-free to 1e-6, noisy
// within the noise).
#include <QtTest>
#include <QTemporaryDir>
#include <fstream>

#include <cmath>
#include <random>

#include "engine/analysis/bushing_dynamics.h"
#include "engine/core/error.h"
#include "engine/model/project_io.h"

using namespace ek;

namespace {

const std::string kRoot = ELASTOKIN_SOURCE_DIR;
// The generating model of projects/bushing_data (scripts/make_bushing_data.py).
constexpr double kK0 = 5.0e5, kC0 = 600.0;
const std::vector<MaxwellBranchRow> kBranches{{1.5e5, 7500.0}, {1.0e5, 400.0}};

FitOptions options(bool fitStatic) {
  FitOptions o;
  o.branches = 2;
  o.fitStatic = fitStatic;
  o.start.k0 = fitStatic ? 3e5 : kK0;  // a poor first guess when fitted
  o.start.c0 = kC0;
  return o;
}

QString errorOf(const std::string& text) {
  try {
    (void)parseStiffnessCsv(text, "rig.csv");
  } catch (const ModelError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestBushingDynamics : public QObject {
  Q_OBJECT
 private slots:
  // The viscoelastic double wishbone's trailing-arm bushing x: k0 is the static curve's slope at
  // 0, c0 the damper, and the complex stiffness the closed form.
  void complexStiffnessOfAProjectDirection() {
    const Project p = readProject(kRoot + "/projects/double_wishbone_viscoelastic.json");
    const BushingRow* b = nullptr;
    for (const auto& row : p.bushings)
      if (row.name == "trailing arm front bushing left") b = &row;
    QVERIFY(b);
    const DirectionDynamics d = directionDynamics(p, *b, 0);
    QCOMPARE(d.k0, kK0);
    QCOMPARE(d.c0, kC0);
    QVERIFY(d.branches == kBranches);
    QVERIFY(!d.rotational && directionDynamics(p, *b, 3).rotational);
    const double w = 2 * M_PI * 10.0;
    const std::complex<double> j(0, 1);
    std::complex<double> K = kK0 + j * w * kC0;
    for (const auto& br : kBranches) K += br.stiffness * j * w * br.damping / (br.stiffness + j * w * br.damping);
    QVERIFY(std::abs(complexStiffness(d, 10.0) - K) <= 1e-12 * std::abs(K));
    qInfo("10 Hz: |K| / k0 = %.4f, loss angle %.2f deg", std::abs(K) / kK0, std::arg(K) * 180 / M_PI);
    QVERIFY(std::abs(std::abs(K) / kK0 - 1.3012) < 1e-4);  // projects/README.md
    // A direction without branches: k0 + j w c0.
    const DirectionDynamics y = directionDynamics(p, *b, 1);
    QVERIFY(std::abs(complexStiffness(y, 5.0) - std::complex<double>(2.5e6, 2 * M_PI * 5.0 * 2500.0)) < 1e-6);
  }

  // The fit's Jacobian (log parameters) against central differences of its residuals.
  void fitJacobianMatchesDifferences() {
    const StiffnessMeasurement m = readStiffnessCsv(kRoot + "/projects/bushing_data/trailing_arm_x_noisy.csv");
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    for (bool fitStatic : {true, false}) {
      const FitOptions o = options(fitStatic);
      const int n = (fitStatic ? 1 : 0) + 2 * o.branches;
      Eigen::VectorXd x(n);
      for (int k = 0; k < n; ++k) x[k] = (k % 2 == (fitStatic ? 1 : 0) ? std::log(1e5) : std::log(50.0)) + U(rng);
      Eigen::VectorXd r, rp, rm;
      Eigen::MatrixXd J;
      fitResiduals(m, o, x, r, &J);
      double worst = 0.0;
      for (int k = 0; k < n; ++k) {
        Eigen::VectorXd xp = x, xm = x;
        xp[k] += 1e-6, xm[k] -= 1e-6;
        fitResiduals(m, o, xp, rp, nullptr);
        fitResiduals(m, o, xm, rm, nullptr);
        const Eigen::VectorXd fd = (rp - rm) / 2e-6;
        worst = std::max(worst, (J.col(k) - fd).cwiseAbs().maxCoeff() / std::max(fd.cwiseAbs().maxCoeff(), 1e-300));
      }
      qInfo("fit static %d: %d parameters, largest column error %.2e", int(fitStatic), n, worst);
      QVERIFY(worst <= 1e-6);
    }
  }

  // The noise-free synthetic data: the generating parameters to 1e-6 relative, with k0 fitted
  // and with k0 fixed at the curve's slope.
  void recoversTheGeneratingParameters() {
    const StiffnessMeasurement m = readStiffnessCsv(kRoot + "/projects/bushing_data/trailing_arm_x_exact.csv");
    QCOMPARE(m.points.size(), std::size_t(24));
    for (bool fitStatic : {true, false}) {
      const FitResult f = fitMaxwellBranches(m, options(fitStatic));
      double worst = std::abs(f.model.k0 / kK0 - 1.0);
      QCOMPARE(f.model.branches.size(), kBranches.size());
      for (std::size_t i = 0; i < kBranches.size(); ++i) {
        // Sorted by relaxation rate k/c: 20 and 250 1/s.
        worst = std::max(worst, std::abs(f.model.branches[i].stiffness / kBranches[i].stiffness - 1.0));
        worst = std::max(worst, std::abs(f.model.branches[i].damping / kBranches[i].damping - 1.0));
      }
      qInfo("noise-free, fit static %d: k0 %.9g, branches (%.9g, %.9g), (%.9g, %.9g); largest relative error %.2e; "
            "RMS residual %.2e; %d iterations, %s",
            int(fitStatic), f.model.k0, f.model.branches[0].stiffness, f.model.branches[0].damping,
            f.model.branches[1].stiffness, f.model.branches[1].damping, worst, f.rmsComplex, f.iterations,
            f.status.c_str());
      QVERIFY(worst <= 1e-6);
      QCOMPARE(f.model.c0, kC0);  // the bushing's own damper is kept
    }
  }

  // The noisy data (1 % magnitude, 0.3 deg loss angle): every parameter within 3 standard errors
  // of the generating one (from the residual variance and the Jacobian), and the residual the
  // size of the noise.
  void noisyDataWithinTheNoise() {
    const StiffnessMeasurement m = readStiffnessCsv(kRoot + "/projects/bushing_data/trailing_arm_x_noisy.csv");
    const FitResult f = fitMaxwellBranches(m, options(true));
    const std::vector<double> truth{std::log(kK0), std::log(kBranches[0].stiffness),
                                    std::log(kBranches[0].stiffness / kBranches[0].damping),
                                    std::log(kBranches[1].stiffness),
                                    std::log(kBranches[1].stiffness / kBranches[1].damping)};
    std::vector<double> fitted{std::log(f.model.k0)};
    for (const auto& b : f.model.branches) fitted.push_back(std::log(b.stiffness)), fitted.push_back(std::log(b.stiffness / b.damping));
    QCOMPARE(f.logStandardErrors.size(), truth.size());
    const char* names[] = {"k0", "k1", "k1/c1", "k2", "k2/c2"};
    for (std::size_t q = 0; q < truth.size(); ++q) {
      const double z = (fitted[q] - truth[q]) / f.logStandardErrors[q];
      qInfo("%-6s fitted %.6g, generating %.6g: %+.2f %% (standard error %.2f %%, %+.2f standard errors)", names[q],
            std::exp(fitted[q]), std::exp(truth[q]), 100 * (std::exp(fitted[q] - truth[q]) - 1.0),
            100 * f.logStandardErrors[q], z);
      QVERIFY(std::abs(z) <= 3.0);
    }
    qInfo("RMS residual: magnitude %.2f %%, loss angle %.3f deg (noise 1 %%, 0.3 deg)", 100 * f.rmsMagnitude,
          f.rmsLossAngle * 180 / M_PI);
    QVERIFY(f.rmsMagnitude > 0.005 && f.rmsMagnitude < 0.015);
    QVERIFY(f.rmsLossAngle * 180 / M_PI > 0.1 && f.rmsLossAngle * 180 / M_PI < 0.5);
  }

  // Units are converted; bad files give every problem with file, line and column in one pass.
  void readerConvertsUnitsAndNamesProblems() {
    const StiffnessMeasurement mm = parseStiffnessCsv(
        "# comment\nloss angle [rad];frequency [Hz];dynamic stiffness [N/mm];amplitude [mm]\n0.1;10;500;1\n0.2;1;400;1\n0.15;5;450;1\n",
        "rig.csv");
    QCOMPARE(mm.points.size(), std::size_t(3));
    QCOMPARE(mm.points[0].frequency, 1.0);  // sorted by frequency
    QCOMPARE(mm.points[0].magnitude, 4e5);
    QCOMPARE(mm.points[0].lossAngle, 0.2);
    QVERIFY(!mm.rotational);
    const StiffnessMeasurement rot =
        parseStiffnessCsv("frequency [Hz],magnitude [N m/deg],loss angle [deg]\n1,10,5\n2,11,6\n3,12,7\n", "rig.csv");
    QVERIFY(rot.rotational);
    QVERIFY(std::abs(rot.points[0].magnitude - 10 * 180 / M_PI) < 1e-9);
    QVERIFY(std::abs(rot.points[0].lossAngle - 5 * M_PI / 180) < 1e-15);

    const QString bad = errorOf(
        "frequency [Hz],magnitude [N/m],loss angle [deg]\n1,1e5,5\n-2,1e5,5\n3,abc,5\n4,1e5,95\n5,0,5\n6,1e5\n");
    qInfo("%s", qPrintable(bad));
    QVERIFY(bad.contains("rig.csv: line 3, column 1: the frequency must be positive"));
    QVERIFY(bad.contains("rig.csv: line 4, column 2: \"abc\" is not a finite decimal number"));
    QVERIFY(bad.contains("rig.csv: line 5, column 3: the loss angle must lie in 0 ... 90 deg"));
    QVERIFY(bad.contains("rig.csv: line 6, column 2: the magnitude must be positive"));
    QVERIFY(bad.contains("rig.csv: line 7, column 3: the line has 2 columns, column 3 is missing"));

    const QString missing = errorOf("# data\nfrequency [Hz],magnitude [N/m]\n1,1e5\n");
    QVERIFY2(missing.contains("rig.csv: line 2: the first line that is not a comment must be the header; "
                              "missing column 'loss angle [deg]'"),
             qPrintable(missing));
    const QString noHeader = errorOf("1,1e5,5\n2,1e5,5\n");
    QVERIFY(noHeader.contains("missing column 'frequency [Hz]'") && noHeader.contains("line 1"));
    QVERIFY(errorOf("frequency [Hz],magnitude [lbf/in],loss angle [deg]\n").contains("unknown unit [lbf/in]"));
    QVERIFY(errorOf("frequency [Hz],magnitude [N/m],loss angle [deg]\n1,1e5,5\n").contains("at least 3 points"));
    QVERIFY_THROWS_EXCEPTION(ModelError, readStiffnessCsv(kRoot + "/projects/bushing_data/no_such_file.csv"));
  }

  void fitRefusesWhatItCannotDetermine() {
    const StiffnessMeasurement m =
        parseStiffnessCsv("frequency [Hz],magnitude [N/m],loss angle [deg]\n1,1e5,5\n2,1.1e5,6\n3,1.2e5,7\n", "rig.csv");
    FitOptions o = options(true);
    o.branches = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fitMaxwellBranches(m, o));
    o.branches = 3;  // 7 parameters from 6 values
    try {
      fitMaxwellBranches(m, o);
      QFAIL("an underdetermined fit accepted");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("3 points cannot determine 7 parameters"), e.what());
    }
  }

  // A hydro bushing file (Adams 'hbu', tests/data/adams/hydro_mm.hbu: dynamic stiffness [N/mm] and
  // loss angle [deg] over frequency at 0.5 and 1 mm, made from k0 = 300 N/mm and branches
  // (200 N/mm, 1.5 N s/mm), (500 N/mm, 0.2 N s/mm) at 0.5 mm): the import fits the smallest
  // amplitude and recovers them; another amplitude on request; an amplitude the file lacks is refused.
  void hydroBushingFileIsIdentified() {
    const std::string root = ELASTOKIN_SOURCE_DIR;
    Project p = readProject(root + "/projects/quarter_double_wishbone.json");
    p.bushings[2].directions[2].damping = LawRow{2500.0, std::nullopt};  // replaced by the branches
    const PropertyData data = readPropertyFile(root + "/tests/data/adams/hydro_mm.hbu");
    QCOMPARE(data.hydro.size(), std::size_t(2));
    QCOMPARE(data.hydro[0].direction, 2);
    QCOMPARE(data.hydro[0].points.size(), std::size_t(13));
    HydroImportOptions o;
    const HydroImport r = importHydroBushing(p, 3, data, o);
    for (const auto& c : r.import.changes) qInfo("%s", c.c_str());
    QCOMPARE(r.fits.size(), std::size_t(1));
    QCOMPARE(r.fits[0].amplitude, 0.0005);
    const BushingDirectionRow& z = r.import.project.bushings[2].directions[2];
    QVERIFY(std::abs(z.stiffness.coefficient - 3e5) < 1e-6 * 3e5);
    QCOMPARE(z.damping, (LawRow{0.0, std::nullopt}));
    QCOMPARE(z.maxwell.size(), std::size_t(2));
    // Branches by increasing k/c: (2e5, 1500) relaxes at 133/s, (5e5, 200) at 2500/s.
    QVERIFY(std::abs(z.maxwell[0].stiffness - 2e5) < 1e-5 * 2e5 && std::abs(z.maxwell[0].damping - 1500) < 1e-5 * 1500);
    QVERIFY(std::abs(z.maxwell[1].stiffness - 5e5) < 1e-5 * 5e5 && std::abs(z.maxwell[1].damping - 200) < 1e-5 * 200);
    QVERIFY(r.fits[0].fit.rmsMagnitude < 1e-8);
    QVERIFY(!r.import.leftOut.empty());  // the 1 mm table
    o.amplitude = 0.001;
    const HydroImport stiffer = importHydroBushing(p, 3, data, o);
    QVERIFY(stiffer.import.project.bushings[2].directions[2].maxwell[0].stiffness > 2.5e5);
    o.amplitude = 0.002;
    try {
      (void)importHydroBushing(p, 3, data, o);
      QFAIL("accepted an amplitude the file does not have");
    } catch (const ModelError& e) {
      QVERIFY(std::string(e.what()).find("no z table at the amplitude 2 mm (the file has 0.5, 1)") != std::string::npos);
    }
  }

  // A measured stiffness beyond what the fit's arithmetic holds (1e200 N/mm in the hbu file,
  // issue 51: every start ended non-finite and the fit read an empty optimum): an error naming
  // the file and the table, through the import as through the fit itself.
  void absurdStiffnessIsAnErrorNotACrash() {
    const std::string root = ELASTOKIN_SOURCE_DIR;
    std::ifstream in(root + "/tests/data/adams/hydro_mm.hbu");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string::size_type at = text.find("305.5741747644219");
    QVERIFY(at != std::string::npos);
    text.replace(at, 17, "1e200");
    QTemporaryDir dir;
    const std::string path = dir.filePath("absurd.hbu").toStdString();
    std::ofstream(path) << text;
    Project p = readProject(root + "/projects/quarter_double_wishbone.json");
    const PropertyData data = readPropertyFile(path);
    try {
      (void)importHydroBushing(p, 3, data, HydroImportOptions{});
      QFAIL("a stiffness of 1e200 N/mm was fitted");
    } catch (const ModelError& e) {
      QVERIFY2(std::string(e.what()).find("absurd.hbu") != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find("Maxwell fit of the z table failed") != std::string::npos, e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestBushingDynamics)
#include "tst_bushing_dynamics.moc"
