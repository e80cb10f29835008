// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file realtime.h
/// Pacing a simulation to the wall clock: step k may not finish before start + k dt; a step that
/// finishes after its deadline is an overrun (a missed real-time deadline).

#include <chrono>
#include <thread>

namespace ek {

class RealtimePacer {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RealtimePacer(double dt) : dt_(dt) {}
  void start() {
    t0_ = Clock::now();
    overruns_ = 0;
    worstLateness_ = 0.0;
  }
  /// Call after step k (1-based) finished: counts an overrun if it is late, else sleeps until
  /// the deadline. Never allocates.
  void stepDone(long long k) {
    const auto deadline = t0_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(k * dt_));
    const auto now = Clock::now();
    if (now > deadline) {
      ++overruns_;
      worstLateness_ = std::max(worstLateness_, std::chrono::duration<double>(now - deadline).count());
    } else {
      // The scheduler wakes a sleeping thread up to a millisecond late: sleep until shortly before
      // the deadline, then spin.
      const auto early = deadline - std::chrono::microseconds(300);
      if (now < early) std::this_thread::sleep_until(early);
      while (Clock::now() < deadline) {
      }
    }
  }
  long long overruns() const { return overruns_; }
  double worstLateness() const { return worstLateness_; }  ///< [s]

 private:
  double dt_;
  Clock::time_point t0_;
  long long overruns_ = 0;
  double worstLateness_ = 0.0;
};

}  // namespace ek
