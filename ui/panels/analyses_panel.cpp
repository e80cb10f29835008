// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/analyses_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QFileInfo>
#include <QMessageBox>
#include <QInputDialog>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>
#include <complex>
#include <qcustomplot.h>

#include "engine/core/error.h"
#include "engine/core/rotation.h"
#include "engine/model/project_diff.h"
#include "ui/document/file_output.h"
#include "ui/run/background_job.h"

namespace ek::ui {
namespace {

QString kindTitle(const QString& analysis) { return analysisTitle(analysis); }

}  // namespace

namespace {

/// A one-line status: cut to the label's width on screen, in full in its tooltip. So are the
/// banners over the plots, each capped at a few lines (the plots keep the height).
void showStatus(QLabel* label, const QString& text) {
  label->setText(text);
  label->setToolTip(text);
}

/// Shows at most `lines` wrapped lines of a label (no part of a further line).
void showLines(QLabel* label, int lines) { label->setMaximumHeight(lines * label->fontMetrics().lineSpacing() + 1); }

/// A banner of at most `lines` wrapped lines (kept for unfolding); the rest in its tooltip.
void capLines(QLabel* label, int lines) {
  label->setProperty("lines", lines);
  showLines(label, lines);
  label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
}

}  // namespace

AnalysesPanel::AnalysesPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  // Three rows of controls, each its own row (a grid would align the widest of each column).
  QHBoxLayout* rows[3] = {new QHBoxLayout, new QHBoxLayout, new QHBoxLayout};
  analysis_ = new QComboBox(this);
  for (const auto& a : kAnalysisChoices) analysis_->addItem(tr(a.label), QString(a.name));
  from_ = new QDoubleSpinBox(this);
  to_ = new QDoubleSpinBox(this);
  for (auto* s : {from_, to_}) {
    s->setRange(-1e7, 1e7);
    s->setDecimals(3);
    s->setKeyboardTracking(false);
  }
  points_ = new QSpinBox(this);
  points_->setRange(2, 100000);
  wheel_ = new QComboBox(this);
  load_ = new QComboBox(this);
  for (const char* n : kWheelLoadNames) load_->addItem(QString::fromUtf8(n));
  input_ = new QComboBox(this);
  point_ = new QComboBox(this);
  output_ = new QComboBox(this);
  output_->setMinimumContentsLength(24);
  run_ = new QPushButton(tr("Run"), this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  keep_ = new QPushButton(tr("Keep"), this);
  keep_->setToolTip(tr("Keep the current result for comparison: kept results are overlaid, and the table shows the "
                       "reference (the last kept one) and the difference"));
  clear_ = new QPushButton(tr("Clear kept"), this);
  csv_ = new QPushButton(tr("CSV..."), this);
  csv_->setToolTip(tr("Export the current result as CSV"));
  pdf_ = new QPushButton(tr("PDF report..."), this);
  pdf_->setToolTip(tr("Export a PDF report: title page, spec sheet with targets, the plots"));
  animate_ = new QPushButton(tr("Animate mode"), this);
  animate_->setToolTip(tr("Animate the selected mode in the 3D view"));
  difference_ = new QCheckBox(tr("Δ to reference"), this);
  difference_->setObjectName("kcDifference");
  difference_->setToolTip(tr("K&C plots: the current result minus the reference (the last kept result)"));
  measuredButton_ = new QPushButton(tr("Measured data..."), this);
  measuredButton_->setToolTip(tr("A rig's K&C CSV drawn over the sweep, with its correlation"));
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(160);
  auto add = [&](int row, const QString& label, QWidget* w) {
    if (!label.isEmpty()) rows[row]->addWidget(new QLabel(label, this));
    rows[row]->addWidget(w);
  };
  // The combo boxes as wide as a short entry (the long ones show in the
  // open list): the tab fits a 1366 px screen beside the tables.
  for (QComboBox* c : {analysis_, wheel_, load_, input_, point_, output_}) {
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(c == output_ || c == analysis_ ? 20 : 12);
  }
  add(0, tr("Analysis:"), analysis_);
  add(0, tr("From:"), from_);
  add(0, tr("To:"), to_);
  add(0, tr("Points:"), points_);
  add(1, tr("Wheel:"), wheel_);
  add(1, tr("Load:"), load_);
  add(1, tr("Input:"), input_);
  add(1, tr("Linearize at:"), point_);
  add(2, tr("Bode output:"), output_);
  add(2, QString(), run_);
  add(2, QString(), cancel_);
  add(2, QString(), progress_);
  for (QHBoxLayout* row : rows) {
    row->addStretch();
    layout->addLayout(row);
  }
  auto* bar2 = new QHBoxLayout;
  for (QWidget* w : {static_cast<QWidget*>(keep_), static_cast<QWidget*>(clear_), static_cast<QWidget*>(csv_),
                     static_cast<QWidget*>(pdf_), static_cast<QWidget*>(animate_), static_cast<QWidget*>(measuredButton_),
                     static_cast<QWidget*>(difference_)})
    bar2->addWidget(w);
  connect(difference_, &QCheckBox::toggled, this, [this] { redraw(); });
  status_ = new QLabel(this);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // elided by its width, full text in the tooltip
  bar2->addWidget(status_, 1);
  layout->addLayout(bar2);
  stale_ = new QLabel(this);
  stale_->setWordWrap(true);
  stale_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  stale_->setStyleSheet("color: #9a5b00; font-weight: bold;");
  stale_->setVisible(false);
  capLines(stale_, 2);
  layout->addWidget(stale_);
  limits_ = new QLabel(this);  // where a sweep met the mechanism's travel limit
  limits_->setWordWrap(true);
  limits_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  limits_->setStyleSheet("color: #b00020;");
  limits_->setVisible(false);
  capLines(limits_, 3);
  layout->addWidget(limits_);
  failure_ = new QLabel(this);  // why the last run stopped, whole: the status line is cut to one
  failure_->setWordWrap(true);
  failure_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // to copy into a report
  failure_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  failure_->setStyleSheet("color: #b00020;");
  failure_->setVisible(false);
  capLines(failure_, 4);
  layout->addWidget(failure_);
  measuredLabel_ = new QLabel(this);  // the correlation with measured data
  measuredLabel_->setWordWrap(true);
  measuredLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  measuredLabel_->setVisible(false);
  capLines(measuredLabel_, 2);
  layout->addWidget(measuredLabel_);
  for (QLabel* banner : {stale_, limits_, measuredLabel_}) {
    banner->installEventFilter(this);
    banner->setCursor(Qt::PointingHandCursor);
  }

  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* grid = new QWidget(split);
  auto* gl = new QGridLayout(grid);
  gl->setContentsMargins(0, 0, 0, 0);
  for (int k = 0; k < kAnalysisPlots; ++k) {
    QCustomPlot* p = newAnalysisPlot(grid, font());
    // Small enough for a 1366x768 screen with every banner shown; a double click enlarges one.
    p->setMinimumSize(220, 100);
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->setToolTip(tr("Drag to pan, wheel to zoom; double-click to show this plot alone (again: all plots)"));
    connect(p, &QCustomPlot::mouseDoubleClick, this, [this, k, p](QMouseEvent* e) {
      const QPoint at = e->position().toPoint();
      if ((p->legend->visible() && p->legend->outerRect().contains(at)) ||
          (legendFolded(p) && legendFoldLine(p)->outerRect().contains(at)))
        return;  // a click there folds or unfolds the legend
      enlargePlot(enlarged_ == k ? -1 : k);
    });
    // A click on the legend folds it into one line, a click on that line unfolds it (every plot's).
    connect(p, &QCustomPlot::legendClick, this, [this] { setLegendsFolded(true); });
    connect(legendFoldLine(p), &QCPTextElement::clicked, this, [this] { setLegendsFolded(false); });
    gl->addWidget(p, k / 2, k % 2);
    plots_.push_back(p);
  }
  plotGrid_ = gl;
  stretchPlotGrid();
  table_ = new QTableWidget(split);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  split->addWidget(grid);
  split->addWidget(table_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 1);
  split->setSizes({640, 320});  // the plots two thirds, the table (names cut, full in tooltips) a third
  layout->addWidget(split, 1);

  connect(&Units::instance(), &Units::changed, this, [this] {
    redraw();
    fillTable();
    updateStale();
  });
  animation_ = new QTimer(this);
  animation_->setInterval(33);
  connect(animation_, &QTimer::timeout, this, [this] {
    if (!hasCurrent_ || animatedMode_ < 0 || animatedMode_ >= static_cast<int>(current_.modes.modes.size()) || !model_)
      return stopAnimation();
    const Mode& m = current_.modes.modes[animatedMode_];
    phase_ += 2.0 * M_PI / 45.0;  // one cycle in 1.5 s, whatever the mode's frequency
    const std::complex<double> rot(std::cos(phase_), std::sin(phase_));
    constexpr double kAmplitude = 0.02;  // largest entry of the shape: 20 mm (or 0.2 rad)
    Frame f;
    f.t = phase_;
    const State& s = current_.point.state;
    for (const ModelBody& b : model_->bodies) {
      if (b.state < 0) {
        f.position.push_back(b.p0);
        f.orientation.push_back(b.R0);
        continue;
      }
      Vec6 q = s.r.segment<6>(6 * b.state);
      for (int i = 0; i < 6; ++i) q[i] += kAmplitude * (m.shape[6 * b.state + i] * rot).real();
      f.position.push_back(q.head<3>());
      f.orientation.push_back(rotation::matrix(q.tail<3>()));
    }
    for (const ModelFlexibleBody& fb : model_->flexibleBodies)
      for (int k = 0; k < fb.modes(); ++k) {
        const int i = 6 * fb.firstModalSlot + k;
        f.modal.push_back(s.r[i] + kAmplitude * (m.shape[i] * rot).real());
      }
    emit modeFrame(f);
  });

  connect(analysis_, &QComboBox::currentIndexChanged, this, [this] { setAnalysis(analysisName()); });
  connect(input_, &QComboBox::currentIndexChanged, this, [this] { updateControls(); });
  connect(run_, &QPushButton::clicked, this, &AnalysesPanel::run);
  connect(cancel_, &QPushButton::clicked, this, &AnalysesPanel::cancel);
  connect(keep_, &QPushButton::clicked, this, &AnalysesPanel::keepCurrent);
  connect(clear_, &QPushButton::clicked, this, &AnalysesPanel::clearKept);
  connect(output_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(animate_, &QPushButton::clicked, this, [this] {
    if (isAnimating()) return stopAnimation();
    const int row = table_->currentRow();
    animateMode(row >= 0 ? row : 0);
    emit showModeRequested();
  });
  connect(measuredButton_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Measured K&C data"), QString(), "CSV (*.csv);;All (*)");
    if (path.isEmpty()) return;
    QString err = loadMeasured(path);
    if (err.contains("no column maps")) {
      // Rig names: ask for the mapping, COLUMN=CHANNEL pairs separated by semicolons.
      bool ok = false;
      const QString text = QInputDialog::getText(this, tr("Map the measured columns"),
                                                 tr("COLUMN=CHANNEL; ... (e.g. Toe LF=wheel left toe)"), QLineEdit::Normal,
                                                 QString(), &ok);
      if (!ok) return;
      std::vector<std::pair<std::string, std::string>> mapping;
      for (const QString& pair : text.split(';', Qt::SkipEmptyParts)) {
        const int eq = pair.indexOf('=');
        if (eq > 0) mapping.emplace_back(pair.left(eq).trimmed().toStdString(), pair.mid(eq + 1).trimmed().toStdString());
      }
      err = loadMeasured(path, mapping);
    }
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Measured K&C data"), err);
  });
  connect(csv_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export analysis CSV"), "analysis.csv", "CSV (*.csv)");
    if (path.isEmpty()) return;
    const QString err = exportCsv(path);
    showStatus(status_, err.isEmpty() ? tr("Written: %1").arg(path) : err);
  });
  connect(pdf_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export analysis report"), "analysis.pdf", "PDF (*.pdf)");
    if (path.isEmpty()) return;
    const QString err = exportPdf(path);
    showStatus(status_, err.isEmpty() ? tr("Written: %1").arg(path) : err);
  });
  setAnalysis("parallel-travel");
}

AnalysesPanel::~AnalysesPanel() {
  cancel_flag_ = true;
  if (thread_) thread_->wait();
}

QString AnalysesPanel::analysisName() const { return analysis_->currentData().toString(); }

void AnalysesPanel::setModel(std::shared_ptr<const SuspensionModel> model) {
  stopAnimation();  // the shape belongs to the previous model (its bodies may differ)
  model_ = std::move(model);
  const QString wheel = wheel_->currentText(), input = input_->currentText(), point = point_->currentText();
  for (auto* c : {wheel_, input_, point_}) {
    c->blockSignals(true);
    c->clear();
  }
  if (model_) {
    for (const auto& w : model_->wheels) wheel_->addItem(QString::fromStdString(w.name));
    input_->addItem(tr("wheel load (wheel, load)"), -1);
    for (int k = 0; k < model_->nInputs(); ++k) input_->addItem(QString::fromStdString(model_->inputs[k].name), k);
    if (!model_->wheels.empty()) point_->addItem(tr("K&C design position"), QString());
    for (const auto& lc : model_->project().loadCases)
      point_->addItem(tr("load case %1").arg(QString::fromStdString(lc.name)), QString::fromStdString(lc.name));
  }
  for (auto [c, text] : {std::pair{wheel_, wheel}, std::pair{input_, input}, std::pair{point_, point}}) {
    const int i = c->findText(text);
    if (i >= 0) c->setCurrentIndex(i);
    c->blockSignals(false);
  }
  updateControls();
  updateStale();
}

void AnalysesPanel::setAnalysis(const QString& name) {
  const int i = analysis_->findData(name);
  if (i < 0) return;
  if (analysis_->currentIndex() != i) {
    analysis_->setCurrentIndex(i);  // comes back here through the signal
    return;
  }
  if (name.endsWith("travel")) {
    from_->setSuffix(" mm");
    to_->setSuffix(" mm");
    setRange(-80, 80, 161);
  } else if (name == "steering") {
    from_->setSuffix(" mm");  // a rack's travel (a rotation input is swept in degrees)
    to_->setSuffix(" mm");
    setRange(-50, 50, 101);
  } else if (name == "static-load") {
    from_->setSuffix(" N");
    to_->setSuffix(" N");
    setRange(-5000, 5000, 21);
  } else if (name == "frequency-response") {
    from_->setSuffix(" Hz");
    to_->setSuffix(" Hz");
    setRange(0.5, 100, 500);
  } else {
    from_->setSuffix(" Hz");
    to_->setSuffix(" Hz");
    setRange(0, 100, 2);
  }
  updateControls();
}

void AnalysesPanel::setRange(double from, double to, int points) {
  from_->setValue(from);
  to_->setValue(to);
  points_->setValue(points);
}

void AnalysesPanel::updateControls() {
  const QString a = analysisName();
  const bool steering = a == "steering";
  const bool kc = a.endsWith("travel") || a == "static-load" || steering;
  const bool frf = a == "frequency-response", modes = a == "modes";
  const int chosenInput = input_->currentData().toInt();
  const bool motionInput = model_ && chosenInput >= 0 && chosenInput < model_->nInputs() &&
                           model_->inputs[chosenInput].motion();
  if (steering && model_ && !motionInput)  // preselect the first driven input (the rack)
    for (int k = 0; k < input_->count(); ++k) {
      const int i = input_->itemData(k).toInt();
      if (i >= 0 && i < model_->nInputs() && model_->inputs[i].motion()) {
        input_->setCurrentIndex(k);  // comes back here through the signal
        return;
      }
    }
  const bool wheelLoad = frf && input_->currentData().toInt() < 0;
  const bool hasWheels = model_ && !model_->wheels.empty();
  wheel_->setEnabled(a == "single-travel" || a == "static-load" || wheelLoad);
  load_->setEnabled(a == "static-load" || wheelLoad);
  input_->setEnabled(frf || steering);
  const QString unit = steering && motionInput && model_->inputs[chosenInput].kind == InputKind::Rotation ? " deg" : " mm";
  if (steering) {
    from_->setSuffix(unit);
    to_->setSuffix(unit);
  }
  point_->setEnabled(frf || modes);
  points_->setEnabled(!modes);
  output_->setEnabled(frf);
  animate_->setEnabled(hasCurrent_ && current_.kind == Kind::Modes && !running_);
  difference_->setEnabled(hasCurrent_ && current_.kind == Kind::Kc && !kept_.empty());
  animate_->setText(isAnimating() ? tr("Stop animation") : tr("Animate mode"));
  const bool ready = model_ && !running_ && (!kc || hasWheels) && (!(frf || modes) || point_->count() > 0) &&
                     (!wheelLoad || hasWheels) && (!steering || motionInput);
  run_->setEnabled(ready);
  run_->setToolTip(!model_ ? tr("The project has errors (see Problems)")
                   : kc && !hasWheels ? tr("K&C analyses need the wheels table")
                   : steering && !motionInput ? tr("A steering sweep needs a translation or rotation input (a driven rack)")
                                      : QString());
  cancel_->setEnabled(running_);
  keep_->setEnabled(hasCurrent_ && !running_);
  clear_->setEnabled(!kept_.empty());
  csv_->setEnabled(hasCurrent_);
  pdf_->setEnabled(hasCurrent_);
}

void AnalysesPanel::run() {
  if (running_ || !model_) return;
  stopAnimation();
  const QString a = analysisName();
  const auto model = model_;
  const double from = from_->value(), to = to_->value();
  const int points = points_->value(), wheel = wheel_->currentIndex(), load = load_->currentIndex();
  const int input = input_->currentData().toInt();
  const std::string loadCase = point_->currentData().toString().toStdString();
  cancel_flag_ = false;
  running_ = true;
  progress_->setValue(0);
  failure_->setVisible(false);
  showStatus(status_, tr("Running %1...").arg(kindTitle(a)));
  updateControls();
  auto work = [this, a, model, from, to, points, wheel, load, input, loadCase, progress = progressTo(progress_)] {
    Result r;
    r.analysis = a;
    r.project = model->project();
    if (a == "frequency-response" || a == "modes") {
      r.point = loadCase.empty() ? designPoint(*model) : loadCasePoint(model, loadCase);
      if (a == "modes") {
        r.kind = Kind::Modes;
        r.modes = computeModes(*model, r.point);
      } else {
        r.kind = Kind::Frequency;
        ResponseInput in;
        if (input >= 0) {
          in.index = input;
        } else {
          in.kind = ResponseInput::Kind::WheelLoad;
          in.index = wheel;
          in.load = load;
        }
        const std::vector<Channel> ch = responseChannels(*model);
        FrequencyOptions o;
        o.from = from;
        o.to = to;
        o.points = points;
        r.frequency = frequencyResponse(*model, r.point, in, ch, o, progress, &cancel_flag_);
      }
    } else {
      r.kind = Kind::Kc;
      KcOptions o;
      parseKcKind(a.toStdString(), o.kind);
      double scale = o.kind == KcKind::StaticLoad ? 1.0 : 1e-3;  // mm on screen
      if (o.kind == KcKind::Steering) {
        o.input = input;
        if (input >= 0 && model->inputs[input].kind == InputKind::Rotation) scale = M_PI / 180.0;  // deg
      }
      o.from = scale * from;
      o.to = scale * to;
      o.points = points;
      if (o.kind == KcKind::SingleTravel || o.kind == KcKind::StaticLoad) o.wheel = wheel;
      o.load = load;
      r.kc = runKc(*model, o, progress, &cancel_flag_);
    }
    return r;
  };
  thread_ = startBackgroundJob(this, std::move(work),
                               [this](std::optional<Result> r, QString error) { onResult(std::move(r), error); });
}

void AnalysesPanel::cancel() { cancel_flag_ = true; }

void AnalysesPanel::onResult(std::optional<Result> r, QString error) {
  thread_ = nullptr;  // deletes itself once finished
  running_ = false;
  const bool cancelled = cancel_flag_.load();
  if (!r || cancelled) {
    if (cancelled) {
      showStatus(status_, tr("Cancelled."));
    } else {
      showStatus(status_, tr("Stopped."));
      showStatus(failure_, error);
      failure_->setVisible(true);
    }
    progress_->setValue(0);
    updateControls();
    emit finished(false, cancelled ? tr("cancelled") : error);
    return;
  }
  current_ = std::move(*r);
  current_.label = tr("current");
  hasCurrent_ = true;
  progress_->setValue(1000);
  if (current_.kind == Kind::Frequency) {
    const QString keep = output_->currentText();
    output_->blockSignals(true);
    output_->clear();
    for (const auto& o : current_.frequency.outputs) output_->addItem(QString::fromStdString(o));
    const int i = output_->findText(keep);
    output_->setCurrentIndex(i >= 0 ? i : 0);
    output_->blockSignals(false);
  }
  QString summary;
  switch (current_.kind) {
    case Kind::Kc:
      summary = tr("%1: %2 points, %3 equilibrium iterations")
                    .arg(kindTitle(current_.analysis))
                    .arg(current_.kc.sweep.size())
                    .arg(current_.kc.iterations);
      if (!current_.kc.warnings.empty()) summary += tr(" (ends short: travel limit)");
      break;
    case Kind::Frequency:
      summary = tr("Frequency response to %1: %2 frequencies, %3 outputs")
                    .arg(QString::fromStdString(current_.frequency.inputName))
                    .arg(current_.frequency.frequency.size())
                    .arg(current_.frequency.outputs.size());
      break;
    case Kind::Modes:
      summary = tr("Modes: %1 (and %2 free directions)").arg(current_.modes.modes.size()).arg(current_.modes.zeroModes);
      break;
  }
  showStatus(status_, summary);
  QStringList limits;
  if (current_.kind == Kind::Kc)
    for (const auto& w : current_.kc.warnings) limits << QString::fromStdString(w);
  showStatus(limits_, limits.join("\n"));
  limits_->setVisible(!limits.isEmpty());
  showCorrelation();
  redraw();
  fillTable();
  updateStale();
  updateControls();
  emit centresChanged();
  emit finished(true, summary);
}

bool AnalysesPanel::keepCurrent() {
  if (!hasCurrent_ || running_) return false;
  kept_.push_back(current_);
  kept_.back().label = tr("kept %1").arg(kept_.size());
  redraw();
  fillTable();
  updateControls();
  return true;
}

void AnalysesPanel::clearKept() {
  kept_.clear();
  redraw();
  fillTable();
  updateControls();
}

void AnalysesPanel::clearResults() {
  stopAnimation();
  cancel_flag_ = true;  // a sweep still running ends at its next point; its result is dropped
  measured_.reset();  // rig data belong to the project they were loaded for
  measuredAnalysis_.clear();
  measuredLabel_->setVisible(false);
  kept_.clear();
  hasCurrent_ = false;
  current_ = Result{};
  status_->clear();
  failure_->setVisible(false);
  progress_->setValue(0);
  redraw();
  fillTable();
  updateStale();
  updateControls();
  emit centresChanged();
}

QString AnalysesPanel::legendFor(std::size_t k) const {
  const Result& r = kept_[k];
  const Project& now = hasCurrent_ ? current_.project : (model_ ? model_->project() : r.project);
  const auto changes = describeChanges(r.project, now, 2);
  QString text = r.label;
  if (changes.empty()) return text + tr(" (same project)");
  text += ": ";
  QStringList parts;
  for (const auto& c : changes) parts << displayChanges(QString::fromStdString(c));
  return text + tr("before %1").arg(parts.join("; "));
}

void AnalysesPanel::selectOutput(const QString& name) {
  const int i = output_->findText(name);
  if (i >= 0) output_->setCurrentIndex(i);
}

int AnalysesPanel::visiblePlots() const {
  int n = 0;
  for (auto* p : plots_) n += p->graphCount() > 0 ? 1 : 0;
  return n;
}

std::vector<ShownResult> AnalysesPanel::keptShown() const {
  std::vector<ShownResult> shown;
  for (std::size_t k = 0; k < kept_.size(); ++k)
    if (kept_[k].kind == current_.kind && kept_[k].analysis == current_.analysis) shown.push_back({&kept_[k], legendFor(k)});
  return shown;
}

void AnalysesPanel::setDifference(bool on) { difference_->setChecked(on); }

PlotChoices AnalysesPanel::plotChoices() const {
  PlotChoices c;
  c.output = output_->currentText();
  c.modesFrom = from_->value();
  c.modesTo = to_->value();
  c.font = font();
  c.measured = measuredApplies() ? &*measured_ : nullptr;
  c.units = Units::instance().system();
  c.difference = difference_->isChecked();
  return c;
}

QString AnalysesPanel::loadMeasured(const QString& path, const std::vector<std::pair<std::string, std::string>>& mapping) {
  if (!hasCurrent_ || current_.kind != Kind::Kc) return tr("Run a K&C sweep first: measured data are compared with it.");
  try {
    measured_ = readMeasuredKc(path.toStdString(), mapping, current_.kc.columns, current_.kc.units);
    measuredAnalysis_ = current_.analysis;
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  showCorrelation();
  redraw();
  return {};
}

bool AnalysesPanel::measuredApplies() const {
  return measured_ && hasCurrent_ && current_.kind == Kind::Kc && current_.analysis == measuredAnalysis_;
}

void AnalysesPanel::showCorrelation() {
  measuredLabel_->setVisible(false);
  if (!measured_ || !hasCurrent_ || current_.kind != Kind::Kc) return;
  if (!measuredApplies()) {  // a rig file of another analysis is never compared with this sweep
    showStatus(measuredLabel_, tr("Measured (%1) is for %2; not compared with this %3 sweep.")
                                .arg(QFileInfo(QString::fromStdString(measured_->path)).fileName(),
                                     analysisTitle(measuredAnalysis_).toLower(), analysisTitle(current_.analysis).toLower()));
    measuredLabel_->setVisible(true);
    return;
  }
  QStringList lines;
  try {
    for (const KcCorrelation& c : correlate(current_.kc, *measured_)) {
      lines << tr("%1: mean %6 %4, RMS %2 %4, largest %3 %4 (%5 points)")
                   .arg(QString::fromStdString(c.label()))
                   .arg(c.rms, 0, 'g', 4)
                   .arg(c.largest, 0, 'g', 4)
                   .arg(QString::fromStdString(c.unit))
                   .arg(c.points)
                   .arg(c.mean, 0, 'g', 4);
      if (!c.branch.empty()) lines.back() += tr(", hysteresis %1 %2").arg(c.hysteresis, 0, 'g', 4).arg(QString::fromStdString(c.unit));
    }
  } catch (const std::exception& e) {
    lines << QString::fromStdString(e.what());
  }
  showStatus(measuredLabel_, tr("Measured (%1), computed - measured: ")
                              .arg(QFileInfo(QString::fromStdString(measured_->path)).fileName()) +
                          lines.join("; "));
  measuredLabel_->setVisible(true);
}

void AnalysesPanel::redraw() {
  std::vector<ShownResult> shown;
  if (hasCurrent_) {
    shown = keptShown();
    shown.push_back({&current_, current_.label});  // drawn on top
  }
  drawAnalysisPlots(shown, plotChoices(), plots_);
  for (QCustomPlot* p : plots_) foldLegend(p, legendsFolded_);
  if (enlarged_ >= 0 && plots_[enlarged_]->graphCount() == 0) enlarged_ = -1;  // nothing left to show alone
  showPlots();
}

void AnalysesPanel::setLegendsFolded(bool folded) {
  legendsFolded_ = folded;
  for (QCustomPlot* p : plots_) {
    foldLegend(p, folded);
    p->replot();
  }
}

bool AnalysesPanel::eventFilter(QObject* watched, QEvent* event) {
  // A click on a banner folds it to one line (or back to its few lines): the plots get the room.
  if (event->type() == QEvent::MouseButtonRelease)
    for (QLabel* banner : {stale_, limits_, measuredLabel_})
      if (watched == banner) {
        setBannerFolded(banner, !bannerFolded(banner));
        return true;
      }
  return QWidget::eventFilter(watched, event);
}

bool AnalysesPanel::bannerFolded(const QLabel* banner) const { return banner->property("folded").toBool(); }

void AnalysesPanel::setBannerFolded(QLabel* banner, bool folded) {
  banner->setProperty("folded", folded);
  showLines(banner, folded ? 1 : banner->property("lines").toInt());
}

void AnalysesPanel::enlargePlot(int k) {
  enlarged_ = k >= 0 && k < plotCount() && plots_[k]->graphCount() > 0 ? k : -1;
  showPlots();
}

void AnalysesPanel::showPlots() {
  for (int j = 0; j < plotCount(); ++j)
    plots_[j]->setVisible(plots_[j]->graphCount() > 0 && (enlarged_ < 0 || enlarged_ == j));
  stretchPlotGrid();
}

void AnalysesPanel::stretchPlotGrid() {
  // The first row's plots carry the legend under their axes: a larger share of the height; an
  // enlarged plot's row all of it.
  for (int row = 0; row < plotGrid_->rowCount(); ++row)
    plotGrid_->setRowStretch(row, enlarged_ >= 0 ? (row == enlarged_ / 2 ? 1 : 0) : (row == 0 ? 4 : 3));
  for (int column = 0; column < 2; ++column)
    plotGrid_->setColumnStretch(column, enlarged_ >= 0 ? (column == enlarged_ % 2 ? 1 : 0) : 1);
}

void AnalysesPanel::fillTable() {
  table_->clear();
  table_->setRowCount(0);
  if (!hasCurrent_) return;
  std::vector<const AnalysisResult*> kept;
  for (const auto& k : kept_) kept.push_back(&k);
  const TextTable t = analysisTable(current_, kept, model_.get(), Units::instance().system());
  table_->setColumnCount(t.header.size());
  table_->setHorizontalHeaderLabels(t.header);
  table_->setRowCount(static_cast<int>(t.rows.size()));
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    for (int c = 0; c < t.rows[r].size(); ++c) {
      auto* item = new QTableWidgetItem(t.rows[r][c]);
      item->setToolTip(t.rows[r][c]);  // the whole text where a column is cut
      if (t.header[c] == tr("met") && !t.rows[r][c].isEmpty())  // a target's verdict, at a glance
        item->setBackground(t.rows[r][c] == tr("met") ? QColor(198, 239, 206) : QColor(255, 199, 206));
      table_->setItem(static_cast<int>(r), c, item);
    }
  table_->resizeColumnsToContents();
  // Long metric names (motion ratios name their element) would push the values and the targets'
  // verdicts out of sight: the name column is cut, its full text in the tooltip.
  if (table_->columnCount() > 1) table_->setColumnWidth(0, std::min(table_->columnWidth(0), 260));
}

void AnalysesPanel::updateStale() {
  if (!hasCurrent_ || !model_) {
    stale_->setVisible(hasCurrent_ && !model_);
    if (hasCurrent_ && !model_)
      showStatus(stale_, tr("The project has errors: the results shown are from its last valid version."));
    return;
  }
  const auto changes = describeChanges(current_.project, model_->project(), 3);
  stale_->setVisible(!changes.empty());
  if (changes.empty()) return;
  QStringList parts;
  for (const auto& c : changes) parts << displayChanges(QString::fromStdString(c));
  showStatus(stale_, tr("Not current: the project changed since this result was computed (%1). Run again to update.")
                      .arg(parts.join("; ")));
}

QString AnalysesPanel::exportCsv(const QString& path) const {
  if (!hasCurrent_) return tr("No result to export.");
  if (const QString c = open_inputs::clash(path); !c.isEmpty()) return c;
  try {
    switch (current_.kind) {
      case Kind::Kc: writeKcCsv(current_.kc, path.toStdString()); break;
      case Kind::Frequency: writeFrequencyResponseCsv(current_.frequency, path.toStdString()); break;
      case Kind::Modes:
        if (!model_) return tr("No model.");
        writeModesCsv(*model_, current_.modes, path.toStdString());
        break;
    }
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

QString AnalysesPanel::exportPdf(const QString& path) const {
  if (!hasCurrent_) return tr("No result to export.");
  if (const QString c = open_inputs::clash(path); !c.isEmpty()) return c;
  ReportContent c;
  c.current = &current_;
  c.kept = keptShown();
  c.model = model_.get();
  c.choices = plotChoices();
  if (stale_->isVisible()) c.notes << stale_->text();
  return writeAnalysisReport(path, c, &report_);
}

void AnalysesPanel::animateMode(int mode) {
  if (!hasCurrent_ || current_.kind != Kind::Modes || mode < 0 || mode >= static_cast<int>(current_.modes.modes.size()) ||
      !model_ || current_.modes.modes[mode].shape.size() != model_->nDof() ||
      current_.point.state.r.size() != model_->nDof())
    return;
  animatedMode_ = mode;
  phase_ = 0.0;
  animation_->start();
  updateControls();
}

void AnalysesPanel::stopAnimation() {
  animation_->stop();
  animatedMode_ = -1;
  updateControls();
}

bool AnalysesPanel::isAnimating() const { return animation_->isActive(); }

}  // namespace ek::ui
