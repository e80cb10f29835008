// SPDX-License-Identifier: GPL-3.0-or-later
// End-to-end: the workbench on the default project runs LC1 for 1 simulated second on the worker
// thread; the live plot received the samples, the 3D view shows the suspension (pixel check),
// CSV export writes the expected columns, and a screenshot is saved as a test artefact. Opening
// each bad-input example shows the engine's error and keeps the open project. Needs a display
// (CI: xvfb-run); without one the test reports itself skipped.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScrollBar>
#include <QStandardPaths>
#include <QScreen>
#include <QSlider>
#include <QTableWidget>
#include <QStatusBar>
#include <QLineEdit>
#include <QLocale>
#include <QTableView>
#include <QTemporaryDir>
#include <QAction>
#include <QFileDialog>
#include <QTimer>
#include <QToolBar>
#include <QtTest>

#include <clocale>
#include <cstdlib>
#include <sys/resource.h>

#include <qcustomplot.h>

#include "engine/model/model.h"
#include "engine/solvers/topology_solver.h"
#include "engine/core/text.h"
#include "engine/model/adams_import.h"
#include "engine/model/fe_import.h"
#include "engine/core/output_file.h"
#include "engine/model/project_io.h"
#include "engine/model/signal.h"
#include "ui/panels/analyses_panel.h"
#include "ui/panels/manoeuvres_panel.h"
#include "ui/panels/bushing_dynamics_panel.h"
#include "ui/panels/curve_editor.h"
#include "ui/panels/vehicle_form.h"
#include "ui/run/event_loop_probe.h"
#ifdef ELASTOKIN_HAVE_FMU
#include "ui/panels/fmu_export_dialog.h"
#endif
#include "ui/main_window.h"
#include "ui/views/modes_view.h"
#include "ui/views/sparsity_view.h"
#include "ui/views/analysis_report.h"
#include "ui/views/view3d.h"
#include "ui/views/vtk_widget.h"
#include "ui/panels/study_dialog.h"
#include "ui/panels/table_pane.h"
#include "ui/document/hardpoints.h"
#include "ui/views/topology_view.h"
#include "ui/document/units.h"
#include "ui/views/plot_panel.h"
#include "ui/panels/problems_panel.h"
#include "tests/support/calculix.h"
#include "ui/panels/flexible_import_dialog.h"
#include "ui/panels/property_import_dialog.h"
#include "ui/document/file_output.h"
#include "ui/document/results_file.h"
#include "ui/views/view3d.h"
#include "ui/views/vtk_widget.h"

using namespace ek::ui;

namespace {
const QString kRoot = QStringLiteral(ELASTOKIN_SOURCE_DIR);

const QString kArtefacts = QStringLiteral(ELASTOKIN_BINARY_DIR) + "/artefacts";

/// Shows a quiet window of this size with the project open.
bool openShown(MainWindow& w, const QString& project, QSize size = {1400, 900}) {
  w.setQuiet(true);
  w.resize(size);
  w.show();
  return w.openProject(project) && QTest::qWaitForWindowExposed(&w);
}

/// Waits (on the signal, no fixed sleep) until the 3D view has rendered a frame: the first one
/// compiles the shaders, which would otherwise fall into a measurement.
bool firstRender(MainWindow& w) {
  VtkWidget* vtk = w.view3d()->vtkWidget();
  if (vtk->renders() > 0) return true;
  QSignalSpy rendered(vtk, &VtkWidget::rendered);
  return rendered.wait(20000);
}

/// Lets pending layouts and repaints happen (posted events), without waiting for time to pass.
void settle() {
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  QCoreApplication::processEvents();
}

/// The column of a table model with this header, -1 if none.
int columnOf(const QAbstractItemModel& m, const QString& header) {
  for (int c = 0; c < m.columnCount(); ++c)
    if (m.headerData(c, Qt::Horizontal).toString() == header) return c;
  return -1;
}
}  // namespace

class TestWorkbench : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QDir().mkpath(kArtefacts);
    Units::instance().setSystem(UnitSystem::SI);  // the remembered choice of an earlier session must not leak in
  }

  void runLc1ForOneSecond() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/double_wishbone.json"));
    QVERIFY(firstRender(w));  // shader compilation before measuring

    // Responsiveness: gaps between 10 ms ticks of the GUI thread during the run.
    EventLoopProbe probe;
    QSignalSpy finished(&w, &MainWindow::runFinished);
    probe.start();
    w.startRun(1.0);
    QVERIFY(w.isRunning());
    QVERIFY(finished.wait(60000));
    qInfo("3D render: last %.1f ms, longest %.1f ms", w.view3d()->vtkWidget()->lastRenderMs(),
          w.view3d()->vtkWidget()->maxRenderMs());
    qInfo("GUI event loop during the unpaced run: %s", qPrintable(probe.summary()));
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY2(w.lastRunMessage().isEmpty(), qPrintable(w.lastRunMessage()));

    // The live plots received every sample (1 s at 1 kHz, plus t = 0).
    PlotPanel* plots = w.plots();
    QCOMPARE(static_cast<int>(plots->history()->times().size()), 1001);
    QCOMPARE(plots->history()->times().back(), 1.0);
    QVERIFY(plots->plot(0)->graph(0)->dataCount() == 1001);
    QVERIFY(plots->history()->channels().contains("wheel centre x left"));
    QVERIFY(plots->history()->channels()[plots->selectedChannel(0)].contains("wheel centre x"));

    // The 3D view shows the suspension: a good share of pixels differ from the background.
    settle();
    const QImage img = w.view3d()->grab3D();
    QVERIFY(!img.isNull());
    const QColor corner = img.pixelColor(2, 2);
    int differ = 0;
    for (int y = 0; y < img.height(); y += 2)
      for (int x = 0; x < img.width(); x += 2) {
        const QColor c = img.pixelColor(x, y);
        if (std::abs(c.red() - corner.red()) + std::abs(c.green() - corner.green()) + std::abs(c.blue() - corner.blue()) > 90)
          ++differ;
      }
    const double share = static_cast<double>(differ) / ((img.width() / 2) * (img.height() / 2));
    qInfo("3D view %dx%d: %.1f %% of pixels show the suspension", img.width(), img.height(), 100 * share);
    QVERIFY(share > 0.03);
    img.save(kArtefacts + "/view3d.png");

    // CSV export: header of names and units, one row per sample.
    const QString csv = kArtefacts + "/results.csv";
    QCOMPARE(plots->history()->exportCsv(csv), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString header = QString::fromUtf8(f.readLine()).trimmed();
    QVERIFY2(header.startsWith("time [s],wheel centre x left [m],wheel centre z left [m],trailing arm bushing fx left [N]"),
             qPrintable(header));
    int rows = 0;
    while (!f.atEnd()) rows += !f.readLine().trimmed().isEmpty();
    QCOMPARE(rows, 1001);
    for (const char* ext : {".png", ".pdf", ".svg"}) {
      const QString path = kArtefacts + "/plot1" + ext;
      QCOMPARE(plots->exportPlot(0, path), QString());
      QVERIFY(QFileInfo(path).size() > 1000);
    }
    QVERIFY(w.grab().save(kArtefacts + "/main_window.png"));
  }

  // Responsiveness while a paced run animates the 3D view and the plots (interactive use): the
  // gaps between 10 ms ticks of the GUI thread are measured and reported (not asserted: timing is
  // for benchmarks; the closing note quotes them).
  void responsivenessDuringRealtimeRun() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/double_wishbone.json"));
    QVERIFY(firstRender(w));
    w.setRealtime(true);
    EventLoopProbe probe;
    QSignalSpy finished(&w, &MainWindow::runFinished);
    probe.start();
    w.startRun(2.0);
    QVERIFY(finished.wait(30000));
    qInfo("paced 2 s run: %s; 3D render last %.1f ms, longest %.1f ms", qPrintable(probe.summary()),
          w.view3d()->vtkWidget()->lastRenderMs(), w.view3d()->vtkWidget()->maxRenderMs());
    QCOMPARE(static_cast<int>(w.plots()->history()->times().size()), 2001);
    // The pacer's report reaches the user: every one of the 2000 deadlines is accounted for.
    QVERIFY2(w.lastRealtimeReport().contains(QRegularExpression("paced to the wall clock: [0-9]+ of 2000 deadlines missed")),
             qPrintable(w.lastRealtimeReport()));
    QVERIFY2(w.statusBar()->currentMessage().contains("deadlines missed"), qPrintable(w.statusBar()->currentMessage()));
    qInfo("%s", qPrintable(w.lastRealtimeReport()));
    // The worker yields to the GUI thread: its nice value is above the GUI thread's.
    QVERIFY2(w.worker()->niceValue() > getpriority(PRIO_PROCESS, 0),
             qPrintable(QString("worker nice %1").arg(w.worker()->niceValue())));
  }

  // Model checks before a run: a new input defaults to a free body's marker; moved onto the ground
  // it is listed as a warning, as is a bushing whose stiffness is all zero; a joint preset adds a
  // stiff bushing in one undo step.
  // The window fits a 1366x768 screen with the default project, whichever tab is shown, and a
  // long message (a rejected edit, a run's error estimate) does not widen it.
  void fitsA1366Screen() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/macpherson_front.json"));
    int widest = 0;
    QString widestTab;
    auto* centre = w.findChild<QTabWidget*>();
    QVERIFY(centre);
    for (QTabWidget* tabs : w.findChildren<QTabWidget*>()) {
      for (int k = 0; k < tabs->count(); ++k) {
        tabs->setCurrentIndex(k);
        settle();
        const int width = w.minimumSizeHint().width();
        if (width > widest) {
          widest = width;
          widestTab = tabs->tabText(k);
        }
      }
    }
    qInfo("widest minimum width %d px (tab %s)", widest, qPrintable(widestTab));
    if (qEnvironmentVariableIsSet("EK_DEBUG_WIDTH"))
      for (QWidget* c : w.findChildren<QWidget*>())
        if (c->minimumSizeHint().width() > 250)
          qInfo("%s %s: %d", c->metaObject()->className(), qPrintable(c->objectName()), c->minimumSizeHint().width());
    QVERIFY2(widest <= 1366, qPrintable(QString("%1 px on tab %2").arg(widest).arg(widestTab)));
    // A long message under the tables.
    w.tablePane()->setError(QString("bushings, row 3, field 'k_x': ").repeated(30));
    settle();
    QVERIFY2(w.minimumSizeHint().width() <= 1366, qPrintable(QString::number(w.minimumSizeHint().width())));
    w.resize(1366, 768);
    settle();
    QVERIFY(w.width() <= 1366);
    QVERIFY(w.grab().save(kArtefacts + "/window_1366x768.png"));
  }

  /// At 1366x768 with a taskbar (728 px for the window) and every banner of the Analyses tab
  /// shown (a travel limit, a rig's correlation, "not current"): the window's minimum height is
  /// at most 650 px, every plot keeps at least 100 px, a double click shows one plot alone (and
  /// a second one all again), and the toolbar's Stop stays on screen.
  void analysesFitA1366x768ScreenWithBanners() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/macpherson_front.json"));
    w.resize(1366, 728);
    w.showTab("Analyses");
    AnalysesPanel* a = w.analyses();
    QSignalSpy done(a, &AnalysesPanel::finished);
    a->setAnalysis("parallel-travel");
    a->setRange(-400, 400, 81);  // ends at both travel limits
    a->run();
    QVERIFY(done.wait(300000));
    QVERIFY2(done.last().first().toBool(), qPrintable(done.last().at(1).toString()));
    QVERIFY(a->limitsLabel()->isVisible());
    QCOMPARE(a->loadMeasured(kRoot + "/tests/data/kc_rig/macpherson_parallel_travel_loop.csv",
                             {{"Toe LF", "wheel left toe"}, {"Camber LF", "wheel left camber"}}),
             QString());
    QVERIFY(a->measuredLabel()->isVisible());
    QVERIFY2(a->measuredLabel()->text().contains("wheel left toe, branch 2 of 3 (falling)"),
             qPrintable(a->measuredLabel()->text()));
    TableModel* bushings = w.tableModel(Table::Bushings);
    const int col = columnOf(*bushings, "x stiffness [N/m]");
    QVERIFY(col >= 0);
    QVERIFY(bushings->setData(bushings->index(1, col), "300000", Qt::EditRole));
    settle();
    QVERIFY(a->staleLabel()->isVisible());
    const int minimum = w.minimumSizeHint().height();
    qInfo("minimum height with every banner %d px; banners %d, %d, %d px; plot 0 %d x %d px", minimum,
          a->limitsLabel()->height(), a->measuredLabel()->height(), a->staleLabel()->height(), a->plot(0)->width(),
          a->plot(0)->height());
    QVERIFY2(minimum <= 650, qPrintable(QString::number(minimum)));
    QVERIFY(w.height() <= 728);
    for (int k = 0; k < a->plotCount(); ++k)
      if (a->plot(k)->isVisible()) QVERIFY2(a->plot(k)->height() >= 100, qPrintable(QString::number(a->plot(k)->height())));
    // The limits in full in the banner's tooltip, whatever is cut.
    QVERIFY(a->limitsLabel()->toolTip().contains("travel limit at point"));
    QVERIFY(w.grab().save(kArtefacts + "/analyses_1366x728_banners.png"));
    // A plot alone and back.
    const int before = a->plot(0)->height();
    QTest::mouseDClick(a->plot(0), Qt::LeftButton, {}, a->plot(0)->rect().center());
    settle();
    QCOMPARE(a->enlargedPlot(), 0);
    for (int k = 1; k < a->plotCount(); ++k) QVERIFY(!a->plot(k)->isVisible());
    qInfo("plot 0 alone: %d px high (was %d)", a->plot(0)->height(), before);
    QVERIFY(a->plot(0)->height() > 2 * before);
    QVERIFY(w.grab().save(kArtefacts + "/analyses_plot_enlarged.png"));
    QTest::mouseDClick(a->plot(0), Qt::LeftButton, {}, a->plot(0)->rect().center());
    settle();
    QCOMPARE(a->enlargedPlot(), -1);
    QCOMPARE(a->visiblePlots(), 6);
    for (int k = 0; k < a->plotCount(); ++k) QVERIFY(a->plot(k)->isVisible());
    // The legend folds into one line at a click on it, the axes taking its height; a click on
    // that line unfolds it; the banners fold to one line each at a click.
    QCustomPlot* first = a->plot(0);
    QVERIFY(first->legend->visible() && first->legend->itemCount() > 2);
    const int axesBefore = first->axisRect()->height(), items = first->legend->itemCount();
    QTest::mouseClick(first, Qt::LeftButton, {}, first->legend->outerRect().center());
    settle();
    QVERIFY(a->legendsFolded() && !first->legend->visible() && legendFolded(first));
    QCPTextElement* line = legendFoldLine(first);
    QVERIFY2(line->text().contains(QString("Legend: %1 curves").arg(items)), qPrintable(line->text()));
    qInfo("legend folded: axes %d px high (were %d), the line reads '%s'", first->axisRect()->height(), axesBefore,
          qPrintable(line->text()));
    QVERIFY(first->axisRect()->height() > axesBefore + 10);
    const int bannersBefore = a->limitsLabel()->height() + a->measuredLabel()->height() + a->staleLabel()->height();
    for (QLabel* banner : {a->limitsLabel(), a->measuredLabel(), a->staleLabel()})
      QTest::mouseClick(banner, Qt::LeftButton, {}, QPoint(5, 5));
    settle();
    const int lineHeight = a->limitsLabel()->fontMetrics().lineSpacing() + 1;
    for (QLabel* banner : {a->limitsLabel(), a->measuredLabel(), a->staleLabel()}) {
      QVERIFY(a->bannerFolded(banner));
      QVERIFY2(banner->height() <= lineHeight, qPrintable(QString::number(banner->height())));
    }
    qInfo("banners folded: %d px (were %d)",
          a->limitsLabel()->height() + a->measuredLabel()->height() + a->staleLabel()->height(), bannersBefore);
    QVERIFY(w.grab().save(kArtefacts + "/analyses_folded.png"));
    // Redrawn (the difference view on and off), the legend stays folded.
    a->setDifference(true);
    a->setDifference(false);
    settle();
    QVERIFY(legendFolded(first) && !first->legend->visible());
    for (QLabel* banner : {a->limitsLabel(), a->measuredLabel(), a->staleLabel()}) {
      QTest::mouseClick(banner, Qt::LeftButton, {}, QPoint(5, 5));
      QVERIFY(!a->bannerFolded(banner));
    }
    QTest::mouseClick(first, Qt::LeftButton, {}, line->outerRect().topLeft() + QPoint(8, line->outerRect().height() / 2));
    settle();
    QVERIFY(!a->legendsFolded() && first->legend->visible() && !legendFolded(first));
    QCOMPARE(first->legend->itemCount(), items);
    QCOMPARE(first->axisRect()->height(), axesBefore);
    // Stop on screen: the run's buttons lead the toolbar, its overflow takes the settings.
    QWidget* stop = nullptr;
    for (QToolBar* bar : w.findChildren<QToolBar*>())
      for (QAction* act : bar->actions())
        if (act->text() == "Stop") stop = bar->widgetForAction(act);
    QVERIFY(stop);
    QVERIFY(stop->isVisible());
    const QRect at(stop->mapTo(&w, QPoint(0, 0)), stop->size());
    QVERIFY2(at.right() < w.width(), qPrintable(QString("Stop at x %1..%2").arg(at.left()).arg(at.right())));
  }

  /// Edit > Vehicle data...: the vehicle row as a form, applied as one undo step after the
  /// engine's validation; every field that is not a number named at once; unchecked, the row goes.
  /// The flexible bodies' table as the user sees it: its tab, the bar's row with its section.
  void flexibleBodiesTab() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/double_wishbone_flexible_bar.json"));
    w.resize(1366, 728);
    w.tablePane()->showTable("Flexible bodies");
    settle();
    QCOMPARE(w.tablePane()->currentTable(), Table::FlexibleBodies);
    QTableView* view = w.tablePane()->currentView();
    QVERIFY(view->isVisible());
    QCOMPARE(view->model()->rowCount(), 1);
    QStringList headers;
    for (int c = 0; c < view->model()->columnCount(); ++c) headers << view->model()->headerData(c, Qt::Horizontal).toString();
    QVERIFY2(headers.contains("section iy [m^4]") && headers.contains("beam points"), qPrintable(headers.join(", ")));
    const QString name = view->model()->index(0, 1).data().toString();
    qInfo("flexible bodies tab: row '%s', %d columns", qPrintable(name), int(headers.size()));
    QVERIFY(!name.isEmpty());
    QVERIFY(w.grab().save(kArtefacts + "/flexible_bodies_table.png"));
  }

  // Edit > Import flexible body: the anti-roll bar written as a SID file and read back onto its
  // body. The preview shows the modes and each marker's node; Apply is one undo step and the
  // Flexible bodies tab then names the file.
  void importFlexibleBodyFromSid() {
    MainWindow w;
    w.setQuiet(true);
    QVERIFY(openShown(w, kRoot + "/projects/double_wishbone_flexible_bar.json"));
    bool listed = false;
    for (QMenu* m : w.menuBar()->findChildren<QMenu*>())
      for (QAction* a : m->actions()) listed = listed || a->text().startsWith("&Import FE model or SID file");
    QVERIFY(listed);
    const ek::Project before = w.document()->project();
    const QString sid = kArtefacts + "/anti_roll_bar.SID_FEM";
    ek::writeFile(sid.toStdString(), ek::exportSidBody(before, 11), "SID file");
    const int index = w.document()->undoStack()->index();
    QVERIFY(w.importFlexibleBody(sid, 11, "13=93"));
    QCOMPARE(w.document()->undoStack()->index(), index + 1);
    FlexibleImportDialog* preview = w.flexibleImportPreview();
    QVERIFY(preview);
    qInfo("%s", qPrintable(preview->header()));
    QVERIFY(preview->header().contains("21 nodes, 126 degrees of freedom; flexible bodies row 1 replaced"));
    QCOMPARE(preview->modeTable()->rowCount(), 26);
    QVERIFY(preview->modeTable()->item(0, 1)->text().startsWith("49.6"));
    QCOMPARE(preview->markerTable()->rowCount(), 4);
    bool bound = false;
    for (int r = 0; r < 4; ++r)
      bound = bound || (preview->markerTable()->item(r, 0)->text() == "93" && preview->markerTable()->item(r, 2)->text() == "node 13");
    QVERIFY(bound);
    preview->show();
    QVERIFY(QTest::qWaitForWindowExposed(preview));
    QVERIFY(preview->grab().save(kArtefacts + "/flexible_import_preview.png"));
    preview->hide();
    // What the table shows afterwards: the row reduced from the file.
    w.tablePane()->showTable("Flexible bodies");
    settle();
    QTableView* view = w.tablePane()->currentView();
    QString source;
    for (int c = 0; c < view->model()->columnCount(); ++c)
      if (view->model()->headerData(c, Qt::Horizontal).toString().startsWith("reduced from")) source = view->model()->index(0, c).data().toString();
    QVERIFY2(source.startsWith("anti_roll_bar.SID_FEM"), qPrintable(source));
    w.document()->undoStack()->undo();
    QVERIFY(w.document()->project() == before);
    // A node named by something other than its id: refused, nothing changed.
    QVERIFY(!w.importFlexibleBody(sid, 11, "clamp=93"));
    QVERIFY(w.lastDialogText().contains("bound by id"));
    QVERIFY(w.document()->project() == before);
  }

  // The same menu with a CalculiX deck whose matrices are not stored yet: ccx runs, the preview
  // names the interface sets the markers ride on.
  void importFlexibleBodyFromCalculix() {
    if (QStandardPaths::findExecutable("ccx").isEmpty()) QFAIL("ccx is not installed: scripts/setup-debian.sh installs calculix-ccx");
    QTemporaryDir dir;
    ek::test::write(dir.filePath("strip.inp"), ek::test::stripDeck() + "*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n");
    ek::writeProject(ek::test::heldStrip(), dir.filePath("held.json").toStdString());
    MainWindow w;
    w.setQuiet(true);
    QVERIFY(w.openProject(dir.filePath("held.json")));
    QVERIFY(!QFile::exists(dir.filePath("strip.sti")));
    QVERIFY(w.importFlexibleBody(dir.filePath("strip.inp"), 1, "ROOT=2, TIP=3"));
    QVERIFY(QFile::exists(dir.filePath("strip.sti")));
    FlexibleImportDialog* preview = w.flexibleImportPreview();
    qInfo("%s", qPrintable(preview->header()));
    QVERIFY(preview->header().contains("615 nodes, 1845 degrees of freedom; flexible bodies row 1 added"));
    QCOMPARE(preview->modeTable()->rowCount(), 18);
    QCOMPARE(preview->markerTable()->item(0, 2)->text(), QString("set ROOT (15 nodes)"));
    QCOMPARE(w.document()->project().flexibleBodies.size(), std::size_t(1));
    QVERIFY(!w.importFlexibleBody(dir.filePath("strip.inp"), 1, "FLANGE=3"));
    QVERIFY(w.lastDialogText().contains("interface set 'FLANGE' is not in the deck"));
  }

  void vehicleDataForm() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/double_wishbone.json"));
    bool listed = false;
    for (QMenu* m : w.menuBar()->findChildren<QMenu*>())
      for (QAction* a : m->actions()) listed = listed || a->text() == "&Vehicle data...";
    QVERIFY(listed);
    ProjectDocument* doc = w.document();
    const ek::VehicleRow before = *doc->project().vehicle;
    VehicleForm form(doc->project().vehicle);
    QCOMPARE(form.field("sprung mass [kg]")->text(), QString("1828.1"));
    QCOMPARE(form.field("other axle roll stiffness [N m/deg]")->text(), QString("1093.1"));
    QVERIFY(form.grab().save(kArtefacts + "/vehicle_form.png"));
    form.field("sprung mass [kg]")->setText("1650");
    form.field("cg height [m]")->setText("0.52");
    QString error;
    std::optional<ek::VehicleRow> v = form.vehicle(&error);
    QCOMPARE(error, QString());
    QCOMPARE(editVehicle(doc, v), QString());
    QCOMPARE(doc->project().vehicle->sprungMass, 1650.0);
    QCOMPARE(doc->project().vehicle->cgHeight, 0.52);
    QCOMPARE(doc->project().vehicle->wheelbase, before.wheelbase);
    QVERIFY(doc->undoStack()->undoText().contains("vehicle data"));
    doc->undoStack()->undo();
    QVERIFY(*doc->project().vehicle == before);
    // Bad entries: each named; a share above 1 is the engine's error, nothing changes.
    form.field("wheelbase [m]")->setText("2,7");
    form.field("cg height [m]")->setText("high");
    form.vehicle(&error);
    qInfo("%s", qPrintable(error));
    QVERIFY(error.contains("wheelbase [m]") && error.contains("cg height [m]"));
    form.field("wheelbase [m]")->setText("2.7");
    form.field("cg height [m]")->setText("0.55");
    form.field("sprung mass front share")->setText("1.5");
    v = form.vehicle(&error);
    QCOMPARE(error, QString());
    const QString rejected = editVehicle(doc, v);
    qInfo("%s", qPrintable(rejected));
    QVERIFY(rejected.contains("vehicle.sprung mass front share"));
    QVERIFY(*doc->project().vehicle == before);
    // Unchecked: the row is removed (and back with undo).
    form.enabled()->setChecked(false);
    QVERIFY(!form.field("wheelbase [m]")->isEnabled());
    QCOMPARE(editVehicle(doc, form.vehicle()), QString());
    QVERIFY(!doc->project().vehicle.has_value());
    doc->undoStack()->undo();
    QVERIFY(*doc->project().vehicle == before);
  }

  void modelChecksListWarningsBeforeTheRun() {
    MainWindow w;
    w.setQuiet(true);
    w.show();
    QVERIFY(w.openProject(kRoot + "/tests/data/minimal_valid.json"));
    QCOMPARE(w.problems()->count(), 0);
    TableModel* inputs = w.tableModel(Table::Inputs);
    QVERIFY(inputs->addRow());
    const ek::Project& p = w.document()->project();
    QCOMPARE(p.inputs.back().marker, 2);  // "body mount", on the free body
    QCOMPARE(w.problems()->count(), 0);
    const int markerCol = columnOf(*inputs, "marker");
    QVERIFY(markerCol >= 0);
    QVERIFY(inputs->setData(inputs->index(inputs->rowCount() - 1, markerCol), "3", Qt::EditRole));

    TableModel* bushings = w.tableModel(Table::Bushings);
    QVERIFY(bushings->addVariants().contains("spherical joint"));
    const int undoBefore = w.document()->undoStack()->count();
    QVERIFY(bushings->addRowVariant(bushings->addVariants().indexOf("spherical joint")));
    QCOMPARE(w.document()->undoStack()->count(), undoBefore + 1);
    const ek::BushingRow joint = p.bushings.back();
    QCOMPARE(QString::fromStdString(joint.name), QString("spherical joint 2"));
    QVERIFY(joint.directions[0].stiffness.coefficient >= 1.5e7);
    for (int c = 0; c < bushings->columnCount(); ++c)
      if (bushings->headerData(c, Qt::Horizontal).toString().contains("stiffness"))
        QVERIFY(bushings->setData(bushings->index(bushings->rowCount() - 1, c), "0", Qt::EditRole));
    QStringList shown;
    for (int k = 0; k < w.problems()->count(); ++k) shown << w.problems()->item(k)->text();
    qInfo("%s", qPrintable(shown.join("\n")));
    QCOMPARE(w.problems()->warningCount(), 2);
    QCOMPARE(w.problems()->errorCount(), 0);
    QVERIFY(shown.filter("table 'bushings', row id 2 ('spherical joint 2'): no stiffness in any direction").size() == 1);
    QVERIFY(shown.filter("table 'inputs', row id 2 ('input 2'), field 'marker': the force acts on marker 3 of fixed body 0").size() == 1);
    QVERIFY(w.problems()->isVisible());
  }

  // The hardpoint tab shows the double wishbone's joints in global millimetres; a separated
  // pair is highlighted (a screenshot to look at).
  void hardpointTab() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/double_wishbone.json", {1500, 900}));
    ek::Project apart = w.document()->project();
    apart.markers[8].position.y() += 0.012;  // marker 9: the upper ball joint's mount side
    replaceProject(w.document(), apart, "move marker");
    w.showTable("Hardpoints");
    TableModel* hp = w.tableModel(Table::Hardpoints);
    QVERIFY(hp && hp->rowCount() > 50);
    QTableView* view = nullptr;
    for (auto* v : w.findChildren<QTableView*>())
      if (v->model() == hp) view = v;
    QVERIFY(view && view->isVisible());
    int flagged = 0;
    for (int r = 0; r < hp->rowCount(); ++r) flagged += !hp->data(hp->index(r, 9), Qt::DisplayRole).toString().isEmpty();
    QCOMPARE(flagged, 1);
    // The symmetric toggle shows on this tab and switches the model's symmetric editing.
    auto* symmetric = w.findChild<QPushButton*>("symmetricHardpoints");
    QVERIFY(symmetric && symmetric->isVisible());
    symmetric->setChecked(true);
    QVERIFY(static_cast<HardpointModel*>(hp)->symmetric());
    // An edit keeps the view where the user was (scroll position).
    view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum() / 2);
    const int scrolled = view->verticalScrollBar()->value();
    QVERIFY(scrolled > 0);
    QVERIFY(hp->setData(hp->index(2, HardpointModel::Z), hp->data(hp->index(2, HardpointModel::Z), Qt::EditRole).toDouble() + 1.0,
                        Qt::EditRole));
    settle();
    QCOMPARE(view->verticalScrollBar()->value(), scrolled);
    w.showTable("Bodies");
    QVERIFY(!symmetric->isVisible());
    // The same toggle on the Bushings tab edits a bushing's left/right twin with it.
    w.showTable("Bushings");
    QVERIFY(symmetric->isVisible() && symmetric->isChecked());
    QVERIFY(w.document()->symmetricEdits());
    w.showTable("Hardpoints");
    QVERIFY(w.grab().save(kArtefacts + "/hardpoints.png"));
  }

  // Typed numbers follow one rule in every language setting (CTest runs this under de_DE):
  // through the cell's own editor "0.9" is 0.9 kg (it was 9, "4.25" 425), "4,25" and "1,234"
  // are refused with a message naming the rule and leave the value as it was; the editor shows
  // the number as it is stored; the spin boxes of the window read and show a point.
  void typedNumbersFollowOneRuleInEveryLocale() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/quarter_double_wishbone.json"));
    w.showTable("Bodies");
    TableModel* bodies = w.tableModel(Table::Bodies);
    QTableView* view = nullptr;
    for (auto* v : w.findChildren<QTableView*>())
      if (v->model() == bodies) view = v;
    QVERIFY(view && view->isVisible());
    const int col = columnOf(*bodies, "mass [kg]");
    QVERIFY(col >= 0);
    const QModelIndex cell = bodies->index(1, col);
    auto type = [&](const QString& text) {
      view->setCurrentIndex(cell);
      view->edit(cell);
      settle();
      QLineEdit* editor = nullptr;  // the cell's open editor (focus may stay elsewhere under Xvfb)
      for (auto* e : view->viewport()->findChildren<QLineEdit*>())
        if (e->isVisible()) editor = e;
      if (!editor) return QString("no line edit");
      const QString shown = editor->text();
      editor->selectAll();
      QTest::keyClicks(editor, text);
      QTest::keyClick(editor, Qt::Key_Return);
      settle();
      return shown;
    };
    const double before = w.document()->project().bodies[1].mass;
    QCOMPARE(type("0.9"), QString::fromStdString(ek::shortestText(before)));
    QCOMPARE(w.document()->project().bodies[1].mass, 0.9);
    QCOMPARE(type("4.25"), QString("0.9"));
    QCOMPARE(w.document()->project().bodies[1].mass, 4.25);
    for (const QString& bad : {QString("4,25"), QString("1,234")}) {
      type(bad);
      QCOMPARE(w.document()->project().bodies[1].mass, 4.25);
      const QString why = bodies->data(cell, Qt::ToolTipRole).toString();
      QVERIFY2(why.contains("with a point as the decimal separator"), qPrintable(why));
    }
    const auto boxes = w.findChildren<QDoubleSpinBox*>();
    QVERIFY(!boxes.isEmpty());
    for (auto* box : boxes) QVERIFY2(!box->text().contains(','), qPrintable(box->objectName() + ": " + box->text()));
    QCOMPARE(QLocale().decimalPoint(), QString("."));
  }

  // No export replaces the open project's file, by any name (a symbolic link too); another
  // project opened in its place frees it.
  void exportsNeverReplaceTheOpenProject() {
    const QString dir = kArtefacts + "/guard";
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    const QString project = dir + "/p.json";
    QVERIFY(QFile::copy(kRoot + "/projects/quarter_double_wishbone.json", project));
    QVERIFY(QFile::link(project, dir + "/link.json"));
    QFile original(project);
    QVERIFY(original.open(QIODevice::ReadOnly));
    const QByteArray before = original.readAll();
    original.close();
    {
      MainWindow w;
      QVERIFY(openShown(w, project));
      for (const QString& target : {project, dir + "/link.json", dir + "/../guard/p.json"}) {
        const QString err = writeFileBytes(target, "overwritten", "screenshot");
        QVERIFY2(err.contains("which an open project reads: an export never replaces it"), qPrintable(err));
      }
      QVERIFY(w.openProject(kRoot + "/projects/double_wishbone.json"));
      QCOMPARE(writeFileBytes(dir + "/link.json", before, "copy"), QString());  // no longer open
    }
    QVERIFY(original.open(QIODevice::ReadOnly));
    QCOMPARE(original.readAll(), before);
  }

  // Help: toolbar controls explain themselves; the Help menu opens the documentation files.
  void helpMenuAndTooltips() {
    MainWindow w;
    w.setQuiet(true);
    w.setDocsRoot(kRoot);
    w.show();
    auto* bar = w.findChild<QToolBar*>();
    QVERIFY(bar);
    int controls = 0;
    for (QWidget* c : bar->findChildren<QWidget*>()) {
      if (!qobject_cast<QComboBox*>(c) && !qobject_cast<QAbstractSpinBox*>(c) && !qobject_cast<QCheckBox*>(c)) continue;
      if (c->parentWidget() != bar) continue;  // a combo's own popup parts
      QVERIFY2(!c->toolTip().isEmpty(), c->metaObject()->className());
      ++controls;
    }
    QCOMPARE(controls, 7);  // load case, method, dt, linearize every, solver, error warning, real time
    for (QAction* a : bar->actions())
      if (!a->isSeparator() && !a->text().isEmpty() && !a->text().startsWith(" ")) QVERIFY2(a->toolTip() != a->text(), qPrintable(a->text()));
    QMenu* help = nullptr;
    for (QAction* a : w.menuBar()->actions())
      if (a->text() == "&Help") help = a->menu();
    QVERIFY(help);
    QStringList opened;
    for (QAction* a : help->actions()) {
      if (a->isSeparator() || a->text().contains("About")) continue;
      a->trigger();
      opened << w.lastDocument();
      QVERIFY2(QFileInfo::exists(w.lastDocument()), qPrintable(w.lastDocument()));
    }
    QCOMPARE(opened.size(), 9);
    QVERIFY(opened.contains(kRoot + "/docs/analyses.md"));
    QVERIFY(opened.contains(kRoot + "/docs/fmi.md"));
    QVERIFY(opened.contains(kRoot + "/docs/studies.md"));
  }

  // A file with six errors: all six are listed (file named, not navigable) and the open project
  // stays. A warning of the open project is listed and a click selects its cell.
  void problemsAreListedAndLeadToTheirCells() {
    MainWindow w;
    w.setQuiet(true);
    w.show();
    QVERIFY(w.openProject(kRoot + "/tests/data/minimal_valid.json"));
    QCOMPARE(w.problems()->count(), 0);
    QVERIFY(w.problems()->isHidden());
    QVERIFY(!w.openProject(kRoot + "/tests/data/bad_input/six_bad_inertias.json"));
    QCOMPARE(w.problems()->count(), 6);
    QCOMPARE(w.problems()->errorCount(), 6);
    QVERIFY2(w.problems()->item(5)->text().contains("six_bad_inertias.json: table 'bodies', row id 15 ('bad 5'), field 'inertia [kg m^2]'"),
             qPrintable(w.problems()->item(5)->text()));
    QVERIFY(w.lastDialogText().contains("row id 10 ('bad 0')") && w.lastDialogText().contains("row id 15 ('bad 5')"));
    // A bushing without stiffness: one warning; clicking it goes to the bushings table, row 1.
    auto* bushings = w.tableModel(Table::Bushings);
    for (int c = 0; c < bushings->columnCount(); ++c) {
      const QString h = bushings->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
      if (h.contains("stiffness")) QVERIFY(bushings->setData(bushings->index(0, c), 0.0, Qt::EditRole));
    }
    QCOMPARE(w.problems()->count(), 1);
    QCOMPARE(w.problems()->warningCount(), 1);
    QVERIFY2(w.problems()->item(0)->text().startsWith("Warning: table 'bushings', row id 1 ('mount'): no stiffness"),
             qPrintable(w.problems()->item(0)->text()));
    w.showTable("Bodies");
    QTest::mouseClick(w.problems()->viewport(), Qt::LeftButton, {},
                      w.problems()->visualItemRect(w.problems()->item(0)).center());
    QTableView* view = nullptr;
    for (auto* v : w.findChildren<QTableView*>())
      if (v->model() == bushings) view = v;
    QVERIFY(view);
    QVERIFY(view->isVisible());  // its tab is the current one
    QCOMPARE(view->currentIndex().row(), 0);
    QVERIFY(w.grab().save(kArtefacts + "/problems.png"));
  }

  // Topology graph and sparsity view show the model: one node per free body plus the ground, one
  // edge per force element; the blocks of A and the fill of the topology solver.
  void closingAfterEditsLeavesNoDanglingViews() {
    // Closing the window after edits: the undo stack's clear() used to rebuild the model into
    // views already deleted (use after free: valgrind names it; this test then crashed in about
    // 1 run of 4, a later one in the same process more often).
    auto* w = new MainWindow;
    w->setQuiet(true);
    w->show();
    QVERIFY(w->openProject(kRoot + "/projects/double_wishbone.json"));
    QVERIFY(QTest::qWaitForWindowExposed(w));
    w->showTab("Plots");
    TableModel* bushings = w->tableModel(Table::Bushings);
    const int col = columnOf(*bushings, "y stiffness [N/m]");
    QVERIFY(col >= 0);
    for (int k = 0; k < 10; ++k) QVERIFY(bushings->setData(bushings->index(1, col), QString::number(500000 + k), Qt::EditRole));
    QSignalSpy rebuilt(w->document()->undoStack(), &QUndoStack::indexChanged);
    delete w;
    QCOMPARE(rebuilt.count(), 1);  // the clear() on destruction happened (and reached no view)
  }

  /// The tuning loop on runs: two runs with a changed bushing are both kept and overlaid with a
  /// legend naming the change; the difference plot is the CSV difference; an edit marks the
  /// results stale until the next run (an undo does not clear it); File > New leaves nothing of
  /// the old project on screen.
  void runsAreKeptComparedAndMarkedStale() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/quarter_double_wishbone.json", {1400, 900}));
    w.showTab("Plots");
    PlotPanel* plots = w.plots();
    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.startRun(0.3);
    QVERIFY(finished.wait(60000));
    QCOMPARE(plots->history()->count(), 1);
    QVERIFY(!plots->history()->isStale());
    QCOMPARE(plots->plot(0)->graphCount(), 1);
    QVERIFY(!plots->plot(0)->legend->visible());

    // Soften the lower front bushing: the run is marked not current, its curve greyed, and the 3D
    // playback says so too. Undo keeps the mark (the shown run is still the old one).
    TableModel* bushings = w.tableModel(Table::Bushings);
    const int col = columnOf(*bushings, "x stiffness [N/m]");
    QVERIFY(col >= 0);
    QVERIFY(bushings->setData(bushings->index(1, col), "300000", Qt::EditRole));
    QVERIFY(plots->history()->isStale());
    QVERIFY(plots->staleLabel()->isVisible());
    QVERIFY2(plots->staleLabel()->text().contains("x stiffness [N/m] 3000000.0 -> 300000.0"),
             qPrintable(plots->staleLabel()->text()));
    // The banners in the display units too (the project file's SI in the run record).
    Units::instance().setSystem(UnitSystem::MmKNDeg);
    QVERIFY2(plots->staleLabel()->text().contains("x stiffness [kN/mm] 3 -> 0.3"), qPrintable(plots->staleLabel()->text()));
    QVERIFY2(w.staleViewLabel()->text().contains("x stiffness [kN/mm] 3 -> 0.3"), qPrintable(w.staleViewLabel()->text()));
    Units::instance().setSystem(UnitSystem::SI);
    QVERIFY(plots->staleLabel()->text().contains("x stiffness [N/m] 3000000.0 -> 300000.0"));
    QVERIFY(w.staleViewLabel()->isVisibleTo(&w) == false);  // on the 3D tab, which is not shown
    QVERIFY(!w.staleViewLabel()->isHidden());
    QCOMPARE(plots->plot(0)->graph(0)->pen().color(), QColor(150, 150, 150));
    QVERIFY(plots->plot(0)->graph(0)->name().endsWith("not current"));
    QVERIFY(w.grab().save(kArtefacts + "/plots_stale.png"));
    w.document()->undoStack()->undo();
    QVERIFY(plots->history()->isStale());
    w.document()->undoStack()->redo();

    w.startRun(0.3);
    QVERIFY(finished.wait(60000));
    QVERIFY(!plots->history()->isStale());
    QVERIFY(w.staleViewLabel()->isHidden());
    QCOMPARE(plots->history()->count(), 2);
    QCustomPlot* p = plots->plot(0);
    QCOMPARE(p->graphCount(), 2);
    QVERIFY(p->legend->visible());
    QStringList legend;
    for (int k = 0; k < p->graphCount(); ++k) legend << p->graph(k)->name();
    qInfo("legend: %s", qPrintable(legend.join(" | ")));
    QVERIFY(legend[0].startsWith("run 1 (LC1, "));
    QVERIFY2(legend[1].startsWith("run 2 (LC1, ") &&
                 legend[1].endsWith("bushings 2 'lower front bushing left': x stiffness [N/m] 3000000.0 -> 300000.0"),
             qPrintable(legend[1]));
    QCOMPARE(plots->runList()->topLevelItemCount(), 2);
    QVERIFY(plots->runList()->topLevelItem(1)->text(5).contains("x stiffness"));
    QVERIFY(w.grab().save(kArtefacts + "/plots_overlay.png"));

    // Difference plot = difference of the two runs' CSV files (same time grid).
    const QString a = kArtefacts + "/run1.csv", b = kArtefacts + "/run2.csv";
    QCOMPARE(plots->history()->exportRunCsv(0, a), QString());
    QCOMPARE(plots->history()->exportRunCsv(1, b), QString());
    auto column = [](const QString& path, const QString& name) {
      QFile f(path);
      f.open(QIODevice::ReadOnly | QIODevice::Text);
      const QStringList head = QString::fromUtf8(f.readLine()).trimmed().split(',');
      const int c = head.indexOf(name);
      std::vector<double> out;
      while (!f.atEnd()) {
        const QStringList cells = QString::fromUtf8(f.readLine()).trimmed().split(',');
        if (c >= 0 && c < cells.size()) out.push_back(cells[c].toDouble());
      }
      return out;
    };
    const QString channel = plots->history()->channels()[plots->selectedChannel(0)];
    const QString header = channel + " [" + plots->history()->units()[plots->selectedChannel(0)] + "]";
    const std::vector<double> va = column(a, header), vb = column(b, header);
    QCOMPARE(va.size(), std::size_t(301));
    QCOMPARE(vb.size(), va.size());
    plots->setDifference(0, true);
    QCOMPARE(p->graphCount(), 1);
    QCOMPARE(p->graph(0)->name().left(17), QString("run 2 (LC1, %1").arg(legend[1].mid(12, 5)).left(17));
    QCOMPARE(p->graph(0)->dataCount(), static_cast<int>(va.size()));
    double err = 0.0, largest = 0.0;
    for (std::size_t i = 0; i < va.size(); ++i) {
      err = std::max(err, std::abs(p->graph(0)->data()->at(static_cast<int>(i))->value - (vb[i] - va[i])));
      largest = std::max(largest, std::abs(vb[i] - va[i]));
    }
    qInfo("%s: runs differ by up to %.4g, difference plot vs CSV difference %.2g", qPrintable(channel), largest, err);
    QVERIFY(largest > 1e-8);  // the equilibrium moved; round-off would be 1e-18
    QVERIFY(err <= 1e-12);
    QVERIFY(p->yAxis->label().startsWith(QString::fromUtf8("Δ ") + channel));
    QVERIFY(w.grab().save(kArtefacts + "/plots_difference.png"));
    plots->setDifference(0, false);
    plots->history()->setShown(0, false);
    QCOMPARE(p->graphCount(), 1);

    // File > New: no run, curve, 3D actor, time or analysis of the old project remains.
    QVERIFY(w.view3d()->actorCount() > 0);
    QAction* fileNew = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text() == "&New") fileNew = a;
    QVERIFY(fileNew);
    fileNew->trigger();
    QCOMPARE(plots->history()->count(), 0);
    QCOMPARE(plots->plot(0)->graphCount(), 0);
    QCOMPARE(plots->runList()->topLevelItemCount(), 0);
    QVERIFY(!plots->history()->isStale());
    QCOMPARE(w.view3d()->actorCount(), 0);
    QVERIFY(!w.timeSlider()->isEnabled());
    QVERIFY(w.analyses()->current() == nullptr);
    QVERIFY(w.findChild<QComboBox*>("loadCase"));
    QCOMPARE(w.findChild<QComboBox*>("loadCase")->count(), 0);  // the toolbar's load cases
    QVERIFY(plots->plot(0)->yAxis->label().isEmpty());
    QVERIFY(w.grab().save(kArtefacts + "/after_new.png"));
  }

  /// Runs saved beside the project are reopened with it: the same samples to the last bit, the
  /// same legends, and marked not current when the file's tables differ from the newest run's. A
  /// damaged results file is reported naming the field, and the project still opens.
  void runsAreSavedBesideTheProjectAndReopened() {
    QTemporaryDir dir;
    const QString project = dir.filePath("corner.json");
    QVERIFY(QFile::copy(kRoot + "/projects/quarter_double_wishbone.json", project));
    MainWindow w;
    QVERIFY(openShown(w, project));
    PlotPanel* plots = w.plots();
    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.startRun(0.2);
    QVERIFY(finished.wait(60000));
    TableModel* bushings = w.tableModel(Table::Bushings);
    const int col = columnOf(*bushings, "x stiffness [N/m]");
    QVERIFY(bushings->setData(bushings->index(1, col), "300000", Qt::EditRole));
    w.startRun(0.2);
    QVERIFY(finished.wait(60000));
    QCOMPARE(plots->history()->count(), 2);
    const std::vector<RunRecord> before = plots->history()->runs();
    QStringList legendBefore;
    for (int k = 0; k < plots->plot(0)->graphCount(); ++k) legendBefore << plots->plot(0)->graph(k)->name();
    QCOMPARE(w.saveResults(), QString());
    const QString results = dir.filePath("corner.results.json");
    QVERIFY(QFileInfo(results).size() > 10000);

    w.document()->undoStack()->setClean();  // do not ask to save the edit
    QVERIFY(w.openProject(project));         // the file still has the stiff bushing
    QCOMPARE(plots->history()->count(), 2);
    for (int r = 0; r < 2; ++r) {
      QCOMPARE(plots->history()->run(r).t, before[r].t);
      QCOMPARE(plots->history()->run(r).v, before[r].v);
      QCOMPARE(plots->history()->run(r).channels, before[r].channels);
      QCOMPARE(plots->history()->run(r).changes, before[r].changes);
      QVERIFY(plots->history()->run(r).project == before[r].project);
    }
    QStringList legendAfter;
    for (int k = 0; k < plots->plot(0)->graphCount(); ++k) legendAfter << plots->plot(0)->graph(k)->name();
    QCOMPARE(legendAfter.size(), 2);
    QCOMPARE(legendAfter[0], legendBefore[0]);
    QVERIFY(legendAfter[1].startsWith(legendBefore[1]));  // and now marked " — not current"
    QVERIFY(plots->history()->isStale());
    QVERIFY2(plots->staleLabel()->text().contains("x stiffness [N/m] 300000.0 -> 3000000.0"), qPrintable(plots->staleLabel()->text()));

    // A damaged file: the message names the field; the project opens without runs.
    QFile f(results);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    f.close();
    text.replace("\"shown\": true", "\"shown\": \"yes\"");
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
    f.close();
    QVERIFY(w.openProject(project));
    QCOMPARE(plots->history()->count(), 0);
    QVERIFY2(w.lastDialogText().contains("corner.results.json, field 'runs[0].shown': expected boolean, found string"),
             qPrintable(w.lastDialogText()));
  }

  /// Display units mm-kN-deg: a table cell, its header and a typed value, a plot's data and axis,
  /// the exported CSV header; the project stays SI, and the shown value typed again is no edit.
  void engineeringUnits() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/quarter_double_wishbone.json"));
    Units::instance().setSystem(UnitSystem::MmKNDeg);
    TableModel* bushings = w.tableModel(Table::Bushings);
    const int col = columnOf(*bushings, "x stiffness [kN/mm]");
    QVERIFY(col >= 0);
    QCOMPARE(bushings->data(bushings->index(1, col), Qt::DisplayRole).toDouble(), 3.0);  // 3e6 N/m
    const int undo = w.document()->undoStack()->count();
    QVERIFY(bushings->setData(bushings->index(1, col), "3", Qt::EditRole));
    QCOMPARE(w.document()->undoStack()->count(), undo);  // the same value: no edit
    QVERIFY(bushings->setData(bushings->index(1, col), "1.5", Qt::EditRole));
    QCOMPARE(w.document()->project().bushings[1].directions[0].stiffness.coefficient, 1.5e6);  // SI inside
    w.document()->undoStack()->undo();
    const int rz = columnOf(*bushings, "rz stiffness [N m/deg]");
    QVERIFY(rz >= 0);
    QCOMPARE(bushings->data(bushings->index(1, rz), Qt::DisplayRole).toDouble(), 2500.0 * M_PI / 180.0);

    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.startRun(0.2);
    QVERIFY(finished.wait(60000));
    PlotPanel* plots = w.plots();
    const int x = plots->history()->channels().indexOf("wheel centre x left");
    plots->selectChannel(0, x);
    QCOMPARE(plots->plot(0)->yAxis->label(), QString("wheel centre x left [mm]"));
    QCOMPARE(plots->plot(0)->graph(0)->data()->at(10)->value, plots->history()->values()[x][10] * 1e3);
    const QString csv = kArtefacts + "/units.csv";
    QCOMPARE(plots->history()->exportCsv(csv), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString header = QString::fromUtf8(f.readLine());
    QVERIFY2(header.contains("wheel centre x left [mm]") && header.contains("lower rear bushing fx left [kN]"), qPrintable(header));
    const QStringList first = QString::fromUtf8(f.readLine()).trimmed().split(',');
    QCOMPARE(first[1 + x].toDouble(), plots->history()->values()[x][0] * 1e3);
    w.showTab("Plots");
    QVERIFY(w.grab().save(kArtefacts + "/units_mm_kN_deg.png"));
    Units::instance().setSystem(UnitSystem::SI);
    QCOMPARE(plots->plot(0)->yAxis->label(), QString("wheel centre x left [m]"));
  }

  /// The toolbar's method: ROS34PW2 with lin-every 5 by default; LSRT2, then ROS34PW2 over LC1's
  /// braking step. The run list names each
  /// run's method and the change between them, the legend says it, the status bar shows the
  /// order-3 method's (smaller) error estimate, and the two runs agree to a fraction of a percent.
  void integratorChosenInTheToolbar() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/quarter_double_wishbone.json", {1400, 1000}));
    w.showTab("Plots");
    PlotPanel* plots = w.plots();
    auto* method = w.findChild<QComboBox*>("integrator");
    QVERIFY(method);
    // The default is the recommendation of docs/integrators.md: ROS34PW2, linearized every 5th step.
    QCOMPARE(method->currentData().toString(), QString("ros34pw2"));
    auto* linEvery = w.findChild<QSpinBox*>("linEvery");
    QVERIFY(linEvery);
    QCOMPARE(linEvery->value(), 5);
    // The error estimate as a channel: an output row of quantity "error estimate" (no element).
    TableModel* outputs = w.tableModel(Table::Outputs);
    QVERIFY(outputs->addRow());
    const int last = outputs->rowCount() - 1;
    QVERIFY(outputs->setData(outputs->index(last, columnOf(*outputs, "name")), "error position", Qt::EditRole));
    const int measure = columnOf(*outputs, "quantity and component");
    QVERIFY(outputs->choices(measure).contains("error estimate angular velocity"));
    QVERIFY(outputs->setData(outputs->index(last, measure), "error estimate position", Qt::EditRole));
    QCOMPARE(outputs->data(outputs->index(last, columnOf(*outputs, "element")), Qt::DisplayRole).toString(), QString());
    QCOMPARE(w.problems()->errorCount(), 0);
    QSignalSpy finished(&w, &MainWindow::runFinished);
    const QRegularExpression est("largest ([0-9.e+-]+) m at t = ([0-9.]+) s");
    double largest[2];
    for (int k = 0; k < 2; ++k) {
      method->setCurrentIndex(method->findData(k == 0 ? "lsrt2" : "ros34pw2"));
      QCOMPARE(linEvery->value(), k == 0 ? 1 : 5);  // each method's interval
      w.startRun(5.2);
      QVERIFY(finished.wait(120000));
      const QRegularExpressionMatch m = est.match(w.lastErrorEstimate());
      QVERIFY2(m.hasMatch(), qPrintable(w.lastErrorEstimate()));
      largest[k] = m.captured(1).toDouble();
      QVERIFY(m.captured(2).toDouble() >= 5.0 && m.captured(2).toDouble() <= 5.1);
    }
    qInfo("largest error estimates: LSRT2 %.3g m, ROS34PW2 %.3g m", largest[0], largest[1]);
    QVERIFY(largest[1] < 0.5 * largest[0]);
    for (int k = 0; k < 2; ++k) {  // the channel's largest sample is the status bar's largest
      const RunRecord& run = plots->history()->run(k);
      const int e = run.channel("error position");
      QVERIFY(e >= 0);
      const double top = *std::max_element(run.v[e].begin(), run.v[e].end());
      QCOMPARE(QString::number(top, 'g', 2), QString::number(largest[k], 'g', 2));  // as the status bar rounds
    }
    QTreeWidget* list = plots->runList();
    QCOMPARE(list->topLevelItemCount(), 2);
    QCOMPARE(list->topLevelItem(0)->text(2), QString("lsrt2, dt 1 ms"));
    QCOMPARE(list->topLevelItem(1)->text(2), QString("ros34pw2, dt 1 ms, lin-every 5"));
    QCOMPARE(list->topLevelItem(1)->text(5), QString::fromUtf8("method: lsrt2, dt 1 ms \u2192 ros34pw2, dt 1 ms, lin-every 5"));
    QCustomPlot* p = plots->plot(0);
    QCOMPARE(p->graphCount(), 2);
    QVERIFY2(p->graph(1)->name().contains(QString::fromUtf8("method: lsrt2, dt 1 ms \u2192 ros34pw2, dt 1 ms, lin-every 5")),
             qPrintable(p->graph(1)->name()));
    // The same channel from both runs: close (both methods converge), not identical.
    const RunRecord& a = plots->history()->run(0);
    const RunRecord& b = plots->history()->run(1);
    const int c = a.channel("wheel centre x left");
    QVERIFY(c >= 0 && a.t.size() == b.t.size());
    double diff = 0.0, lo = a.v[c][0], hi = lo;
    for (std::size_t i = 0; i < a.t.size(); ++i) {
      diff = std::max(diff, std::abs(a.v[c][i] - b.v[c][i]));
      lo = std::min(lo, a.v[c][i]);
      hi = std::max(hi, a.v[c][i]);
    }
    qInfo("largest difference %.3g m of a range of %.3g m", diff, hi - lo);
    QVERIFY(diff > 0.0 && diff < 0.01 * (hi - lo));
    plots->selectChannel(1, plots->history()->channels().indexOf("error position"));
    QCOMPARE(plots->plot(1)->graphCount(), 2);
    settle();
    QVERIFY(w.grab().save(kArtefacts + "/integrator_toolbar.png"));
    // A method without an estimate names the output instead of running.
    method->setCurrentIndex(method->findData("bdf2"));
    w.startRun(5.2);
    QVERIFY(finished.wait(120000));
    QVERIFY2(w.lastRunMessage().contains("output 'error position' is the local error estimate"),
             qPrintable(w.lastRunMessage()));
    QCOMPARE(plots->runList()->topLevelItemCount(), 2);
    QVERIFY2(!plots->runList()->topLevelItem(1)->text(0).contains("stopped"),  // the last run stays as it was
             qPrintable(plots->runList()->topLevelItem(1)->text(0)));
    // A warning threshold between the two methods' largest estimates: LSRT2 crosses it at the
    // braking step, in red in the status bar; ROS34PW2 does not.
    auto* warn = w.findChild<QDoubleSpinBox*>("warnError");
    QVERIFY(warn);
    QCOMPARE(warn->text(), QString("off"));
    warn->setValue(1e6 * std::sqrt(largest[0] * largest[1]));
    auto* label = w.findChild<QLabel*>("errorEstimate");
    QVERIFY(label);
    for (int k = 0; k < 2; ++k) {
      method->setCurrentIndex(method->findData(k == 0 ? "lsrt2" : "ros34pw2"));
      w.startRun(5.2);
      QVERIFY(finished.wait(120000));
      const QRegularExpression above("above the warning threshold ([0-9.e+-]+) m from t = ([0-9.]+) s");
      // The label shows as much as fits (elided, it never widens the window), the tooltip all.
      const QRegularExpressionMatch m = above.match(label->toolTip());
      QCOMPARE(m.hasMatch(), k == 0);
      QVERIFY(label->toolTip().startsWith(label->text().chopped(label->text().endsWith(QChar(0x2026)) ? 1 : 0)));
      QCOMPARE(label->styleSheet().contains("color"), k == 0);
      if (k == 0) {
        QCOMPARE(m.captured(1).toDouble(), QString::number(1e-6 * warn->value(), 'g', 2).toDouble());
        QVERIFY(m.captured(2).toDouble() >= 5.0 && m.captured(2).toDouble() <= 5.1);
        settle();
        QVERIFY(w.grab().save(kArtefacts + "/error_warning.png"));
      }
    }
  }

  /// Plots: another plot is added, made an X-Y plot (a bushing force against the wheel centre's
  /// x displacement through LC1's braking step), zoomed and reset, and removed again.
  void xyPlotsAddedAndRemoved() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/quarter_double_wishbone.json", {1400, 1000}));
    w.showTab("Plots");
    PlotPanel* plots = w.plots();
    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.startRun(5.5);  // the braking step at 5 s
    QVERIFY(finished.wait(120000));
    // The integrator's error estimate reaches the status bar; its largest value is at the step.
    const QRegularExpression est("error estimate RMS ([0-9.e+-]+) m, largest ([0-9.e+-]+) m at t = ([0-9.]+) s");
    const QRegularExpressionMatch em = est.match(w.lastErrorEstimate());
    QVERIFY2(em.hasMatch(), qPrintable(w.lastErrorEstimate()));
    QVERIFY2(w.statusBar()->currentMessage().contains(w.lastErrorEstimate()), qPrintable(w.statusBar()->currentMessage()));
    qInfo("status bar: %s", qPrintable(w.statusBar()->currentMessage()));
    settle();
    QVERIFY(w.grab().save(kArtefacts + "/error_estimate_status.png"));
    QVERIFY(em.captured(3).toDouble() >= 5.0 && em.captured(3).toDouble() <= 5.1);
    QVERIFY(em.captured(2).toDouble() > 1e-7 && em.captured(2).toDouble() < 1e-3);
    QVERIFY(em.captured(1).toDouble() < em.captured(2).toDouble());
    QCOMPARE(plots->plotCount(), 2);
    plots->addPlot();
    QCOMPARE(plots->plotCount(), 3);
    const QStringList ch = plots->history()->channels();
    const int fx = ch.indexOf("lower rear bushing fx left"), x = ch.indexOf("wheel centre x left");
    QVERIFY(fx >= 0 && x >= 0);
    plots->selectChannel(2, fx);
    plots->setXChannel(2, x);
    QCustomPlot* p = plots->plot(2);
    QCOMPARE(p->plottableCount(), 1);
    auto* curve = qobject_cast<QCPCurve*>(p->plottable(0));
    QVERIFY(curve);
    QCOMPARE(curve->dataCount(), 5501);
    // The curve's points are (x channel, y channel) of each sample.
    const auto& v = plots->history()->values();
    double err = 0.0;
    for (int i = 0; i < curve->dataCount(); i += 50) {
      const auto d = curve->data()->at(i);
      const auto sample = static_cast<std::size_t>(d->t);  // the curve's parameter: the sample index
      err = std::max({err, std::abs(d->key - v[x][sample]), std::abs(d->value - v[fx][sample])});
    }
    QCOMPARE(err, 0.0);
    QCOMPARE(p->xAxis->label(), QString("wheel centre x left [m]"));
    QCOMPARE(p->yAxis->label(), QString("lower rear bushing fx left [N]"));
    // Zoomed in, then reset: the whole curve is in view again.
    p->xAxis->setRange(0, 1e-9);
    plots->resetZoom(2);
    bool found = false;
    const QCPRange keys = curve->getKeyRange(found);
    QVERIFY(found && p->xAxis->range().contains(keys.lower) && p->xAxis->range().contains(keys.upper));
    QVERIFY(w.grab().save(kArtefacts + "/plots_xy.png"));
    plots->removePlot(2);
    QTRY_COMPARE(plots->plotCount(), 2);
    plots->removePlot(0);
    plots->removePlot(0);  // the last plot stays
    QCOMPARE(plots->plotCount(), 1);
  }

  /// The 3D view after a run: poses at 100 per simulated second, played back with the time
  /// shown; the exaggeration scales from the initial equilibrium (at its first pose the view is
  /// the same at 1x and 50x); presets frame everything also in a tall, narrow viewport; the
  /// screenshot is opaque.
  void view3dPlaybackExaggerationAndScreenshot() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/quarter_double_wishbone.json", {1400, 900}));
    w.showTab("3D");
    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.startRun(0.5);
    QVERIFY(finished.wait(60000));
    QCOMPARE(static_cast<int>(w.frames().size()), 51);  // t = 0, 0.01, ..., 0.5
    QCOMPARE(w.timeSlider()->maximum(), 50);
    QCOMPARE(w.timeLabel()->text(), QString("t = 0.500 s"));
    w.timeSlider()->setValue(49);
    QCOMPARE(w.timeLabel()->text(), QString("t = 0.490 s"));

    // Playback from the start: the slider moves on, then stops at the end.
    w.timeSlider()->setValue(w.timeSlider()->maximum());
    w.playButton()->click();
    QCOMPARE(w.playButton()->text(), QString("Pause"));
    QTRY_VERIFY_WITH_TIMEOUT(w.timeSlider()->value() > 0, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(w.playButton()->text(), QString("Play"), 10000);
    QCOMPARE(w.timeSlider()->value(), 50);

    // At the initial equilibrium the exaggeration changes nothing (it scales the motion from there,
    // not the static sag from the design pose).
    w.timeSlider()->setValue(0);
    settle();
    const QImage at1 = w.view3d()->grab3D();
    auto* exaggeration = w.findChild<QDoubleSpinBox*>("exaggeration");
    QVERIFY(exaggeration && exaggeration->suffix() == " x");
    exaggeration->setValue(50);
    settle();
    const QImage at50 = w.view3d()->grab3D();
    QCOMPARE(at1.size(), at50.size());
    int differ = 0;
    for (int y = 0; y < at1.height(); ++y)
      for (int x = 0; x < at1.width(); ++x) differ += at1.pixel(x, y) != at50.pixel(x, y);
    qInfo("pixels differing between 1x and 50x at the initial equilibrium: %d of %d", differ, at1.width() * at1.height());
    QCOMPARE(differ, 0);
    exaggeration->setValue(1);

    // The screenshot has no transparent pixel (the tyre and the P2P elements are translucent).
    const QString shot = kArtefacts + "/view3d_opaque.png";
    QVERIFY(w.view3d()->grab3D().save(shot));
    const QImage saved(shot);
    int transparent = 0;
    for (int y = 0; y < saved.height(); ++y)
      for (int x = 0; x < saved.width(); ++x) transparent += qAlpha(saved.pixel(x, y)) != 255;
    QCOMPARE(transparent, 0);
    // ... and equals the screen: the X server's pixels of the 3D view (the dark translucent tyre
    // stays dark; it came out white when the alpha was un-premultiplied).
    {
      // The part of the view on the screen (the window may be larger than Xvfb's screen).
      QWidget* vtk = w.view3d()->vtkWidget();
      const QPoint at = vtk->mapToGlobal(QPoint(0, 0));
      const QRect visible = QRect(at, vtk->size()) & QGuiApplication::primaryScreen()->geometry();
      QVERIFY(visible.width() * visible.height() > vtk->width() * vtk->height() / 2);
      const QImage screen = QGuiApplication::primaryScreen()
                                ->grabWindow(0, visible.x(), visible.y(), visible.width(), visible.height())
                                .toImage()
                                .convertToFormat(QImage::Format_RGB32);
      const QImage mine = w.view3d()->grab3D().scaled(vtk->size()).copy(QRect(visible.topLeft() - at, visible.size()));
      QCOMPARE(mine.size(), screen.size());
      long long sum = 0;
      int dark = 0, darkOnScreen = 0;
      for (int y = 0; y < mine.height(); ++y)
        for (int x = 0; x < mine.width(); ++x) {
          const QColor a = mine.pixelColor(x, y), b = screen.pixelColor(x, y);
          sum += std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
          dark += a.value() < 70;
          darkOnScreen += b.value() < 70;
        }
      const double mean = static_cast<double>(sum) / (3.0 * mine.width() * mine.height());
      qInfo("screenshot against the screen: mean difference %.2f of 255, dark pixels %d / %d", mean, dark, darkOnScreen);
      QVERIFY(mean < 3.0);
      QVERIFY(darkOnScreen > 1000);  // the tyre
      QVERIFY(std::abs(dark - darkOnScreen) < 0.05 * darkOnScreen);
    }

    // A tall, narrow viewport: every preset keeps the whole suspension in view.
    w.view3d()->setMaximumWidth(360);
    settle();
    QTRY_VERIFY(w.view3d()->height() > 1.5 * w.view3d()->width());
    for (auto preset : {View3D::Preset::Front, View3D::Preset::Side, View3D::Preset::Top, View3D::Preset::Iso}) {
      w.view3d()->setView(preset);
      QVERIFY(w.view3d()->everythingInView());
    }
    w.view3d()->setGhost(true);
    w.view3d()->fitAll();
    QVERIFY(w.view3d()->everythingInView());
    settle();
    QVERIFY(w.grab().save(kArtefacts + "/view3d_narrow.png"));
  }

  // The Manoeuvres tab on the shipped vehicle on tyres: a step steer run from the tab shows the
  // engine's metrics and its time series; a kept run becomes a column and a dashed overlay named
  // by what changed; a parameter typed with a comma is refused and the last value kept.
  void manoeuvresTabRunsKeepsAndCompares() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/full_vehicle_tyres.json", {1500, 950}));
    w.showTab("Manoeuvres");
    ManoeuvresPanel* m = w.manoeuvres();
    QSignalSpy done(m, &ManoeuvresPanel::finished);
    m->setManoeuvre("step-steer");
    QVERIFY(m->setParameter("speed", 20.0));
    QVERIFY(m->setParameter("angle", 15.0));
    QVERIFY(m->setParameter("hold", 1.5));
    m->run();
    QVERIFY(m->isRunning());
    QVERIFY(done.wait(300000));
    QVERIFY2(done.last().first().toBool(), qPrintable(done.last().at(1).toString()));
    const ek::ManoeuvreResult expected = ek::runManoeuvre(ek::readProject((kRoot + "/projects/full_vehicle_tyres.json").toStdString()),
                                                  "step-steer", {{"speed", 20.0}, {"angle", 15.0}, {"hold", 1.5}});
    QTableWidget* t = m->metrics();
    QCOMPARE(t->rowCount(), static_cast<int>(expected.metrics.size()));
    for (int r = 0; r < t->rowCount(); ++r) {
      QCOMPARE(t->item(r, 0)->text().toStdString(), expected.metrics[r].name);
      QCOMPARE(t->item(r, 1)->text(), QString::number(expected.metrics[r].value, 'g', 5));
    }
    QCustomPlot* plot = m->plot();
    QCOMPARE(plot->graphCount(), 2);  // yaw rate and lateral acceleration over time
    QCOMPARE(plot->graph(0)->dataCount(), static_cast<int>(expected.series.size()));
    QCOMPARE(plot->graph(0)->data()->at(plot->graph(0)->dataCount() - 1)->value, expected.series.back()[ek::kmYawRate]);
    QCOMPARE(plot->graph(0)->name(), QString("yaw rate"));
    // Keep it, run with 20 deg: the kept run's values in a column, its yaw rate dashed.
    QVERIFY(m->keepCurrent());
    QVERIFY(m->setParameter("angle", 20.0));
    m->run();
    QVERIFY(done.wait(300000));
    QVERIFY(done.last().first().toBool());
    QCOMPARE(t->columnCount(), 6);  // metric, value, unit, limit, target, the kept run
    QVERIFY2(t->horizontalHeaderItem(5)->text().contains("angle 15"), qPrintable(t->horizontalHeaderItem(5)->text()));
    QCOMPARE(t->item(0, 5)->text(), QString::number(15.0, 'g', 5));  // the kept run's steering-wheel angle
    QCOMPARE(t->item(0, 1)->text(), QString::number(20.0, 'g', 5));
    QCOMPARE(plot->graphCount(), 3);
    QCOMPARE(plot->graph(2)->pen().style(), Qt::DashLine);
    // A comma is refused: the value stays and the status says why.
    QTableWidget* p = m->parameters();
    int row = -1;
    for (int r = 0; r < p->rowCount(); ++r)
      if (p->item(r, 0)->text() == "angle") row = r;
    QVERIFY(row >= 0);
    p->item(row, 1)->setText("2,5");
    QCOMPARE(p->item(row, 1)->text(), QString("20"));
    QVERIFY(!m->status()->text().isEmpty());
    // The double lane change draws its lanes (one legend entry for all six boundaries), the
    // reference path and the centre of mass in the track's frame, as the engine gives them.
    m->setManoeuvre("double-lane-change");
    QVERIFY(m->setParameter("speed", 13.0));
    QVERIFY(m->setParameter("settle", 0.5));
    QVERIFY(m->setParameter("steering gain", 50.0));
    m->run();
    QVERIFY(done.wait(300000));
    QVERIFY2(done.last().first().toBool(), qPrintable(done.last().at(1).toString()));
    const ek::ManoeuvreResult lane = ek::runManoeuvre(ek::readProject((kRoot + "/projects/full_vehicle_tyres.json").toStdString()),
                                                      "double-lane-change", {{"speed", 13.0}, {"settle", 0.5}, {"steering gain", 50.0}});
    QCOMPARE(plot->graphCount(), 8);
    QCOMPARE(plot->graph(0)->name(), QString("cones"));
    QCOMPARE(plot->graph(2)->data()->at(0)->key, lane.lanes[1][0]);   // lane 3's right boundary
    QCOMPARE(plot->graph(2)->data()->at(1)->value, lane.lanes[1][2]);
    QCOMPARE(plot->graph(7)->name(), QString("centre of mass"));
    QCOMPARE(plot->graph(7)->dataCount(), static_cast<int>(lane.trackPath.size()));
    QCOMPARE(plot->graph(7)->data()->at(plot->graph(7)->dataCount() - 1)->value, lane.trackPath.back()[1]);
    QCOMPARE(plot->legend->itemCount(), 3);  // cones, reference path, centre of mass
    // the lowest boundary lies inside the axis, not on its edge
    QVERIFY(plot->yAxis->range().lower < lane.lanes[0][2] - 0.1);
    QCOMPARE(t->item(2, 0)->text(), QString("cone lines crossed"));
    // Targets from the project's table: judged in the target column, red where missed.
    ek::Project withTargets = w.document()->project();
    ek::TargetRow clearance;
    clearance.id = 41;
    clearance.manoeuvre = "double-lane-change";
    clearance.metric = "smallest clearance";
    clearance.lower = 1.0;  // no car keeps a metre to every cone
    ek::TargetRow entry = clearance;
    entry.id = 42;
    entry.metric = "entry speed";
    entry.lower = 12.0;
    entry.upper = 14.0;
    withTargets.targets = {clearance, entry};
    replaceProject(w.document(), withTargets, "targets");
    m->run();
    QVERIFY(done.wait(300000));
    QVERIFY2(done.last().first().toBool(), qPrintable(done.last().at(1).toString()));
    QCOMPARE(t->horizontalHeaderItem(4)->text(), QString("target"));
    QCOMPARE(t->item(3, 0)->text(), QString("smallest clearance"));
    QCOMPARE(t->item(3, 4)->text(), QString("MISSED (at least 1 m)"));
    QCOMPARE(t->item(3, 4)->foreground().color(), QColor(190, 30, 30));
    QCOMPARE(t->item(0, 4)->text(), QString("met ([12, 14] m/s)"));
    QVERIFY(t->item(1, 4)->text().isEmpty());  // exit speed: no target
    // A run the engine refuses: the panel says why, reports failure and keeps the last result.
    const int rows = t->rowCount();
    m->setManoeuvre("double-lane-change-limit");
    QVERIFY(m->setParameter("speed", 20.0));
    QVERIFY(m->setParameter("speed max", 15.0));
    m->run();
    QVERIFY(done.wait(300000));
    QVERIFY(!done.last().first().toBool());
    QVERIFY2(m->status()->text().startsWith("Stopped: ") && m->status()->text().contains("'speed max' at least 'speed'"),
             qPrintable(m->status()->text()));
    QVERIFY(!m->isRunning());
    QCOMPARE(t->rowCount(), rows);
    settle();
  }

  // A run the engine refuses (K&C on a vehicle standing on Magic Formula tyres): the status says
  // it stopped and a wrapped banner under it shows the engine's whole reason, inside the window,
  // until the next run starts.
  void analysesTabShowsWhyARunStopped() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/full_vehicle_tyres.json", {1400, 900}));
    w.showTab("Analyses");
    AnalysesPanel* a = w.analyses();
    QSignalSpy done(a, &AnalysesPanel::finished);
    a->setAnalysis("parallel-travel");
    QVERIFY(!a->failureLabel()->isVisible());
    a->run();
    QVERIFY(done.wait(60000));
    QVERIFY(!done.last().first().toBool());
    settle();
    QLabel* failure = a->failureLabel();
    const QString reason = done.last().at(1).toString();
    qInfo("status '%s'; banner %dx%d: %s", qPrintable(a->statusLabel()->text()), failure->width(), failure->height(),
          qPrintable(failure->text()));
    QCOMPARE(a->statusLabel()->text(), QString("Stopped."));
    QVERIFY(failure->isVisible());
    QCOMPARE(failure->text(), reason);
    QVERIFY2(reason.contains("stands on a Magic Formula tyre") && reason.contains("whose vehicle body is fixed"),
             qPrintable(reason));
    // Wrapped within the panel: the whole text fits the banner's lines at its width.
    QVERIFY(failure->wordWrap());
    QVERIFY(failure->mapTo(a, QPoint(failure->width(), 0)).x() <= a->width());
    QVERIFY2(failure->heightForWidth(failure->width()) <= failure->height() + 1,
             qPrintable(QString("needs %1 px, has %2").arg(failure->heightForWidth(failure->width())).arg(failure->height())));
    // The next run takes the banner away.
    a->run();
    QVERIFY(!failure->isVisible());
    QVERIFY(done.wait(60000));
    QVERIFY(failure->isVisible());
  }

  void analysesTabSweepsKeepsComparesAndReports() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/double_wishbone.json", {1500, 950}));
    w.showTab("Analyses");
    AnalysesPanel* a = w.analyses();
    QSignalSpy done(a, &AnalysesPanel::finished);

    // Parallel travel -80..80 mm, 161 points, on the worker thread.
    a->setAnalysis("parallel-travel");
    a->run();
    QVERIFY(a->isRunning());
    QVERIFY(done.wait(300000));
    QVERIFY2(done.last().first().toBool(), qPrintable(done.last().at(1).toString()));
    QCustomPlot* toe = a->plot(0);
    QCOMPARE(toe->graphCount(), 2);  // left and right wheel
    QCOMPARE(toe->graph(0)->dataCount(), 161);
    QCOMPARE(toe->graph(0)->data()->at(0)->key, -80.0);
    QCOMPARE(a->visiblePlots(), 6);
    // The metrics table shows bump steer of both wheels (deg/m) as the runner prints it.
    QStringList metrics;
    for (int r = 0; r < a->table()->rowCount(); ++r) metrics << a->table()->item(r, 0)->text();
    QVERIFY(metrics.contains("bump steer (wheel left)"));
    QVERIFY(metrics.contains("wheel rate (wheel right)"));
    QVERIFY(!a->staleLabel()->isVisible());
    // The 3D view draws the instant centres and the roll centre at the design position; the roll
    // centre's height above the contact points and its y are the metrics'.
    {
      const auto& marks = w.view3d()->marks();
      qInfo("3D marks: %d", static_cast<int>(marks.size()));
      QVERIFY(marks.size() >= 1 && marks.back().label == "roll centre");
      double height = std::nan(""), lateral = std::nan("");
      for (const auto& m : a->current()->kc.metrics) {
        if (m.name == "roll centre height (above the contact points)") height = m.value;
        if (m.name == "roll centre lateral position (y)") lateral = m.value;
      }
      const auto& kc = a->current()->kc;
      std::size_t design = 0;
      for (std::size_t i = 0; i < kc.sweep.size(); ++i)
        if (std::abs(kc.sweep[i]) < std::abs(kc.sweep[design])) design = i;
      const double ground = 0.5 * (kc.values[design][kc.column("wheel left contact z")] +
                                   kc.values[design][kc.column("wheel right contact z")]);
      qInfo("roll centre drawn at y %.4f mm, %.4f mm above the contact points (metrics %.4f, %.4f)",
            1e3 * marks.back().at.y(), 1e3 * (marks.back().at.z() - ground), lateral, height);
      QVERIFY(std::abs(1e3 * (marks.back().at.z() - ground) - height) < 1e-3);
      QVERIFY(std::abs(1e3 * marks.back().at.y() - lateral) < 1e-3);
      int instant = 0;
      for (const auto& m : marks) instant += m.label.startsWith("IC ");
      QVERIFY(instant >= 2);
      w.showTab("3D");
      settle();
      QVERIFY(w.grab().save(kArtefacts + "/view3d_centres.png"));
      w.showTab("Analyses");
    }

    // Keep it, soften a bushing in the table: the result is marked as not current.
    QVERIFY(a->keepCurrent());
    TableModel* bushings = w.tableModel(Table::Bushings);
    const int col = columnOf(*bushings, "y stiffness [N/m]");
    QVERIFY(col >= 0);
    QVERIFY(bushings->setData(bushings->index(1, col), "500000", Qt::EditRole));
    QVERIFY(a->staleLabel()->isVisible());
    QVERIFY2(a->staleLabel()->text().contains("y stiffness [N/m] 2000000.0 -> 500000.0"), qPrintable(a->staleLabel()->text()));
    Units::instance().setSystem(UnitSystem::MmNDeg);
    QVERIFY2(a->staleLabel()->text().contains("y stiffness [N/mm] 2000 -> 500"), qPrintable(a->staleLabel()->text()));
    Units::instance().setSystem(UnitSystem::SI);

    // Run again: kept and current overlay, the legend names what changed.
    a->run();
    QVERIFY(done.wait(300000));
    QVERIFY(done.last().first().toBool());
    QVERIFY(!a->staleLabel()->isVisible());
    QCOMPARE(toe->graphCount(), 4);
    QStringList legend;
    for (int k = 0; k < toe->legend->itemCount(); ++k)
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(toe->legend->item(k))) legend << item->plottable()->name();
    qInfo("toe plot legend: %s", qPrintable(legend.join(" | ")));
    QVERIFY(legend.contains("current, wheel left"));
    // The legend names the change (cut to a plot's width; the table's reference column and the
    // report's title page give it whole).
    const QString kept1 = "kept 1: before bushings 2 'upper wishbone front left': y stiffness [N/m] 2000000.0 -> 500000.0";
    QVERIFY2(legend.filter(kept1.left(63) + QChar(0x2026)).size() == 2,
             qPrintable(legend.join(" | ")));
    // The two curves differ (the softer bushing changes the toe curve) but only slightly.
    double diff = 0.0;
    for (int i = 0; i < 161; ++i)
      diff = std::max(diff, std::abs(toe->graph(0)->data()->at(i)->value - toe->graph(2)->data()->at(i)->value));
    qInfo("largest toe difference between the variants: %.4f deg", diff);
    QVERIFY(diff > 1e-4);
    // Difference plots: current minus the reference, per wheel, equal to the curves' difference.
    a->setDifference(true);
    QCOMPARE(toe->graphCount(), 2);
    double largest = 0.0;
    for (int i = 0; i < 161; ++i) largest = std::max(largest, std::abs(toe->graph(0)->data()->at(i)->value));
    QVERIFY2(std::abs(largest - diff) < 1e-12, qPrintable(QString("%1 vs %2").arg(largest).arg(diff)));  // the same sweep points
    QVERIFY(toe->graph(0)->name().startsWith("current − kept 1"));
    QVERIFY(toe->legend->visible());
    // The legend sits outside the axes: its rectangle does not overlap the plot area.
    toe->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY2(!toe->legend->outerRect().intersects(toe->axisRect()->outerRect()),
             qPrintable(QString("legend %1,%2 %3x%4, axes %5,%6 %7x%8")
                            .arg(toe->legend->outerRect().x()).arg(toe->legend->outerRect().y())
                            .arg(toe->legend->outerRect().width()).arg(toe->legend->outerRect().height())
                            .arg(toe->axisRect()->outerRect().x()).arg(toe->axisRect()->outerRect().y())
                            .arg(toe->axisRect()->outerRect().width()).arg(toe->axisRect()->outerRect().height())));
    a->setDifference(false);
    QCOMPARE(toe->graphCount(), 4);
    // metric, current, unit, the project's targets' verdict (coloured) and range, then kept 1 as
    // the reference with the difference in the unit and in percent.
    QCOMPARE(a->table()->columnCount(), 8);
    QCOMPARE(a->table()->horizontalHeaderItem(3)->text(), QString("met"));
    QCOMPARE(a->table()->horizontalHeaderItem(4)->text(), QString("target"));
    QCOMPARE(a->table()->horizontalHeaderItem(5)->text(), QString("reference: kept 1"));
    QCOMPARE(a->table()->horizontalHeaderItem(6)->text(), QString("Δ"));
    QCOMPARE(a->table()->horizontalHeaderItem(7)->text(), QString("Δ %"));
    int deltas = 0;
    for (int r = 0; r < a->table()->rowCount(); ++r) {
      if (a->table()->item(r, 1)->text() == "-") continue;  // a target without its metric
      // Δ = current - reference and Δ % = 100 Δ / |reference|, to the digits shown.
      const double cur = QLocale::c().toDouble(a->table()->item(r, 1)->text());
      const double ref = QLocale::c().toDouble(a->table()->item(r, 5)->text());
      const double delta = QLocale::c().toDouble(a->table()->item(r, 6)->text());
      QVERIFY2(std::abs(delta - (cur - ref)) <= 1e-3 * std::max({std::abs(cur), std::abs(ref), 1e-12}) + 1e-4 * std::abs(delta),
               qPrintable(a->table()->item(r, 0)->text()));
      if (ref != 0.0 && std::abs(delta) > 1e-9) {
        const double percent = QLocale::c().toDouble(a->table()->item(r, 7)->text());
        QVERIFY2(std::abs(percent - 100.0 * delta / std::abs(ref)) <= 0.01 + 1e-3 * std::abs(percent),
                 qPrintable(a->table()->item(r, 0)->text()));
      }
      deltas += std::abs(delta) > 0.0;
    }
    qInfo("%d metrics changed against the reference", deltas);
    QVERIFY(deltas > 3);  // the softer bushing moves several metrics
    int missed = 0, met = 0;
    QStringList metNames;
    for (int r = 0; r < a->table()->rowCount(); ++r) {
      const QString metric = a->table()->item(r, 0)->text(), verdict = a->table()->item(r, 3)->text();
      if (metric == "bump steer (wheel left)") {
        QCOMPARE(a->table()->item(r, 4)->text(), QString("[-15, 15] deg/m"));
        QCOMPARE(verdict, QString("MISSED"));
        QCOMPARE(a->table()->item(r, 3)->background().color(), QColor(255, 199, 206));
      }
      if (metric == "wheel rate (wheel left)") QCOMPARE(verdict, QString("met"));
      missed += verdict == "MISSED";
      met += verdict == "met";
      if (verdict == "met") metNames << metric;
    }
    qInfo("targets in the metrics table: %d met (%s), %d missed", met, qPrintable(metNames.join(", ")), missed);
    QCOMPARE(met + missed, 11);
    // The softer front bushing of the left upper wishbone turns the left wheel toe-in under
    // braking: that target is met on the left only.
    QCOMPARE(met, 4);
    QVERIFY(metNames.contains("toe compliance, braking (-Fx at contact) (wheel left)"));
    QVERIFY(w.grab().save(kArtefacts + "/analyses.png"));

    // Measured data over the sweep: the rig file's toe points drawn as markers on the toe plot
    // (absolute toe, as its curves), and the correlation under the buttons.
    {
      const QString rig = kRoot + "/tests/data/kc_rig/macpherson_parallel_travel.csv";
      QVERIFY(a->loadMeasured(rig).contains("no column maps to a channel of the sweep"));  // rig names
      QCOMPARE(a->loadMeasured(rig, {{"Toe LF", "wheel left toe"}, {"Camber LF", "wheel left camber"}}), QString());
      QCPGraph* measured = nullptr;
      for (int k = 0; k < toe->graphCount(); ++k)
        if (toe->graph(k)->name() == "measured, wheel left") measured = toe->graph(k);
      QVERIFY(measured);
      QCOMPARE(measured->data()->size(), 17);
      QCOMPARE(measured->lineStyle(), QCPGraph::lsNone);
      QVERIFY(std::abs(measured->data()->at(0)->key - (-80.0)) < 1e-9);
      QVERIFY(std::abs(measured->data()->at(0)->value - 0.16165) < 1e-9);  // the file's first toe [deg]
      QVERIFY(a->measuredLabel()->isVisible());
      qInfo("%s", qPrintable(a->measuredLabel()->text()));
      // Signed statistics: the mean offset, RMS and the largest deviation with its sign.
      QVERIFY(a->measuredLabel()->text().contains(QRegularExpression("wheel left toe: mean -?[0-9.e-]+ deg, RMS [0-9.e-]+ deg, largest -?[0-9.e-]+ deg")));
      QVERIFY(a->measuredLabel()->text().contains("wheel left camber: mean -"));
      QVERIFY(w.grab().save(kArtefacts + "/analyses_measured.png"));
    }

    // PDF report: a title page with the metrics, then a page per plot.
    const QString pdf = kArtefacts + "/kc_report.pdf";
    QCOMPARE(a->exportPdf(pdf), QString());
    QFile f(pdf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    const int pages = static_cast<int>(bytes.count("/Type /Page\n") + bytes.count("/Type /Page\r") + bytes.count("/Type /Page ") +
                                       bytes.count("/Type /Page/") + bytes.count("/Type /Page>"));
    qInfo("PDF report: %lld bytes, %d pages", static_cast<long long>(bytes.size()), pages);
    QCOMPARE(pages, a->lastReportPages());
    QCOMPARE(a->lastReportPlotPages(), 2);  // toe, camber, centre x, centre y; vertical force, caster
    QVERIFY(pages >= 4);  // title page, spec sheet, two pages of plots
    QVERIFY(bytes.size() > 20000);
    QCOMPARE(a->exportCsv(kArtefacts + "/kc.csv"), QString());
    QFile csv(kArtefacts + "/kc.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
    QVERIFY(QString::fromUtf8(csv.readLine()).startsWith("travel [m],wheel left toe [rad]"));

    // A sweep beyond what the axle can reach ends at its travel limits: each direction stops where
    // a pad's force changed by more than 3 times the design wheel load (the bump stop compressed,
    // the links at full stretch in rebound), said in red under the buttons.
    a->setRange(-400, 400, 81);
    a->run();
    QVERIFY(done.wait(300000));
    QCOMPARE(done.last().first().toBool(), true);
    QVERIFY2(done.last().at(1).toString().endsWith("(ends short: travel limit)"), qPrintable(done.last().at(1).toString()));
    QVERIFY(a->limitsLabel()->isVisible());
    const QStringList limits = a->limitsLabel()->text().split("\n");
    qInfo("%s", qPrintable(limits.join(" | ")));
    QCOMPARE(limits.size(), 2);
    // (Left and right pads are equal to round-off on this symmetric axle: either may be named.)
    QVERIFY(limits[0].contains(QRegularExpression(
        "^travel limit at point 67 of 81 \\(travel = 0\\.26 m\\): the pad of wheel (left|right) holds it with 23\\.3\\d kN")));
    QVERIFY(limits[1].contains(QRegularExpression(
        "^travel limit at point 26 of 81 \\(travel = -0\\.15 m\\): the pad of wheel (left|right) holds it with -14\\.69 kN")));
    QCOMPARE(a->current()->kc.sweep.size(), std::size_t(42));
    QVERIFY(a->limitsLabel()->width() <= w.width());  // wrapped, not widening the window
    QVERIFY(w.grab().save(kArtefacts + "/analyses_travel_limit.png"));
    a->setRange(-80, 80, 100000);
    a->run();
    a->cancel();
    QVERIFY(done.wait(300000));
    QCOMPARE(done.last().at(1).toString(), QString("cancelled"));
    QVERIFY(!a->isRunning());
    const auto measuredDrawn = [&] {
      for (int k = 0; k < a->plot(0)->graphCount(); ++k)
        if (a->plot(0)->graph(k)->name().startsWith("measured")) return true;
      return false;
    };
    // Rig data belong to the analysis and the project they were loaded for: an opposite-travel
    // sweep is not compared with the parallel-travel rig file (it was, silently).
    a->setAnalysis("opposite-travel");
    a->setRange(-40, 40, 9);
    a->run();
    QVERIFY(done.wait(300000));
    QVERIFY2(done.last().first().toBool(), qPrintable(done.last().at(1).toString()));
    QVERIFY(a->measuredLabel()->isVisible());
    qInfo("%s", qPrintable(a->measuredLabel()->text()));
    QVERIFY(a->measuredLabel()->text().contains("is for parallel wheel travel; not compared with this"));
    QVERIFY(!measuredDrawn());

    // Frequency response to the left wheel's vertical contact force: Bode plots.
    a->setAnalysis("frequency-response");
    a->setRange(0.5, 100, 200);
    a->run();
    QVERIFY(done.wait(300000));
    QVERIFY2(done.last().first().toBool(), qPrintable(done.last().at(1).toString()));
    a->selectOutput("wheel left centre z");
    QCOMPARE(a->plot(0)->graphCount(), 1);
    QCOMPARE(a->plot(0)->graph(0)->dataCount(), 200);
    const auto* r = a->current();
    QVERIFY(r && r->kind == AnalysesPanel::Kind::Frequency);
    int zc = -1;
    for (std::size_t c = 0; c < r->frequency.outputs.size(); ++c)
      if (r->frequency.outputs[c] == "wheel left centre z") zc = static_cast<int>(c);
    QVERIFY(zc >= 0);
    QCOMPARE(a->plot(0)->graph(0)->data()->at(0)->value, std::abs(r->frequency.response[zc][0]));
    QVERIFY(a->plot(1)->graph(0)->data()->at(100)->value <= 180.0);
    // View > Units: the magnitude in mm/kN (m/N x 1e6), in the plot, its axis and the table.
    QCOMPARE(a->plot(0)->yAxis->label(), QString("m/N"));
    Units::instance().setSystem(UnitSystem::MmKNDeg);
    QCOMPARE(a->plot(0)->yAxis->label(), QString("mm/kN"));
    QVERIFY(std::abs(a->plot(0)->graph(0)->data()->at(0)->value / (1e6 * std::abs(r->frequency.response[zc][0])) - 1.0) < 1e-12);
    bool mmPerKn = false;
    for (int row = 0; row < a->table()->rowCount(); ++row)
      if (a->table()->item(row, 0)->text() == "wheel left centre z") mmPerKn = a->table()->item(row, 1)->text().endsWith(" mm/kN");
    QVERIFY(mmPerKn);
    Units::instance().setSystem(UnitSystem::SI);
    QCOMPARE(a->plot(0)->yAxis->label(), QString("m/N"));

    // Modes: the table lists them; a mode animates in the 3D view.
    a->setAnalysis("modes");
    a->run();
    QVERIFY(done.wait(300000));
    QVERIFY(done.last().first().toBool());
    QCOMPARE(a->table()->rowCount(), static_cast<int>(a->current()->modes.modes.size()));
    QSignalSpy frames(a, &AnalysesPanel::modeFrame);
    a->animateMode(4);
    QTRY_VERIFY_WITH_TIMEOUT(frames.count() >= 5, 5000);
    QVERIFY(a->isAnimating());
    // An edit stops the animation (the shape belongs to the model it was computed for).
    TableModel* bodies = w.tableModel(Table::Bodies);
    QVERIFY(bodies->setData(bodies->index(2, 1), "wheel left (edited)", Qt::EditRole));
    QVERIFY(!a->isAnimating());
    QVERIFY(a->staleLabel()->isVisible());
    // File > Open of another project drops the rig data: its next parallel-travel sweep is not
    // "correlated" with the old project's rig file.
    QVERIFY(w.openProject(kRoot + "/projects/macpherson_front.json"));
    QVERIFY(!a->measuredLabel()->isVisible());
    a->setAnalysis("parallel-travel");
    a->setRange(-40, 40, 9);
    a->run();
    QVERIFY(done.wait(300000));
    QVERIFY2(done.last().first().toBool(), qPrintable(done.last().at(1).toString()));
    QVERIFY(!a->measuredLabel()->isVisible());
    QVERIFY(!measuredDrawn());
  }

  void topologyAndSparsityViews() {
    MainWindow w;
    w.setQuiet(true);
    QVERIFY(w.openProject(kRoot + "/projects/multilink.json"));
    const auto m = ek::SuspensionModel::build(w.document()->project());
    QCOMPARE(w.topology()->nodeCount(), m->nFreeBodies() + 1);
    QCOMPARE(w.topology()->edgeCount(), static_cast<int>(m->bushings.size() + m->p2ps.size()));
    QCOMPARE(w.sparsity()->blocksShown(), m->pattern.nBlocks());
    QCOMPARE(w.sparsity()->fillShown(), ek::TopologySolver(*m).fillBlocks());
    QVERIFY(w.sparsity()->summary().contains("162 x 162"));
    // Picking an element selects its row.
    w.select(Table::Bushings, m->bushings[5].id);
    QCOMPARE(w.tableModel(Table::Bushings)->rowCount(), static_cast<int>(m->bushings.size()));
  }

  // The tab "Modes" lists the flexible bodies' modes as the compiled model carries them.
  void modesViewListsTheFlexibleBodiesModes() {
    MainWindow w;
    w.setQuiet(true);
    QVERIFY(w.openProject(kRoot + "/projects/double_wishbone.json"));
    QVERIFY(w.modes()->summary().contains("No flexible body"));
    QCOMPARE(w.modes()->table()->rowCount(), 0);
    QVERIFY(w.openProject(kRoot + "/projects/twist_beam_rear.json"));
    const auto m = ek::SuspensionModel::build(w.document()->project());
    QCOMPARE(m->flexibleBodies.size(), std::size_t(1));
    const ek::ModelFlexibleBody& f = m->flexibleBodies[0];
    QCOMPARE(f.modes(), 10);
    QVERIFY2(w.modes()->summary().startsWith("1 flexible body, 10 elastic modes"), qPrintable(w.modes()->summary()));
    QTableWidget* t = w.modes()->table();
    QCOMPARE(t->rowCount(), 10);
    for (int k = 0; k < 10; ++k) {
      QCOMPARE(t->item(k, 1)->text(), QString::number(k + 1));
      QCOMPARE(t->item(k, 2)->text().toDouble(), std::round(f.modal.frequencies[k] * (f.modal.frequencies[k] < 100 ? 100 : 10)) /
                                                     (f.modal.frequencies[k] < 100 ? 100 : 10));
      const double zeta = f.damping[k] / (4 * M_PI * f.modal.frequencies[k]);
      QVERIFY(zeta > 0.0 && std::abs(t->item(k, 3)->text().toDouble() - zeta) <= 5e-3 * zeta);
    }
    QVERIFY(t->item(0, 0)->text().contains("body 30"));
    // Ascending.
    for (int k = 1; k < 10; ++k) QVERIFY(t->item(k, 2)->text().toDouble() >= t->item(k - 1, 2)->text().toDouble());
  }

  // The flexible anti-roll bar drawn as its elastic line: a mode animated from the tab Modes moves
  // the line's nodes along the mode shape (largest 5 % of the bar's size); a run's frames move it
  // by their modal coordinates times the deformation scale.
  void flexibleBodiesDrawnDeformed() {
    MainWindow w;
    w.setQuiet(true);
    w.show();
    QVERIFY(w.openProject(kRoot + "/projects/double_wishbone_flexible_bar.json"));
    const auto m = ek::SuspensionModel::build(w.document()->project());
    const ek::ModelFlexibleBody& f = m->flexibleBodies[0];
    View3D* v = w.findChild<View3D*>();
    QVERIFY(v);
    const std::vector<ek::Vec3> rest = v->elasticLine(0);
    QCOMPARE(rest.size(), f.modal.nodes.size());
    for (std::size_t i = 0; i < rest.size(); ++i) QVERIFY((rest[i] - f.modal.nodes[i]).norm() < 1e-12);
    // Mode 2 from the table: the 3D tab comes up with the bar moving.
    QTableWidget* t = w.modes()->table();
    t->selectRow(1);
    QCOMPARE(w.modes()->selectedMode(), std::make_pair(0, 1));
    emit w.modes()->animate(0, 1);
    QVERIFY(v->animating());
    QVERIFY(v->isVisible());
    QVERIFY2(v->modeCaption().contains("mode 2: 72.7 Hz"), qPrintable(v->modeCaption()));
    QCOMPARE(v->caption(), v->modeCaption());
    v->setModePhase(M_PI / 2.0);
    const std::vector<ek::Vec3> up = v->elasticLine(0);
    double largest = 0.0, size = 0.0;
    for (std::size_t i = 0; i < up.size(); ++i) {
      largest = std::max(largest, (up[i] - rest[i]).norm());
      for (std::size_t j = 0; j < up.size(); ++j) size = std::max(size, (rest[i] - rest[j]).norm());
      // Along the mode's shape at every node.
      const ek::Vec3 shape = f.modal.translation(static_cast<int>(i)).col(1);
      QVERIFY((up[i] - rest[i]).cross(shape).norm() <= 1e-9 * shape.norm());
    }
    QVERIFY(largest > 0.04 * size && largest <= 0.05 * size + 1e-12);
    v->setModePhase(-M_PI / 2.0);
    const std::vector<ek::Vec3> down = v->elasticLine(0);
    for (std::size_t i = 0; i < up.size(); ++i) QVERIFY((up[i] - rest[i] + down[i] - rest[i]).norm() < 1e-12);
    // A frame stops the animation and draws its modal coordinates times the deformation scale.
    Frame fr;
    for (const auto& b : m->bodies) {
      fr.position.push_back(b.p0);
      fr.orientation.push_back(b.R0);
    }
    fr.modal.assign(static_cast<std::size_t>(f.modes()), 0.0);
    fr.modal[0] = 1e-3;
    fr.modal[3] = -2e-3;
    w.findChild<QDoubleSpinBox*>("deformation")->setValue(50);
    v->showFrame(fr);
    QVERIFY(!v->animating());
    QVERIFY(v->modeCaption().isEmpty());
    QCOMPARE(v->caption(), QString("Flexible bodies: elastic deformation drawn 50 x"));
    const std::vector<ek::Vec3> bent = v->elasticLine(0);
    for (std::size_t i = 0; i < bent.size(); ++i) {
      const ek::Vec3 expected = f.modal.nodes[i] + 50.0 * (f.modal.translation(static_cast<int>(i)).col(0) * 1e-3 -
                                                         f.modal.translation(static_cast<int>(i)).col(3) * 2e-3);
      QVERIFY((bent[i] - expected).norm() < 1e-12);
    }
  }

  void curveEditorEditsTheProject() {
    MainWindow w;
    w.setQuiet(true);
    QVERIFY(w.openProject(kRoot + "/projects/double_wishbone.json"));
    CurveEditor* ed = w.curveEditor();
    ed->showCurve(1);  // bump stop
    const auto before = w.document()->project().curves[1];
    QVERIFY(ed->plot()->graph(0)->dataCount() > 100);  // the interpolated curve is drawn
    QCOMPARE(ed->movePoint(2, before.points[2][0], 1234.0), QString());
    QCOMPARE(w.document()->project().curves[1].points[2][1], 1234.0);
    w.document()->undoStack()->undo();
    QVERIFY(w.document()->project().curves[1] == before);
    // x beyond the next point: the engine rejects it and nothing changes.
    const QString err = ed->movePoint(2, before.points[4][0] + 0.01, 10.0);
    QVERIFY2(err.contains("increase strictly"), qPrintable(err));
    QVERIFY(w.document()->project().curves[1] == before);
  }

  // The bushing dynamics tab beside the curve editor: the trailing-arm bushing's x of the double
  // wishbone (no branches: K = k0 + j w c0) over a log frequency axis, redrawn when a branch is
  // added and edited; the shipped noisy measurement loaded and fitted with two branches (drawn
  // over it, the residual reported), accepted as one undo step; a bad file named with its line.
  void bushingDynamicsPlotAndFit() {
    MainWindow w;
    w.setQuiet(true);
    w.resize(1300, 900);
    QVERIFY(w.openProject(kRoot + "/projects/double_wishbone.json"));
    w.show();
    w.showTab("Bushing dynamics");
    BushingDynamicsPanel* panel = w.bushingDynamics();
    w.select(Table::Bushings, 9);  // selecting the row shows it
    QCOMPARE(panel->currentBushingId(), 9);
    QCOMPARE(panel->currentDirection(), 0);
    QCustomPlot* mag = panel->magnitudePlot();
    QCustomPlot* loss = panel->lossPlot();
    QCOMPARE(mag->xAxis->scaleType(), QCPAxis::stLogarithmic);
    auto valueAt = [](QCustomPlot* p, int graph, double f) {
      const auto data = p->graph(graph)->data();
      auto it = data->findBegin(f, false);
      return it == data->constEnd() ? std::nan("") : it->value;
    };
    const auto modelData = mag->graph(BushingDynamicsPanel::Model)->data();
    QVERIFY(modelData->size() > 100);
    // No branches: |K| = |k0 + j w c0| with k0 = 5e5 N/m (curve 4's slope) and c0 = 600 N s/m.
    const double f0 = modelData->at(100)->key;
    QVERIFY(std::abs(modelData->at(100)->value - std::abs(std::complex<double>(5e5, 2 * M_PI * f0 * 600.0))) < 1e-6 * 5e5);
    QVERIFY(std::abs(loss->graph(BushingDynamicsPanel::Model)->data()->at(100)->value -
                     std::atan2(2 * M_PI * f0 * 600.0, 5e5) * 180 / M_PI) < 1e-9);

    // Adding and editing a branch redraws the model (one undo step each).
    const auto buttons = panel->findChildren<QPushButton*>();
    QPushButton* add = nullptr;
    for (auto* b : buttons)
      if (b->text() == "Add branch") add = b;
    QVERIFY(add);
    const double before = valueAt(mag, BushingDynamicsPanel::Model, 10.0);
    add->click();
    QCOMPARE(w.document()->project().bushings[8].directions[0].maxwell.size(), std::size_t(1));
    const double withBranch = valueAt(mag, BushingDynamicsPanel::Model, 10.0);
    QVERIFY(withBranch > 1.2 * before);
    QCOMPARE(panel->editBranch(0, 0, 1e5), QString());
    QVERIFY(valueAt(mag, BushingDynamicsPanel::Model, 10.0) < withBranch);
    QVERIFY(panel->editBranch(0, 1, -3.0).contains("must be positive"));  // the engine's check
    // Scaling with the static slope: the box and the table follow, one undo step.
    QCheckBox* scaledBox = panel->findChild<QCheckBox*>();
    QVERIFY(scaledBox && scaledBox->text().contains("slope") && !scaledBox->isChecked());
    scaledBox->click();
    QVERIFY(w.document()->project().bushings[8].directions[0].maxwellScaledBySlope);
    w.document()->undoStack()->undo();
    QVERIFY(!w.document()->project().bushings[8].directions[0].maxwellScaledBySlope && !scaledBox->isChecked());
    w.document()->undoStack()->undo();
    w.document()->undoStack()->undo();
    QVERIFY(w.document()->project().bushings[8].directions[0].maxwell.empty());
    QCOMPARE(valueAt(mag, BushingDynamicsPanel::Model, 10.0), before);

    // A bad measurement: the file and its line are named, nothing is loaded.
    QTemporaryDir dir;
    QFile bad(dir.filePath("bad.csv"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("frequency [Hz],magnitude [N/m],loss angle [deg]\n1,5e5,3\n-2,5e5,4\n3,5e5,5\n");
    bad.close();
    const QString err = panel->loadMeasurement(bad.fileName());
    QVERIFY2(err.contains("bad.csv: line 3, column 1: the frequency must be positive"), qPrintable(err));
    QVERIFY(!mag->graph(BushingDynamicsPanel::Measurement)->visible());

    // The shipped synthetic measurement, fitted with two branches.
    QCOMPARE(panel->loadMeasurement(kRoot + "/projects/bushing_data/trailing_arm_x_noisy.csv"), QString());
    QCOMPARE(mag->graph(BushingDynamicsPanel::Measurement)->data()->size(), 24);
    QVERIFY(mag->graph(BushingDynamicsPanel::Measurement)->visible());
    QCOMPARE(panel->fit(2), QString());
    const QString report = panel->fitReport();
    qInfo("%s", qPrintable(report));
    QVERIFY(report.contains("RMS error of the magnitude") && report.contains("k0 = 5e+05 N/m (kept)"));
    QVERIFY(panel->lastFit()->rmsMagnitude < 0.015);
    const auto fitted = mag->graph(BushingDynamicsPanel::Fitted)->data();
    QVERIFY(fitted->size() > 100);
    // The fit passes through the measurement (within its noise), the unbranched model does not.
    double worstFit = 0.0, worstModel = 0.0;
    for (auto it = mag->graph(BushingDynamicsPanel::Measurement)->data()->constBegin();
         it != mag->graph(BushingDynamicsPanel::Measurement)->data()->constEnd(); ++it) {
      const std::complex<double> K = complexStiffness(panel->lastFit()->model, it->key);
      worstFit = std::max(worstFit, std::abs(std::abs(K) / it->value - 1.0));
      worstModel = std::max(worstModel, std::abs(valueAt(mag, BushingDynamicsPanel::Model, it->key) / it->value - 1.0));
    }
    qInfo("largest magnitude deviation from the measurement: fit %.2f %%, model without branches %.1f %%",
          100 * worstFit, 100 * worstModel);
    QVERIFY(worstFit < 0.03 && worstModel > 0.2);
    // What the user sees: the legends name the three graphs, and the fit's dashed green is drawn.
    QCOMPARE(mag->legend->itemCount(), 3);
    QVERIFY(mag->legend->hasItemWithPlottable(mag->graph(BushingDynamicsPanel::Fitted)));
    const QImage img = mag->grab().toImage();
    int green = 0;
    for (int y = 0; y < img.height(); ++y)
      for (int x = 0; x < img.width(); ++x) {
        const QColor c = img.pixelColor(x, y);
        green += c.green() > 120 && c.red() < 80 && c.blue() < 110;
      }
    QVERIFY2(green > 200, qPrintable(QString::number(green)));
    settle();
    QVERIFY(w.grab().save(kArtefacts + "/bushing_dynamics.png"));

    const int steps = w.document()->undoStack()->index();
    const auto fit = *panel->lastFit();
    QCOMPARE(panel->acceptFit(), QString());
    QCOMPARE(w.document()->undoStack()->index(), steps + 1);  // one undo step
    const auto& accepted = w.document()->project().bushings[8].directions[0];
    QVERIFY(accepted.maxwell == fit.model.branches);
    QCOMPARE(accepted.maxwell.size(), std::size_t(2));
    QVERIFY(accepted.stiffness.curve.has_value());  // the static curve is kept
    // The model now is the fit: it passes through the measurement.
    QVERIFY(std::abs(valueAt(mag, BushingDynamicsPanel::Model, 10.0) /
                         std::abs(complexStiffness(ek::directionDynamics(w.document()->project(),
                                                                         w.document()->project().bushings[8], 0),
                                                   10.0)) - 1.0) < 0.01);
    w.document()->undoStack()->undo();
    QVERIFY(w.document()->project().bushings[8].directions[0].maxwell.empty());

    // View > Units: mm-kN-deg shows the stiffness in kN/mm (plot, axis, table), and a value typed
    // in the table is read in them (in the user's locale).
    const double si = valueAt(mag, BushingDynamicsPanel::Model, 10.0);
    Units::instance().setSystem(UnitSystem::MmKNDeg);
    QVERIFY(std::abs(valueAt(mag, BushingDynamicsPanel::Model, 10.0) / (1e-6 * si) - 1.0) < 1e-12);
    QVERIFY2(mag->yAxis->label().contains("[kN/mm]"), qPrintable(mag->yAxis->label()));
    add->click();
    auto* table = panel->findChild<QTableWidget*>("dynamicsBranches");
    QVERIFY(table && table->rowCount() == 1);
    QVERIFY(table->horizontalHeaderItem(0)->text().contains("kN/mm"));
    QVERIFY(table->horizontalHeaderItem(1)->text().contains("kN s/mm"));
    table->item(0, 0)->setText(QLocale().toString(0.25));  // kN/mm
    QCOMPARE(w.document()->project().bushings[8].directions[0].maxwell[0].stiffness, 2.5e5);  // N/m
    QCOMPARE(QLocale().toDouble(table->item(0, 0)->text()), 0.25);
    Units::instance().setSystem(UnitSystem::SI);
    QCOMPARE(QLocale().toDouble(table->item(0, 0)->text()), 2.5e5);
  }

  // An Adams bushing file onto bushing 3 of the corner: curves created, one undo step, the
  // tables and the curve editor show them; a malformed file changes nothing and names its lines.
  void parameterStudyDialog() {
    // The oscillator of the study tests: the damping that minimizes int (x - x_static)^2 dt is
    // 100 N s/m (damping ratio 0.5). The variable comes from the bushing table's cell, the
    // criterion from the channels; the run shows every run in the table and the plot, and
    // "Apply this design" sets the damping in one undo step.
    MainWindow w;
    w.setQuiet(true);
    w.resize(1300, 900);
    QVERIFY(w.openProject(kRoot + "/tests/data/studies/oscillator.json"));
    w.show();
    TableModel* bushings = w.tableModel(Table::Bushings);
    int dampingColumn = -1;
    for (int c = 0; c < bushings->columnCount(); ++c)
      if (bushings->cellPath(bushings->index(0, c)) == "bushings/1/x.damping [N s/m]") dampingColumn = c;
    QVERIFY(dampingColumn > 0);
    QCOMPARE(w.tableModel(Table::Bodies)->cellPath(w.tableModel(Table::Bodies)->index(1, 4)), QString("bodies/1/mass [kg]"));
    QVERIFY(w.tableModel(Table::Bushings)->cellPath(bushings->index(0, 0)).isEmpty());  // the id is no variable
    QCOMPARE(w.addDesignVariable("bushings/1/x.damping [N s/m]"), QString());
    StudyDialog* d = w.studyDialog();
    QVERIFY(d->isVisible());
    // It fits a 1366x768 screen with a taskbar (it opened 820 px high).
    qInfo("study dialog %d x %d px, minimum %d x %d px (screen %d x %d available)", d->width(), d->height(),
          d->minimumSizeHint().width(), d->minimumSizeHint().height(), d->screen()->availableGeometry().width(),
          d->screen()->availableGeometry().height());
    QVERIFY(d->minimumSizeHint().height() <= 650);
    QVERIFY(d->minimumSizeHint().width() <= 1366);
    QVERIFY(d->height() <= d->screen()->availableGeometry().height() - 40);
    QCOMPARE(d->variablesTable()->rowCount(), 1);
    QCOMPARE(d->variablesTable()->item(0, 2)->text(), QString("30"));  // x 0.5 to 2 about the value, log scale
    QCOMPARE(d->variablesTable()->item(0, 3)->text(), QString("120"));
    QVERIFY(!d->addVariable("bushings/1/x.dumping [N s/m]").isEmpty());
    QCOMPARE(d->addVariable("markers/2/position [m][3]"), QString());  // a coordinate: +-10 mm
    QCOMPARE(d->variablesTable()->item(1, 2)->text(), QString("-0.01"));
    QCOMPARE(d->variablesTable()->item(1, 3)->text(), QString("0.01"));
    d->variablesTable()->removeRow(1);
    d->variablesTable()->item(0, 0)->setText("damping");
    d->addCriterion();
    QTableWidget* crit = d->criteriaTable();
    crit->item(0, 0)->setText("settling");
    qobject_cast<QComboBox*>(crit->cellWidget(0, 1))->setCurrentText("step");
    qobject_cast<QComboBox*>(crit->cellWidget(0, 2))->setCurrentText("x");
    qobject_cast<QComboBox*>(crit->cellWidget(0, 4))->setCurrentText("integral square");
    crit->item(0, 7)->setText("0.01");
    d->typeBox()->setCurrentText("optimization");
    QVERIFY2(d->studyText().contains("\"objective\": \"settling\""), qPrintable(d->studyText()));

    // A bad criterion is reported with its entry and field, and nothing runs.
    qobject_cast<QComboBox*>(crit->cellWidget(0, 2))->setCurrentText("nope");
    QVERIFY(d->run().contains("table 'criteria', row 1 ('settling'), field 'channel': unknown channel 'nope'"));
    QVERIFY(!d->running());
    qobject_cast<QComboBox*>(crit->cellWidget(0, 2))->setCurrentText("x");

    QSignalSpy finished(d, &StudyDialog::studyFinished);
    QCOMPARE(d->run(), QString());
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.front().front().toBool(), true);
    QTableWidget* results = d->resultsTable();
    QVERIFY(results->rowCount() >= 5);
    QCOMPARE(d->progressBar()->value(), d->progressBar()->maximum());
    QVERIFY(d->summary()->toPlainText().contains("optimization of settling (bobyqa"));
    // The plot: every run, and the lowest at c = 100 N s/m.
    QCOMPARE(d->plot()->graph(0)->dataCount(), results->rowCount());
    QCOMPARE(d->plot()->graph(1)->dataCount(), 1);
    const double best = d->plot()->graph(1)->data()->at(0)->key;
    QVERIFY2(std::abs(best / 100.0 - 1) < 0.01, qPrintable(QString::number(best)));
    // Sorted by the criterion, the first row is the best; applying it sets the damping.
    results->sortItems(4, Qt::AscendingOrder);
    QCOMPARE(results->item(0, 3)->data(Qt::DisplayRole).toDouble(), best);
    results->selectRow(0);
    QVERIFY(d->grab().save(kArtefacts + "/study_dialog.png"));
    const int undoBefore = w.document()->undoStack()->count();
    QCOMPARE(d->applySelectedDesign(), QString());
    QCOMPARE(w.document()->project().bushings[0].directions[0].damping.coefficient, best);
    QCOMPARE(w.document()->undoStack()->count(), undoBefore + 1);
    QVERIFY(std::abs(bushings->index(0, dampingColumn).data().toDouble() / best - 1) < 1e-8);  // the table shows it
    w.document()->undoStack()->undo();
    QCOMPARE(w.document()->project().bushings[0].directions[0].damping.coefficient, 60.0);

    // View > Units: bounds and results in kN s/mm (x 1e-6), the study file stays SI.
    Units::instance().setSystem(UnitSystem::MmKNDeg);
    QCOMPARE(d->variablesTable()->item(0, 7)->text(), QString("kN s/mm"));
    QCOMPARE(d->variablesTable()->item(0, 2)->text().toDouble(), 3e-5);
    QCOMPARE(d->variablesTable()->item(0, 3)->text().toDouble(), 1.2e-4);
    QVERIFY2(d->studyText().contains("\"lower\": 30,"), qPrintable(d->studyText()));
    QVERIFY(results->horizontalHeaderItem(3)->text().endsWith("[kN s/mm]"));
    double shownBest = 1e300;
    for (int r = 0; r < results->rowCount(); ++r)
      if (std::abs(results->item(r, 3)->data(Qt::DisplayRole).toDouble() - 1e-6 * best) < 1e-15) shownBest = 1e-6 * best;
    QCOMPARE(shownBest, 1e-6 * best);
    QVERIFY(d->summary()->toPlainText().contains("optimization of settling"));
    Units::instance().setSystem(UnitSystem::SI);
    QCOMPARE(d->variablesTable()->item(0, 2)->text(), QString("30"));
  }

  void studyFilesRoundTripThroughTheDialog() {
    // Every shipped study of the double wishbone opened in the dialog and written back means the
    // same study: variables, criteria (channel ones and K&C metrics) and settings.
    MainWindow w;
    w.setQuiet(true);
    QVERIFY(w.openProject(kRoot + "/projects/double_wishbone.json"));
    const QString folder = kRoot + "/projects/studies/";
    int n = 0;
    for (const QString& name : QDir(folder).entryList({"*.study.json"})) {
      StudyDialog d(w.document());
      QFile f(folder + name);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QString text = QString::fromUtf8(f.readAll());
      QCOMPARE(d.setStudyText(text, folder + name), QString());
      const ek::Project& p = w.document()->project();
      const ek::StudyContext a = ek::studyContext(text.toStdString(), (folder + name).toStdString(), &p);
      const ek::StudyContext b = ek::studyContext(d.studyText().toStdString(), (folder + name).toStdString(), &p);
      QCOMPARE(b.study.variables.size(), a.study.variables.size());
      for (std::size_t k = 0; k < a.study.variables.size(); ++k) {
        const ek::StudyVariable &x = a.study.variables[k], &y = b.study.variables[k];
        QVERIFY(x.name == y.name && x.path == y.path && x.lower == y.lower && x.upper == y.upper &&
                x.logScale == y.logScale && x.twins == y.twins && x.start == y.start);
      }
      QCOMPARE(b.study.criteria.size(), a.study.criteria.size());
      for (std::size_t k = 0; k < a.study.criteria.size(); ++k) {
        const ek::StudyCriterion &x = a.study.criteria[k], &y = b.study.criteria[k];
        QVERIFY2(x.name == y.name && x.kcMetric == y.kcMetric && x.metric == y.metric && x.wheel == y.wheel &&
                     x.absolute == y.absolute && x.loadCase == y.loadCase && x.channel == y.channel &&
                     x.reference == y.reference && x.referenceAtStart == y.referenceAtStart && x.weight == y.weight &&
                     x.criterion.kind == y.criterion.kind && x.criterion.from == y.criterion.from &&
                     x.atMost == y.atMost && x.atLeast == y.atLeast,
                 qPrintable(name + ": " + QString::fromStdString(x.name)));
      }
      QCOMPARE(b.study.settings.type, a.study.settings.type);
      QCOMPARE(b.study.settings.algorithm, a.study.settings.algorithm);
      QCOMPARE(b.study.settings.objective, a.study.settings.objective);
      QCOMPARE(b.study.settings.points, a.study.settings.points);
      ++n;
    }
    QVERIFY(n >= 4);
    // What the dialog does not edit is kept, not dropped: a "kc measured" criterion (file,
    // mapping, sweep) and "targets as limits".
    {
      StudyDialog d(w.document());
      const QString rig = kRoot + "/tests/data/kc_rig/macpherson_parallel_travel.csv";
      const QString text =
          "{\"project\": \"P\", \"variables\": [{\"name\": \"k\", \"path\": \"curves/4/scale\", \"lower\": 0.5, \"upper\": 2}], "
          "\"criteria\": [{\"name\": \"toe vs rig\", \"kind\": \"kc measured\", \"analysis\": \"parallel-travel\", \"file\": \"" +
          rig +
          "\", \"map\": {\"Toe LF\": \"wheel left toe\"}, \"channel\": \"wheel left toe\", \"measure\": \"max\", "
          "\"points\": 17}], \"study\": {\"type\": \"optimization\", \"algorithm\": \"cobyla\", "
          "\"objective\": \"toe vs rig\", \"targets as limits\": true}}";
      const std::string path = (kArtefacts + "/kept.study.json").toStdString();
      QCOMPARE(d.setStudyText(text, QString::fromStdString(path)), QString());
      const ek::Project& p = w.document()->project();
      const ek::StudyContext a = ek::studyContext(text.toStdString(), path, &p);
      const ek::StudyContext b = ek::studyContext(d.studyText().toStdString(), path, &p);
      QCOMPARE(b.study.criteria.size(), a.study.criteria.size());
      const ek::StudyCriterion &x = a.study.criteria[0], &y = b.study.criteria[0];
      QVERIFY(y.kcMeasured && y.analysis == x.analysis && y.file == x.file && y.mapping == x.mapping &&
              y.channel == x.channel && y.maxDeviation && y.sweepPoints == 17);
      QVERIFY(b.study.settings.targetsAsLimits);
      QVERIFY(b.study.criteria.size() > 1);  // the double wishbone's targets as limited criteria
    }
  }

  void importAdamsPropertyFile() {
    MainWindow w;
    w.setQuiet(true);
    QVERIFY(w.openProject(kRoot + "/projects/quarter_double_wishbone.json"));
    const ek::Project before = w.document()->project();
    const int index = w.document()->undoStack()->index();
    QVERIFY(w.importPropertyFile(kRoot + "/tests/data/adams/bushing_mm_deg.bus", Table::Bushings, 3));
    QCOMPARE(w.document()->undoStack()->index(), index + 1);  // one undo step
    const ek::Project& after = w.document()->project();
    QCOMPARE(after.curves.size(), before.curves.size() + 6);
    QVERIFY(after.bushings[2].directions[0].stiffness.curve.has_value());
    // The preview the user saw: every law the file sets, now and from the file, plotted.
    PropertyImportDialog* preview = w.importPreview();
    QVERIFY(preview);
    QCOMPARE(preview->lawCount(), 12);
    QCOMPARE(preview->lawTable()->item(0, 0)->text(), QString("x stiffness"));
    QCOMPARE(preview->lawTable()->item(0, 2)->text(), QString("curve %1 (11 points)").arg(before.curves.size() + 1));
    QCOMPARE(preview->lawTable()->item(1, 2)->text(), QString("1500 N s/m"));
    QVERIFY(preview->notes().contains("Not imported:") && preview->notes().contains("[SHAPE] (line 17): the geometry"));
    QCOMPARE(preview->plot()->graphCount(), 3);
    QCOMPARE(preview->plot()->graph(0)->name(), QString("now"));
    QCOMPARE(preview->plot()->graph(2)->dataCount(), 11);  // the file's table points
    bool found = false;
    for (auto it = preview->plot()->graph(2)->data()->begin(); it != preview->plot()->graph(2)->data()->end(); ++it)
      found = found || (std::abs(it->key - 0.004) < 1e-12 && std::abs(it->value - 7920.0) < 1e-9);
    QVERIFY(found);  // 4 mm, 7920 N
    preview->lawChoice()->setCurrentIndex(6);  // rx stiffness, shown in the plot
    QVERIFY(preview->plot()->xAxis->label().startsWith("rx stiffness"));
    preview->resize(760, 680);
    preview->show();
    QVERIFY(QTest::qWaitForWindowExposed(preview));
    preview->lawChoice()->setCurrentIndex(0);
    QVERIFY(preview->grab().save(kArtefacts + "/import_preview.png"));
    preview->hide();
    // What the user sees afterwards: the Curves table lists the new curve, the curve editor draws it.
    QCOMPARE(w.tableModel(Table::Curves)->rowCount(), static_cast<int>(after.curves.size()));
    w.curveEditor()->showCurve(static_cast<int>(before.curves.size()));
    QVERIFY(w.curveEditor()->plot()->graph(3)->dataCount() == 11);  // the file's 11 points
    // The bushing dynamics tab reads k0 from the imported curve: PCHIP's slope at 0, 3240 N / 2 mm.
    w.bushingDynamics()->showBushing(3, 0);
    QVERIFY(std::abs(w.bushingDynamics()->magnitudePlot()->graph(BushingDynamicsPanel::Model)->data()->at(0)->value / 1.62e6 - 1.0) < 1e-3);
    w.document()->undoStack()->undo();
    QVERIFY(w.document()->project() == before);

    QVERIFY(!w.importPropertyFile(kRoot + "/tests/data/adams/bad_rows.bus", Table::Bushings, 3));
    QVERIFY(w.lastDialogText().contains("bad_rows.bus: line 19"));
    QVERIFY(!w.importPropertyFile(kRoot + "/tests/data/adams/nothing.bus", Table::Bushings, 3));
    QVERIFY(w.lastDialogText().contains("nothing to import"));
    QVERIFY(w.document()->project() == before);
    QVERIFY(!w.importPropertyFile(kRoot + "/tests/data/adams/spring_mm.spr", Table::Bushings, 3));
    QVERIFY(w.lastDialogText().contains("describes a P2P element"));
    QVERIFY(w.importPropertyFile(kRoot + "/tests/data/adams/damper_mm.dpr", Table::P2Ps, 2));
    QVERIFY(w.document()->project().p2ps[1].damper.curve.has_value());
    // Hydro bushing: Maxwell branches fitted, the fit's errors in the notes.
    QVERIFY(w.importPropertyFile(kRoot + "/tests/data/adams/hydro_mm.hbu", Table::Bushings, 3));
    QCOMPARE(w.document()->project().bushings[2].directions[2].maxwell.size(), std::size_t(2));
    QVERIFY(w.importPreview()->notes().contains("RMS magnitude error"));

    // Export the bushing as a property file in inch and pound-force; read back, the same laws.
    const QString bus = kArtefacts + "/exported.bus";
    QCOMPARE(w.exportPropertyFile(bus, ek::PropertyType::Bushing, 3, "inch,pound_force,degrees,second"), QString());
    QVERIFY(w.lastDialogText().contains("x stiffness:"));
    const ek::PropertyData back = ek::readPropertyFile(bus.toStdString());
    QCOMPARE(back.units.lengthName, std::string("inch"));
    QVERIFY(std::abs(*back.damping[1].coefficient - w.document()->project().bushings[2].directions[1].damping.coefficient) <
            1e-9 * w.document()->project().bushings[2].directions[1].damping.coefficient);
    QVERIFY(w.exportPropertyFile(kArtefacts + "/x.bum", ek::PropertyType::BumpStop, 1, "mm,newton,degrees,second")
                .contains("has no bump stop to export"));
  }

#ifdef ELASTOKIN_HAVE_FMU
  // File > Export FMU: the variables the importer will see, a bad parameter named before anything
  // is written, the FMU written (FMI 3 and 2) with the loader and the engine builds inside.
  void exportFmu() {
    MainWindow w;
    w.setQuiet(true);
    QVERIFY(w.openProject(kRoot + "/projects/double_wishbone.json"));
    QAction* action = nullptr;
    for (QAction* a : w.menuBar()->actions()[0]->menu()->actions())
      if (a->text().startsWith("Export &FMU")) action = a;
    QVERIFY(action && action->isEnabled());
    action->trigger();
    FmuExportDialog* d = w.fmuExportDialog();
    QVERIFY(d && d->isVisible());
    const ek::Project& p = w.document()->project();
    QCOMPARE(d->loadCaseChoice()->count(), static_cast<int>(p.loadCases.size()) + 1);
    QCOMPARE(d->loadCaseChoice()->currentText(), QString::fromStdString(p.loadCases.front().name));
    // time, the 5 inputs, the 6 outputs of the project and 2 wheels x 13 alignment channels
    QTableWidget* vars = d->variablesTable();
    QCOMPARE(vars->rowCount(), 1 + 5 + 32);
    QCOMPARE(vars->item(0, 0)->text(), QString("time"));
    QCOMPARE(vars->item(1, 1)->text(), QString("input"));
    QCOMPARE(vars->item(1, 0)->text(), QString::fromStdString(p.inputs.front().name));
    QCOMPARE(vars->item(vars->rowCount() - 1, 1)->text(), QString("output"));
    QVERIFY(d->summary().contains("5 inputs, 32 outputs, 0 parameters"));
    QVERIFY(d->summary().contains("load case LC1 built in"));
    // A cell of the Bushings table as a tunable parameter, from its context menu's action.
    w.addFmuParameter("bushings/1/y.stiffness [N/m]");
    QCOMPARE(vars->rowCount(), 1 + 5 + 32 + 1);
    const int last = vars->rowCount() - 1;
    QCOMPARE(vars->item(last, 1)->text(), QString("parameter"));
    QCOMPARE(vars->item(last, 2)->text(), QString("N/m"));
    QCOMPARE(vars->item(last, 3)->text().toDouble(), QString::fromStdString(ek::significant(p.bushings[0].directions[1].stiffness.coefficient, 6)).toDouble());
    // A path that is no cell of the project: said at once, nothing can be exported.
    d->parametersEdit()->setPlainText("bushings/1/y.stiffness [N/m]\nbushings/99/y.stiffness [N/m]");
    QVERIFY(d->summary().startsWith("Cannot export"));
    QVERIFY2(d->summary().contains("bushings/99"), qPrintable(d->summary()));
    QVERIFY(!d->exportButton()->isEnabled());
    d->parametersEdit()->setPlainText("bushings/1/y.stiffness [N/m]");
    QVERIFY(d->exportButton()->isEnabled());
    d->resize(900, 680);
    QVERIFY(QTest::qWaitForWindowExposed(d));
    QVERIFY(d->grab().save(kArtefacts + "/export_fmu.png"));
    // Written: a zip whose directory names the model description, the loader and the builds.
    for (int version : {3, 2}) {
      d->versionChoice()->setCurrentIndex(version == 3 ? 0 : 1);
      const QString path = kArtefacts + QString("/dw%1.fmu").arg(version);
      QFile::remove(path);
      QCOMPARE(d->exportTo(path), QString());
      QVERIFY(d->summary().startsWith(QString("Wrote dw%1.fmu").arg(version)));
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray zip = f.readAll();
      QVERIFY(zip.startsWith("PK\x03\x04"));
      const QByteArray platform = version == 3 ? "binaries/x86_64-linux/" : "binaries/linux64/";
      for (const QByteArray& name : {QByteArray("modelDescription.xml"), QByteArray("resources/project.json"),
                                     platform + "elastokin.so", platform + "elastokin-x86-64-v3.so"})
        QVERIFY2(zip.contains(name), name.constData());
      QVERIFY(w.statusBar()->currentMessage().startsWith(QString("Wrote dw%1.fmu").arg(version)));
      QVERIFY(!zip.contains("sources/README.txt"));
    }
    // With the sources (real-time targets): the engine's units, Eigen, the licences, and the build
    // description (FMI 3) or the model description's list (FMI 2).
    d->sourcesCheck()->setChecked(true);
    for (int version : {3, 2}) {
      d->versionChoice()->setCurrentIndex(version == 3 ? 0 : 1);
      const QString path = kArtefacts + QString("/dw%1-sources.fmu").arg(version);
      QFile::remove(path);
      QCOMPARE(d->exportTo(path), QString());
      QVERIFY2(d->summary().contains("with sources"), qPrintable(d->summary()));
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray zip = f.readAll();
      for (const QByteArray& name : {QByteArray("sources/engine/integrators/lsrt2.cpp"), QByteArray("sources/fmu/fmi3_functions.cpp"),
                                     QByteArray("sources/Eigen/Core"), QByteArray("sources/README.txt"),
                                     QByteArray("documentation/licenses/MPL-2.0.txt"),
                                     QByteArray("documentation/licenses/GPL-3.0-or-later.txt")})
        QVERIFY2(zip.contains(name), name.constData());
      QCOMPARE(zip.contains("sources/buildDescription.xml"), version == 3);
      QVERIFY(!zip.contains("sources/engine/solvers/klu_solver.cpp"));
    }
    d->sourcesCheck()->setChecked(false);
    // A place it cannot be written: the writer's message, nothing else changed.
    QVERIFY(d->exportTo("/proc/no/such/folder/x.fmu").contains("/proc/no/such/folder"));
    QVERIFY(d->summary().startsWith("Not exported"));
    d->hide();
  }
#endif

  // The workbench runs in the user's locale (CTest sets de_DE.UTF-8, where the C library reads
  // and writes a decimal comma): the full vehicle's road tables read, a run goes, and the files it
  // writes (project, results CSV) hold points, as in every other locale.
  void fullVehicleInTheUsersLocale() {
    const QString numeric = QString::fromLatin1(std::setlocale(LC_NUMERIC, nullptr));
    qInfo("process locale for numbers: %s", qPrintable(numeric));
    if (!numeric.startsWith("de_DE")) QSKIP("not run under de_DE.UTF-8 (CTest runs it so)");
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/full_vehicle.json"));
    auto* loadCase = w.findChild<QComboBox*>("loadCase");
    QVERIFY(loadCase);
    loadCase->setCurrentText("random road");
    QCOMPARE(loadCase->currentText(), QString("random road"));
    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.startRun(0.05);
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.first().first().toBool(), qPrintable(w.lastRunMessage()));
    QCOMPARE(static_cast<int>(w.plots()->history()->times().size()), 51);
    const QString csv = kArtefacts + "/road_de.csv";
    QCOMPARE(w.plots()->history()->exportCsv(csv), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    f.readLine();
    const QString second = QString::fromUtf8(f.readLine()).trimmed();
    QVERIFY2(second.startsWith("0,") && second.contains('.') && second.count(',') > 5, qPrintable(second));
    const QString saved = kArtefacts + "/full_vehicle_de.json";
    w.document()->saveAs(saved);
    const ek::Project a = ek::readProject((kRoot + "/projects/full_vehicle.json").toStdString());
    const ek::Project b = ek::readProject(saved.toStdString());
    // Saved elsewhere, the road tables are named from the new folder: the same files.
    QCOMPARE(ek::writeProjectText(b), ek::writeProjectText(ek::relocatedProject(a, saved.toStdString())));
    const std::vector<std::string> before = ek::referencedFiles(a), after = ek::referencedFiles(b);
    QCOMPARE(after.size(), before.size());
    QVERIFY(!after.empty());
    for (std::size_t k = 0; k < after.size(); ++k) QVERIFY(ek::sameFile(after[k], before[k]));
  }

  /// The double wishbone with a flexible anti-roll bar: the workbench opens it, shows the bar as
  /// one body in the topology and the 3D view (its modal coordinates are no bodies there), runs a
  /// load case into the plots and saves it with its flexible-body table.
  void flexibleBarProjectOpensRunsAndSaves() {
    MainWindow w;
    QVERIFY(openShown(w, kRoot + "/projects/double_wishbone_flexible_bar.json"));
    const ek::Project& project = w.document()->project();
    QCOMPARE(int(project.flexibleBodies.size()), 1);
    const auto m = ek::SuspensionModel::build(project);
    const int freeProjectBodies = static_cast<int>(
        std::count_if(project.bodies.begin(), project.bodies.end(), [](const ek::BodyRow& b) { return !b.fixed; }));
    QCOMPARE(w.topology()->nodeCount(), freeProjectBodies + 1);
    QCOMPARE(w.topology()->edgeCount(), static_cast<int>(m->bushings.size() + m->p2ps.size()));
    QCOMPARE(w.sparsity()->blocksShown(), m->pattern.nBlocks());
    QVERIFY(firstRender(w));
    QSignalSpy finished(&w, &MainWindow::runFinished);
    w.startRun(0.05);
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.first().first().toBool(), qPrintable(w.lastRunMessage()));
    QCOMPARE(static_cast<int>(w.plots()->history()->times().size()), 51);
    settle();
    const QImage shot = w.view3d()->grab3D();
    QVERIFY(shot.save(kArtefacts + "/flexible_bar_3d.png"));
    int coloured = 0;  // the bodies drawn (not the background's greys)
    for (int y = 0; y < shot.height(); y += 2)
      for (int x = 0; x < shot.width(); x += 2) {
        const QColor c = shot.pixelColor(x, y);
        coloured += std::abs(c.red() - c.blue()) > 40 || std::abs(c.green() - c.blue()) > 40;
      }
    QVERIFY2(coloured > 200, qPrintable(QString::number(coloured)));
    const QString saved = kArtefacts + "/flexible_bar_saved.json";
    w.document()->saveAs(saved);
    QCOMPARE(ek::writeProjectText(ek::readProject(saved.toStdString())), ek::writeProjectText(project));
  }

  /// File > Open example lists the shipped projects by name and opens the one chosen, as a user
  /// finds them without knowing the folder.
  void examplesMenuOpensTheShippedProjects() {
    MainWindow w;
    QVERIFY(!w.examplesMenu()->isEnabled());
    w.setShippedProjects(kRoot + "/projects");
    QVERIFY(w.examplesMenu()->isEnabled());
    QStringList names;
    QAction* twistBeam = nullptr;
    for (QAction* a : w.examplesMenu()->actions()) {
      names << a->text();
      if (a->text() == "Twist-beam rear axle (compact car)") twistBeam = a;
    }
    qInfo("examples: %s", qPrintable(names.join(" | ")));
    QVERIFY(names.contains("MacPherson strut front axle (passenger car)"));
    QVERIFY(names.contains("Full vehicle on a four-post rig"));
    QVERIFY(twistBeam);
    QCOMPARE(twistBeam->toolTip(), QString("twist_beam_rear.json"));
    QStringList sorted = names;
    sorted.sort();
    QCOMPARE(names, sorted);
    twistBeam->trigger();
    const ek::Project& p = w.document()->project();
    QCOMPARE(QString::fromStdString(p.name), QString("Twist-beam rear axle (compact car)"));
    QCOMPARE(p.flexibleBodies.size(), std::size_t(1));
    QVERIFY(w.isShippedProject(w.document()->path()));
  }

  /// Ctrl+S on a shipped project never replaces it: the dialog asks for a copy's place (not the
  /// shipped folder); after that, Save goes to the copy without asking.
  void saveKeepsTheShippedProjects() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("shipped") && QDir(dir.path()).mkpath("mine"));
    const QString shipped = dir.filePath("shipped/quarter.json"), mine = dir.filePath("mine/quarter.json");
    QVERIFY(QFile::copy(kRoot + "/projects/quarter_double_wishbone.json", shipped));
    QFile original(shipped);
    QVERIFY(original.open(QIODevice::ReadOnly));
    const QByteArray before = original.readAll();
    original.close();
    MainWindow w;
    w.setShippedProjects(dir.filePath("shipped"));
    QVERIFY(openShown(w, shipped));
    QVERIFY(w.isShippedProject(shipped));
    QVERIFY(!w.isShippedProject(mine));
    QAction* saveAction = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->shortcut() == QKeySequence(QKeySequence::Save)) saveAction = a;
    QVERIFY(saveAction);
    QString title, startDir;
    bool asked = false;
    const auto answer = [&](const QString& file) {
      QTimer::singleShot(300, [&, file] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        asked = true;
        title = dialog->windowTitle();
        startDir = dialog->directory().absolutePath();
        dialog->selectFile(file);
        static_cast<QDialog*>(dialog)->accept();  // QFileDialog::accept() is protected: the virtual call
      });
    };
    answer(mine);
    saveAction->trigger();
    QVERIFY2(asked, "Save on a shipped project did not ask where to save");
    QCOMPARE(title, QString("Save a copy of the shipped project"));
    QVERIFY2(QFileInfo(startDir).canonicalFilePath() != QFileInfo(dir.filePath("shipped")).canonicalFilePath(), qPrintable(startDir));
    QVERIFY(original.open(QIODevice::ReadOnly));
    QCOMPARE(original.readAll(), before);
    QCOMPARE(w.document()->path(), mine);
    QVERIFY(QFileInfo::exists(mine));
    // The copy is the user's: Save writes it without asking.
    asked = false;
    answer(dir.filePath("mine/other.json"));
    saveAction->trigger();
    QTest::qWait(500);
    QVERIFY(!asked);
    QVERIFY(!QFileInfo::exists(dir.filePath("mine/other.json")));
  }

  void badProjectsKeepTheOpenOne() {
    MainWindow w;
    w.setQuiet(true);
    QVERIFY(w.openProject(kRoot + "/projects/quarter_double_wishbone.json"));
    const auto before = w.document()->project();
    const QStringList bad = QDir(kRoot + "/tests/data/bad_input").entryList({"*.json"});
    QVERIFY(bad.size() >= 15);
    for (const QString& name : bad) {
      QVERIFY2(!w.openProject(kRoot + "/tests/data/bad_input/" + name), qPrintable(name));
      QVERIFY2(w.lastDialogText().contains(name), qPrintable(w.lastDialogText()));  // the engine's text names the file
      QVERIFY(w.document()->project() == before);
    }
  }
};

int main(int argc, char** argv) {
  const char* display = std::getenv("DISPLAY");
  if (!display || !*display) {
    ek::cprintf("SKIP: no display (run under xvfb-run)\n");
    return 77;
  }
  VtkWidget::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  TestWorkbench t;
  return QTest::qExec(&t, argc, argv);
}
#include "tst_workbench.moc"
