// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file json_reader.h
/// Reading the engine's JSON files (projects, studies) so that every problem is named with file,
/// table, row and field, all of them in one pass: the parse with line and column for malformed
/// text, and an object reader that rejects unknown fields and wrong types and goes on.

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/types.h"
#include "engine/model/json_scan.h"

namespace ek {

using Json = nlohmann::ordered_json;

/// A bounded excerpt of a JSON value for messages (about 40 characters, however large it is).
std::string excerpt(const Json& v);

/// Line and column (from 1) of a byte offset (from 1) into text.
std::pair<int, int> lineColumn(const std::string& text, std::size_t byte);

/// Parses JSON text: nesting deeper than `maxDepth` and malformed text throw ModelError naming
/// `path`, line and column (`what` names the kind of file in the message on depth, e.g.
/// "a project needs 5"); repeated keys are returned in `scan`.
Json parseJsonText(const std::string& text, const std::string& path, int maxDepth, const std::string& depthHint,
                   JsonScan& scan);

/// Reads one JSON object, remembering where it is, and rejects fields it was not asked for.
/// Every problem is recorded in the diagnostics and reading goes on with a default value, so one
/// pass reports all of them. A value already reported (missing, wrong type) is not reported again.
class ObjectReader {
 public:
  /// A nested object's fields are named with its path, e.g. "x.stiffness [N/m]".
  ObjectReader(const Json& j, Location where, Diagnostics& diag) : j_(j), where_(std::move(where)), diag_(diag) {
    if (!j_.is_discarded() && !j_.is_object()) fail("", "expected an object, found " + describe(j_));
    broken_ = !j_.is_object();
  }

  void fail(const std::string& field, const std::string& what) const { diag_.error(at(field), what); }
  Diagnostics& diagnostics() const { return diag_; }
  const Location& where() const { return where_; }
  Location at(const std::string& field) const {
    Location w = where_;
    w.field = where_.field.empty() ? field : field.empty() ? where_.field : where_.field + "." + field;
    return w;
  }
  bool has(const std::string& key) {
    seen_.insert(key);
    return !broken_ && j_.contains(key);
  }
  /// The value, or a discarded value when it is missing (reported here) or the object is broken.
  const Json& raw(const std::string& key) {
    seen_.insert(key);
    if (broken_) return absent();
    if (!j_.contains(key)) {
      fail(key, "required field is missing");
      return absent();
    }
    return j_.at(key);
  }

  double number(const std::string& key) { return toNumber(raw(key), key); }
  double number(const std::string& key, double fallback) { return has(key) ? number(key) : fallback; }
  int integer(const std::string& key) { return toInteger(raw(key), key); }
  std::string string(const std::string& key) {
    const Json& v = raw(key);
    if (v.is_discarded()) return {};
    if (!v.is_string()) {
      fail(key, "expected a string, found " + describe(v));
      return {};
    }
    return v.get<std::string>();
  }
  std::string string(const std::string& key, const std::string& fallback) {
    return has(key) ? string(key) : fallback;
  }
  bool boolean(const std::string& key, bool fallback) {
    if (!has(key)) return fallback;
    const Json& v = raw(key);
    if (!v.is_boolean()) {
      fail(key, "expected true or false, found " + describe(v));
      return fallback;
    }
    return v.get<bool>();
  }
  Vec3 vec3(const std::string& key) {
    const Json& v = raw(key);
    if (v.is_discarded()) return Vec3::Zero();
    if (!v.is_array() || v.size() != 3) {
      fail(key, "expected an array of 3 numbers, found " + describe(v));
      return Vec3::Zero();
    }
    return {toNumber(v[0], key), toNumber(v[1], key), toNumber(v[2], key)};
  }
  Vec3 vec3(const std::string& key, const Vec3& fallback) { return has(key) ? vec3(key) : fallback; }

  double toNumber(const Json& v, const std::string& key) const {
    if (v.is_discarded()) return 0.0;
    if (!v.is_number()) {
      fail(key, "expected a number, found " + describe(v));
      return 0.0;
    }
    const double d = v.get<double>();
    if (!std::isfinite(d)) {
      fail(key, "value is not finite");
      return 0.0;
    }
    return d;
  }
  /// Ids, counts and versions: whole numbers that fit an int. Checked before the conversion,
  /// which would otherwise wrap (4294967297 -> 1).
  int toInteger(const Json& v, const std::string& key) const {
    if (v.is_discarded()) return 0;
    if (!v.is_number_integer()) {
      fail(key, "expected an integer, found " + describe(v));
      return 0;
    }
    const bool fits = v.is_number_unsigned()
                          ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                          : v.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                v.get<std::int64_t>() <= std::numeric_limits<int>::max();
    if (!fits) {
      fail(key, "integer " + v.dump() + " is out of range (" + std::to_string(std::numeric_limits<int>::min()) +
                    " to " + std::to_string(std::numeric_limits<int>::max()) + ")");
      return 0;
    }
    return v.get<int>();
  }

  /// Unknown fields are errors: a misspelt key would otherwise silently change the model.
  void finish() const {
    if (broken_) return;
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!seen_.count(it.key())) fail(it.key(), "unknown field" + allowed());
  }
  /// Stop checking this object's fields (its type could not be read, so the rest would only repeat
  /// that error).
  void skipRest() { broken_ = true; }

  static std::string describe(const Json& v) { return std::string(v.type_name()) + " " + excerpt(v); }
  static const Json& absent() {
    static const Json kAbsent(Json::value_t::discarded);
    return kAbsent;
  }

 private:
  std::string allowed() const {
    std::string s = " (allowed here: ";
    bool first = true;
    for (const auto& k : seen_) {
      s += (first ? "" : ", ") + ("'" + k + "'");
      first = false;
    }
    return s + ")";
  }
  const Json& j_;
  Location where_;
  Diagnostics& diag_;
  bool broken_ = false;
  std::set<std::string> seen_;
};

/// The row part of a location: "id N" (and the name), or the name of a row without an id.
inline void nameRow(const Json& row, std::size_t position, Location& w) {
  const bool hasName = row.is_object() && row.contains("name") && row["name"].is_string();
  if (row.is_object() && row.contains("id") && row["id"].is_number_integer()) {
    w.row = "id " + row["id"].dump();
    if (hasName) w.rowName = row["name"].get<std::string>();
  } else if (hasName) {
    w.row = "'" + row["name"].get<std::string>() + "'";
  } else {
    w.row = "#" + std::to_string(position + 1);
  }
}

/// Reads every row of an array of objects: `name(row, position, location)` names the row in
/// messages, `readRow(reader)` reads it; unknown fields are reported after it. A missing table is
/// reported only when `required`.
template <class Name, class F>
void forEachRow(ObjectReader& top, const char* table, bool required, Name&& name, F&& readRow) {
  if (!required && !top.has(table)) return;
  const Json& arr = top.raw(table);
  if (arr.is_discarded()) return;
  if (!arr.is_array()) {
    top.fail(table, "expected an array of rows, found " + ObjectReader::describe(arr));
    return;
  }
  for (std::size_t i = 0; i < arr.size(); ++i) {
    Location w = top.where();
    w.table = table;
    name(arr[i], i, w);
    ObjectReader r(arr[i], w, top.diagnostics());
    readRow(r);
    r.finish();
  }
}

/// A project table: optional, rows named by id (or name).
template <class F>
void forEachRow(ObjectReader& top, const char* table, F&& readRow) {
  forEachRow(top, table, false, nameRow, std::forward<F>(readRow));
}
}  // namespace ek
