// SPDX-License-Identifier: GPL-3.0-or-later
// The real-time pacer's statistics on a synthetic clock: overruns, their lateness classes,
// episodes of consecutive misses, catching up, step latency classes, step compute times; a restart
// after a pause; the real-time set-up's report.
#include <QtTest>

#include <chrono>
#include <thread>

#include "engine/analysis/realtime.h"

using namespace ek;
using Clock = RealtimePacer::Clock;

namespace {
Clock::time_point at(Clock::time_point t0, double ms) {
  return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
}
}  // namespace

class TestRealtime : public QObject {
  Q_OBJECT
 private slots:
  void episodesLatenessAndCatchingUp() {
    RealtimePacer p(1e-3, 100);
    const Clock::time_point t0{};
    p.start(t0);
    // Step finish times [ms]; deadlines are 1, 2, 3, ... ms.
    const double done[] = {0.2, 1.2, 5.5, 5.7, 5.9, 6.0, 7.05};
    for (int k = 1; k <= 7; ++k) p.record(k, at(t0, done[k - 1]));
    QCOMPARE(p.steps(), 7LL);
    QCOMPARE(p.overruns(), 4LL);  // steps 3, 4, 5 (2.5, 1.7, 0.9 ms late) and 7 (0.05 ms)
    QVERIFY(std::abs(p.worstLateness() - 2.5e-3) < 1e-9);
    const auto& h = p.latenessHistogram();  // classes (0, 0.1], (0.1, 0.5], (0.5, 1], (1, 2], (2, 5], (5, 10], > 10 dt
    const std::array<long long, RealtimePacer::kClasses> expected{1, 0, 1, 1, 1, 0, 0};
    QVERIFY(h == expected);
    // Latency from each step's scheduled release (k - 1 ms): 0.2, 0.2, 3.5, 2.7, 1.9, 1.0, 1.05 ms.
    const std::array<long long, RealtimePacer::kLatencyClasses> latency{0, 2, 0, 0, 0, 1, 4};
    QVERIFY(p.latencyHistogram() == latency);
    QCOMPARE(p.episodes(), 2LL);
    QCOMPARE(p.caughtUp(), 1LL);  // step 6 finished on its deadline: the first episode caught up
    QCOMPARE(p.longestEpisode(), 3LL);
    QVERIFY(std::abs(p.longestRecovery() - 3e-3) < 1e-9);  // from the deadline of step 3 to 6.0 ms
    QVERIFY(p.behind());
    // Compute times: released at the previous deadline when on time, at once after a late step.
    // 0.2, 0.2, 3.5, 0.2, 0.2, 0.1, 1.05 ms.
    QVERIFY(std::abs(p.computePercentile(50) - 0.2e-3) < 1e-7);
    QVERIFY(std::abs(p.computePercentile(100) - 3.5e-3) < 1e-7);
    const std::string s = p.summary();
    QVERIFY2(s.find("4 of 7 deadlines missed") != std::string::npos, s.c_str());
    QVERIFY2(s.find("2 episode(s)") != std::string::npos, s.c_str());
    QVERIFY2(s.find("the longest 3 step(s)") != std::string::npos, s.c_str());
    QVERIFY2(s.find("ENDED BEHIND") != std::string::npos, s.c_str());
    QVERIFY2(s.find("2-5 dt: 1") != std::string::npos, s.c_str());
    QVERIFY2(s.find("0.1-0.25 dt: 2,") != std::string::npos && s.find("over 1 dt (missed): 4") != std::string::npos, s.c_str());
  }

  // The real-time set-up says what it did and what the system refused, on a thread of its own
  // (the policy and the CPU are the calling thread's).
  void realtimeSetupReports() {
    std::string line;
    std::thread([&] { line = enterRealtime(0, 10); }).join();
    qInfo("%s", line.c_str());
    QVERIFY2(line.rfind("pinned to CPU 0", 0) == 0 || line.rfind("not pinned", 0) == 0, line.c_str());
    QVERIFY2(line.find("; SCHED_FIFO priority 10") != std::string::npos || line.find("; SCHED_FIFO refused (") != std::string::npos,
             line.c_str());
    QVERIFY2(line.find("; memory locked") != std::string::npos || line.find("; memory not locked (") != std::string::npos,
             line.c_str());
  }

  void onTimeRunAndRestart() {
    RealtimePacer p(2e-3, 10);
    const Clock::time_point t0{};
    p.start(t0);
    for (int k = 1; k <= 5; ++k) p.record(k, at(t0, 2.0 * k - 0.5));
    QCOMPARE(p.overruns(), 0LL);
    QVERIFY(!p.behind());
    QVERIFY(p.summary().find("0 of 5 deadlines missed") != std::string::npos);
    QVERIFY(p.summary().find("episode") == std::string::npos);
    // A pause: the schedule restarts from the new start; counts go on.
    const auto t1 = at(t0, 100.0);
    p.start(t1);
    p.record(1, at(t1, 1.0));
    QCOMPARE(p.overruns(), 0LL);
    QCOMPARE(p.steps(), 6LL);
    // More steps than the compute-time record holds: counted, not recorded (no allocation).
    for (int k = 2; k <= 20; ++k) p.record(k, at(t1, 2.0 * k + 0.1));
    QCOMPARE(p.steps(), 25LL);
    QCOMPARE(p.overruns(), 19LL);
    QCOMPARE(p.episodes(), 1LL);
    QVERIFY(p.computePercentile(100) > 0.0);
  }

  void pacingNeverRunsAhead() {
    // A paced step never finishes before its deadline (waiting is the pacer's job): 20 steps of
    // 2 ms take at least 40 ms of wall time. (A lower bound only: a loaded machine is later.)
    RealtimePacer p(2e-3, 20);
    const auto a = Clock::now();
    p.start(a);
    for (int k = 1; k <= 20; ++k) p.stepDone(k);
    QVERIFY(Clock::now() - a >= std::chrono::milliseconds(40));
    QCOMPARE(p.steps(), 20LL);
  }
};

QTEST_GUILESS_MAIN(TestRealtime)
#include "tst_realtime.moc"
