// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file vehicle_form.h
/// The project's `vehicle` row edited as a form (Edit > Vehicle data...): which axle the project
/// is, wheelbase, centre of gravity, brake and drive shares, brake layout (the anti-dive / anti-lift
/// / anti-squat metrics) and the sprung mass and the other axle's roll data (the roll gradient).
/// Applied as one undoable edit after the engine's validation; "no vehicle data" removes the row.

#include <QDialog>
#include <optional>

#include "engine/model/project.h"

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace ek::ui {

class ProjectDocument;

class VehicleForm : public QDialog {
  Q_OBJECT
 public:
  /// `vehicle`: the project's row, or none (the form starts from the defaults, unchecked).
  explicit VehicleForm(const std::optional<VehicleRow>& vehicle, QWidget* parent = nullptr);
  /// The row as entered (none when "vehicle data" is unchecked); `error` names every field that
  /// is not a number, by its label.
  std::optional<VehicleRow> vehicle(QString* error = nullptr) const;
  /// A field by its label ("wheelbase [m]", ...), for tests; null if unknown.
  QLineEdit* field(const QString& label) const;
  QCheckBox* enabled() const { return enabled_; }

 private:
  QCheckBox* enabled_;
  QComboBox* axle_;
  QComboBox* brakes_;
  struct Field {
    QString label;
    QLineEdit* edit;
    double VehicleRow::*member;
  };
  std::vector<Field> fields_;
};

/// Sets the project's vehicle row to `vehicle` (none: removes it) as one undo step, if the
/// engine's validation accepts it. @returns the engine's message when it rejects it, else empty.
QString editVehicle(ProjectDocument* doc, const std::optional<VehicleRow>& vehicle);

}  // namespace ek::ui
