// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/number_entry.h"

#include <QLocale>
#include <cmath>

#include "engine/core/text.h"

namespace ek::ui {
namespace {
QLocale numberLocale() {
  QLocale c = QLocale::c();
  c.setNumberOptions(QLocale::OmitGroupSeparator | QLocale::RejectGroupSeparator);
  return c;
}
}  // namespace

bool parseTypedNumber(const QString& text, double& out, QString* error) {
  const QString t = text.trimmed();
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (t.contains(','))
    return fail(QStringLiteral("'%1': type numbers with a point as the decimal separator (0.9), without digit grouping")
                    .arg(t.left(40)));
  bool ok = false;
  const double v = numberLocale().toDouble(t, &ok);
  if (!ok) return fail(QStringLiteral("expected a number, found '%1'").arg(t.left(40)));
  if (!std::isfinite(v)) return fail(QStringLiteral("value is not finite"));
  out = v;
  return true;
}

QString numberText(double v) { return QString::fromStdString(shortestText(v)); }

void useOneNumberFormat() { QLocale::setDefault(numberLocale()); }

}  // namespace ek::ui
