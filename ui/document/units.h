// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file units.h
/// Display units of the workbench: SI, mm-N-deg or mm-kN-deg for tables, plots, readouts and
/// exported CSV headers. The engine and the project file stay SI; only what is shown and typed
/// is converted (display value = factor x SI value). Torques stay in N m and inertias in kg m^2
/// in every system, as K&C reports give them.

#include <QObject>
#include <QString>
#include <utility>

namespace ek::ui {

enum class UnitSystem { SI, MmNDeg, MmKNDeg };

/// "SI (m, N, rad)", "mm, N, deg", "mm, kN, deg".
QString unitSystemName(UnitSystem system);

struct DisplayUnit {
  QString unit;          ///< as shown, e.g. "kN/mm"
  double factor = 1.0;   ///< display value = factor x SI value
};

/// The display form of an SI unit as the project writes it ("N/m", "N m s/rad", "m", "rad/s").
DisplayUnit displayUnit(const QString& siUnit, UnitSystem system);

/// A header "name [SI unit]" in display units, with its factor; headers without a unit unchanged.
std::pair<QString, double> displayHeader(const QString& header, UnitSystem system);

/// A table diff's text (engine/model/project_diff.h: "bushings 2 'a': y stiffness [N/m] 2000000.0
/// -> 500000.0") with each "[unit] old -> new" in display units ("[kN/mm] 2 -> 0.5"); numbers in
/// arrays too. Unchanged in SI and where no unit precedes the values.
QString displayChanges(const QString& text, UnitSystem system);

/// The workbench's unit system (remembered in the settings); `changed` tells the views.
class Units : public QObject {
  Q_OBJECT
 public:
  static Units& instance();
  UnitSystem system() const { return system_; }
  void setSystem(UnitSystem system);

 signals:
  void changed();

 private:
  Units();
  UnitSystem system_ = UnitSystem::SI;
};

/// Shorthands for the current system.
inline DisplayUnit displayUnit(const QString& siUnit) { return displayUnit(siUnit, Units::instance().system()); }
inline std::pair<QString, double> displayHeader(const QString& header) {
  return displayHeader(header, Units::instance().system());
}
inline QString displayChanges(const QString& text) { return displayChanges(text, Units::instance().system()); }

}  // namespace ek::ui
