// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file topology_view.h
/// The topology graph: bodies as nodes (ground drawn as a box), force elements as edges
/// (bushings solid, P2P dashed), coloured by subsystem, laid out by a force-directed scheme
/// started from the bodies' positions seen from the front. Clicking a node or an edge reports
/// it, so the window can select its row and highlight it in 3D.

#include <QGraphicsView>
#include <memory>

#include "engine/model/model.h"
#include "ui/document/project_document.h"

namespace ek::ui {

class TopologyView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit TopologyView(QWidget* parent = nullptr);
  void setModel(std::shared_ptr<const SuspensionModel> model);
  int nodeCount() const { return nodes_; }
  int edgeCount() const { return edges_; }

 signals:
  /// A body (table Bodies) or a force element (Bushings, P2Ps) was clicked: its id.
  void picked(ek::ui::Table table, int id);

 protected:
  void mousePressEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void showEvent(QShowEvent* e) override;

 private:
  bool zoomed_ = false;  ///< fit to the pane until the user zooms
  QGraphicsScene* scene_;
  int nodes_ = 0, edges_ = 0;
};

/// Colour of a subsystem (shared by the 3D view and the graph).
QColor subsystemColour(const std::string& subsystem);

}  // namespace ek::ui
