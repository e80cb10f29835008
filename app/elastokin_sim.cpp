// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-sim: runs a load case of a project headless and writes the output channels as CSV.
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <clocale>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <future>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/analysis/kc.h"
#include "engine/analysis/kc_measured.h"
#include "engine/analysis/linear_analysis.h"
#include "engine/analysis/manoeuvre.h"
#include "engine/analysis/modal.h"
#include "engine/analysis/realtime.h"
#include "engine/analysis/simulation.h"
#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/time_grid.h"
#include "engine/model/signal.h"
#include "engine/analysis/bushing_dynamics.h"
#include "engine/model/adams_export.h"
#include "engine/model/adams_import.h"
#include "engine/model/fe_import.h"
#include "engine/model/project_io.h"
#include "engine/model/validate.h"
#ifdef ELASTOKIN_HAVE_FMU
#include "fmu/fmu_export.h"
#endif
#include "engine/core/text.h"
#ifdef ELASTOKIN_HAVE_REPORT
#include <QApplication>

#include "ui/views/analysis_report.h"
#endif

namespace {

constexpr const char* kUsage =
    "usage: elastokin-sim PROJECT.json --loadcase NAME --out RESULTS.csv [options]\n"
    "       elastokin-sim PROJECT.json --analysis NAME --out RESULTS.csv [analysis options]\n"
    "       elastokin-sim PROJECT.json --manoeuvre NAME [--param KEY=VALUE]... [--out SERIES.csv]\n"
    "\n"
    "Runs one load case of a suspension project with a fixed-step integrator (LSRT2 by\n"
    "default) and writes the project's output channels as CSV; or runs a K&C analysis\n"
    "(docs/analyses.md), writes its points as CSV and prints the metrics at the design position.\n"
    "\n"
    "options:\n"
    "  --loadcase NAME       load case to run (required)\n"
    "  --out FILE            results CSV (required)\n"
    "  --dt SECONDS          fixed step (default: the project's, usually 0.001)\n"
    "  --lin-every N         linearize every N-th step (default: the project's, usually 1)\n"
    "  --start SECONDS       start the run at this time of the load case, from the static\n"
    "                        equilibrium (or modelled state) under the inputs at that time\n"
    "  --duration SECONDS    simulated time (default: the rest of the load case)\n"
    "  --channels A,B,...    output channels by name (default: all the project's outputs)\n"
    "  --sample-rate HZ      samples per second written (default: the project's; must divide 1/dt)\n"
    "  --solver NAME         linear solver of the fixed-step methods: topology (default;\n"
    "                        block LU along the suspension topology), klu (SuiteSparse) or\n"
    "                        dense (LU)\n"
    "  --threads N           threads of the parallel LSRT2 step (default 1; the results are\n"
    "                        identical for every N; workers spin between steps)\n"
    "  --hold-inputs         hold each input at its value at the start of every step (rate 0),\n"
    "                        as an FMU's importer gives them (docs/fmi.md): the run an FMU\n"
    "                        makes from an input file of the load case\n"
    "  --realtime            pace the steps to the wall clock, as on a test rig; report missed\n"
    "                        deadlines, their lateness, whether the run caught up after them,\n"
    "                        the step latency histogram, the wake-up jitter and the step compute\n"
    "                        time against the deadline (docs/realtime.md); the run is pinned to\n"
    "                        one CPU under SCHED_FIFO with its memory locked where permitted\n"
    "  --realtime-cpu N      the CPU a --realtime run is pinned to (default: the last one)\n"
    "  --integrator NAME     lsrt2 (default; the papers' real-time method, order 2), lie\n"
    "                        (linear-implicit Euler, order 1), ros34pw2 (W-method of order 3,\n"
    "                        4 stages, keeps its order with --lin-every), bdf2 (BDF2 with 2\n"
    "                        Newton iterations per step, order 2), galpha (generalized-alpha,\n"
    "                        rho_inf 0.9, 2 Newton iterations, order 2), galpha-frozen (its\n"
    "                        iteration matrix from the first step only, as in paper 002), or\n"
    "                        cvode (BDF reference, variable step; --dt is then the output step)\n"
    "  --rtol X              relative tolerance of cvode (default 1e-9)\n"
    "  --rho-inf X           galpha: spectral radius at infinity, 0 to 1 (default 0.9; 1: no\n"
    "                        numerical damping, 0: the most)\n"
    "  --cvode-solver NAME   linear solver of cvode's Newton systems: dense, klu (sparse) or\n"
    "                        auto (default: dense up to 60 degrees of freedom, klu above)\n"
    "  --warn-error M        warn when the local error estimate (lsrt2, ros34pw2) of the\n"
    "                        positions exceeds M metres in a step (the estimate's RMS and\n"
    "                        maximum are always printed)\n"
    "  --frozen-kinematics   use the papers' frozen K_lin (no d(Kv)/dr term)\n"
    "  --list                list the project's load cases and channels, then exit\n"
    "  --write-project FILE  write the checked project in its canonical form (the form the\n"
    "                        workbench saves; FILE may be PROJECT itself), then exit\n"
    "  --import FILE --onto bushing:ID|p2p:ID\n"
    "                        import an Adams/Car property file (bus or hbu onto a bushing;\n"
    "                        spr, dpr, bum, reb onto a P2P element; units converted to SI,\n"
    "                        tables become curves; docs/import.md) and write the result with\n"
    "                        --write-project FILE; the summary says what was imported and\n"
    "                        what was left out\n"
    "  --import-fe MODEL.inp --onto body:ID --interface SET=MARKER[,SET=MARKER...]\n"
    "                        make a body flexible with a CalculiX solid or shell model (docs/import.md):\n"
    "                        the mesh in the body's frame, each node set rigid to a marker of\n"
    "                        the body, the stiffness and mass of the deck's *FREQUENCY,\n"
    "                        SOLVER=MATRIXSTORAGE step (MODEL.sti/.mas/.dof; ccx is run on the\n"
    "                        deck when they are missing), reduced by Craig-Bampton with\n"
    "                        --modes N fixed-interface modes (default 12) or --max-frequency HZ,\n"
    "                        --fe-units LENGTH,MASS (m|mm, kg|t; default mm,t), and written\n"
    "                        with --write-project FILE\n"
    "  --import FILE.SID_FEM --onto body:ID [--interface NODE=MARKER,...]\n"
    "                        make a body flexible with a SID file (docs/import.md): every marker\n"
    "                        of the body rides on a node, bound by id or the nearest node within\n"
    "                        --bind-tolerance M (default 0.001 m); --fe-units LENGTH,MASS\n"
    "                        (default m,kg); written with --write-project FILE\n"
    "  --branches N --amplitude A\n"
    "                        hydro bushings (hbu): Maxwell branches fitted per direction\n"
    "                        (default 2) to the table at amplitude A (the file's unit;\n"
    "                        default the smallest)\n"
    "  --export-property bushing:ID|spring:ID|damper:ID|bumpstop:ID|reboundstop:ID --to FILE\n"
    "                        write the element as an Adams property file (bus, spr, dpr, bum,\n"
    "                        reb) in --units LENGTH,FORCE,ANGLE,TIME (default\n"
    "                        mm,newton,degrees,second), then exit\n"
    "  --export-property body:ID --to FILE.SID_FEM\n"
    "                        write a flexible body as a SID file (SI units), then exit\n"
    "  --export-fmu FILE.fmu write the project as a co-simulation FMU (docs/fmi.md) and exit:\n"
    "                        --fmi 3|2 (default 3), --loadcase NAME (its signals drive the inputs\n"
    "                        the importer leaves unconnected, its initial state is used),\n"
    "                        --integrator lsrt2|ros34pw2, --dt, --lin-every, and\n"
    "                        --fmu-parameter PATH (repeatable: a table cell tunable at\n"
    "                        instantiation, e.g. \"bushings/9/x.stiffness [N/m]\"); --sources adds\n"
    "                        the sources a C++20 compiler builds the FMU from (real-time targets)\n"
    "  --write-inputs FILE   write the load case's input signals at every step (--dt, --start,\n"
    "                        --duration) as CSV named as the FMU's inputs (an importer's input\n"
    "                        file), then exit\n"
    "  --stiffness           eigen-analysis at the load case's initial state instead of a run:\n"
    "                        stiffness ratio, eigenvalues, undamped eigenfrequencies\n"
    "                        (with --out: all eigenvalues as CSV)\n"
    "  --quiet               no progress bar\n"
    "\n"
    "analysis options (K&C analyses need a 'wheels' table):\n"
    "  --analysis NAME       parallel-travel, opposite-travel (left wheels up, right down),\n"
    "                        single-travel (--wheel), static-load (--load), steering\n"
    "                        (--input: the rack's translation or rotation input);\n"
    "                        frequency-response (--input or --wheel and --load), modes\n"
    "  --from X --to X       sweep range: travel of the wheel centre in mm (default -80, 80),\n"
    "                        the load in N / N m (default -5000, 5000), or the frequency in Hz\n"
    "                        (default 0.5, 100; modes: the modes printed, all go to the CSV)\n"
    "  --points N            points of the sweep (default 161 for travel, 21 for loads, 500\n"
    "                        log-spaced frequencies)\n"
    "  --wheel ID            the wheel (id in the wheels table): single-travel's moving wheel;\n"
    "                        static-load on that wheel only (default: every wheel); the wheel\n"
    "                        whose --load drives a frequency response\n"
    "  --load NAME           static load: fx-contact (braking), fy-contact, fz-contact, mx, my,\n"
    "                        mz (aligning torque), fx-centre (traction)\n"
    "  --input ID            frequency response to this project input (id in the inputs table);\n"
    "                        steering: the input swept, in mm (default -50, 50) or deg\n"
    "                        (default -30, 30), 101 points\n"
    "  --loadcase NAME       frequency response and modes: linearize at this load case's initial\n"
    "                        state (default: the K&C design position, or without wheels the\n"
    "                        first load case)\n"
    "  --channels A,B,...    frequency response outputs (default: the project's outputs and\n"
    "                        every wheel's alignment channels)\n"
    "  --metrics FILE.json   K&C: also the metrics as JSON, to full precision, with units, the\n"
    "                        targets' verdicts and the correlation with --measured\n"
    "  --measured FILE.csv   K&C: a rig's measured sweep (header \"name [unit]\", the swept\n"
    "                        quantity first) to correlate with: RMS and largest deviation per\n"
    "                        channel (docs/analyses.md, \"Measured K&C data\")\n"
    "  --map COLUMN=CHANNEL  a measured column's channel of the sweep (repeatable; columns named\n"
    "                        as the sweep's channels map themselves)\n"
    "  --report FILE.pdf     also a PDF report: the metrics, response or mode table, then a\n"
    "                        page per K&C quantity (both wheels), per output's Bode plot, or the\n"
    "                        modes' damping chart (not in builds without the workbench)\n"
    "manoeuvre options (a vehicle on tyres, docs/manoeuvres.md):\n"
    "  --manoeuvre NAME      step-steer (ISO 7401), steady-state-circle (ISO 4138), sine-with-dwell\n"
    "                        (FMVSS 126), swept-sine, double-lane-change (ISO 3888-2/-1, path\n"
    "                        follower), double-lane-change-limit (its highest passing\n"
    "                        speed); prints the metrics; --out: the vehicle's\n"
    "                        time series as CSV; --metrics FILE.json: metrics and parameters;\n"
    "                        'list' (no project needed): every manoeuvre's parameters\n"
    "  --param KEY=VALUE     a manoeuvre's parameter (repeatable), e.g. --param speed=20\n"
    "  -h, --help            this text\n"
    "\n"
    "exit codes: 0 done; 1 bad project (every problem is listed, naming file, table, row and\n"
    "field); 2 usage error; 3 the run stopped (divergence, no equilibrium: time, step and body\n"
    "are named; the results up to then are written); 4 a file could not be read or written, or\n"
    "memory ran out; 130 / 143 interrupted by SIGINT / SIGTERM (the results up to then are\n"
    "written).\n";

enum ExitCode { kDone = 0, kBadProject = 1, kUsageError = 2, kRunStopped = 3, kIoOrResources = 4 };

/// Set by SIGINT/SIGTERM; the step loop stops and the results so far are written.
volatile std::sig_atomic_t gSignal = 0;
/// The same, for the analyses' cancel flags (a lock-free atomic store is async-signal-safe).
std::atomic<bool> gCancel{false};
extern "C" void onSignal(int sig) {
  gSignal = sig;
  gCancel.store(true);
}

const char* signalName() { return gSignal == SIGINT ? "SIGINT" : "SIGTERM"; }

/// Runs `work` (one computation that cannot stop half-way: an eigen-analysis, a static
/// equilibrium) on a thread and waits for it; a SIGINT or SIGTERM meanwhile ends the program at
/// once with 130 / 143, saying that nothing was written. @returns what `work` returns.
template <class F>
auto interruptible(F&& work, const char* what) {
  auto result = std::async(std::launch::async, std::forward<F>(work));
  while (result.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready)
    if (gSignal != 0) {
      ek::cfprintf(stderr, "elastokin-sim: interrupted by %s during %s; nothing was written\n", signalName(), what);
      std::fflush(stderr);
      std::_Exit(128 + gSignal);
    }
  return result.get();
}

void installSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second signal ends the program at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int usageError(const std::string& what) {
  ek::cfprintf(stderr, "elastokin-sim: %s\n\n%s", what.c_str(), kUsage);
  return kUsageError;
}

/// A whole-field finite decimal number ("inf", "nan" and hex are refused).
bool parseDouble(const std::string& s, double& out) { return ek::parseDecimal(s, out); }
/// A whole-field decimal integer that fits an int (checked before the conversion, no wrap-around).
bool parseInt(const std::string& s, int& out) {
  long long v = 0;
  if (!ek::parseInteger(s, v, INT_MIN, INT_MAX)) return false;
  out = static_cast<int>(v);
  return true;
}

std::vector<std::string> splitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()) {}
  void update(double fraction) {
    if (!enabled_) return;
    const double elapsed = seconds();
    if (elapsed < 1.0 && fraction < 1.0) return;  // short runs stay silent
    shown_ = true;
    const int width = 40, filled = static_cast<int>(fraction * width);
    ek::cfprintf(stderr, "\r[%.*s%*s] %3.0f %%  %.1f s", filled, "########################################",
                 width - filled, "", 100.0 * fraction, elapsed);
    std::fflush(stderr);
  }
  void finish() {
    if (shown_) ek::cfprintf(stderr, "\n");
  }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

int listManoeuvres() {
  for (const std::string& name : ek::manoeuvreNames()) {
    ek::cprintf("%s\n", name.c_str());
    for (const ek::ManoeuvreParameter& p : ek::manoeuvreParameters(name))
      ek::cprintf("  %-26s %10s %-8s %s\n", p.key.c_str(), ek::significant(p.value).c_str(), p.unit.c_str(), p.meaning.c_str());
  }
  return 0;
}

int manoeuvreReport(const ek::Project& project, const std::string& name, const std::map<std::string, double>& params,
                    const std::string& outPath, const std::string& metricsPath, bool quiet) {
  if (!outPath.empty()) ek::checkWritable(outPath, "results file");
  if (!metricsPath.empty()) ek::checkWritable(metricsPath, "metrics file");
  ProgressBar bar(!quiet && isatty(STDERR_FILENO));
  const auto t0 = std::chrono::steady_clock::now();
  const ek::ManoeuvreResult r =
      interruptible([&] { return ek::runManoeuvre(project, name, params, [&](double f) { bar.update(f); }); }, "the manoeuvre");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bar.finish();
  ek::cprintf("%s: %s (vehicle body %d, %.1f kg, wheelbase %.4g m; steering input %d)\n", project.sourcePath.c_str(),
              r.name.c_str(), r.vehicle.body, r.vehicle.mass, r.vehicle.wheelbase, r.vehicle.steeringInput);
  ek::cprintf("parameters:\n");
  for (const ek::ManoeuvreParameter& p : r.parameters)
    ek::cprintf("  %-26s %12s %s\n", p.key.c_str(), ek::significant(p.value).c_str(), p.unit.c_str());
  ek::cprintf("metrics:\n");
  int targets = 0, met = 0;
  for (const ek::ManoeuvreMetric& m : r.metrics) {
    std::string verdict = m.limit.empty() ? "" : (m.pass ? "  pass (" : "  FAIL (") + m.limit + ")";
    if (m.targetId >= 0) {
      verdict += std::string(m.met ? "  target met (" : "  target MISSED (") + ek::targetRange(m.lower, m.upper, m.unit) + ")";
      ++targets, met += m.met;
    }
    ek::cprintf("  %-55s %12s %-12s%s\n", m.name.c_str(), ek::significant(m.value, 5).c_str(), m.unit.c_str(), verdict.c_str());
  }
  if (targets) ek::cprintf("targets  %d of %d met\n", met, targets);
  for (const std::string& n : r.notes) ek::cprintf("note: %s\n", n.c_str());
  if (!outPath.empty()) {
    ek::writeFile(outPath, ek::manoeuvreSeriesCsv(r), "results file");
    ek::cprintf("series         %zu rows -> %s\n", r.series.size(), outPath.c_str());
  }
  if (!metricsPath.empty()) {
    ek::writeFile(metricsPath, ek::manoeuvreJson(r), "metrics file");
    ek::cprintf("metrics        %zu -> %s\n", r.metrics.size(), metricsPath.c_str());
  }
  ek::cprintf("wall time      %.2f s\n", wall);
  return kDone;
}

int stiffnessReport(const std::shared_ptr<const ek::SuspensionModel>& model, const std::string& loadCase,
                    const std::string& outPath) {
  ek::RunOptions o;
  ek::Simulation sim(model, loadCase, o);
  interruptible([&] { sim.initialize(); }, "the initial state");
  ek::VecX u(model->nInputs());
  ek::InputSignals(*model, *model->loadCase(loadCase)).evaluate(0.0, u);
  const ek::ModalReport rep = interruptible([&] { return ek::analyzeModes(*model, sim.state(), u); }, "the eigen-analysis");
  ek::cprintf("linearized at the initial state of load case %s (%d DOF, %zu eigenvalues)\n", loadCase.c_str(),
              model->nDof(), rep.eigenvalues.size());
  ek::cprintf("zero eigenvalues (|lambda| < %.2e, free directions)  %d\n", rep.zeroThreshold, rep.zeroEigenvalues);
  ek::cprintf("largest |lambda|    %.4e 1/s\n", rep.maxMagnitude);
  ek::cprintf("smallest |lambda|   %.4e 1/s (non-zero)\n", rep.minMagnitude);
  ek::cprintf("stiffness ratio     %.4e\n", rep.stiffnessRatio);
  ek::cprintf("largest real part   %.4e 1/s (%s)\n", rep.maxRealPart, rep.maxRealPart < 0 ? "all decay" : "NOT all decay");
  const auto& f = rep.undampedFrequencies;
  ek::cprintf("undamped eigenfrequencies: %zu, lowest:", f.size());
  for (std::size_t k = 0; k < std::min<std::size_t>(12, f.size()); ++k) ek::cprintf(" %.3f", f[k]);
  ek::cprintf(" Hz\n                           highest: %.1f Hz\n", f.empty() ? 0.0 : f.back());
  if (!outPath.empty()) {
    std::string csv = "real [1/s],imag [1/s],magnitude [1/s]\n";
    for (const auto& l : rep.eigenvalues)
      csv += ek::significant(l.real(), 10) + "," + ek::significant(l.imag(), 10) + "," + ek::significant(std::abs(l), 10) + "\n";
    ek::writeFile(outPath, csv, "eigenvalue file");
    ek::cprintf("eigenvalues -> %s\n", outPath.c_str());
  }
  return 0;
}

struct AnalysisArgs {
  std::string name;
  bool haveFrom = false, haveTo = false, havePoints = false;
  double from = 0.0, to = 0.0;
  int points = 0;
  int wheelId = -1;  ///< id; -1 none
  int inputId = -1;  ///< id; -1 none
  std::string load;
  std::string loadCase;
  std::vector<std::string> channels;
  std::string reportPath;   ///< --report; empty: none
  std::string metricsPath;  ///< --metrics (K&C); empty: none
  std::string measuredPath;  ///< --measured (K&C): a rig's CSV to correlate with
  std::vector<std::pair<std::string, std::string>> mapping;  ///< --map COLUMN=CHANNEL
};

int loadIndex(const std::string& name) { return ek::wheelLoadByKey(name); }

/// The --report PDF of an analysis result (one of kc, frequency, modes), drawn off screen with
/// the workbench's report code (ui/views/analysis_report.h). @returns the exit code.
int pdfReport(const ek::SuspensionModel& model, const AnalysisArgs& a, const ek::KcResult* kc,
              const ek::FrequencyResponse* frequency, const ek::ModesResult* modes, const ek::OperatingPoint* point,
              double modesFrom = 0.0, double modesTo = 0.0, const ek::MeasuredKc* measured = nullptr) {
#ifdef ELASTOKIN_HAVE_REPORT
  // No window is ever shown: the offscreen platform needs no display, whatever the environment says.
  qputenv("QT_QPA_PLATFORM", "offscreen");
  // Qt's own messages go to stderr, marked as such, except the note that it made a runtime
  // directory of its own (XDG_RUNTIME_DIR unset, as under cron or in a container).
  qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString& text) {
    if (!text.startsWith("QStandardPaths: XDG_RUNTIME_DIR not set"))
      ek::cfprintf(stderr, "elastokin-sim: Qt: %s\n", text.toLocal8Bit().constData());
  });
  static int argc = 1;
  static char name[] = "elastokin-sim";
  static char* argv[] = {name, nullptr};
  QApplication app(argc, argv);
  ek::ui::AnalysisResult r;
  r.analysis = QString::fromStdString(a.name);
  r.project = model.project();
  if (kc) r.kc = *kc;
  if (frequency) {
    r.kind = ek::ui::AnalysisKind::Frequency;
    r.frequency = *frequency;
  }
  if (modes) {
    r.kind = ek::ui::AnalysisKind::Modes;
    r.modes = *modes;
  }
  if (point) r.point = *point;
  ek::ui::ReportContent content;
  content.current = &r;
  content.model = &model;
  content.choices.modesFrom = modesFrom;
  content.choices.modesTo = modesTo;
  content.choices.font = QApplication::font();
  content.choices.measured = measured;  // overlaid on the plots, its correlation in a table
  ek::ui::ReportPages pages;
  const QString error = ek::ui::writeAnalysisReport(QString::fromStdString(a.reportPath), content, &pages);
  if (!error.isEmpty()) {
    ek::cfprintf(stderr, "elastokin-sim: %s\n", error.toStdString().c_str());
    return kIoOrResources;
  }
  ek::cprintf("report         %d pages (%d with plots%s) -> %s\n", pages.total, pages.plots,
              pages.correlationRows > 0
                  ? (", correlation table of " + std::to_string(pages.correlationRows) + " rows").c_str()
                  : "",
              a.reportPath.c_str());
  return kDone;
#else
  (void)model, (void)a, (void)kc, (void)frequency, (void)modes, (void)point, (void)modesFrom, (void)modesTo,
      (void)measured;
  return kUsageError;  // refused when the options were read
#endif
}

ek::OperatingPoint operatingPoint(const std::shared_ptr<const ek::SuspensionModel>& model, const AnalysisArgs& a) {
  if (!a.loadCase.empty()) return ek::loadCasePoint(model, a.loadCase);
  if (!model->wheels.empty()) return ek::designPoint(*model);
  if (model->project().loadCases.empty())
    throw std::invalid_argument("the project has neither wheels nor load cases: nothing to linearize at");
  return ek::loadCasePoint(model, model->project().loadCases.front().name);
}

int modesReport(const std::shared_ptr<const ek::SuspensionModel>& model, const AnalysisArgs& a, const std::string& outPath) {
  if (a.havePoints || a.wheelId >= 0 || a.inputId >= 0 || !a.load.empty() || !a.channels.empty())
    return usageError("modes takes --from, --to (Hz) and --loadcase only");
  const double from = a.haveFrom ? a.from : 0.0, to = a.haveTo ? a.to : 100.0;
  if (!(to > from) || from < 0) return usageError("--from and --to need 0 <= from < to (Hz)");
  ek::checkWritable(outPath, "results file");
  if (!a.reportPath.empty()) ek::checkWritable(a.reportPath, "PDF report");
  const auto t0 = std::chrono::steady_clock::now();
  const ek::OperatingPoint point = interruptible([&] { return operatingPoint(model, a); }, "the operating point");
  const auto t1 = std::chrono::steady_clock::now();
  const ek::ModesResult r = interruptible([&] { return ek::computeModes(*model, point); }, "the eigen-analysis");
  const auto t2 = std::chrono::steady_clock::now();
  ek::writeModesCsv(*model, r, outPath);
  ek::cprintf("modes at the %s\n", point.description.c_str());
  ek::cprintf("%zu modes and %d zero eigenvalues (free directions), operating point %.3f s, eigen-analysis %.3f s\n",
              r.modes.size(), r.zeroModes, std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(t2 - t1).count());
  if (r.separatedPairs > 0)
    ek::cprintf("%d pairs of modes with one eigenvalue (halves that do not interact), each separated into its left "
                "and its right mode\n", r.separatedPairs);
  ek::cprintf("all modes -> %s\n\n", outPath.c_str());
  ek::cprintf("  mode  frequency [Hz]  damping ratio  damped [Hz]  largest kinetic energy\n");
  for (std::size_t k = 0; k < r.modes.size(); ++k) {
    const ek::Mode& m = r.modes[k];
    if (m.frequency < from || m.frequency > to) continue;
    const std::string body = ek::dominantText(*model, m);
    if (m.oscillatory)
      ek::cprintf("  %4zu  %14.4f  %13.4f  %11.4f  %s\n", k + 1, m.frequency, m.dampingRatio, m.dampedFrequency,
                  body.c_str());
    else
      ek::cprintf("  %4zu  %14.4f  %13s  %11s  %s, time constant %.4g s\n", k + 1, m.frequency, "overdamped", "-",
                  body.c_str(), -1.0 / m.eigenvalue.real());
  }
  return a.reportPath.empty() ? kDone : pdfReport(*model, a, nullptr, nullptr, &r, &point, from, to);
}

int frequencyReport(const std::shared_ptr<const ek::SuspensionModel>& model, const AnalysisArgs& a,
                    const std::string& outPath, bool quiet) {
  ek::ResponseInput in;
  if (a.inputId >= 0) {
    if (a.wheelId >= 0 || !a.load.empty()) return usageError("--input excludes --wheel and --load");
    in.index = model->inputById(a.inputId);
    if (in.index < 0) return usageError("input " + std::to_string(a.inputId) + " does not exist in the inputs table");
  } else {
    if (a.wheelId < 0 || a.load.empty())
      return usageError("frequency-response needs --input ID, or --wheel ID and --load NAME");
    in.kind = ek::ResponseInput::Kind::WheelLoad;
    in.index = model->wheelById(a.wheelId);
    if (in.index < 0) return usageError("wheel " + std::to_string(a.wheelId) + " does not exist in the wheels table");
    in.load = loadIndex(a.load);
    if (in.load < 0) return usageError("unknown load '" + ek::printableExcerpt(a.load) + "' (fx-contact, fy-contact, fz-contact, mx, my, mz, fx-centre)");
  }
  ek::FrequencyOptions o;
  o.from = a.haveFrom ? a.from : 0.5;
  o.to = a.haveTo ? a.to : 100.0;
  o.points = a.havePoints ? a.points : 500;
  if (!(o.from > 0) || !(o.to > o.from)) return usageError("--from and --to need 0 < from < to (Hz)");
  if (o.points < 2 || o.points > 100000) return usageError("--points needs a whole number from 2 to 100000");
  std::vector<ek::Channel> channels = ek::responseChannels(*model);
  if (!a.channels.empty()) {
    std::vector<ek::Channel> picked;
    for (const auto& name : a.channels) {
      auto it = std::find_if(channels.begin(), channels.end(), [&](const ek::Channel& c) { return c.name == name; });
      if (it == channels.end()) return usageError("unknown channel '" + ek::printableExcerpt(name) + "' (see --list and the wheels table)");
      picked.push_back(*it);
    }
    channels = picked;
  }
  if (channels.empty()) return usageError("the project has no outputs and no wheels: nothing to respond");
  ek::checkWritable(outPath, "results file");
  if (!a.reportPath.empty()) ek::checkWritable(a.reportPath, "PDF report");
  ProgressBar bar(!quiet && isatty(STDERR_FILENO));
  const auto t0 = std::chrono::steady_clock::now();
  const ek::OperatingPoint point = interruptible([&] { return operatingPoint(model, a); }, "the operating point");
  const auto t1 = std::chrono::steady_clock::now();
  const ek::FrequencyResponse r =
      ek::frequencyResponse(*model, point, in, channels, o, [&](double f) { bar.update(f); }, &gCancel);
  const auto t2 = std::chrono::steady_clock::now();
  bar.finish();
  ek::writeFrequencyResponseCsv(r, outPath);
  if (r.cancelled) {
    ek::cfprintf(stderr, "elastokin-sim: interrupted by %s after %zu of %d frequencies; those were written to %s\n",
                 signalName(), r.frequency.size(), o.points, outPath.c_str());
    return 128 + gSignal;
  }
  ek::cprintf("frequency response to %s [%s] at the %s\n", r.inputName.c_str(), r.inputUnit.c_str(), point.description.c_str());
  ek::cprintf("%zu frequencies from %g to %g Hz, %zu outputs, operating point %.3f s, response %.3f s -> %s\n\n",
              r.frequency.size(), o.from, o.to, r.outputs.size(), std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(t2 - t1).count(), outPath.c_str());
  ek::cprintf("  %-36s %14s %14s %14s\n", "output: magnitude at", "lowest f", "peak", "peak at [Hz]");
  for (std::size_t c = 0; c < r.outputs.size(); ++c) {
    const std::size_t peak = r.peak(c);
    const std::string unit = r.units[c] + "/" + r.inputUnit;
    ek::cprintf("  %-36s %14.5g %14.5g %14.4g  %s\n", r.outputs[c].c_str(), std::abs(r.response[c].front()),
                std::abs(r.response[c][peak]), r.frequency[peak], unit.c_str());
  }
  return a.reportPath.empty() ? kDone : pdfReport(*model, a, nullptr, &r, nullptr, &point);
}

int analysisReport(const std::shared_ptr<const ek::SuspensionModel>& model, const AnalysisArgs& a,
                   const std::string& outPath, bool quiet) {
  if (!a.metricsPath.empty() && (a.name == "frequency-response" || a.name == "modes"))
    return usageError("--metrics is for the K&C analyses (their metrics at the design position)");
  if ((!a.measuredPath.empty() || !a.mapping.empty()) && (a.name == "frequency-response" || a.name == "modes"))
    return usageError("--measured and --map are for the K&C analyses (a rig's sweep)");
  if (!a.mapping.empty() && a.measuredPath.empty()) return usageError("--map needs --measured");
  if (a.name == "frequency-response") return frequencyReport(model, a, outPath, quiet);
  if (a.name == "modes") return modesReport(model, a, outPath);
  ek::KcOptions o;
  if (!ek::parseKcKind(a.name, o.kind))
    return usageError("unknown analysis '" + a.name +
                      "' (parallel-travel, opposite-travel, single-travel, static-load, steering, frequency-response, "
                      "modes)");
  if (!a.loadCase.empty() || !a.channels.empty())
    return usageError("--loadcase and --channels are for frequency-response and modes");
  const bool steering = o.kind == ek::KcKind::Steering;
  if (a.inputId >= 0 && !steering) return usageError("--input is for steering, frequency-response and modes");
  bool degrees = false;  // a rotation input is swept in degrees on the command line
  if (steering) {
    if (a.inputId < 0) return usageError("steering needs --input ID (the rack's translation or rotation input)");
    o.input = model->inputById(a.inputId);
    if (o.input < 0) return usageError("input " + std::to_string(a.inputId) + " does not exist in the inputs table");
    if (!model->inputs[o.input].motion())
      return usageError("input " + std::to_string(a.inputId) + " is a " + ek::inputKindName(model->inputs[o.input].kind) +
                        "; steering sweeps a translation or rotation input (a driven rack)");
    degrees = model->inputs[o.input].kind == ek::InputKind::Rotation;
  }
  const bool travel = o.kind != ek::KcKind::StaticLoad;  // a length (or angle) on the command line
  if (o.kind == ek::KcKind::StaticLoad) {
    o.load = loadIndex(a.load);
    if (o.load < 0)
      return usageError(a.load.empty() ? "static-load needs --load (fx-contact, fy-contact, fz-contact, mx, my, mz, fx-centre)"
                                       : "unknown load '" + ek::printableExcerpt(a.load) + "' (fx-contact, fy-contact, fz-contact, mx, my, mz, fx-centre)");
  } else if (!a.load.empty()) {
    return usageError("--load is for static-load only");
  }
  const double scale = degrees ? M_PI / 180.0 : travel ? 1e-3 : 1.0;  // mm or deg on the command line
  const ek::KcOptions defaults = ek::defaultKcOptions(o.kind, degrees);
  o.from = a.haveFrom ? a.from * scale : defaults.from;
  o.to = a.haveTo ? a.to * scale : defaults.to;
  o.points = a.havePoints ? a.points : defaults.points;
  if (!(o.to > o.from)) return usageError("--to must be greater than --from");
  if (o.points < 2 || o.points > 100000) return usageError("--points needs a whole number from 2 to 100000");
  if (a.wheelId >= 0 || o.kind == ek::KcKind::SingleTravel) {
    if (a.wheelId < 0) return usageError("single-travel needs --wheel ID");
    o.wheel = model->wheelById(a.wheelId);
    if (o.wheel < 0) return usageError("wheel " + std::to_string(a.wheelId) + " does not exist in the wheels table");
  }
  if (model->wheels.empty())
    throw ek::ModelError({model->project().sourcePath, "wheels", "", ""},
                         "the project has no wheels: K&C analyses need the 'wheels' table (docs/project-format.md)");
  ek::checkWritable(outPath, "results file");
  if (!a.reportPath.empty()) ek::checkWritable(a.reportPath, "PDF report");
  if (!a.metricsPath.empty()) ek::checkWritable(a.metricsPath, "metrics file");
  ProgressBar bar(!quiet && isatty(STDERR_FILENO));
  const auto t0 = std::chrono::steady_clock::now();
  const ek::KcResult r = ek::runKc(*model, o, [&](double f) { bar.update(f); }, &gCancel);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bar.finish();
  // The rig file read and compared before anything is written: a file that is missing, broken or
  // beside the sweep leaves every output as it was.
  ek::MeasuredKc measured;
  std::vector<ek::KcCorrelation> correlation;
  if (!r.cancelled && !a.measuredPath.empty()) {
    measured = ek::readMeasuredKc(a.measuredPath, a.mapping, r.columns, r.units);
    correlation = ek::correlate(r, measured);
  }
  ek::writeKcCsv(r, outPath);
  if (r.cancelled) {
    ek::cfprintf(stderr, "elastokin-sim: interrupted by %s after %zu of %d points; those were written to %s\n",
                 signalName(), r.sweep.size(), o.points, outPath.c_str());
    return 128 + gSignal;
  }
  ek::cprintf("analysis       %s, %s from %g to %g %s, %d points (%d equilibrium iterations, %.3f s)\n",
              a.name.c_str(), r.sweepName.c_str(), o.from / scale, o.to / scale,
              degrees ? "deg" : travel ? "mm" : r.sweepUnit.c_str(), o.points, r.iterations, wall);
  ek::cprintf("points         %zu x %zu columns -> %s\n", r.sweep.size(), r.columns.size(), outPath.c_str());
  if (r.subdividedPoints > 0)
    ek::cprintf("continuation   %d points reached in smaller steps from their neighbour\n", r.subdividedPoints);
  for (const auto& w : r.warnings) {
    ek::cprintf("warning        %s\n", w.c_str());
    ek::cfprintf(stderr, "elastokin-sim: warning: %s\n", w.c_str());
  }
  ek::cprintf("\n");
  ek::cprintf("metrics at the design position (docs/analyses.md):\n");
  std::size_t width = 0;
  for (const auto& m : r.metrics) width = std::max(width, m.name.size() + (m.wheel.empty() ? 0 : m.wheel.size() + 3));
  for (const auto& m : r.metrics) {
    const std::string label = m.wheel.empty() ? m.name : m.name + " (" + m.wheel + ")";
    ek::cprintf("  %-*s %12.5g %s\n", static_cast<int>(width), label.c_str(), m.value, m.unit.c_str());
  }
  const std::vector<ek::TargetCheck> targets = ek::checkTargets(model->project(), r.metrics);
  if (!targets.empty()) {
    int met = 0;
    std::size_t labelWidth = 0;
    for (const auto& t : targets) {
      met += t.met();
      labelWidth = std::max(labelWidth, t.metric.size() + (t.wheel.empty() ? 0 : t.wheel.size() + 3));
    }
    ek::cprintf("\ntargets        %d of %zu met (the project's 'targets' table)\n", met, targets.size());
    for (const auto& t : targets) {
      const std::string label = t.wheel.empty() ? t.metric : t.metric + " (" + t.wheel + ")";
      if (t.status == ek::TargetCheck::Status::NoMetric)
        ek::cprintf("  %-9s target %d: %s: %s\n", "NO METRIC", t.id, label.c_str(), t.message.c_str());
      else
        ek::cprintf("  %-9s target %d: %-*s %12.5g  %s%s%s\n", t.met() ? "met" : "MISSED", t.id,
                    static_cast<int>(labelWidth), label.c_str(), t.value, ek::targetRange(t).c_str(),
                    t.note.empty() ? "" : "  ", t.note.c_str());
    }
  }
  if (!a.measuredPath.empty()) {
    ek::cprintf("\nmeasured       %s: %zu points, %zu channels compared", a.measuredPath.c_str(), measured.sweep.size(),
                measured.columns.size());
    if (!measured.leftOut.empty()) {
      std::string list;
      for (const auto& h : measured.leftOut) list += (list.empty() ? "" : "', '") + h;
      ek::cprintf(" (not compared: '%s')", list.c_str());
    }
    if (measured.branches.size() > 1)
      ek::cprintf("\n  a loop of %zu branches (loading and unloading): compared branch by branch; hysteresis is the "
                  "measured loop's largest width", measured.branches.size());
    int width = 36;
    for (const auto& c : correlation) width = std::max(width, static_cast<int>(c.label().size()));
    ek::cprintf("\n  %-*s %12s %12s %12s %14s %8s\n", width, "channel: computed - measured", "mean", "RMS", "largest", "at",
                "points");
    for (const auto& c : correlation) {
      const auto [factor, unit] = ek::displayUnit(r.sweepUnit);
      ek::cprintf("  %-*s %12.5g %12.5g %12.5g %10.5g %-3s %8d %s%s%s\n", width, c.label().c_str(), c.mean, c.rms, c.largest,
                  c.maxAt * factor,
                  unit.c_str(), c.points, c.unit.c_str(),
                  c.branch.empty() ? "" : (", hysteresis " + ek::significant(c.hysteresis, 5) + " " + c.unit).c_str(),
                  c.outside ? (" (" + std::to_string(c.outside) + " measured points outside the sweep)").c_str() : "");
    }
  }
  if (!a.metricsPath.empty()) {
    std::string json = ek::kcMetricsJson(r, a.name, targets);
    if (!correlation.empty()) {  // the correlation with the measured sweep
      auto doc = nlohmann::ordered_json::parse(json);
      auto list = nlohmann::ordered_json::array();
      for (const auto& c : correlation) {
        nlohmann::ordered_json row{{"channel", c.channel}, {"unit", c.unit}, {"mean", c.mean}, {"rms", c.rms},
                                   {"max", c.max}, {"largest", c.largest}, {"max at", c.maxAt},
                                   {"points", c.points}, {"outside", c.outside}};
        if (!c.branch.empty()) row["branch"] = c.branch, row["hysteresis"] = c.hysteresis;
        list.push_back(row);
      }
      doc["correlation"] = {{"file", a.measuredPath}, {"channels", list}};
      json = doc.dump(2) + "\n";
    }
    ek::writeFile(a.metricsPath, json, "metrics file");
    ek::cprintf("\nmetrics        %zu, full precision -> %s\n", r.metrics.size(), a.metricsPath.c_str());
  }
  return a.reportPath.empty() ? kDone
                              : pdfReport(*model, a, &r, nullptr, nullptr, nullptr, 0.0, 0.0,
                                          a.measuredPath.empty() ? nullptr : &measured);
}
/// CalculiX's matrix files of a deck: when JOB.sti is missing, ccx is run on the deck in its
/// folder (its own output files beside the deck, its messages into JOB.ccx.log).
/// @throws ek::ModelError when ccx is not installed or leaves no matrices.
void runCalculixWhenNeeded(const std::string& deck) {
  const std::string job = ek::calculixJob(deck);
  if (access((job + ".sti").c_str(), F_OK) == 0) return;
  const std::string hint = "the deck's *FREQUENCY, SOLVER=MATRIXSTORAGE step writes it: ccx -i JOB";
  std::string dir = ".", name = job;
  if (const auto slash = job.rfind('/'); slash != std::string::npos) {
    dir = slash == 0 ? "/" : job.substr(0, slash);
    name = job.substr(slash + 1);
  }
  const std::string log = job + ".ccx.log";
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    std::FILE* out = std::freopen((name + ".ccx.log").c_str(), "w", stdout);
    if (out) dup2(fileno(stdout), STDERR_FILENO);
    execlp("ccx", "ccx", "-i", name.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0)
    throw ek::ModelError({job + ".sti"}, "is missing and ccx could not be started; " + hint);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    throw ek::ModelError({job + ".sti"}, "is missing and ccx (CalculiX, package calculix-ccx) is not installed; " + hint);
  if (access((job + ".sti").c_str(), F_OK) != 0)
    throw ek::ModelError({job + ".sti"}, "is missing after running ccx on the deck (messages in " + log + "); " + hint);
  ek::cprintf("ran ccx on %s (messages in %s)\n", deck.c_str(), log.c_str());
}

/// What an import set, in which units, and what it left out.
void printImport(const ek::PropertyImport& r, const std::string& path, ek::ImportTarget target, int id) {
  for (const auto& w : r.warnings) ek::cfprintf(stderr, "elastokin-sim: %s\n", w.text().c_str());
  ek::cprintf("%s (%s, units %s) onto %s %d:\n", path.c_str(), r.fileType.c_str(), r.units.c_str(),
              target == ek::ImportTarget::Bushing ? "bushing" : "p2p element", id);
  for (const auto& c : r.changes) ek::cprintf("  %s\n", c.c_str());
  if (!r.leftOut.empty()) {
    ek::cprintf("not imported:\n");
    for (const auto& c : r.leftOut) ek::cprintf("  %s\n", c.c_str());
  }
}

/// A SID file, by its name (.SID_FEM or .sid in any case).
bool isSidFile(const std::string& path) {
  const std::string lower = ek::asciiLower(path);
  auto endsWith = [&](const std::string& e) { return lower.size() > e.size() && lower.compare(lower.size() - e.size(), e.size(), e) == 0; };
  return endsWith(".sid_fem") || endsWith(".sid");
}

/// What an FE or SID import made of the body.
void printFeImport(const ek::FeImport& r, const std::string& path, int body) {
  ek::cprintf("%s (%d nodes, %d degrees of freedom) onto body %d: flexible bodies row %d %s\n", path.c_str(), r.nodes, r.dofs,
              body, r.flexibleRow, r.replaced ? "replaced" : "added");
  ek::cprintf("  mass %s kg (the body row's %s kg, its centre of mass and inertia replaced)\n",
              ek::significant(r.mass, 6).c_str(), ek::significant(r.previousMass, 6).c_str());
  std::string f;
  for (int k = 0; k < r.frequencies.size(); ++k) f += (k ? ", " : "") + ek::significant(r.frequencies[k], 5);
  ek::cprintf("  %d elastic modes [Hz]: %s\n", static_cast<int>(r.frequencies.size()), f.c_str());
  for (const std::string& n : r.notes) ek::cprintf("  %s\n", n.c_str());
  for (const auto& [marker, on] : r.riders) ek::cprintf("  marker %d on %s\n", marker, on.c_str());
}

/// --export-property: the element as a property file. @returns the exit code.
int exportProperty(const ek::Project& project, const std::string& spec, const std::string& path, const std::string& units) {
  if (spec.rfind("body:", 0) == 0) {
    int body = -1;
    if (!parseInt(spec.substr(5), body)) return usageError("--export-property body:ID needs a body id, found '" + ek::printableExcerpt(spec) + "'");
    if (!units.empty()) return usageError("--units is for Adams property files; a SID file is written in SI units");
    const std::string text = ek::exportSidBody(project, body);
    ek::checkWritable(path, "SID file");
    ek::writeFile(path, text, "SID file");
    ek::cprintf("%s -> %s (SID file, SI units)\n", spec.c_str(), path.c_str());
    return kDone;
  }
  ek::PropertyType type = ek::PropertyType::Bushing;
  int id = -1;
  if (!ek::parseExportElement(spec, type, id))
    return usageError("--export-property needs bushing:ID, spring:ID, damper:ID, bumpstop:ID or reboundstop:ID, found '" +
                      ek::printableExcerpt(spec) + "'");
  ek::PropertyUnits u = ek::parseUnitList("mm,newton,degrees,second,kg");
  if (!units.empty()) u = ek::parseUnitList(units);  // std::invalid_argument: a usage error
  const ek::PropertyExport e = ek::exportPropertyFile(project, type, id, u);
  ek::checkWritable(path, "property file");
  ek::writeFile(path, e.text, "property file");
  ek::cprintf("%s -> %s ('%s', units %s):\n", spec.c_str(), path.c_str(), ek::propertyTypeName(type), u.describe().c_str());
  for (const auto& w : e.written) ek::cprintf("  %s\n", w.c_str());
  if (!e.leftOut.empty()) {
    ek::cprintf("not written:\n");
    for (const auto& c : e.leftOut) ek::cprintf("  %s\n", c.c_str());
  }
  return kDone;
}

}  // namespace

int main(int argc, char** argv) {
  // The user's locale, as in the workbench, the Python module and an FMU's host process: numbers in
  // files and on the command line never depend on it (engine/core/text.h), and the tests run the
  // runners under de_DE.UTF-8 to show it.
  std::setlocale(LC_ALL, "");
  installSignalHandlers();  // from the start: a signal during set-up stops before the first step
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string projectPath, loadCase, outPath, canonicalPath, importPath, exportSpec, exportPath, exportUnits;
  ek::ImportTarget importTarget = ek::ImportTarget::Bushing;
  int importId = -1;
  bool haveImportTarget = false;
  ek::HydroImportOptions hydro;
  bool haveHydroOption = false;
  std::string feDeck;
  ek::FeImportOptions fe;
  fe.units = {1e-3, 1e3};
  fe.reduction.modes = 12;
  bool haveFeOption = false, haveOntoBody = false, haveFeUnits = false, haveBindTolerance = false, haveReduction = false;
  ek::SidImportOptions sidOptions;
  std::string toText;
  bool haveToText = false;
  std::string fmuPath, inputsPath;
  int fmiVersion = 3;
  bool haveIntegrator = false;
  std::vector<std::string> fmuParameters;
  bool fmuSources = false;
  ek::RunOptions opt;
  bool quiet = false, list = false, stiffness = false, realtime = false, haveDt = false, haveLin = false, haveRate = false;
  int realtimeCpu = -1;
  bool holdInputs = false;
  double warnError = 0.0;  // [m]; 0: no warning
  AnalysisArgs analysis;
  std::string manoeuvre;
  std::map<std::string, double> manoeuvreParams;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    auto value = [&](std::string& out) {
      if (k + 1 >= args.size()) return false;
      out = args[++k];
      return true;
    };
    std::string v;
    if (a == "-h" || a == "--help") {
      ek::cprintf("%s", kUsage);
      return 0;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--list") {
      list = true;
    } else if (a == "--realtime") {
      realtime = true;
    } else if (a == "--realtime-cpu") {
      if (!value(v) || !parseInt(v, realtimeCpu) || realtimeCpu < 0 || realtimeCpu >= 1024)
        return usageError("--realtime-cpu needs a CPU number from 0 to 1023");
    } else if (a == "--hold-inputs") {
      holdInputs = true;
    } else if (a == "--stiffness") {
      stiffness = true;
    } else if (a == "--frozen-kinematics") {
      opt.kinematicsDerivative = false;
    } else if (a == "--loadcase") {
      if (!value(loadCase)) return usageError("--loadcase needs a name");
    } else if (a == "--out") {
      if (!value(outPath)) return usageError("--out needs a file name");
    } else if (a == "--dt") {
      if (!value(v) || !parseDouble(v, opt.dt) || !(opt.dt > 0))
        return usageError("--dt needs a positive finite number of seconds");
      haveDt = true;
    } else if (a == "--threads") {
      if (!value(v) || !parseInt(v, opt.threads) || opt.threads < 1 || opt.threads > 64)
        return usageError("--threads needs a whole number from 1 to 64");
    } else if (a == "--lin-every") {
      if (!value(v) || !parseInt(v, opt.linearizeEvery) || opt.linearizeEvery < 1)
        return usageError("--lin-every needs a whole number from 1 to " + std::to_string(INT_MAX));
      haveLin = true;
    } else if (a == "--start") {
      if (!value(v) || !parseDouble(v, opt.start) || !(opt.start >= 0))
        return usageError("--start needs a non-negative finite number of seconds");
    } else if (a == "--duration") {
      if (!value(v) || !parseDouble(v, opt.duration) || !(opt.duration > 0))
        return usageError("--duration needs a positive finite number of seconds");
    } else if (a == "--sample-rate") {
      if (!value(v) || !parseDouble(v, opt.sampleRate) || !(opt.sampleRate > 0))
        return usageError("--sample-rate needs a positive finite number of Hz");
      haveRate = true;
    } else if (a == "--channels") {
      if (!value(v)) return usageError("--channels needs a comma-separated list of names");
      opt.channels = splitComma(v);
    } else if (a == "--integrator") {
      if (!value(opt.integrator)) return usageError("--integrator needs a name");
      haveIntegrator = true;
    } else if (a == "--export-fmu") {
      if (!value(fmuPath) || fmuPath.empty()) return usageError("--export-fmu needs a file name");
    } else if (a == "--fmi") {
      if (!value(v) || (v != "2" && v != "3")) return usageError("--fmi needs 2 or 3");
      fmiVersion = v == "2" ? 2 : 3;
    } else if (a == "--write-inputs") {
      if (!value(inputsPath) || inputsPath.empty()) return usageError("--write-inputs needs a file name");
    } else if (a == "--sources") {
      fmuSources = true;
    } else if (a == "--fmu-parameter") {
      if (!value(v) || v.empty()) return usageError("--fmu-parameter needs a table cell path");
      fmuParameters.push_back(v);
    } else if (a == "--rtol") {
      if (!value(v) || !parseDouble(v, opt.relativeTolerance) || !(opt.relativeTolerance > 0))
        return usageError("--rtol needs a positive number");
    } else if (a == "--warn-error") {
      if (!value(v) || !parseDouble(v, warnError) || !(warnError > 0))
        return usageError("--warn-error needs a positive number of metres");
    } else if (a == "--rho-inf") {
      if (!value(v) || !parseDouble(v, opt.rhoInfinity) || !(opt.rhoInfinity >= 0 && opt.rhoInfinity <= 1))
        return usageError("--rho-inf needs a number from 0 to 1");
    } else if (a == "--cvode-solver") {
      if (!value(opt.cvodeSolver) || (opt.cvodeSolver != "dense" && opt.cvodeSolver != "klu" && opt.cvodeSolver != "auto"))
        return usageError("--cvode-solver needs dense, klu or auto");
    } else if (a == "--analysis") {
      if (!value(analysis.name)) return usageError("--analysis needs a name");
    } else if (a == "--from") {
      if (!value(v) || !parseDouble(v, analysis.from)) return usageError("--from needs a finite number");
      analysis.haveFrom = true;
    } else if (a == "--to") {
      // A sweep's end, or with --export-property the file written: decided after all options.
      if (!value(toText)) return usageError("--to needs a value");
      haveToText = true;
    } else if (a == "--points") {
      if (!value(v) || !parseInt(v, analysis.points)) return usageError("--points needs a whole number");
      analysis.havePoints = true;
    } else if (a == "--wheel") {
      if (!value(v) || !parseInt(v, analysis.wheelId) || analysis.wheelId < 0)
        return usageError("--wheel needs a wheel id (a whole number)");
    } else if (a == "--input") {
      if (!value(v) || !parseInt(v, analysis.inputId) || analysis.inputId < 0)
        return usageError("--input needs an input id (a whole number)");
    } else if (a == "--import") {
      if (!value(importPath) || importPath.empty()) return usageError("--import needs a property file");
    } else if (a == "--onto") {
      if (!value(v)) return usageError("--onto needs bushing:ID, p2p:ID or body:ID");
      const auto colon = v.find(':');
      const std::string kind = v.substr(0, colon);
      if (colon == std::string::npos || (kind != "bushing" && kind != "p2p" && kind != "body") ||
          !parseInt(v.substr(colon + 1), importId))
        return usageError("--onto needs bushing:ID, p2p:ID or body:ID, found '" + ek::printableExcerpt(v) + "'");
      importTarget = kind == "bushing" ? ek::ImportTarget::Bushing : ek::ImportTarget::P2P;
      haveOntoBody = kind == "body";
      haveImportTarget = true;
    } else if (a == "--import-fe") {
      if (!value(feDeck) || feDeck.empty()) return usageError("--import-fe needs a CalculiX input deck (.inp)");
    } else if (a == "--interface") {
      if (!value(v)) return usageError("--interface needs SET=MARKER[,SET=MARKER...]");
      std::stringstream list(v);
      std::string item;
      while (std::getline(list, item, ',')) {
        const auto eq = item.find('=');
        int marker = 0;
        if (eq == std::string::npos || eq == 0 || !parseInt(item.substr(eq + 1), marker))
          return usageError("--interface needs SET=MARKER (a node set of the deck, a marker id), found '" +
                            ek::printableExcerpt(item) + "'");
        fe.interfaces.emplace_back(item.substr(0, eq), marker);
      }
      haveFeOption = true;
    } else if (a == "--modes") {
      if (!value(v) || !parseInt(v, fe.reduction.modes) || fe.reduction.modes < 0 || fe.reduction.modes > 200)
        return usageError("--modes needs a whole number from 0 to 200");
      haveFeOption = haveReduction = true;
    } else if (a == "--max-frequency") {
      if (!value(v) || !parseDouble(v, fe.reduction.maxFrequency) || !(fe.reduction.maxFrequency > 0))
        return usageError("--max-frequency needs a positive frequency in Hz");
      fe.reduction.modes = -1;
      haveFeOption = haveReduction = true;
    } else if (a == "--fe-units") {
      const auto comma = value(v) ? v.find(',') : std::string::npos;
      const std::string l = comma == std::string::npos ? "" : v.substr(0, comma), m = comma == std::string::npos ? "" : v.substr(comma + 1);
      if ((l != "m" && l != "mm") || (m != "kg" && m != "t"))
        return usageError("--fe-units needs LENGTH,MASS: m or mm, kg or t (e.g. mm,t: N and MPa)");
      fe.units = {l == "mm" ? 1e-3 : 1.0, m == "t" ? 1e3 : 1.0};
      haveFeOption = haveFeUnits = true;
    } else if (a == "--bind-tolerance") {
      if (!value(v) || !parseDouble(v, sidOptions.tolerance) || !(sidOptions.tolerance >= 0))
        return usageError("--bind-tolerance needs a distance in m, zero or positive");
      haveBindTolerance = true;
    } else if (a == "--branches") {
      if (!value(v) || !parseInt(v, hydro.branches) || hydro.branches < 1 || hydro.branches > 8)
        return usageError("--branches needs a whole number from 1 to 8");
      haveHydroOption = true;
    } else if (a == "--amplitude") {
      double amp = 0.0;
      if (!value(v) || !parseDouble(v, amp) || !(amp > 0)) return usageError("--amplitude needs a positive number (in the file's length or angle unit)");
      hydro.amplitude = amp;  // in the file's units until the file is read
      haveHydroOption = true;
    } else if (a == "--export-property") {
      if (!value(exportSpec) || exportSpec.empty())
        return usageError("--export-property needs bushing:ID, spring:ID, damper:ID, bumpstop:ID or reboundstop:ID");
    } else if (a == "--units") {
      if (!value(exportUnits) || exportUnits.empty()) return usageError("--units needs LENGTH,FORCE,ANGLE,TIME, e.g. mm,newton,degrees,second");
    } else if (a == "--write-project") {
      if (!value(canonicalPath) || canonicalPath.empty()) return usageError("--write-project needs a file name");
    } else if (a == "--metrics") {
      if (!value(analysis.metricsPath) || analysis.metricsPath.empty()) return usageError("--metrics needs a file name");
    } else if (a == "--measured") {
      if (!value(analysis.measuredPath) || analysis.measuredPath.empty()) return usageError("--measured needs a CSV file");
    } else if (a == "--map") {
      std::string m;
      if (!value(m) || m.find('=') == std::string::npos || m.find('=') == 0 || m.find('=') + 1 == m.size())
        return usageError("--map needs COLUMN=CHANNEL (a column of the measured file, a channel of the sweep)");
      analysis.mapping.emplace_back(m.substr(0, m.find('=')), m.substr(m.find('=') + 1));
    } else if (a == "--report") {
      if (!value(analysis.reportPath) || analysis.reportPath.empty()) return usageError("--report needs a file name");
#ifndef ELASTOKIN_HAVE_REPORT
      return usageError("--report needs the workbench's report code: this elastokin-sim was built without it");
#endif
    } else if (a == "--load") {
      if (!value(analysis.load)) return usageError("--load needs a name");
    } else if (a == "--manoeuvre") {
      if (!value(manoeuvre) || manoeuvre.empty()) return usageError("--manoeuvre needs a name (or 'list')");
    } else if (a == "--param") {
      std::string m;
      double number = 0.0;
      if (!value(m) || m.find('=') == std::string::npos || m.find('=') == 0 || !parseDouble(m.substr(m.find('=') + 1), number))
        return usageError("--param needs KEY=VALUE with a finite number, e.g. --param speed=20");
      if (!manoeuvreParams.emplace(m.substr(0, m.find('=')), number).second)
        return usageError("--param " + ek::printableExcerpt(m.substr(0, m.find('='))) + " is given twice");
    } else if (a == "--solver") {
      if (!value(opt.solver)) return usageError("--solver needs a name");
    } else if (!a.empty() && a[0] == '-') {
      return usageError("unknown option '" + ek::printableExcerpt(a) + "'");
    } else if (projectPath.empty()) {
      projectPath = a;
    } else {
      return usageError("more than one project file given ('" + ek::printableExcerpt(projectPath) + "', '" + ek::printableExcerpt(a) + "')");
    }
  }
  if (manoeuvre == "list") return listManoeuvres();
  if (!manoeuvreParams.empty() && manoeuvre.empty()) return usageError("--param needs --manoeuvre");
  if (!manoeuvre.empty() && (!analysis.name.empty() || !loadCase.empty()))
    return usageError("--manoeuvre builds its own load case: no --analysis or --loadcase with it");
  if (projectPath.empty()) return usageError("no project file given");
  if (haveToText && !exportSpec.empty()) {
    exportPath = toText;
    if (exportPath.empty()) return usageError("--to needs a file name");
  } else if (haveToText) {
    if (!parseDouble(toText, analysis.to)) return usageError("--to needs a finite number");
    analysis.haveTo = true;
  }
  const bool sidImport = isSidFile(importPath);
  if (!feDeck.empty() && (!haveOntoBody || canonicalPath.empty() || fe.interfaces.empty()))
    return usageError("--import-fe needs --onto body:ID, --interface SET=MARKER and --write-project FILE");
  if (!feDeck.empty() && !importPath.empty()) return usageError("--import and --import-fe are separate runs");
  if (sidImport) {
    if (!haveOntoBody) return usageError("a SID file goes onto a body: --onto body:ID");
    if (haveReduction) return usageError("--modes and --max-frequency are for --import-fe; a SID file brings its modes");
    for (const auto& [node, marker] : fe.interfaces) {
      int id = 0;
      if (!parseInt(node, id)) return usageError("--interface with a SID file needs NODE=MARKER (node ids of the file), found '" + ek::printableExcerpt(node) + "'");
      sidOptions.bindings.emplace_back(id, marker);
    }
    if (haveFeUnits) sidOptions.units = fe.units;
  } else if (feDeck.empty() && (haveFeOption || haveOntoBody)) {
    return usageError("--onto body:ID, --interface, --modes, --max-frequency and --fe-units need --import-fe or --import FILE.SID_FEM");
  }
  if (haveBindTolerance && !sidImport) return usageError("--bind-tolerance needs --import FILE.SID_FEM");
  if (!importPath.empty() && (!haveImportTarget || canonicalPath.empty()))
    return usageError("--import needs --onto bushing:ID or p2p:ID and --write-project FILE");
  if (importPath.empty() && feDeck.empty() && haveImportTarget) return usageError("--onto needs --import");
  if (haveHydroOption && importPath.empty()) return usageError("--branches and --amplitude need --import FILE.hbu");
  if (!exportSpec.empty() && exportPath.empty()) return usageError("--export-property needs --to FILE");
  if (fmuSources && fmuPath.empty()) return usageError("--sources needs --export-fmu FILE.fmu");
  if (exportSpec.empty() && (!exportPath.empty() || !exportUnits.empty()))
    return usageError("--to and --units need --export-property");
  if (!exportSpec.empty() && !importPath.empty()) return usageError("--export-property and --import are separate runs");
  // Before anything is read or written: no output replaces an input or another output.
  try {
    ek::refuseSameFiles({{"the project file", projectPath}, {"--measured", analysis.measuredPath}, {"--import", importPath},
                         {"--import-fe", feDeck}},
                        {{"--out", outPath},
                         {"--metrics", analysis.metricsPath},
                         {"--report", analysis.reportPath},
                         {"--write-project", canonicalPath},
                         {"--write-inputs", inputsPath},
                         {"--export-fmu", fmuPath},
                         {"--to", exportPath}});
  } catch (const ek::IoError& e) {
    ek::cfprintf(stderr, "elastokin-sim: %s\n", e.what());
    return kUsageError;
  }

  try {
    ek::Project project = ek::readProject(projectPath);
    if (!exportSpec.empty()) return exportProperty(project, exportSpec, exportPath, exportUnits);
    if (!fmuPath.empty()) {
#ifdef ELASTOKIN_HAVE_FMU
      ek::fmu::FmuExportOptions fo;
      fo.fmiVersion = fmiVersion;
      fo.loadCase = loadCase;
      if (haveIntegrator) fo.integrator = opt.integrator;
      if (haveDt) fo.step = opt.dt;
      if (haveLin) fo.linearizeEvery = opt.linearizeEvery;
      fo.parameters = fmuParameters;
      fo.sources = fmuSources;
      const ek::fmu::FmuExport fmu =
          ek::fmu::makeFmu(project, fo, ek::fmu::fmuBinaries(), ek::fmu::fmuSources(fo));
      ek::fmu::writeFmu(fmu, fmuPath);
      ek::cprintf("%s -> %s (FMI %d co-simulation, %s at %g s%s)\n", projectPath.c_str(), fmuPath.c_str(), fo.fmiVersion,
                  fmu.config.integrator.c_str(), fmu.config.step,
                  loadCase.empty() ? "" : (", load case " + loadCase).c_str());
      ek::cprintf("  %d inputs, %d outputs, %d parameters; instantiation token %s\n", fmu.variables.nInputs,
                  fmu.variables.nOutputs, fmu.variables.nParameters, fmu.config.token.c_str());
      if (fo.sources) {
        int files = 0, units = 0;
        for (const auto& [name, bytes] : fmu.files) {
          if (name.rfind("sources/", 0) != 0) continue;
          ++files;
          if (std::filesystem::path(name).extension() == ".cpp") ++units;
        }
        ek::cprintf("  sources: %d files, %d translation units (any C++20 compiler, no other library: sources/README.txt)\n",
                    files, units);
      }
      return kDone;
#else
      (void)fmiVersion, (void)haveIntegrator;
      return usageError("--export-fmu needs the FMU binary: this elastokin-sim was built with ELASTOKIN_FMU=OFF");
#endif
    }
    if (sidImport) {
      const ek::FeImport r = ek::importSidBody(project, importId, importPath, sidOptions);
      printFeImport(r, importPath, importId);
      project = r.project;
    } else if (!importPath.empty()) {
      const ek::PropertyData data = ek::readPropertyFile(importPath);
      ek::PropertyImport imported;
      if (data.type == ek::PropertyType::HydroBushing) {
        if (importTarget != ek::ImportTarget::Bushing)
          throw ek::ModelError({importPath}, "a hydro bushing ('hbu') goes onto a bushing: --onto bushing:ID");
        if (hydro.amplitude) {
          // The amplitude was given in the file's unit: of the first table's direction.
          const bool rot = !data.hydro.empty() && data.hydro.front().direction >= 3;
          *hydro.amplitude *= rot ? data.units.angle : data.units.length;
        }
        imported = ek::importHydroBushing(project, importId, data, hydro).import;
      } else {
        if (haveHydroOption) return usageError("--branches and --amplitude are for hydro bushings ('hbu' files)");
        imported = ek::importPropertyData(project, importTarget, importId, data);
      }
      printImport(imported, importPath, importTarget, importId);
      project = imported.project;
    }
    if (!feDeck.empty()) {
      runCalculixWhenNeeded(feDeck);
      const ek::FeImport r = ek::importCalculixBody(project, importId, feDeck, fe);
      printFeImport(r, feDeck, importId);
      project = r.project;
    }
    const ek::Diagnostics diagnostics = ek::check(project);
    if (diagnostics.warningCount() > 0)
      ek::cfprintf(stderr, "elastokin-sim: %s\n", diagnostics.text(ek::Severity::Warning).c_str());
    diagnostics.throwIfErrors();
    const auto model = ek::SuspensionModel::build(project);
    if (!canonicalPath.empty()) {
      ek::writeProject(project, canonicalPath);
      ek::cprintf("%s -> %s (canonical form)\n", projectPath.c_str(), canonicalPath.c_str());
      return kDone;
    }
    if (list) {
      ek::cprintf("%s: %d free bodies, %d DOF, %zu bushings, %zu P2P elements\nload cases:\n", projectPath.c_str(),
                  model->nFreeBodies(), model->nDof(), model->bushings.size(), model->p2ps.size());
      for (const auto& lc : project.loadCases) ek::cprintf("  %s (%.3g s)\n", ek::printableExcerpt(lc.name).c_str(), lc.duration);
      ek::cprintf("channels:\n");
      for (const auto& c : ek::resolveChannels(*model, {}))
        ek::cprintf("  %s [%s]\n", ek::printableExcerpt(c.name).c_str(), c.unit.c_str());
      return 0;
    }
    if (!manoeuvre.empty()) return manoeuvreReport(project, manoeuvre, manoeuvreParams, outPath, analysis.metricsPath, quiet);
    if (!analysis.name.empty()) {
      if (outPath.empty()) return usageError("--out is required");
      analysis.loadCase = loadCase;
      analysis.channels = opt.channels;
      return analysisReport(model, analysis, outPath, quiet);
    }
    if (analysis.haveFrom || analysis.haveTo || analysis.havePoints || analysis.wheelId >= 0 || !analysis.load.empty() ||
        analysis.inputId >= 0 || !analysis.reportPath.empty() || !analysis.metricsPath.empty() ||
        !analysis.measuredPath.empty() || !analysis.mapping.empty())
      return usageError("--from, --to, --points, --wheel, --load, --input, --report, --metrics, --measured and --map need "
                        "--analysis");
    if (loadCase.empty()) return usageError("--loadcase is required");
    if (stiffness) return stiffnessReport(model, loadCase, outPath);
    if (!inputsPath.empty()) {
      const ek::LoadCaseRow* lc = model->loadCase(loadCase);
      if (!lc) return usageError("unknown load case '" + ek::printableExcerpt(loadCase) + "'");
      if (!haveDt) opt.dt = project.simulation.step;
      const ek::InputSignals loadCaseSignals(*model, *lc);
      const double duration = opt.duration > 0.0 ? opt.duration : lc->duration - opt.start;
      const long long steps = std::llround(duration / opt.dt);
      ek::OutputFile f(inputsPath, "input file");
      std::string line = "time";
      for (const auto& in : model->inputs) line += "," + ek::csvField(in.name);
      f << line << "\n";
      ek::VecX u(model->nInputs());
      for (long long k = 0; k <= steps; ++k) {
        const double t = ek::gridTime(opt.start, opt.dt, static_cast<double>(k));
        loadCaseSignals.evaluate(t, u);
        line = ek::shortestText(t);
        for (int i = 0; i < model->nInputs(); ++i) line += "," + ek::shortestText(u[i]);
        f << line << "\n";
      }
      f.commit();
      ek::cprintf("%s: %lld rows of %d inputs (load case %s, every %g s) -> %s\n", projectPath.c_str(), steps + 1,
                  model->nInputs(), loadCase.c_str(), opt.dt, inputsPath.c_str());
      return kDone;
    }
    if (outPath.empty()) return usageError("--out is required");
    if (!haveDt) opt.dt = -1.0;
    if (!haveLin) opt.linearizeEvery = -1;
    if (!haveRate) opt.sampleRate = -1.0;
    std::string note;
    opt = ek::projectRunOptions(project, opt, &note);
    if (!note.empty()) ek::cfprintf(stderr, "elastokin-sim: note: %s\n", note.c_str());
    opt.holdInputs = holdInputs;
    ek::Simulation sim(model, loadCase, opt);
    sim.positionErrorThreshold = warnError;
    ek::checkWritable(outPath, "results file");  // before the run, not after it
    ek::RealtimePacer pacer(opt.dt, realtime ? sim.totalSteps() : 0);
    ProgressBar bar(!quiet && isatty(STDERR_FILENO));
    const auto t0 = std::chrono::steady_clock::now();
    interruptible([&] { sim.initialize(); }, "the initial state");
    const auto t1 = std::chrono::steady_clock::now();
    std::string failure, realtimeSetup;
    try {
      const long long every = std::max<long long>(1, sim.totalSteps() / 200);
      if (realtime) {
        realtimeSetup = ek::enterRealtime(realtimeCpu);
        pacer.start();
      }
      bool more = true;
      while (more && gSignal == 0) {
        more = sim.step();
        if (realtime) pacer.stepDone(sim.stepsDone());
        if (sim.stepsDone() % every == 0) bar.update(static_cast<double>(sim.stepsDone()) / sim.totalSteps());
      }
      bar.update(1.0);
    } catch (const ek::SimulationError& e) {
      failure = e.what();
    }
    const auto t2 = std::chrono::steady_clock::now();
    bar.finish();
    ek::writeCsv(sim.results(), outPath);
    const double wall = std::chrono::duration<double>(t2 - t1).count();
    const double simulated = sim.stepsDone() * opt.dt;
    ek::cprintf("project        %s (%d bodies, %d DOF)\n", projectPath.c_str(), model->nFreeBodies(), model->nDof());
    ek::cprintf("load case      %s\n", loadCase.c_str());
    ek::cprintf("integrator     %s\n", sim.integrator().describe().c_str());
    ek::cprintf("initial state  %s\n",
                model->loadCase(loadCase)->initialState == ek::InitialState::Equilibrium
                    ? ("static equilibrium (" + std::to_string(sim.equilibrium().iterations) + " Newton iterations, " +
                       ek::significant(std::chrono::duration<double>(t1 - t0).count(), 4) + " s)")
                          .c_str()
                    : "as modelled");
    ek::cprintf("steps          %lld of %lld (%.4g s simulated)\n", sim.stepsDone(), sim.totalSteps(), simulated);
    ek::cprintf("wall time      %.4f s\n", wall);
    if (realtime)
      ek::cprintf("real time      %s  set-up: %s\n", pacer.summary().c_str(), realtimeSetup.c_str());
    else
      ek::cprintf("real-time factor %.4f\n", simulated > 0 ? wall / simulated : 0.0);
    ek::cprintf("samples        %zu x %zu channels -> %s\n", sim.results().size(), sim.results().channels().size(),
                outPath.c_str());
    const ek::ErrorSummary es = sim.errorSummary();
    if (es.available && es.steps > 0) {
      ek::cprintf("error estimate local, per step (%s): positions RMS %.3g m, max %.3g m "
                  "at t = %.10g s; angles RMS %.3g rad, max %.3g rad at t = %.10g s\n",
                  sim.integrator().errorEstimateSource().c_str(), es.positionRms, es.positionMax, es.positionMaxTime, es.angleRms, es.angleMax, es.angleMaxTime);
      std::fflush(stdout);
      if (es.positionWarnTime >= 0.0)
        ek::cfprintf(stderr, "elastokin-sim: warning: the local error estimate of the positions exceeded %.3g m, first "
                     "at t = %.10g s (largest %.3g m at t = %.10g s): a smaller --dt is more accurate\n",
                     warnError, es.positionWarnTime, es.positionMax, es.positionMaxTime);
    }
    if (!failure.empty()) {
      ek::cfprintf(stderr, "elastokin-sim: %s\n(results up to that time were written to %s)\n", failure.c_str(),
                   outPath.c_str());
      return kRunStopped;
    }
    if (gSignal != 0) {
      ek::cfprintf(stderr, "elastokin-sim: interrupted by %s at t = %.10g s (step %lld of %lld); the results up to "
                   "then were written to %s\n", signalName(), sim.state().t,
                   sim.stepsDone(), sim.totalSteps(), outPath.c_str());
      return 128 + gSignal;
    }
    return kDone;
  } catch (const ek::ModelError& e) {
    ek::cfprintf(stderr, "elastokin-sim: %s\n", e.what());
    return kBadProject;
  } catch (const ek::SimulationError& e) {
    ek::cfprintf(stderr, "elastokin-sim: %s\n", e.what());
    return kRunStopped;
  } catch (const ek::IoError& e) {
    ek::cfprintf(stderr, "elastokin-sim: %s\n", e.what());
    return kIoOrResources;
  } catch (const std::bad_alloc&) {
    ek::cfprintf(stderr, "elastokin-sim: out of memory\n");
    return kIoOrResources;
  } catch (const std::invalid_argument& e) {
    return usageError(e.what());
  } catch (const std::exception& e) {
    ek::cfprintf(stderr, "elastokin-sim: %s\n", e.what());
    return kIoOrResources;
  }
}
