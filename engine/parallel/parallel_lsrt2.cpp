// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/parallel/parallel_lsrt2.h"

#include <chrono>
#include <stdexcept>

#include "engine/solvers/topology_solver.h"

namespace ek {
ThreadedStageRunner::ThreadedStageRunner(const SuspensionModel& model, int threads, LinearSolver& solver)
    : step_(model, threads, solver) {}

void ThreadedStageRunner::linearizeAndFactorize(const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
                                                const LinearizeOptions& options, StageSystem& system) {
  // A body's part of A right after its kinematics, a row right after it is assembled, each on
  // the thread of the body (no extra handoff).
  struct RowsOfA final : RowWork {
    StageSystem& system;
    const Workspace& ws;
    RowsOfA(StageSystem& s, const Workspace& w) : system(s), ws(w) {}
    void body(int l) override { system.bodyOfA(ws, l); }
    void row(int l) override { system.rowOfA(ws, l); }
  } work(system, ws);
  auto t0 = std::chrono::steady_clock::now();
  step_.linearize(state, u, uDot, ws, options, &work);
  if (timing_) times_.linearize += lapSeconds(t0);
  if (system.inPlace() && step_.topology()) step_.factorizeInPlace();
  else system.factorizeAssembled();
  if (timing_) times_.factorize += lapSeconds(t0), ++times_.linearizations;
}

void ThreadedStageRunner::forRows(Rows f) {
  auto job = [&](int t) { f(step_.rowsOf(t)); };
  step_.run(job);
}

void ThreadedStageRunner::solve(Rows before, StageSystem& system, VecX& x, Rows after) {
  // Each thread's rows, then its subtrees' forward substitution; the separator on this thread;
  // the back substitution of each thread's subtrees, then its rows.
  TopologySolver* const topology = step_.topology();
  VecX& rhs = system.rhs();
  auto forward = [&](int t) {
    before(step_.rowsOf(t));
    if (topology) topology->forwardSubtrees(t, rhs);
  };
  step_.run(forward);
  auto t0 = std::chrono::steady_clock::now();
  if (topology) topology->solveSeparator(rhs, x);
  else system.solver().solve(rhs, x);
  if (timing_) times_.solve += lapSeconds(t0);
  auto back = [&](int t) {
    if (topology) topology->backSubstituteSubtrees(t, x);
    after(step_.rowsOf(t));
  };
  step_.run(back);
}

ParallelLsrt2::ParallelLsrt2(const SuspensionModel& model, Lsrt2Options options, int threads,
                             std::unique_ptr<LinearSolver> solver)
    : Lsrt2(model, options, std::move(solver)) {
  if (threads < 2) throw std::invalid_argument("the parallel step needs at least 2 threads");
  setRunner(std::make_unique<ThreadedStageRunner>(model, threads, system().solver()));
}

}  // namespace ek
