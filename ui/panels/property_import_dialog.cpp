// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/property_import_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "engine/core/text.h"
#include "engine/model/curve.h"
#include "ui/document/units.h"

namespace ek::ui {

namespace {

const CurveRow* curveOf(const Project& p, const LawRow& law) {
  if (!law.curve) return nullptr;
  for (const CurveRow& c : p.curves)
    if (c.id == *law.curve) return &c;
  return nullptr;
}

QString describe(const Project& p, const LawRow& law, const QString& coefficientUnit) {
  if (const CurveRow* c = curveOf(p, law))
    return QObject::tr("curve %1 (%2 points)").arg(c->id).arg(c->points.size());
  if (law.curve) return QObject::tr("curve %1 (missing)").arg(*law.curve);
  const DisplayUnit du = displayUnit(coefficientUnit);
  return QString("%1 %2").arg(QString::fromStdString(significant(law.coefficient * du.factor, 6)), du.unit);
}

/// The law's values at xs (a missing curve: empty).
QVector<double> values(const Project& p, const LawRow& law, const QVector<double>& xs) {
  QVector<double> ys;
  if (!law.curve) {
    for (double x : xs) ys << law.coefficient * x;
    return ys;
  }
  const CurveRow* c = curveOf(p, law);
  if (!c || c->points.size() < 2) return ys;
  std::vector<double> x, y;
  for (const auto& pt : c->points) x.push_back(pt[0]), y.push_back(pt[1]);
  Interpolation i = Interpolation::Pchip;
  Extrapolation e = Extrapolation::Linear;
  parseInterpolation(c->interpolation, i);
  parseExtrapolation(c->extrapolation, e);
  const Curve curve(x, y, i, e);
  for (double v : xs) ys << curve.eval(v).y;
  return ys;
}

}  // namespace

PropertyImportDialog::PropertyImportDialog(const Project& before, const PropertyImport& result, ImportTarget target, int id,
                                           const QString& path, QWidget* parent)
    : QDialog(parent), before_(before), after_(result.project) {
  setWindowTitle(tr("Import %1").arg(QFileInfo(path).fileName()));
  // The laws the import changes, in the element's order.
  if (target == ImportTarget::Bushing) {
    int k = -1;
    for (std::size_t b = 0; b < before.bushings.size(); ++b)
      if (before.bushings[b].id == id) k = static_cast<int>(b);
    if (k >= 0)
      for (int d = 0; d < 6; ++d) {
        const auto& o = before.bushings[k].directions[d];
        const auto& n = after_.bushings[k].directions[d];
        const QString dir = kBushingDirections[d];
        const QString x = d >= 3 ? "rad" : "m", f = d >= 3 ? "N m" : "N";
        if (!(o.stiffness == n.stiffness)) laws_.push_back({dir + tr(" stiffness"), f, x, f + "/" + x, o.stiffness, n.stiffness});
        if (!(o.damping == n.damping)) laws_.push_back({dir + tr(" damping"), f, x + "/s", f + " s/" + x, o.damping, n.damping});
      }
  } else {
    int k = -1;
    for (std::size_t e = 0; e < before.p2ps.size(); ++e)
      if (before.p2ps[e].id == id) k = static_cast<int>(e);
    if (k >= 0) {
      const P2PRow& o = before.p2ps[k];
      const P2PRow& n = after_.p2ps[k];
      if (!(o.spring == n.spring)) laws_.push_back({tr("spring (tension)"), "N", "m", "N/m", o.spring, n.spring});
      if (!(o.damper == n.damper)) laws_.push_back({tr("damper"), "N", "m/s", "N s/m", o.damper, n.damper});
      const LawRow none{};
      if (!(o.bumpStop == n.bumpStop) && n.bumpStop)
        laws_.push_back({tr("bump stop"), "N", "m", "N/m", o.bumpStop ? o.bumpStop->law : none, n.bumpStop->law});
      if (!(o.reboundStop == n.reboundStop) && n.reboundStop)
        laws_.push_back({tr("rebound stop"), "N", "m", "N/m", o.reboundStop ? o.reboundStop->law : none, n.reboundStop->law});
    }
  }

  header_ = new QLabel(tr("<b>%1</b>: Adams '%2' file in %3, onto %4 %5. Nothing changes until you apply it (one undo step).")
                           .arg(QFileInfo(path).fileName().toHtmlEscaped(), QString::fromStdString(result.fileType),
                                QString::fromStdString(result.units).toHtmlEscaped(),
                                target == ImportTarget::Bushing ? tr("bushing") : tr("P2P element"))
                           .arg(id),
                       this);
  header_->setWordWrap(true);
  table_ = new QTableWidget(static_cast<int>(laws_.size()), 3, this);
  table_->setHorizontalHeaderLabels({tr("law"), tr("now"), tr("from the file")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  choice_ = new QComboBox(this);
  for (std::size_t k = 0; k < laws_.size(); ++k) {
    const Law& l = laws_[k];
    const int r = static_cast<int>(k);
    table_->setItem(r, 0, new QTableWidgetItem(l.name));
    table_->setItem(r, 1, new QTableWidgetItem(describe(before_, l.before, l.coefficientUnit)));
    table_->setItem(r, 2, new QTableWidgetItem(describe(after_, l.after, l.coefficientUnit)));
    choice_->addItem(l.name);
  }
  plot_ = new QCustomPlot(this);
  plot_->setMinimumHeight(260);
  plot_->legend->setVisible(true);
  plot_->legend->setFont(font());
  // The legend under the axes, never over the curves.
  auto* legendRow = new QCPLayoutGrid;
  plot_->plotLayout()->addElement(1, 0, legendRow);
  legendRow->addElement(0, 0, plot_->legend);
  legendRow->setMargins(QMargins(0, 0, 0, 0));
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->plotLayout()->setRowStretchFactor(1, 0.001);
  notes_ = new QPlainTextEdit(this);
  notes_->setReadOnly(true);
  QStringList notes;
  for (const auto& c : result.changes) notes << QString::fromStdString(c);
  if (!result.leftOut.empty()) {
    notes << tr("Not imported:");
    for (const auto& c : result.leftOut) notes << "  " + QString::fromStdString(c);
  }
  for (const auto& w : result.warnings) notes << QString::fromStdString(w.text());
  notes_->setPlainText(notes.join('\n'));
  notes_->setMaximumHeight(140);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  buttons->addButton(tr("Apply"), QDialogButtonBox::AcceptRole);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(header_);
  layout->addWidget(table_);
  layout->addWidget(choice_);
  layout->addWidget(plot_, 1);
  layout->addWidget(notes_);
  layout->addWidget(buttons);
  connect(choice_, qOverload<int>(&QComboBox::currentIndexChanged), this, &PropertyImportDialog::showLaw);
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) {
    if (row >= 0) choice_->setCurrentIndex(row);
  });
  resize(720, 640);
  if (!laws_.empty()) showLaw(0);
}

QString PropertyImportDialog::notes() const { return notes_->toPlainText(); }

void PropertyImportDialog::showLaw(int k) {
  plot_->clearGraphs();
  if (k < 0 || k >= static_cast<int>(laws_.size())) return;
  const Law& l = laws_[k];
  // Over the file's table and a fifth beyond it on each side (the extrapolation shows).
  double lo = -1.0, hi = 1.0;
  if (const CurveRow* c = curveOf(after_, l.after)) lo = c->points.front()[0], hi = c->points.back()[0];
  else if (const CurveRow* c0 = curveOf(before_, l.before)) lo = c0->points.front()[0], hi = c0->points.back()[0];
  else lo = l.xUnit == "rad" ? -0.2 : l.xUnit == "m" ? -0.02 : -1.0, hi = -lo;
  const double margin = 0.2 * (hi - lo);
  QVector<double> xs;
  for (int i = 0; i <= 200; ++i) xs << lo - margin + (hi - lo + 2 * margin) * i / 200.0;
  const DisplayUnit dx = displayUnit(l.xUnit), dy = displayUnit(l.unit);
  auto scaled = [](QVector<double> v, double f) {
    for (double& x : v) x *= f;
    return v;
  };
  const QVector<double> xd = scaled(xs, dx.factor);
  QCPGraph* now = plot_->addGraph();
  now->setName(tr("now"));
  now->setPen(QPen(QColor(120, 120, 120), 2, Qt::DashLine));
  now->setData(xd, scaled(values(before_, l.before, xs), dy.factor));
  QCPGraph* file = plot_->addGraph();
  file->setName(tr("from the file"));
  file->setPen(QPen(QColor(0, 90, 200), 2));
  file->setData(xd, scaled(values(after_, l.after, xs), dy.factor));
  // The file's table points as markers.
  if (const CurveRow* c = curveOf(after_, l.after)) {
    QCPGraph* pts = plot_->addGraph();
    pts->setName(tr("table points"));
    pts->setLineStyle(QCPGraph::lsNone);
    pts->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(0, 90, 200), 6));
    QVector<double> px, py;
    for (const auto& p : c->points) px << p[0] * dx.factor, py << p[1] * dy.factor;
    pts->setData(px, py);
  }
  plot_->xAxis->setLabel(l.name + " — " + tr("deflection") + " [" + dx.unit + "]");
  plot_->yAxis->setLabel(tr("force") + " [" + dy.unit + "]");
  plot_->rescaleAxes();
  plot_->replot();
  table_->blockSignals(true);
  table_->selectRow(k);
  table_->blockSignals(false);
}

}  // namespace ek::ui
