// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/error.h"

namespace ek {

std::string formatLocation(const Location& w) {
  std::string s = w.file.empty() ? std::string("<project>") : w.file;
  if (!w.table.empty()) s += ": table '" + w.table + "'";
  if (!w.row.empty()) s += ", row " + w.row;
  if (!w.field.empty()) s += ", field '" + w.field + "'";
  return s;
}

ModelError::ModelError(Location where, const std::string& what)
    : std::runtime_error(formatLocation(where) + ": " + what), where_(std::move(where)), detail_(what) {}

}  // namespace ek
