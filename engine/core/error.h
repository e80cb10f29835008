// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file error.h
/// Errors that name where bad input is: file, table, row id and field.

#include <stdexcept>
#include <string>

namespace ek {

/// Where in a project a problem is. Empty parts are left out of the message.
struct Location {
  std::string file;
  std::string table;  ///< e.g. "bushings"
  std::string row;    ///< the row's id (or the load case's name), as text
  std::string field;  ///< e.g. "marker_j"
};

/// Bad input: carries the location so the UI can point at the cell.
class ModelError : public std::runtime_error {
 public:
  ModelError(Location where, const std::string& what);
  const Location& where() const { return where_; }
  const std::string& detail() const { return detail_; }

 private:
  Location where_;
  std::string detail_;
};

/// A run that cannot go on (divergence, singular matrix): says when and where.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string formatLocation(const Location& where);

}  // namespace ek
