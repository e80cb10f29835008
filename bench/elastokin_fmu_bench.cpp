// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-fmu-bench: what the FMU costs per 1 ms communication step against the engine's own
// step (docs/fmi.md). For each project: the FMU (FMI 3, exported and loaded as an importer loads
// it) takes fmi3DoStep(1 ms) and reads every output, and elastokin's Simulation (as elastokin-sim
// runs it, this build's instruction set) takes one step; the two run interleaved, block after
// block, in one process; median and p99 of the thread's CPU time and wall time per step.
// The FMU logs which engine build it loaded (x86-64-v4 or -v3; ELASTOKIN_FMU_ISA picks one).
//
//   elastokin-fmu-bench [--steps N] [--rounds N] [--projects double_wishbone,full_vehicle]
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_args.h"
#include "engine/analysis/simulation.h"
#include "engine/core/text.h"
#include "engine/model/project_io.h"
#include "fmu/fmi3_api.h"
#include "fmu/fmu_export.h"

namespace {

double cpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double wallNow() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

void logger(fmi3InstanceEnvironment, fmi3Status, fmi3String, fmi3String message) { ek::cfprintf(stderr, "FMU: %s\n", message); }

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (a <= s.size()) {
    const auto b = s.find(',', a);
    out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 2000, rounds = 5;
  std::vector<std::string> projects{"double_wishbone", "full_vehicle"};
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--steps" && k + 1 < argc) steps = ek::bench::countArg(a, argv[++k]);
    else if (a == "--rounds" && k + 1 < argc) rounds = ek::bench::countArg(a, argv[++k]);
    else if (a == "--projects" && k + 1 < argc) projects = split(argv[++k]);
    else {
      ek::cfprintf(stderr, "usage: elastokin-fmu-bench [--steps N] [--rounds N] [--projects a,b]\n");
      return 2;
    }
  }
  const std::string root = ELASTOKIN_SOURCE_DIR;
  const auto dir = std::filesystem::temp_directory_path() / ("elastokin-fmu-bench-" + std::to_string(getpid()));
  ek::cprintf("%-16s %-22s %10s %10s %10s %10s %8s\n", "project", "variant", "CPU med", "CPU p99", "wall med", "wall p99",
              "ratio");
  for (const std::string& name : projects) {
    const ek::Project project = ek::readProject(root + "/projects/" + name + ".json");
    const std::string lc = project.loadCases.front().name;
    ek::fmu::FmuExportOptions o;
    o.loadCase = lc;
    const ek::fmu::FmuExport fmu = ek::fmu::makeFmu(project, o, ek::fmu::fmuBinaries());
    const std::string folder = (dir / name).string();
    ek::fmu::writeFmuFolder(fmu, folder);
    void* h = dlopen((folder + "/binaries/x86_64-linux/elastokin.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      ek::cfprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    auto instantiate = reinterpret_cast<decltype(&fmi3InstantiateCoSimulation)>(dlsym(h, "fmi3InstantiateCoSimulation"));
    auto enter = reinterpret_cast<decltype(&fmi3EnterInitializationMode)>(dlsym(h, "fmi3EnterInitializationMode"));
    auto exit = reinterpret_cast<decltype(&fmi3ExitInitializationMode)>(dlsym(h, "fmi3ExitInitializationMode"));
    auto doStep = reinterpret_cast<decltype(&fmi3DoStep)>(dlsym(h, "fmi3DoStep"));
    auto getFloat64 = reinterpret_cast<decltype(&fmi3GetFloat64)>(dlsym(h, "fmi3GetFloat64"));
    auto freeInstance = reinterpret_cast<decltype(&fmi3FreeInstance)>(dlsym(h, "fmi3FreeInstance"));
    fmi3Instance in = instantiate("bench", fmu.config.token.c_str(), (folder + "/resources/").c_str(), false, true, false,
                                  false, nullptr, 0, nullptr, logger, nullptr);
    if (!in || enter(in, false, 0.0, 0.0, false, 0.0) != fmi3OK || exit(in) != fmi3OK) return 1;
    std::vector<fmi3ValueReference> outs;
    for (int k = 0; k < fmu.variables.nOutputs; ++k) outs.push_back(static_cast<fmi3ValueReference>(fmu.variables.firstOutput + k));
    std::vector<double> values(outs.size());
    ek::RunOptions ro;
    ro.record = false;
    ro.duration = 1e6;
    ek::Simulation sim(ek::SuspensionModel::build(project), lc, ro);
    sim.initialize();
    std::vector<double> fmuCpu, fmuWall, stepCpu, stepWall, simCpu, simWall, simOutCpu, simOutWall;
    double t = 0.0;
    bool e = false, term = false, early = false;
    double last = 0.0;
    for (int r = 0; r < rounds; ++r) {
      for (int k = 0; k < steps; ++k) {  // the FMU: a communication step and all outputs read
        const double c0 = cpuNow(), w0 = wallNow();
        doStep(in, t, 1e-3, true, &e, &term, &early, &last);
        getFloat64(in, outs.data(), outs.size(), values.data(), values.size());
        fmuCpu.push_back(cpuNow() - c0);
        fmuWall.push_back(wallNow() - w0);
        t = last;
      }
      for (int k = 0; k < steps; ++k) {  // the FMU: a communication step alone
        const double c0 = cpuNow(), w0 = wallNow();
        doStep(in, t, 1e-3, true, &e, &term, &early, &last);
        stepCpu.push_back(cpuNow() - c0);
        stepWall.push_back(wallNow() - w0);
        t = last;
      }
      for (int k = 0; k < steps; ++k) {  // the engine's step as elastokin-sim takes it
        const double c0 = cpuNow(), w0 = wallNow();
        sim.step();
        simCpu.push_back(cpuNow() - c0);
        simWall.push_back(wallNow() - w0);
      }
      for (int k = 0; k < steps; ++k) {  // the engine's step and the FMU's outputs, read from the engine
        const double c0 = cpuNow(), w0 = wallNow();
        sim.step();
        sim.outputValues(fmu.variables.channels, values.data());
        simOutCpu.push_back(cpuNow() - c0);
        simOutWall.push_back(wallNow() - w0);
      }
    }
    freeInstance(in);
    ek::cprintf("%-16s %-22s %8.2f us %8.2f us %8.2f us %8.2f us %8s\n", name.c_str(), "elastokin-sim step",
                1e6 * percentile(simCpu, 0.5), 1e6 * percentile(simCpu, 0.99), 1e6 * percentile(simWall, 0.5),
                1e6 * percentile(simWall, 0.99), "1");
    ek::cprintf("%-16s %-22s %8.2f us %8.2f us %8.2f us %8.2f us %8.3f\n", name.c_str(), "FMU doStep",
                1e6 * percentile(stepCpu, 0.5), 1e6 * percentile(stepCpu, 0.99), 1e6 * percentile(stepWall, 0.5),
                1e6 * percentile(stepWall, 0.99), percentile(stepCpu, 0.5) / percentile(simCpu, 0.5));
    ek::cprintf("%-16s %-22s %8.2f us %8.2f us %8.2f us %8.2f us %8s\n", name.c_str(), "step + outputs",
                1e6 * percentile(simOutCpu, 0.5), 1e6 * percentile(simOutCpu, 0.99), 1e6 * percentile(simOutWall, 0.5),
                1e6 * percentile(simOutWall, 0.99), "1");
    ek::cprintf("%-16s %-22s %8.2f us %8.2f us %8.2f us %8.2f us %8.3f\n", name.c_str(), "FMU doStep + outputs",
                1e6 * percentile(fmuCpu, 0.5), 1e6 * percentile(fmuCpu, 0.99), 1e6 * percentile(fmuWall, 0.5),
                1e6 * percentile(fmuWall, 0.99), percentile(fmuCpu, 0.5) / percentile(simOutCpu, 0.5));
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
