// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plot_panel.h"

#include <QComboBox>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>
#include <QTimer>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "engine/core/text.h"
#include "engine/dynamics/outputs.h"

namespace ek::ui {

PlotPanel::PlotPanel(QWidget* parent, int plots) : QWidget(parent), timer_(new QTimer(this)) {
  auto* layout = new QVBoxLayout(this);
  for (int k = 0; k < plots; ++k) {
    auto* row = new QHBoxLayout;
    auto* combo = new QComboBox(this);
    combo->setMinimumWidth(260);
    auto* readout = new QLabel(this);
    row->addWidget(new QLabel(tr("Channel:"), this));
    row->addWidget(combo);
    row->addStretch();
    row->addWidget(readout);
    layout->addLayout(row);
    auto* p = new QCustomPlot(this);
    p->addGraph();
    p->graph(0)->setPen(QPen(QColor(20, 90, 170), 1.5));
    p->xAxis->setLabel(tr("time [s]"));
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->setMinimumHeight(160);
    layout->addWidget(p, 1);
    plots_.push_back(p);
    selectors_.push_back(combo);
    readouts_.push_back(readout);
    connect(combo, &QComboBox::currentIndexChanged, this, [this, k] { refill(k); });
    // Cursor readout: value of the shown channel at the mouse's time.
    connect(p, &QCustomPlot::mouseMove, this, [this, k](QMouseEvent* e) {
      const int c = selectedChannel(k);
      if (c < 0 || t_.empty()) return;
      const double t = plots_[k]->xAxis->pixelToCoord(e->position().x());
      const auto it = std::lower_bound(t_.begin(), t_.end(), t);
      const std::size_t i = std::min<std::size_t>(t_.size() - 1, static_cast<std::size_t>(it - t_.begin()));
      readouts_[k]->setText(QStringLiteral("t = %1 s, %2 = %3 %4")
                                .arg(t_[i], 0, 'f', 3)
                                .arg(channels_[c])
                                .arg(v_[c][i], 0, 'g', 6)
                                .arg(units_[c]));
    });
  }
  timer_->setInterval(33);  // ~30 Hz while running
  connect(timer_, &QTimer::timeout, this, &PlotPanel::replotNow);
}

void PlotPanel::startRun(const QStringList& channels, const QStringList& units, double duration,
                         const QStringList& preferred) {
  channels_ = channels;
  units_ = units;
  duration_ = duration;
  t_.clear();
  v_.assign(channels.size(), {});
  for (std::size_t k = 0; k < plots_.size(); ++k) {
    QSignalBlocker block(selectors_[k]);
    const int previous = selectors_[k]->currentIndex();
    selectors_[k]->clear();
    for (int c = 0; c < channels.size(); ++c) selectors_[k]->addItem(QStringLiteral("%1 [%2]").arg(channels[c], units[c]));
    int pick = previous >= 0 && previous < channels.size() ? previous : std::min<int>(k, channels.size() - 1);
    if (k < static_cast<std::size_t>(preferred.size()))
      for (int c = 0; c < channels.size(); ++c)
        if (channels[c].contains(preferred[k])) {
          pick = c;
          break;
        }
    selectors_[k]->setCurrentIndex(pick);
    refill(static_cast<int>(k));
  }
}

void PlotPanel::append(const SampleBlock& b) {
  t_.insert(t_.end(), b.t.begin(), b.t.end());
  for (std::size_t c = 0; c < v_.size() && c < b.values.size(); ++c)
    v_[c].insert(v_[c].end(), b.values[c].begin(), b.values[c].end());
  for (std::size_t k = 0; k < plots_.size(); ++k) {
    const int c = selectedChannel(static_cast<int>(k));
    if (c < 0) continue;
    QVector<double> t(b.t.begin(), b.t.end()), v(b.values[c].begin(), b.values[c].end());
    plots_[k]->graph(0)->addData(t, v, true);
  }
  dirty_ = true;
}

void PlotPanel::setRunning(bool running) {
  running_ = running;
  if (running) timer_->start();
  else {
    timer_->stop();
    replotNow();
  }
}

void PlotPanel::replotNow() {
  if (!dirty_ && running_) return;
  dirty_ = false;
  for (auto* p : plots_) {
    if (running_ && !t_.empty()) p->xAxis->setRange(std::max(t_.front(), t_.back() - window_), t_.back() + 0.05);
    else p->graph(0)->rescaleKeyAxis();
    p->graph(0)->rescaleValueAxis(false, true);
    p->replot(running_ ? QCustomPlot::rpQueuedReplot : QCustomPlot::rpImmediateRefresh);
  }
}

int PlotPanel::selectedChannel(int k) const { return selectors_[k]->currentIndex(); }
void PlotPanel::selectChannel(int k, int c) { selectors_[k]->setCurrentIndex(c); }

void PlotPanel::refill(int k) {
  const int c = selectedChannel(k);
  QCustomPlot* p = plots_[k];
  p->graph(0)->data()->clear();
  if (c >= 0 && c < static_cast<int>(v_.size())) {
    p->graph(0)->setData(QVector<double>(t_.begin(), t_.end()), QVector<double>(v_[c].begin(), v_[c].end()), true);
    p->yAxis->setLabel(QStringLiteral("%1 [%2]").arg(channels_[c], units_[c]));
  }
  dirty_ = true;
  replotNow();
}

QString PlotPanel::exportCsv(const QString& path) const {
  // As the runner writes results: RFC 4180 header, exact times, and a temporary file that
  // replaces the target only when everything was written (QSaveFile).
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return tr("%1: cannot write (%2)").arg(path, f.errorString());
  QTextStream out(&f);
  out << "time [s]";
  for (int c = 0; c < channels_.size(); ++c)
    out << ',' << QString::fromStdString(csvField((channels_[c] + " [" + units_[c] + "]").toStdString()));
  out << '\n';
  for (std::size_t i = 0; i < t_.size(); ++i) {
    out << QString::fromStdString(shortestText(t_[i]));
    for (const auto& col : v_) out << ',' << QString::number(col[i], 'g', 10);
    out << '\n';
  }
  out.flush();
  if (!f.commit()) return tr("%1: write failed (%2)").arg(path, f.errorString());
  return {};
}

QString PlotPanel::exportPlot(int k, const QString& path) const {
  QCustomPlot* p = plots_[k];
  bool ok = false;
  if (path.endsWith(".png", Qt::CaseInsensitive)) ok = p->savePng(path, 1200, 700, 1.0);
  else if (path.endsWith(".pdf", Qt::CaseInsensitive)) ok = p->savePdf(path, 1200, 700);
  else if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(QSize(1200, 700));
    svg.setViewBox(QRect(0, 0, 1200, 700));
    QCPPainter painter;
    painter.begin(&svg);
    p->toPainter(&painter, 1200, 700);
    ok = painter.end();
  } else {
    return tr("%1: unknown format (use .png, .pdf or .svg)").arg(path);
  }
  return ok ? QString() : tr("%1: cannot write").arg(path);
}

}  // namespace ek::ui
