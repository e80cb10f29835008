// SPDX-License-Identifier: GPL-3.0-or-later
#include "study_mpi.h"

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ek::mpi {

namespace {

constexpr int kTagJob = 1, kTagResult = 2, kTagStop = 3;

/// Job: index, then the design's values. Result: index, ok, the criteria, then the message's bytes.
std::vector<char> packJob(std::int64_t index, const std::vector<double>& values) {
  std::vector<char> b(sizeof index + values.size() * sizeof(double));
  std::memcpy(b.data(), &index, sizeof index);
  if (!values.empty()) std::memcpy(b.data() + sizeof index, values.data(), values.size() * sizeof(double));
  return b;
}

std::vector<char> packResult(std::int64_t index, const DesignResult& r) {
  const std::int64_t ok = r.cancelled ? 2 : r.ok ? 1 : 0, nc = static_cast<std::int64_t>(r.criteria.size());
  std::vector<char> b(3 * sizeof(std::int64_t) + r.criteria.size() * sizeof(double) + r.message.size());
  char* p = b.data();
  for (std::int64_t v : {index, ok, nc}) {
    std::memcpy(p, &v, sizeof v);
    p += sizeof v;
  }
  if (nc > 0) std::memcpy(p, r.criteria.data(), r.criteria.size() * sizeof(double));
  p += r.criteria.size() * sizeof(double);
  if (!r.message.empty()) std::memcpy(p, r.message.data(), r.message.size());
  return b;
}

DesignResult unpackResult(const std::vector<char>& b, std::int64_t& index) {
  std::int64_t head[3];
  std::memcpy(head, b.data(), sizeof head);
  index = head[0];
  DesignResult r;
  r.ok = head[1] == 1;
  r.cancelled = head[1] == 2;
  r.criteria.resize(static_cast<std::size_t>(head[2]));
  const char* p = b.data() + sizeof head;
  if (head[2] > 0) std::memcpy(r.criteria.data(), p, r.criteria.size() * sizeof(double));
  p += r.criteria.size() * sizeof(double);
  r.message.assign(p, b.data() + b.size());
  return r;
}

std::vector<char> receive(int source, int tag, MPI_Status& status) {
  MPI_Probe(source, tag, MPI_COMM_WORLD, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<char> b(static_cast<std::size_t>(count));
  MPI_Recv(b.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return b;
}

class MpiExecutor : public StudyExecutor {
 public:
  MpiExecutor(const StudyContext& context, int localThreads) : context_(context), localThreads_(localThreads) {}
  ~MpiExecutor() override {
    for (int r = 1; r < size(); ++r) MPI_Send(nullptr, 0, MPI_BYTE, r, kTagStop, MPI_COMM_WORLD);
  }
  int width() const override { return localThreads_ + size() - 1; }
  std::string describe() const override {
    return std::to_string(size()) + " MPI ranks (" + std::to_string(size() - 1) + " working, rank 0 with " +
           std::to_string(localThreads_) + " thread" + (localThreads_ == 1 ? "" : "s") + ")";
  }

  void evaluate(const std::vector<std::vector<double>>& designs, const Done& done, const std::atomic<bool>& stop) override {
    std::mutex m;
    std::deque<std::pair<std::size_t, DesignResult>> localDone;
    std::size_t next = 0;
    int localRunning = 0;
    bool aborted = false;  // under m: reporting failed; no new designs, those in flight are collected
    std::exception_ptr error;
    auto report = [&](std::size_t i, const DesignResult& r) {
      if (error) return;
      try {
        done(i, r);
      } catch (...) {
        error = std::current_exception();
        std::lock_guard<std::mutex> lock(m);
        aborted = true;
      }
    };
    auto take = [&](std::size_t& i) {  // under m
      if (next >= designs.size() || stop.load() || aborted) return false;
      i = next++;
      return true;
    };
    // Rank 0's own threads take designs from the same queue as the ranks.
    std::vector<std::thread> pool;
    for (int k = 0; k < localThreads_; ++k)
      pool.emplace_back([&] {
        for (;;) {
          std::size_t i;
          {
            std::lock_guard<std::mutex> lock(m);
            if (!take(i)) return;
            ++localRunning;
          }
          DesignResult r = evaluateDesign(context_, designs[i]);
          std::lock_guard<std::mutex> lock(m);
          localDone.emplace_back(i, std::move(r));
          --localRunning;
        }
      });
    std::vector<bool> busy(static_cast<std::size_t>(size()), false);
    int remoteRunning = 0;
    for (;;) {
      bool progress = false;
      for (int r = 1; r < size(); ++r) {
        if (busy[static_cast<std::size_t>(r)]) continue;
        std::size_t i;
        {
          std::lock_guard<std::mutex> lock(m);
          if (!take(i)) break;
        }
        const std::vector<char> job = packJob(static_cast<std::int64_t>(i), designs[i]);
        MPI_Send(job.data(), static_cast<int>(job.size()), MPI_BYTE, r, kTagJob, MPI_COMM_WORLD);
        busy[static_cast<std::size_t>(r)] = true;
        ++remoteRunning;
        progress = true;
      }
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &flag, &status);
      if (flag) {
        const std::vector<char> b = receive(status.MPI_SOURCE, kTagResult, status);
        std::int64_t index = 0;
        const DesignResult r = unpackResult(b, index);
        busy[static_cast<std::size_t>(status.MPI_SOURCE)] = false;
        --remoteRunning;
        report(static_cast<std::size_t>(index), r);
        progress = true;
      }
      std::deque<std::pair<std::size_t, DesignResult>> mine;
      bool finished;
      {
        std::lock_guard<std::mutex> lock(m);
        mine.swap(localDone);
        finished = (next >= designs.size() || stop.load() || aborted) && localRunning == 0 && remoteRunning == 0;
      }
      for (auto& [i, r] : mine) report(i, r);
      if (finished && mine.empty()) break;
      if (!progress && mine.empty()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
  }

 private:
  const StudyContext& context_;
  int localThreads_;
};

}  // namespace

bool launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"})
    if (std::getenv(v)) return true;
  return false;
}

void initialize(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
}

void finalize() { MPI_Finalize(); }

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

void abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

std::unique_ptr<StudyExecutor> makeExecutor(const StudyContext& context, int localThreads) {
  return std::make_unique<MpiExecutor>(context, localThreads);
}

void serve(const StudyContext& context) {
  for (;;) {
    MPI_Status status;
    const std::vector<char> b = receive(0, MPI_ANY_TAG, status);
    if (status.MPI_TAG == kTagStop) return;
    std::int64_t index = 0;
    std::memcpy(&index, b.data(), sizeof index);
    std::vector<double> values((b.size() - sizeof index) / sizeof(double));
    if (!values.empty()) std::memcpy(values.data(), b.data() + sizeof index, values.size() * sizeof(double));
    const std::vector<char> r = packResult(index, evaluateDesign(context, values));
    MPI_Send(r.data(), static_cast<int>(r.size()), MPI_BYTE, 0, kTagResult, MPI_COMM_WORLD);
  }
}

}  // namespace ek::mpi
