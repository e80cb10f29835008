// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/project_diff.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "engine/model/project_io.h"
#include "engine/model/validate.h"

namespace ek {
namespace {

using Json = nlohmann::ordered_json;

std::string show(const Json& v) {
  if (v.is_string()) return "'" + v.get<std::string>() + "'";
  return v.dump();
}

/// The key that matches rows of a table across versions, and a label naming the row.
std::string rowKey(const Json& row) {
  if (row.is_object() && row.contains("id")) return "id " + row["id"].dump();
  if (row.is_object() && row.contains("name")) return "name " + row["name"].dump();
  return row.dump();
}
std::string rowLabel(const std::string& table, const Json& row) {
  std::string label = table;
  if (row.is_object() && row.contains("id")) label += " " + row["id"].dump();
  if (row.is_object() && row.contains("name") && row["name"].is_string())
    label += " '" + row["name"].get<std::string>() + "'";
  return label;
}

/// Leaf differences of two values below `path` (object keys joined by spaces).
void diffValues(const Json& a, const Json& b, const std::string& prefix, const std::string& path,
                std::vector<std::string>& out) {
  if (a == b) return;
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      const std::string p = path.empty() ? it.key() : path + " " + it.key();
      if (b.contains(it.key())) diffValues(it.value(), b[it.key()], prefix, p, out);
      else out.push_back(prefix + p + " removed");
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key()))
        out.push_back(prefix + (path.empty() ? it.key() : path + " " + it.key()) + " " + show(it.value()) + " added");
    return;
  }
  out.push_back(prefix + (path.empty() ? "" : path + " ") + show(a) + " -> " + show(b));
}

void diffTable(const std::string& table, const Json& a, const Json& b, std::vector<std::string>& out) {
  for (const auto& ra : a) {
    const std::string key = rowKey(ra);
    const Json* match = nullptr;
    for (const auto& rb : b)
      if (rowKey(rb) == key) match = &rb;
    if (!match) out.push_back(rowLabel(table, ra) + " removed");
    else diffValues(ra, *match, rowLabel(table, ra) + ": ", "", out);
  }
  for (const auto& rb : b) {
    bool found = false;
    for (const auto& ra : a) found = found || rowKey(ra) == rowKey(rb);
    if (!found) out.push_back(rowLabel(table, rb) + " added");
  }
}

/// The project file's form with each marker's position as an engineer reads a hardpoint: global,
/// as modelled (its body's pose applied), to the nanometre.
Json withGlobalMarkers(const Project& project) {
  Json j = Json::parse(writeProjectText(project));
  if (!j.contains("markers")) return j;
  for (Json& row : j["markers"]) {
    if (!row.is_object() || !row.contains("id") || !row.contains("position [m]")) continue;
    for (const MarkerRow& m : project.markers) {
      if (Json(m.id) != row["id"]) continue;
      const Vec3 g = markerPositionAsModelled(project, m);
      Json xyz = Json::array();
      for (int k = 0; k < 3; ++k) xyz.push_back(std::round(g[k] * 1e9) / 1e9 + 0.0);  // no -0
      row.erase("position [m]");
      row["global position [m]"] = xyz;
      break;
    }
  }
  return j;
}

}  // namespace

std::vector<std::string> describeChanges(const Project& before, const Project& after, std::size_t limit) {
  const Json a = withGlobalMarkers(before), b = withGlobalMarkers(after);
  std::vector<std::string> out;
  for (auto it = a.begin(); it != a.end(); ++it) {
    const Json& vb = b.contains(it.key()) ? b[it.key()] : Json();
    if (it.value().is_array() && vb.is_array()) diffTable(it.key(), it.value(), vb, out);
    else diffValues(it.value(), vb, "", it.key(), out);
  }
  for (auto it = b.begin(); it != b.end(); ++it)
    if (!a.contains(it.key())) diffValues(Json(), it.value(), "", it.key(), out);
  if (out.size() > limit) {
    const std::size_t more = out.size() - limit;
    out.resize(limit);
    out.push_back("... and " + std::to_string(more) + " more");
  }
  return out;
}

}  // namespace ek
