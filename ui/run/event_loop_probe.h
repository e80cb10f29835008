// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file event_loop_probe.h
/// Measures how long the GUI thread's event loop stalls: the gaps between the ticks of a 10 ms
/// timer. For benchmarks and for the figures a test prints (no test asserts on them).

#include <QElapsedTimer>
#include <QString>
#include <QTimer>
#include <algorithm>
#include <vector>

namespace ek::ui {

struct EventLoopProbe {
  QElapsedTimer clock;
  QTimer tick;
  qint64 last = 0;
  std::vector<qint64> gaps;  ///< [ms]

  void start() {
    tick.setInterval(10);
    QObject::connect(&tick, &QTimer::timeout, [this] {
      const qint64 now = clock.elapsed();
      gaps.push_back(now - last);
      last = now;
    });
    gaps.clear();
    last = 0;
    clock.start();
    tick.start();
  }
  void stop() {
    tick.stop();
    std::sort(gaps.begin(), gaps.end());
  }
  /// Gap at quantile q in [0, 1] (after stop()), 0 without ticks.
  qint64 quantile(double q) const {
    return gaps.empty() ? 0 : gaps[std::min(gaps.size() - 1, static_cast<std::size_t>(q * gaps.size()))];
  }
  long long over(qint64 ms) const { return std::count_if(gaps.begin(), gaps.end(), [ms](qint64 g) { return g > ms; }); }
  /// "N ticks, median gap M ms, p99 P ms, largest L ms, K gaps over 50 ms" (stops the probe).
  QString summary() {
    stop();
    if (gaps.empty()) return "no ticks";
    return QStringLiteral("%1 ticks, median gap %2 ms, p99 %3 ms, largest %4 ms, %5 gaps over 50 ms")
        .arg(gaps.size())
        .arg(quantile(0.5))
        .arg(quantile(0.99))
        .arg(gaps.back())
        .arg(over(50));
  }
};

}  // namespace ek::ui
