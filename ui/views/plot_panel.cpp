// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/views/plot_panel.h"

#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QPushButton>
#include <QSplitter>
#include <QSvgGenerator>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "engine/core/text.h"
#include "engine/dynamics/outputs.h"
#include "engine/model/project_diff.h"
#include "ui/document/file_output.h"
#include "ui/views/analysis_report.h"
#include "ui/document/units.h"

namespace ek::ui {
namespace {

const QColor kNewest(20, 90, 170);
const QColor kStaleGrey(150, 150, 150);
const Qt::PenStyle kDashes[] = {Qt::DashLine, Qt::DashDotLine, Qt::DotLine, Qt::DashDotDotLine};
const QColor kOthers[] = {QColor(230, 120, 20), QColor(40, 150, 60), QColor(200, 40, 40), QColor(140, 90, 190),
                          QColor(120, 80, 60), QColor(220, 100, 180)};

/// The smallest value-axis span shown for a unit: a flat curve (the static phase, two equal
/// runs' difference) gets a visible range instead of its round-off magnified to full height.
double minimumSpan(const QString& unit, double centre) {
  double floor = 1e-9;
  if (unit == "m" || unit == "rad" || unit == "m/s" || unit == "rad/s") floor = 1e-6;
  else if (unit == "N" || unit == "N m") floor = 1e-3;
  return std::max(floor, 1e-9 * std::abs(centre));
}

}  // namespace

PlotPanel::PlotPanel(RunHistory* runs, QWidget* parent, int plots) : QWidget(parent), runs_(runs), timer_(new QTimer(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  staleLabel_ = new QLabel(this);
  staleLabel_->setWordWrap(true);
  staleLabel_->setStyleSheet("color: #9a5b00; font-weight: bold;");
  staleLabel_->setVisible(false);
  layout->addWidget(staleLabel_);
  auto* split = new QSplitter(Qt::Vertical, this);
  plotArea_ = new QWidget(split);
  auto* plotLayout = new QVBoxLayout(plotArea_);
  plotLayout->setContentsMargins(0, 0, 0, 0);
  for (int k = 0; k < plots; ++k) addPlot();
  auto* listArea = new QWidget(split);
  auto* listLayout = new QVBoxLayout(listArea);
  listLayout->setContentsMargins(0, 0, 0, 0);
  list_ = new QTreeWidget(listArea);
  list_->setColumnCount(6);
  list_->setHeaderLabels({tr("run (shown)"), tr("load case"), tr("method"), tr("started"), tr("samples"),
                          tr("changed since the run before")});
  list_->setRootIsDecorated(false);
  list_->setSelectionMode(QAbstractItemView::SingleSelection);
  list_->header()->setStretchLastSection(true);
  listLayout->addWidget(list_, 1);
  auto* buttons = new QHBoxLayout;
  auto* addPlotButton = new QPushButton(tr("Add plot"), listArea);
  addPlotButton->setToolTip(tr("Another plot under the others"));
  connect(addPlotButton, &QPushButton::clicked, this, &PlotPanel::addPlot);
  buttons->addWidget(addPlotButton);
  referenceButton_ = new QPushButton(tr("Use as reference"), listArea);
  removeButton_ = new QPushButton(tr("Remove"), listArea);
  exportButton_ = new QPushButton(tr("Export CSV..."), listArea);
  for (auto* b : {referenceButton_, removeButton_, exportButton_}) buttons->addWidget(b);
  buttons->addStretch();
  listLayout->addLayout(buttons);
  split->addWidget(plotArea_);
  split->addWidget(listArea);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  auto selectedRun = [this] {
    const auto items = list_->selectedItems();
    return items.isEmpty() ? -1 : items.front()->data(0, Qt::UserRole).toInt();
  };
  connect(list_, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (filling_ || column != 0) return;
    runs_->setShown(item->data(0, Qt::UserRole).toInt(), item->checkState(0) == Qt::Checked);
  });
  connect(list_, &QTreeWidget::itemSelectionChanged, this, [this] { updateButtons(); });
  connect(referenceButton_, &QPushButton::clicked, this, [this, selectedRun] { runs_->setReference(selectedRun()); });
  connect(removeButton_, &QPushButton::clicked, this, [this, selectedRun] {
    const int r = selectedRun();
    if (r >= 0) runs_->remove(r);
  });
  connect(exportButton_, &QPushButton::clicked, this, [this, selectedRun] {
    const int r = selectedRun();
    if (r < 0) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export run"), QStringLiteral("run%1.csv").arg(runs_->run(r).number),
                                                      tr("CSV (*.csv)"));
    if (!path.isEmpty()) runs_->exportRunCsv(r, path);
  });
  timer_->setInterval(100);  // 10 Hz while running: the plots never hold the run back
  connect(timer_, &QTimer::timeout, this, &PlotPanel::replotNow);
  connect(runs_, &RunHistory::runStarted, this, &PlotPanel::onRunStarted);
  connect(runs_, &RunHistory::appended, this, &PlotPanel::onAppended);
  connect(runs_, &RunHistory::changed, this, [this] {
    fillList();
    refillAll();
  });
  connect(runs_, &RunHistory::staleChanged, this, [this](bool stale, const QString& text) {
    staleLabel_->setText(displayChanges(text));
    staleLabel_->setVisible(stale);
  });
  connect(&Units::instance(), &Units::changed, this, [this] {
    staleLabel_->setText(displayChanges(runs_->staleText()));
    fillList();
    for (int k = 0; k < plotCount(); ++k) fillChannels(slots_[k], {}, k);
    refillAll();
  });
  updateButtons();
}

void PlotPanel::addPlot() {
  Slot slot;
  slot.box = new QWidget(plotArea_);
  auto* v = new QVBoxLayout(slot.box);
  v->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  slot.channel = new QComboBox(slot.box);
  slot.channel->setMinimumWidth(240);
  slot.x = new QComboBox(slot.box);
  slot.x->setMinimumWidth(150);
  slot.x->setToolTip(tr("The x axis: time, or any channel for an X-Y plot (e.g. toe against wheel travel)"));
  slot.difference = new QCheckBox(tr("difference to the reference run"), slot.box);
  slot.difference->setToolTip(tr("Plot each shown run minus the reference run (chosen in the results list; by default "
                                 "the run before the newest)"));
  slot.readout = new QLabel(slot.box);
  auto* reset = new QPushButton(tr("Reset zoom"), slot.box);
  auto* exportButton = new QPushButton(tr("Export..."), slot.box);
  exportButton->setToolTip(tr("Save this plot as PNG, PDF or SVG, with a title block"));
  auto* remove = new QPushButton(QStringLiteral("×"), slot.box);
  remove->setToolTip(tr("Remove this plot"));
  remove->setMaximumWidth(28);
  row->addWidget(new QLabel(tr("Channel:"), slot.box));
  row->addWidget(slot.channel);
  row->addWidget(new QLabel(tr("against"), slot.box));
  row->addWidget(slot.x);
  row->addWidget(slot.difference);
  row->addStretch();
  row->addWidget(slot.readout);
  row->addWidget(reset);
  row->addWidget(exportButton);
  row->addWidget(remove);
  v->addLayout(row);
  slot.plot = new QCustomPlot(slot.box);
  slot.plot->xAxis->setLabel(tr("time [s]"));
  slot.plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  slot.plot->setMinimumHeight(140);
  slot.plot->legend->setFont(QFont(font().family(), 8));
  v->addWidget(slot.plot, 1);
  static_cast<QVBoxLayout*>(plotArea_->layout())->addWidget(slot.box, 1);
  slot.box->show();  // at once, not when the event loop next runs (a visible panel)
  // The slot's index changes when plots above it are removed: look it up by its box.
  QWidget* box = slot.box;
  auto index = [this, box] {
    for (int k = 0; k < plotCount(); ++k)
      if (slots_[k].box == box) return k;
    return -1;
  };
  connect(slot.channel, &QComboBox::currentIndexChanged, this, [this, index] { refill(index()); });
  connect(slot.x, &QComboBox::currentIndexChanged, this, [this, index] { refill(index()); });
  connect(slot.difference, &QCheckBox::toggled, this, [this, index] { refill(index()); });
  connect(reset, &QPushButton::clicked, this, [this, index] { resetZoom(index()); });
  connect(remove, &QPushButton::clicked, this, [this, index] { removePlot(index()); });
  connect(exportButton, &QPushButton::clicked, this, [this, index] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), "plot.png", tr("Images (*.png *.pdf *.svg)"));
    if (!path.isEmpty()) exportPlot(index(), path);
  });
  // Cursor readout: the value of each curve at the mouse's x.
  QCustomPlot* plot = slot.plot;
  QLabel* readout = slot.readout;
  connect(plot, &QCustomPlot::mouseMove, this, [plot, readout](QMouseEvent* e) {
    if (plot->graphCount() == 0) return;
    const double t = plot->xAxis->pixelToCoord(e->position().x());
    QStringList parts;
    for (int g = plot->graphCount() - 1; g >= 0 && parts.size() < 3; --g) {
      const auto data = plot->graph(g)->data();
      if (data->isEmpty()) continue;
      auto it = data->findBegin(t, false);
      if (it == data->constEnd()) --it;
      parts << QStringLiteral("%1 = %2").arg(plot->graph(g)->name().section(':', 0, 0)).arg(it->value, 0, 'g', 6);
      if (parts.size() == 1) parts.front().prepend(QStringLiteral("t = %1 s, ").arg(it->key, 0, 'f', 3));
    }
    readout->setText(parts.join("; "));
  });
  slots_.push_back(slot);
  const int k = plotCount() - 1;
  fillChannels(slots_[k], {}, k);
  refill(k);
}

void PlotPanel::removePlot(int k) {
  if (k < 0 || k >= plotCount() || plotCount() == 1) return;
  QWidget* box = slots_[k].box;
  slots_.erase(slots_.begin() + k);
  box->deleteLater();
}

void PlotPanel::fillChannels(Slot& slot, const QStringList& preferred, int k) {
  const QStringList names = runs_->channels(), unitList = runs_->units();
  QSignalBlocker blockChannel(slot.channel), blockX(slot.x);
  const QString previous = slot.channel->currentData().toString(), previousX = slot.x->currentData().toString();
  slot.channel->clear();
  slot.x->clear();
  slot.x->addItem(tr("time [s]"), QString());
  for (int c = 0; c < names.size(); ++c) {
    const QString text = QStringLiteral("%1 [%2]").arg(names[c], displayUnit(unitList[c]).unit);
    slot.channel->addItem(text, names[c]);
    slot.x->addItem(text, names[c]);
  }
  int pick = names.indexOf(previous);
  if (pick < 0 && k < preferred.size())
    for (int c = 0; c < names.size(); ++c)
      if (names[c].contains(preferred[k])) {
        pick = c;
        break;
      }
  if (pick < 0) pick = std::min<int>(k, names.size() - 1);
  slot.channel->setCurrentIndex(pick);
  slot.x->setCurrentIndex(std::max(0, slot.x->findData(previousX)));
}

void PlotPanel::setXChannel(int k, int channel) { slots_[k].x->setCurrentIndex(channel + 1); }
int PlotPanel::xChannel(int k) const { return slots_[k].x->currentIndex() - 1; }

void PlotPanel::resetZoom(int k) {
  if (k < 0 || k >= plotCount()) return;
  fitAxes(k);
  slots_[k].plot->replot();
}

void PlotPanel::onRunStarted() {
  for (int k = 0; k < plotCount(); ++k) {
    if (runs_->empty()) {
      Slot& slot = slots_[k];
      slot.live = nullptr;
      QSignalBlocker blockChannel(slot.channel), blockX(slot.x);
      slot.channel->clear();
      slot.x->clear();
      slot.readout->clear();
    } else {
      fillChannels(slots_[k], preferred_, k);
    }
  }
}

void PlotPanel::onAppended(const SampleBlock& b) {
  const RunRecord& r = runs_->run(runs_->count() - 1);
  const int ref = runs_->reference();
  for (int k = 0; k < plotCount(); ++k) {
    if (!slots_[k].live) continue;
    const int c = r.channel(channelName(k));
    if (c < 0 || c >= static_cast<int>(b.values.size())) continue;
    const bool diff = difference(k) && ref >= 0;
    const RunRecord* reference = diff ? &runs_->run(ref) : nullptr;
    const int rc = diff ? reference->channel(r.channels[c]) : -1;
    QVector<double> t(b.t.begin(), b.t.end()), v(b.values[c].begin(), b.values[c].end());
    if (diff)
      for (int i = 0; i < t.size(); ++i) v[i] -= rc >= 0 ? reference->valueAt(rc, t[i]) : 0.0;
    const double f = displayUnit(r.units[c]).factor;
    if (f != 1.0)
      for (double& x : v) x *= f;
    slots_[k].live->addData(t, v, true);
  }
  dirty_ = true;
}

void PlotPanel::setRunning(bool running) {
  running_ = running;
  if (running) timer_->start();
  else {
    timer_->stop();
    for (Slot& slot : slots_) slot.live = nullptr;
    refillAll();  // differences against the now complete runs, the newest run's final styling
  }
}

void PlotPanel::replotNow() {
  if (!dirty_ && running_) return;
  dirty_ = false;
  for (int k = 0; k < plotCount(); ++k) {
    fitAxes(k);
    slots_[k].plot->replot(running_ ? QCustomPlot::rpQueuedReplot : QCustomPlot::rpImmediateRefresh);
  }
  ++replots_;
}

void PlotPanel::fitAxes(int k) {
  QCustomPlot* p = slots_[k].plot;
  const auto& t = runs_->times();
  const bool timeAxis = xChannel(k) < 0;
  if (running_ && timeAxis && !t.empty()) p->xAxis->setRange(std::max(t.front(), t.back() - window_), t.back() + 0.05);
  else if (p->plottableCount() > 0) p->rescaleAxes(true);
  bool first = true;
  QCPRange range;
  for (int g = 0; g < p->plottableCount(); ++g) {
    bool found = false;
    const QCPRange r = p->plottable(g)->getValueRange(found, QCP::sdBoth, p->xAxis->range());
    if (!found) continue;
    range = first ? r : QCPRange(std::min(range.lower, r.lower), std::max(range.upper, r.upper));
    first = false;
  }
  if (first) return;
  const int c = selectedChannel(k);
  const QStringList units = runs_->units();
  const QString unit = c >= 0 && c < units.size() ? units[c] : QString();  // SI
  const double f = displayUnit(unit).factor;
  // A difference is shown down to a thousandth of the unit's floor: it is what was asked for.
  const double floor = f * (difference(k) ? 1e-3 * minimumSpan(unit, 0.0) : minimumSpan(unit, range.center() / f));
  const double span = std::max(range.size() * 1.1, floor);
  p->yAxis->setRange(range.center() - span / 2, range.center() + span / 2);
}

int PlotPanel::selectedChannel(int k) const { return slots_[k].channel->currentIndex(); }
void PlotPanel::selectChannel(int k, int c) { slots_[k].channel->setCurrentIndex(c); }

QString PlotPanel::channelName(int k) const { return slots_[k].channel->currentData().toString(); }

void PlotPanel::setDifference(int plot, bool on) { slots_[plot].difference->setChecked(on); }
bool PlotPanel::difference(int plot) const { return slots_[plot].difference->isChecked(); }

void PlotPanel::refillAll() {
  for (int k = 0; k < plotCount(); ++k) refill(k);
}

void PlotPanel::refill(int k) {
  if (k < 0 || k >= plotCount()) return;
  Slot& slot = slots_[k];
  QCustomPlot* p = slot.plot;
  p->clearPlottables();
  slot.live = nullptr;
  slot.readout->clear();
  const QString name = channelName(k);
  const QString xName = slot.x->currentData().toString();  // empty: time
  const int ref = runs_->reference();
  const int runCount = runs_->count();
  const bool stale = runs_->isStale();
  const bool diff = difference(k) && ref >= 0;
  QString unit, xUnit;
  for (int r = 0; r < runCount; ++r) {
    const RunRecord& run = runs_->run(r);
    const int c = run.channel(name);
    const int xc = xName.isEmpty() ? -1 : run.channel(xName);
    if (!run.shown || c < 0 || (diff && r == ref) || (!xName.isEmpty() && xc < 0)) continue;
    const bool newest = r == runCount - 1;
    const int rc = diff ? runs_->run(ref).channel(name) : -1;
    if (diff && rc < 0) continue;
    const DisplayUnit du = displayUnit(run.units[c]);
    unit = du.unit;
    const std::size_t n = std::min(run.v[c].size(), run.t.size());
    QVector<double> v(run.v[c].begin(), run.v[c].begin() + n);
    if (diff)
      for (std::size_t i = 0; i < n; ++i) v[i] -= runs_->run(ref).valueAt(rc, run.t[i]);
    if (du.factor != 1.0)
      for (double& y : v) y *= du.factor;
    // Each kept run its own colour and dash (by its number, so a run keeps its look); the newest
    // solid, thinner than the others and drawn last: on top, with the others visible around it.
    QPen pen(newest ? kNewest : kOthers[(run.number - 1) % std::size(kOthers)], newest ? 1.5 : 2.4);
    if (!newest) pen.setStyle(kDashes[(run.number - 1) % std::size(kDashes)]);
    if (newest && stale) {
      pen.setColor(kStaleGrey);
      pen.setStyle(Qt::DashLine);
    }
    QString label = diff ? QStringLiteral("%1 − run %2").arg(run.title()).arg(runs_->run(ref).number) : run.title();
    if (!run.changes.isEmpty() && !diff) label += ": " + displayChanges(run.changes);
    if (newest && stale) label += tr(" — not current");
    QCPAbstractPlottable* curve = nullptr;
    if (xc < 0) {
      QCPGraph* g = p->addGraph();
      g->setData(QVector<double>(run.t.begin(), run.t.begin() + n), v, true);
      if (newest && running_) slot.live = g;
      curve = g;
    } else {  // X-Y: a parametric curve in the order of time
      const DisplayUnit dx = displayUnit(run.units[xc]);
      xUnit = dx.unit;
      auto* xy = new QCPCurve(p->xAxis, p->yAxis);
      QVector<double> x(run.v[xc].begin(), run.v[xc].begin() + std::min(n, run.v[xc].size()));
      if (dx.factor != 1.0)
        for (double& value : x) value *= dx.factor;
      v.resize(x.size());
      xy->setData(x, v);
      curve = xy;
    }
    curve->setPen(pen);
    curve->setName(label);
  }
  placeLegendBelow(p, p->plottableCount() > 1 || diff, 1);
  if (p->plottableCount() == 0) {  // no stale tick labels of data no longer shown
    p->xAxis->setRange(0.0, 1.0);
    p->yAxis->setRange(-1.0, 1.0);
  }
  p->xAxis->setLabel(xName.isEmpty() ? tr("time [s]") : QStringLiteral("%1 [%2]").arg(xName, xUnit));
  if (!name.isEmpty())
    p->yAxis->setLabel(diff ? QStringLiteral("Δ %1 [%2] (to run %3)").arg(name, unit).arg(runs_->run(ref).number)
                            : QStringLiteral("%1 [%2]").arg(name, unit));
  else
    p->yAxis->setLabel(QString());
  dirty_ = true;
  replotNow();
}

void PlotPanel::fillList() {
  filling_ = true;
  list_->clear();
  const int ref = runs_->reference();
  for (int r = 0; r < runs_->count(); ++r) {
    const RunRecord& run = runs_->run(r);
    auto* item = new QTreeWidgetItem(list_);
    QString title = QStringLiteral("run %1").arg(run.number);
    if (r == ref) title += tr(" (reference)");
    if (!run.finished) title += tr(" (running)");
    else if (!run.stopped.isEmpty()) title += tr(" (stopped)");
    item->setText(0, title);
    item->setText(1, run.loadCase);
    item->setText(2, run.method);
    item->setText(3, run.when.toString("HH:mm:ss"));
    item->setText(4, QString::number(run.t.size()));
    item->setText(5, displayChanges(run.changes));
    item->setToolTip(5, displayChanges(run.changes));
    if (!run.stopped.isEmpty()) item->setToolTip(0, run.stopped);
    item->setData(0, Qt::UserRole, r);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(0, run.shown ? Qt::Checked : Qt::Unchecked);
  }
  for (int c = 0; c < 4; ++c) list_->resizeColumnToContents(c);
  filling_ = false;
  updateButtons();
}

void PlotPanel::updateButtons() {
  const bool any = !list_->selectedItems().isEmpty();
  referenceButton_->setEnabled(any);
  removeButton_->setEnabled(any);
  exportButton_->setEnabled(any);
}

QString PlotPanel::exportPlot(int k, const QString& path) const {
  if (k < 0 || k >= plotCount()) return tr("No such plot.");
  if (const QString c = open_inputs::clash(path); !c.isEmpty()) return c;
  QCustomPlot* p = slots_[k].plot;
  // A title block for the exported file only: project, load case(s), runs, date.
  QStringList runsShown, cases;
  QString project;
  for (const RunRecord& r : runs_->runs()) {
    if (!r.shown) continue;
    runsShown << QString::number(r.number);
    if (!cases.contains(r.loadCase)) cases << r.loadCase;
    project = QString::fromStdString(r.project.name);
  }
  const QString title = tr("%1 — %2 — run %3 — %4")
                            .arg(project.isEmpty() ? tr("no project") : project, cases.join(", "), runsShown.join(", "),
                                 QDateTime::currentDateTime().toString("yyyy-MM-dd HH:mm"));
  p->plotLayout()->insertRow(0);
  auto* heading = new QCPTextElement(p, title, QFont(font().family(), 9, QFont::Bold));
  p->plotLayout()->addElement(0, 0, heading);
  const bool legend = p->legend->visible();
  placeLegendBelow(p, p->plottableCount() > 0, 1);
  p->replot(QCustomPlot::rpImmediateRefresh);
  // Drawn into memory, then written through OutputFile (file_output.h).
  QBuffer bytes;
  bytes.open(QIODevice::WriteOnly);
  bool ok = false;
  QString error;
  constexpr int kWidth = 1200, kHeight = 700;
  if (path.endsWith(".png", Qt::CaseInsensitive)) {
    ok = p->toPixmap(kWidth, kHeight, 1.0).save(&bytes, "PNG");
  } else if (path.endsWith(".pdf", Qt::CaseInsensitive)) {
    QPdfWriter pdf(&bytes);
    pdf.setPageSize(QPageSize(QSizeF(kWidth, kHeight), QPageSize::Point));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    pdf.setResolution(72);
    pdf.setCreator("Elastokin");
    QCPPainter painter;
    ok = painter.begin(&pdf);
    if (ok) {
      p->toPainter(&painter, kWidth, kHeight);
      ok = painter.end();
    }
  } else if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setOutputDevice(&bytes);
    svg.setSize(QSize(kWidth, kHeight));
    svg.setViewBox(QRect(0, 0, kWidth, kHeight));
    QCPPainter painter;
    ok = painter.begin(&svg);
    if (ok) {
      p->toPainter(&painter, kWidth, kHeight);
      ok = painter.end();
    }
  } else {
    error = tr("%1: unknown format (use .png, .pdf or .svg)").arg(path);
  }
  p->plotLayout()->remove(heading);
  p->plotLayout()->simplify();
  placeLegendBelow(p, legend, 1);
  p->replot(QCustomPlot::rpImmediateRefresh);
  if (!error.isEmpty()) return error;
  if (!ok || bytes.data().isEmpty()) return tr("%1: cannot draw the plot").arg(path);
  return writeFileBytes(path, bytes.data(), tr("plot"));
}

}  // namespace ek::ui
