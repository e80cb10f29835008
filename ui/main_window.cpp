// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QLocale>
#include <QCloseEvent>
#include <QComboBox>
#include <QCursor>
#include <QDesktopServices>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QStandardPaths>
#include <QEventLoop>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QLineEdit>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/project_diff.h"
#include "engine/model/project_io.h"
#include "ui/document/number_entry.h"
#include "engine/analysis/bushing_dynamics.h"
#include "engine/model/adams_export.h"
#include "ui/panels/analyses_panel.h"
#include "ui/panels/manoeuvres_panel.h"
#include "engine/model/adams_import.h"
#include "ui/panels/bushing_dynamics_panel.h"
#include "ui/panels/curve_editor.h"
#include "ui/document/file_output.h"
#ifdef ELASTOKIN_HAVE_FMU
#include "ui/panels/fmu_export_dialog.h"
#endif
#include "ui/panels/flexible_import_dialog.h"
#include "ui/panels/property_import_dialog.h"
#include "ui/document/mirror.h"
#include "ui/panels/playback_bar.h"
#include "ui/panels/table_pane.h"
#include "ui/panels/vehicle_form.h"
#include "ui/run/run_controller.h"
#include "ui/views/plot_panel.h"
#include "ui/panels/problems_panel.h"
#include "ui/document/results_file.h"
#include "ui/panels/signal_form.h"
#include "ui/panels/study_dialog.h"
#include "ui/views/modes_view.h"
#include "ui/views/sparsity_view.h"
#include "ui/views/topology_view.h"
#include "ui/document/units.h"
#include "ui/views/view3d.h"
#include "ui/views/vtk_widget.h"

namespace ek::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), doc_(new ProjectDocument(this)), runs_(new RunHistory(this)), run_(new RunController(runs_, this)) {
  useOneNumberFormat();  // before any spin box or plot axis is built
  setLocale(QLocale());  // this window was made before: its children inherit its locale
  auto* split = new QSplitter(this);
  tables_ = new TablePane(doc_, split);
  connect(tables_, &TablePane::designVariableRequested, this, [this](const QString& p) { addDesignVariable(p); });
  connect(tables_, &TablePane::fmuParameterRequested, this, &MainWindow::addFmuParameter);
  connect(tables_, &TablePane::bushingRowChanged, this,
          [this](int id) { dynamics_->showBushing(id, dynamics_->currentDirection()); });
  connect(tables_, &TablePane::editRejected, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
  connect(tables_, &TablePane::problem, this, [this](const QString& title, const QString& text) { message(title, text); });
  centre_ = new QTabWidget(split);
  centre_->setUsesScrollButtons(true);
  centre_->addTab(build3DPage(), tr("3D"));
  plots_ = new PlotPanel(runs_, centre_, 2);
  plots_->setPreferred({"wheel centre x", "bushing fx"});
  centre_->addTab(plots_, tr("Plots"));
  curves_ = new CurveEditor(doc_, centre_);
  centre_->addTab(curves_, tr("Curves"));
  dynamics_ = new BushingDynamicsPanel(doc_, centre_);
  centre_->addTab(dynamics_, tr("Bushing dynamics"));
  topology_ = new TopologyView(centre_);
  centre_->addTab(topology_, tr("Topology"));
  sparsity_ = new SparsityView(centre_);
  centre_->addTab(sparsity_, tr("Sparsity"));
  modes_ = new ModesView(centre_);
  centre_->addTab(modes_, tr("Modes"));
  analyses_ = new AnalysesPanel(centre_);
  centre_->addTab(analyses_, tr("Analyses"));
  manoeuvres_ = new ManoeuvresPanel(centre_);
  centre_->addTab(manoeuvres_, tr("Manoeuvres"));
  connect(analyses_, &AnalysesPanel::modeFrame, this, [this](const Frame& f) {
    if (!run_->isRunning()) view3d_->showFrame(f);
  });
  connect(analyses_, &AnalysesPanel::showModeRequested, this, [this] { showTab(tr("3D")); });
  connect(modes_, &ModesView::animate, this, [this](int flex, int mode) {
    if (run_->isRunning()) return;
    view3d_->animateMode(flex, mode);
    showTab(tr("3D"));
  });
  // A K&C sweep's instant centres and roll centre at its design position, drawn in 3D.
  connect(analyses_, &AnalysesPanel::centresChanged, this, [this] {
    std::vector<View3D::Mark> marks;
    if (const auto* r = analyses_->current())
      for (const KcCentre& c : kcCentresAtDesign(*r)) marks.push_back({c.name, c.at});
    view3d_->setMarks(marks);
  });
  connect(topology_, &TopologyView::picked, this, [this](Table t, int id) { select(t, id); });
  split->addWidget(tables_);
  split->addWidget(centre_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  setCentralWidget(split);

  buildStatusBar();
  connectRun();
  buildRunBar();
  buildMenus();
  connect(doc_, &ProjectDocument::projectReset, this, [this] {
    clearResults();
    tables_->rebuild();
    rebuildModel();
    updateTitle();
  });
  connect(doc_->undoStack(), &QUndoStack::cleanChanged, this, [this] { updateTitle(); });
  connect(doc_->undoStack(), &QUndoStack::indexChanged, this, [this] {
    rebuildModel();
    // Results of an earlier version stay marked until the next run, also after an undo back to it.
    markRunsStale(tr("edited, then undone or redone"));
  });
  resize(1340, 740);
}

QWidget* MainWindow::build3DPage() {
  auto* page = new QWidget(centre_);
  auto* v3 = new QVBoxLayout(page);
  v3->setContentsMargins(0, 0, 0, 0);
  staleView_ = new QLabel(page);
  staleView_->setWordWrap(true);
  staleView_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  staleView_->setStyleSheet("color: #9a5b00; font-weight: bold;");
  staleView_->setVisible(false);
  v3->addWidget(staleView_);
  view3d_ = new View3D(page);
  v3->addWidget(view3d_, 1);
  auto* viewBar = new QHBoxLayout;
  for (auto [label, preset] : {std::pair{tr("Front"), View3D::Preset::Front}, std::pair{tr("Side"), View3D::Preset::Side},
                               std::pair{tr("Top"), View3D::Preset::Top}, std::pair{tr("Iso"), View3D::Preset::Iso}}) {
    auto* b = new QPushButton(label, page);
    b->setToolTip(tr("Look from this direction, everything in view"));
    connect(b, &QPushButton::clicked, this, [this, p = preset] { view3d_->setView(p); });
    viewBar->addWidget(b);
  }
  auto* fit = new QPushButton(tr("Fit"), page);
  fit->setToolTip(tr("Keep the direction, bring everything into view"));
  connect(fit, &QPushButton::clicked, this, [this] { view3d_->fitAll(); });
  viewBar->addWidget(fit);
  auto* ortho = new QCheckBox(tr("orthographic"), page);
  ortho->setObjectName("orthographic");
  ortho->setToolTip(tr("Parallel projection: lengths and angles read true in the front, side and top views"));
  connect(ortho, &QCheckBox::toggled, this, [this](bool on) { view3d_->setOrthographic(on); });
  viewBar->addWidget(ortho);
  viewBar->addWidget(new QLabel(tr("Exaggeration:"), page));
  exaggeration_ = new QDoubleSpinBox(page);
  exaggeration_->setRange(1, 200);
  exaggeration_->setValue(1);
  exaggeration_->setSuffix(" x");
  exaggeration_->setObjectName("exaggeration");
  exaggeration_->setToolTip(tr("Scales the motion from the run's initial equilibrium (the design pose before a run)"));
  connect(exaggeration_, &QDoubleSpinBox::valueChanged, this, [this](double v) { view3d_->setExaggeration(v); });
  viewBar->addWidget(exaggeration_);
  viewBar->addWidget(new QLabel(tr("Deformation:"), page));
  auto* deformation = new QDoubleSpinBox(page);
  deformation->setRange(1, 10000);
  deformation->setDecimals(0);
  deformation->setValue(1);
  deformation->setSuffix(" x");
  deformation->setObjectName("deformation");
  deformation->setToolTip(tr("Scales the flexible bodies' elastic deformation (their modal coordinates) as drawn"));
  connect(deformation, &QDoubleSpinBox::valueChanged, this, [this](double v) { view3d_->setDeformationScale(v); });
  viewBar->addWidget(deformation);
  auto* ghost = new QCheckBox(tr("design pose"), page);
  ghost->setToolTip(tr("Show the bodies as modelled as a translucent ghost"));
  connect(ghost, &QCheckBox::toggled, this, [this](bool on) { view3d_->setGhost(on); });
  viewBar->addWidget(ghost);
  viewBar->addStretch();
  v3->addLayout(viewBar);
  playback_ = new PlaybackBar(&run_->frames(), page);
  connect(playback_, &PlaybackBar::frameChosen, this, [this](const Frame& f) { view3d_->showFrame(f); });
  v3->addWidget(playback_);
  // The 3D playback shows the newest run's poses: stale with it.
  connect(runs_, &RunHistory::staleChanged, this, [this](bool stale, const QString& text) {
    staleView_->setText(displayChanges(text) + tr(" The time slider plays the poses of that run."));
    staleView_->setVisible(stale && !run_->frames().empty());
  });
  connect(&Units::instance(), &Units::changed, this, [this] {
    if (runs_->isStale()) staleView_->setText(displayChanges(runs_->staleText()) + tr(" The time slider plays the poses of that run."));
  });
  return page;
}

void MainWindow::buildStatusBar() {
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(160);
  rtf_ = new QLabel(this);
  statusBar()->addPermanentWidget(rtf_);
  errorLabel_ = new QLabel(this);
  errorLabel_->setObjectName("errorEstimate");
  // The error estimate can be long: elided to the status bar, in full in its tooltip.
  errorLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  errorLabel_->setMinimumWidth(120);
  statusBar()->addPermanentWidget(errorLabel_, 1);
  statusBar()->addPermanentWidget(progress_);
}

void MainWindow::connectRun() {
  // Software OpenGL (llvmpipe) needs 30-70 ms per frame: the controller hands over the newest
  // pose only after an idle interval of three times the last render time (run_controller.h).
  run_->setRenderCost([this] { return static_cast<double>(view3d_->vtkWidget()->lastRenderMs()); });
  connect(run_, &RunController::started, this, [this] {
    plots_->setRunning(true);
    progress_->setRange(0, 1000);
  });
  connect(run_, &RunController::firstFrame, this, [this](const Frame& f) { view3d_->setReference(f); });
  connect(run_, &RunController::renderFrame, this, [this](const Frame& f) { view3d_->showFrame(f); });
  connect(run_, &RunController::progress, this, [this](double t, double duration, double rtf) {
    progress_->setValue(static_cast<int>(1000.0 * t / std::max(duration, 1e-9)));
    rtf_->setText(tr("t = %1 s   real-time factor %2").arg(t, 0, 'f', 2).arg(rtf, 0, 'f', 3));
    rtf_->setMinimumWidth(rtf_->sizeHint().width());  // not squeezed by a long status message
  });
  connect(run_, &RunController::errorEstimateChanged, this, [this](const QString& text, bool warn) {
    errorLabel_->setStyleSheet(warn ? QStringLiteral("color: #c00000; font-weight: bold") : QString());
    errorLabel_->setText(elidedFor(errorLabel_, text));
    errorLabel_->setToolTip(text + "\n" +
                            tr("The integrator's local error estimate of the positions, per step, from its "
                               "embedded lower-order solution (LSRT2: first order, ROS34PW2: second order; "
                               "docs/method.md); a smaller step lowers it"));
  });
  connect(run_, &RunController::finished, this, &MainWindow::onFinished);
}

QString MainWindow::elidedFor(QLabel* label, const QString& text) const {
  const int width = std::max(120, statusBar()->width() / 2);
  return label->fontMetrics().elidedText(text, Qt::ElideRight, width);
}

void MainWindow::markRunsStale(const QString& ifNothing) {
  if (runs_->empty()) return;
  QStringList parts;
  for (const auto& c : describeChanges(runs_->run(runs_->count() - 1).project, doc_->project(), 3))
    parts << QString::fromStdString(c);
  if (!parts.isEmpty() || !ifNothing.isEmpty()) runs_->markStale(parts.isEmpty() ? ifNothing : parts.join("; "));
}

MainWindow::~MainWindow() {
  // The document outlives the views among the children: its undo stack's clear() on destruction
  // would otherwise rebuild the model into views already deleted.
  doc_->undoStack()->disconnect(this);
  doc_->disconnect(this);
  run_->stop();
  // The panes hold views of the document's models: they go before the document (the first child).
  delete takeCentralWidget();
}

TableModel* MainWindow::tableModel(Table t) { return tables_->model(t); }
ProblemsPanel* MainWindow::problems() { return tables_->problems(); }
QSlider* MainWindow::timeSlider() const { return playback_->slider(); }
QLabel* MainWindow::timeLabel() const { return playback_->timeLabel(); }
QPushButton* MainWindow::playButton() const { return playback_->playButton(); }
const std::vector<Frame>& MainWindow::frames() const { return run_->frames(); }
bool MainWindow::isRunning() const { return run_->isRunning(); }
QString MainWindow::lastRunMessage() const { return run_->lastMessage(); }
QString MainWindow::lastRealtimeReport() const { return run_->realtimeReport(); }
QString MainWindow::lastErrorEstimate() const { return run_->errorEstimate(); }
const SimulationWorker* MainWindow::worker() const { return run_->worker(); }

void MainWindow::select(Table t, int id) {
  tables_->select(t, id);
  if (t == Table::Bushings) dynamics_->showBushing(id, dynamics_->currentDirection());
  if (!model_) return;
  int body = -1;
  if (t == Table::Bodies) body = model_->bodyById(id).value;
  else if (t == Table::Bushings && model_->bushingById(id) >= 0)
    body = model_->markers[model_->bushings[model_->bushingById(id)].i.value].body.value;
  else if (t == Table::P2Ps && model_->p2pById(id) >= 0)
    body = model_->markers[model_->p2ps[model_->p2pById(id)].i.value].body.value;
  view3d_->highlight(body);
}

bool MainWindow::goToCell(const QString& table, const QString& row, const QString& field) {
  return tables_->goToCell(table, row, field);
}

void MainWindow::showTable(const QString& title) { tables_->showTable(title); }

void MainWindow::showTab(const QString& title) {
  for (int k = 0; k < centre_->count(); ++k)
    if (centre_->tabText(k) == title) centre_->setCurrentIndex(k);
}

void MainWindow::rebuildModel() {
  // Every error and warning of the tables, listed with a way to their cells.
  const Diagnostics d = check(doc_->project());
  tables_->problems()->setDiagnostics(d.items(), d.errorCount() + d.warningCount() - d.items().size(), true);
  // The 3D view and the run use the compiled model of the current tables, when they are valid.
  // The load cases come from the tables, valid or not.
  const QString current = loadCase_->currentText();
  loadCase_->clear();
  for (const auto& lc : doc_->project().loadCases) loadCase_->addItem(QString::fromStdString(lc.name));
  if (loadCase_->findText(current) >= 0) loadCase_->setCurrentText(current);
  try {
    model_ = SuspensionModel::build(doc_->project());
    view3d_->setModel(model_);
    topology_->setModel(model_);
    sparsity_->setModel(model_);
    modes_->setModel(model_);
    analyses_->setModel(model_);
    manoeuvres_->setModel(model_);
    runAct_->setEnabled(!run_->isRunning() && loadCase_->count() > 0);
    tables_->setError({});
  } catch (const ModelError& e) {
    model_.reset();
    analyses_->setModel(nullptr);
    manoeuvres_->setModel(nullptr);
    runAct_->setEnabled(false);
    tables_->setError(QString::fromStdString(e.what()));
  }
}

void MainWindow::buildRunBar() {
  QToolBar* bar = addToolBar(tr("Run"));
  // The run's buttons first: on a narrow screen the toolbar's overflow takes the settings at its
  // end, never Stop.
  runAct_ = bar->addAction(tr("Run"), this, [this] { startRun(); });
  runAct_->setToolTip(tr("Run the load case on a worker thread; every run is kept in the Plots tab (F5)"));
  runAct_->setShortcut(QKeySequence(Qt::Key_F5));
  pauseAct_ = bar->addAction(tr("Pause"), this, [this] {
    if (run_->isPaused()) {
      run_->resume();
      pauseAct_->setText(tr("Pause"));
    } else {
      run_->pause();
      pauseAct_->setText(tr("Resume"));
    }
  });
  stopAct_ = bar->addAction(tr("Stop"), this, [this] { run_->stop(); });
  QAction* reset = bar->addAction(tr("Reset"), this, [this] {
    if (run_->isRunning()) return;
    run_->clearFrames();
    playback_->clear();
    if (model_) view3d_->setModel(model_);
  });
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Load case "), bar));
  loadCase_ = new QComboBox(bar);
  loadCase_->setObjectName("loadCase");
  bar->addWidget(loadCase_);
  bar->addWidget(new QLabel(tr("  method "), bar));
  integrator_ = new QComboBox(bar);
  integrator_->setObjectName("integrator");
  // The fixed-step methods (docs/integrators.md); the item data is the engine's name.
  integrator_->addItem(tr("ROS34PW2 (order 3)"), "ros34pw2");
  integrator_->addItem(tr("LSRT2 (order 2)"), "lsrt2");
  integrator_->addItem(tr("BDF2, 2 Newton iterations (order 2)"), "bdf2");
  integrator_->addItem(tr("generalized-alpha, 2 Newton iterations (order 2)"), "galpha");
  integrator_->addItem(tr("generalized-alpha, iteration matrix of the first step (paper 002)"), "galpha-frozen");
  integrator_->addItem(tr("linear-implicit Euler (order 1)"), "lie");
  // As wide as a short name: the long ones show in the open list (the toolbar fits 1366 px).
  integrator_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  integrator_->setMinimumContentsLength(18);
  loadCase_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  loadCase_->setMinimumContentsLength(12);
  bar->addWidget(integrator_);
  bar->addWidget(new QLabel(tr("  dt [ms] "), bar));
  dt_ = new QDoubleSpinBox(bar);
  dt_->setDecimals(3);
  dt_->setRange(0.01, 10.0);
  dt_->setValue(1.0);
  bar->addWidget(dt_);
  bar->addWidget(new QLabel(tr("  linearize every "), bar));
  linEvery_ = new QSpinBox(bar);
  linEvery_->setObjectName("linEvery");
  linEvery_->setRange(1, 100);
  bar->addWidget(linEvery_);
  bar->addWidget(new QLabel(tr("  solver "), bar));
  solver_ = new QComboBox(bar);
  solver_->addItems({"topology", "klu", "dense"});
  bar->addWidget(solver_);
  // Choosing a method sets its measured best linearization interval (docs/integrators.md: the
  // W-method keeps its accuracy linearized every 5th step, the others need every step); the
  // default is the recommendation: ROS34PW2 at 1 ms, linearized every 5th step.
  auto preset = [this] { linEvery_->setValue(integrator_->currentData().toString() == "ros34pw2" ? 5 : 1); };
  connect(integrator_, &QComboBox::currentIndexChanged, this, preset);
  preset();
  bar->addWidget(new QLabel(tr("  warn above [µm] "), bar));
  warnError_ = new QDoubleSpinBox(bar);
  warnError_->setObjectName("warnError");
  warnError_->setDecimals(3);
  warnError_->setRange(0.0, 1e6);
  warnError_->setSpecialValueText(tr("off"));
  warnError_->setValue(0.0);
  warnError_->setToolTip(tr("Warn (status bar in red, with the time it first happened) when a step's local error "
                            "estimate of the positions exceeds this many micrometres (LSRT2 and ROS34PW2); "
                            "off: no warning"));
  bar->addWidget(warnError_);
  realtime_ = new QCheckBox(tr("real time"), bar);
  bar->addWidget(realtime_);
  loadCase_->setToolTip(tr("The load case to run: its input signals and duration (Load cases and Signals tables)"));
  integrator_->setToolTip(tr("Integration method (docs/integrators.md): ROS34PW2, a four-stage W-method of order "
                             "3, the default: within 0.13 % of the reference on both axles' load cases at 1 ms, "
                             "linearized every 5th step; LSRT2, the papers' two-stage real-time method (1.7 % on "
                             "the multilink's LC2 at 1 ms, cheaper per step); BDF2 with two Newton iterations "
                             "(paper 004); generalized-alpha (rho_inf 0.9) with its iteration matrix refreshed or from "
                             "the first step (paper 002); the linear-implicit Euler method for comparison. Choosing "
                             "one sets its "
                             "best linearization interval"));
  dt_->setToolTip(tr("Fixed step of the integrator; 1 ms is the real-time setting"));
  linEvery_->setToolTip(tr("Linearize (Jacobians) every N-th step: ROS34PW2 keeps its accuracy at 5; LSRT2, BDF2 "
                           "and linear-implicit Euler are accurate at 1"));
  solver_->setToolTip(tr("Linear solver of the integrator's stage equations: topology (block elimination along the "
                         "suspension, the fastest), klu (SuiteSparse) or dense (LU)"));
  realtime_->setToolTip(tr("Pace the steps to the wall clock, as on a test rig; missed deadlines are counted"));
  pauseAct_->setToolTip(tr("Pause or resume the run"));
  stopAct_->setToolTip(tr("Stop the run; the results up to then are kept"));
  reset->setToolTip(tr("Show the design pose in 3D and forget the playback (the kept runs stay)"));
  pauseAct_->setEnabled(false);
  stopAct_->setEnabled(false);
}

void MainWindow::setRealtime(bool on) { realtime_->setChecked(on); }

void MainWindow::clearResults() {
  // Nothing of the previous project stays on screen: runs, curves, poses, status.
  if (run_->isRunning()) run_->stop();
  runs_->clear();
  run_->clearFrames();
  playback_->clear();
  staleView_->setVisible(false);
  analyses_->clearResults();
  manoeuvres_->clearResults();
  view3d_->setModel(nullptr);
  topology_->setModel(nullptr);
  sparsity_->setModel(nullptr);
  modes_->setModel(nullptr);
  progress_->reset();
  rtf_->clear();
  errorLabel_->clear();
  errorLabel_->setToolTip({});
  rtf_->setMinimumWidth(0);
  statusBar()->clearMessage();
}

void MainWindow::startRun(double duration) {
  if (run_->isRunning() || !model_ || loadCase_->count() == 0) return;
  analyses_->stopAnimation();
  RunSettings s;
  s.loadCase = loadCase_->currentText();
  s.dt = dt_->value() * 1e-3;
  s.linearizeEvery = linEvery_->value();
  s.solver = solver_->currentText();
  s.integrator = integrator_->currentData().toString();
  const QString method = QStringLiteral("%1, dt %2 ms%3")
                             .arg(s.integrator)
                             .arg(dt_->value())
                             .arg(s.linearizeEvery > 1 ? QStringLiteral(", lin-every %1").arg(s.linearizeEvery) : QString());
  s.realtime = realtime_->isChecked();
  s.warnError = warnError_->value() * 1e-6;
  s.duration = duration;
  if (!run_->start(model_, s, doc_->project(), method)) return;
  playback_->setRunning(true);
  runAct_->setEnabled(false);
  pauseAct_->setEnabled(true);
  stopAct_->setEnabled(true);
  errorLabel_->setStyleSheet(QString());
  statusBar()->showMessage(tr("running %1 ...").arg(s.loadCase));
}

void MainWindow::onFinished(const QString& msg, bool completed) {
  const auto& frames = run_->frames();
  if (!frames.empty()) view3d_->showFrame(frames.back());
  plots_->setRunning(false);
  staleView_->setVisible(runs_->isStale() && !frames.empty());
  runAct_->setEnabled(model_ != nullptr);
  pauseAct_->setEnabled(false);
  pauseAct_->setText(tr("Pause"));
  stopAct_->setEnabled(false);
  playback_->setRunning(false);
  QString status = completed ? tr("run complete") : msg;
  const QString realtime = run_->realtimeReport();
  if (!realtime.isEmpty()) {  // its first line: "paced to the wall clock: N of M deadlines missed ..."
    status += tr("; real time: ") + realtime.section('\n', 0, 0).section(": ", 1);
    if (realtime.contains("ENDED BEHIND")) status += tr(", ended behind the wall clock");
  }
  if (!run_->errorEstimate().isEmpty()) status += "; " + run_->errorEstimate();
  statusBar()->showMessage(status, 10000);
  if (!completed && !msg.startsWith("stopped")) message(tr("Run stopped"), msg);
  emit runFinished(completed);
}

StudyDialog* MainWindow::studyDialog() {
  if (!study_) study_ = new StudyDialog(doc_, this);
  return study_;
}

FmuExportDialog* MainWindow::fmuExportDialog() {
#ifdef ELASTOKIN_HAVE_FMU
  if (!fmuExport_) {
    fmuExport_ = new FmuExportDialog(this);
    connect(fmuExport_, &FmuExportDialog::exported, this,
            [this](const QString&, const QString& summary) { statusBar()->showMessage(summary, 10000); });
    // The dialog follows the project while it is open.
    auto follow = [this] {
      if (fmuExport_->isVisible()) fmuExport_->setProject(doc_->project());
    };
    connect(doc_, &ProjectDocument::tableChanged, fmuExport_, follow);
    connect(doc_, &ProjectDocument::projectReset, fmuExport_, follow);
  }
  fmuExport_->setProject(doc_->project());
  return fmuExport_;
#else
  return nullptr;
#endif
}

void MainWindow::addFmuParameter(const QString& path) {
  if (FmuExportDialog* d = fmuExportDialog()) {
    d->addParameter(path);
    d->show();
    d->raise();
  }
}

QString MainWindow::addDesignVariable(const QString& path) {
  const QString err = studyDialog()->addVariable(path);
  if (!err.isEmpty()) {
    message(tr("Design variable"), err);
    return err;
  }
  studyDialog()->show();
  studyDialog()->raise();
  statusBar()->showMessage(tr("added %1 as a design variable of the study").arg(path), 6000);
  return {};
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New"), QKeySequence::New, this, [this] {
    if (!maybeSave()) return;
    Project p;
    p.name = "new project";
    BodyRow g;
    g.id = 0;
    g.name = "vehicle body";
    g.fixed = true;
    p.bodies.push_back(g);
    doc_->reset(p, QString());
  });
  file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(), tr("Projects (*.json)"));
    if (!path.isEmpty()) openProject(path);
  });
  recentMenu_ = file->addMenu(tr("Open &recent"));
  updateRecent(QString());
  examplesMenu_ = file->addMenu(tr("Open &example"));
  examplesMenu_->setEnabled(false);
  file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { save(false); });
  file->addAction(tr("Save &as..."), QKeySequence::SaveAs, this, [this] { save(true); });
  file->addSeparator();
  file->addAction(tr("&Import FE model or SID file onto the selected body..."), this, [this] {
    // The body the user is on: a row of the Bodies table, or of the Flexible bodies table.
    const Table t = tables_->currentTable();
    QTableView* view = tables_->currentView();
    const QModelIndex cur = view ? view->currentIndex() : QModelIndex();
    int body = -1;
    if (cur.isValid() && t == Table::Bodies) body = view->model()->index(cur.row(), 0).data().toInt();
    if (cur.isValid() && t == Table::FlexibleBodies && cur.row() < static_cast<int>(doc_->project().flexibleBodies.size()))
      body = doc_->project().flexibleBodies[static_cast<std::size_t>(cur.row())].body;
    if (body < 0)
      return message(tr("Import flexible body"), tr("Select a row of the Bodies or the Flexible bodies table first: the "
                                                   "file's body replaces that body's mass and makes it flexible."));
    const QString path = QFileDialog::getOpenFileName(this, tr("Import flexible body"), QString(),
                                                      tr("SID files and CalculiX decks (*.SID_FEM *.sid *.inp);;All files (*)"));
    if (path.isEmpty()) return;
    const bool deck = path.endsWith(".inp", Qt::CaseInsensitive);
    bool ok = true;
    const QString interfaces = QInputDialog::getText(
        this, tr("Import flexible body"),
        deck ? tr("Interface node sets of the deck onto markers of body %1 (SET=MARKER,...):").arg(body)
             : tr("Markers bound to nodes by id (NODE=MARKER,...; the others ride on the nearest node within 1 mm):"),
        QLineEdit::Normal, QString(), &ok);
    if (ok) importFlexibleBody(path, body, interfaces);
  });
  file->addAction(tr("Save &runs beside the project"), this, [this] {
    const QString err = saveResults();
    if (!err.isEmpty()) message(tr("Save runs"), err);
  });
  file->addAction(tr("Export results as &CSV..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), "results.csv", tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const QString err = runs_->exportCsv(path);
    if (!err.isEmpty()) message(tr("Export"), err);
  });
  QAction* fmuAction = file->addAction(tr("Export &FMU (co-simulation)..."), this, [this] {
    if (FmuExportDialog* d = fmuExportDialog()) {
      d->show();
      d->raise();
    }
  });
#ifdef ELASTOKIN_HAVE_FMU
  fmuAction->setStatusTip(tr("The project as a co-simulation FMU (FMI 3.0 or 2.0) for a driving simulator or another tool"));
#else
  fmuAction->setEnabled(false);
  fmuAction->setStatusTip(tr("This build has no FMU (configured with ELASTOKIN_FMU=OFF)"));
#endif
  for (int k = 0; k < plots_->plotCount(); ++k)
    file->addAction(tr("Export plot %1 (PNG, PDF, SVG)...").arg(k + 1), this, [this, k] {
      const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), "plot.png", tr("Images (*.png *.pdf *.svg)"));
      if (path.isEmpty()) return;
      const QString err = plots_->exportPlot(k, path);
      if (!err.isEmpty()) message(tr("Export"), err);
    });
  file->addAction(tr("Save 3D &screenshot..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("3D screenshot"), "view.png", tr("PNG (*.png)"));
    if (path.isEmpty()) return;
    QBuffer png;
    png.open(QIODevice::WriteOnly);
    const QString error = view3d_->grab3D().save(&png, "PNG") ? writeFileBytes(path, png.data(), tr("screenshot"))
                                                               : tr("%1: cannot draw the screenshot").arg(path);
    if (!error.isEmpty()) message(tr("Screenshot"), error);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcuts({QKeySequence::Redo, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)});
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  edit->addAction(tr("&Vehicle data..."), this, [this] {
    VehicleForm form(doc_->project().vehicle, this);
    if (form.exec() != QDialog::Accepted) return;
    QString error;
    const auto v = form.vehicle(&error);
    if (error.isEmpty()) error = editVehicle(doc_, v);
    if (!error.isEmpty()) message(tr("Vehicle data"), error);
  });
  edit->addAction(tr("&Mirror left to right"), this, [this] {
    const QString err = applyMirror(doc_);
    if (!err.isEmpty()) message(tr("Mirror left to right"), err);
    else statusBar()->showMessage(tr("mirrored the left side (undo with Ctrl+Z)"), 6000);
  });
  edit->addAction(tr("&Import Adams property file onto the selected row..."), this, [this] {
    // The bushing or P2P row the user is on in the tables.
    const Table t = tables_->currentTable();
    QTableView* view = tables_->currentView();
    const QModelIndex cur = view ? view->currentIndex() : QModelIndex();
    if ((t != Table::Bushings && t != Table::P2Ps) || !cur.isValid())
      return message(tr("Import property file"), tr("Select a row of the Bushings or the P2P table first: the file's "
                                                     "characteristics replace that element's."));
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Import Adams property file"), QString(),
        t == Table::Bushings ? tr("Bushing property files (*.bus *.hbu);;All files (*)")
                             : tr("Spring, damper, stop property files (*.spr *.dpr *.bum *.bst *.reb);;All files (*)"));
    if (!path.isEmpty()) importPropertyFile(path, t, view->model()->index(cur.row(), 0).data().toInt());
  });
  edit->addAction(tr("&Export the selected row as an Adams property file..."), this, [this] {
    const Table t = tables_->currentTable();
    QTableView* view = tables_->currentView();
    const QModelIndex cur = view ? view->currentIndex() : QModelIndex();
    if ((t != Table::Bushings && t != Table::P2Ps) || !cur.isValid())
      return message(tr("Export property file"), tr("Select a row of the Bushings or the P2P table first."));
    const int id = view->model()->index(cur.row(), 0).data().toInt();
    PropertyType type = PropertyType::Bushing;
    if (t == Table::P2Ps) {
      const QStringList laws{tr("spring (.spr)"), tr("damper (.dpr)"), tr("bump stop (.bum)"), tr("rebound stop (.reb)")};
      bool ok = false;
      const QString law = QInputDialog::getItem(this, tr("Export property file"), tr("Law of P2P element %1:").arg(id), laws, 0,
                                                false, &ok);
      if (!ok) return;
      const PropertyType types[] = {PropertyType::Spring, PropertyType::Damper, PropertyType::BumpStop, PropertyType::ReboundStop};
      type = types[laws.indexOf(law)];
    }
    const QStringList unitSets{"mm,newton,degrees,second", "meter,newton,radians,second", "mm,knewton,degrees,millisecond",
                               "inch,pound_force,degrees,second"};
    bool ok = false;
    const QString units = QInputDialog::getItem(this, tr("Export property file"), tr("Units (length, force, angle, time):"),
                                                unitSets, 0, false, &ok);
    if (!ok) return;
    const QString ext = QString::fromLatin1(propertyTypeName(type));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Adams property file"), QString("element%1.%2").arg(id).arg(ext),
                                                      tr("Adams property files (*.%1)").arg(ext));
    if (path.isEmpty()) return;
    const QString error = exportPropertyFile(path, type, id, units);
    message(tr("Export property file"), error.isEmpty() ? lastDialog_ : error, !error.isEmpty());
  });
  QMenu* studies = menuBar()->addMenu(tr("&Study"));
  studies->addAction(tr("&Parameter study..."), this, [this] {
    studyDialog()->show();
    studyDialog()->raise();
  });
  QMenu* view = menuBar()->addMenu(tr("&View"));
  QMenu* units = view->addMenu(tr("&Units"));
  auto* unitGroup = new QActionGroup(this);
  for (UnitSystem system : {UnitSystem::SI, UnitSystem::MmNDeg, UnitSystem::MmKNDeg}) {
    QAction* a = units->addAction(unitSystemName(system), this, [system] { Units::instance().setSystem(system); });
    a->setCheckable(true);
    a->setChecked(Units::instance().system() == system);
    unitGroup->addAction(a);
  }
  units->setToolTip(tr("Units of the tables, plots, readouts and exported CSV; the project file stays SI"));
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  const std::pair<QString, QString> docs[] = {{tr("&Getting started (README)"), "README.md"},
                                              {tr("&Project format"), "docs/project-format.md"},
                                              {tr("&Analyses (K&&C, frequency response, modes)"), "docs/analyses.md"},
                                              {tr("Parameter &studies and optimization"), "docs/studies.md"},
                                              {tr("&Bushing dynamics and identification"), "docs/bushing-identification.md"},
                                              {tr("Adams &property files (import, export)"), "docs/import.md"},
                                              {tr("&FMU export (FMI co-simulation)"), "docs/fmi.md"},
                                              {tr("&Method (equations, LSRT2)"), "docs/method.md"},
                                              {tr("&Validation"), "docs/validation.md"}};
  for (const auto& [label, file] : docs)
    help->addAction(label, this, [this, file = file] { openDocument(file); });
  help->addSeparator();
  help->addAction(tr("&About Elastokin"), this, [this] {
    message(tr("About Elastokin"),
            tr("Elastokin: real-time multibody simulation of wheel suspensions with elastic bushings. Every body is "
               "free (6 DOF) and coupled by bushings and point-to-point elements; the equations of motion are "
               "linearized analytically every step and integrated with the linear-implicit Rosenbrock method LSRT2 "
               "at a fixed step, the linear systems solved along the suspension's topology."),
            false);
  });
}

void MainWindow::setShippedProjects(const QString& folder) {
  shippedProjects_ = folder;
  examplesMenu_->clear();
  // Each shipped project under its own name (the file's "name"), in the order of the names.
  QList<QPair<QString, QString>> entries;
  for (const QFileInfo& f : QDir(folder).entryInfoList({"*.json"}, QDir::Files, QDir::Name)) {
    QFile file(f.filePath());
    if (!file.open(QIODevice::ReadOnly)) continue;
    const QJsonDocument json = QJsonDocument::fromJson(file.readAll());
    if (json.object().value("format").toString() != "elastokin-project") continue;
    const QString name = json.object().value("name").toString(f.completeBaseName());
    entries.append({name, f.filePath()});
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, path] : entries) {
    QAction* a = examplesMenu_->addAction(name, this, [this, path = path] {
      if (maybeSave()) openProject(path);
    });
    a->setToolTip(QFileInfo(path).fileName());
    a->setData(path);
  }
  examplesMenu_->setEnabled(!entries.isEmpty());
}

bool MainWindow::openProject(const QString& path, bool showErrors) {
  try {
    doc_->open(path);
    updateRecent(path);
    reopenResults();
    return true;
  } catch (const ModelError& e) {
    tables_->problems()->setDiagnostics(e.errors(), 0, false);
    if (showErrors) message(tr("Cannot open project"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::isShippedProject(const QString& path) const {
  if (shippedProjects_.isEmpty() || path.isEmpty()) return false;
  const QString folder = QFileInfo(shippedProjects_).canonicalFilePath();
  const QString file = QFileInfo(path).canonicalPath();
  return !folder.isEmpty() && (file == folder || file.startsWith(folder + '/'));
}

bool MainWindow::save(bool askPath) {
  QString path = doc_->path();
  const bool shipped = isShippedProject(path);
  if (shipped) {
    // Save on a shipped project keeps it as shipped: a copy, where the user chooses.
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    path = QFileDialog::getSaveFileName(this, tr("Save a copy of the shipped project"),
                                        QDir(documents.isEmpty() ? QDir::homePath() : documents)
                                            .filePath(QFileInfo(path).fileName()),
                                        tr("Projects (*.json)"));
  } else if (askPath || path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, tr("Save project"), path, tr("Projects (*.json)"));
  }
  if (path.isEmpty()) return false;
  try {
    doc_->saveAs(path);
    updateRecent(path);
    updateTitle();
    return true;
  } catch (const std::exception& e) {
    message(tr("Cannot save"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::maybeSave() {
  if (!doc_->isModified() || quiet_) return true;
  const auto r = QMessageBox::question(this, tr("Unsaved changes"), tr("Save the changes to the project?"),
                                       QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (r == QMessageBox::Cancel) return false;
  return r == QMessageBox::Discard || save(false);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (maybeSave()) e->accept();
  else e->ignore();
}

void MainWindow::updateTitle() {
  const QString name = doc_->path().isEmpty() ? tr("untitled") : QFileInfo(doc_->path()).fileName();
  setWindowTitle(QStringLiteral("%1%2 — Elastokin").arg(name, doc_->isModified() ? "*" : ""));
}

void MainWindow::updateRecent(const QString& path) {
  QSettings settings("Elastokin", "Elastokin");
  QStringList recent = settings.value("recent").toStringList();
  if (!path.isEmpty()) {
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 8) recent.removeLast();
    settings.setValue("recent", recent);
  }
  recentMenu_->clear();
  for (const QString& p : recent)
    recentMenu_->addAction(p, this, [this, p] {
      if (maybeSave()) openProject(p);
    });
}

QString MainWindow::saveResults() {
  if (doc_->path().isEmpty()) return tr("Save the project first: the results go beside it.");
  if (runs_->empty()) return tr("No run to save.");
  if (run_->isRunning()) return tr("Wait for the run to end.");
  const QString path = resultsPathFor(doc_->path());
  const QString err = writeRuns(path, runs_->runs());
  if (err.isEmpty()) statusBar()->showMessage(tr("%1 runs saved to %2").arg(runs_->count()).arg(path), 8000);
  return err;
}

void MainWindow::reopenResults() {
  const QString path = resultsPathFor(doc_->path());
  if (doc_->path().isEmpty() || !QFileInfo::exists(path)) return;
  std::vector<RunRecord> runs;
  const QString err = readRuns(path, runs);
  if (!err.isEmpty()) return message(tr("Results beside the project"), tr("The saved results were not read: %1").arg(err));
  runs_->restore(std::move(runs));
  if (runs_->empty()) return;
  markRunsStale({});
  statusBar()->showMessage(tr("%1 saved runs reopened from %2").arg(runs_->count()).arg(path), 8000);
}

void MainWindow::openDocument(const QString& relative) {
  const QString path = QDir(docsRoot_).filePath(relative);
  lastDocument_ = path;
  if (!QFileInfo::exists(path)) return message(tr("Help"), tr("%1 is not here (the documentation ships with the "
                                                               "sources)").arg(path));
  if (!quiet_) QDesktopServices::openUrl(QUrl::fromLocalFile(path));
}

void MainWindow::showFirstRunHint() {
  QSettings settings("Elastokin", "Elastokin");
  if (settings.value("hintShown").toBool()) return;
  settings.setValue("hintShown", true);
  statusBar()->showMessage(tr("Edit the tables on the left (hover a header for its meaning), choose a load case and "
                              "press Run (F5); every run is kept in the Plots tab. K&C sweeps: the Analyses tab. "
                              "Help menu: the documentation."),
                           30000);
}

void MainWindow::runCalculixWhenNeeded(const QString& deck) {
  const QString job = QString::fromStdString(calculixJob(QFile::encodeName(deck).toStdString()));
  if (QFile::exists(job + ".sti")) return;
  const std::string sti = QFile::encodeName(job + ".sti").toStdString();
  const std::string hint = "the deck's *FREQUENCY, SOLVER=MATRIXSTORAGE step writes it: ccx -i JOB";
  const QString ccx = QStandardPaths::findExecutable("ccx");
  if (ccx.isEmpty()) throw ModelError({sti}, "is missing and ccx (CalculiX, package calculix-ccx) is not installed; " + hint);
  // ccx in the deck's folder, its messages in JOB.ccx.log; the window stays responsive.
  const QFileInfo info(job);
  QProcess p;
  p.setWorkingDirectory(info.absolutePath());
  p.setStandardOutputFile(job + ".ccx.log");
  p.setProcessChannelMode(QProcess::MergedChannels);
  statusBar()->showMessage(tr("running ccx on %1 (the stiffness and mass are not stored yet)...").arg(QFileInfo(deck).fileName()));
  QEventLoop loop;
  connect(&p, &QProcess::finished, &loop, &QEventLoop::quit);
  connect(&p, &QProcess::errorOccurred, &loop, &QEventLoop::quit);
  p.start(ccx, {"-i", info.fileName()});
  if (p.state() != QProcess::NotRunning) loop.exec();
  if (!QFile::exists(job + ".sti"))
    throw ModelError({sti}, "is missing after running ccx on the deck (messages in " +
                                QFile::encodeName(job + ".ccx.log").toStdString() + "); " + hint);
  statusBar()->showMessage(tr("ran ccx on %1 (messages in %2)").arg(QFileInfo(deck).fileName(), QFileInfo(job + ".ccx.log").fileName()), 6000);
}

bool MainWindow::importFlexibleBody(const QString& path, int bodyId, const QString& interfaces) {
  try {
    const std::string file = QFile::encodeName(path).toStdString();
    std::vector<std::pair<QString, int>> pairs;
    for (const QString& item : interfaces.split(',', Qt::SkipEmptyParts)) {
      const QStringList kv = item.trimmed().split('=');
      bool ok = kv.size() == 2;
      const int marker = ok ? kv[1].trimmed().toInt(&ok) : 0;
      if (!ok || kv[0].trimmed().isEmpty())
        throw ModelError(Location("interfaces"), "expected NAME=MARKER, found '" + item.trimmed().toStdString() + "'");
      pairs.emplace_back(kv[0].trimmed(), marker);
    }
    FeImport r;
    if (path.endsWith(".inp", Qt::CaseInsensitive)) {
      runCalculixWhenNeeded(path);
      FeImportOptions o;
      o.units = {1e-3, 1e3};
      o.reduction.modes = 12;
      for (const auto& [set, marker] : pairs) o.interfaces.emplace_back(set.toStdString(), marker);
      r = importCalculixBody(doc_->project(), bodyId, file, o);
    } else {
      SidImportOptions o;
      for (const auto& p : pairs) {
        bool ok = false;
        const int node = p.first.toInt(&ok);
        if (!ok) throw ModelError(Location("interfaces"), "a SID file's nodes are bound by id: NODE=MARKER, found '" + p.first.toStdString() + "'");
        o.bindings.emplace_back(node, p.second);
      }
      r = importSidBody(doc_->project(), bodyId, file, o);
    }
    delete flexiblePreview_;
    flexiblePreview_ = new FlexibleImportDialog(r, bodyId, path, this);
    lastDialog_ = flexiblePreview_->header() + "\n" + flexiblePreview_->notes();
    if (!quiet_ && flexiblePreview_->exec() != QDialog::Accepted) {
      statusBar()->showMessage(tr("import of %1 cancelled: nothing changed").arg(QFileInfo(path).fileName()), 6000);
      return false;
    }
    replaceProject(doc_, r.project, tr("import %1 onto body %2").arg(QFileInfo(path).fileName()).arg(bodyId));
    statusBar()->showMessage(tr("body %1 made flexible from %2: %3 elastic modes (undo with Ctrl+Z)")
                                 .arg(bodyId)
                                 .arg(QFileInfo(path).fileName())
                                 .arg(r.frequencies.size()),
                             10000);
    return true;
  } catch (const std::exception& e) {
    message(tr("Import flexible body"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::importPropertyFile(const QString& path, Table table, int id) {
  const ImportTarget target = table == Table::Bushings ? ImportTarget::Bushing : ImportTarget::P2P;
  try {
    const PropertyData data = readPropertyFile(QFile::encodeName(path).toStdString());
    PropertyImport r;
    if (data.type == PropertyType::HydroBushing) {
      if (target != ImportTarget::Bushing)
        throw ModelError({data.path}, "a hydro bushing ('hbu') goes onto a row of the Bushings table");
      r = importHydroBushing(doc_->project(), id, data, HydroImportOptions{}).import;
    } else {
      r = importPropertyData(doc_->project(), target, id, data);
    }
    // Symmetric editing: the row's left/right twin gets the same laws, sharing the new curves.
    QString twinNote;
    if (doc_->symmetricEdits()) {
      auto copy = [&](auto& rows) {
        for (int k = 0; k < static_cast<int>(rows.size()); ++k)
          if (rows[k].id == id)
            if (const int t = copyToTwin(rows, k); t >= 0)
              twinNote = tr(" and onto its twin '%1'").arg(QString::fromStdString(rows[t].name));
      };
      if (target == ImportTarget::Bushing) copy(r.project.bushings);
      else copy(r.project.p2ps);
    }
    delete importPreview_;
    importPreview_ = new PropertyImportDialog(doc_->project(), r, target, id, path, this);
    lastDialog_ = importPreview_->notes();
    if (!quiet_ && importPreview_->exec() != QDialog::Accepted) {
      statusBar()->showMessage(tr("import of %1 cancelled: nothing changed").arg(QFileInfo(path).fileName()), 6000);
      return false;
    }
    replaceProject(doc_, r.project,
                   tr("import %1 onto %2 %3").arg(QFileInfo(path).fileName(), target == ImportTarget::Bushing ? tr("bushing") : tr("P2P element")).arg(id));
    statusBar()->showMessage(tr("imported %1%4: %2 characteristics set, %3 left out (undo with Ctrl+Z)")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(r.changes.size())
                                 .arg(r.leftOut.size())
                                 .arg(twinNote),
                             10000);
    return true;
  } catch (const std::exception& e) {
    message(tr("Import property file"), QString::fromStdString(e.what()));
    return false;
  }
}

QString MainWindow::exportPropertyFile(const QString& path, PropertyType type, int id, const QString& units) {
  try {
    const PropertyExport e = ek::exportPropertyFile(doc_->project(), type, id, parseUnitList(units.toStdString()));
    const QString error = writeFileBytes(path, QByteArray::fromStdString(e.text), tr("property file"));
    if (!error.isEmpty()) return error;
    QStringList lines;
    for (const auto& w : e.written) lines << QString::fromStdString(w);
    for (const auto& l : e.leftOut) lines << tr("not written: %1").arg(QString::fromStdString(l));
    lastDialog_ = lines.join('\n');
    statusBar()->showMessage(tr("wrote %1 (%2 laws)").arg(QFileInfo(path).fileName()).arg(e.written.size()), 8000);
    return {};
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}

void MainWindow::message(const QString& title, const QString& text, bool error) {
  lastDialog_ = text;
  if (quiet_) return;
  if (error) QMessageBox::warning(this, title, text);
  else QMessageBox::information(this, title, text);
}

}  // namespace ek::ui
