// SPDX-License-Identifier: GPL-3.0-or-later
// The worker pool of the parallel step: every thread index runs once per run(), on distinct
// threads, runs follow each other without loss (many short ones, as in a step loop), workers
// that fell asleep wake up, and an exception in a job reaches the caller.
#include <QtTest>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/parallel/worker_pool.h"

using namespace ek;

class TestWorkerPool : public QObject {
  Q_OBJECT
 private slots:
  void everyIndexOncePerRun() {
    for (int threads : {1, 2, 3}) {
      WorkerPool pool(threads);
      QCOMPARE(pool.size(), threads);
      std::vector<int> hits(threads, 0);
      std::vector<std::thread::id> ids(threads);
      auto job = [&](int t) {
        ++hits[t];
        ids[t] = std::this_thread::get_id();
      };
      pool.run(job);
      for (int t = 0; t < threads; ++t) QCOMPARE(hits[t], 1);
      QCOMPARE(ids[0], std::this_thread::get_id());  // thread 0 is the caller
      QCOMPARE(static_cast<int>(std::set<std::thread::id>(ids.begin(), ids.end()).size()), threads);
    }
  }

  void manyShortRunsLoseNothing() {
    WorkerPool pool(2);
    std::vector<long long> sum(2, 0);
    for (int r = 0; r < 20000; ++r) {
      auto job = [&](int t) { sum[t] += r; };  // a worker sees the run's own r, not a later one
      pool.run(job);
    }
    const long long expected = 20000LL * 19999 / 2;
    QCOMPARE(sum[0], expected);
    QCOMPARE(sum[1], expected);
  }

  void sleepingWorkersWake() {
    WorkerPool pool(2, std::chrono::microseconds(100));  // asleep after 0.1 ms without work
    std::atomic<int> n{0};
    auto job = [&](int) { ++n; };
    for (int r = 0; r < 5; ++r) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      pool.run(job);
    }
    QCOMPARE(n.load(), 10);
  }

  void exceptionsReachTheCaller() {
    WorkerPool pool(2);
    auto failing = [](int t) {
      if (t == 1) throw std::runtime_error("worker failed");
    };
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, pool.run(failing));
    std::atomic<int> n{0};  // the pool still works afterwards
    auto job = [&](int) { ++n; };
    pool.run(job);
    QCOMPARE(n.load(), 2);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, WorkerPool(0));
  }

  // Threads the system refuses (a task or memory limit, as in containers) end in an error with a
  // message, not in std::terminate: in a child process whose address space leaves room for a few
  // thread stacks only.
  void refusedThreadsAreAnError() {
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
      rlimit limit{};
      getrlimit(RLIMIT_AS, &limit);
      long long used = 0;  // the address space in use now [bytes], from /proc/self/statm (pages)
      if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%lld", &used) != 1) used = 0;
        std::fclose(f);
      }
      limit.rlim_cur = static_cast<rlim_t>(used * sysconf(_SC_PAGESIZE) + (64ll << 20));
      setrlimit(RLIMIT_AS, &limit);
      try {
        ek::WorkerPool pool(64);  // 63 stacks of 8 MiB do not fit into 64 MiB
        _exit(2);
      } catch (const std::runtime_error& e) {
        _exit(std::strstr(e.what(), "could not start 64 threads") ? 0 : 3);
      }
      _exit(4);
    }
    int status = 0;
    waitpid(child, &status, 0);
    QVERIFY2(WIFEXITED(status), "the child was killed (std::terminate?)");
    QCOMPARE(WEXITSTATUS(status), 0);
  }
};

QTEST_APPLESS_MAIN(TestWorkerPool)
#include "tst_worker_pool.moc"
