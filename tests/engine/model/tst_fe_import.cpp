// SPDX-License-Identifier: GPL-3.0-or-later
// SID files onto and out of a body (the flexible anti-roll bar written as a SID file and read back
// runs its load case as the beams do; markers bound by position and by id, and refused with the
// distance when no node is near). A CalculiX model onto a body of a project (engine/model/fe_import.h): a cantilevered steel strip
// of solid elements (ccx, which scripts/setup-debian.sh installs) made the flexible body of a
// project whose root marker is held by a stiff bushing. The project keeps the reduced body
// exactly through a save and a load, and its modes, from the engine's linearization about the
// design position, equal CalculiX's clamped frequencies of the full model.
#include <QtTest>

#include <cmath>
#include <functional>

#include "engine/analysis/kc.h"
#include "engine/analysis/linear_analysis.h"
#include "engine/core/error.h"
#include "engine/core/rotation.h"
#include "engine/core/text.h"
#include "engine/model/fe_import.h"
#include "engine/model/project_io.h"
#include "engine/model/validate.h"
#include "support/calculix.h"
#include "support/runs.h"
#include "support/sanitized.h"

using namespace ek;
using test::errorOf;

namespace {

using test::heldStrip;

}  // namespace

class TestFeImport : public QObject {
  Q_OBJECT
 private slots:
  /// The shipped twist beam's cross member is what its deck gives (projects/fe/, imported as
  /// scripts/make_projects.py does: same frequencies and mode shapes), and its shear centre steers:
  /// the same profile turned over about its centroid (a U open upwards, the shear centre 100 mm
  /// lower) takes the arms' roll axis down with it, and the outer wheel's roll understeer becomes
  /// oversteer (projects/README.md, "The shear centre's effect").
  void twistBeamShearCentreSteers() {
#ifdef EK_SANITIZED
    QSKIP("the shipped cross member imported twice (13,535 rows each; over two minutes under the sanitizers) is "
          "left to the normal build; stripOntoABody runs the import's code paths here");
#endif
    if (QStandardPaths::findExecutable("ccx").isEmpty())
      QFAIL("ccx is not installed: scripts/setup-debian.sh installs calculix-ccx");
    const std::string root = ELASTOKIN_SOURCE_DIR;
    const Project shipped = readProject(root + "/projects/twist_beam_rear.json");
    QCOMPARE(shipped.flexibleBodies.size(), std::size_t(1));
    const int body = shipped.flexibleBodies[0].body;
    auto weld = [&](const char* side) {
      for (const BushingRow& b : shipped.bushings)
        if (b.name == std::string("cross member weld ") + side) return b.markerI;
      return -1;
    };
    FeImportOptions options;
    options.interfaces = {{"LEFT_END", weld("left")}, {"RIGHT_END", weld("right")}};
    options.units = {1e-3, 1e3};
    options.reduction.modes = 4;
    QTemporaryDir dir;
    const std::string deck = test::readText(QString::fromStdString(root + "/projects/fe/twist_beam_cross_member.inp"));
    test::write(dir.filePath("twist_beam_cross_member.inp"), deck);
    // Turned over: z mirrored about the centroid's height (the *NODE lines "id, x, y, z").
    const double zc = (90.0 * 362.0 + 140.0 * (362.0 - 35.0)) / 230.0;
    std::istringstream in(deck);
    std::string line, flipped;
    bool nodes = false;
    while (std::getline(in, line)) {
      if (!line.empty() && line[0] == '*') nodes = line.rfind("*NODE", 0) == 0;
      // The fields read locale-free (engine/core/text.h): the tests also run under de_DE.
      std::vector<std::string_view> f;
      for (std::string_view rest = line; nodes && !rest.empty();) {
        const std::size_t comma = rest.find(',');
        f.push_back(trimBlanks(rest.substr(0, comma)));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      }
      long long id = 0;
      double x = 0, y = 0, z = 0;
      if (f.size() == 4 && parseInteger(f[0], id, 1, 1LL << 31) && parseDecimal(f[1], x) && parseDecimal(f[2], y) &&
          parseDecimal(f[3], z))
        line = cformat("%lld, %.6f, %.6f, %.6f", id, x, y, 2.0 * zc - z);
      flipped += line + "\n";
    }
    test::write(dir.filePath("open_up.inp"), flipped);
    QCOMPARE(test::runCcx(dir.path(), "twist_beam_cross_member"), std::string());
    QCOMPARE(test::runCcx(dir.path(), "open_up"), std::string());
    const FeImport same = importCalculixBody(shipped, body, dir.filePath("twist_beam_cross_member.inp").toStdString(), options);
    const FeImport up = importCalculixBody(shipped, body, dir.filePath("open_up.inp").toStdString(), options);
    const fe::ModalBody& a = shipped.flexibleBodies[0].reduced->modal;
    const fe::ModalBody& b = same.project.flexibleBodies[0].reduced->modal;
    QCOMPARE(a.modes(), 10);
    QCOMPARE(b.modes(), a.modes());
    double df = 0.0, dshape = 0.0;
    for (int k = 0; k < a.modes(); ++k) {
      df = std::max(df, std::abs(b.frequencies[k] / a.frequencies[k] - 1.0));
      // A mode's sign is the eigensolver's choice.
      const VecX sa = a.shapes.col(k), sb = b.shapes.col(k);
      dshape = std::max(dshape, std::min((sa - sb).norm(), (sa + sb).norm()) / sa.norm());
    }
    qInfo("shipped cross member against its deck: frequencies %.1e, shapes %.1e relative", df, dshape);
    QVERIFY(df < 1e-6 && dshape < 1e-4);

    auto kc = [](const Project& p) {
      const auto model = SuspensionModel::build(p);
      return designMetrics(*model, solveDesign(*model, 1e-10));
    };
    auto metric = [](const std::vector<KcMetric>& ms, const std::string& name) {
      for (const KcMetric& m : ms)
        if (m.name == name && (m.wheel.empty() || m.wheel == "wheel left")) return m.value;
      return std::nan("");
    };
    const auto down = kc(shipped), over = kc(up.project);
    for (const char* name : {"roll steer (toe per roll angle, wheel in bump)", "roll camber (camber per roll angle, wheel in bump)",
                             "toe compliance, lateral force inboard (at contact)", "toe compliance, braking (-Fx at contact)",
                             "roll stiffness of the twist beam"})
      qInfo("%-55s inverted U %9.5f, U open upwards %9.5f", name, metric(down, name), metric(over, name));
    const std::string steer = "roll steer (toe per roll angle, wheel in bump)";
    QVERIFY(metric(down, steer) > 0.05);   // understeer: the outer wheel toes in
    QVERIFY(metric(over, steer) < -0.05);  // oversteer
    // The beam's own roll stiffness hardly changes: the same section, only its shear centre moved.
    const std::string beam = "roll stiffness of the twist beam";
    QVERIFY(std::abs(metric(over, beam) / metric(down, beam) - 1.0) < 0.01);
  }

  void stripOntoABody() {
    try {
      stripOntoABodyRun();
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
  }
  // The command line: ccx run by elastokin-sim itself (the matrices are not there yet), the same
  // rows as the library's import.
  void commandLine() {
    const QString sim = qEnvironmentVariable("ELASTOKIN_SIM");
    if (sim.isEmpty()) QSKIP("ELASTOKIN_SIM (the elastokin-sim binary) is set by ctest");
    QTemporaryDir dir;
    test::write(dir.filePath("strip.inp"), test::stripDeck() + "*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n");
    writeProject(heldStrip(), dir.filePath("held.json").toStdString());
    QProcess p;
    p.start(sim, {dir.filePath("held.json"), "--import-fe", dir.filePath("strip.inp"), "--onto", "body:1", "--interface",
                  "ROOT=2,TIP=3", "--modes", "12", "--fe-units", "mm,t", "--write-project", dir.filePath("out.json")});
    QVERIFY(p.waitForFinished(120000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput()) + QString::fromUtf8(p.readAllStandardError());
    qInfo("%s", qPrintable(out));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(out.contains("ran ccx on"));
    QVERIFY(out.contains("615 nodes, 1845 degrees of freedom"));
    QVERIFY(out.contains("18 elastic modes [Hz]: 687.72"));
    FeImportOptions options;
    options.interfaces = {{"ROOT", 2}, {"TIP", 3}};
    options.units = {1e-3, 1e3};
    options.reduction.modes = 12;
    const FeImport r = importCalculixBody(heldStrip(), 1, dir.filePath("strip.inp").toStdString(), options);
    QVERIFY(readProject(dir.filePath("out.json").toStdString()).flexibleBodies == r.project.flexibleBodies);

    QProcess bad;  // an interface set the deck does not have: named with the deck's sets
    bad.start(sim, {dir.filePath("held.json"), "--import-fe", dir.filePath("strip.inp"), "--onto", "body:1",
                    "--interface", "ROOT=2,FLANGE=3", "--write-project", dir.filePath("bad.json")});
    QVERIFY(bad.waitForFinished(120000));
    const QString err = QString::fromUtf8(bad.readAllStandardError());
    QVERIFY(bad.exitCode() != 0);
    QVERIFY2(err.contains("interface set 'FLANGE' is not in the deck (its sets: NALL, ROOT, TIP)"), qPrintable(err));
    QVERIFY(!QFile::exists(dir.filePath("bad.json")));
  }

 private:
  void stripOntoABodyRun() {
    if (QStandardPaths::findExecutable("ccx").isEmpty())
      QFAIL("ccx is not installed: scripts/setup-debian.sh installs calculix-ccx");
    QTemporaryDir dir;
    test::write(dir.filePath("strip.inp"), test::stripDeck() + "*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n");
    test::write(dir.filePath("clamped.inp"), test::stripDeck() + "*BOUNDARY\nROOT, 1, 3\n*STEP\n*FREQUENCY\n4\n*END STEP\n");
    QCOMPARE(test::runCcx(dir.path(), "strip"), std::string());
    const std::vector<double> clamped = test::datFrequencies(test::runCcx(dir.path(), "clamped"));
    QCOMPARE(clamped.size(), std::size_t(4));

    FeImportOptions options;
    options.interfaces = {{"ROOT", 2}, {"tip", 3}};
    options.units = {1e-3, 1e3};
    options.reduction.modes = 12;
    const std::string deck = dir.filePath("strip.inp").toStdString();
    FeImport r;
    try {
      r = importCalculixBody(heldStrip(), 1, deck, options);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QCOMPARE(r.nodes, 615);
    QCOMPARE(r.dofs, 1845);
    QCOMPARE(r.previousMass, 0.2);
    QCOMPARE(r.project.flexibleBodies.size(), std::size_t(1));
    QCOMPARE(r.project.bodies[1].mass, 0.0);
    QVERIFY(check(r.project).errorCount() == 0);

    // Saved and loaded: the same numbers, bit for bit.
    const std::string saved = dir.filePath("held.json").toStdString();
    writeProject(r.project, saved);
    const Project loaded = readProject(saved);
    QVERIFY(loaded.flexibleBodies == r.project.flexibleBodies);
    QVERIFY(loaded.bodies == r.project.bodies);

    const auto model = SuspensionModel::build(loaded);
    QCOMPARE(model->flexibleBodies.at(0).modes(), 18);
    OperatingPoint at;  // the pose as modelled: no gravity, no load, the bushing unloaded
    model->initialState(at.state.r, at.state.v);
    at.u = VecX::Zero(model->nInputs());
    at.description = "as modelled";
    const ModesResult modes = computeModes(*model, at);
    std::vector<double> elastic;
    for (const Mode& m : modes.modes)
      if (m.oscillatory && m.frequency < 5000.0) elastic.push_back(m.frequency);
    QVERIFY(elastic.size() >= 4);
    for (int k = 0; k < 4; ++k) {
      const double e = elastic[k] / clamped[k] - 1.0;
      qInfo("mode %d: CalculiX clamped %.2f Hz, the project's body on its bushing %.2f Hz (%+.3f %%)", k + 1,
            clamped[k], elastic[k], 100.0 * e);
      QVERIFY(std::abs(e) < 0.005);
    }
  }


 private slots:
  // The anti-roll bar of double_wishbone_flexible_bar.json (beams, 26 modes), given a damping
  // ratio per mode and proportional damping, written as a SID file by the command line and read
  // back onto its body: De carries each mode's damping, the import keeps the ratios per mode, and
  // the run is the same to round-off.
  void sidRoundTrip() {
    const QString sim = qEnvironmentVariable("ELASTOKIN_SIM");
    if (sim.isEmpty()) QSKIP("ELASTOKIN_SIM (the elastokin-sim binary) is set by ctest");
    QTemporaryDir dir;
    const QString project = dir.filePath("damped_bar.json");
    {
      Project damped = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone_flexible_bar.json");
      FlexibleBodyRow& bar = damped.flexibleBodies.at(0);
      for (int k = 0; k < 26; ++k) bar.dampingRatios.push_back(0.01 + 0.002 * k);
      bar.massDamping = 0.5;
      bar.stiffnessDamping = 2e-6;
      writeProject(damped, project.toStdString());
    }
    auto run = [&](const QStringList& args) {
      QProcess p;
      p.start(sim, args);
      p.waitForFinished(120000);
      const QString out = QString::fromUtf8(p.readAllStandardOutput()) + QString::fromUtf8(p.readAllStandardError());
      qInfo("%s", qPrintable(out));
      return std::make_pair(p.exitCode(), out);
    };
    QCOMPARE(run({project, "--export-property", "body:11", "--to", dir.filePath("bar.SID_FEM")}).first, 0);
    const auto imported = run({project, "--import", dir.filePath("bar.SID_FEM"), "--onto", "body:11", "--interface", "13=93",
                               "--write-project", dir.filePath("imported.json")});
    QCOMPARE(imported.first, 0);
    QVERIFY(imported.second.contains("(21 nodes, 126 degrees of freedom) onto body 11: flexible bodies row 1 replaced"));
    QVERIFY(imported.second.contains("26 elastic modes [Hz]: 49.64, 72.656"));
    QVERIFY(imported.second.contains("marker 93 on node 13"));
    const Project beams = readProject(project.toStdString()), sid = readProject(dir.filePath("imported.json").toStdString());
    QVERIFY(sid.flexibleBodies.at(0).reduced.has_value());
    // Each mode's ratio from De: zeta_k + alpha / (2 omega_k) + beta omega_k / 2.
    {
      const auto m = SuspensionModel::build(beams);
      const ModelFlexibleBody& f = m->flexibleBodies.at(0);
      const std::vector<double>& got = sid.flexibleBodies.at(0).dampingRatios;
      QCOMPARE(int(got.size()), f.modes());
      double worst = 0.0;
      for (int k = 0; k < f.modes(); ++k) {
        const double omega = std::sqrt(f.modal.stiffness[k]);
        const double expected = 0.01 + 0.002 * k + 0.5 / (2.0 * omega) + 2e-6 * omega / 2.0;
        worst = std::max(worst, std::abs(got[static_cast<std::size_t>(k)] / expected - 1.0));
        QVERIFY(std::abs(f.damping[k] / (2.0 * expected * omega) - 1.0) < 1e-14);
      }
      qInfo("per-mode damping ratios read back from De: largest relative difference %.2e (mode 1 %.5f, mode 26 %.5f)",
            worst, got.front(), got.back());
      QVERIFY(worst < 1e-12);
    }
    QCOMPARE(sid.flexibleBodies.at(0).reduced->interfaceMarkers.size(), std::size_t(4));
    RunOptions o;
    o.duration = 2.0;
    const auto a = test::runProject(beams, "LC1", o), b = test::runProject(sid, "LC1", o);
    const double dr = (a->state().r - b->state().r).cwiseAbs().maxCoeff(), dv = (a->state().v - b->state().v).cwiseAbs().maxCoeff();
    qInfo("beams vs the SID file read back, LC1 after 2 s: positions %.2e, velocities %.2e", dr, dv);
    QVERIFY(dr < 1e-12 && dv < 1e-10);

    // A marker no node is near, a node the file does not have.
    Project moved = beams;
    for (MarkerRow& m : moved.markers)
      if (m.id == 47) m.position.x() += 0.005;
    SidImportOptions options;
    const std::string far = errorOf([&] { importSidBody(moved, 11, dir.filePath("bar.SID_FEM").toStdString(), options); });
    qInfo("%s", far.c_str());
    QVERIFY(far.find("marker 47 of body 11 is 5 mm from the nearest node") != std::string::npos);
    QVERIFY(far.find("bind it with --interface NODE=MARKER") != std::string::npos);
    options.bindings = {{999, 47}};
    const std::string missing = errorOf([&] { importSidBody(moved, 11, dir.filePath("bar.SID_FEM").toStdString(), options); });
    QVERIFY(missing.find("node 999 is not in") != std::string::npos);
    options.bindings = {{1, 47}};
    QVERIFY(importSidBody(moved, 11, dir.filePath("bar.SID_FEM").toStdString(), options).project.flexibleBodies.size() == 1);
    const std::string rigid = errorOf([&] { exportSidBody(beams, 1); });
    QVERIFY(rigid.find("body 1 is not flexible") != std::string::npos);
  }

  void refusesWhatItCannotPlace() {
    QTemporaryDir dir;
    test::write(dir.filePath("m.inp"), "*NODE\n1, 0, 0, 0\n*NSET, NSET=A\n1\n");
    FeImportOptions options;
    options.interfaces = {{"A", 1}, {"A", 9}};
    const std::string e = errorOf([&] { importCalculixBody(heldStrip(), 0, dir.filePath("m.inp").toStdString(), options); });
    qInfo("%s", e.c_str());
    QVERIFY(e.find("body 0 is fixed") != std::string::npos);
    QVERIFY(e.find("marker 1 is on body 0, not on body 0") == std::string::npos);
    QVERIFY(e.find("marker 9 does not exist") != std::string::npos);
    options.interfaces = {{"A", 2}};
    const std::string missing = errorOf([&] { importCalculixBody(heldStrip(), 1, dir.filePath("m.inp").toStdString(), options); });
    QVERIFY(missing.find("m.dof") != std::string::npos);
  }

  void refusesAnInconsistentReducedBody() {
    Project p = heldStrip();
    FlexibleBodyRow f;
    f.id = 1;
    f.body = 1;
    f.reduced = ReducedBodyRow();
    f.reduced->interfaceMarkers = {2, 1};
    f.reduced->modal.mass = -1.0;
    f.reduced->modal.inertia = Mat3::Identity();
    f.reduced->modal.frequencies = VecX::Constant(1, 10.0);
    p.bodies[1].mass = 0.0;
    p.bodies[1].inertia = {};
    p.flexibleBodies = {f};
    const std::string e = check(p).text(Severity::Error);
    qInfo("%s", e.c_str());
    QVERIFY(e.find("marker 1 is on body 0, not on body 1") != std::string::npos);
    QVERIFY(e.find("mass [kg]': must be positive") != std::string::npos);
    QVERIFY(e.find("its sizes do not fit") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestFeImport)
#include "tst_fe_import.moc"
