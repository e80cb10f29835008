// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file error.h
/// Errors that name where bad input is: file, table, row (id and name) and field, or the line
/// and column of a file. Problems are collected as diagnostics, so one pass over a file reports
/// all of them; a ModelError carries every error found.

#include <stdexcept>
#include <string>
#include <vector>

namespace ek {

/// Where in a project a problem is. Empty parts are left out of the message.
struct Location {
  Location() = default;
  Location(std::string file_, std::string table_ = {}, std::string row_ = {}, std::string field_ = {})
      : file(std::move(file_)), table(std::move(table_)), row(std::move(row_)), field(std::move(field_)) {}

  std::string file;
  std::string table;    ///< e.g. "bushings"
  std::string row;      ///< the row's id ("id 3") or the load case's name ("'LC1'"), as text
  std::string field;    ///< e.g. "marker_j"
  std::string rowName;  ///< the row's name, when it has one (shown after the id)
  int line = 0, column = 0;  ///< in the file, where known (1-based; 0: not known)
};

std::string formatLocation(const Location& where);

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity severity = Severity::Error;
  Location where;
  std::string message;
  /// "FILE: table 'T', row id N ('name'), field 'F': message" (warnings prefixed "warning: ").
  std::string text() const;
};

/// Collects the errors and warnings of one pass over a project. Stores at most kMaxStored of
/// them (a broken file can hold millions) and counts the rest.
class Diagnostics {
 public:
  static constexpr std::size_t kMaxStored = 200;

  void error(Location where, std::string message) { add(Severity::Error, std::move(where), std::move(message)); }
  void warning(Location where, std::string message) { add(Severity::Warning, std::move(where), std::move(message)); }

  const std::vector<Diagnostic>& items() const { return items_; }
  std::size_t errorCount() const { return errors_; }
  std::size_t warningCount() const { return warnings_; }
  bool hasErrors() const { return errors_ > 0; }
  /// One line per stored item of that severity, and a last line for those not stored.
  std::string text(Severity severity) const;
  /// @throws ModelError carrying every error, if there is one.
  void throwIfErrors() const;

 private:
  void add(Severity severity, Location where, std::string message);
  std::vector<Diagnostic> items_;
  std::size_t errors_ = 0, warnings_ = 0, storedErrors_ = 0, storedWarnings_ = 0;
};

/// Bad input. what() lists every error, one per line; where() and detail() are the first one's.
class ModelError : public std::runtime_error {
 public:
  ModelError(Location where, const std::string& what);
  /// @pre diagnostics.hasErrors()
  explicit ModelError(const Diagnostics& diagnostics);
  const Location& where() const { return errors_.front().where; }
  const std::string& detail() const { return errors_.front().message; }
  /// Every error (not the warnings), in the order found.
  const std::vector<Diagnostic>& errors() const { return errors_; }

 private:
  std::vector<Diagnostic> errors_;
};

/// A file that cannot be read or written (results, exports): names the file and the cause.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A run that cannot go on (divergence, singular matrix): says when and where.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ek
