// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/realtime.h"
#include "engine/core/text.h"

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

namespace ek {
namespace {
double seconds(RealtimePacer::Clock::duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

RealtimePacer::RealtimePacer(double dt, long long maxSteps) : dt_(dt) {
  compute_.reserve(static_cast<std::size_t>(std::max(0LL, maxSteps)));
  wake_.reserve(static_cast<std::size_t>(std::max(0LL, maxSteps)));
}

void RealtimePacer::start(Clock::time_point now) {
  t0_ = now;
  released_ = now;
  inEpisode_ = false;  // a restart discards the backlog: an open episode ends without catching up
  episodeSteps_ = 0;
}

RealtimePacer::Clock::time_point RealtimePacer::record(long long k, Clock::time_point now) {
  const auto deadline = t0_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(k * dt_));
  ++steps_;
  if (compute_.size() < compute_.capacity()) compute_.push_back(static_cast<float>(seconds(now - released_)));
  {
    const double latency = seconds(now - deadline) + dt_;  // after the scheduled release, deadline - dt
    int c = 0;
    while (c < kLatencyClasses - 1 && latency > kLatencyEdges[c] * dt_) ++c;
    ++latency_[c];
  }
  if (now > deadline) {
    const double late = seconds(now - deadline);
    ++overruns_;
    worstLateness_ = std::max(worstLateness_, late);
    int c = 0;
    while (c < kClasses - 1 && late > kLatenessEdges[c] * dt_) ++c;
    ++histogram_[c];
    if (!inEpisode_) {
      inEpisode_ = true;
      ++episodes_;
      episodeSteps_ = 0;
      episodeStart_ = deadline;
    }
    longest_ = std::max(longest_, ++episodeSteps_);
    released_ = now;  // the next step starts at once
  } else {
    if (inEpisode_) {
      inEpisode_ = false;
      ++caughtUp_;
      longestRecovery_ = std::max(longestRecovery_, seconds(now - episodeStart_));
    }
    released_ = deadline;
  }
  return deadline;
}

void RealtimePacer::stepDone(long long k) {
  const auto now = Clock::now();
  const auto deadline = record(k, now);
  if (deadline <= now) return;
  // The scheduler wakes a sleeping thread up to a millisecond late: sleep until shortly before
  // the deadline, then spin.
  const auto early = deadline - std::chrono::microseconds(300);
  if (now < early) std::this_thread::sleep_until(early);
  auto woke = Clock::now();
  while (woke < deadline) woke = Clock::now();
  if (wake_.size() < wake_.capacity()) wake_.push_back(static_cast<float>(seconds(woke - deadline)));
}

double RealtimePacer::wakePercentile(double p) const {
  if (wake_.empty()) return 0.0;
  sorted_ = wake_;
  const std::size_t i = std::min(sorted_.size() - 1, static_cast<std::size_t>(p / 100.0 * (sorted_.size() - 1) + 0.5));
  std::nth_element(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(i), sorted_.end());
  return sorted_[i];
}

std::string enterRealtime(int cpu, int priority) {
  std::string out;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    if (cpu < 0)
      for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; --c)
        if (CPU_ISSET(c, &allowed)) cpu = c;
    cpu_set_t one;
    CPU_ZERO(&one);
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &one);
    if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &allowed) && sched_setaffinity(0, sizeof one, &one) == 0)
      out += "pinned to CPU " + std::to_string(cpu);
    else
      out += "not pinned (CPU " + std::to_string(cpu) + " is not one this process may run on)";
  } else {
    out += std::string("not pinned (") + std::strerror(errno) + ")";
  }
  sched_param sp{};
  sp.sched_priority = std::clamp(priority, sched_get_priority_min(SCHED_FIFO), sched_get_priority_max(SCHED_FIFO));
  if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
    out += "; SCHED_FIFO priority " + std::to_string(sp.sched_priority);
  else
    out += std::string("; SCHED_FIFO refused (") + std::strerror(errno) +
           ": needs root, CAP_SYS_NICE or an rtprio limit, `ulimit -r`), normal scheduling";
  if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
    out += "; memory locked";
  else
    out += std::string("; memory not locked (") + std::strerror(errno) + ": raise the memlock limit, `ulimit -l`)";
  return out;
}

double RealtimePacer::computePercentile(double p) const {
  if (compute_.empty()) return 0.0;
  sorted_ = compute_;  // capacity was reserved by an earlier call or grows here, outside the run
  const std::size_t i = std::min(sorted_.size() - 1, static_cast<std::size_t>(p / 100.0 * (sorted_.size() - 1) + 0.5));
  std::nth_element(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(i), sorted_.end());
  return sorted_[i];
}

std::string RealtimePacer::summary() const {
  std::string out;
  char buf[256];
  ek::csnprintf(buf, sizeof buf, "paced to the wall clock: %lld of %lld deadlines missed (%.3g %%, dt = %g ms)\n",
                overruns_, steps_, steps_ ? 100.0 * overruns_ / steps_ : 0.0, 1e3 * dt_);
  out += buf;
  if (overruns_ > 0) {
    out += "  lateness of the missed ones:";
    double lo = 0.0;
    for (int c = 0; c < kClasses; ++c) {
      if (histogram_[c] > 0) {
        if (c < kClasses - 1) ek::csnprintf(buf, sizeof buf, " %g-%g dt: %lld,", lo, kLatenessEdges[c], histogram_[c]);
        else ek::csnprintf(buf, sizeof buf, " over %g dt: %lld,", lo, histogram_[c]);
        out += buf;
      }
      if (c < kClasses - 1) lo = kLatenessEdges[c];
    }
    out.back() = '\n';
    ek::csnprintf(buf, sizeof buf, "  worst %.3f ms late; %lld episode(s) of consecutive misses, the longest %lld step(s)\n",
                  1e3 * worstLateness_, episodes_, longest_);
    out += buf;
    if (inEpisode_)
      ek::csnprintf(buf, sizeof buf, "  %lld of them caught up; the run ENDED BEHIND the wall clock (the last %lld step(s) were late)\n",
                    caughtUp_, episodeSteps_);
    else
      ek::csnprintf(buf, sizeof buf, "  every episode caught up%s; the longest took %.3f ms from the first missed deadline\n",
                    caughtUp_ == episodes_ ? "" : " or was ended by a pause", 1e3 * longestRecovery_);
    out += buf;
  }
  if (steps_ > 0) {
    out += "  step latency (finish after the scheduled release):";
    double lo = 0.0;
    for (int c = 0; c < kLatencyClasses; ++c) {
      if (c < kLatencyClasses - 1) ek::csnprintf(buf, sizeof buf, " %g-%g dt: %lld,", lo, kLatencyEdges[c], latency_[c]);
      else ek::csnprintf(buf, sizeof buf, " over 1 dt (missed): %lld,", latency_[c]);
      out += buf;
      if (c < kLatencyClasses - 1) lo = kLatencyEdges[c];
    }
    out.back() = '\n';
  }
  if (!wake_.empty()) {
    ek::csnprintf(buf, sizeof buf, "  wake-up after the release: median %.1f us, p99 %.1f us, max %.1f us\n",
                  1e6 * wakePercentile(50), 1e6 * wakePercentile(99), 1e6 * wakePercentile(100));
    out += buf;
  }
  if (!compute_.empty()) {
    const double p50 = computePercentile(50), p99 = computePercentile(99), pmax = computePercentile(100);
    ek::csnprintf(buf, sizeof buf, "  step compute time: median %.1f us, p99 %.1f us, max %.1f us of the %g us deadline "
                  "(margin at p99: %.0f %%)\n", 1e6 * p50, 1e6 * p99, 1e6 * pmax, 1e6 * dt_, 100.0 * (1.0 - p99 / dt_));
    out += buf;
  }
  return out;
}

}  // namespace ek
