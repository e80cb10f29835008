// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file number_entry.h
/// Numbers typed and shown in the workbench follow one rule in every language setting
/// (docs/workbench.md, "Typing numbers"): a point is the decimal separator, there is no digit
/// grouping, and an exponent is written with e ("2.5e6"). A comma is refused with a message,
/// never read as a group separator or dropped: under German settings "0.9" is 0.9 and "0,9" an
/// error, not 9.

#include <QString>

namespace ek::ui {

/// Reads a typed number by the rule above; on failure returns false and says why in *error
/// (what was typed and how to write it).
bool parseTypedNumber(const QString& text, double& out, QString* error = nullptr);

/// The shortest text that reads back to v by the rule above ("0.9", "2500000", "1e-07").
QString numberText(double v);

/// Makes the rule the application's default locale (the C locale without digit grouping), so
/// every spin box and plot axis shows and reads numbers the same way. Called before the main
/// window builds its widgets.
void useOneNumberFormat();

}  // namespace ek::ui
