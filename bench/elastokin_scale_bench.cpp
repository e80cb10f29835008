// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-scale-bench: how the topology solver's cost grows with a model (docs/performance.md,
// "Scale"). Per project: the symbolic analysis' time (ordering, fill, plan), the factor's size
// (blocks of A, of L+U, fill), the block operations and flops of one numeric factorization, the
// factorization's and the solve's median CPU time and flop rate, and the median LSRT2 step with
// its phase split. Projects from bench/make_scale_model.py (chains, random graphs) and the shipped
// ones show whether the cost follows the fill.
//
//   elastokin-scale-bench PROJECT.json... [--repeat N] [--steps N]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_args.h"
#include "engine/analysis/simulation.h"
#include "engine/core/text.h"
#include "engine/dynamics/linearize.h"
#include "engine/integrators/lsrt2.h"
#include "engine/model/project_io.h"
#include "engine/solvers/topology_solver.h"

namespace {

double cpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// A of paper 003 eq. (19) at the initial state, as LSRT2 assembles it (dt = 1 ms).
std::vector<ek::Mat6> coefficientMatrix(const ek::SuspensionModel& m) {
  ek::State s;
  m.initialState(s.r, s.v);
  ek::Workspace ws(m);
  ek::linearize(m, s, ek::VecX::Zero(m.nInputs()), ws);
  const double hg = 1e-3 * ek::Lsrt2::kGamma;
  std::vector<ek::Mat6> A(m.pattern.nBlocks());
  for (int l = 0; l < m.nFreeBodies(); ++l)
    for (int b = m.pattern.rowStart[l]; b < m.pattern.rowStart[l + 1]; ++b) {
      ek::Mat6 K = ek::Mat6::Identity();
      K.bottomRightCorner<3, 3>() = ws.Kinv[m.pattern.col[b]];
      A[b] = -hg * ws.Jv[b] - hg * hg * ws.Jr[b] * K;
    }
  for (int l = 0; l < m.nFreeBodies(); ++l) {
    const ek::ModelBody& body = m.bodies[m.freeBodies[l]];
    A[m.pattern.diag[l]].topLeftCorner<3, 3>().diagonal().array() += body.mass;
    A[m.pattern.diag[l]].bottomRightCorner<3, 3>() += body.inertia;
  }
  return A;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> projects;
  int repeat = 5, steps = 20;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--repeat" && k + 1 < argc) repeat = ek::bench::countArg(a, argv[++k]);
    else if (a == "--steps" && k + 1 < argc) steps = ek::bench::countArg(a, argv[++k]);
    else if (!a.empty() && a[0] == '-') {
      ek::cfprintf(stderr, "usage: elastokin-scale-bench PROJECT.json... [--repeat N] [--steps N]\n");
      return 2;
    } else {
      projects.push_back(a);
    }
  }
  ek::cprintf("%-34s %6s %7s %8s %7s %9s %9s %10s %10s %8s %10s %10s\n", "project", "bodies", "A blks", "LU blks",
              "fill", "updates", "symbolic", "factorize", "GFlop/s", "solve", "step", "factor %");
  for (const std::string& path : projects) {
    const auto model = ek::SuspensionModel::build(ek::readProject(path));
    const double s0 = cpuNow();
    ek::TopologySolver solver(*model);
    const double symbolic = cpuNow() - s0;
    const std::vector<ek::Mat6> A = coefficientMatrix(*model);
    std::vector<double> fact, solve;
    ek::VecX b = ek::VecX::Ones(model->nDof()), x(model->nDof());
    for (int r = 0; r < repeat; ++r) {
      const double t0 = cpuNow();
      solver.factorize(A);
      const double t1 = cpuNow();
      solver.solve(b, x);
      const double t2 = cpuNow();
      fact.push_back(t1 - t0);
      solve.push_back(t2 - t1);
    }
    // Flops of one factorization: 432 per 6x6 block multiply-add (update), 432 per L block
    // (F_ik D_k^-1), about 300 per pivot inverse.
    long long lower = 0;
    for (int k = 0; k + 1 < static_cast<int>(solver.factorRowStart().size()); ++k)
      for (int s = solver.factorRowStart()[k]; s < solver.factorRowStart()[k + 1]; ++s)
        lower += solver.factorColumns()[s] < k;
    const double flops = 432.0 * solver.updateOperations() + 432.0 * lower + 300.0 * model->nFreeBodies();
    // LSRT2 steps of the first load case (or free motion), linearized every step.
    double step = 0.0, factorShare = 0.0;
    if (!model->project().loadCases.empty()) {
      ek::RunOptions o;
      o.duration = steps * 1e-3;
      o.sampleRate = 1000.0;
      ek::Simulation sim(model, model->project().loadCases.front().name, o);
      auto* lsrt2 = dynamic_cast<ek::Lsrt2*>(&sim.integrator());
      if (lsrt2) lsrt2->enableTiming(true);
      sim.initialize();
      std::vector<double> t;
      for (int k = 0; k < steps; ++k) {
        const double t0 = cpuNow();
        if (!sim.step()) break;
        t.push_back(cpuNow() - t0);
      }
      step = median(t);
      if (lsrt2) {
        const ek::PhaseTimes& ph = lsrt2->phaseTimes();
        const double total = ph.linearize + ph.assemble + ph.factorize + ph.solve + ph.other;
        factorShare = total > 0.0 ? 100.0 * ph.factorize / total : 0.0;
      }
    }
    std::string name = path.substr(path.find_last_of('/') + 1);
    if (name.size() > 34) name = name.substr(0, 31) + "...";
    ek::cprintf("%-34s %6d %7d %8d %7d %9d %7.3f s %7.3f ms %10.2f %5.2f ms %7.3f ms %9.0f\n", name.c_str(),
                model->nFreeBodies(), model->pattern.nBlocks(), solver.factorBlocks(), solver.fillBlocks(),
                solver.updateOperations(), symbolic, 1e3 * median(fact), flops / median(fact) * 1e-9,
                1e3 * median(solve), 1e3 * step, factorShare);
  }
  return 0;
}
