// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/views/topology_view.h"

#include <QGraphicsEllipseItem>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QShowEvent>
#include <QWheelEvent>
#include <cmath>
#include <functional>
#include <map>

namespace ek::ui {

QColor subsystemColour(const std::string& s) {
  static const QColor palette[] = {QColor(70, 130, 200), QColor(220, 120, 40), QColor(80, 170, 90),
                                   QColor(200, 70, 80),  QColor(150, 100, 200), QColor(190, 170, 60),
                                   QColor(60, 180, 180)};
  return palette[std::hash<std::string>{}(s) % 7];
}

namespace {
constexpr int kTable = 0, kId = 1;
}

TopologyView::TopologyView(QWidget* parent) : QGraphicsView(parent), scene_(new QGraphicsScene(this)) {
  setScene(scene_);
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
}

void TopologyView::setModel(std::shared_ptr<const SuspensionModel> m) {
  scene_->clear();
  nodes_ = edges_ = 0;
  zoomed_ = false;
  if (!m) return;
  const int n = static_cast<int>(m->bodies.size());
  // Node of each body; all fixed bodies share one "ground" node.
  std::vector<int> node(n);
  int ground = -1, count = 0;
  for (int b = 0; b < n; ++b) {
    if (m->bodies[b].modal) {  // a flexible body's modal coordinates: no body of the project
      node[b] = -1;
    } else if (m->bodies[b].fixed) {
      if (ground < 0) ground = count++;
      node[b] = ground;
    } else {
      node[b] = count++;
    }
  }
  // Edges between nodes, one per force element.
  struct Edge {
    int a, b;
    Table table;
    int id;
    std::string name;
  };
  std::vector<Edge> edges;
  auto bodyOf = [&](MarkerIndex mk) { return m->markers[mk.value].body.value; };
  for (const auto& e : m->bushings) edges.push_back({node[bodyOf(e.i)], node[bodyOf(e.j)], Table::Bushings, e.id, e.name});
  for (const auto& e : m->p2ps) edges.push_back({node[bodyOf(e.i)], node[bodyOf(e.j)], Table::P2Ps, e.id, e.name});
  for (const auto& e : m->steeringRacks)
    edges.push_back({node[bodyOf(e.i)], node[bodyOf(e.j)], Table::SteeringRacks, e.id, e.name});

  // Start from the front view (y, z) of the bodies, then relax (Fruchterman-Reingold).
  std::vector<QPointF> p(count), disp(count);
  for (int b = 0; b < n; ++b)
    if (!m->bodies[b].fixed && node[b] >= 0) p[node[b]] = QPointF(-m->bodies[b].p0.y() * 900.0, -m->bodies[b].p0.z() * 900.0);
  if (ground >= 0) p[ground] = QPointF(0, -900);
  const double k = 90.0;
  double temperature = 60.0;
  for (int it = 0; it < 400; ++it) {
    for (auto& d : disp) d = QPointF();
    for (int i = 0; i < count; ++i)
      for (int j = i + 1; j < count; ++j) {
        QPointF d = p[i] - p[j];
        double len = std::max(1.0, std::hypot(d.x(), d.y()));
        if (len < 1.5) d = QPointF(1.0 + i, 1.0 + j), len = std::hypot(d.x(), d.y());
        const QPointF f = d / len * (k * k / len);
        disp[i] += f;
        disp[j] -= f;
      }
    for (const auto& e : edges) {
      if (e.a == e.b) continue;
      const QPointF d = p[e.a] - p[e.b];
      const double len = std::max(1.0, std::hypot(d.x(), d.y()));
      const QPointF f = d / len * (len * len / k) * 0.2;
      disp[e.a] -= f;
      disp[e.b] += f;
    }
    for (int i = 0; i < count; ++i) {
      if (i == ground) continue;  // the ground stays on top
      const double len = std::max(1e-9, std::hypot(disp[i].x(), disp[i].y()));
      p[i] += disp[i] / len * std::min(len, temperature);
    }
    temperature = std::max(2.0, temperature * 0.985);
  }

  // Edges first (under the nodes); parallel elements between the same two nodes fan out.
  std::map<std::pair<int, int>, int> multiplicity;
  for (const auto& e : edges) {
    const auto key = std::minmax(e.a, e.b);
    const int rank = multiplicity[key]++;
    QPointF a = p[e.a], b = p[e.b];
    const QPointF dir = b - a;
    const QPointF normal = QPointF(-dir.y(), dir.x()) / std::max(1.0, std::hypot(dir.x(), dir.y()));
    const QPointF off = normal * (rank % 2 ? -1.0 : 1.0) * 5.0 * ((rank + 1) / 2);
    const bool p2p = e.table == Table::P2Ps, rack = e.table == Table::SteeringRacks;
    QPen pen(p2p ? QColor(200, 40, 40) : rack ? QColor(30, 90, 200) : QColor(60, 60, 60), p2p || rack ? 2.0 : 1.4,
             p2p ? Qt::DashLine : rack ? Qt::DashDotLine : Qt::SolidLine);
    auto* line = scene_->addLine(QLineF(a + off, b + off), pen);
    line->setData(kTable, static_cast<int>(e.table));
    line->setData(kId, e.id);
    line->setToolTip(QStringLiteral("%1 %2: %3")
                         .arg(p2p ? "P2P" : rack ? "steering rack" : "bushing")
                         .arg(e.id)
                         .arg(QString::fromStdString(e.name)));
    ++edges_;
  }
  for (int b = 0; b < n; ++b) {
    const ModelBody& body = m->bodies[b];
    if (body.modal) continue;
    if (body.fixed && node[b] != ground) continue;
    if (body.fixed && b != [&] { for (int q = 0; q < n; ++q) if (m->bodies[q].fixed) return q; return b; }()) continue;
    const QPointF c = p[node[b]];
    QAbstractGraphicsShapeItem* item;
    if (body.fixed) item = scene_->addRect(c.x() - 40, c.y() - 14, 80, 28, QPen(Qt::black), QColor(170, 170, 170));
    else item = scene_->addEllipse(c.x() - 11, c.y() - 11, 22, 22, QPen(Qt::black),
                                   subsystemColour(m->project().bodies[b].subsystem));
    item->setData(kTable, static_cast<int>(Table::Bodies));
    item->setData(kId, body.id);
    item->setToolTip(QString::fromStdString(body.name));
    item->setZValue(1);
    auto* label = scene_->addSimpleText(QString::fromStdString(body.fixed ? "ground: " + body.name : body.name));
    label->setScale(0.8);
    label->setPos(c + QPointF(13, -7));
    label->setZValue(2);
    ++nodes_;
  }
  setSceneRect(scene_->itemsBoundingRect().adjusted(-40, -40, 40, 40));
  fitInView(sceneRect(), Qt::KeepAspectRatio);
}

void TopologyView::mousePressEvent(QMouseEvent* e) {
  for (QGraphicsItem* item : items(e->pos()))
    if (item->data(kTable).isValid()) {
      emit picked(Table(item->data(kTable).toInt()), item->data(kId).toInt());
      break;
    }
  QGraphicsView::mousePressEvent(e);
}

void TopologyView::wheelEvent(QWheelEvent* e) {
  const double f = e->angleDelta().y() > 0 ? 1.2 : 1 / 1.2;
  zoomed_ = true;
  scale(f, f);
}

void TopologyView::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  if (!zoomed_) fitInView(sceneRect(), Qt::KeepAspectRatio);
}

void TopologyView::showEvent(QShowEvent* e) {
  QGraphicsView::showEvent(e);
  if (!zoomed_) fitInView(sceneRect(), Qt::KeepAspectRatio);
}

}  // namespace ek::ui
