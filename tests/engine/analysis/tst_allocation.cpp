// SPDX-License-Identifier: GPL-3.0-or-later
// No heap allocation in the step loop after set-up: linearization, assembly, factorization,
// stage solves and output recording, with every linear solver and on one or two threads (the
// parallel step's workers included). Counting global operator new and malloc prove it.
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "engine/analysis/simulation.h"
#include "engine/model/project_io.h"
#include "support/test_models.h"

namespace {
std::atomic<long long> gAllocations{0};
std::atomic<bool> gCounting{false};
}  // namespace

// malloc, calloc and realloc replaced for the whole process (glibc's own entry points behind them),
// so that allocations outside operator new, on any thread, are seen too. Not under
// AddressSanitizer, which owns malloc there (operator new is still counted).
#if defined(__SANITIZE_ADDRESS__)
#define EK_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EK_COUNT_MALLOC 0
#endif
#endif
#ifndef EK_COUNT_MALLOC
#define EK_COUNT_MALLOC 1
#endif
#if EK_COUNT_MALLOC
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* malloc(std::size_t n) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  return __libc_malloc(n);
}
void* calloc(std::size_t k, std::size_t n) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  return __libc_calloc(k, n);
}
void* realloc(void* p, std::size_t n) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  return __libc_realloc(p, n);
}
}
#endif

void* operator new(std::size_t n) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them), so that every pointer the
// replaced operator delete frees came from malloc (AddressSanitizer checks the pairing).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
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
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
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
    Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/" + project.toStdString() + ".json");
    if (maxwell) test::addMaxwellBranches(p, 7);
    const auto m = SuspensionModel::build(p);
    RunOptions o;
    o.solver = solver.toStdString();
    o.linearizeEvery = linEvery;
    o.threads = threads;
    o.integrator = integrator.toStdString();
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
