// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-analysis-bench: time of the analyses on the shipped axles (docs/performance.md):
// the 161-point parallel-travel sweep, the 500-frequency response to the left wheel's vertical
// contact force (every project output and wheel channel) and the modes. The three are run
// interleaved, `--repeat` times each; median wall and CPU time are printed and written as JSON.
//
//   elastokin-analysis-bench [--out analysis_bench.json] [--repeat N]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

#include "engine/analysis/kc.h"
#include "engine/analysis/linear_analysis.h"
#include "engine/model/project_io.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "bench_args.h"

namespace {

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Task {
  std::string project, name, detail;
  std::function<std::string()> run;  ///< returns a one-line check of the result
  std::vector<double> wall, cpu;
  std::string check;
};

}  // namespace

int main(int argc, char** argv) {
  std::string out = "analysis_bench.json";
  int repeat = 7;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--out" && k + 1 < argc) out = argv[++k];
    else if (a == "--repeat" && k + 1 < argc) repeat = ek::bench::countArg("--repeat", argv[++k]);
    else {
      ek::cfprintf(stderr, "usage: elastokin-analysis-bench [--out analysis_bench.json] [--repeat N]\n");
      return 2;
    }
  }
  const std::string root = ELASTOKIN_SOURCE_DIR;
  std::vector<std::shared_ptr<const ek::SuspensionModel>> models;
  std::vector<Task> tasks;
  for (const char* name : {"double_wishbone", "multilink"}) {
    auto model = ek::SuspensionModel::build(ek::readProject(root + "/projects/" + name + ".json"));
    models.push_back(model);
    const ek::SuspensionModel& m = *model;
    tasks.push_back({name, "parallel-travel sweep", "161 points, -80..80 mm", [&m] {
                       ek::KcOptions o;
                       const ek::KcResult r = ek::runKc(m, o);
                       return std::to_string(r.sweep.size()) + " points, " + std::to_string(r.iterations) +
                              " equilibrium iterations";
                     }});
    tasks.push_back({name, "frequency response", "500 frequencies, 0.5..100 Hz, Fz at the left contact point", [&m] {
                       const ek::FrequencyResponse r =
                           ek::frequencyResponse(m, ek::designPoint(m), {ek::ResponseInput::Kind::WheelLoad, 0, ek::kFzContact},
                                                 ek::responseChannels(m), {});
                       return std::to_string(r.frequency.size()) + " frequencies x " + std::to_string(r.outputs.size()) +
                              " outputs (design position included)";
                     }});
    tasks.push_back({name, "modes", "eigenvalues and shapes at the design position", [&m] {
                       const ek::ModesResult r = ek::computeModes(m, ek::designPoint(m));
                       return std::to_string(r.modes.size()) + " modes (design position included)";
                     }});
  }
  for (int rep = 0; rep < repeat; ++rep)
    for (Task& t : tasks) {
      const double c0 = cpuSeconds();
      const auto w0 = std::chrono::steady_clock::now();
      t.check = t.run();
      t.wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
      t.cpu.push_back(cpuSeconds() - c0);
    }
  std::ostringstream js;
  js.imbue(std::locale::classic());
  js << "{\n  \"repeat\": " << repeat << ",\n  \"analyses\": [\n";
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const Task& t = tasks[k];
    ek::cprintf("%-16s %-22s median %7.3f s wall, %7.3f s CPU (min %.3f, max %.3f s wall) | %s; %s\n", t.project.c_str(),
                t.name.c_str(), median(t.wall), median(t.cpu), *std::min_element(t.wall.begin(), t.wall.end()),
                *std::max_element(t.wall.begin(), t.wall.end()), t.detail.c_str(), t.check.c_str());
    js << "    {\"project\": \"" << t.project << "\", \"analysis\": \"" << t.name << "\", \"what\": \"" << t.detail
       << "\", \"median wall [s]\": " << median(t.wall) << ", \"median CPU [s]\": " << median(t.cpu) << "}"
       << (k + 1 < tasks.size() ? "," : "") << "\n";
  }
  js << "  ]\n}\n";
  ek::writeFile(out, js.str(), "benchmark results");
  ek::cprintf("wrote %s\n", out.c_str());
  return 0;
}
