// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-gui-bench: the workbench against the engine alone, and its responsiveness.
//  1. The same work in the workbench and in the engine as the runner calls it, interleaved: a
//     K&C sweep (parallel travel, +-80 mm, 161 points) from the Analyses tab's run() to its
//     drawn result, and an unpaced run of the load case from Run to the finished run with its
//     plots and 3D frames; wall and CPU time, the ratio GUI / engine, and the gaps of a 10 ms
//     timer on the GUI thread during the workbench's run.
//  2. Paced (real-time) runs animating the 3D view and the plots: event-loop gaps, render times,
//     CPU time; two variants interleaved: the machine as it is, and with THREADS busy threads.
// Needs a display (run under xvfb-run).
//
//   elastokin-gui-bench [--repeat N] [--load THREADS] [--seconds S] [--project FILE]
#include <sys/resource.h>

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <QComboBox>
#include <QProcess>
#include <QElapsedTimer>
#include <QSpinBox>

#include "engine/analysis/kc.h"
#include "engine/analysis/simulation.h"
#include "ui/panels/analyses_panel.h"
#include "ui/run/event_loop_probe.h"
#include "ui/main_window.h"
#include "ui/views/plot_panel.h"
#include "ui/views/view3d.h"
#include "ui/views/vtk_widget.h"
#include "engine/core/text.h"
#include "bench_args.h"

using namespace ek::ui;

namespace {

double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Figures {
  qint64 median = 0, p99 = 0, largest = 0;
  long long ticks = 0, over50 = 0;
  double renderMax = 0, cpu = 0;
  QString run;
};

/// One paced run of `seconds`, measured; `load` busy threads spin meanwhile.
Figures measure(MainWindow& w, double seconds, int load) {
  std::atomic<bool> spin{true};
  std::vector<std::thread> busy;
  for (int k = 0; k < load; ++k)
    busy.emplace_back([&spin] {
      volatile double x = 1.0;
      while (spin.load(std::memory_order_relaxed)) x = x * 1.0000001 + 1e-9;
    });
  EventLoopProbe probe;
  QSignalSpy finished(&w, &MainWindow::runFinished);
  const double cpu0 = cpuSeconds();
  probe.start();
  w.startRun(seconds);
  finished.wait(static_cast<int>(1000 * (30 + 20 * seconds)));
  probe.stop();
  Figures f;
  f.cpu = cpuSeconds() - cpu0;
  spin = false;
  for (auto& t : busy) t.join();
  f.median = probe.quantile(0.5);
  f.p99 = probe.quantile(0.99);
  f.largest = probe.gaps.empty() ? 0 : probe.gaps.back();
  f.ticks = static_cast<long long>(probe.gaps.size());
  f.over50 = probe.over(50);
  f.renderMax = w.view3d()->vtkWidget()->maxRenderMs();
  f.run = w.lastRunMessage();
  return f;
}

struct Timed {
  double wall = 0, cpu = 0;
  qint64 p99 = 0, largest = 0;  ///< event-loop gaps [ms] (workbench only)
};

template <class Work>
Timed timed(Work&& work) {
  QElapsedTimer clock;
  const double cpu0 = cpuSeconds();
  clock.start();
  work();
  return {clock.nsecsElapsed() * 1e-9, cpuSeconds() - cpu0};
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x.empty() ? 0.0 : x[x.size() / 2];
}

/// The runner as a user calls it (process start, project read, CSV written): wall time, and the
/// child's CPU time.
Timed runner(const QString& project, const QStringList& args) {
  QProcess p;
  p.setProgram(QStringLiteral(ELASTOKIN_RUNNER));
  p.setArguments(QStringList{project} + args + QStringList{"--quiet", "--out", "/dev/null"});
  rusage before{}, after{};
  getrusage(RUSAGE_CHILDREN, &before);
  QElapsedTimer clock;
  clock.start();
  p.start();
  p.waitForFinished(600000);
  Timed t;
  t.wall = clock.nsecsElapsed() * 1e-9;
  getrusage(RUSAGE_CHILDREN, &after);
  auto sec = [](const timeval& v) { return v.tv_sec + 1e-6 * v.tv_usec; };
  t.cpu = sec(after.ru_utime) + sec(after.ru_stime) - sec(before.ru_utime) - sec(before.ru_stime);
  if (p.exitCode() != 0) ek::cfprintf(stderr, "runner failed: %s\n", p.readAllStandardError().constData());
  return t;
}

/// The same K&C sweep and the same unpaced load-case run in the workbench, in the runner and in
/// the engine alone.
void compareWithEngine(MainWindow& w, int repeat, double seconds) {
  const auto model = ek::SuspensionModel::build(w.document()->project());
  const std::string loadCase = model->project().loadCases.front().name;
  auto* integrator = w.findChild<QComboBox*>("integrator");
  auto* linEvery = w.findChild<QSpinBox*>("linEvery");
  ek::RunOptions run;
  run.integrator = integrator->currentData().toString().toStdString();
  run.linearizeEvery = linEvery->value();
  run.duration = seconds;
  ek::KcOptions kc;
  kc.from = -0.08;
  kc.to = 0.08;
  kc.points = 161;
  AnalysesPanel* analyses = w.analyses();
  analyses->setAnalysis("parallel-travel");
  analyses->setRange(-80.0, 80.0, 161);
  ek::cprintf("the same work in the workbench and in the engine (as elastokin-sim runs it), interleaved, %d repeats\n",
              repeat);
  ek::cprintf("%-34s %-10s %9s %9s %9s %9s\n", "work", "where", "wall [s]", "CPU [s]", "p99 gap", "largest");
  std::vector<double> ratio[4];
  for (int r = 0; r < repeat; ++r) {
    // K&C sweep.
    const Timed engineKc = timed([&] { ek::runKc(*model, kc); });
    const Timed runnerKc = runner(w.document()->path(), {"--analysis", "parallel-travel", "--from", "-80", "--to", "80",
                                                         "--points", "161"});
    QSignalSpy done(analyses, &AnalysesPanel::finished);
    EventLoopProbe probe;
    probe.start();
    Timed guiKc = timed([&] {
      analyses->run();
      done.wait(120000);
    });
    probe.stop();
    guiKc.p99 = probe.quantile(0.99);
    guiKc.largest = probe.gaps.empty() ? 0 : probe.gaps.back();
    // Load case, unpaced.
    const Timed engineRun = timed([&] {
      ek::Simulation sim(model, loadCase, run);
      sim.initialize();
      while (sim.step()) {
      }
    });
    const Timed runnerRun =
        runner(w.document()->path(), {"--loadcase", QString::fromStdString(loadCase), "--duration", QString::number(seconds),
                                      "--integrator", QString::fromStdString(run.integrator), "--lin-every",
                                      QString::number(run.linearizeEvery)});
    QSignalSpy finished(&w, &MainWindow::runFinished);
    probe.start();
    Timed guiRun = timed([&] {
      w.startRun(seconds);
      finished.wait(static_cast<int>(1000 * (60 + 20 * seconds)));
    });
    probe.stop();
    guiRun.p99 = probe.quantile(0.99);
    guiRun.largest = probe.gaps.empty() ? 0 : probe.gaps.back();
    const std::string what = "load case " + loadCase + ", " + run.integrator + ", " + std::to_string(seconds).substr(0, 4) + " s";
    const std::string kcName = "K&C parallel travel, 161 points";
    for (const auto& [name, where, t] : {std::tuple{kcName, "engine", engineKc}, std::tuple{kcName, "runner", runnerKc},
                                         std::tuple{kcName, "workbench", guiKc}, std::tuple{what, "engine", engineRun},
                                         std::tuple{what, "runner", runnerRun}, std::tuple{what, "workbench", guiRun}}) {
      if (std::string(where) != "workbench") ek::cprintf("%-34s %-10s %9.3f %9.3f\n", name.c_str(), where, t.wall, t.cpu);
      else
        ek::cprintf("%-34s %-10s %9.3f %9.3f %6lld ms %6lld ms\n", name.c_str(), where, t.wall, t.cpu, t.p99, t.largest);
    }
    ratio[0].push_back(guiKc.wall / runnerKc.wall);
    ratio[1].push_back(guiRun.wall / runnerRun.wall);
    ratio[2].push_back(guiKc.wall / engineKc.wall);
    ratio[3].push_back(guiRun.wall / engineRun.wall);
    std::fflush(stdout);
  }
  ek::cprintf("median ratio workbench / runner (wall): K&C sweep %.2f, load case %.2f\n", median(ratio[0]),
              median(ratio[1]));
  ek::cprintf("median ratio workbench / engine alone (wall): K&C sweep %.2f, load case %.2f\n", median(ratio[2]),
              median(ratio[3]));
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3, load = 2;
  double seconds = 2.0;
  std::string project = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json";
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--repeat" && k + 1 < argc) repeat = ek::bench::countArg(a, argv[++k]);
    else if (a == "--load" && k + 1 < argc) load = ek::bench::countArg(a, argv[++k], 0);
    else if (a == "--seconds" && k + 1 < argc) seconds = std::max(0.1, ek::bench::numberArg(a, argv[++k]));
    else if (a == "--project" && k + 1 < argc) project = argv[++k];
    else {
      ek::cfprintf(stderr, "usage: elastokin-gui-bench [--repeat N] [--load THREADS] [--seconds S] [--project FILE]\n");
      return 2;
    }
  }
  const char* display = std::getenv("DISPLAY");
  if (!display || !*display) {
    ek::cfprintf(stderr, "elastokin-gui-bench: no display (run under xvfb-run)\n");
    return 2;
  }
  VtkWidget::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  MainWindow w;
  w.setQuiet(true);
  w.resize(1280, 800);
  w.show();
  if (!w.openProject(QString::fromStdString(project))) return 1;
  if (!QTest::qWaitForWindowExposed(&w)) return 1;
  {
    QSignalSpy rendered(w.view3d()->vtkWidget(), &VtkWidget::rendered);
    if (w.view3d()->vtkWidget()->renders() == 0) rendered.wait(20000);  // shaders compiled before measuring
  }
  compareWithEngine(w, repeat, seconds);
  w.setRealtime(true);
  ek::cprintf("paced %.1f s runs of %s; GUI event loop: gaps of a 10 ms timer [ms]\n", seconds, project.c_str());
  ek::cprintf("%-7s %-12s %6s %7s %5s %8s %8s %10s %8s  %s\n", "repeat", "variant", "ticks", "median", "p99",
              "largest", ">50 ms", "render max", "CPU [s]", "run");
  std::vector<Figures> all[2];
  for (int r = 0; r < repeat; ++r)
    for (int v = 0; v < 2; ++v) {
      const Figures f = measure(w, seconds, v == 0 ? 0 : load);
      all[v].push_back(f);
      ek::cprintf("%-7d %-12s %6lld %7lld %5lld %8lld %8lld %10.1f %8.2f  %s\n", r + 1,
                  v == 0 ? "as is" : ("+" + std::to_string(load) + " busy").c_str(), f.ticks, f.median, f.p99,
                  f.largest, f.over50, f.renderMax, f.cpu, f.run.isEmpty() ? "completed" : qPrintable(f.run));
      std::fflush(stdout);
    }
  for (int v = 0; v < 2; ++v) {
    auto med = [&](auto get) {
      std::vector<double> x;
      for (const Figures& f : all[v]) x.push_back(static_cast<double>(get(f)));
      std::sort(x.begin(), x.end());
      return x[x.size() / 2];
    };
    ek::cprintf("median of %d, %-12s: median gap %.0f ms, p99 %.0f ms, largest %.0f ms, %.0f gaps over 50 ms\n", repeat,
                v == 0 ? "as is" : "with load", med([](const Figures& f) { return f.median; }),
                med([](const Figures& f) { return f.p99; }), med([](const Figures& f) { return f.largest; }),
                med([](const Figures& f) { return f.over50; }));
  }
  ek::cprintf("worker thread nice value %d (GUI thread %d)\n", w.worker()->niceValue(), getpriority(PRIO_PROCESS, 0));
  return 0;
}
