// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file signal_form.h
/// A load-case signal edited as a whole: its type and the parameters that type uses, each with
/// its unit (the input's unit for values, s, Hz, rad), the others hidden. Applied as one undoable
/// edit after the engine's validation (the Signals table's cells stay available too).

#include <QDialog>

#include "engine/model/project.h"

class QComboBox;
class QFormLayout;
class QLineEdit;

namespace ek::ui {

class ProjectDocument;

class SignalForm : public QDialog {
  Q_OBJECT
 public:
  /// `valueUnit`: the driven input's unit ("N", "N m", "m", "rad").
  SignalForm(const SignalRow& signal, const QString& valueUnit, QWidget* parent = nullptr);
  /// The signal as entered; `error` names the first field that is not a finite number.
  SignalRow signal(QString* error = nullptr) const;
  void setType(SignalType type);
  /// The field of a parameter by its label ("amplitude", ...), for tests; null if hidden or unknown.
  QLineEdit* field(const QString& name) const;

 private:
  void showFields();
  QComboBox* type_;
  QFormLayout* form_;
  struct Field {
    QString name;
    QLineEdit* edit;
    double SignalRow::*member;
  };
  std::vector<Field> fields_;
  QLineEdit* file_;
  SignalRow original_;
};

/// The row of the Signals table -> (load case index, drive index). @returns false if none.
bool signalOfRow(const Project& project, int row, int& loadCase, int& drive);

/// Replaces drive `drive` of load case `loadCase` by `signal` as one undo step, if the engine's
/// validation accepts it. @returns the engine's message when it rejects it, else empty.
QString editSignal(ProjectDocument* doc, int loadCase, int drive, const SignalRow& signal);

}  // namespace ek::ui
