// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/views/analysis_report.h"

#include <QApplication>
#include <QBuffer>
#include <QDateTime>
#include <QFileInfo>
#include <QPageSize>
#include <QPdfWriter>
#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <qcustomplot.h>

#include "engine/model/project_diff.h"
#include "ui/document/file_output.h"

namespace ek::ui {
namespace {

constexpr double kDeg = 180.0 / M_PI;

/// One K&C plot: a wheel channel (or the vertical force) in engineering units.
struct KcQuantity {
  const char* column;  ///< suffix after the wheel's name
  const char* title;
  const char* unit;
  double scale;        ///< SI -> shown unit
  bool change;         ///< shown as the change from the design position
  bool outboard;       ///< times the wheel's side: outboard positive on both sides
};
constexpr KcQuantity kKcPlots[kAnalysisPlots] = {
    // Titles short enough for a plot a sixth of a 1366 px screen wide.
    {"toe", "Toe (in +)", "deg", kDeg, false, false},
    {"camber", "Camber (top out +)", "deg", kDeg, false, false},
    {"centre x", "Wheel centre x change (fwd +)", "mm", 1e3, true, false},
    {"centre y", "Half-track change, centre (out +)", "mm", 1e3, true, true},
    {"vertical force", "Vertical contact force", "N", 1.0, false, false},
    {"caster", "Caster", "deg", kDeg, false, false}};

const QColor kColours[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
                           QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75)};

/// The design position of a sweep: its point nearest zero.
std::size_t designPoint(const KcResult& kc) {
  std::size_t design = 0;
  for (std::size_t i = 0; i < kc.sweep.size(); ++i)
    if (std::abs(kc.sweep[i]) < std::abs(kc.sweep[design])) design = i;
  return design;
}

void setTitle(QCustomPlot* p, const QString& t) {
  if (auto* e = qobject_cast<QCPTextElement*>(p->plotLayout()->element(0, 0))) e->setText(t);
}

void clearPlot(QCustomPlot* p) {
  p->clearGraphs();
  p->clearPlottables();
  p->legend->clearItems();
  placeLegendBelow(p, false);
  p->xAxis->setScaleType(QCPAxis::stLinear);
  p->yAxis->setScaleType(QCPAxis::stLinear);
  p->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  p->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  setTitle(p, QString());
}

void drawKc(const std::vector<ShownResult>& shown, const PlotChoices& choices, const std::vector<QCustomPlot*>& plots) {
  const AnalysisResult& current = *shown.back().result;
  const KcResult& cur = current.kc;
  const bool travel = current.analysis.endsWith("travel");
  // Lengths in mm, angles in deg.
  const double xScale = cur.sweepUnit == "m" ? 1e3 : cur.sweepUnit == "rad" ? kDeg : 1.0;
  const QString xUnit = cur.sweepUnit == "m" ? "mm" : cur.sweepUnit == "rad" ? "deg" : QString::fromStdString(cur.sweepUnit);
  const QString xLabel = travel ? QObject::tr("wheel travel [mm]")
                                : QString("%1 [%2]").arg(QString::fromStdString(cur.sweepName), xUnit);
  for (std::size_t q = 0; q < std::size(kKcPlots); ++q) {
    QCustomPlot* p = plots[q];
    const KcQuantity& kq = kKcPlots[q];
    bool any = false;
    // A result's curve of this quantity for a wheel (x in the plot's unit), referred to its
    // design value where the quantity is a change.
    auto curve = [&](const AnalysisResult& r, const std::string& wheelName, QVector<double>& x, QVector<double>& y) {
      const WheelRow* wheel = nullptr;
      for (const WheelRow& w : r.project.wheels)
        if (w.name == wheelName) wheel = &w;
      const int c = wheel ? r.kc.column(wheelName + " " + kq.column) : -1;
      if (c < 0) return false;
      const std::size_t design = designPoint(r.kc);
      const double offset = kq.change ? r.kc.values[design][c] : 0.0;
      const double sign = kq.outboard && wheel->side == WheelSide::Right ? -1.0 : 1.0;
      x.clear();
      y.clear();
      for (std::size_t i = 0; i < r.kc.sweep.size(); ++i) {
        x << r.kc.sweep[i] * xScale;
        y << sign * (r.kc.values[i][c] - offset) * kq.scale;
      }
      return true;
    };
    // Difference plots: the current result minus the reference (the last kept one), at the
    // current sweep's points (the reference interpolated linearly, held beyond its ends).
    const bool difference = choices.difference && shown.size() >= 2;
    for (std::size_t k = difference ? shown.size() - 1 : 0; k < shown.size(); ++k) {
      const AnalysisResult& r = *shown[k].result;
      for (const WheelRow& wheel : r.project.wheels) {
        QVector<double> x, y;
        if (!curve(r, wheel.name, x, y)) continue;
        QString name = shown[k].legend;
        if (difference) {
          QVector<double> rx, ry;
          if (!curve(*shown[k - 1].result, wheel.name, rx, ry) || rx.isEmpty()) continue;
          for (int i = 0; i < x.size(); ++i) {
            const auto at = std::lower_bound(rx.begin(), rx.end(), x[i]);
            double ref = 0.0;
            if (at == rx.begin()) ref = ry.front();
            else if (at == rx.end()) ref = ry.back();
            else {
              const int j = static_cast<int>(at - rx.begin());
              ref = rx[j] == x[i] ? ry[j] : ry[j - 1] + (ry[j] - ry[j - 1]) * (x[i] - rx[j - 1]) / (rx[j] - rx[j - 1]);
            }
            y[i] -= ref;
          }
          name = QObject::tr("%1 − %2").arg(shown[k].legend, shown[k - 1].legend.section(':', 0, 0));
        }
        QCPGraph* g = p->addGraph();
        g->setData(x, y, true);
        const bool top = k + 1 == shown.size();
        // Kept results wide and light under the current one, which is drawn thin on top: each
        // stays visible where they coincide.
        QColor colour = top ? kColours[0] : kColours[1 + k % 5];
        if (!top) colour.setAlpha(170);
        QPen pen(colour, top ? 1.4 : 3.2);
        if (wheel.side == WheelSide::Right) pen.setStyle(Qt::DashLine);
        g->setPen(pen);
        // A long list of changes is cut (the report's title page and the table give it whole).
        if (name.size() > 64) name = name.left(63) + QChar(0x2026);
        g->setName(name + (r.project.wheels.size() > 1 ? ", " + QString::fromStdString(wheel.name) : QString()));
        any = true;
      }
    }
    // Measured points over the current sweep, referred to its design value like the curves.
    if (any && choices.measured && !difference) {
      const std::size_t design = designPoint(cur);
      for (const WheelRow& wheel : current.project.wheels) {
        const std::string channel = wheel.name + " " + kq.column;
        const int c = cur.column(channel);
        for (const auto& col : choices.measured->columns) {
          if (col.channel != channel || c < 0) continue;
          const double offset = kq.change ? cur.values[design][c] : 0.0;
          const double sign = kq.outboard && wheel.side == WheelSide::Right ? -1.0 : 1.0;
          QVector<double> x, y;
          for (std::size_t i = 0; i < choices.measured->sweep.size(); ++i) {
            x << choices.measured->sweep[i] * xScale;
            y << sign * (col.values[i] - offset) * kq.scale;
          }
          QCPGraph* g = p->addGraph();
          g->setData(x, y);  // a loop's branches in the file's order: sorted by the plot
          g->setLineStyle(QCPGraph::lsNone);
          g->setScatterStyle(QCPScatterStyle(wheel.side == WheelSide::Right ? QCPScatterStyle::ssTriangle
                                                                              : QCPScatterStyle::ssCircle,
                                             Qt::black, 6));
          g->setName(QObject::tr("measured, %1").arg(QString::fromStdString(wheel.name)));
        }
      }
    }
    if (!any) continue;
    setTitle(p, difference ? QObject::tr("Δ %1 [%2]").arg(QObject::tr(kq.title), kq.unit)
                           : QObject::tr("%1 [%2]").arg(QObject::tr(kq.title), kq.unit));
    p->xAxis->setLabel(xLabel);
    p->yAxis->setLabel(QString::fromUtf8(kq.unit));
    p->legend->setFont(QFont(choices.font.family(), 7));
    // On screen the first plot carries the legend (the others draw the same results in the same
    // pens), in two columns to leave its axes the height; the report gives every plot its own.
    placeLegendBelow(p, q == 0, 2);
    p->rescaleAxes();
    // Flat curves (e.g. no toe change at all) get a visible range instead of round-off noise.
    const QCPRange yr = p->yAxis->range();
    const double floor = std::string(kq.unit) == "N" ? 1.0 : 0.01;
    if (yr.size() < floor) p->yAxis->setRange(yr.center() - floor, yr.center() + floor);
  }
}

void drawFrequency(const std::vector<ShownResult>& shown, const PlotChoices& choices, const std::vector<QCustomPlot*>& plots) {
  QCustomPlot* mag = plots[0];
  QCustomPlot* ph = plots[1];
  for (auto* p : {mag, ph}) {
    p->xAxis->setScaleType(QCPAxis::stLogarithmic);
    p->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    p->xAxis->setLabel(QObject::tr("frequency [Hz]"));
  }
  mag->yAxis->setScaleType(QCPAxis::stLogarithmic);
  mag->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  QString unit;
  for (std::size_t k = 0; k < shown.size(); ++k) {
    const FrequencyResponse& fr = shown[k].result->frequency;
    int c = -1;
    for (std::size_t i = 0; i < fr.outputs.size(); ++i)
      if (QString::fromStdString(fr.outputs[i]) == choices.output) c = static_cast<int>(i);
    if (c < 0) continue;
    const DisplayUnit du = displayUnit(QString::fromStdString(fr.units[c] + "/" + fr.inputUnit), choices.units);
    unit = du.unit;
    QVector<double> f, m, a;
    for (std::size_t i = 0; i < fr.frequency.size(); ++i) {
      f << fr.frequency[i];
      m << std::max(1e-300, du.factor * std::abs(fr.response[c][i]));
      a << std::arg(fr.response[c][i]) * kDeg;
    }
    const bool top = k + 1 == shown.size();
    for (auto [p, y] : {std::pair{mag, &m}, std::pair{ph, &a}}) {
      QCPGraph* g = p->addGraph();
      g->setData(f, *y, true);
      g->setPen(QPen(top ? kColours[0] : kColours[1 + k % 5], top ? 2.0 : 1.6));
      g->setName(shown[k].legend);
    }
  }
  if (mag->graphCount() == 0) return;
  const QString input = QString::fromStdString(shown.back().result->frequency.inputName);
  setTitle(mag, QObject::tr("%1 / %2: magnitude").arg(choices.output, input));
  setTitle(ph, QObject::tr("%1 / %2: phase").arg(choices.output, input));
  mag->yAxis->setLabel(unit);
  ph->yAxis->setLabel(QObject::tr("phase [deg]"));
  for (auto* p : {mag, ph}) {
    p->legend->setFont(QFont(choices.font.family(), 7));
    placeLegendBelow(p, true);
    p->rescaleAxes();
  }
  ph->yAxis->setRange(-180, 180);
}

void drawModes(const std::vector<ShownResult>& shown, const PlotChoices& choices, const std::vector<QCustomPlot*>& plots) {
  QCustomPlot* p = plots[0];
  for (std::size_t k = 0; k < shown.size(); ++k) {
    QVector<double> f, z;
    for (const Mode& m : shown[k].result->modes.modes)
      if (m.oscillatory && m.frequency >= choices.modesFrom && m.frequency <= choices.modesTo) {
        f << m.frequency;
        z << m.dampingRatio;
      }
    QCPGraph* g = p->addGraph();
    g->setData(f, z, true);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, k + 1 == shown.size() ? kColours[0] : kColours[1 + k % 5], 6));
    g->setName(shown[k].legend);
  }
  setTitle(p, QObject::tr("Oscillatory modes from %1 to %2 Hz").arg(choices.modesFrom).arg(choices.modesTo));
  p->xAxis->setLabel(QObject::tr("natural frequency [Hz]"));
  p->yAxis->setLabel(QObject::tr("damping ratio [-]"));
  p->legend->setFont(QFont(choices.font.family(), 7));
  placeLegendBelow(p, true);
  p->rescaleAxes();
  p->xAxis->setRange(choices.modesFrom, choices.modesTo);
  p->yAxis->setRange(0, 1.05);
}

}  // namespace

const AnalysisChoice kAnalysisChoices[7] = {{"parallel-travel", "Parallel wheel travel"},
                                            {"opposite-travel", "Opposite wheel travel (roll)"},
                                            {"single-travel", "Single wheel travel"},
                                            {"static-load", "Static load"},
                                            {"steering", "Steering (driven rack)"},
                                            {"frequency-response", "Frequency response"},
                                            {"modes", "Modes"}};

QString analysisTitle(const QString& analysis) {
  for (const auto& a : kAnalysisChoices)
    if (analysis == a.name) return QObject::tr(a.label);
  return analysis;
}

std::vector<KcCentre> kcCentresAtDesign(const AnalysisResult& result) {
  std::vector<KcCentre> centres;
  const KcResult& kc = result.kc;
  if (result.kind != AnalysisKind::Kc || kc.sweep.empty()) return centres;
  const std::size_t design = designPoint(kc);
  const std::vector<double>& row = kc.values[design];
  auto value = [&](const std::string& column) {
    const int c = kc.column(column);
    return c >= 0 ? row[c] : std::nan("");
  };
  double meanX = 0.0, meanContactZ = 0.0;
  int wheels = 0;
  for (const WheelRow& wheel : result.project.wheels) {
    const std::string w = wheel.name;
    const double cx = value(w + " centre x"), cy = value(w + " centre y"), contactZ = value(w + " contact z");
    if (!std::isfinite(cx)) continue;
    meanX += cx;
    meanContactZ += contactZ;
    ++wheels;
    const Vec3 front(cx, value(w + " instant centre front view y"), value(w + " instant centre front view z"));
    const Vec3 side(value(w + " instant centre side view x"), cy, value(w + " instant centre side view z"));
    const QString name = QString::fromStdString(w);
    if (front.allFinite()) centres.push_back({QObject::tr("IC front, %1").arg(name), front});
    if (side.allFinite()) centres.push_back({QObject::tr("IC side, %1").arg(name), side});
  }
  const Vec3 roll(wheels ? meanX / wheels : 0.0, value("roll centre y"),
                  (wheels ? meanContactZ / wheels : 0.0) + value("roll centre height"));
  if (wheels >= 2 && roll.allFinite()) centres.push_back({QObject::tr("roll centre"), roll});
  return centres;
}

namespace {
constexpr const char* kFoldLine = "legend fold line";
}

QCPTextElement* legendFoldLine(QCustomPlot* p) {
  if (auto* line = p->findChild<QCPTextElement*>(kFoldLine)) return line;
  auto* line = new QCPTextElement(p, QString(), QFont(p->font().family(), 7));
  line->setObjectName(kFoldLine);
  line->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
  line->setVisible(false);
  return line;
}

bool legendFolded(const QCustomPlot* p) {
  const auto* line = p->findChild<QCPTextElement*>(kFoldLine);
  return line && p->plotLayout()->elements(false).contains(const_cast<QCPTextElement*>(line));
}

void foldLegend(QCustomPlot* p, bool folded) {
  QCPLayoutGrid* grid = p->plotLayout();
  const int last = grid->rowCount() - 1;
  if (folded && !legendFolded(p)) {
    if (!p->legend->visible() || !grid->hasElement(last, 0) || grid->element(last, 0) != p->legend) return;
    QCPTextElement* line = legendFoldLine(p);
    const int n = p->legend->itemCount();
    line->setText(n == 1 ? QObject::tr("▸ Legend: 1 curve; click to show")
                         : QObject::tr("▸ Legend: %1 curves; click to show").arg(n));
    grid->take(p->legend);
    p->legend->setVisible(false);
    grid->addElement(last, 0, line);
    line->setVisible(true);
  } else if (!folded && legendFolded(p)) {
    QCPTextElement* line = legendFoldLine(p);
    grid->take(line);
    line->setVisible(false);
    grid->addElement(last, 0, p->legend);
    p->legend->setVisible(true);
  }
}

void placeLegendBelow(QCustomPlot* p, bool show, int columns) {
  foldLegend(p, false);  // a folded legend back in its place first: the caller folds again
  QCPLayoutGrid* grid = p->plotLayout();
  const bool placed = grid->elementCount() > 1 && grid->hasElement(grid->rowCount() - 1, 0) &&
                      grid->element(grid->rowCount() - 1, 0) == p->legend;
  if (show && !placed) {
    QCPLayoutInset* inset = p->axisRect()->insetLayout();
    if (inset->elements(false).contains(p->legend) && inset->take(p->legend)) inset->simplify();
    grid->addElement(grid->rowCount(), 0, p->legend);
    grid->setRowStretchFactor(grid->rowCount() - 1, 0.001);
  } else if (!show && placed) {
    grid->take(p->legend);
    grid->simplify();
  }
  p->legend->setWrap(std::max(1, columns));
  p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // rearranges the items already there
  p->legend->setVisible(show);
}

QCustomPlot* newAnalysisPlot(QWidget* parent, const QFont& font) {
  auto* p = new QCustomPlot(parent);
  p->plotLayout()->insertRow(0);
  p->plotLayout()->addElement(0, 0, new QCPTextElement(p, QString(), QFont(font.family(), 9, QFont::Bold)));
  return p;
}

void drawAnalysisPlots(const std::vector<ShownResult>& shown, const PlotChoices& choices,
                       const std::vector<QCustomPlot*>& plots) {
  for (auto* p : plots) clearPlot(p);
  if (shown.empty() || plots.size() < static_cast<std::size_t>(kAnalysisPlots)) return;
  switch (shown.back().result->kind) {
    case AnalysisKind::Kc: drawKc(shown, choices, plots); break;
    case AnalysisKind::Frequency: drawFrequency(shown, choices, plots); break;
    case AnalysisKind::Modes: drawModes(shown, choices, plots); break;
  }
  for (auto* p : plots)
    if (p->graphCount() > 0) p->replot();
}

TextTable analysisTable(const AnalysisResult& current, const std::vector<const AnalysisResult*>& kept,
                        const SuspensionModel* model, UnitSystem units) {
  TextTable t;
  if (current.kind == AnalysisKind::Kc) {
    std::vector<const AnalysisResult*> others;
    for (const auto* k : kept)
      if (k->kind == AnalysisKind::Kc) others.push_back(k);
    // The project's targets: verdict and range right beside the current value, kept results after.
    const std::vector<TargetCheck> targets =
        model ? checkTargets(model->project(), current.kc.metrics) : std::vector<TargetCheck>{};
    // Comparison at a glance: the reference is the last kept result, with the difference to it
    // in the metric's unit and in percent of the reference; older kept results follow.
    const AnalysisResult* reference = others.empty() ? nullptr : others.back();
    t.header = QStringList{QObject::tr("metric"), QObject::tr("current"), QObject::tr("unit")};
    if (!targets.empty()) t.header << QObject::tr("met") << QObject::tr("target");
    if (reference) t.header << QObject::tr("reference: %1").arg(reference->label) << QObject::tr("Δ") << QObject::tr("Δ %");
    for (std::size_t k = 0; k + 1 < others.size(); ++k) t.header << others[others.size() - 2 - k]->label;
    auto valueIn = [](const AnalysisResult& r, const KcMetric& m) -> const KcMetric* {
      for (const KcMetric& om : r.kc.metrics)
        if (om.name == m.name && om.wheel == m.wheel) return &om;
      return nullptr;
    };
    for (const KcMetric& m : current.kc.metrics) {
      QStringList row{QString::fromStdString(m.wheel.empty() ? m.name : m.name + " (" + m.wheel + ")"),
                      QString::number(m.value, 'g', 5), QString::fromStdString(m.unit)};
      if (!targets.empty()) {
        QString range, verdict;
        for (const TargetCheck& c : targets) {
          if (c.metric != m.name || c.wheel != m.wheel || c.status == TargetCheck::Status::NoMetric) continue;
          range += (range.isEmpty() ? "" : "; ") + QString::fromStdString(targetRange(c));
          verdict = verdict == QObject::tr("MISSED") || !c.met() ? QObject::tr("MISSED") : QObject::tr("met");
        }
        row << verdict << range;
      }
      if (reference) {
        const KcMetric* r = valueIn(*reference, m);
        if (!r) {
          row << "-" << "-" << "-";
        } else {
          const double delta = m.value - r->value;
          row << QString::number(r->value, 'g', 5) << QString::number(delta, 'g', 4)
              << (r->value != 0.0 ? QString::number(100.0 * delta / std::abs(r->value), 'f', 2) : QStringLiteral("-"));
        }
      }
      for (std::size_t k = 0; k + 1 < others.size(); ++k) {
        const KcMetric* o = valueIn(*others[others.size() - 2 - k], m);
        row << (o ? QString::number(o->value, 'g', 5) : QStringLiteral("-"));
      }
      t.rows.push_back(row);
    }
    for (const TargetCheck& c : targets)  // targets whose metric this analysis does not have
      if (c.status == TargetCheck::Status::NoMetric) {
        QStringList row{QString::fromStdString(c.wheel.empty() ? c.metric : c.metric + " (" + c.wheel + ")"), "-", "",
                        QObject::tr("no metric: %1").arg(QString::fromStdString(c.message)),
                        QString::fromStdString(targetRange(c))};
        while (row.size() < t.header.size()) row << "-";
        t.rows.push_back(row);
      }
  } else if (current.kind == AnalysisKind::Frequency) {
    const FrequencyResponse& fr = current.frequency;
    t.header = QStringList{QObject::tr("output"), QObject::tr("at lowest f"), QObject::tr("peak"), QObject::tr("peak at [Hz]")};
    for (std::size_t c = 0; c < fr.outputs.size(); ++c) {
      const std::size_t peak = fr.peak(c);
      const DisplayUnit du = displayUnit(QString::fromStdString(fr.units[c] + "/" + fr.inputUnit), units);
      const QString unit = " " + du.unit;
      t.rows.push_back({QString::fromStdString(fr.outputs[c]),
                        QString::number(du.factor * std::abs(fr.response[c].front()), 'g', 4) + unit,
                        QString::number(du.factor * std::abs(fr.response[c][peak]), 'g', 4) + unit,
                        QString::number(fr.frequency[peak], 'g', 4)});
    }
  } else {
    t.header = QStringList{QObject::tr("mode"), QObject::tr("frequency [Hz]"), QObject::tr("damping ratio"),
                           QObject::tr("damped [Hz]"), QObject::tr("largest kinetic energy")};
    for (std::size_t k = 0; k < current.modes.modes.size(); ++k) {
      const Mode& m = current.modes.modes[k];
      const double share = m.dominantBody >= 0 && m.dominantBody < static_cast<int>(m.energy.size()) ? m.energy[m.dominantBody] : 0.0;
      const QString body = model ? QString::fromStdString(dominantText(*model, m))
                                 : QString("%1 (%2 %)").arg(m.dominantBody).arg(100 * share, 0, 'f', 0);
      t.rows.push_back({QString::number(k + 1), QString::number(m.frequency, 'f', 3),
                        m.oscillatory ? QString::number(m.dampingRatio, 'f', 4) : QObject::tr("overdamped"),
                        m.oscillatory ? QString::number(m.dampedFrequency, 'f', 3) : "-", body});
    }
  }
  return t;
}

QString writeAnalysisReport(const QString& path, const ReportContent& content, ReportPages* pages) {
  if (!content.current) return QObject::tr("No result to export.");
  const AnalysisResult& current = *content.current;
  if (pages) *pages = {};
  ReportPages count;
  // Drawn into memory, then written through OutputFile: a full disk leaves the old report.
  QBuffer pdf;
  pdf.open(QIODevice::WriteOnly);
  QPdfWriter writer(&pdf);
  writer.setPageSize(QPageSize(QPageSize::A4));
  writer.setPageOrientation(QPageLayout::Landscape);
  writer.setResolution(96);  // the screen's: legend boxes are sized with its font metrics
  writer.setTitle(QObject::tr("Elastokin analysis report"));
  writer.setCreator("Elastokin");
  QCPPainter painter;
  if (!painter.begin(&writer)) return QObject::tr("%1: cannot draw the PDF report").arg(path);
  count.total = 1;
  const QRect page = painter.viewport();
  const int lineH = 18;
  QFont f = painter.font();
  auto text = [&](int& y, const QString& line, int pixels, bool bold) {
    QFont lf = f;
    lf.setPixelSize(pixels);
    lf.setBold(bold);
    painter.setFont(lf);
    const QRect box = painter.boundingRect(QRect(40, y, page.width() - 80, 10 * pixels), Qt::TextWordWrap, line);
    painter.drawText(box, Qt::TextWordWrap, line);
    y += box.height() + pixels / 3;
  };
  // Title page: what was analysed, when, and what makes this variant differ from the reference.
  int y = page.height() / 6;
  text(y, QObject::tr("Elastokin — %1").arg(analysisTitle(current.analysis)), 30, true);
  y += lineH;
  text(y, QObject::tr("Project: %1").arg(QString::fromStdString(current.project.name)), 16, true);
  if (!current.project.sourcePath.empty())
    text(y, QObject::tr("File: %1").arg(QString::fromStdString(current.project.sourcePath)), 12, false);
  text(y, QObject::tr("Date: %1").arg(QDateTime::currentDateTime().toString("yyyy-MM-dd HH:mm")), 12, false);
  if (current.kind == AnalysisKind::Kc && !current.kc.sweep.empty())
    text(y, QObject::tr("Sweep: %1 from %2 to %3 %4, %5 points")
                .arg(QString::fromStdString(current.kc.sweepName))
                .arg(current.kc.sweep.front(), 0, 'g', 6)
                .arg(current.kc.sweep.back(), 0, 'g', 6)
                .arg(QString::fromStdString(current.kc.sweepUnit))
                .arg(current.kc.sweep.size()), 12, false);
  if (current.kind != AnalysisKind::Kc)
    text(y, QObject::tr("Linearized at the %1").arg(QString::fromStdString(current.point.description)), 12, false);
  if (current.kind == AnalysisKind::Frequency)
    text(y, QObject::tr("Input: %1 [%2]").arg(QString::fromStdString(current.frequency.inputName),
                                              QString::fromStdString(current.frequency.inputUnit)), 12, false);
  y += lineH;
  if (!content.kept.empty()) {
    const ShownResult& reference = content.kept.back();
    text(y, QObject::tr("Variant against the reference (%1):").arg(reference.legend), 14, true);
    const auto changes = describeChanges(reference.result->project, current.project, 12);
    if (changes.empty()) text(y, QObject::tr("no change of the project"), 12, false);
    for (const auto& c : changes)
      text(y, QStringLiteral("• ") + displayChanges(QString::fromStdString(c), content.choices.units), 12, false);
    for (std::size_t k = 0; k + 1 < content.kept.size(); ++k)
      text(y, QObject::tr("Also overlaid: %1").arg(content.kept[k].legend), 11, false);
  } else {
    text(y, QObject::tr("No reference: the current result alone."), 12, false);
  }
  for (const QString& note : content.notes) text(y, note, 12, true);

  // Spec sheet: the table (metrics with the targets' verdict, the reference and the differences),
  // continued on further pages when long.
  writer.newPage();
  ++count.total;
  y = 40;
  text(y, current.kind == AnalysisKind::Kc ? QObject::tr("Spec sheet") : QObject::tr("Results"), 18, true);
  f.setPixelSize(11);
  f.setBold(false);
  painter.setFont(f);
  y += lineH;

  std::vector<const AnalysisResult*> kept;
  for (const ShownResult& k : content.kept) kept.push_back(k.result);
  const TextTable table = analysisTable(current, kept, content.model, content.choices.units);
  // A row of a table: the first column `span` columns wide (a name), the others equal; a "met"
  // column's verdict coloured; a new page when this one is full.
  auto tableRow = [&](const QStringList& header, const QStringList& cells, bool bold, int span) {
    const int colW = (page.width() - 40) / std::max<int>(2, header.size() + span - 1);
    if (y > page.height() - 30) {
      writer.newPage();
      ++count.total;
      y = 40;
    }
    QFont rf = painter.font();
    rf.setBold(bold);
    painter.setFont(rf);
    for (int c = 0; c < cells.size(); ++c) {
      const int width = c == 0 ? span * colW : colW;
      const QRect cell(20 + (c == 0 ? 0 : (c + span - 1) * colW), y - lineH + 4, width - 6, lineH);
      if (!bold && c < header.size() && header[c] == QObject::tr("met") && !cells[c].isEmpty())
        painter.fillRect(cell, cells[c] == QObject::tr("met") ? QColor(198, 239, 206) : QColor(255, 199, 206));
      painter.drawText(cell, Qt::AlignLeft | Qt::AlignVCenter,
                       painter.fontMetrics().elidedText(cells[c], Qt::ElideRight, width - 6));
    }
    y += lineH;
  };
  tableRow(table.header, table.header, true, 2);
  for (const QStringList& r : table.rows) tableRow(table.header, r, false, 2);

  // The correlation with a rig's measured sweep: a table of its own under the spec sheet, a row
  // per channel (and per branch of a loading/unloading loop).
  if (current.kind == AnalysisKind::Kc && content.choices.measured) {
    const MeasuredKc& measured = *content.choices.measured;
    y += lineH;
    if (y > page.height() - 6 * lineH) {
      writer.newPage();
      ++count.total;
      y = 40;
    }
    text(y, QObject::tr("Correlation with %1 (computed − measured)")
                .arg(QFileInfo(QString::fromStdString(measured.path)).fileName()), 14, true);
    f.setPixelSize(11);
    painter.setFont(f);
    y += lineH;
    const QStringList header = {QObject::tr("channel"), QObject::tr("mean"), QObject::tr("RMS"), QObject::tr("largest"),
                                QObject::tr("at"), QObject::tr("points"), QObject::tr("hysteresis")};
    tableRow(header, header, true, 3);  // the channel three columns wide
    try {
      const auto [sweepFactor, sweepUnit] = ek::displayUnit(current.kc.sweepUnit);
      for (const KcCorrelation& c : correlate(current.kc, measured)) {
        const QString unit = QString::fromStdString(c.unit);
        auto value = [&](double v) { return QString("%1 %2").arg(v, 0, 'g', 4).arg(unit); };
        const QStringList cells{QString::fromStdString(c.label()),
                                value(c.mean), value(c.rms), value(c.largest),
                                QString("%1 %2").arg(c.maxAt * sweepFactor, 0, 'g', 5).arg(QString::fromStdString(sweepUnit)),
                                QString::number(c.points), c.branch.empty() ? QString() : value(c.hysteresis)};
        tableRow(header, cells, false, 3);
        ++count.correlationRows;
      }
    } catch (const std::exception& e) {
      text(y, QString::fromStdString(e.what()), 11, false);
    }
  }

  // The plots, drawn off screen into plots of their own: a page per plot group.
  std::vector<ShownResult> shown;
  for (const ShownResult& k : content.kept)
    if (k.result->kind == current.kind && k.result->analysis == current.analysis) shown.push_back(k);
  shown.push_back({&current, current.label.isEmpty() ? QObject::tr("current") : current.label});
  std::vector<std::unique_ptr<QCustomPlot>> owned;
  std::vector<QCustomPlot*> plots;
  for (int k = 0; k < kAnalysisPlots; ++k) {
    owned.emplace_back(newAnalysisPlot(nullptr, content.choices.font));
    plots.push_back(owned.back().get());
  }
  // Up to four plots per page (2 x 2), each with its legend under its axes.
  auto plotPage = [&](const std::vector<QCustomPlot*>& group) {
    writer.newPage();
    ++count.total;
    ++count.plots;
    const int columns = group.size() > 2 ? 2 : 1, rows = group.size() > 1 ? 2 : 1;
    const int w = (page.width() - 40) / columns, h = (page.height() - 40) / rows;
    for (std::size_t k = 0; k < group.size(); ++k) {
      placeLegendBelow(group[k], group[k]->plottableCount() > 0, 2);
      painter.save();
      painter.translate(20 + static_cast<int>(k % columns) * w, 20 + static_cast<int>(k / columns) * h);
      group[k]->toPainter(&painter, w - (columns > 1 ? 10 : 0), h - (rows > 1 ? 10 : 0));
      painter.restore();
    }
  };
  PlotChoices choices = content.choices;
  if (current.kind == AnalysisKind::Frequency) {
    QStringList outputs;
    if (!choices.output.isEmpty()) outputs << choices.output;
    else
      for (const auto& o : current.frequency.outputs) outputs << QString::fromStdString(o);
    for (const QString& o : outputs) {
      choices.output = o;
      drawAnalysisPlots(shown, choices, plots);
      if (plots[0]->graphCount() > 0) plotPage({plots[0], plots[1]});
    }
  } else {
    drawAnalysisPlots(shown, choices, plots);
    std::vector<QCustomPlot*> group;
    for (QCustomPlot* p : plots) {
      if (p->graphCount() == 0) continue;
      group.push_back(p);
      if (group.size() == 4) {
        plotPage(group);
        group.clear();
      }
    }
    if (!group.empty()) plotPage(group);
  }
  if (!painter.end() || pdf.data().isEmpty()) return QObject::tr("%1: cannot draw the PDF report").arg(path);
  const QString error = writeFileBytes(path, pdf.data(), "PDF report");
  if (!error.isEmpty()) return error;
  if (pages) *pages = count;
  return {};
}

}  // namespace ek::ui
