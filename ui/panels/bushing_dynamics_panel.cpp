// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/bushing_dynamics_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

#include "engine/core/error.h"
#include "engine/model/validate.h"
#include "ui/document/table_models.h"
#include "ui/document/units.h"

namespace ek::ui {

namespace {

constexpr double kFrequencyLow = 0.1, kFrequencyHigh = 200.0;  // [Hz], widened to a measurement's range
const QColor kMagnitudeColour(20, 90, 170), kLossColour(190, 60, 30);

void setUpPlot(QCustomPlot* plot, const QString& yLabel, const QColor& colour) {
  plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  plot->xAxis->setNumberFormat("gb");
  plot->xAxis->setLabel(QObject::tr("frequency [Hz]"));
  plot->yAxis->setLabel(yLabel);
  plot->addGraph();  // Model
  plot->graph(0)->setPen(QPen(colour, 2));
  plot->graph(0)->setName(QObject::tr("model"));
  plot->addGraph();  // Measurement
  plot->graph(1)->setLineStyle(QCPGraph::lsNone);
  plot->graph(1)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(40, 40, 40), Qt::white, 7));
  plot->graph(1)->setName(QObject::tr("measurement"));
  plot->addGraph();  // Fitted
  plot->graph(2)->setPen(QPen(QColor(30, 150, 60), 2, Qt::DashLine));
  plot->graph(2)->setName(QObject::tr("fit"));
  plot->legend->setVisible(true);
  plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignLeft | Qt::AlignTop);
}

QString number(double v) { return QString::number(v, 'g', 4); }

/// The display units (View > Units) of a direction's stiffness and damping.
std::pair<DisplayUnit, DisplayUnit> lawUnits(bool rotational) {
  return {displayUnit(rotational ? "N m/rad" : "N/m"), displayUnit(rotational ? "N m s/rad" : "N s/m")};
}

}  // namespace

BushingDynamicsPanel::BushingDynamicsPanel(ProjectDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  auto* layout = new QHBoxLayout(this);
  auto* left = new QVBoxLayout;
  auto* pick = new QFormLayout;
  bushing_ = new QComboBox(this);
  bushing_->setObjectName("dynamicsBushing");
  direction_ = new QComboBox(this);
  direction_->setObjectName("dynamicsDirection");
  for (const char* d : kBushingDirections) direction_->addItem(d);
  pick->addRow(tr("bushing"), bushing_);
  pick->addRow(tr("direction"), direction_);
  left->addLayout(pick);
  statics_ = new QLabel(this);
  statics_->setWordWrap(true);
  left->addWidget(statics_);

  auto* branchBox = new QGroupBox(tr("Maxwell branches"), this);
  auto* bl = new QVBoxLayout(branchBox);
  branches_ = new QTableWidget(0, 2, branchBox);
  branches_->setObjectName("dynamicsBranches");
  branches_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  branches_->setMaximumHeight(150);
  bl->addWidget(branches_);
  auto* buttons = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add branch"), branchBox);
  auto* remove = new QPushButton(tr("Remove branch"), branchBox);
  buttons->addWidget(add);
  buttons->addWidget(remove);
  bl->addLayout(buttons);
  scaled_ = new QCheckBox(tr("scale with the static curve's slope"), branchBox);
  scaled_->setToolTip(tr("Branch stiffness k_i S'(x) / S'(0) and relaxation rate likewise: the branches stiffen as the "
                         "static curve does (docs/method.md). The plot is about zero deflection, where the scale is 1."));
  bl->addWidget(scaled_);
  left->addWidget(branchBox);

  auto* fitBox = new QGroupBox(tr("Identification from a measurement"), this);
  auto* fl = new QVBoxLayout(fitBox);
  auto* load = new QPushButton(tr("Load measurement..."), fitBox);
  fl->addWidget(load);
  auto* settings = new QFormLayout;
  branchCount_ = new QSpinBox(fitBox);
  branchCount_->setRange(1, 8);
  branchCount_->setValue(2);
  settings->addRow(tr("branches"), branchCount_);
  fitStatic_ = new QCheckBox(tr("fit the static stiffness too"), fitBox);
  settings->addRow(fitStatic_);
  fl->addLayout(settings);
  auto* fitRow = new QHBoxLayout;
  auto* fitButton = new QPushButton(tr("Fit"), fitBox);
  acceptButton_ = new QPushButton(tr("Accept fit"), fitBox);
  acceptButton_->setEnabled(false);
  fitRow->addWidget(fitButton);
  fitRow->addWidget(acceptButton_);
  fl->addLayout(fitRow);
  report_ = new QLabel(fitBox);
  report_->setObjectName("fitReport");
  report_->setWordWrap(true);
  report_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  fl->addWidget(report_);
  left->addWidget(fitBox);
  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #b00020;");
  left->addWidget(error_);
  left->addStretch(1);
  auto* leftWidget = new QWidget(this);
  leftWidget->setLayout(left);
  leftWidget->setMaximumWidth(340);
  layout->addWidget(leftWidget);

  auto* plots = new QVBoxLayout;
  magnitude_ = new QCustomPlot(this);
  loss_ = new QCustomPlot(this);
  setUpPlot(magnitude_, tr("dynamic stiffness"), kMagnitudeColour);
  setUpPlot(loss_, tr("loss angle [deg]"), kLossColour);
  plots->addWidget(magnitude_, 1);
  plots->addWidget(loss_, 1);
  layout->addLayout(plots, 1);

  connect(bushing_, &QComboBox::currentIndexChanged, this, [this] {
    fit_.reset();
    refresh();
  });
  connect(direction_, &QComboBox::currentIndexChanged, this, [this] {
    fit_.reset();
    refresh();
  });
  connect(doc_, &ProjectDocument::tableChanged, this, [this](Table t, int row) {
    if (t == Table::Bushings && row < 0) fillBushings();
    if (t == Table::Bushings || t == Table::Curves) refresh();
  });
  connect(doc_, &ProjectDocument::projectReset, this, [this] {
    measurement_.reset();
    fit_.reset();
    fillBushings();
    refresh();
  });
  connect(&Units::instance(), &Units::changed, this, [this] { refresh(); });
  connect(branches_, &QTableWidget::cellChanged, this, [this](int r, int c) {
    if (filling_) return;
    bool ok = false;
    const double shown = QLocale().toDouble(branches_->item(r, c)->text().trimmed(), &ok);
    const auto [ku, cu] = lawUnits(currentDirection() >= 3);  // typed in the display units
    error_->setText(ok && std::isfinite(shown) ? editBranch(r, c, shown / (c == 0 ? ku.factor : cu.factor))
                                               : tr("expected a number"));
    refresh();
  });
  connect(scaled_, &QCheckBox::toggled, this, [this](bool on) {
    if (!filling_) error_->setText(setScaledBySlope(on));
  });
  connect(add, &QPushButton::clicked, this, [this] {
    const int b = bushingIndex();
    if (b < 0) return;
    auto rows = doc_->project().bushings[b].directions[currentDirection()].maxwell;
    // A new branch: as stiff as the static stiffness (slope at 0; a missing or broken curve, which
    // the tables already report, gives 1e5), relaxing at 10 Hz.
    const double k0 = lawSlopeAtZero(doc_->project(), doc_->project().bushings[b].directions[currentDirection()].stiffness);
    const double k = k0 > 0 ? k0 : 1e5;
    rows.push_back({k, k / (2 * M_PI * 10.0)});
    setBranches(rows, tr("add Maxwell branch"));
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    const int b = bushingIndex();
    if (b < 0) return;
    auto rows = doc_->project().bushings[b].directions[currentDirection()].maxwell;
    if (rows.empty()) return;
    const int r = branches_->currentRow();
    rows.erase(rows.begin() + (r >= 0 && r < static_cast<int>(rows.size()) ? r : static_cast<int>(rows.size()) - 1));
    setBranches(rows, tr("remove Maxwell branch"));
  });
  connect(load, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load dynamic-stiffness measurement"), {},
                                                      tr("CSV (*.csv);;All files (*)"));
    if (!path.isEmpty()) error_->setText(loadMeasurement(path));
  });
  connect(fitButton, &QPushButton::clicked, this, [this] { error_->setText(fit(branchCount_->value())); });
  connect(acceptButton_, &QPushButton::clicked, this, [this] { error_->setText(acceptFit()); });
  fillBushings();
  refresh();
}

void BushingDynamicsPanel::fillBushings() {
  const int keep = currentBushingId();
  QSignalBlocker block(bushing_);
  bushing_->clear();
  for (const auto& b : doc_->project().bushings)
    bushing_->addItem(QStringLiteral("%1: %2").arg(b.id).arg(QString::fromStdString(b.name)), b.id);
  // The first viscoelastic bushing, or the one shown before.
  int index = bushing_->findData(keep);
  for (std::size_t k = 0; index < 0 && k < doc_->project().bushings.size(); ++k)
    for (const auto& d : doc_->project().bushings[k].directions)
      if (!d.maxwell.empty() && index < 0) index = static_cast<int>(k);
  bushing_->setCurrentIndex(std::max(index, bushing_->count() > 0 ? 0 : -1));
}

int BushingDynamicsPanel::bushingIndex() const {
  const int id = currentBushingId();
  const auto& rows = doc_->project().bushings;
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k].id == id) return static_cast<int>(k);
  return -1;
}

int BushingDynamicsPanel::currentBushingId() const { return bushing_->currentIndex() >= 0 ? bushing_->currentData().toInt() : -1; }
int BushingDynamicsPanel::currentDirection() const { return std::max(direction_->currentIndex(), 0); }
QString BushingDynamicsPanel::fitReport() const { return report_->text(); }
QString BushingDynamicsPanel::lastError() const { return error_->text(); }

void BushingDynamicsPanel::showBushing(int id, int direction) {
  const int k = bushing_->findData(id);
  if (k < 0) return;
  bushing_->setCurrentIndex(k);
  direction_->setCurrentIndex(std::clamp(direction, 0, 5));
}

void BushingDynamicsPanel::setBranches(std::vector<MaxwellBranchRow> branches, const QString& what) {
  const int b = bushingIndex();
  if (b < 0) return;
  BushingRow row = doc_->project().bushings[b];
  row.directions[currentDirection()].maxwell = std::move(branches);
  error_->setText(editBushing(doc_, b, row, what));
}

QString BushingDynamicsPanel::editBranch(int k, int column, double value) {
  const int b = bushingIndex();
  if (b < 0) return tr("no bushing");
  BushingRow row = doc_->project().bushings[b];
  auto& branches = row.directions[currentDirection()].maxwell;
  if (k < 0 || k >= static_cast<int>(branches.size())) return tr("no branch %1").arg(k + 1);
  (column == 0 ? branches[k].stiffness : branches[k].damping) = value;
  return editBushing(doc_, b, row, tr("edit Maxwell branch %1").arg(k + 1));
}

QString BushingDynamicsPanel::setScaledBySlope(bool scaled) {
  const int b = bushingIndex();
  if (b < 0) return tr("no bushing");
  BushingRow row = doc_->project().bushings[b];
  row.directions[currentDirection()].maxwellScaledBySlope = scaled;
  const QString err = editBushing(doc_, b, row, scaled ? tr("scale Maxwell branches with the static slope")
                                                       : tr("constant Maxwell branches"));
  if (!err.isEmpty()) refresh();  // the box shows the tables again
  return err;
}

QString BushingDynamicsPanel::loadMeasurement(const QString& path) {
  try {
    measurement_ = readStiffnessCsv(path.toStdString());
  } catch (const ModelError& e) {
    return QString::fromStdString(e.what());
  }
  fit_.reset();
  report_->setText(tr("%1: %2 points, %3 ... %4 Hz")
                       .arg(QFileInfo(path).fileName())
                       .arg(measurement_->points.size())
                       .arg(measurement_->points.front().frequency)
                       .arg(measurement_->points.back().frequency));
  refresh();
  return {};
}

QString BushingDynamicsPanel::fit(int branches) {
  const int b = bushingIndex();
  if (b < 0) return tr("no bushing");
  if (!measurement_) return tr("load a measurement first");
  const BushingRow& row = doc_->project().bushings[b];
  const int dir = currentDirection();
  if (measurement_->rotational != (dir >= 3))
    return tr("the measurement is %1, the direction %2 is %3")
        .arg(measurement_->rotational ? tr("rotational") : tr("translational"), kBushingDirections[dir],
             dir >= 3 ? tr("rotational") : tr("translational"));
  FitOptions o;
  o.branches = branches;
  try {
    o.start = directionDynamics(doc_->project(), row, dir);
  } catch (const ModelError& e) {
    return QString::fromStdString(e.what());
  }
  // The static stiffness is fitted only when it is a coefficient (a curve's shape is the user's).
  o.fitStatic = fitStatic_->isChecked() && !row.directions[dir].stiffness.curve;
  try {
    fit_ = fitMaxwellBranches(*measurement_, o);
  } catch (const std::invalid_argument& e) {
    return QString::fromUtf8(e.what());
  }
  const auto [kd, cd] = lawUnits(dir >= 3);
  const QString ku = kd.unit, cu = cd.unit;
  QString text = tr("Fit of %1 branch(es): RMS error of the magnitude %2 %, of the loss angle %3 deg; %4.")
                     .arg(branches)
                     .arg(100 * fit_->rmsMagnitude, 0, 'f', 2)
                     .arg(fit_->rmsLossAngle * 180 / M_PI, 0, 'f', 2)
                     .arg(QString::fromStdString(fit_->status));
  int q = 0;
  if (o.fitStatic)
    text += tr("\nk0 = %1 %2 (± %3 %)").arg(number(kd.factor * fit_->model.k0), ku).arg(100 * fit_->logStandardErrors[q++], 0, 'f', 1);
  else text += tr("\nk0 = %1 %2 (kept)").arg(number(kd.factor * fit_->model.k0), ku);
  for (std::size_t i = 0; i < fit_->model.branches.size(); ++i, q += 2)
    text += tr("\nbranch %1: k = %2 %3 (± %4 %), c = %5 %6, k/c = %7 1/s (± %8 %)")
                .arg(i + 1)
                .arg(number(kd.factor * fit_->model.branches[i].stiffness), ku)
                .arg(100 * fit_->logStandardErrors[q], 0, 'f', 1)
                .arg(number(cd.factor * fit_->model.branches[i].damping), cu)
                .arg(number(fit_->model.branches[i].stiffness / fit_->model.branches[i].damping))
                .arg(100 * fit_->logStandardErrors[q + 1], 0, 'f', 1);
  report_->setText(text);
  refresh();
  return {};
}

QString BushingDynamicsPanel::acceptFit() {
  const int b = bushingIndex();
  if (b < 0 || !fit_) return tr("no fit to accept");
  BushingRow row = doc_->project().bushings[b];
  BushingDirectionRow& d = row.directions[currentDirection()];
  d.maxwell = fit_->model.branches;
  if (!d.stiffness.curve) d.stiffness.coefficient = fit_->model.k0;
  const QString err = editBushing(doc_, b, row, tr("accept the fitted Maxwell branches of bushing %1 %2")
                                                    .arg(row.id)
                                                    .arg(kBushingDirections[currentDirection()]));
  if (err.isEmpty()) {
    fit_.reset();
    refresh();
  }
  return err;
}

void BushingDynamicsPanel::refresh() {
  for (QCustomPlot* p : {magnitude_, loss_})
    for (int g = 0; g < p->graphCount(); ++g) p->graph(g)->data()->clear();
  filling_ = true;
  branches_->setRowCount(0);
  const int b = bushingIndex(), dir = currentDirection();
  const auto [ku, cu] = lawUnits(dir >= 3);
  branches_->setHorizontalHeaderLabels({tr("stiffness [%1]").arg(ku.unit), tr("damping [%1]").arg(cu.unit)});
  magnitude_->yAxis->setLabel(tr("dynamic stiffness [%1]").arg(ku.unit));
  acceptButton_->setEnabled(fit_.has_value());
  if (b >= 0) {
    const BushingRow& row = doc_->project().bushings[b];
    const auto& maxwell = row.directions[dir].maxwell;
    scaled_->setChecked(row.directions[dir].maxwellScaledBySlope);
    scaled_->setEnabled(!maxwell.empty() || row.directions[dir].maxwellScaledBySlope);
    branches_->setRowCount(static_cast<int>(maxwell.size()));
    for (std::size_t i = 0; i < maxwell.size(); ++i) {
      branches_->setItem(static_cast<int>(i), 0,
                         new QTableWidgetItem(QLocale().toString(ku.factor * maxwell[i].stiffness, 'g', 8)));
      branches_->setItem(static_cast<int>(i), 1,
                         new QTableWidgetItem(QLocale().toString(cu.factor * maxwell[i].damping, 'g', 8)));
    }
    double lo = kFrequencyLow, hi = kFrequencyHigh;
    if (measurement_) {
      lo = std::min(lo, measurement_->points.front().frequency);
      hi = std::max(hi, measurement_->points.back().frequency);
    }
    try {
      const DirectionDynamics d = directionDynamics(doc_->project(), row, dir);
      statics_->setText(tr("static stiffness k0 = %1 %2 (%3), damper c0 = %4 %5; %6")
                            .arg(number(ku.factor * d.k0), ku.unit,
                                 row.directions[dir].stiffness.curve
                                     ? tr("slope of curve %1 at 0").arg(*row.directions[dir].stiffness.curve)
                                     : tr("coefficient"))
                            .arg(number(cu.factor * d.c0), cu.unit)
                            .arg(maxwell.empty() ? tr("no branches: K = k0 + j w c0")
                                                 : tr("|K| / k0 at 10 Hz = %1").arg(std::abs(complexStiffness(d, 10.0)) / d.k0, 0, 'f', 3)));
      auto draw = [&](const DirectionDynamics& model, int graph) {
        for (int i = 0; i <= 200; ++i) {
          const double f = lo * std::pow(hi / lo, i / 200.0);
          const std::complex<double> K = complexStiffness(model, f);
          magnitude_->graph(graph)->addData(f, ku.factor * std::abs(K));
          loss_->graph(graph)->addData(f, std::arg(K) * 180 / M_PI);
        }
      };
      draw(d, Model);
      if (fit_) draw(fit_->model, Fitted);
    } catch (const ModelError& e) {
      statics_->setText(QString::fromStdString(e.what()));
    }
    if (measurement_)
      for (const StiffnessPoint& p : measurement_->points) {
        magnitude_->graph(Measurement)->addData(p.frequency, ku.factor * p.magnitude);
        loss_->graph(Measurement)->addData(p.frequency, p.lossAngle * 180 / M_PI);
      }
  }
  filling_ = false;
  for (QCustomPlot* p : {magnitude_, loss_}) {
    p->graph(Measurement)->setVisible(measurement_.has_value());
    p->graph(Fitted)->setVisible(fit_.has_value());
    // The legend lists the graphs drawn.
    for (int g = 0; g < p->graphCount(); ++g)
      if (p->graph(g)->visible()) p->graph(g)->addToLegend();
      else p->graph(g)->removeFromLegend();
    p->rescaleAxes();
    p->yAxis->scaleRange(1.1);
    p->replot();
  }
}

}  // namespace ek::ui
