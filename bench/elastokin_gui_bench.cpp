// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin-gui-bench: responsiveness of the workbench while a paced (real-time) run animates
// the 3D view and the plots: the gaps between the ticks of a 10 ms timer on the GUI thread,
// the 3D render times, the missed deadlines of the run and the process's CPU time. Each repeat
// runs two variants interleaved: the machine as it is, and with THREADS extra busy threads in
// the process (a background CPU load). Needs a display (run under xvfb-run).
//
//   elastokin-gui-bench [--repeat N] [--load THREADS] [--seconds S] [--project FILE]
#include <sys/resource.h>

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "ui/event_loop_probe.h"
#include "ui/main_window.h"
#include "ui/plot_panel.h"
#include "ui/view3d.h"
#include "ui/vtk_widget.h"
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
  QTest::qWait(1000);
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
