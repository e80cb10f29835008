// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/error.h"

#include "engine/core/text.h"

namespace ek {

std::string formatLocation(const Location& w) {
  std::string s = w.file.empty() ? std::string("<project>") : w.file;
  if (w.line > 0) s += ": line " + std::to_string(w.line);
  if (w.line > 0 && w.column > 0) s += ", column " + std::to_string(w.column);
  // Names come from the user's file: cut and escaped (a name of megabytes or binary bytes is not echoed).
  if (!w.table.empty()) s += ": table '" + printableExcerpt(w.table) + "'";
  if (!w.row.empty()) s += ", row " + printableExcerpt(w.row);
  if (!w.rowName.empty()) s += " ('" + printableExcerpt(w.rowName) + "')";
  if (!w.field.empty()) s += ", field '" + printableExcerpt(w.field) + "'";
  return s;
}

std::string Diagnostic::text() const {
  return formatLocation(where) + ": " + (severity == Severity::Warning ? "warning: " : "") + message;
}

void Diagnostics::add(Severity severity, Location where, std::string message) {
  std::size_t& count = severity == Severity::Error ? errors_ : warnings_;
  std::size_t& kept = severity == Severity::Error ? storedErrors_ : storedWarnings_;
  // Up to kMaxStored of each severity, so warnings never crowd out errors.
  if (kept < kMaxStored) {
    items_.push_back({severity, std::move(where), std::move(message)});
    ++kept;
  }
  ++count;
}

std::string Diagnostics::text(Severity severity) const {
  std::string s;
  std::size_t shown = 0;
  for (const Diagnostic& d : items_)
    if (d.severity == severity) {
      s += (s.empty() ? "" : "\n") + d.text();
      ++shown;
    }
  const std::size_t total = severity == Severity::Error ? errors_ : warnings_;
  if (total > shown)
    s += "\n... and " + std::to_string(total - shown) + (severity == Severity::Error ? " more errors" : " more warnings");
  return s;
}

void Diagnostics::throwIfErrors() const {
  if (hasErrors()) throw ModelError(*this);
}

namespace {
std::vector<Diagnostic> errorsOf(const Diagnostics& d) {
  std::vector<Diagnostic> e;
  for (const Diagnostic& x : d.items())
    if (x.severity == Severity::Error) e.push_back(x);
  return e;
}
}  // namespace

ModelError::ModelError(Location where, const std::string& what)
    : std::runtime_error(formatLocation(where) + ": " + what), errors_{{Severity::Error, std::move(where), what}} {}

ModelError::ModelError(const Diagnostics& d) : std::runtime_error(d.text(Severity::Error)), errors_(errorsOf(d)) {}

}  // namespace ek
