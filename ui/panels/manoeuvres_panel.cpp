// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/manoeuvres_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <cmath>
#include <map>
#include <qcustomplot.h>

#include "engine/analysis/kc.h"
#include "ui/document/number_entry.h"
#include "ui/run/background_job.h"

namespace ek::ui {

namespace {

/// A short name of a run for the legend and the column header: the parameters that differ from
/// the defaults.
QString runLabel(const ManoeuvreResult& r, int index) {
  QStringList changed;
  const std::vector<ManoeuvreParameter> defaults = manoeuvreParameters(r.name);
  for (std::size_t k = 0; k < r.parameters.size() && k < defaults.size(); ++k)
    if (r.parameters[k].key != "follower gain" && r.parameters[k].value != defaults[k].value)
      changed << QString::fromStdString(r.parameters[k].key) + " " + numberText(r.parameters[k].value);
  return QObject::tr("kept %1").arg(index) + (changed.isEmpty() ? QString() : " (" + changed.join(", ") + ")");
}

/// A parameter's value as run: a default shown rounded (80 km/h is 22.2222 m/s on screen) runs
/// exactly as the runner's default.
constexpr int kExact = Qt::UserRole + 1;

const QColor kKeptColours[] = {QColor(120, 120, 120), QColor(40, 160, 60), QColor(160, 90, 20), QColor(130, 60, 170)};

}  // namespace

ManoeuvresPanel::ManoeuvresPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  name_ = new QComboBox(this);
  for (const std::string& n : manoeuvreNames()) name_->addItem(QString::fromStdString(n));
  runButton_ = new QPushButton(tr("Run"), this);
  cancelButton_ = new QPushButton(tr("Cancel"), this);
  keepButton_ = new QPushButton(tr("Keep for comparison"), this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  bar->addWidget(new QLabel(tr("Manoeuvre"), this));
  bar->addWidget(name_);
  bar->addWidget(runButton_);
  bar->addWidget(cancelButton_);
  bar->addWidget(keepButton_);
  bar->addWidget(progress_, 1);
  layout->addLayout(bar);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  layout->addWidget(status_);

  auto* split = new QSplitter(Qt::Vertical, this);
  auto* tables = new QSplitter(Qt::Horizontal, split);
  parameters_ = new QTableWidget(0, 4, tables);
  parameters_->setHorizontalHeaderLabels({tr("parameter"), tr("value"), tr("unit"), tr("meaning")});
  parameters_->horizontalHeader()->setStretchLastSection(true);
  parameters_->verticalHeader()->hide();
  metrics_ = new QTableWidget(0, 4, tables);
  metrics_->setHorizontalHeaderLabels({tr("metric"), tr("value"), tr("unit"), tr("limit")});
  metrics_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  metrics_->verticalHeader()->hide();
  plot_ = new QCustomPlot(split);
  plot_->setMinimumHeight(220);
  plot_->legend->setVisible(false);  // until there is something to name
  split->addWidget(tables);
  split->addWidget(plot_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  connect(name_, &QComboBox::currentTextChanged, this, [this] { fillParameters(); });
  connect(runButton_, &QPushButton::clicked, this, &ManoeuvresPanel::run);
  connect(cancelButton_, &QPushButton::clicked, this, &ManoeuvresPanel::cancel);
  connect(keepButton_, &QPushButton::clicked, this, &ManoeuvresPanel::keepCurrent);
  connect(parameters_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (item->column() != 1) return;
    double v = 0.0;
    QString error;
    if (!parseTypedNumber(item->text(), v, &error)) {
      status_->setText(error);
      QSignalBlocker block(parameters_);
      item->setText(item->data(Qt::UserRole).toString());  // the last good value
      return;
    }
    QSignalBlocker block(parameters_);
    item->setData(kExact, v);
    item->setData(Qt::UserRole, numberText(v));
    item->setText(numberText(v));
  });
  fillParameters();
  updateControls();
}

ManoeuvresPanel::~ManoeuvresPanel() {
  cancel_ = true;
  if (thread_) thread_->wait();
}

QString ManoeuvresPanel::manoeuvre() const { return name_->currentText(); }

void ManoeuvresPanel::setModel(std::shared_ptr<const SuspensionModel> model) {
  model_ = std::move(model);
  updateControls();
}

void ManoeuvresPanel::setManoeuvre(const QString& name) { name_->setCurrentText(name); }

void ManoeuvresPanel::fillParameters() {
  QSignalBlocker block(parameters_);
  const std::vector<ManoeuvreParameter> params = manoeuvreParameters(manoeuvre().toStdString());
  parameters_->setRowCount(static_cast<int>(params.size()));
  for (int k = 0; k < static_cast<int>(params.size()); ++k) {
    const ManoeuvreParameter& p = params[k];
    auto fixed = [](const QString& text) {
      auto* item = new QTableWidgetItem(text);
      item->setFlags(item->flags() & ~Qt::ItemIsEditable);
      return item;
    };
    parameters_->setItem(k, 0, fixed(QString::fromStdString(p.key)));
    const QString shown = QString::number(p.value, 'g', 6);
    auto* value = new QTableWidgetItem(shown);
    value->setData(Qt::UserRole, shown);
    value->setData(kExact, p.value);
    parameters_->setItem(k, 1, value);
    parameters_->setItem(k, 2, fixed(QString::fromStdString(p.unit)));
    parameters_->setItem(k, 3, fixed(QString::fromStdString(p.meaning)));
  }
  parameters_->resizeColumnsToContents();
}

bool ManoeuvresPanel::setParameter(const QString& key, double value) {
  for (int k = 0; k < parameters_->rowCount(); ++k)
    if (parameters_->item(k, 0)->text() == key) {
      parameters_->item(k, 1)->setText(numberText(value));
      return true;
    }
  return false;
}

void ManoeuvresPanel::updateControls() {
  runButton_->setEnabled(!running_ && model_ != nullptr);
  cancelButton_->setEnabled(running_);
  keepButton_->setEnabled(!running_ && current_.has_value());
  name_->setEnabled(!running_);
  static const QString noModel = tr("No model: the tables have errors or no project is open.");
  if (!model_ && !running_) status_->setText(noModel);
  else if (status_->text() == noModel) status_->clear();
}

void ManoeuvresPanel::run() {
  if (running_ || !model_) return;
  std::map<std::string, double> params;
  for (int k = 0; k < parameters_->rowCount(); ++k)
    params[parameters_->item(k, 0)->text().toStdString()] = parameters_->item(k, 1)->data(kExact).toDouble();
  const std::string name = manoeuvre().toStdString();
  const Project project = model_->project();
  cancel_ = false;
  running_ = true;
  progress_->setValue(0);
  status_->setText(tr("Running %1...").arg(manoeuvre()));
  updateControls();
  thread_ = startBackgroundJob(
      this, [this, name, project, params, progress = progressTo(progress_)] {
        return runManoeuvre(project, name, params, progress, &cancel_);
      },
      [this](std::optional<ManoeuvreResult> r, QString error) { onResult(std::move(r), error); });
}

void ManoeuvresPanel::cancel() { cancel_ = true; }

void ManoeuvresPanel::onResult(std::optional<ManoeuvreResult> result, QString error) {
  thread_ = nullptr;  // deletes itself once finished
  running_ = false;
  progress_->setValue(result ? 1000 : 0);
  if (!result) {
    status_->setText(cancel_.load() ? tr("Cancelled.") : tr("Stopped: %1").arg(error));
    updateControls();
    emit finished(false, status_->text());
    return;
  }
  current_ = std::move(result);
  QStringList notes;
  for (const std::string& n : current_->notes) notes << QString::fromStdString(n);
  status_->setText(tr("%1: %2 metrics. %3").arg(manoeuvre()).arg(current_->metrics.size()).arg(notes.join("; ")));
  showResult();
  updateControls();
  emit finished(true, QString());
}

bool ManoeuvresPanel::keepCurrent() {
  if (!current_) return false;
  kept_.push_back(*current_);
  showResult();
  return true;
}

void ManoeuvresPanel::clearResults() {
  current_.reset();
  kept_.clear();
  metrics_->setRowCount(0);
  plot_->clearGraphs();
  plot_->replot();
  updateControls();
}

void ManoeuvresPanel::showResult() {
  if (!current_) return;
  const ManoeuvreResult& r = *current_;
  // Metrics: the current run, then each kept run of the same manoeuvre.
  std::vector<const ManoeuvreResult*> kept;
  for (const ManoeuvreResult& k : kept_)
    if (k.name == r.name) kept.push_back(&k);
  QStringList header{tr("metric"), tr("value"), tr("unit"), tr("limit"), tr("target")};
  for (std::size_t k = 0; k < kept.size(); ++k) header << runLabel(*kept[k], static_cast<int>(k) + 1);
  metrics_->setColumnCount(header.size());
  metrics_->setHorizontalHeaderLabels(header);
  metrics_->setRowCount(static_cast<int>(r.metrics.size()));
  for (int i = 0; i < static_cast<int>(r.metrics.size()); ++i) {
    const ManoeuvreMetric& m = r.metrics[i];
    auto* name = new QTableWidgetItem(QString::fromStdString(m.name));
    name->setToolTip(QString::fromStdString(m.definition));
    metrics_->setItem(i, 0, name);
    metrics_->setItem(i, 1, new QTableWidgetItem(QString::number(m.value, 'g', 5)));
    metrics_->setItem(i, 2, new QTableWidgetItem(QString::fromStdString(m.unit)));
    auto* limit = new QTableWidgetItem(m.limit.empty() ? QString()
                                                       : (m.pass ? tr("pass (%1)") : tr("FAIL (%1)"))
                                                             .arg(QString::fromStdString(m.limit)));
    if (!m.limit.empty()) limit->setForeground(m.pass ? QColor(20, 120, 40) : QColor(190, 30, 30));
    metrics_->setItem(i, 3, limit);
    // The project's target (table `targets`), judged.
    auto* target = new QTableWidgetItem();
    if (m.targetId >= 0) {
      target->setText((m.met ? tr("met (%1)") : tr("MISSED (%1)")).arg(QString::fromStdString(targetRange(m.lower, m.upper, m.unit))));
      target->setForeground(m.met ? QColor(20, 120, 40) : QColor(190, 30, 30));
      target->setToolTip(tr("target %1 of the project's targets table").arg(m.targetId));
    }
    metrics_->setItem(i, 4, target);
    for (std::size_t k = 0; k < kept.size(); ++k) {
      const ManoeuvreMetric* old = kept[k]->metric(m.name);
      metrics_->setItem(i, 5 + static_cast<int>(k), new QTableWidgetItem(old ? QString::number(old->value, 'g', 5) : QString()));
    }
  }
  metrics_->resizeColumnsToContents();

  // The standard plot.
  plot_->clearGraphs();
  plot_->yAxis2->setVisible(false);
  plot_->xAxis->setScaleType(QCPAxis::stLinear);
  auto series = [](const ManoeuvreResult& m, int x, int y) {
    QVector<double> xs, ys;
    for (const auto& row : m.series) xs << row[x], ys << row[y];
    return std::make_pair(xs, ys);
  };
  auto add = [&](const std::pair<QVector<double>, QVector<double>>& d, const QString& name, const QColor& colour,
                 bool dashed, QCPAxis* y) {
    QCPGraph* g = plot_->addGraph(plot_->xAxis, y);
    g->setData(d.first, d.second, true);
    g->setName(name);
    QPen pen(colour, 2);
    if (dashed) pen.setStyle(Qt::DashLine);
    g->setPen(pen);
  };
  if (r.name == "steady-state-circle") {
    plot_->xAxis->setLabel(tr("lateral acceleration [m/s^2]"));
    plot_->yAxis->setLabel(tr("steering-wheel angle [deg]"));
    add(series(r, kmLateral, kmSteer), tr("steering-wheel angle"), QColor(30, 90, 200), false, plot_->yAxis);
    for (std::size_t k = 0; k < kept.size(); ++k)
      add(series(*kept[k], kmLateral, kmSteer), runLabel(*kept[k], static_cast<int>(k) + 1), kKeptColours[k % 4], true,
          plot_->yAxis);
  } else if (!r.lanes.empty()) {  // the lane changes: the track from above
    plot_->xAxis->setLabel(tr("distance from the entry gate [m]"));
    plot_->yAxis->setLabel(tr("lateral position [m]"));
    auto path = [](const ManoeuvreResult& m, int y) {
      QVector<double> xs, ys;
      for (const auto& row : m.trackPath) xs << row[0], ys << row[y];
      return std::make_pair(xs, ys);
    };
    for (std::size_t k = 0; k < r.lanes.size(); ++k)
      for (int side : {2, 3}) {
        const auto& l = r.lanes[k];
        add({QVector<double>{l[0], l[1]}, QVector<double>{l[side], l[side]}}, k == 0 && side == 2 ? tr("cones") : QString(),
            QColor(230, 120, 0), false, plot_->yAxis);
        if (k != 0 || side != 2) plot_->legend->removeItem(plot_->legend->itemCount() - 1);
      }
    add(path(r, 2), tr("reference path"), QColor(120, 120, 120), true, plot_->yAxis);
    add(path(r, 1), tr("centre of mass"), QColor(30, 90, 200), false, plot_->yAxis);
    for (std::size_t k = 0; k < kept.size(); ++k)
      add(path(*kept[k], 1), runLabel(*kept[k], static_cast<int>(k) + 1), kKeptColours[k % 4], true, plot_->yAxis);
  } else if (r.name == "swept-sine") {
    plot_->xAxis->setLabel(tr("frequency [Hz]"));
    plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->yAxis->setLabel(tr("yaw rate gain [1/s]"));
    auto gain = [](const ManoeuvreResult& m) {
      QVector<double> f, g;
      for (const auto& row : m.frequencyResponse) f << row[0], g << row[1];
      return std::make_pair(f, g);
    };
    add(gain(r), tr("yaw rate gain"), QColor(30, 90, 200), false, plot_->yAxis);
    for (std::size_t k = 0; k < kept.size(); ++k)
      add(gain(*kept[k]), runLabel(*kept[k], static_cast<int>(k) + 1), kKeptColours[k % 4], true, plot_->yAxis);
  } else {
    plot_->xAxis->setLabel(tr("time [s]"));
    plot_->yAxis->setLabel(tr("yaw rate [deg/s]"));
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setLabel(tr("lateral acceleration [m/s^2]"));
    add(series(r, kmTime, kmYawRate), tr("yaw rate"), QColor(30, 90, 200), false, plot_->yAxis);
    add(series(r, kmTime, kmLateral), tr("lateral acceleration"), QColor(200, 60, 40), false, plot_->yAxis2);
    for (std::size_t k = 0; k < kept.size(); ++k)
      add(series(*kept[k], kmTime, kmYawRate), runLabel(*kept[k], static_cast<int>(k) + 1) + tr(" yaw rate"),
          kKeptColours[k % 4], true, plot_->yAxis);
  }
  plot_->legend->setVisible(true);
  plot_->rescaleAxes();
  if (!r.lanes.empty()) plot_->yAxis->scaleRange(1.2, plot_->yAxis->range().center());  // cones off the frame
  plot_->replot();
}

}  // namespace ek::ui
