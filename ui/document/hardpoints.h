// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file hardpoints.h
/// The hardpoint view: every joint of the model in global coordinates [mm], one row per bushing
/// (its two markers and their distance) and per P2P end. Editing a global coordinate moves the
/// marker in its body's frame (the body frames stay put); the two markers of a coincident
/// bushing move together. Symmetric editing (a toggle) moves the left/right twin too: the joint at
/// the mirror point (x, -y, z) follows to the mirror of the new point. A bushing whose markers are
/// more than 1 mm apart is flagged. Each edit is one undo step. The values are stored as entered:
/// a coordinate the edit does not change keeps its exact value, the changed ones are rounded to
/// 1 nm (no binary round-off like 0.07699999999999999 in the file).

#include "ui/document/table_models.h"

namespace ek::ui {

class HardpointModel : public TableModel {
  Q_OBJECT
 public:
  explicit HardpointModel(ProjectDocument* doc);

  /// What a row stands for: a bushing, or one end of a P2P element.
  struct Joint {
    enum class Kind { Bushing, P2PEndI, P2PEndJ } kind;
    int element;  ///< id in its table
    int markerI;  ///< the row's marker (I of a bushing, the end of a P2P element)
    int markerJ;  ///< a bushing's J marker; -1 for a P2P end
  };
  const std::vector<Joint>& joints() const { return joints_; }
  /// Columns: joint, markers, x, y, z (marker I), partner x, y, z (marker J), distance, check.
  enum Column { Name, Markers, X, Y, Z, PartnerX, PartnerY, PartnerZ, Distance, Check, ColumnCount };

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;
  QStringList choices(int) const override { return {}; }
  bool addRow() override;
  bool duplicateRow(int) override { return addRow(); }
  bool removeRowAt(int) override { return addRow(); }
  /// Symmetric editing: an edit moves the twin joint at the mirror point too.
  void setSymmetric(bool on) { symmetric_ = on; }
  bool symmetric() const { return symmetric_; }

 private:
  void rebuild();
  std::vector<Joint> joints_;
  bool symmetric_ = false;
};

}  // namespace ek::ui
