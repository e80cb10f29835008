// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/curve_editor.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "engine/model/curve.h"
#include "ui/document/table_models.h"

namespace ek::ui {

CurveEditor::CurveEditor(ProjectDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  auto* layout = new QHBoxLayout(this);
  auto* left = new QVBoxLayout;
  select_ = new QComboBox(this);
  points_ = new QTableWidget(0, 2, this);
  points_->setHorizontalHeaderLabels({tr("x"), tr("y")});
  points_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  points_->setMaximumWidth(260);
  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #b00020;");
  left->addWidget(select_);
  left->addWidget(points_, 1);
  left->addWidget(error_);
  layout->addLayout(left);
  plot_ = new QCustomPlot(this);
  plot_->addGraph();  // interpolation inside the points
  plot_->graph(0)->setPen(QPen(QColor(20, 90, 170), 2));
  plot_->addGraph();  // extrapolation, left
  plot_->graph(1)->setPen(QPen(QColor(20, 90, 170), 1.5, Qt::DashLine));
  plot_->addGraph();  // extrapolation, right
  plot_->graph(2)->setPen(QPen(QColor(20, 90, 170), 1.5, Qt::DashLine));
  plot_->addGraph();  // points
  plot_->graph(3)->setLineStyle(QCPGraph::lsNone);
  plot_->graph(3)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(200, 40, 40), Qt::white, 9));
  plot_->addGraph(plot_->xAxis, plot_->yAxis2);  // slope
  plot_->graph(4)->setPen(QPen(QColor(80, 160, 80), 1.2));
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel(tr("slope dy/dx"));
  plot_->yAxis->setLabel(tr("y"));
  plot_->xAxis->setLabel(tr("x"));
  layout->addWidget(plot_, 1);

  connect(select_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  // Rows added or removed (row -1), renamed (a row): the list of curves follows the table.
  connect(doc_, &ProjectDocument::tableChanged, this, [this](Table t, int) {
    if (t != Table::Curves) return;
    fillSelect();
    refresh();
  });
  connect(doc_, &ProjectDocument::projectReset, this, [this] {
    fillSelect();
    refresh();
  });
  connect(points_, &QTableWidget::cellChanged, this, [this](int r, int c) {
    if (filling_) return;
    const int k = currentCurve();
    if (k < 0) return;
    bool ok = false;
    const double v = points_->item(r, c)->text().toDouble(&ok);
    const auto& p = doc_->project().curves[k].points[r];
    const QString err = ok ? movePoint(r, c == 0 ? v : p[0], c == 1 ? v : p[1]) : tr("expected a number");
    error_->setText(err);
    if (!err.isEmpty()) refresh();
  });
  // Dragging a point: pick the nearest within 10 px, move it, commit on release.
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    const int k = currentCurve();
    dragging_ = -1;
    if (k < 0) return;
    const auto& pts = doc_->project().curves[k].points;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const double px = plot_->xAxis->coordToPixel(pts[i][0]), py = plot_->yAxis->coordToPixel(pts[i][1]);
      if (std::hypot(px - e->position().x(), py - e->position().y()) < 10) dragging_ = static_cast<int>(i);
    }
  });
  connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
    if (dragging_ < 0) return;
    const double y = plot_->yAxis->pixelToCoord(e->position().y());
    const auto& p = doc_->project().curves[currentCurve()].points[dragging_];
    error_->setText(movePoint(dragging_, p[0], y));
    dragging_ = -1;
  });
}

void CurveEditor::fillSelect() {
  QSignalBlocker b(select_);
  const int keep = select_->currentIndex();
  select_->clear();
  for (const auto& c : doc_->project().curves)
    select_->addItem(QStringLiteral("%1: %2").arg(c.id).arg(QString::fromStdString(c.name)));
  select_->setCurrentIndex(std::min(std::max(keep, 0), select_->count() - 1));
}

int CurveEditor::currentCurve() const {
  const int k = select_->currentIndex();
  return k >= 0 && k < static_cast<int>(doc_->project().curves.size()) ? k : -1;
}

void CurveEditor::showCurve(int index) { select_->setCurrentIndex(index); }

QString CurveEditor::lastError() const { return error_->text(); }

QString CurveEditor::movePoint(int k, double x, double y) {
  const int c = currentCurve();
  if (c < 0) return tr("no curve");
  CurveRow row = doc_->project().curves[c];
  row.points[k] = {x, y};
  return editCurve(doc_, c, row, tr("edit point %1 of curve %2").arg(k + 1).arg(row.id));
}

void CurveEditor::refresh() {
  const int k = currentCurve();
  filling_ = true;
  points_->setRowCount(0);
  for (int g = 0; g < plot_->graphCount(); ++g) plot_->graph(g)->data()->clear();
  if (k >= 0) {
    const CurveRow& row = doc_->project().curves[k];
    points_->setRowCount(static_cast<int>(row.points.size()));
    for (std::size_t i = 0; i < row.points.size(); ++i)
      for (int c = 0; c < 2; ++c)
        points_->setItem(static_cast<int>(i), c, new QTableWidgetItem(QString::number(row.points[i][c], 'g', 8)));
    if (row.points.size() >= 2) {
      Interpolation ip = Interpolation::Pchip;
      Extrapolation ep = Extrapolation::Linear;
      parseInterpolation(row.interpolation, ip);
      parseExtrapolation(row.extrapolation, ep);
      std::vector<double> xs, ys;
      for (const auto& p : row.points) xs.push_back(p[0]), ys.push_back(p[1]);
      bool increasing = true;
      for (std::size_t i = 1; i < xs.size(); ++i) increasing &= xs[i] > xs[i - 1];
      if (increasing) {
        const Curve curve(xs, ys, ip, ep);
        const double a = xs.front(), b = xs.back(), margin = 0.25 * (b - a);
        for (int i = 0; i <= 600; ++i) {
          const double x = a - margin + (b - a + 2 * margin) * i / 600.0;
          const CurveValue v = curve.eval(x);
          plot_->graph(x < a ? 1 : x > b ? 2 : 0)->addData(x, v.y);
          plot_->graph(4)->addData(x, v.dydx);
        }
      }
      for (const auto& p : row.points) plot_->graph(3)->addData(p[0], p[1]);
      plot_->xAxis->setLabel(tr("x (%1 interpolation, %2 extrapolation dashed)")
                                 .arg(QString::fromStdString(row.interpolation), QString::fromStdString(row.extrapolation)));
    }
  }
  filling_ = false;
  plot_->rescaleAxes();
  plot_->replot();
}

}  // namespace ek::ui
