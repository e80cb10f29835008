// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file problems_panel.h
/// The list of a project's errors and warnings (ek::check, or the errors of a file that could
/// not be opened), one line each naming table, row and field. Activating a line of the open
/// project asks the window to go to its cell.

#include <QListWidget>
#include <vector>

#include "engine/core/error.h"

namespace ek::ui {

class ProblemsPanel : public QListWidget {
  Q_OBJECT
 public:
  explicit ProblemsPanel(QWidget* parent = nullptr);
  /// Shows the diagnostics; `navigable`: they belong to the open project (their cells exist).
  void setDiagnostics(const std::vector<Diagnostic>& items, std::size_t notShown, bool navigable);
  int errorCount() const { return errors_; }
  int warningCount() const { return warnings_; }

 signals:
  /// A line was activated: table (engine name), row key ("id 3", "'LC1'") and field.
  void goTo(const QString& table, const QString& row, const QString& field);

 private:
  int errors_ = 0, warnings_ = 0;
};

}  // namespace ek::ui
