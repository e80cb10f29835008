// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-bench: step times of the shipped projects (LC1 of the axles, the first load case of
// others, e.g. --projects full_vehicle; dt = 1 ms, linearized every step) with
// each linear solver, figures that hold on a shared machine: the median and p99 wall time per
// step, the thread's CPU time per step, the real-time factor from the median step (and from the
// wall time), the time per step split by phase (measured on every tenth step, which the step
// times leave out), the deviation from the first variant (dense LU by default). Variants run
// interleaved, round after round (--repeat), and each variant's steps are pooled, so that a load
// change on the machine hits all variants alike. --variant compares options A/B; --scaling
// replicates an axle 1..16 times and reports microseconds per body. Prints tables, writes JSON.
//
//   elastokin-bench [--out bench.json] [--duration S] [--repeat N] [--projects a,b] [--threads N]
//                   [--solvers a,b] [--integrators a,b] [--variant NAME:key=value,...]...
//                   [--scaling [--scaling-max N]] [--flexible-modes a,b,...]
//                   [--flexible-max-frequency a,b,...]
//
// --flexible-modes 0,4,8,16 runs each project with flexible bodies once per count of
// fixed-interface modes (the table's `modes`), named "PROJECT, modes=N (T in all)" with T the
// modal coordinates after the reduction (constraint modes included): the step cost per mode.
// --flexible-max-frequency 0,1000,500 does the same per second truncation (the table's
// `max frequency [Hz]`, 0: every mode kept), named "PROJECT, max N Hz (T in all)".
//
// --integrators lsrt2,ros34pw2,lie compares the fixed-step methods (topology solver); a variant's
// keys are integrator, solver, lin-every, threads and always (always=1: the parallel step on every
// step; without it threads > 1 runs the parallel step only while it is the faster one,
// engine/parallel/parallel_choice.h). Phase times are LSRT2's only.
//
// With threads > 1 the CPU time is the whole process's (the workers spin between their parts of
// a step, so it is about threads x wall time).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

#include "engine/analysis/simulation.h"
#include "engine/integrators/lsrt2.h"
#include "engine/model/project_io.h"
#include "engine/solvers/topology_solver.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "bench_args.h"
#include "flop_count.h"

namespace {

/// Options of one variant: the solver and the linearization interval.
struct Variant {
  std::string name;
  std::string integrator = "lsrt2";
  std::string solver = "topology";
  int linearizeEvery = 1;
  int threads = 1;
  bool threadsAlways = false;  ///< the parallel step on every step (else only while it is faster)
};

/// Every step of every round of one (project, variant).
struct Pool {
  std::string project, variant, solver;
  int dof = 0, bodies = 0, threads = 1;
  std::vector<double> wall, cpu;  // per step [s]
  double simulated = 0, wallTotal = 0;
  ek::PhaseTimes phases;
  double deviation = -1;  // vs dense LU, relative to each channel's range; -1: not compared
  double flops = 0;       // per step (flop_count.h); 0: not counted (KLU, methods other than LSRT2)
  int transcendentals = 0;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(p * v.size())) - 1);
  return v[k];
}

/// CPU time of the calling thread, or of the whole process (all threads of a parallel step).
double cpuTime(bool process) {
  timespec ts{};
  clock_gettime(process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

bool parseVariant(const std::string& text, Variant& v) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  v.name = text.substr(0, colon);
  for (const std::string& kv : split(text.substr(colon + 1), ',')) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos) return false;
    const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
    if (key == "solver") v.solver = value;
    else if (key == "integrator") v.integrator = value;
    else if (key == "lin-every") v.linearizeEvery = ek::bench::countArg(key, value);
    else if (key == "threads") v.threads = ek::bench::countArg(key, value);
    else if (key == "always") v.threadsAlways = value == "1" || value == "yes";
    else return false;
  }
  return true;
}

/// `copies` independent copies of a project's suspension on its ground (id offsets per copy;
/// ground bodies shared), driven by copies of its load cases; no wheels, vehicle or outputs.
ek::Project replicate(const ek::Project& p, int copies) {
  ek::Project r = p;
  r.bodies.clear();
  r.markers.clear();
  r.bushings.clear();
  r.p2ps.clear();
  r.inputs.clear();
  r.wheels.clear();
  r.vehicle.reset();
  r.outputs.clear();
  for (auto& lc : r.loadCases) lc.drives.clear();
  std::map<int, bool> ground;
  for (const auto& b : p.bodies) ground[b.id] = b.id == 0;
  for (int k = 0; k < copies; ++k) {
    const int body = 100000 * k, other = 100000 * k;
    for (auto b : p.bodies) {
      if (ground[b.id]) {
        if (k == 0) r.bodies.push_back(b);
        continue;
      }
      b.id += body;
      r.bodies.push_back(b);
    }
    for (auto m : p.markers) {
      m.id += other;
      if (!ground[m.body]) m.body += body;
      r.markers.push_back(m);
    }
    for (auto e : p.bushings) {
      e.id += other;
      e.markerI += other;
      e.markerJ += other;
      r.bushings.push_back(e);
    }
    for (auto e : p.p2ps) {
      e.id += other;
      e.markerI += other;
      e.markerJ += other;
      r.p2ps.push_back(e);
    }
    for (auto in : p.inputs) {
      in.id += other;
      in.marker += other;
      r.inputs.push_back(in);
    }
    for (std::size_t l = 0; l < p.loadCases.size(); ++l)
      for (auto d : p.loadCases[l].drives) {
        d.input += other;
        r.loadCases[l].drives.push_back(d);
      }
  }
  return r;
}

/// One run of LC1; its steps go into the pool.
void runInto(Pool& pool, const std::shared_ptr<const ek::SuspensionModel>& model, const Variant& v, double duration,
             std::vector<std::vector<double>>* series) {
  ek::RunOptions o;
  o.dt = 1e-3;
  o.linearizeEvery = v.linearizeEvery;
  o.duration = duration;
  o.solver = v.solver;
  o.threads = v.threads;
  o.threadsAlways = v.threadsAlways;
  o.integrator = v.integrator;
  // LC1 of the axles; a project without one (the full vehicle) runs its first load case.
  const auto& cases = model->project().loadCases;
  const bool hasLc1 = std::any_of(cases.begin(), cases.end(), [](const ek::LoadCaseRow& lc) { return lc.name == "LC1"; });
  ek::Simulation sim(model, hasLc1 || cases.empty() ? std::string("LC1") : cases.front().name, o);
  // Phase times (LSRT2 only) on every tenth step; those steps read the clock eight more times
  // and are left out of the step times, which are the engine's as users run it.
  auto* lsrt2 = dynamic_cast<ek::Lsrt2*>(&sim.integrator());
  constexpr int kPhaseEvery = 10;
  sim.initialize();
  pool.wall.reserve(pool.wall.size() + static_cast<std::size_t>(sim.totalSteps()));
  pool.cpu.reserve(pool.cpu.size() + static_cast<std::size_t>(sim.totalSteps()));
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  const bool process = v.threads > 1;
  double cpuLast = cpuTime(process);
  for (long long step = 0;; ++step) {
    // The wall time of the step alone: the CPU clock is read outside it (a system call, 0.5 us
    // on the machine of docs/performance.md, which the CPU time per step includes instead).
    const bool phases = lsrt2 && step % kPhaseEvery == kPhaseEvery - 1;
    if (lsrt2) lsrt2->enableTiming(phases);
    const auto before = std::chrono::steady_clock::now();
    const bool more = sim.step();
    const auto now = std::chrono::steady_clock::now();
    const double cpuNow = cpuTime(process);
    if (!phases) {
      pool.wall.push_back(std::chrono::duration<double>(now - before).count());
      pool.cpu.push_back(cpuNow - cpuLast);
    }
    last = now;
    cpuLast = cpuNow;
    if (!more) break;
  }
  pool.simulated += sim.stepsDone() * o.dt;
  pool.wallTotal += std::chrono::duration<double>(last - t0).count();
  const ek::PhaseTimes ph = lsrt2 ? lsrt2->phaseTimes() : ek::PhaseTimes{};
  pool.phases.linearize += ph.linearize;
  pool.phases.assemble += ph.assemble;
  pool.phases.factorize += ph.factorize;
  pool.phases.solve += ph.solve;
  pool.phases.other += ph.other;
  pool.phases.steps += ph.steps;
  if (series) {
    series->clear();
    for (std::size_t c = 0; c < sim.results().channels().size(); ++c) series->push_back(sim.results().series(c));
  }
}

double mean(const std::vector<double>& x) {
  double s = 0.0;
  for (double v : x) s += v;
  return x.empty() ? 0.0 : s / static_cast<double>(x.size());
}

void print(const Pool& p, double paperRtf) {
  const double median = percentile(p.wall, 0.5), p99 = percentile(p.wall, 0.99);
  const double n = std::max(1.0, static_cast<double>(p.phases.steps));
  // One thread: the median of the thread's CPU time per step. Several: the process's CPU clock
  // takes in a thread running on another core only at scheduler ticks (every few ms), so a
  // per-step sample misses the workers and only the mean over the run is right.
  const bool threaded = p.threads > 1;
  const double cpu = threaded ? mean(p.cpu) : percentile(p.cpu, 0.5);
  ek::cprintf("%-18s %-10s median %6.1f us (RTF %.4f), p99 %6.1f us, CPU %6.1f us/step%s | wall RTF %.4f",
              p.project.c_str(), p.variant.c_str(), 1e6 * median, median / 1e-3, 1e6 * p99, 1e6 * cpu,
              threaded ? " (mean, all threads)" : "", p.wallTotal / p.simulated);
  if (paperRtf > 0) ek::cprintf(" (%.1fx faster than the paper's %.3f)", paperRtf / (median / 1e-3), paperRtf);
  if (p.phases.steps > 0)
    ek::cprintf(" | lin %.1f, A %.1f, factor %.1f, solves %.1f, rest %.1f us", 1e6 * p.phases.linearize / n,
                1e6 * p.phases.assemble / n, 1e6 * p.phases.factorize / n, 1e6 * p.phases.solve / n,
                1e6 * p.phases.other / n);
  if (p.flops > 0)
    ek::cprintf(" | %.0f kflop/step, %.2f GFLOP/s", 1e-3 * p.flops, 1e-9 * p.flops / median);
  if (p.deviation >= 0) ek::cprintf(" | dev %.1e", p.deviation);  // vs the first variant
  ek::cprintf("\n");
  std::fflush(stdout);
}

void json(std::ostringstream& js, const Pool& p, bool last) {
  const double n = std::max(1.0, static_cast<double>(p.phases.steps));
  const double median = percentile(p.wall, 0.5);
  js << "    {\"project\": \"" << p.project << "\", \"variant\": \"" << p.variant << "\", \"solver\": \"" << p.solver
     << "\", \"threads\": " << p.threads << ", \"dof\": " << p.dof << ", \"free bodies\": " << p.bodies << ", \"steps\": " << p.wall.size()
     << ", \"step time [us]\": {\"median\": " << 1e6 * median << ", \"p99\": " << 1e6 * percentile(p.wall, 0.99)
     << ", \"max\": " << 1e6 * percentile(p.wall, 1.0) << "}, \"CPU per step [us]\": {\"median\": "
     << 1e6 * percentile(p.cpu, 0.5) << ", \"mean\": " << 1e6 * mean(p.cpu)
     << "}, \"real-time factor (median step)\": " << median / 1e-3
     << ", \"real-time factor (wall)\": " << p.wallTotal / p.simulated
     << ", \"per body [us]\": " << 1e6 * median / std::max(1, p.bodies) << ", \"per step [us]\": {\"linearization\": "
     << 1e6 * p.phases.linearize / n << ", \"assembly of A\": " << 1e6 * p.phases.assemble / n
     << ", \"factorization\": " << 1e6 * p.phases.factorize / n << ", \"stage solves\": " << 1e6 * p.phases.solve / n
     << ", \"rest\": " << 1e6 * p.phases.other / n << "}, \"flop per step\": " << p.flops
     << ", \"GFLOP/s (median step)\": " << (p.flops > 0 ? 1e-9 * p.flops / median : 0.0)
     << ", \"sin/cos/atan2 per linearization\": " << p.transcendentals << ", \"max deviation from the first variant\": " << p.deviation << "}"
     << (last ? "" : ",") << "\n";
}

int usage() {
  ek::cfprintf(stderr,
               "usage: elastokin-bench [--out bench.json] [--duration S] [--repeat N] [--projects a,b] "
               "[--solvers a,b] [--integrators a,b] [--threads N] [--variant NAME:integrator=I,solver=S,lin-every=N,threads=N]... "
               "[--scaling [--scaling-max N]] [--flexible-modes a,b,...] [--flexible-max-frequency a,b,...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "bench.json";
  double duration = 15.0;
  int repeat = 1, scalingMax = 16, threads = 1;
  bool scaling = false;
  std::vector<std::string> projectNames{"double_wishbone", "multilink"};
  std::vector<Variant> variants;
  std::vector<std::string> solvers{"dense", "klu", "topology"}, integrators;
  std::vector<int> flexibleModes;
  std::vector<double> flexibleCuts;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto next = [&]() -> std::string { return k + 1 < argc ? argv[++k] : std::string(); };
    if (a == "--out") out = next();
    else if (a == "--duration") duration = ek::bench::numberArg(a, next());
    else if (a == "--repeat") repeat = ek::bench::countArg(a, next());
    else if (a == "--projects") projectNames = split(next(), ',');
    else if (a == "--solvers") solvers = split(next(), ',');
    else if (a == "--integrators") integrators = split(next(), ',');
    else if (a == "--scaling") scaling = true;
    else if (a == "--flexible-modes")
      for (const std::string& m : split(next(), ',')) flexibleModes.push_back(ek::bench::countArg(a, m, 0));
    else if (a == "--flexible-max-frequency")
      for (const std::string& f : split(next(), ',')) flexibleCuts.push_back(ek::bench::numberArg(a, f));
    else if (a == "--threads") threads = ek::bench::countArg(a, next());
    else if (a == "--scaling-max") scalingMax = ek::bench::countArg(a, next());
    else if (a == "--variant") {
      Variant v;
      if (!parseVariant(next(), v)) return usage();
      variants.push_back(v);
    } else {
      return usage();
    }
    if (!(duration > 0)) return usage();
  }
  if (variants.empty() && !integrators.empty())  // the methods side by side, topology solver
    for (const auto& i : integrators) variants.push_back({i, i, "topology", 1, threads});
  if (variants.empty())
    for (const auto& s : solvers) variants.push_back({s, "lsrt2", s, 1, threads});
  const std::string root = ELASTOKIN_SOURCE_DIR;
  const std::map<std::string, double> paper{{"double_wishbone", 0.494}, {"multilink", 0.676}};

  // The models: the shipped axles, or the double wishbone replicated 1, 2, 4, ... times.
  std::vector<std::pair<std::string, std::shared_ptr<const ek::SuspensionModel>>> models;
  if (scaling) {
    const ek::Project dw = ek::readProject(root + "/projects/double_wishbone.json");
    for (int copies = 1; copies <= scalingMax; copies *= 2)
      models.push_back({"double_wishbone x" + std::to_string(copies), ek::SuspensionModel::build(replicate(dw, copies))});
  } else {
    for (const auto& name : projectNames) {
      const ek::Project p = ek::readProject(root + "/projects/" + name + ".json");
      if ((flexibleModes.empty() && flexibleCuts.empty()) || p.flexibleBodies.empty()) {
        models.push_back({name, ek::SuspensionModel::build(p)});
        continue;
      }
      auto add = [&](const ek::Project& v, const std::string& label) {
        auto model = ek::SuspensionModel::build(v);
        int all = 0;
        for (const auto& f : model->flexibleBodies) all += f.modes();
        models.push_back({name + ", " + label + " (" + std::to_string(all) + " in all)", model});
      };
      for (int modes : flexibleModes) {
        ek::Project v = p;
        for (auto& f : v.flexibleBodies) f.modes = modes;
        add(v, "modes=" + std::to_string(modes));
      }
      for (double cut : flexibleCuts) {
        ek::Project v = p;
        for (auto& f : v.flexibleBodies) f.maxFrequency = cut;
        add(v, "max " + ek::significant(cut, 6) + " Hz");
      }
    }
  }
  std::vector<Pool> pools;
  for (const auto& [name, model] : models)
    for (const Variant& v : variants) {
      Pool p;
      p.project = name;
      p.variant = v.name;
      p.solver = v.solver;
      p.threads = v.threads;
      p.dof = model->nDof();
      p.bodies = model->nFreeBodies();
      if (v.integrator == "lsrt2" && (v.solver == "topology" || v.solver == "dense")) {  // LSRT2's stage structure
        const ek::TopologySolver topology(*model);
        const bench::StepFlops f = bench::countStepFlops(*model, v.solver == "topology" ? &topology : nullptr);
        p.flops = f.total(v.linearizeEvery);
        p.transcendentals = f.transcendentals;
      }
      pools.push_back(p);
    }
  // Round after round, every (model, variant) once per round.
  for (int round = 0; round < repeat; ++round) {
    std::size_t k = 0;
    for (const auto& [name, model] : models) {
      std::vector<std::vector<double>> dense, series;
      for (const Variant& v : variants) {
        Pool& p = pools[k++];
        const bool compare = !scaling && round == 0;
        runInto(p, model, v, duration, compare ? &series : nullptr);
        if (!compare) continue;
        if (dense.empty()) {  // the first variant is the reference (dense LU by default)
          dense = series;
          continue;
        }
        p.deviation = 0.0;
        for (std::size_t c = 0; c < series.size() && c < dense.size(); ++c) {
          const auto [lo, hi] = std::minmax_element(dense[c].begin(), dense[c].end());
          const double range = std::max(*hi - *lo, 1e-300);
          for (std::size_t i = 0; i < series[c].size() && i < dense[c].size(); ++i)
            p.deviation = std::max(p.deviation, std::abs(series[c][i] - dense[c][i]) / range);
        }
      }
    }
  }
  for (const Pool& p : pools) {
    const auto it = paper.find(p.project);
    print(p, scaling || it == paper.end() ? 0.0 : it->second);
  }
  if (scaling) {
    ek::cprintf("\nscaling (median step per free body):\n");
    for (const Pool& p : pools)
      ek::cprintf("  %-22s %-10s %4d bodies  %8.1f us/step  %6.2f us/body\n", p.project.c_str(), p.variant.c_str(),
                  p.bodies, 1e6 * percentile(p.wall, 0.5), 1e6 * percentile(p.wall, 0.5) / p.bodies);
  }
  std::ostringstream js;
  js.imbue(std::locale::classic());
  js << "{\n  \"load case\": \"LC1\", \"dt [s]\": 0.001, \"duration [s]\": " << duration << ", \"rounds\": " << repeat
     << ", \"interleaved\": true,\n  \"runs\": [\n";
  for (std::size_t k = 0; k < pools.size(); ++k) json(js, pools[k], k + 1 == pools.size());
  js << "  ]\n}\n";
  ek::writeFile(out, js.str(), "benchmark results");
  ek::cprintf("wrote %s\n", out.c_str());
  return 0;
}
