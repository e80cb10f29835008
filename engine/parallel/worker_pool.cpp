// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/parallel/worker_pool.h"

#include <stdexcept>
#include <string>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EK_PAUSE() _mm_pause()
#else
#define EK_PAUSE() std::this_thread::yield()
#endif

namespace ek {
namespace {
constexpr int kPauseSpins = 4096;  ///< polls with a pause instruction before yielding the core
}  // namespace

WorkerPool::WorkerPool(int threads, std::chrono::microseconds sleepAfter) : sleepAfter_(sleepAfter) {
  if (threads < 1) throw std::invalid_argument("the number of threads must be at least 1");
  errors_.resize(static_cast<std::size_t>(threads));
  done_ = std::make_unique<Done[]>(static_cast<std::size_t>(threads));
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  try {
    for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { workerLoop(t); });
  } catch (const std::system_error& e) {
    // A task limit (containers, ulimit -u) refuses threads: stop those started, then say so
    // (a joinable std::thread destroyed by the unwinding would terminate the process).
    const std::size_t started = workers_.size();
    stopWorkers();
    throw std::runtime_error("could not start " + std::to_string(threads) + " threads (" + std::to_string(started + 1) +
                             " running: " + e.what() + "); run with fewer threads");
  }
}

WorkerPool::~WorkerPool() { stopWorkers(); }

void WorkerPool::stopWorkers() {
  stop_.store(true);
  job_.epoch.store(++published_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void WorkerPool::runRaw(Fn fn, void* ctx) {
  if (workers_.empty()) {
    fn(ctx, 0);
    return;
  }
  job_.fn = fn;
  job_.ctx = ctx;
  const std::uint64_t epoch = ++published_;
  // A plain release store: the caller goes on with its own part while the line travels (a
  // read-modify-write would wait for it). Sleeping workers are woken after the caller's part:
  // the fence orders the store before the sleepers_ read (a worker increments sleepers_ before
  // its last look at the epoch), and a sleeper is rare (idle for sleepAfter before).
  job_.epoch.store(epoch, std::memory_order_release);
  try {
    fn(ctx, 0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    int spins = 0;
    while (done_[w].epoch.load(std::memory_order_acquire) != epoch) {
      if (++spins < kPauseSpins) EK_PAUSE();
      else std::this_thread::yield();
    }
  }
  for (auto& e : errors_)
    if (e) {
      std::exception_ptr first = e;
      for (auto& f : errors_) f = nullptr;
      std::rethrow_exception(first);
    }
}

void WorkerPool::workerLoop(int t) {
  std::uint64_t seen = 0;
  for (;;) {
    // Wait for a new epoch: spin, then yield, then sleep.
    int spins = 0;
    auto idleSince = std::chrono::steady_clock::time_point{};
    while (job_.epoch.load(std::memory_order_acquire) == seen) {
      if (++spins < kPauseSpins) {
        EK_PAUSE();
        continue;
      }
      const auto now = std::chrono::steady_clock::now();
      if (idleSince == std::chrono::steady_clock::time_point{}) idleSince = now;
      if (now - idleSince < sleepAfter_) {
        std::this_thread::yield();
        continue;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1);  // seq_cst: ordered before the re-check of the epoch
      wake_.wait(lock, [&] { return job_.epoch.load() != seen; });
      sleepers_.fetch_sub(1);
    }
    seen = job_.epoch.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    const Fn fn = job_.fn;
    void* const ctx = job_.ctx;
    try {
      fn(ctx, t);
    } catch (...) {
      errors_[static_cast<std::size_t>(t)] = std::current_exception();
    }
    done_[t - 1].epoch.store(seen, std::memory_order_release);
  }
}

}  // namespace ek
