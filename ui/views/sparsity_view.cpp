// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/views/sparsity_view.h"

#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QLabel>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "engine/solvers/topology_solver.h"

namespace ek::ui {
namespace {
/// Fits the scene to the pane until the user zooms with the wheel.
class ZoomView : public QGraphicsView {
 public:
  using QGraphicsView::QGraphicsView;
  bool zoomed = false;
  void fit() {
    if (!zoomed && scene()) fitInView(scene()->itemsBoundingRect().adjusted(-5, -5, 5, 5), Qt::KeepAspectRatio);
  }

 protected:
  void wheelEvent(QWheelEvent* e) override {
    const double f = e->angleDelta().y() > 0 ? 1.2 : 1 / 1.2;
    zoomed = true;
    scale(f, f);
  }
  void resizeEvent(QResizeEvent* e) override {
    QGraphicsView::resizeEvent(e);
    fit();
  }
  void showEvent(QShowEvent* e) override {
    QGraphicsView::showEvent(e);
    fit();
  }
};
}  // namespace

SparsityView::SparsityView(QWidget* parent) : QWidget(parent), scene_(new QGraphicsScene(this)) {
  auto* l = new QVBoxLayout(this);
  label_ = new QLabel(this);
  label_->setWordWrap(true);
  view_ = new ZoomView(scene_, this);
  view_->setRenderHint(QPainter::Antialiasing, false);
  view_->setDragMode(QGraphicsView::ScrollHandDrag);
  l->addWidget(label_);
  l->addWidget(view_, 1);
}

void SparsityView::setModel(std::shared_ptr<const SuspensionModel> model) {
  scene_->clear();
  blocks_ = fill_ = 0;
  if (!model) return;
  const TopologySolver solver(*model);
  n_ = model->nFreeBodies();
  const double s = 12.0;  // pixels per 6x6 block
  const auto& order = solver.order();
  const auto& rs = solver.factorRowStart();
  const auto& cols = solver.factorColumns();
  for (int i = 0; i < n_; ++i)
    for (int k = rs[i]; k < rs[i + 1]; ++k) {
      const int j = cols[k];
      const bool fill = solver.isFill(i, j);
      (fill ? fill_ : blocks_)++;
      auto* r = scene_->addRect(j * s, i * s, s - 1, s - 1, Qt::NoPen,
                                fill ? QColor(235, 140, 40) : (i == j ? QColor(20, 70, 150) : QColor(70, 130, 200)));
      const auto& bi = model->bodies[model->freeBodies[order[i]]];
      const auto& bj = model->bodies[model->freeBodies[order[j]]];
      r->setToolTip(QStringLiteral("%1 / %2%3").arg(QString::fromStdString(bi.name), QString::fromStdString(bj.name),
                                                    fill ? " (fill-in)" : ""));
    }
  // Separator: the bodies eliminated last that still couple several others.
  const std::vector<int> part = solver.partition();
  int first = n_;
  for (int k = n_ - 1; k >= 0 && part[order[k]] == 1; --k) first = k;
  separator_ = first < n_;
  if (first < n_) {
    QPen pen(QColor(200, 30, 30), 1.5, Qt::DashLine);
    scene_->addRect(first * s - 1, first * s - 1, (n_ - first) * s + 1, (n_ - first) * s + 1, pen);
    scene_->addLine(first * s - 1, 0, first * s - 1, n_ * s, pen);
    scene_->addLine(0, first * s - 1, n_ * s, first * s - 1, pen);
  }
  scene_->addRect(0, 0, n_ * s, n_ * s, QPen(Qt::gray));
  for (int i = 0; i < n_; ++i) {
    auto* t = scene_->addSimpleText(QString::fromStdString(model->bodies[model->freeBodies[order[i]]].name));
    t->setPos(n_ * s + 6, i * s - 2);
    t->setScale(0.7);
  }
  label_->setText(summary());
  static_cast<ZoomView*>(view_)->zoomed = false;
  static_cast<ZoomView*>(view_)->fit();
}

QString SparsityView::summary() const {
  const long long nnzA = 36LL * blocks_, nnzF = 36LL * (blocks_ + fill_);
  return tr("A: %1 x %1 (%2 bodies), %3 non-zero 6x6 blocks = %4 non-zeros (%5 % of the matrix). "
            "Topology solver: elimination order top to bottom (minimum degree), %6 fill-in blocks (orange), "
            "factor %7 non-zeros%8.")
      .arg(6 * n_)
      .arg(n_)
      .arg(blocks_)
      .arg(nnzA)
      .arg(100.0 * nnzA / std::max(1.0, 36.0 * n_ * n_), 0, 'f', 1)
      .arg(fill_)
      .arg(nnzF)
      .arg(separator_ ? tr("; dashed: the separator eliminated last") : QString());
}

}  // namespace ek::ui
