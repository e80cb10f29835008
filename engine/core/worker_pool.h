// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file worker_pool.h
/// A small pool of worker threads that persist for a run, for the parallel step: run(job) calls
/// job(t) for t = 0 .. size()-1, t = 0 on the calling thread, and returns when every call has
/// returned. The handoff spins: a worker polls an epoch counter (with a pause instruction, then
/// yielding the core after a while) and falls asleep on a condition variable only after it has
/// had no work for `sleepAfter` (default 5 ms: longer than a real-time step period, so that
/// workers stay awake through a paced run). No thread is created and nothing is allocated per
/// run(); an exception thrown by a job is passed to the caller of run() (the first one, by
/// thread index).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ek {

class WorkerPool {
 public:
  /// @param threads total threads including the caller (>= 1; 1 runs every job inline).
  explicit WorkerPool(int threads, std::chrono::microseconds sleepAfter = std::chrono::milliseconds(5));
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  /// Calls job(t) on thread t for every t; returns when all returned. Rethrows a job's exception.
  template <class Job>
  void run(Job& job) {
    runRaw([](void* j, int t) { (*static_cast<Job*>(j))(t); }, &job);
  }

 private:
  using Fn = void (*)(void*, int);
  void runRaw(Fn fn, void* ctx);
  void workerLoop(int t);

  std::vector<std::thread> workers_;
  std::vector<std::exception_ptr> errors_;  ///< per thread, sized once
  std::chrono::microseconds sleepAfter_;
  Fn fn_ = nullptr;
  void* ctx_ = nullptr;
  alignas(64) std::atomic<std::uint64_t> epoch_{0};
  alignas(64) std::atomic<int> pending_{0};
  alignas(64) std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
};

}  // namespace ek
