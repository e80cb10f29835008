// SPDX-License-Identifier: GPL-3.0-or-later
// The parallel LSRT2 step (--threads) gives the serial results bit for bit: both axles over their
// LC1 force step and LC2, with the topology solver (split factorization and solves) and with KLU
// (parallel linearization only), on 2 and 3 threads, also with Maxwell branches; forced on every
// step (threadsAlways), and as runs choose it: only while it is the faster one, with checks
// that may switch between the parallel and the serial integrator mid-run (parallel_choice.h).
// (The full vehicle: tst_full_vehicle.)
#include <QtTest>

#include "engine/analysis/simulation.h"
#include "engine/parallel/parallel_choice.h"
#include "engine/model/project_io.h"
#include "support/test_models.h"

using namespace ek;

class TestParallelStep : public QObject {
  Q_OBJECT
 private slots:
  void threadedEqualsSerial_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("loadCase");
    QTest::addColumn<double>("start");
    QTest::addColumn<QString>("solver");
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("linEvery");
    QTest::addColumn<bool>("always");
    for (const char* p : {"double_wishbone", "multilink"}) {
      QTest::newRow((std::string(p) + " LC1, 2 threads").c_str()) << p << "LC1" << 4.95 << "topology" << 2 << 1 << true;
      QTest::newRow((std::string(p) + " LC2, 2 threads").c_str()) << p << "LC2" << 0.5 << "topology" << 2 << 1 << true;
      QTest::newRow((std::string(p) + " LC1, 2 threads, KLU").c_str()) << p << "LC1" << 4.95 << "klu" << 2 << 1 << true;
      // As runs go: a check every 6 steps (every 2nd linearization), either integrator may step.
      QTest::newRow((std::string(p) + " LC1, 2 threads when faster, lin-every 3").c_str())
          << p << "LC1" << 4.95 << "topology" << 2 << 3 << false;
    }
    QTest::newRow("double_wishbone LC1, 3 threads") << "double_wishbone" << "LC1" << 4.95 << "topology" << 3 << 1 << true;
    // Maxwell branches (the viscoelastic variant, and every bushing viscoelastic with scaled branches).
    QTest::newRow("double_wishbone_viscoelastic LC1, 2 threads") << "double_wishbone_viscoelastic" << "LC1" << 4.95
                                                                << "topology" << 2 << 1 << true;
    QTest::newRow("double_wishbone+maxwell LC2, 2 threads") << "double_wishbone+maxwell" << "LC2" << 0.5 << "topology"
                                                           << 2 << 1 << true;
    QTest::newRow("double_wishbone+maxwell LC2, 2 threads when faster") << "double_wishbone+maxwell" << "LC2" << 0.5
                                                                       << "topology" << 2 << 1 << false;
    // The full vehicle on Magic Formula tyres, steered through its rack: the tyres' slots and
    // the rack go through the serial tail of the parallel linearization.
    QTest::newRow("full_vehicle_tyres step steer, 2 threads") << "full_vehicle_tyres" << "step steer" << 1.55 << "topology"
                                                              << 2 << 1 << true;
    // A flexible anti-roll bar (26 modes): its kinematics, elements and rows on the calling thread.
    QTest::newRow("double_wishbone_flexible_bar LC1, 2 threads") << "double_wishbone_flexible_bar" << "LC1" << 4.95
                                                                 << "topology" << 2 << 1 << true;
    QTest::newRow("double_wishbone_flexible_bar LC1, 2 threads when faster, lin-every 3")
        << "double_wishbone_flexible_bar" << "LC1" << 4.95 << "topology" << 2 << 3 << false;
    // With Maxwell branches on every bushing, the bar's mounts among them.
    QTest::newRow("double_wishbone_flexible_bar+maxwell LC2, 2 threads") << "double_wishbone_flexible_bar+maxwell" << "LC2"
                                                                         << 0.5 << "topology" << 2 << 1 << true;
  }
  void threadedEqualsSerial() {
    QFETCH(QString, project);
    QFETCH(QString, loadCase);
    QFETCH(double, start);
    QFETCH(QString, solver);
    QFETCH(int, threads);
    QFETCH(int, linEvery);
    QFETCH(bool, always);
    Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/" + project.section('+', 0, 0).toStdString() +
                            ".json");
    if (project.endsWith("+maxwell")) test::addMaxwellBranches(p, 3);
    const auto m = SuspensionModel::build(p);
    RunOptions o;
    o.start = start;
    o.duration = threads > 2 ? 0.03 : 0.1;  // more threads than cores: every handoff waits for the scheduler
    o.solver = solver.toStdString();
    o.linearizeEvery = linEvery;
    Simulation serial(m, loadCase.toStdString(), o);
    serial.initialize();
    while (serial.step()) {
    }
    o.threads = threads;
    o.threadsAlways = always;
    o.threadsRecheck = 6;
    Simulation par(m, loadCase.toStdString(), o);
    par.initialize();
    while (par.step()) {
    }
    if (!always) {
      const auto* choice = dynamic_cast<const ParallelWhenItPays*>(&par.integrator());
      QVERIFY(choice);
      qInfo("%d checks, %d chose %d threads (last: %.2f us parallel, %.2f us serial per step)", choice->checks(),
            choice->parallelChoices(), threads, 1e6 * choice->parallelStepTime(), 1e6 * choice->serialStepTime());
      QVERIFY(choice->checks() >= static_cast<int>(par.stepsDone() / 6));
      QVERIFY(par.integrator().describe().find("threads asked") != std::string::npos);
    }
    QCOMPARE(par.stepsDone(), serial.stepsDone());
    // Every sample of every channel, and the final state.
    double worst = 0.0;
    for (std::size_t c = 0; c < serial.results().channels().size(); ++c) {
      const auto a = serial.results().series(c), b = par.results().series(c);
      QCOMPARE(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    }
    qInfo("%lld steps, %zu channels: largest difference %.3g", par.stepsDone(), serial.results().channels().size(), worst);
    QCOMPARE(worst, 0.0);
    QVERIFY(par.state().r == serial.state().r);
    QVERIFY(par.state().v == serial.state().v);
    QVERIFY(par.state().z == serial.state().z);
  }
};

QTEST_APPLESS_MAIN(TestParallelStep)
#include "tst_parallel_step.moc"
