// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin: the workbench. Opens a project (default: projects/macpherson_front.json). Without a
// display it says so and runs the headless job instead (elastokin-sim on LC1 of the project).
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTimer>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "engine/model/project_io.h"
#include "engine/core/text.h"
#include "ui/panels/analyses_panel.h"
#include "ui/main_window.h"
#include "ui/views/vtk_widget.h"

int main(int argc, char** argv) {
  const QString root = QStringLiteral(ELASTOKIN_SOURCE_DIR);
  QString project = root + "/projects/macpherson_front.json";
  QString screenshot;
  double runSeconds = -1.0;
  QString tab, table, analysis;
  bool realtime = false;
  for (int k = 1; k < argc; ++k) {
    const QString a = QString::fromLocal8Bit(argv[k]);
    if (a == "--screenshot" && k + 1 < argc) screenshot = QString::fromLocal8Bit(argv[++k]);
    else if (a == "--run" && k + 1 < argc) {
      bool ok = false;
      runSeconds = QString::fromLocal8Bit(argv[++k]).toDouble(&ok);
      if (!ok || !std::isfinite(runSeconds) || runSeconds <= 0.0) {
        ek::cfprintf(stderr, "elastokin: --run needs a positive finite number of seconds, not '%s'\n", argv[k]);
        return 2;
      }
    }
    else if (a == "--realtime") realtime = true;
    else if (a == "--tab" && k + 1 < argc) tab = QString::fromLocal8Bit(argv[++k]);
    else if (a == "--table" && k + 1 < argc) table = QString::fromLocal8Bit(argv[++k]);
    else if (a == "--analysis" && k + 1 < argc) analysis = QString::fromLocal8Bit(argv[++k]);
    else if (a == "-h" || a == "--help") {
      ek::cprintf("usage: elastokin [PROJECT.json] [--run SECONDS] [--realtime] [--tab 3D|Plots|...] [--table Bodies|Signals|...] [--analysis NAME] [--screenshot FILE.png]\n"
                  "  --run S          start the first load case for S simulated seconds after opening\n"
                  "  --realtime       tick the toolbar's real-time box (runs paced to the wall clock)\n"
                  "  --analysis NAME  run this analysis in the Analyses tab after opening (parallel-travel, steering,\n"
                  "                   opposite-travel, single-travel, static-load, frequency-response, modes)\n"
                  "  --screenshot F   save a screenshot of the window (after the run) and quit\n");
      return 0;
    } else project = a;
  }
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((!display || !*display) && (!wayland || !*wayland)) {
    // VTK (GLX only) would abort without a display: run the headless job instead.
    // The first load case, as the workbench's toolbar selects it (LC1 of the shipped axles).
    QString loadCase = "LC1";
    try {
      const ek::Project p = ek::readProject(project.toStdString());
      if (!p.loadCases.empty()) loadCase = QString::fromStdString(p.loadCases.front().name);
    } catch (const std::exception&) {
      // elastokin-sim reports the project's errors
    }
    ek::cfprintf(stderr, "elastokin: no display; running the headless job (elastokin-sim, load case %s) instead\n",
                 qPrintable(loadCase));
    const QString sim = QFileInfo(QString::fromLocal8Bit(argv[0])).absolutePath() + "/elastokin-sim";
    QDir().mkpath("results");
    QString file = loadCase;
    file.replace(QRegularExpression("[^A-Za-z0-9_.-]"), "_");
    return QProcess::execute(sim, {project, "--loadcase", loadCase, "--out", "results/" + file + ".csv"});
  }
  ek::ui::VtkWidget::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  QApplication::setApplicationName("Elastokin");
  QApplication::setOrganizationName("Elastokin");
  ek::ui::MainWindow w;
  w.setDocsRoot(root);
  w.setShippedProjects(root + "/projects");
  w.show();
  if (!w.openProject(project)) return 1;
  if (realtime) w.setRealtime(true);
  if (!tab.isEmpty()) w.showTab(tab);
  if (!table.isEmpty()) w.showTable(table);
  if (screenshot.isEmpty()) w.showFirstRunHint();  // screenshots keep a clean status bar
  auto shoot = [&] {
    if (screenshot.isEmpty()) return;
    QTimer::singleShot(500, &w, [&] {
      w.grab().save(screenshot);
      ek::cprintf("screenshot -> %s\n", qPrintable(screenshot));
      app.quit();
    });
  };
  if (!analysis.isEmpty()) {
    w.showTab("Analyses");
    w.analyses()->setAnalysis(analysis);
    QObject::connect(w.analyses(), &ek::ui::AnalysesPanel::finished, &w, [&](bool ok, const QString& msg) {
      ek::cprintf("%s: %s\n", ok ? "analysis done" : "analysis stopped", qPrintable(msg));
      shoot();
    });
    QTimer::singleShot(300, &w, [&] { w.analyses()->run(); });
  } else if (runSeconds > 0) {
    QObject::connect(&w, &ek::ui::MainWindow::runFinished, &w, [&](bool) { shoot(); });
    QTimer::singleShot(300, &w, [&] { w.startRun(runSeconds); });
  } else {
    shoot();
  }
  return app.exec();
}
