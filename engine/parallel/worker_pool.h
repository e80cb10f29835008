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
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ek {

class WorkerPool {
 public:
  /// @param threads total threads including the caller (>= 1; 1 runs every job inline).
  /// @throws std::runtime_error when the system refuses to create a thread (nothing left running).
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
  /// Wakes the workers with the stop flag and joins them.
  void stopWorkers();

  /// The job and its epoch in one cache line: a worker's poll that sees the new epoch has the
  /// job too (one transfer between the cores, not two).
  struct alignas(64) Job {
    std::atomic<std::uint64_t> epoch{0};
    Fn fn = nullptr;
    void* ctx = nullptr;
  };
  /// A worker's "done with epoch e", written only by that worker, in a line of its own: the
  /// caller's poll costs one transfer per worker and the worker never waits for the line (a
  /// shared counter would need two transfers: the worker's read for ownership, the caller's read).
  struct alignas(64) Done {
    std::atomic<std::uint64_t> epoch{0};
  };

  std::vector<std::thread> workers_;
  std::vector<std::exception_ptr> errors_;  ///< per thread, sized once
  std::unique_ptr<Done[]> done_;            ///< per worker (index t - 1)
  std::chrono::microseconds sleepAfter_;
  Job job_;
  std::uint64_t published_ = 0;  ///< the last epoch published (the caller's copy)
  alignas(64) std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
};

}  // namespace ek
