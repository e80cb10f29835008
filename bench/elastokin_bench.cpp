// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-bench: real-time factors of the shipped axles (LC1, dt = 1 ms, linearized every step)
// with each linear solver, the time per step split by phase, the step-time distribution and the
// ratio to the papers' real-time factors. Prints a table and writes JSON.
//
//   elastokin-bench [--out bench.json] [--duration S] [--repeat N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "engine/analysis/simulation.h"
#include "engine/integrators/lsrt2.h"
#include "engine/model/project_io.h"

namespace {

struct Result {
  std::string project, solver;
  double simulated = 0, wall = 0, rtf = 0, paperRtf = 0;
  double median = 0, p99 = 0, max = 0;  // step times [s]
  ek::PhaseTimes phases;
  double deviation = 0;  // vs dense LU, relative to each channel's range
  int dof = 0, factorBlocks = 0;
};

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(p * v.size())) - 1);
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "bench.json";
  double duration = 15.0;
  int repeat = 1;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--out" && k + 1 < argc) out = argv[++k];
    else if (a == "--duration" && k + 1 < argc) duration = std::atof(argv[++k]);
    else if (a == "--repeat" && k + 1 < argc) repeat = std::max(1, std::atoi(argv[++k]));
    else {
      std::fprintf(stderr, "usage: elastokin-bench [--out bench.json] [--duration S] [--repeat N]\n");
      return 2;
    }
  }
  const std::string root = ELASTOKIN_SOURCE_DIR;
  const struct {
    const char* name;
    double paper;
  } projects[] = {{"double_wishbone", 0.494}, {"multilink", 0.676}};
  const char* solvers[] = {"dense", "klu", "topology"};
  std::vector<Result> results;
  for (const auto& pr : projects) {
    const auto model = ek::SuspensionModel::build(ek::readProject(root + "/projects/" + pr.name + ".json"));
    std::vector<std::vector<double>> denseSeries;
    for (const char* solver : solvers) {
      Result best;
      for (int rep = 0; rep < repeat; ++rep) {
        ek::RunOptions o;
        o.dt = 1e-3;
        o.linearizeEvery = 1;
        o.duration = duration;
        o.solver = solver;
        ek::Simulation sim(model, "LC1", o);
        auto* lsrt2 = dynamic_cast<ek::Lsrt2*>(&sim.integrator());
        lsrt2->enableTiming(true);
        sim.initialize();
        std::vector<double> stepTimes;
        stepTimes.reserve(static_cast<std::size_t>(sim.totalSteps()));
        const auto t0 = std::chrono::steady_clock::now();
        auto last = t0;
        while (true) {
          const bool more = sim.step();
          const auto now = std::chrono::steady_clock::now();
          stepTimes.push_back(std::chrono::duration<double>(now - last).count());
          last = now;
          if (!more) break;
        }
        Result r;
        r.project = pr.name;
        r.solver = solver;
        r.dof = model->nDof();
        r.simulated = sim.stepsDone() * o.dt;
        r.wall = std::chrono::duration<double>(last - t0).count();
        r.rtf = r.wall / r.simulated;
        r.paperRtf = pr.paper;
        r.median = percentile(stepTimes, 0.5);
        r.p99 = percentile(stepTimes, 0.99);
        r.max = *std::max_element(stepTimes.begin(), stepTimes.end());
        r.phases = lsrt2->phaseTimes();
        // Same results as dense LU?
        std::vector<std::vector<double>> series;
        for (std::size_t c = 0; c < sim.results().channels().size(); ++c) series.push_back(sim.results().series(c));
        if (std::string(solver) == "dense") denseSeries = series;
        for (std::size_t c = 0; c < series.size(); ++c) {
          const auto [lo, hi] = std::minmax_element(denseSeries[c].begin(), denseSeries[c].end());
          const double range = std::max(*hi - *lo, 1e-300);
          for (std::size_t k = 0; k < series[c].size(); ++k)
            r.deviation = std::max(r.deviation, std::abs(series[c][k] - denseSeries[c][k]) / range);
        }
        if (rep == 0 || r.rtf < best.rtf) best = r;
      }
      results.push_back(best);
      const Result& r = results.back();
      const double n = static_cast<double>(r.phases.steps);
      std::printf("%-16s %-9s RTF %.4f (%.1fx faster than the paper's %.3f) | per step [us]: lin %.1f, A %.1f, "
                  "factor %.1f, solves %.1f, rest %.1f | median %.1f, p99 %.1f, max %.1f us | dev %.1e\n",
                  r.project.c_str(), r.solver.c_str(), r.rtf, r.paperRtf / r.rtf, r.paperRtf,
                  1e6 * r.phases.linearize / n, 1e6 * r.phases.assemble / n, 1e6 * r.phases.factorize / n,
                  1e6 * r.phases.solve / n, 1e6 * r.phases.other / n, 1e6 * r.median, 1e6 * r.p99, 1e6 * r.max,
                  r.deviation);
      std::fflush(stdout);
    }
  }
  std::ofstream js(out);
  js << "{\n  \"load case\": \"LC1\", \"dt [s]\": 0.001, \"linearize every\": 1, \"duration [s]\": " << duration
     << ",\n  \"runs\": [\n";
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Result& r = results[k];
    const double n = static_cast<double>(r.phases.steps);
    js << "    {\"project\": \"" << r.project << "\", \"solver\": \"" << r.solver << "\", \"dof\": " << r.dof
       << ", \"real-time factor\": " << r.rtf << ", \"paper real-time factor\": " << r.paperRtf
       << ", \"ratio to paper\": " << r.rtf / r.paperRtf << ", \"step time [us]\": {\"median\": " << 1e6 * r.median
       << ", \"p99\": " << 1e6 * r.p99 << ", \"max\": " << 1e6 * r.max << "}, \"per step [us]\": {\"linearization\": "
       << 1e6 * r.phases.linearize / n << ", \"assembly of A\": " << 1e6 * r.phases.assemble / n
       << ", \"factorization\": " << 1e6 * r.phases.factorize / n << ", \"stage solves\": " << 1e6 * r.phases.solve / n
       << ", \"rest\": " << 1e6 * r.phases.other / n << "}, \"max deviation from dense LU\": " << r.deviation << "}"
       << (k + 1 < results.size() ? "," : "") << "\n";
  }
  js << "  ]\n}\n";
  std::printf("wrote %s\n", out.c_str());
  return 0;
}
