// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-integrator-bench: work and precision of the fixed-step methods (issue 15, item 3).
//
// For each axle (double wishbone, multilink) and load case (LC1, LC2): the CVODE reference at
// --rtol and, to show that it has converged, at --rtol-check; then every method at every step
// and linearization interval, each run measured by
//   - its error, paper 003 eq. (27), against the reference: per output channel
//     e = RMS(y - y_ref) / |mean(y_ref)| on the common 2 ms samples, and the largest over the
//     channels (channels whose mean is under 1 % of their range are left out: eq. 27 divides
//     by the mean);
//   - its cost: the thread CPU time per step, mean (the work: with --lin-every N > 1 only every
//     N-th step linearizes, so a median would show either kind of step) and median, the p99 of
//     the wall time per step (what a real-time deadline must hold: the linearizing steps), and
//     the real-time factor mean CPU / dt.
// Writes JSON for scripts/work_precision.py, which draws the diagram into docs/integrators.md.
//
//   elastokin-integrator-bench [--out wp.json] [--projects a,b] [--loadcases LC1,LC2]
//       [--methods lsrt2,ros34pw2,bdf2,galpha,galpha-frozen,lie] [--dts 2,1,0.5,0.25] [--lin-every 1,2,5]
//       [--duration S] [--rtol 1e-9] [--rtol-check 1e-10]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

#include "engine/analysis/simulation.h"
#include "engine/model/project_io.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "bench_args.h"

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

double threadCpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

constexpr double kSampleRate = 500.0;  // 2 ms: divides the step rate of every dt measured

struct Run {
  std::vector<std::string> channels;
  std::vector<std::vector<double>> series;
  double medianStep = 0.0, medianCpu = 0.0, meanCpu = 0.0, p99 = 0.0, wall = 0.0;
  std::string describe;
};

Run simulate(const std::shared_ptr<const ek::SuspensionModel>& model, const std::string& loadCase,
             const std::string& method, double dt, int linEvery, double rtol, double duration) {
  ek::RunOptions o;
  o.integrator = method;
  o.dt = dt;
  o.linearizeEvery = linEvery;
  o.relativeTolerance = rtol;
  o.sampleRate = kSampleRate;
  o.duration = duration;
  ek::Simulation sim(model, loadCase, o);
  sim.initialize();
  std::vector<double> wall, cpu;
  wall.reserve(static_cast<std::size_t>(sim.totalSteps()));
  cpu.reserve(static_cast<std::size_t>(sim.totalSteps()));
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  double cpuLast = threadCpu();
  while (true) {
    const bool more = sim.step();
    const auto now = std::chrono::steady_clock::now();
    const double c = threadCpu();
    wall.push_back(std::chrono::duration<double>(now - last).count());
    cpu.push_back(c - cpuLast);
    last = now;
    cpuLast = c;
    if (!more) break;
  }
  Run r;
  r.wall = std::chrono::duration<double>(last - t0).count();
  r.medianStep = median(wall);
  r.medianCpu = median(cpu);
  double sum = 0.0;
  for (double c : cpu) sum += c;
  r.meanCpu = sum / static_cast<double>(std::max<std::size_t>(1, cpu.size()));
  std::sort(wall.begin(), wall.end());
  r.p99 = wall[static_cast<std::size_t>(0.99 * static_cast<double>(wall.size() - 1))];
  r.describe = sim.integrator().describe();
  for (std::size_t c = 0; c < sim.results().channels().size(); ++c) {
    r.channels.push_back(sim.results().channels()[c].name);
    r.series.push_back(sim.results().series(c));
  }
  return r;
}

/// Eq. (27) per channel; NaN for a channel left out (mean under 1 % of its range).
std::vector<double> errors(const Run& run, const Run& ref) {
  std::vector<double> e;
  for (std::size_t c = 0; c < ref.series.size(); ++c) {
    const auto& y = run.series[c];
    const auto& r = ref.series[c];
    const std::size_t n = std::min(y.size(), r.size());
    double sq = 0.0, mean = 0.0, lo = r[0], hi = r[0];
    for (std::size_t k = 0; k < n; ++k) {
      sq += (y[k] - r[k]) * (y[k] - r[k]);
      mean += r[k];
      lo = std::min(lo, r[k]);
      hi = std::max(hi, r[k]);
    }
    mean /= static_cast<double>(n);
    e.push_back(std::abs(mean) < 0.01 * (hi - lo) ? std::nan("") : std::sqrt(sq / static_cast<double>(n)) / std::abs(mean));
  }
  return e;
}

double largest(const std::vector<double>& e) {
  double m = 0.0;
  for (double x : e)
    if (!std::isnan(x)) m = std::max(m, x);
  return m;
}

std::string jsonChannels(const std::vector<std::string>& names, const std::vector<double>& e) {
  std::ostringstream s;
  s << "{";
  for (std::size_t c = 0; c < names.size(); ++c) {
    s << (c ? ", " : "") << "\"" << names[c] << "\": ";
    if (std::isnan(e[c])) s << "null";
    else s << e[c];
  }
  s << "}";
  return s.str();
}

int usage() {
  ek::cfprintf(stderr,
               "usage: elastokin-integrator-bench [--out wp.json] [--projects a,b] [--loadcases LC1,LC2] "
               "[--methods lsrt2,ros34pw2,bdf2,galpha,galpha-frozen,lie] [--dts 2,1,0.5,0.25] [--lin-every 1,2,5] [--duration S] "
               "[--rtol 1e-9] [--rtol-check 1e-10]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "work_precision.json";
  std::vector<std::string> projects{"double_wishbone", "multilink"}, loadCases{"LC1", "LC2"},
      methods{"lsrt2", "ros34pw2", "bdf2", "galpha", "galpha-frozen", "lie"};
  std::vector<double> dts{2e-3, 1e-3, 5e-4, 2.5e-4};
  std::vector<int> linEvery{1, 2, 5};
  double duration = -1.0, rtol = 1e-9, rtolCheck = 1e-10;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto next = [&]() -> std::string { return k + 1 < argc ? argv[++k] : std::string(); };
    if (a == "--out") out = next();
    else if (a == "--projects") projects = split(next(), ',');
    else if (a == "--loadcases") loadCases = split(next(), ',');
    else if (a == "--methods") methods = split(next(), ',');
    else if (a == "--dts") {
      dts.clear();
      for (const auto& s : split(next(), ',')) dts.push_back(1e-3 * ek::bench::numberArg(a, s));
    } else if (a == "--lin-every") {
      linEvery.clear();
      for (const auto& s : split(next(), ',')) linEvery.push_back(ek::bench::countArg(a, s));
    } else if (a == "--duration") duration = ek::bench::numberArg(a, next());
    else if (a == "--rtol") rtol = ek::bench::numberArg(a, next());
    else if (a == "--rtol-check") rtolCheck = ek::bench::numberArg(a, next());
    else return usage();
  }
  const std::string root = ELASTOKIN_SOURCE_DIR;
  std::ostringstream js;
  js.imbue(std::locale::classic());
  js << "{\n  \"sample rate [Hz]\": " << kSampleRate << ",\n  \"cases\": [\n";
  bool firstCase = true;
  for (const auto& project : projects) {
    const auto model = ek::SuspensionModel::build(ek::readProject(root + "/projects/" + project + ".json"));
    for (const auto& lc : loadCases) {
      const Run ref = simulate(model, lc, "cvode", 2e-3, 1, rtol, duration);
      const Run check = simulate(model, lc, "cvode", 2e-3, 1, rtolCheck, duration);
      const std::vector<double> refError = errors(ref, check);
      ek::cprintf("%s %s: reference rtol %g (%.1f s), against rtol %g: %.2e\n", project.c_str(), lc.c_str(), rtol,
                  ref.wall, rtolCheck, largest(refError));
      std::fflush(stdout);
      js << (firstCase ? "" : ",\n") << "    {\"project\": \"" << project << "\", \"load case\": \"" << lc
         << "\", \"reference\": {\"rtol\": " << rtol << ", \"check rtol\": " << rtolCheck
         << ", \"error of the reference\": " << largest(refError)
         << ", \"per channel\": " << jsonChannels(ref.channels, refError) << "},\n     \"runs\": [\n";
      firstCase = false;
      bool firstRun = true;
      for (const auto& method : methods)
        for (double dt : dts)
          for (int every : linEvery) {
            // The linear-implicit Euler method at lin-every 1 only; the frozen generalized-alpha
            // never relinearizes.
            if (every > 1 && (method == "lie" || method == "galpha-frozen")) continue;
            const Run r = simulate(model, lc, method, dt, every, rtol, duration);
            const std::vector<double> e = errors(r, ref);
            ek::cprintf("  %-9s dt %5.2f ms lin-every %d: e = %8.4f %%  CPU per step: mean %6.1f us (RTF %.4f), "
                        "median %6.1f us; wall p99 %6.1f us\n",
                        method.c_str(), 1e3 * dt, every, 100.0 * largest(e), 1e6 * r.meanCpu, r.meanCpu / dt,
                        1e6 * r.medianCpu, 1e6 * r.p99);
            std::fflush(stdout);
            js << (firstRun ? "" : ",\n") << "      {\"method\": \"" << method << "\", \"dt [s]\": " << dt
               << ", \"lin-every\": " << every << ", \"error\": " << largest(e)
               << ", \"median step [s]\": " << r.medianStep << ", \"median CPU per step [s]\": " << r.medianCpu
               << ", \"mean CPU per step [s]\": " << r.meanCpu << ", \"p99 step [s]\": " << r.p99
               << ", \"real-time factor (mean CPU)\": " << r.meanCpu / dt
               << ", \"real-time factor (median step)\": " << r.medianStep / dt << ", \"wall [s]\": " << r.wall
               << ", \"describe\": \"" << r.describe << "\", \"per channel\": " << jsonChannels(r.channels, e) << "}";
            firstRun = false;
          }
      js << "\n     ]}";
    }
  }
  js << "\n  ]\n}\n";
  ek::writeFile(out, js.str(), "benchmark results");
  ek::cprintf("wrote %s\n", out.c_str());
  return 0;
}
