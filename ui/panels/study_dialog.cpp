// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/study_dialog.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>
#include <thread>

#include "engine/core/text.h"
#include "engine/dynamics/outputs.h"
#include "engine/model/model.h"
#include "engine/model/table_path.h"
#include "ui/document/file_output.h"
#include "ui/document/units.h"

namespace ek::ui {

namespace {

enum VariableColumn { kVarName, kVarPath, kVarLower, kVarUpper, kVarScale, kVarSymmetric, kVarStart, kVarUnit, kVarColumns };
enum CriterionColumn {
  kCritName, kCritLoadCase, kCritChannel, kCritMinus, kCritKind, kCritFrom, kCritTo, kCritReference, kCritTime,
  kCritTimePower, kCritDerivative, kCritExponent, kCritWeight, kCritAbsolute, kCritAtMost, kCritAtLeast, kCritMetric, kCritWheel, kCritColumns
};
const char* kKinds[] = {"rms", "max", "max abs", "peak to peak", "integral square", "weighted integral", "value at",
                        "settling time", "kc metric", "kc measured"};

QString cellText(const QTableWidget* t, int row, int column) {
  if (auto* combo = qobject_cast<QComboBox*>(t->cellWidget(row, column))) return combo->currentText();
  const QTableWidgetItem* i = t->item(row, column);
  return i ? i->text().trimmed() : QString();
}

void setCell(QTableWidget* t, int row, int column, const QString& text) {
  if (auto* combo = qobject_cast<QComboBox*>(t->cellWidget(row, column))) {
    combo->setCurrentText(text);
    return;
  }
  t->setItem(row, column, new QTableWidgetItem(text));
}

QComboBox* comboCell(QTableWidget* t, int row, int column, const QStringList& items, bool editable = false) {
  auto* c = new QComboBox(t);
  c->addItems(items);
  c->setEditable(editable);
  t->setCellWidget(row, column, c);
  return c;
}

/// A number cell into a JSON object when it holds one; `factor` is the display unit's (the
/// study file is SI: value = shown / factor).
void putNumber(QJsonObject& o, const char* key, const QString& text, double factor = 1.0) {
  bool ok = false;
  const double v = text.toDouble(&ok);
  double si = v;
  if (ok && factor != 1.0) {
    // Shown in other units: back to SI without the conversion's last-digit noise (30, not
    // 30.000000000000004): a typed number has at most 15 significant digits.
    si = v / factor;
    double rounded = si;
    if (parseDecimal(significant(si, 15), rounded)) si = rounded;
  }
  if (ok) o[key] = si;
  else if (!text.isEmpty()) o[key] = text;  // reported by the study reader, with entry and field
}

/// The display unit of a variable's path ("bushings/3/y stiffness [N/m]" in kN/mm) and its factor.
std::pair<QString, double> pathUnit(const QString& path) {
  const auto [header, factor] = displayHeader(path);
  const int open = header.lastIndexOf('['), close = header.lastIndexOf(']');
  return {open >= 0 && close > open ? header.mid(open + 1, close - open - 1) : QString(), factor};
}

QString number(double v) { return QString::number(v, 'g', 10); }

/// A table item that sorts by its number.
QTableWidgetItem* numberItem(double v) {
  auto* i = new QTableWidgetItem;
  i->setData(Qt::DisplayRole, std::isfinite(v) ? QVariant(v) : QVariant(QStringLiteral("nan")));
  i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return i;
}

}  // namespace

StudyDialog::StudyDialog(ProjectDocument* doc, QWidget* parent) : QDialog(parent), doc_(doc) {
  connect(&Units::instance(), &Units::changed, this, [this] {
    unitsChanged();
    if (context_) {  // the results table's variable columns, the summary kept
      const std::vector<StudyRecord> records = records_;
      const QString summary = summary_->toPlainText();
      resetResults();
      for (const StudyRecord& r : records) {
        records_.push_back(r);
        addResultRow(r);
      }
      summary_->setPlainText(summary);
      replot();
    }
  });
  setWindowTitle(tr("Parameter study"));
  // As large as useful, within the screen less a taskbar's room (a 1366x768 laptop too).
  const QRect avail = (parent ? parent->screen() : QGuiApplication::primaryScreen())->availableGeometry();
  resize(std::min(1360, avail.width()), std::min(820, avail.height() - 60));
  auto* layout = new QVBoxLayout(this);
  auto* split = new QSplitter(this);
  layout->addWidget(split, 1);

  // ---- set up: variables, criteria, study type
  auto* setup = new QWidget(split);
  auto* sl = new QVBoxLayout(setup);
  sl->setContentsMargins(0, 0, 0, 0);
  sl->addWidget(new QLabel(tr("<b>Design variables</b> (add from a table cell's context menu, or by path)"), setup));
  variables_ = new QTableWidget(0, kVarColumns, setup);
  variables_->setHorizontalHeaderLabels({tr("name"), tr("path"), tr("lower"), tr("upper"), tr("scale"), tr("symmetric"),
                                         tr("start"), tr("unit")});
  variables_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  variables_->setToolTip(tr("Paths are TABLE/ROW/FIELD (docs/studies.md); symmetric also sets the left/right twin row; "
                            "an empty start is the project's value"));
  sl->addWidget(variables_, 1);
  auto* varButtons = new QHBoxLayout;
  auto* addPath = new QPushButton(tr("Add by path..."), setup);
  auto* removeVar = new QPushButton(tr("Remove variable"), setup);
  varButtons->addWidget(addPath);
  varButtons->addWidget(removeVar);
  varButtons->addStretch();
  sl->addLayout(varButtons);
  connect(addPath, &QPushButton::clicked, this, [this] {
    bool ok = false;
    const QString path = QInputDialog::getText(this, tr("Design variable"), tr("Cell path (e.g. bushings/9/x.damping [N s/m]):"),
                                               QLineEdit::Normal, QString(), &ok);
    if (!ok || path.trimmed().isEmpty()) return;
    const QString err = addVariable(path.trimmed());
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Design variable"), err);
  });
  connect(removeVar, &QPushButton::clicked, this, [this] {
    if (variables_->currentRow() >= 0) variables_->removeRow(variables_->currentRow());
  });

  sl->addWidget(new QLabel(tr("<b>Criteria</b> (functionals of output channels over a load case)"), setup));
  criteria_ = new QTableWidget(0, kCritColumns, setup);
  criteria_->setHorizontalHeaderLabels({tr("name"), tr("load case"), tr("channel"), tr("minus channel"), tr("kind"),
                                        tr("from [s]"), tr("to [s]"), tr("reference"), tr("time [s]"), tr("time power"),
                                        tr("derivative"), tr("exponent"), tr("weight"), tr("absolute"), tr("at most"), tr("at least"), tr("K&C metric"), tr("wheel")});
  criteria_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  criteria_->setToolTip(tr("reference: a number or 'window start'; time power, derivative, exponent: the weighted "
                           "integral int (t - from)^p |d^k y/dt^k|^q dt; weight: in the multi-criterion; kind 'kc "
                           "metric': a K&C figure of the design position (K&C metric, wheel) instead of a channel; at most / at "
                           "least: limits, constraints of an optimization (cobyla, slsqp)"));
  sl->addWidget(criteria_, 1);
  auto* critButtons = new QHBoxLayout;
  auto* addCrit = new QPushButton(tr("Add criterion"), setup);
  auto* removeCrit = new QPushButton(tr("Remove criterion"), setup);
  critButtons->addWidget(addCrit);
  critButtons->addWidget(removeCrit);
  critButtons->addStretch();
  sl->addLayout(critButtons);
  connect(addCrit, &QPushButton::clicked, this, [this] { addCriterion(); });
  connect(removeCrit, &QPushButton::clicked, this, [this] {
    if (criteria_->currentRow() >= 0) criteria_->removeRow(criteria_->currentRow());
    rebuildChoices();
  });
  connect(criteria_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* i) {
    if (i->column() == kCritName) rebuildChoices();
  });

  auto* form = new QFormLayout;
  type_ = new QComboBox(setup);
  type_->addItems({"doe", "sensitivity", "optimization", "evaluate"});
  plan_ = new QComboBox(setup);
  plan_->addItems({"latin hypercube", "full factorial"});
  points_ = new QSpinBox(setup);
  points_->setRange(1, 100000);
  points_->setValue(16);
  seed_ = new QSpinBox(setup);
  seed_->setRange(0, 1000000);
  seed_->setValue(1);
  algorithm_ = new QComboBox(setup);
  algorithm_->addItems({"bobyqa", "cobyla", "sbplx", "direct", "mma", "slsqp", "lbfgs"});
  objective_ = new QComboBox(setup);
  maxEvaluations_ = new QSpinBox(setup);
  maxEvaluations_->setRange(1, 100000);
  maxEvaluations_->setValue(100);
  relativeStep_ = new QDoubleSpinBox(setup);
  relativeStep_->setDecimals(5);
  relativeStep_->setRange(1e-5, 0.1);
  relativeStep_->setValue(1e-3);
  threads_ = new QSpinBox(setup);
  threads_->setRange(1, 256);
  threads_->setValue(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  form->addRow(tr("study"), type_);
  form->addRow(tr("plan"), plan_);
  form->addRow(tr("points"), points_);
  form->addRow(tr("seed"), seed_);
  form->addRow(tr("algorithm"), algorithm_);
  form->addRow(tr("objective"), objective_);
  form->addRow(tr("max evaluations"), maxEvaluations_);
  form->addRow(tr("relative step"), relativeStep_);
  form->addRow(tr("threads"), threads_);
  sl->addLayout(form);
  connect(type_, &QComboBox::currentTextChanged, this, [this] { updateSettings(); });
  connect(objective_, &QComboBox::activated, this, [this] { objectiveChosen_ = true; });
  connect(plan_, &QComboBox::currentTextChanged, this, [this] { updateSettings(); });

  // ---- results
  auto* right = new QWidget(split);
  auto* rl = new QVBoxLayout(right);
  rl->setContentsMargins(0, 0, 0, 0);
  auto* runRow = new QHBoxLayout;
  auto* open = new QPushButton(tr("Open study..."), right);
  auto* save = new QPushButton(tr("Save study as..."), right);
  runButton_ = new QPushButton(tr("Run"), right);
  stopButton_ = new QPushButton(tr("Stop"), right);
  stopButton_->setEnabled(false);
  applyButton_ = new QPushButton(tr("Apply this design"), right);
  applyButton_->setToolTip(tr("Set the selected run's variables in the project (one undo step)"));
  applyButton_->setEnabled(false);
  for (auto* b : {open, save, runButton_, stopButton_, applyButton_}) runRow->addWidget(b);
  runRow->addStretch();
  rl->addLayout(runRow);
  progress_ = new QProgressBar(right);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  rl->addWidget(progress_);
  status_ = new QLabel(right);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  rl->addWidget(status_);
  results_ = new QTableWidget(0, 0, right);
  results_->setSortingEnabled(true);
  results_->setSelectionBehavior(QAbstractItemView::SelectRows);
  results_->setSelectionMode(QAbstractItemView::SingleSelection);
  results_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  results_->setWordWrap(false);
  results_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  rl->addWidget(results_, 2);
  auto* plotRow = new QHBoxLayout;
  plotX_ = new QComboBox(right);
  plotY_ = new QComboBox(right);
  plotRow->addWidget(new QLabel(tr("plot"), right));
  plotRow->addWidget(plotY_, 1);
  plotRow->addWidget(new QLabel(tr("against"), right));
  plotRow->addWidget(plotX_, 1);
  rl->addLayout(plotRow);
  plot_ = new QCustomPlot(right);
  plot_->setMinimumHeight(220);
  plot_->addGraph();
  plot_->graph(0)->setLineStyle(QCPGraph::lsNone);
  plot_->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(30, 90, 170), 6));
  plot_->graph(0)->setName(tr("runs"));
  plot_->addGraph();
  plot_->graph(1)->setLineStyle(QCPGraph::lsNone);
  plot_->graph(1)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(200, 30, 30), 10));
  plot_->graph(1)->setName(tr("lowest"));
  plot_->legend->setVisible(true);
  rl->addWidget(plot_, 2);
  summary_ = new QPlainTextEdit(right);
  summary_->setReadOnly(true);
  summary_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  summary_->setMaximumHeight(170);
  rl->addWidget(summary_, 1);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);

  connect(plotX_, &QComboBox::currentIndexChanged, this, [this] { replot(); });
  connect(plotY_, &QComboBox::currentIndexChanged, this, [this] { replot(); });
  connect(runButton_, &QPushButton::clicked, this, [this] {
    const QString err = run();
    if (!err.isEmpty()) status_->setText(err);
  });
  connect(stopButton_, &QPushButton::clicked, this, &StudyDialog::stop);
  connect(applyButton_, &QPushButton::clicked, this, [this] {
    const QString err = applySelectedDesign();
    if (!err.isEmpty()) QMessageBox::warning(this, tr("Apply this design"), err);
  });
  connect(results_, &QTableWidget::itemSelectionChanged, this,
          [this] { applyButton_->setEnabled(!results_->selectedItems().isEmpty() && !running()); });
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save study"), studyPath_.isEmpty() ? "study.study.json" : studyPath_,
                                                      tr("Studies (*.study.json *.json)"));
    if (path.isEmpty()) return;
    const QString error = writeFileBytes(path, studyText().toUtf8(), tr("study file"));
    if (!error.isEmpty()) return status_->setText(error);
    studyPath_ = path;
    status_->setText(tr("saved %1 (run it with elastokin-study, or under mpirun)").arg(path));
  });
  connect(open, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open study"), QString(), tr("Studies (*.study.json *.json)"));
    if (path.isEmpty()) return;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return status_->setText(tr("%1: cannot read").arg(path));
    const QString err = setStudyText(QString::fromUtf8(f.readAll()), path);
    status_->setText(err.isEmpty() ? tr("opened %1").arg(path) : err);
  });
  updateSettings();
  rebuildChoices();
}

StudyDialog::~StudyDialog() {
  stop_.store(true);
  if (worker_.joinable()) worker_.join();
}

void StudyDialog::updateSettings() {
  const QString t = type_->currentText();
  const bool doe = t == "doe", opt = t == "optimization";
  plan_->setEnabled(doe);
  points_->setEnabled(doe && plan_->currentText() == "latin hypercube");
  seed_->setEnabled(doe && plan_->currentText() == "latin hypercube");
  algorithm_->setEnabled(opt);
  objective_->setEnabled(opt);
  maxEvaluations_->setEnabled(opt);
  relativeStep_->setEnabled(t == "sensitivity");
}

double StudyDialog::variableFactor(int row) const {
  const QTableWidgetItem* unit = variables_->item(row, kVarUnit);
  const double f = unit ? unit->data(Qt::UserRole).toDouble() : 0.0;
  return f > 0.0 ? f : 1.0;
}

void StudyDialog::unitsChanged() {
  // The shown bounds and start convert to the new display units; what they mean stays.
  for (int r = 0; r < variables_->rowCount(); ++r) {
    const double old = variableFactor(r);
    const auto [unit, factor] = pathUnit(cellText(variables_, r, kVarPath));
    for (int c : {kVarLower, kVarUpper, kVarStart}) {
      bool ok = false;
      const double shown = cellText(variables_, r, c).toDouble(&ok);
      if (ok) setCell(variables_, r, c, number(shown / old * factor));
    }
    auto* item = new QTableWidgetItem(unit);
    item->setData(Qt::UserRole, factor);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    variables_->setItem(r, kVarUnit, item);
  }
}

void StudyDialog::rebuildChoices() {
  const QString objective = objective_->currentText();
  objective_->clear();
  for (int r = 0; r < criteria_->rowCount(); ++r) objective_->addItem(cellText(criteria_, r, kCritName));
  objective_->addItem("multi");
  // The user's choice stays; until there is one, the first criterion.
  if (objectiveChosen_ && objective_->findText(objective) >= 0) objective_->setCurrentText(objective);
}

QString StudyDialog::addVariable(const QString& path) {
  double value = 0.0;
  try {
    value = tableValue(doc_->project(), path.toStdString());
  } catch (const std::invalid_argument& e) {
    return QString::fromStdString(e.what());
  }
  const int row = variables_->rowCount();
  variables_->insertRow(row);
  setCell(variables_, row, kVarName, path);
  setCell(variables_, row, kVarPath, path);
  // Coordinates move by millimetres, angles by degrees; coefficients by factors.
  const bool coordinate = path.contains("position [m]") || path.contains("com [m]");
  const bool angle = path.contains("[rad]") && !path.contains("/rad");
  const bool positive = value > 0.0 && !coordinate && !angle;
  const double half = coordinate ? 0.01 : angle ? 0.05 : std::max(1.0, 0.5 * std::abs(value));
  const double lower = positive ? 0.5 * value : value - half;
  const double upper = positive ? 2.0 * value : value + half;
  // Bounds and start in the display units (View > Units), the unit in the last column; the
  // study file stays SI.
  const auto [unit, factor] = pathUnit(path);
  auto* unitItem = new QTableWidgetItem(unit);
  unitItem->setData(Qt::UserRole, factor);
  unitItem->setFlags(unitItem->flags() & ~Qt::ItemIsEditable);
  variables_->setItem(row, kVarUnit, unitItem);
  setCell(variables_, row, kVarLower, number(factor * lower));
  setCell(variables_, row, kVarUpper, number(factor * upper));
  comboCell(variables_, row, kVarScale, {"linear", "log"})->setCurrentText(positive ? "log" : "linear");
  // Symmetric when the row has a left/right twin.
  bool twin = true;
  try {
    (void)twinPath(doc_->project(), path.toStdString());
  } catch (const std::invalid_argument&) {
    twin = false;
  }
  comboCell(variables_, row, kVarSymmetric, {"no", "yes"})->setCurrentText(twin ? "yes" : "no");
  setCell(variables_, row, kVarStart, QString());
  variables_->setCurrentCell(row, kVarName);
  return {};
}

void StudyDialog::addCriterion() {
  const Project& p = doc_->project();
  QStringList loadCases, channels;
  for (const auto& lc : p.loadCases) loadCases << QString::fromStdString(lc.name);
  for (const auto& o : p.outputs) channels << QString::fromStdString(o.name);
  const int row = criteria_->rowCount();
  const QSignalBlocker block(criteria_);
  criteria_->insertRow(row);
  setCell(criteria_, row, kCritName, channels.isEmpty() ? tr("criterion %1").arg(row + 1) : channels.front() + " rms");
  comboCell(criteria_, row, kCritLoadCase, loadCases, true);
  comboCell(criteria_, row, kCritChannel, channels, true);
  comboCell(criteria_, row, kCritMinus, QStringList{QString()} + channels, true);
  QStringList kinds;
  for (const char* k : kKinds) kinds << k;
  comboCell(criteria_, row, kCritKind, kinds);
  for (int c : {kCritFrom, kCritTo, kCritReference, kCritTime, kCritTimePower, kCritDerivative, kCritExponent,
                kCritAtMost, kCritAtLeast, kCritMetric, kCritWheel})
    setCell(criteria_, row, c, QString());
  setCell(criteria_, row, kCritWeight, "1");
  comboCell(criteria_, row, kCritAbsolute, {"no", "yes"});
  rebuildChoices();
}

QString StudyDialog::studyText() const {
  QJsonObject s;
  s["format"] = "elastokin-study";
  s["version"] = 1;
  s["project"] = doc_->path().isEmpty() ? QString("project.json") : QDir(QFileInfo(studyPath_).absolutePath())
                                                                          .relativeFilePath(doc_->path());
  QJsonArray vars;
  for (int r = 0; r < variables_->rowCount(); ++r) {
    QJsonObject v;
    v["name"] = cellText(variables_, r, kVarName);
    v["path"] = cellText(variables_, r, kVarPath);
    const double factor = variableFactor(r);
    putNumber(v, "lower", cellText(variables_, r, kVarLower), factor);
    putNumber(v, "upper", cellText(variables_, r, kVarUpper), factor);
    v["scale"] = cellText(variables_, r, kVarScale);
    if (cellText(variables_, r, kVarSymmetric) == "yes") v["symmetric"] = true;
    putNumber(v, "start", cellText(variables_, r, kVarStart), factor);
    vars.append(v);
  }
  s["variables"] = vars;
  QJsonArray crit;
  for (int r = 0; r < criteria_->rowCount(); ++r) {
    QJsonObject c;
    c["name"] = cellText(criteria_, r, kCritName);
    if (cellText(criteria_, r, kCritKind) == "kc measured") {
      // Edited in the study file (file, mapping, sweep): kept as read, renamed if the name changed.
      const QTableWidgetItem* item = criteria_->item(r, kCritName);
      QJsonObject kept = item ? QJsonObject::fromVariantMap(item->data(Qt::UserRole).toMap()) : QJsonObject();
      kept["name"] = c["name"];
      kept["kind"] = "kc measured";
      if (!kept.contains("channel")) kept["channel"] = cellText(criteria_, r, kCritChannel);
      crit.append(kept);
      continue;
    }
    if (cellText(criteria_, r, kCritKind) == "kc metric") {
      c["kind"] = "kc metric";
      c["metric"] = cellText(criteria_, r, kCritMetric);
      if (!cellText(criteria_, r, kCritWheel).isEmpty()) c["wheel"] = cellText(criteria_, r, kCritWheel);
      putNumber(c, "reference", cellText(criteria_, r, kCritReference));
      putNumber(c, "weight", cellText(criteria_, r, kCritWeight));
      if (cellText(criteria_, r, kCritAbsolute) == "yes") c["absolute"] = true;
      putNumber(c, "at most", cellText(criteria_, r, kCritAtMost));
      putNumber(c, "at least", cellText(criteria_, r, kCritAtLeast));
      crit.append(c);
      continue;
    }
    c["load case"] = cellText(criteria_, r, kCritLoadCase);
    c["channel"] = cellText(criteria_, r, kCritChannel);
    if (!cellText(criteria_, r, kCritMinus).isEmpty()) c["minus channel"] = cellText(criteria_, r, kCritMinus);
    c["kind"] = cellText(criteria_, r, kCritKind);
    putNumber(c, "from [s]", cellText(criteria_, r, kCritFrom));
    putNumber(c, "to [s]", cellText(criteria_, r, kCritTo));
    putNumber(c, "reference", cellText(criteria_, r, kCritReference));
    putNumber(c, "time [s]", cellText(criteria_, r, kCritTime));
    putNumber(c, "time power", cellText(criteria_, r, kCritTimePower));
    bool ok = false;
    const int k = cellText(criteria_, r, kCritDerivative).toInt(&ok);
    if (ok) c["derivative"] = k;
    else putNumber(c, "derivative", cellText(criteria_, r, kCritDerivative));
    putNumber(c, "exponent", cellText(criteria_, r, kCritExponent));
    putNumber(c, "weight", cellText(criteria_, r, kCritWeight));
    if (cellText(criteria_, r, kCritAbsolute) == "yes") c["absolute"] = true;
    putNumber(c, "at most", cellText(criteria_, r, kCritAtMost));
    putNumber(c, "at least", cellText(criteria_, r, kCritAtLeast));
    crit.append(c);
  }
  s["criteria"] = crit;
  QJsonObject st;
  const QString type = type_->currentText();
  st["type"] = type;
  if (type == "doe") {
    st["plan"] = plan_->currentText();
    if (plan_->currentText() == "latin hypercube") {
      st["points"] = points_->value();
      st["seed"] = seed_->value();
    }
  } else if (type == "sensitivity") {
    st["relative step"] = relativeStep_->value();
  } else if (type == "optimization") {
    st["algorithm"] = algorithm_->currentText();
    st["objective"] = objective_->currentText();
    st["max evaluations"] = maxEvaluations_->value();
  }
  if (targetsAsLimits_) st["targets as limits"] = true;  // set in the study file; kept
  s["study"] = st;
  return QString::fromUtf8(QJsonDocument(s).toJson(QJsonDocument::Indented));
}

QString StudyDialog::setStudyText(const QString& text, const QString& path) {
  try {
    (void)studyContext(text.toStdString(), path.toStdString(), &doc_->project());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  const QJsonObject s = QJsonDocument::fromJson(text.toUtf8()).object();
  variables_->setRowCount(0);
  criteria_->setRowCount(0);
  for (const QJsonValue& vv : s["variables"].toArray()) {
    const QJsonObject v = vv.toObject();
    if (!addVariable(v["path"].toString()).isEmpty()) continue;
    const int r = variables_->rowCount() - 1;
    setCell(variables_, r, kVarName, v["name"].toString(v["path"].toString()));
    const double factor = variableFactor(r);
    setCell(variables_, r, kVarLower, number(factor * v["lower"].toDouble()));
    setCell(variables_, r, kVarUpper, number(factor * v["upper"].toDouble()));
    setCell(variables_, r, kVarScale, v["scale"].toString("linear"));
    setCell(variables_, r, kVarSymmetric, v["symmetric"].toBool() ? "yes" : "no");
    setCell(variables_, r, kVarStart, v.contains("start") ? number(factor * v["start"].toDouble()) : QString());
  }
  for (const QJsonValue& cv : s["criteria"].toArray()) {
    const QJsonObject c = cv.toObject();
    addCriterion();
    const int r = criteria_->rowCount() - 1;
    const QSignalBlocker block(criteria_);
    setCell(criteria_, r, kCritName, c["name"].toString());
    setCell(criteria_, r, kCritLoadCase, c["load case"].toString());
    setCell(criteria_, r, kCritChannel, c["channel"].toString());
    setCell(criteria_, r, kCritMinus, c["minus channel"].toString());
    setCell(criteria_, r, kCritKind, c["kind"].toString());
    auto num = [&](const char* key, int column) {
      if (c.contains(key)) setCell(criteria_, r, column, c[key].isString() ? c[key].toString() : number(c[key].toDouble()));
    };
    num("from [s]", kCritFrom);
    num("to [s]", kCritTo);
    num("reference", kCritReference);
    num("time [s]", kCritTime);
    num("time power", kCritTimePower);
    num("derivative", kCritDerivative);
    num("exponent", kCritExponent);
    num("at most", kCritAtMost);
    num("at least", kCritAtLeast);
    setCell(criteria_, r, kCritAbsolute, c["absolute"].toBool() ? "yes" : "no");
    setCell(criteria_, r, kCritMetric, c["metric"].toString());
    setCell(criteria_, r, kCritWheel, c["wheel"].toString());
    setCell(criteria_, r, kCritWeight, c.contains("weight") ? number(c["weight"].toDouble()) : QString("0"));
    if (c["kind"].toString() == "kc measured" && criteria_->item(r, kCritName))
      criteria_->item(r, kCritName)->setData(Qt::UserRole, c.toVariantMap());  // written back whole
  }
  rebuildChoices();
  const QJsonObject st = s["study"].toObject();
  targetsAsLimits_ = st["targets as limits"].toBool(false);
  type_->setCurrentText(st["type"].toString());
  plan_->setCurrentText(st["plan"].toString("latin hypercube"));
  points_->setValue(st["points"].toInt(16));
  seed_->setValue(st["seed"].toInt(1));
  algorithm_->setCurrentText(st["algorithm"].toString("bobyqa"));
  objective_->setCurrentText(st["objective"].toString());
  objectiveChosen_ = st.contains("objective");
  maxEvaluations_->setValue(st["max evaluations"].toInt(200));
  relativeStep_->setValue(st["relative step"].toDouble(1e-3));
  studyPath_ = path;
  updateSettings();
  return {};
}

void StudyDialog::resetResults() {
  records_.clear();
  const Study& s = context_->study;
  QStringList headers{tr("run"), tr("phase"), tr("status")};
  plotX_->blockSignals(true);
  plotY_->blockSignals(true);
  plotX_->clear();
  plotY_->clear();
  resultFactors_.clear();
  for (const auto& v : s.variables) {
    const auto [unit, factor] = pathUnit(QString::fromStdString(v.path));
    resultFactors_.push_back(factor);
    const QString name = unit.isEmpty() ? QString::fromStdString(v.name)
                                        : QStringLiteral("%1 [%2]").arg(QString::fromStdString(v.name), unit);
    headers << name;
    plotX_->addItem(name);
  }
  for (const auto& c : s.criteria) {
    headers << QString::fromStdString(c.name);
    plotX_->addItem(QString::fromStdString(c.name));
    plotY_->addItem(QString::fromStdString(c.name));
  }
  headers << tr("message");
  plotX_->addItem(tr("run"));
  plotX_->blockSignals(false);
  plotY_->blockSignals(false);
  results_->setSortingEnabled(false);
  results_->clear();
  results_->setRowCount(0);
  results_->setColumnCount(headers.size());
  results_->setHorizontalHeaderLabels(headers);
  summary_->clear();
  replot();
}

QString StudyDialog::run() {
  if (running()) return tr("a study is running");
  const QString base = studyPath_.isEmpty() ? (doc_->path().isEmpty() ? QDir::temp().filePath("workbench.study.json")
                                                                        : QFileInfo(doc_->path()).absolutePath() + "/workbench.study.json")
                                            : studyPath_;
  auto context = std::make_unique<StudyContext>();
  try {
    *context = studyContext(studyText().toStdString(), base.toStdString(), &doc_->project());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  // Results beside a saved study (as the runner writes them); an unsaved study's in the temp folder.
  if (studyPath_.isEmpty()) {
    const QString stem = QDir::temp().filePath(QStringLiteral("elastokin-study-%1").arg(QCoreApplication::applicationPid()));
    context->study.resultsPath = (stem + ".results.csv").toStdString();
    context->study.bestProjectPath = (stem + ".best.json").toStdString();
  }
  context->cancel = &stop_;  // Stop ends the runs in flight too
  context_ = std::move(context);
  resetResults();
  stop_.store(false);
  runButton_->setEnabled(false);
  stopButton_->setEnabled(true);
  applyButton_->setEnabled(false);
  progress_->setRange(0, 0);
  status_->setText(tr("running on %1 threads; results in %2").arg(threads_->value())
                       .arg(QString::fromStdString(context_->study.resultsPath)));
  const int threads = threads_->value();
  worker_ = std::thread([this, threads] {
    QString summary;
    bool completed = false;
    try {
      ThreadExecutor executor(*context_, threads);
      StudyRunOptions options;
      options.fresh = true;
      options.stop = &stop_;
      options.progress = [this](long long done, long long expected, double left, const StudyRecord& r) {
        QMetaObject::invokeMethod(this, [this, r, done, expected, left] { onRecord(r, done, expected, left); },
                                  Qt::QueuedConnection);
      };
      const StudyOutcome out = runStudy(*context_, executor, options);
      summary = QString::fromStdString(out.summary);
      completed = !out.stopped;
    } catch (const std::exception& e) {
      summary = tr("the study stopped: %1").arg(QString::fromStdString(e.what()));
    }
    QMetaObject::invokeMethod(this, [this, summary, completed] { onFinished(summary, completed); }, Qt::QueuedConnection);
  });
  return {};
}

void StudyDialog::stop() { stop_.store(true); }

void StudyDialog::addResultRow(const StudyRecord& r) {
  results_->setSortingEnabled(false);
  const int row = results_->rowCount();
  results_->insertRow(row);
  int c = 0;
  results_->setItem(row, c++, numberItem(static_cast<double>(r.run)));
  results_->setItem(row, c++, new QTableWidgetItem(QString::fromStdString(r.phase)));
  results_->setItem(row, c++, new QTableWidgetItem(r.result.ok ? tr("ok") : tr("failed")));
  for (std::size_t k = 0; k < r.values.size(); ++k)
    results_->setItem(row, c++, numberItem(r.values[k] * (k < resultFactors_.size() ? resultFactors_[k] : 1.0)));
  for (double v : r.result.criteria) results_->setItem(row, c++, numberItem(v));
  results_->setItem(row, c, new QTableWidgetItem(QString::fromStdString(r.result.message)));
  results_->setSortingEnabled(true);
}

void StudyDialog::onRecord(const StudyRecord& r, long long done, long long expected, double left) {
  records_.push_back(r);
  addResultRow(r);
  progress_->setRange(0, static_cast<int>(std::max(expected, done)));
  progress_->setValue(static_cast<int>(done));
  QString text = tr("run %1 of %2%3").arg(done).arg(context_->study.settings.type == StudyType::Optimization ? tr("at most %1").arg(expected)
                                                                                                        : QString::number(expected));
  if (left >= 0.0) text += tr(", about %1 s left").arg(std::lround(left));
  status_->setText(text);
  replot();
}

void StudyDialog::onFinished(const QString& summary, bool completed) {
  if (worker_.joinable()) worker_.join();
  summary_->setPlainText(summary);
  runButton_->setEnabled(true);
  stopButton_->setEnabled(false);
  applyButton_->setEnabled(!results_->selectedItems().isEmpty());
  progress_->setRange(0, std::max(1, progress_->maximum()));
  if (completed) progress_->setValue(progress_->maximum());
  status_->setText((completed ? tr("finished: %1 runs").arg(records_.size()) : tr("stopped after %1 runs").arg(records_.size())) +
                   tr("; results in %1").arg(QString::fromStdString(context_->study.resultsPath)));
  emit studyFinished(completed);
}

void StudyDialog::replot() {
  QVector<double> x, y;
  double bestX = 0.0, bestY = 0.0;
  bool haveBest = false;
  const int xi = plotX_->currentIndex(), yi = plotY_->currentIndex();
  if (context_ && yi >= 0 && xi >= 0) {
    const std::size_t nv = context_->study.variables.size();
    for (const StudyRecord& r : records_) {
      if (!r.result.ok) continue;
      const double xv = xi < static_cast<int>(nv) ? r.values[xi] * (xi < static_cast<int>(resultFactors_.size()) ? resultFactors_[xi] : 1.0)
                        : xi < static_cast<int>(nv + r.result.criteria.size()) ? r.result.criteria[xi - nv]
                                                                                : static_cast<double>(r.run);
      const double yv = r.result.criteria[yi];
      x << xv;
      y << yv;
      if (!haveBest || yv < bestY) bestX = xv, bestY = yv, haveBest = true;
    }
  }
  plot_->graph(0)->setData(x, y);
  plot_->graph(1)->setData(haveBest ? QVector<double>{bestX} : QVector<double>{}, haveBest ? QVector<double>{bestY} : QVector<double>{});
  plot_->xAxis->setLabel(plotX_->currentText());
  plot_->yAxis->setLabel(plotY_->currentText());
  plot_->rescaleAxes();
  // A margin so points on the edges stay visible.
  for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
    const QCPRange r = a->range();
    const double m = r.size() > 0 ? 0.05 * r.size() : 1.0;
    a->setRange(r.lower - m, r.upper + m);
  }
  plot_->replot();
}

QString StudyDialog::applySelectedDesign() {
  const QList<QTableWidgetItem*> sel = results_->selectedItems();
  if (sel.isEmpty() || !context_) return tr("select a run in the results first");
  const long long run = results_->item(sel.front()->row(), 0)->data(Qt::DisplayRole).toLongLong();
  for (const StudyRecord& r : records_) {
    if (r.run != run) continue;
    // Onto the project as it is now (other edits since the study ran are kept).
    StudyContext now = *context_;
    now.project = doc_->project();
    try {
      const Project p = applyDesign(now, r.values);
      replaceProject(doc_, p, tr("apply the design of study run %1").arg(run));
    } catch (const std::exception& e) {
      return QString::fromStdString(e.what());
    }
    status_->setText(tr("applied the design of run %1 (undo with Ctrl+Z)").arg(run));
    return {};
  }
  return tr("run %1 is not in the results").arg(run);
}

}  // namespace ek::ui
