// SPDX-License-Identifier: GPL-3.0-or-later
// No heap allocation in the step loop after set-up: linearization, assembly, factorization,
// stage solves and output recording, with every linear solver and on one or two threads (the
// parallel step's workers included). Counting global operator new and malloc prove it.
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "engine/analysis/integrator_factory.h"
#include "engine/analysis/simulation.h"
#include "engine/model/project_io.h"
#include "support/count_allocations.h"
#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

/// Initializes, steps three times (the first factorization, KLU's numeric object), then counts
/// the allocations of the remaining steps.
long long allocationsAfterWarmUp(Simulation& sim) {
  sim.initialize();
  for (int k = 0; k < 3; ++k) sim.step();
  gAllocations = 0;
  gCounting = true;
  long long steps = 0;
  while (sim.step()) ++steps;
  gCounting = false;
  qInfo("%lld steps, %lld allocations", steps, gAllocations.load());
  return gAllocations.load();
}

}  // namespace

class TestAllocation : public QObject {
  Q_OBJECT
 private slots:
  void countingWorks() {
    gAllocations = 0;
    gCounting = true;
    auto* p = new std::vector<double>(100);
    gCounting = false;
    delete p;
    QVERIFY(gAllocations >= 2);  // the test can fail: the counter sees allocations
  }

  void stepLoopDoesNotAllocate_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("solver");
    QTest::addColumn<int>("linEvery");
    QTest::addColumn<int>("threads");
    QTest::addColumn<QString>("integrator");
    QTest::addColumn<bool>("maxwell");
    for (const char* p : {"double_wishbone", "multilink"})
      for (const char* s : {"topology", "klu", "dense"}) {
        QTest::newRow((std::string(p) + " " + s).c_str()) << p << s << 1 << 1 << "lsrt2" << false;
        if (std::string(s) != "dense")
          QTest::newRow((std::string(p) + " " + s + ", 2 threads").c_str()) << p << s << 1 << 2 << "lsrt2" << false;
      }
    QTest::newRow("double_wishbone topology, linearized every 3rd step") << "double_wishbone" << "topology" << 3 << 1 << "lsrt2" << false;
    for (int linEvery : {1, 3})  // every bushing viscoelastic (test::addMaxwellBranches)
      QTest::newRow(("double_wishbone topology, Maxwell branches, lin-every " + std::to_string(linEvery)).c_str())
          << "double_wishbone" << "topology" << linEvery << 1 << "lsrt2" << true;
    QTest::newRow("double_wishbone topology, Maxwell branches, 2 threads")
        << "double_wishbone" << "topology" << 1 << 2 << "lsrt2" << true;
    QTest::newRow("double_wishbone topology, 2 threads when faster, lin-every 3")
        << "double_wishbone" << "topology" << 3 << 2 << "lsrt2" << false;
    QTest::newRow("double_wishbone topology, Maxwell branches, ros34pw2, lin-every 3")
        << "double_wishbone" << "topology" << 3 << 1 << "ros34pw2" << true;
    for (const char* i : {"lie", "ros34pw2", "bdf2", "galpha", "galpha-frozen"})
      for (int linEvery : {1, 3})
        QTest::newRow((std::string("multilink topology, ") + i + ", lin-every " + std::to_string(linEvery)).c_str())
            << "multilink" << "topology" << linEvery << 1 << i << false;
  }
  void stepLoopDoesNotAllocate() {
    QFETCH(QString, project);
    QFETCH(QString, solver);
    QFETCH(int, linEvery);
    QFETCH(int, threads);
    QFETCH(QString, integrator);
    QFETCH(bool, maxwell);
    if (threads > 1 && !threadsAvailable()) QSKIP("a build without threads (ELASTOKIN_THREADS=OFF)");
    Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/" + project.toStdString() + ".json");
    if (maxwell) test::addMaxwellBranches(p, 7);
    const auto m = SuspensionModel::build(p);
    RunOptions o;
    o.solver = solver.toStdString();
    o.linearizeEvery = linEvery;
    o.threads = threads;
    // The parallel step on every step; the rows tagged "when faster" as runs choose it, with a
    // check (copies of state and workspace, both integrators timed) every 50 steps.
    o.threadsAlways = !QString(QTest::currentDataTag()).contains("when faster");
    o.threadsRecheck = 50;
    o.integrator = integrator.toStdString();
    o.start = 4.95;  // across the force step
    o.duration = 0.2;
    Simulation sim(m, "LC1", o);
    QCOMPARE(allocationsAfterWarmUp(sim), 0LL);
    QVERIFY(sim.results().size() > 190);  // the samples were recorded
  }

  // A model with a flexible body (26 modes in 5 slots): its kinematics, elements and rows use
  // the workspace's storage only, with every method (at 0.1 ms, where generalized-alpha's two
  // Newton iterations carry the bar's 11 kHz modes; tst_flexible_runs).
  // A Magic Formula tyre: its contact, slot rows and partials on the stack and in the Workspace.
  void tyreStepDoesNotAllocate_data() {
    QTest::addColumn<QString>("integrator");
    QTest::addColumn<int>("threads");
    for (const char* i : {"lsrt2", "ros34pw2", "bdf2", "galpha", "cvode"}) QTest::newRow(i) << i << 1;
    QTest::newRow("lsrt2, 2 threads") << "lsrt2" << 2;  // the contacts on the threads, the tail serial
  }
  void tyreStepDoesNotAllocate() {
    QFETCH(QString, integrator);
    QFETCH(int, threads);
    if (threads > 1 && !threadsAvailable()) QSKIP("a build without threads (ELASTOKIN_THREADS=OFF)");
    Project p = test::tyreCarriage(0.03);
    p.outputs = {{"carriage x", OutputQuantity::MarkerPosition, 2, "x"}};
    // Driven and braked (both reacting on the carriage), the torques sines.
    p.inputs = {InputRow{1, "drive", 3, InputKind::Torque}, InputRow{2, "brake", 3, InputKind::Torque}};
    p.wheels[0].driveInput = 1;
    p.wheels[0].brakeInput = 2;
    SignalRow drive, brake;
    drive.type = brake.type = SignalType::Sine;
    drive.amplitude = 100.0;
    brake.value = brake.amplitude = 300.0;
    drive.frequency = brake.frequency = 5.0;
    p.loadCases[0].drives = {{1, drive}, {2, brake}};
    RunOptions o;
    o.integrator = integrator.toStdString();
    o.dt = 1e-3;
    o.duration = 0.1;
    o.threads = threads;
    o.threadsAlways = true;
    Simulation sim(SuspensionModel::build(p), "free", o);
    QCOMPARE(allocationsAfterWarmUp(sim), 0LL);
    QVERIFY(sim.stepsDone() > 90);
  }

  void flexibleBodyStepDoesNotAllocate_data() {
    QTest::addColumn<QString>("integrator");
    QTest::addColumn<int>("linEvery");
    QTest::addColumn<int>("threads");
    QTest::addColumn<bool>("branches");
    for (const char* i : {"lsrt2", "lie", "ros34pw2", "bdf2", "galpha", "cvode"}) QTest::newRow(i) << i << 1 << 1 << false;
    QTest::newRow("lsrt2, lin-every 3") << "lsrt2" << 3 << 1 << false;
    QTest::newRow("lsrt2, 2 threads") << "lsrt2" << 1 << 2 << false;  // the flexible pass on the calling thread
    // Maxwell branches on the bar's bushings (the methods that integrate them).
    for (const char* i : {"lsrt2", "ros34pw2", "cvode"})
      QTest::newRow(qPrintable(QString(i) + ", Maxwell branches")) << i << 1 << 1 << true;
    QTest::newRow("lsrt2, Maxwell branches, 2 threads") << "lsrt2" << 1 << 2 << true;
  }
  void flexibleBodyStepDoesNotAllocate() {
    QFETCH(QString, integrator);
    QFETCH(int, linEvery);
    QFETCH(int, threads);
    QFETCH(bool, branches);
    if (threads > 1 && !threadsAvailable()) QSKIP("a build without threads (ELASTOKIN_THREADS=OFF)");
    Project p = test::flexibleBar(8, true);
    test::addFreeLoadCase(p, 0.1);
    if (branches) test::addMaxwellBranches(p, 7);
    p.outputs = {{"bar end z", OutputQuantity::MarkerPosition, 13, "z"}, {"mount", OutputQuantity::BushingForce, 1, "z"}};
    // Loads on the bar too, a force in the marker's axes and a global torque, driven by sines.
    for (int k = 0; k < 2; ++k) {
      InputRow in;
      in.id = 1 + k;
      in.name = k == 0 ? "push" : "twist";
      in.marker = k == 0 ? 14 : 13;
      in.kind = k == 0 ? InputKind::Force : InputKind::Torque;
      in.frame = k == 0 ? InputFrame::Marker : InputFrame::Global;
      in.direction = k == 0 ? Vec3(0.0, 0.6, 0.8) : Vec3(0.0, 1.0, 0.0);
      p.inputs.push_back(in);
      LoadCaseRow::Drive drive;
      drive.input = in.id;
      drive.signal.type = SignalType::Sine;
      drive.signal.amplitude = k == 0 ? 50.0 : 5.0;
      drive.signal.frequency = 20.0;
      p.loadCases.back().drives.push_back(drive);
    }
    RunOptions o;
    o.integrator = integrator.toStdString();
    o.linearizeEvery = linEvery;
    o.dt = 1e-4;
    o.duration = 0.01;
    o.threads = threads;
    o.threadsAlways = true;
    Simulation sim(SuspensionModel::build(p), "free", o);
    QCOMPARE(allocationsAfterWarmUp(sim), 0LL);
    QVERIFY(sim.stepsDone() > 90);
  }
};

QTEST_APPLESS_MAIN(TestAllocation)
#include "tst_allocation.moc"
