// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/units.h"

#include <QRegularExpression>
#include <QSettings>
#include <QStringList>
#include <cmath>

namespace ek::ui {

QString unitSystemName(UnitSystem system) {
  switch (system) {
    case UnitSystem::SI: return QObject::tr("SI (m, N, rad)");
    case UnitSystem::MmNDeg: return QObject::tr("mm, N, deg");
    case UnitSystem::MmKNDeg: return QObject::tr("mm, kN, deg");
  }
  return {};
}

DisplayUnit displayUnit(const QString& siUnit, UnitSystem system) {
  if (system == UnitSystem::SI || siUnit.isEmpty()) return {siUnit, 1.0};
  const bool kN = system == UnitSystem::MmKNDeg;
  // Numerator and denominator are space-separated tokens: convert each (a length in mm, an angle
  // in deg, a force in kN in the kN system), except a torque's "N m" and an inertia's "m^2".
  auto convert = [&](const QString& part, double& factor, int sign) {
    QStringList tokens = part.split(' ', Qt::SkipEmptyParts);
    for (int k = 0; k < tokens.size(); ++k) {
      const bool torque = (tokens[k] == "N" && k + 1 < tokens.size() && tokens[k + 1] == "m") ||
                          (tokens[k] == "m" && k > 0 && tokens[k - 1] == "N");
      if (torque) continue;
      double f = 1.0;
      if (tokens[k] == "m") tokens[k] = "mm", f = 1e3;
      else if (tokens[k] == "rad") tokens[k] = "deg", f = 180.0 / M_PI;
      else if (tokens[k] == "N" && kN) tokens[k] = "kN", f = 1e-3;
      factor *= sign > 0 ? f : 1.0 / f;
    }
    return tokens.join(' ');
  };
  double factor = 1.0;
  const int slash = siUnit.indexOf('/');
  QString unit = convert(slash < 0 ? siUnit : siUnit.left(slash), factor, +1);
  if (slash >= 0) unit += "/" + convert(siUnit.mid(slash + 1), factor, -1);
  return {unit, factor};
}

std::pair<QString, double> displayHeader(const QString& header, UnitSystem system) {
  const int open = header.lastIndexOf('['), close = header.lastIndexOf(']');
  if (open < 0 || close < open) return {header, 1.0};
  const DisplayUnit d = displayUnit(header.mid(open + 1, close - open - 1), system);
  return {header.left(open + 1) + d.unit + header.mid(close), d.factor};
}

QString displayChanges(const QString& text, UnitSystem system) {
  if (system == UnitSystem::SI) return text;
  static const QRegularExpression change(
      QStringLiteral(R"(\[([^\[\]]+)\] (-?[0-9.eE+-]+|\[[-0-9.eE+, ]+\]) -> (-?[0-9.eE+-]+|\[[-0-9.eE+, ]+\]))"));
  QString out;
  qsizetype done = 0;
  for (auto it = change.globalMatch(text); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    const DisplayUnit du = displayUnit(m.captured(1), system);
    auto convert = [&](const QString& value) {
      const bool array = value.startsWith('[');
      QStringList parts = (array ? value.mid(1, value.size() - 2) : value).split(',');
      for (QString& part : parts) {
        bool ok = false;
        const double v = part.trimmed().toDouble(&ok);
        if (!ok) return value;  // not a number: as it was
        part = QString::number(du.factor * v, 'g', 10);
      }
      return array ? "[" + parts.join(", ") + "]" : parts.front();
    };
    out += text.mid(done, m.capturedStart() - done);
    out += QStringLiteral("[%1] %2 -> %3").arg(du.unit, convert(m.captured(2)), convert(m.captured(3)));
    done = m.capturedEnd();
  }
  return out + text.mid(done);
}

Units& Units::instance() {
  static Units units;
  return units;
}

Units::Units() {
  const int stored = QSettings("Elastokin", "Elastokin").value("units", 0).toInt();
  if (stored >= 0 && stored <= 2) system_ = static_cast<UnitSystem>(stored);
}

void Units::setSystem(UnitSystem system) {
  if (system == system_) return;
  system_ = system;
  QSettings("Elastokin", "Elastokin").setValue("units", static_cast<int>(system));
  emit changed();
}

}  // namespace ek::ui
