// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file realtime.h
/// Pacing a simulation to the wall clock, as on a test rig: step k is released at start + (k-1) dt
/// and is due at start + k dt. A step that finishes after its deadline is an overrun (a missed
/// deadline). The schedule is absolute: after an overrun the next steps start at once, without
/// sleeping, until a step finishes before its deadline again; the run has then caught up and
/// the simulated clock is back on the wall clock. A run of consecutive overruns is an episode.
///
/// The pacer keeps, without allocating after construction: the number of overruns, the
/// distribution of their lateness (in multiples of dt), the episodes (how many, how many caught
/// up, the longest in steps and in wall time) and the compute time of every step (median, p99,
/// maximum), from which the margin to the deadline follows. docs/realtime.md says what a missed
/// deadline costs and how many are seen on an idle and on a loaded machine.

#include <array>
#include <chrono>
#include <string>
#include <vector>

namespace ek {

class RealtimePacer {
 public:
  using Clock = std::chrono::steady_clock;
  /// Upper edges of the lateness classes in multiples of dt; the last class is open.
  static constexpr std::array<double, 6> kLatenessEdges{0.1, 0.5, 1.0, 2.0, 5.0, 10.0};
  static constexpr int kClasses = static_cast<int>(kLatenessEdges.size()) + 1;
  /// Upper edges of the step latency classes (finish time after the step's scheduled release) in
  /// multiples of dt; the last class, above 1 dt, is the missed deadlines.
  static constexpr std::array<double, 6> kLatencyEdges{0.1, 0.25, 0.5, 0.75, 0.9, 1.0};
  static constexpr int kLatencyClasses = static_cast<int>(kLatencyEdges.size()) + 1;

  /// @param maxSteps compute times of up to this many steps are kept for the percentiles (the
  ///        counts hold for any number of steps).
  explicit RealtimePacer(double dt, long long maxSteps = 0);

  /// Starts the schedule now (again after a pause: the counts are kept, the schedule restarts).
  void start() { start(Clock::now()); }
  void start(Clock::time_point now);
  /// Call after step k (1-based, counted from the last start()) finished: records it and, if it
  /// was on time, waits until its deadline. Never allocates.
  void stepDone(long long k);
  /// Records step k finishing at `now` and returns the deadline to wait for (earlier than or
  /// equal to `now` if the step was late). Exposed for tests with a synthetic clock.
  Clock::time_point record(long long k, Clock::time_point now);

  long long steps() const { return steps_; }
  long long overruns() const { return overruns_; }
  double worstLateness() const { return worstLateness_; }  ///< [s]
  /// Overruns per lateness class (see kLatenessEdges).
  const std::array<long long, kClasses>& latenessHistogram() const { return histogram_; }
  /// Steps per latency class (see kLatencyEdges): the time from a step's scheduled release,
  /// start + (k-1) dt, to its finish; the last class counts the missed deadlines.
  const std::array<long long, kLatencyClasses>& latencyHistogram() const { return latency_; }
  /// How late the steps after a wait started against their release time (the wake-up jitter of
  /// sleep and spin) [s]: percentile 0..100 over the steps kept; 0 if none.
  double wakePercentile(double p) const;
  long long episodes() const { return episodes_; }
  long long caughtUp() const { return caughtUp_; }       ///< episodes that ended with an on-time step
  long long longestEpisode() const { return longest_; }  ///< [steps]
  double longestRecovery() const { return longestRecovery_; }  ///< wall time from a first missed deadline to catching up [s]
  bool behind() const { return inEpisode_; }             ///< the last step was late
  /// Percentile (0..100) of the recorded step compute times [s]; 0 if none.
  double computePercentile(double p) const;

  /// Several lines for a terminal or a log: overruns, their lateness classes, episodes and
  /// whether the run caught up, the step compute time against the deadline.
  std::string summary() const;

 private:
  double dt_;
  Clock::time_point t0_, released_;
  long long steps_ = 0, overruns_ = 0, episodes_ = 0, caughtUp_ = 0, longest_ = 0, episodeSteps_ = 0;
  double worstLateness_ = 0.0, longestRecovery_ = 0.0;
  Clock::time_point episodeStart_;
  bool inEpisode_ = false;
  std::array<long long, kClasses> histogram_{};
  std::array<long long, kLatencyClasses> latency_{};
  std::vector<float> compute_;  ///< per step [s], capacity fixed at construction
  std::vector<float> wake_;     ///< per step that waited: its start after the release [s], same capacity
  mutable std::vector<float> sorted_;
};

/// The real-time set-up of the calling thread for a paced run, as far as the system permits:
/// pinned to one CPU, the SCHED_FIFO policy at `priority` (1..99), and its memory locked
/// (mlockall), each tried on its own. What was done and what was refused, with the reason and
/// the remedy (root, CAP_SYS_NICE or an rtprio limit for SCHED_FIFO; a memlock limit), in one
/// line for the run's summary. cpu < 0: the last CPU the thread may run on.
std::string enterRealtime(int cpu, int priority = 80);

}  // namespace ek
