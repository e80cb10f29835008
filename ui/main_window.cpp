// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QCursor>
#include <QDesktopServices>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
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
#include "engine/analysis/bushing_dynamics.h"
#include "engine/model/adams_export.h"
#include "ui/analyses_panel.h"
#include "engine/model/adams_import.h"
#include "ui/bushing_dynamics_panel.h"
#include "ui/curve_editor.h"
#include "ui/file_output.h"
#ifdef ELASTOKIN_HAVE_FMU
#include "ui/fmu_export_dialog.h"
#endif
#include "ui/property_import_dialog.h"
#include "ui/mirror.h"
#include "ui/plot_panel.h"
#include "ui/problems_panel.h"
#include "ui/results_file.h"
#include "ui/signal_form.h"
#include "ui/study_dialog.h"
#include "ui/sparsity_view.h"
#include "ui/topology_view.h"
#include "ui/units.h"
#include "ui/view3d.h"
#include "ui/vtk_widget.h"

namespace ek::ui {

namespace {
const std::pair<Table, const char*> kTableTabs[] = {
    {Table::Bodies, "Bodies"}, {Table::Markers, "Markers"}, {Table::Bushings, "Bushings"}, {Table::P2Ps, "P2P"},
    {Table::Curves, "Curves"}, {Table::Inputs, "Inputs"},   {Table::LoadCases, "Load cases"},
    {Table::Signals, "Signals"}, {Table::Outputs, "Outputs"}, {Table::Hardpoints, "Hardpoints"}};
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), doc_(new ProjectDocument(this)) {
  qRegisterMetaType<SampleBlock>();
  qRegisterMetaType<Frame>();
  qRegisterMetaType<RunSettings>();
  qRegisterMetaType<std::shared_ptr<const SuspensionModel>>();

  auto* split = new QSplitter(this);
  auto* left = new QWidget(split);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(2, 2, 2, 2);
  tables_ = new QTabWidget(left);
  tableError_ = new QLabel(left);
  tableError_->setWordWrap(true);
  tableError_->setStyleSheet("color: #b00020;");
  leftLayout->addWidget(tables_, 1);
  auto* rowButtons = new QHBoxLayout;
  for (auto [label, op] : {std::pair{tr("Add"), 0}, std::pair{tr("Duplicate"), 1}, std::pair{tr("Delete"), 2}}) {
    auto* b = new QPushButton(label, left);
    rowButtons->addWidget(b);
    connect(b, &QPushButton::clicked, this, [this, op = op] {
      auto* view = qobject_cast<QTableView*>(tables_->currentWidget());
      auto* model = view ? qobject_cast<TableModel*>(view->model()) : nullptr;
      if (!model) return;
      const int row = view->currentIndex().isValid() ? view->currentIndex().row() : model->rowCount() - 1;
      if (op == 0 && !model->addVariants().isEmpty()) {  // e.g. the bushings' joint presets
        QMenu menu;
        const QStringList variants = model->addVariants();
        for (int k = 0; k < variants.size(); ++k)
          menu.addAction(variants[k], this, [model, k] { model->addRowVariant(k); });
        menu.exec(QCursor::pos());
      } else if (op == 0) model->addRow();
      else if (op == 1) model->duplicateRow(row);
      else model->removeRowAt(row);
    });
  }
  // The Signals table's rows edited as a whole: type and parameters with their units.
  auto* signalForm = new QPushButton(tr("Signal..."), left);
  signalForm->setToolTip(tr("Edit the selected signal's type and parameters in a form (Signals table)"));
  rowButtons->addWidget(signalForm);
  connect(signalForm, &QPushButton::clicked, this, [this] {
    showTable(tr("Signals"));
    auto* view = qobject_cast<QTableView*>(tables_->currentWidget());
    int lc = 0, drive = 0;
    const Project& p = doc_->project();
    if (!view || !signalOfRow(p, std::max(0, view->currentIndex().row()), lc, drive)) return;
    QString unit = "N";
    for (const auto& in : p.inputs)
      if (in.id == p.loadCases[lc].drives[drive].input) unit = inputUnit(in.kind);
    SignalForm form(p.loadCases[lc].drives[drive].signal, unit, this);
    form.setWindowTitle(tr("Signal of input %1 in load case %2").arg(p.loadCases[lc].drives[drive].input)
                            .arg(QString::fromStdString(p.loadCases[lc].name)));
    if (form.exec() != QDialog::Accepted) return;
    QString error;
    const SignalRow s = form.signal(&error);
    if (error.isEmpty()) error = editSignal(doc_, lc, drive, s);
    if (!error.isEmpty()) message(tr("Signal"), error);
  });
  rowButtons->addStretch();
  leftLayout->addLayout(rowButtons);
  leftLayout->addWidget(tableError_);
  problems_ = new ProblemsPanel(left);
  problems_->setMaximumHeight(140);
  problems_->setVisible(false);
  leftLayout->addWidget(problems_);
  connect(problems_, &ProblemsPanel::goTo, this, &MainWindow::goToCell);

  auto* centre = centre_ = new QTabWidget(split);
  auto* view3dPage = new QWidget(centre);
  auto* v3 = new QVBoxLayout(view3dPage);
  v3->setContentsMargins(0, 0, 0, 0);
  staleView_ = new QLabel(view3dPage);
  staleView_->setWordWrap(true);
  staleView_->setStyleSheet("color: #9a5b00; font-weight: bold;");
  staleView_->setVisible(false);
  v3->addWidget(staleView_);
  view3d_ = new View3D(view3dPage);
  v3->addWidget(view3d_, 1);
  auto* viewBar = new QHBoxLayout;
  for (auto [label, preset] : {std::pair{tr("Front"), View3D::Preset::Front}, std::pair{tr("Side"), View3D::Preset::Side},
                               std::pair{tr("Top"), View3D::Preset::Top}, std::pair{tr("Iso"), View3D::Preset::Iso}}) {
    auto* b = new QPushButton(label, view3dPage);
    b->setToolTip(tr("Look from this direction, everything in view"));
    connect(b, &QPushButton::clicked, this, [this, p = preset] { view3d_->setView(p); });
    viewBar->addWidget(b);
  }
  auto* fit = new QPushButton(tr("Fit"), view3dPage);
  fit->setToolTip(tr("Keep the direction, bring everything into view"));
  connect(fit, &QPushButton::clicked, this, [this] { view3d_->fitAll(); });
  viewBar->addWidget(fit);
  viewBar->addWidget(new QLabel(tr("Exaggeration:"), view3dPage));
  exaggeration_ = new QDoubleSpinBox(view3dPage);
  exaggeration_->setRange(1, 200);
  exaggeration_->setValue(1);
  exaggeration_->setSuffix(" x");
  exaggeration_->setObjectName("exaggeration");
  exaggeration_->setToolTip(tr("Scales the motion from the run's initial equilibrium (the design pose before a run)"));
  connect(exaggeration_, &QDoubleSpinBox::valueChanged, this, [this](double v) { view3d_->setExaggeration(v); });
  viewBar->addWidget(exaggeration_);
  auto* ghost = new QCheckBox(tr("design pose"), view3dPage);
  ghost->setToolTip(tr("Show the bodies as modelled as a translucent ghost"));
  connect(ghost, &QCheckBox::toggled, this, [this](bool on) { view3d_->setGhost(on); });
  viewBar->addWidget(ghost);
  // Playback of the run's poses (kPoseRate per simulated second) at a chosen speed.
  playButton_ = new QPushButton(tr("Play"), view3dPage);
  playButton_->setToolTip(tr("Play the run's poses back (from the start when at the end)"));
  auto* stepBack = new QPushButton(QStringLiteral("<"), view3dPage);
  auto* stepOn = new QPushButton(QStringLiteral(">"), view3dPage);
  stepBack->setToolTip(tr("One pose back"));
  stepOn->setToolTip(tr("One pose on"));
  for (auto* b : {stepBack, stepOn}) b->setMaximumWidth(28);
  speed_ = new QComboBox(view3dPage);
  for (double f : {0.1, 0.25, 0.5, 1.0, 2.0, 5.0}) speed_->addItem(QStringLiteral("%1x").arg(f), f);
  speed_->setCurrentIndex(3);
  speed_->setToolTip(tr("Playback speed: simulated seconds per second"));
  playTimer_ = new QTimer(this);
  playTimer_->setInterval(33);
  connect(playTimer_, &QTimer::timeout, this, [this] {
    if (frames_.empty() || running_) return stopPlayback();
    playTime_ += speed_->currentData().toDouble() * playTimer_->interval() * 1e-3;
    auto it = std::upper_bound(frames_.begin(), frames_.end(), playTime_,
                               [](double t, const Frame& f) { return t < f.t; });
    const int i = std::max(0, static_cast<int>(it - frames_.begin()) - 1);
    timeSlider_->setValue(i);
    if (i + 1 >= static_cast<int>(frames_.size())) stopPlayback();
  });
  connect(playButton_, &QPushButton::clicked, this, [this] {
    if (playTimer_->isActive()) return stopPlayback();
    if (frames_.empty() || running_) return;
    if (timeSlider_->value() + 1 >= static_cast<int>(frames_.size())) timeSlider_->setValue(0);
    playTime_ = frames_[timeSlider_->value()].t;
    playTimer_->start();
    playButton_->setText(tr("Pause"));
  });
  connect(stepBack, &QPushButton::clicked, this, [this] { timeSlider_->setValue(timeSlider_->value() - 1); });
  connect(stepOn, &QPushButton::clicked, this, [this] { timeSlider_->setValue(timeSlider_->value() + 1); });
  for (QWidget* w : {static_cast<QWidget*>(playButton_), static_cast<QWidget*>(stepBack), static_cast<QWidget*>(stepOn),
                     static_cast<QWidget*>(speed_)})
    viewBar->addWidget(w);
  timeSlider_ = new QSlider(Qt::Horizontal, view3dPage);
  timeSlider_->setEnabled(false);
  timeLabel_ = new QLabel(view3dPage);
  timeLabel_->setMinimumWidth(110);
  connect(timeSlider_, &QSlider::valueChanged, this, [this](int v) {
    if (running_ || v < 0 || v >= static_cast<int>(frames_.size())) return;
    view3d_->showFrame(frames_[v]);
    timeLabel_->setText(tr("t = %1 s").arg(frames_[v].t, 0, 'f', 3));
  });
  viewBar->addWidget(timeSlider_, 1);
  viewBar->addWidget(timeLabel_);
  for (QWidget* w : {static_cast<QWidget*>(playButton_), static_cast<QWidget*>(stepBack), static_cast<QWidget*>(stepOn)})
    connect(timeSlider_, &QSlider::rangeChanged, w, [this, w] { w->setEnabled(timeSlider_->isEnabled()); });
  v3->addLayout(viewBar);
  centre->addTab(view3dPage, tr("3D"));
  plots_ = new PlotPanel(centre, 2);
  centre->addTab(plots_, tr("Plots"));
  // The 3D playback shows the newest run's poses: stale with it.
  connect(plots_, &PlotPanel::staleChanged, this, [this](bool stale, const QString& text) {
    staleView_->setText(text + tr(" The time slider plays the poses of that run."));
    staleView_->setVisible(stale && !frames_.empty());
  });
  curves_ = new CurveEditor(doc_, centre);
  centre->addTab(curves_, tr("Curves"));
  dynamics_ = new BushingDynamicsPanel(doc_, centre);
  centre->addTab(dynamics_, tr("Bushing dynamics"));
  topology_ = new TopologyView(centre);
  centre->addTab(topology_, tr("Topology"));
  sparsity_ = new SparsityView(centre);
  centre->addTab(sparsity_, tr("Sparsity"));
  analyses_ = new AnalysesPanel(centre);
  centre->addTab(analyses_, tr("Analyses"));
  connect(analyses_, &AnalysesPanel::modeFrame, this, [this](const Frame& f) {
    if (!running_) view3d_->showFrame(f);
  });
  connect(analyses_, &AnalysesPanel::showModeRequested, this, [this] { showTab(tr("3D")); });
  connect(topology_, &TopologyView::picked, this, [this](Table t, int id) { select(t, id); });
  split->addWidget(left);
  split->addWidget(centre);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  setCentralWidget(split);

  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(220);
  rtf_ = new QLabel(this);
  statusBar()->addPermanentWidget(rtf_);
  errorLabel_ = new QLabel(this);
  errorLabel_->setObjectName("errorEstimate");
  statusBar()->addPermanentWidget(errorLabel_);
  statusBar()->addPermanentWidget(progress_);

  worker_ = new SimulationWorker;
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_.start();
  connect(worker_, &SimulationWorker::started, this, [this](QStringList ch, QStringList un, double duration) {
    plots_->startRun(ch, un, duration, {"wheel centre x", "bushing fx"}, runProject_, runLoadCase_, runMethod_);
    plots_->setRunning(true);
    frames_.clear();
    progress_->setRange(0, 1000);
  });
  connect(worker_, &SimulationWorker::samples, this, [this](SampleBlock b) { plots_->append(b); });
  // Software OpenGL (llvmpipe) needs 30-70 ms per frame: render the newest frame only after an
  // idle interval of twice the last render time (at least 40 ms), so the GUI thread never spends
  // more than a third of its time rendering.
  frameTimer_ = new QTimer(this);
  frameTimer_->setSingleShot(true);
  sinceRender_.start();
  connect(frameTimer_, &QTimer::timeout, this, [this] {
    if (frames_.empty()) return;
    view3d_->showFrame(frames_.back());
    sinceRender_.restart();
  });
  connect(worker_, &SimulationWorker::frame, this, [this](Frame f) {
    frames_.push_back(std::move(f));
    if (frames_.size() == 1) view3d_->setReference(frames_.front());  // the initial equilibrium
    if (frameTimer_->isActive()) return;
    const qint64 wait = std::max<qint64>(40, static_cast<qint64>(3.0 * view3d_->vtkWidget()->lastRenderMs()));
    frameTimer_->start(static_cast<int>(std::max<qint64>(0, wait - sinceRender_.elapsed())));
  });
  connect(worker_, &SimulationWorker::progress, this, [this](double t, double duration, double rtf) {
    progress_->setValue(static_cast<int>(1000.0 * t / std::max(duration, 1e-9)));
    rtf_->setText(tr("t = %1 s   real-time factor %2").arg(t, 0, 'f', 2).arg(rtf, 0, 'f', 3));
    rtf_->setMinimumWidth(rtf_->sizeHint().width());  // not squeezed by a long status message
  });
  connect(worker_, &SimulationWorker::realtimeReport, this, [this](const QString& r) { realtimeReport_ = r; });
  connect(worker_, &SimulationWorker::errorEstimate, this, [this](double rms, double largest, double at, double warnAt) {
    const DisplayUnit u = displayUnit("m");
    errorEstimate_ = tr("error estimate RMS %1 %2, largest %3 %2 at t = %4 s")
                         .arg(u.factor * rms, 0, 'g', 2)
                         .arg(u.unit)
                         .arg(u.factor * largest, 0, 'g', 2)
                         .arg(at, 0, 'f', 3);
    if (warnAt >= 0.0)
      errorEstimate_ += tr(" - above the warning threshold %1 %2 from t = %3 s")
                            .arg(u.factor * runWarnError_, 0, 'g', 2)
                            .arg(u.unit)
                            .arg(warnAt, 0, 'f', 3);
    errorLabel_->setStyleSheet(warnAt >= 0.0 ? QStringLiteral("color: #c00000; font-weight: bold") : QString());
    errorLabel_->setText(errorEstimate_);
    errorLabel_->setMinimumWidth(errorLabel_->sizeHint().width());
    errorLabel_->setToolTip(tr("The integrator's local error estimate of the positions, per step, from its "
                               "embedded lower-order solution (LSRT2: first order, ROS34PW2: second order; "
                               "docs/method.md); a smaller step lowers it"));
  });
  connect(worker_, &SimulationWorker::finished, this, &MainWindow::onFinished);

  buildRunBar();
  buildMenus();
  connect(doc_, &ProjectDocument::projectReset, this, [this] {
    clearResults();
    buildTables();
    rebuildModel();
    updateTitle();
  });
  connect(doc_->undoStack(), &QUndoStack::cleanChanged, this, [this] { updateTitle(); });
  connect(doc_->undoStack(), &QUndoStack::indexChanged, this, [this] {
    rebuildModel();
    // Results of an earlier version stay marked until the next run, also after an undo back to it.
    if (plots_->runCount() > 0) {
      QStringList parts;
      for (const auto& c : describeChanges(plots_->run(plots_->runCount() - 1).project, doc_->project(), 3))
        parts << QString::fromStdString(c);
      plots_->markStale(parts.isEmpty() ? tr("edited, then undone or redone") : parts.join("; "));
    }
  });
  resize(1400, 860);
}

MainWindow::~MainWindow() {
  // The document outlives the views among the children: its undo stack's clear() on destruction
  // would otherwise rebuild the model into views already deleted.
  doc_->undoStack()->disconnect(this);
  doc_->disconnect(this);
  worker_->stop();
  thread_.quit();
  thread_.wait();
}

void MainWindow::select(Table t, int id) {
  for (int k = 0; k < static_cast<int>(models_.size()); ++k) {
    if (models_[k]->table() != t) continue;
    auto* view = qobject_cast<QTableView*>(tables_->widget(k));
    for (int r = 0; r < models_[k]->rowCount(); ++r)
      if (models_[k]->data(models_[k]->index(r, 0), Qt::DisplayRole).toInt() == id) {
        tables_->setCurrentIndex(k);
        view->selectRow(r);
      }
  }
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
  for (int k = 0; k < static_cast<int>(models_.size()); ++k) {
    if (tableName(models_[k]->table()) != table) continue;
    const QModelIndex cell = models_[k]->locate(row, field);
    if (!cell.isValid()) return false;
    tables_->setCurrentIndex(k);
    auto* view = qobject_cast<QTableView*>(tables_->widget(k));
    view->setCurrentIndex(cell);
    view->scrollTo(cell);
    view->setFocus();
    return true;
  }
  return false;
}

void MainWindow::showTable(const QString& title) {
  for (int k = 0; k < tables_->count(); ++k)
    if (tables_->tabText(k) == title) tables_->setCurrentIndex(k);
}

void MainWindow::showTab(const QString& title) {
  for (int k = 0; k < centre_->count(); ++k)
    if (centre_->tabText(k) == title) centre_->setCurrentIndex(k);
}

TableModel* MainWindow::tableModel(Table t) {
  for (auto& m : models_)
    if (m->table() == t) return m.get();
  return nullptr;
}

void MainWindow::buildTables() {
  tables_->clear();
  models_.clear();
  for (auto [t, label] : kTableTabs) {
    models_.push_back(makeTableModel(doc_, t));
    auto* view = new QTableView(tables_);
    view->setModel(models_.back().get());
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->setAlternatingRowColors(true);
    view->setItemDelegate(new ReferenceDelegate(view));
    // A cell's context menu: the cell as a design variable of a parameter study.
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QTableView::customContextMenuRequested, this, [this, view](const QPoint& at) {
      const QModelIndex i = view->indexAt(at);
      auto* model = qobject_cast<TableModel*>(view->model());
      const QString path = model && i.isValid() ? model->cellPath(i) : QString();
      if (path.isEmpty()) return;
      QMenu menu;
      menu.addAction(tr("Add as design variable (%1)").arg(path), this, [this, path] { addDesignVariable(path); });
#ifdef ELASTOKIN_HAVE_FMU
      menu.addAction(tr("Add as FMU parameter (%1)").arg(path), this, [this, path] { addFmuParameter(path); });
#endif
      menu.exec(view->viewport()->mapToGlobal(at));
    });
    tables_->addTab(view, tr(label));
    if (t == Table::Bushings)  // the bushing dynamics tab follows the bushing row the user is on
      connect(view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this, view](const QModelIndex& i) {
        if (i.isValid()) dynamics_->showBushing(view->model()->index(i.row(), 0).data().toInt(), dynamics_->currentDirection());
      });
    connect(models_.back().get(), &TableModel::editRejected, this, [this](const QString& m) {
      tableError_->setText(m);
      statusBar()->showMessage(m, 8000);
    });
  }
}

void MainWindow::rebuildModel() {
  // Every error and warning of the tables, listed with a way to their cells.
  const Diagnostics d = check(doc_->project());
  problems_->setDiagnostics(d.items(), d.errorCount() + d.warningCount() - d.items().size(), true);
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
    analyses_->setModel(model_);
    runAct_->setEnabled(!running_ && loadCase_->count() > 0);
    tableError_->clear();
  } catch (const ModelError& e) {
    model_.reset();
    analyses_->setModel(nullptr);
    runAct_->setEnabled(false);
    tableError_->setText(QString::fromStdString(e.what()));
  }
}

void MainWindow::buildRunBar() {
  QToolBar* bar = addToolBar(tr("Run"));
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
  bar->addSeparator();
  runAct_ = bar->addAction(tr("Run"), this, [this] { startRun(); });
  runAct_->setToolTip(tr("Run the load case on a worker thread; every run is kept in the Plots tab (F5)"));
  runAct_->setShortcut(QKeySequence(Qt::Key_F5));
  pauseAct_ = bar->addAction(tr("Pause"), this, [this] {
    if (worker_->isPaused()) {
      worker_->resume();
      pauseAct_->setText(tr("Pause"));
    } else {
      worker_->pause();
      pauseAct_->setText(tr("Resume"));
    }
  });
  stopAct_ = bar->addAction(tr("Stop"), this, [this] { worker_->stop(); });
  QAction* reset = bar->addAction(tr("Reset"), this, [this] {
    if (running_) return;
    stopPlayback();
    frames_.clear();
    timeSlider_->setEnabled(false);
    timeSlider_->setRange(0, 0);
    timeLabel_->clear();
    if (model_) view3d_->setModel(model_);
  });
  pauseAct_->setToolTip(tr("Pause or resume the run"));
  stopAct_->setToolTip(tr("Stop the run; the results up to then are kept"));
  reset->setToolTip(tr("Show the design pose in 3D and forget the playback (the kept runs stay)"));
  pauseAct_->setEnabled(false);
  stopAct_->setEnabled(false);
}

void MainWindow::setRealtime(bool on) { realtime_->setChecked(on); }

void MainWindow::clearResults() {
  // Nothing of the previous project stays on screen: runs, curves, poses, status.
  if (running_) worker_->stop();
  plots_->clearRuns();
  frames_.clear();
  frameTimer_->stop();
  stopPlayback();
  timeSlider_->setEnabled(false);
  timeSlider_->setRange(0, 0);
  timeLabel_->clear();
  staleView_->setVisible(false);
  analyses_->clearResults();
  view3d_->setModel(nullptr);
  topology_->setModel(nullptr);
  sparsity_->setModel(nullptr);
  progress_->reset();
  rtf_->clear();
  errorLabel_->clear();
  rtf_->setMinimumWidth(0);
  errorLabel_->setMinimumWidth(0);
  statusBar()->clearMessage();
  lastMessage_.clear();
}

void MainWindow::stopPlayback() {
  playTimer_->stop();
  playButton_->setText(tr("Play"));
}

void MainWindow::startRun(double duration) {
  if (running_ || !model_ || loadCase_->count() == 0) return;
  analyses_->stopAnimation();
  stopPlayback();
  runProject_ = doc_->project();
  runLoadCase_ = loadCase_->currentText();
  RunSettings s;
  s.loadCase = loadCase_->currentText();
  s.dt = dt_->value() * 1e-3;
  s.linearizeEvery = linEvery_->value();
  s.solver = solver_->currentText();
  s.integrator = integrator_->currentData().toString();
  runMethod_ = QStringLiteral("%1, dt %2 ms%3")
                   .arg(s.integrator)
                   .arg(dt_->value())
                   .arg(s.linearizeEvery > 1 ? QStringLiteral(", lin-every %1").arg(s.linearizeEvery) : QString());
  s.realtime = realtime_->isChecked();
  s.warnError = runWarnError_ = warnError_->value() * 1e-6;
  s.duration = duration;
  running_ = true;
  runAct_->setEnabled(false);
  pauseAct_->setEnabled(true);
  stopAct_->setEnabled(true);
  timeSlider_->setEnabled(false);
  timeSlider_->setRange(0, 0);
  timeLabel_->clear();
  lastMessage_.clear();
  realtimeReport_.clear();
  errorEstimate_.clear();
  errorLabel_->setStyleSheet(QString());
  statusBar()->showMessage(tr("running %1 ...").arg(s.loadCase));
  QMetaObject::invokeMethod(worker_, "run", Qt::QueuedConnection, Q_ARG(std::shared_ptr<const ek::SuspensionModel>, model_),
                            Q_ARG(ek::ui::RunSettings, s));
}

void MainWindow::onFinished(const QString& msg, bool completed) {
  frameTimer_->stop();
  if (!frames_.empty()) view3d_->showFrame(frames_.back());
  running_ = false;
  plots_->finishRun(completed ? QString() : msg);
  plots_->setRunning(false);
  staleView_->setVisible(plots_->isStale() && !frames_.empty());
  runAct_->setEnabled(model_ != nullptr);
  pauseAct_->setEnabled(false);
  pauseAct_->setText(tr("Pause"));
  stopAct_->setEnabled(false);
  lastMessage_ = msg;
  if (!frames_.empty()) {
    timeSlider_->setEnabled(true);
    timeSlider_->setRange(0, static_cast<int>(frames_.size()) - 1);
    timeSlider_->setValue(timeSlider_->maximum());
    timeLabel_->setText(tr("t = %1 s").arg(frames_.back().t, 0, 'f', 3));
  }
  QString status = completed ? tr("run complete") : msg;
  if (!realtimeReport_.isEmpty()) {  // its first line: "paced to the wall clock: N of M deadlines missed ..."
    status += tr("; real time: ") + realtimeReport_.section('\n', 0, 0).section(": ", 1);
    if (realtimeReport_.contains("ENDED BEHIND")) status += tr(", ended behind the wall clock");
  }
  if (!errorEstimate_.isEmpty()) status += "; " + errorEstimate_;
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
  file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { save(false); });
  file->addAction(tr("Save &as..."), QKeySequence::SaveAs, this, [this] { save(true); });
  file->addSeparator();
  file->addAction(tr("Save &runs beside the project"), this, [this] {
    const QString err = saveResults();
    if (!err.isEmpty()) message(tr("Save runs"), err);
  });
  file->addAction(tr("Export results as &CSV..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), "results.csv", tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const QString err = plots_->exportCsv(path);
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
  edit->addAction(tr("&Mirror left to right"), this, [this] {
    const QString err = applyMirror(doc_);
    if (!err.isEmpty()) message(tr("Mirror left to right"), err);
    else statusBar()->showMessage(tr("mirrored the left side (undo with Ctrl+Z)"), 6000);
  });
  edit->addAction(tr("&Import Adams property file onto the selected row..."), this, [this] {
    // The bushing or P2P row the user is on in the tables.
    const int k = tables_->currentIndex();
    const Table t = k >= 0 && k < static_cast<int>(models_.size()) ? models_[k]->table() : Table::Bodies;
    auto* view = qobject_cast<QTableView*>(tables_->currentWidget());
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
    const int k = tables_->currentIndex();
    const Table t = k >= 0 && k < static_cast<int>(models_.size()) ? models_[k]->table() : Table::Bodies;
    auto* view = qobject_cast<QTableView*>(tables_->currentWidget());
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

bool MainWindow::openProject(const QString& path, bool showErrors) {
  try {
    doc_->open(path);
    updateRecent(path);
    reopenResults();
    return true;
  } catch (const ModelError& e) {
    problems_->setDiagnostics(e.errors(), 0, false);
    if (showErrors) message(tr("Cannot open project"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::save(bool askPath) {
  QString path = doc_->path();
  if (askPath || path.isEmpty())
    path = QFileDialog::getSaveFileName(this, tr("Save project"), path, tr("Projects (*.json)"));
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
  if (plots_->runCount() == 0) return tr("No run to save.");
  if (running_) return tr("Wait for the run to end.");
  const QString path = resultsPathFor(doc_->path());
  const QString err = writeRuns(path, plots_->runs());
  if (err.isEmpty()) statusBar()->showMessage(tr("%1 runs saved to %2").arg(plots_->runCount()).arg(path), 8000);
  return err;
}

void MainWindow::reopenResults() {
  const QString path = resultsPathFor(doc_->path());
  if (doc_->path().isEmpty() || !QFileInfo::exists(path)) return;
  std::vector<RunRecord> runs;
  const QString err = readRuns(path, runs);
  if (!err.isEmpty()) return message(tr("Results beside the project"), tr("The saved results were not read: %1").arg(err));
  plots_->restoreRuns(std::move(runs));
  if (plots_->runCount() == 0) return;
  QStringList parts;
  for (const auto& c : describeChanges(plots_->run(plots_->runCount() - 1).project, doc_->project(), 3))
    parts << QString::fromStdString(c);
  if (!parts.isEmpty()) plots_->markStale(parts.join("; "));
  statusBar()->showMessage(tr("%1 saved runs reopened from %2").arg(plots_->runCount()).arg(path), 8000);
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
    delete importPreview_;
    importPreview_ = new PropertyImportDialog(doc_->project(), r, target, id, path, this);
    lastDialog_ = importPreview_->notes();
    if (!quiet_ && importPreview_->exec() != QDialog::Accepted) {
      statusBar()->showMessage(tr("import of %1 cancelled: nothing changed").arg(QFileInfo(path).fileName()), 6000);
      return false;
    }
    replaceProject(doc_, r.project,
                   tr("import %1 onto %2 %3").arg(QFileInfo(path).fileName(), target == ImportTarget::Bushing ? tr("bushing") : tr("P2P element")).arg(id));
    statusBar()->showMessage(tr("imported %1: %2 characteristics set, %3 left out (undo with Ctrl+Z)")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(r.changes.size())
                                 .arg(r.leftOut.size()),
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
