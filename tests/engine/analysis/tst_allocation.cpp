// SPDX-License-Identifier: GPL-3.0-or-later
// No heap allocation in the step loop after set-up: linearization, assembly, factorization,
// stage solves and output recording, with every linear solver. A counting global operator new
// proves it.
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <new>

#include "engine/analysis/simulation.h"
#include "engine/model/project_io.h"

namespace {
std::atomic<long long> gAllocations{0};
std::atomic<bool> gCounting{false};
}  // namespace

void* operator new(std::size_t n) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  if (void* p = std::aligned_alloc(static_cast<std::size_t>(a), (n + static_cast<std::size_t>(a) - 1) &
                                                                     ~(static_cast<std::size_t>(a) - 1)))
    return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

using namespace ek;

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
    for (const char* p : {"double_wishbone", "multilink"})
      for (const char* s : {"topology", "klu", "dense"}) QTest::newRow((std::string(p) + " " + s).c_str()) << p << s << 1;
    QTest::newRow("double_wishbone topology, linearized every 3rd step") << "double_wishbone" << "topology" << 3;
  }
  void stepLoopDoesNotAllocate() {
    QFETCH(QString, project);
    QFETCH(QString, solver);
    QFETCH(int, linEvery);
    const auto m = SuspensionModel::build(
        readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/" + project.toStdString() + ".json"));
    RunOptions o;
    o.solver = solver.toStdString();
    o.linearizeEvery = linEvery;
    o.start = 4.95;  // across the force step
    o.duration = 0.2;
    Simulation sim(m, "LC1", o);
    sim.initialize();
    for (int k = 0; k < 3; ++k) sim.step();  // warm-up: first factorization (KLU's numeric object)
    gAllocations = 0;
    gCounting = true;
    long long steps = 0;
    while (sim.step()) ++steps;
    gCounting = false;
    qInfo("%lld steps, %lld allocations", steps, gAllocations.load());
    QCOMPARE(gAllocations.load(), 0LL);
    QVERIFY(sim.results().size() > 190);  // the samples were recorded
  }
};

QTEST_APPLESS_MAIN(TestAllocation)
#include "tst_allocation.moc"
