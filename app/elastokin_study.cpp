// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-study: runs a parameter study (docs/studies.md) on all local cores, or under mpirun
// on any number of machines.
#include <atomic>
#include <chrono>
#include <clocale>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <string>
#include <thread>
#include <unistd.h>

#include "engine/analysis/study_runner.h"
#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "engine/dynamics/outputs.h"

#ifdef ELASTOKIN_HAVE_MPI
#include "study_mpi.h"
#endif

namespace {

constexpr const char* kUsage =
    "usage: elastokin-study STUDY.json [options]\n"
    "  --threads N     simulations at once on this machine (default: all cores; under mpirun: 1\n"
    "                  on rank 0, which also schedules, and one on every other rank)\n"
    "  --results FILE  the results file (default: the study's \"results\", or STUDY.results.csv)\n"
    "  --best FILE     where an optimization writes its best design (default: the study's\n"
    "                  \"best project\", or STUDY.best.json)\n"
    "  --fresh         replace the results file instead of resuming it\n"
    "  --max-runs N    stop after N new runs (resume later by running the study again)\n"
    "  --check         read and check the study file, then stop\n"
    "  --quiet         no progress line\n"
    "Run under mpirun (Open MPI) to spread the runs over ranks: mpirun -np 8 elastokin-study S.json\n"
    "Exit codes: 0 done, 1 bad study or project, 2 usage, 3 stopped before the end (resumable),\n"
    "4 input/output, 130/143 interrupted (resumable).\n";

enum ExitCode { kDone = 0, kBadInput = 1, kUsageError = 2, kStopped = 3, kIo = 4 };

std::atomic<bool> gStop{false};
volatile std::sig_atomic_t gSignal = 0;
extern "C" void onSignal(int sig) {
  gSignal = sig;
  gStop.store(true);
}

int usageError(const std::string& what) {
  ek::cfprintf(stderr, "elastokin-study: %s\n\n%s", what.c_str(), kUsage);
  return kUsageError;
}

bool parseCount(const std::string& s, long long& out) {
  return ek::parseInteger(s, out, 0, std::numeric_limits<long long>::max());
}

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

std::string sensitivitiesPath(const std::string& results) {
  for (const std::string suffix : {".results.csv", ".csv"})
    if (results.size() > suffix.size() && results.compare(results.size() - suffix.size(), suffix.size(), suffix) == 0)
      return results.substr(0, results.size() - suffix.size()) + ".sensitivities.csv";
  return results + ".sensitivities.csv";
}

void writeSensitivities(const ek::StudyOutcome& out, const std::string& path) {
  std::string t = "criterion,variable,value,derivative,normalized,message\n";
  for (const auto& s : out.sensitivities)
    t += ek::csvField(s.criterion) + "," + ek::csvField(s.variable) + "," +
         (s.ok ? ek::shortestText(s.value) + "," + ek::shortestText(s.derivative) + "," + ek::shortestText(s.normalized)
               : std::string("nan,nan,nan")) +
         "," + ek::csvField(s.message) + "\n";
  ek::writeFile(path, t, "sensitivities file");
}

}  // namespace

int main(int argc, char** argv) {
  // The user's locale, as in the workbench: numbers in files never depend on it (engine/core/text.h).
  std::setlocale(LC_ALL, "");
#ifdef ELASTOKIN_HAVE_MPI
  const bool useMpi = ek::mpi::launched();
  if (useMpi) ek::mpi::initialize(&argc, &argv);
  const int rank = useMpi ? ek::mpi::rank() : 0;
  const int ranks = useMpi ? ek::mpi::size() : 1;
  struct Finalize {
    bool on;
    ~Finalize() {
      if (on) ek::mpi::finalize();
    }
  } finalize{useMpi};
#else
  const int rank = 0, ranks = 1;
#endif
  std::string studyPath, resultsPath, bestPath;
  long long threads = -1, maxRuns = -1;
  bool fresh = false, checkOnly = false, quiet = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](long long& out) { return i + 1 < argc && parseCount(argv[++i], out); };
    if (a == "--help" || a == "-h") {
      if (rank == 0) ek::cprintf("%s", kUsage);
      return kDone;
    } else if (a == "--threads") {
      if (!value(threads) || threads > 1024) return rank == 0 ? usageError("--threads needs a count from 0 to 1024") : kUsageError;
    } else if (a == "--max-runs") {
      if (!value(maxRuns)) return rank == 0 ? usageError("--max-runs needs a count") : kUsageError;
    } else if (a == "--results" || a == "--best") {
      if (i + 1 >= argc || !*argv[i + 1]) return rank == 0 ? usageError(a + " needs a file name") : kUsageError;
      (a == "--results" ? resultsPath : bestPath) = argv[++i];
    } else if (a == "--fresh") {
      fresh = true;
    } else if (a == "--check") {
      checkOnly = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      return rank == 0 ? usageError("unknown option '" + ek::printableExcerpt(a) + "'") : kUsageError;
    } else if (studyPath.empty()) {
      studyPath = a;
    } else {
      return rank == 0 ? usageError("more than one study file given") : kUsageError;
    }
  }
  if (studyPath.empty()) return rank == 0 ? usageError("no study file given") : kUsageError;
  if (threads == 0 && ranks == 1) return usageError("--threads 0 needs other MPI ranks to run the designs");

  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  ek::StudyContext context;
  try {
    context = ek::loadStudy(studyPath);
  } catch (const std::exception& e) {
    // A bad study or project (ModelError), or a file that cannot be read.
    const int code = dynamic_cast<const ek::ModelError*>(&e) ? kBadInput : kIo;
    if (rank == 0) ek::cfprintf(stderr, "elastokin-study: %s\n", e.what());
#ifdef ELASTOKIN_HAVE_MPI
    if (useMpi) ek::mpi::abort(code);
#endif
    return code;
  }
  context.cancel = &gStop;  // a signal ends the runs in flight too, within a few hundred microseconds
  if (!resultsPath.empty()) context.study.resultsPath = resultsPath;
  if (!bestPath.empty()) context.study.bestProjectPath = bestPath;
  if (!resultsPath.empty() || !bestPath.empty()) {
    const auto conflicts = ek::studyOutputConflicts(context.study, context.project);
    for (const auto& [field, message] : conflicts)
      if (rank == 0) ek::cfprintf(stderr, "elastokin-study: %s: %s\n", field == "results" ? "--results" : "--best", message.c_str());
    if (!conflicts.empty()) return kUsageError;
  }
  if (checkOnly) {
    if (rank == 0)
      ek::cprintf("%s: no problems found (study type %s, %zu variable(s), %zu criteria, project %s)\n", studyPath.c_str(),
                  ek::toString(context.study.settings.type), context.study.variables.size(), context.study.criteria.size(),
                  context.study.projectPath.c_str());
    return kDone;
  }
#ifdef ELASTOKIN_HAVE_MPI
  if (rank != 0) {
    ek::mpi::serve(context);
    return kDone;
  }
#endif

  std::unique_ptr<ek::StudyExecutor> executor;
#ifdef ELASTOKIN_HAVE_MPI
  if (ranks > 1) executor = ek::mpi::makeExecutor(context, threads < 0 ? 1 : static_cast<int>(threads));
#endif
  if (!executor)
    executor = std::make_unique<ek::ThreadExecutor>(
        context, threads < 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) : static_cast<int>(threads));

  const bool bar = !quiet && isatty(STDERR_FILENO);
  ek::StudyRunOptions options;
  options.fresh = fresh;
  options.maxNewRuns = maxRuns;
  options.stop = &gStop;
  options.progress = [&](long long done, long long expected, double left, const ek::StudyRecord& r) {
    if (!bar) return;
    char eta[64] = "";
    if (left >= 0.0) ek::csnprintf(eta, sizeof eta, ", about %.0f s left", left);
    ek::cfprintf(stderr, "\r  run %lld (%s): %s; %lld of %s%lld done%s      ", r.run, r.phase.c_str(),
                 r.result.ok ? "ok" : "failed", done,
                 context.study.settings.type == ek::StudyType::Optimization ? "at most " : "", expected, eta);
  };
  ek::cprintf("study          %s (%s)\nproject        %s\nresults        %s\nrunning on     %s\n", studyPath.c_str(),
              ek::toString(context.study.settings.type), context.study.projectPath.c_str(),
              context.study.resultsPath.c_str(), executor->describe().c_str());
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = cpuSeconds();
  try {
    const ek::StudyOutcome out = ek::runStudy(context, *executor, options);
    executor.reset();  // releases the other ranks
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpuSeconds() - cpu0;
    if (bar) ek::cfprintf(stderr, "\n");
    ek::cprintf("%s", out.summary.c_str());
    if (!out.sensitivities.empty()) {
      const std::string p = sensitivitiesPath(context.study.resultsPath);
      writeSensitivities(out, p);
      ek::cprintf("sensitivities written to %s\n", p.c_str());
    }
    ek::cprintf("runs           %zu (%lld new, %lld from the results file, %lld failed)\n", out.records.size(),
                out.newRuns, out.cachedRuns, out.failedRuns);
    ek::cprintf("wall time      %.3f s (%.3g new runs/s); CPU time of this process %.3f s\n", wall,
                wall > 0 ? out.newRuns / wall : 0.0, cpu);
    if (gSignal != 0) {
      ek::cfprintf(stderr, "elastokin-study: interrupted; the finished runs are in %s and running the study again "
                   "resumes it\n", context.study.resultsPath.c_str());
      return 128 + gSignal;
    }
    return out.stopped ? kStopped : kDone;
  } catch (const ek::IoError& e) {
    ek::cfprintf(stderr, "\nelastokin-study: %s\n", e.what());
    return kIo;
  } catch (const std::exception& e) {
    ek::cfprintf(stderr, "\nelastokin-study: %s\n", e.what());
    return kStopped;
  }
}
