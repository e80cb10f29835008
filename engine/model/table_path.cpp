// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/table_path.h"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "engine/core/rotation.h"
#include "engine/core/text.h"
#include "engine/model/project_io.h"
#include "engine/model/validate.h"

namespace ek {

namespace {

using Json = nlohmann::ordered_json;

struct Parts {
  std::string table, row, field;
};

Parts split(const std::string& path) {
  const auto a = path.find('/');
  const auto b = a == std::string::npos ? a : path.find('/', a + 1);
  if (b == std::string::npos || a == 0 || b == a + 1 || b + 1 >= path.size())
    throw std::invalid_argument("'" + printableExcerpt(path) + "': a cell path is TABLE/ROW/FIELD, e.g. bushings/9/x.damping [N s/m]");
  return {path.substr(0, a), path.substr(a + 1, b - a - 1), path.substr(b + 1)};
}

/// The row of `table` whose id (or, for load cases, name) is `row`.
Json& findRow(Json& doc, const Parts& p, const std::string& path) {
  auto isTable = [](const Json& v) { return v.is_array() && (v.empty() || v.front().is_object()); };
  if (!doc.contains(p.table) || !isTable(doc[p.table])) {
    std::string tables;
    for (auto it = doc.begin(); it != doc.end(); ++it)
      if (isTable(it.value())) tables += (tables.empty() ? "" : ", ") + it.key();
    throw std::invalid_argument("'" + printableExcerpt(path) + "': no table '" + printableExcerpt(p.table) + "' (tables: " + tables + ")");
  }
  for (Json& r : doc[p.table]) {
    if (r.contains("id") && r["id"].is_number_integer() && std::to_string(r["id"].get<long long>()) == p.row) return r;
    if (!r.contains("id") && r.contains("name") && r["name"].is_string() && r["name"].get<std::string>() == p.row)
      return r;
  }
  throw std::invalid_argument("'" + printableExcerpt(path) + "': table '" + printableExcerpt(p.table) + "' has no row " + p.row);
}

/// The JSON value of the field path below a row: keys joined by '.', list elements as [n] from 1.
Json& findField(Json& row, const Parts& p, const std::string& path) {
  Json* at = &row;
  std::size_t i = 0;
  const std::string& f = p.field;
  while (i < f.size()) {
    if (f[i] == '[') {
      const auto close = f.find(']', i);
      int n = 0;
      try {
        n = close == std::string::npos ? 0 : std::stoi(f.substr(i + 1, close - i - 1));
      } catch (const std::exception&) {
        n = 0;
      }
      if (!at->is_array() || n < 1 || n > static_cast<int>(at->size()))
        throw std::invalid_argument("'" + printableExcerpt(path) + "': no element " + f.substr(i, close == std::string::npos ? 1 : close - i + 1) +
                                    " in '" + f.substr(0, i) + "'");
      at = &(*at)[static_cast<std::size_t>(n - 1)];
      i = close + 1;
      if (i < f.size() && f[i] == '.') ++i;
      continue;
    }
    // The longest key of this object that ends where the path ends, at a '.', or at an index
    // "[n]" (a key holds its unit in brackets: "mass [kg]", "damping [N s/m]").
    std::string key;
    std::size_t end = std::string::npos;
    for (std::size_t j = i + 1; j <= f.size(); ++j) {
      bool boundary = j == f.size() || f[j] == '.';
      if (!boundary && f[j] == '[') {
        const auto close = f.find(']', j);
        boundary = close != std::string::npos && close > j + 1 &&
                   f.find_first_not_of("0123456789", j + 1) == close;
      }
      if (boundary && at->is_object() && at->contains(f.substr(i, j - i))) {
        key = f.substr(i, j - i);
        end = j;
      }
    }
    if (key.empty()) {
      std::string keys;
      if (at->is_object())
        for (auto it = at->begin(); it != at->end(); ++it) keys += (keys.empty() ? "" : ", ") + ("'" + printableExcerpt(it.key()) + "'");
      const auto stop = f.find('.', i);
      throw std::invalid_argument("'" + printableExcerpt(path) + "': no field '" + f.substr(i, stop == std::string::npos ? std::string::npos : stop - i) +
                                  "'" + (keys.empty() ? "" : " (there: " + keys + ")"));
    }
    at = &(*at)[key];
    i = end == f.size() ? end : end + (f[end] == '.' ? 1 : 0);
  }
  if (at->is_object() && at->contains("curve"))
    throw std::invalid_argument("'" + printableExcerpt(path) + "': the law is curve " + at->at("curve").dump() + ", not a number (vary curves/" +
                                at->at("curve").dump() + "/scale instead)");
  if (!at->is_number())
    throw std::invalid_argument("'" + printableExcerpt(path) + "': the field is not a number (" + at->dump() + ")");
  return *at;
}

}  // namespace

std::string swapSides(const std::string& name) {
  std::string out;
  auto isWordChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  std::size_t i = 0;
  while (i < name.size()) {
    bool swapped = false;
    if (i == 0 || !isWordChar(name[i - 1])) {
      for (const auto& [from, to] : {std::pair<const char*, const char*>{"left", "right"}, {"right", "left"},
                                     {"Left", "Right"}, {"Right", "Left"}, {"LEFT", "RIGHT"}, {"RIGHT", "LEFT"}}) {
        const std::size_t n = std::char_traits<char>::length(from);
        if (name.compare(i, n, from) == 0 && (i + n == name.size() || !isWordChar(name[i + n]))) {
          out += to;
          i += n;
          swapped = true;
          break;
        }
      }
    }
    if (!swapped) out += name[i++];
  }
  return out;
}

namespace {

// Hardpoints: hardpoints/MARKER/x [m] (y, z; "mirror y [m]" is -y) is the marker's global
// coordinate as modelled; setting it moves every marker at that point (within kCoincident: the two
// markers of a joint, the markers of one point on a body) in its body's frame.
constexpr double kCoincident = 1e-6;  // [m]

bool isHardpoint(const Parts& p) { return p.table == "hardpoints"; }

const MarkerRow& hardpointMarker(const Project& project, const Parts& p, const std::string& path) {
  for (const MarkerRow& m : project.markers)
    if (std::to_string(m.id) == p.row) return m;
  throw std::invalid_argument("'" + printableExcerpt(path) + "': no marker " + printableExcerpt(p.row) +
                              " (hardpoints are addressed by a marker's id)");
}

/// The axis (0, 1, 2) and sign (-1 for "mirror y [m]") of a hardpoint field.
std::pair<int, double> hardpointAxis(const Parts& p, const std::string& path) {
  if (p.field == "x [m]") return {0, 1.0};
  if (p.field == "y [m]") return {1, 1.0};
  if (p.field == "z [m]") return {2, 1.0};
  if (p.field == "mirror y [m]") return {1, -1.0};
  throw std::invalid_argument("'" + printableExcerpt(path) + "': a hardpoint's fields are 'x [m]', 'y [m]', 'z [m]' "
                              "(global, as modelled) and 'mirror y [m]' (-y, for a left/right twin)");
}

double hardpointValue(const Project& project, const std::string& path) {
  const Parts p = split(path);
  const auto [axis, sign] = hardpointAxis(p, path);
  return sign * markerPositionAsModelled(project, hardpointMarker(project, p, path))[axis];
}

/// Moves the point of marker `path` names so that its coordinate is `value`.
void moveHardpoint(Project& project, const std::string& path, double value) {
  const Parts p = split(path);
  const auto [axis, sign] = hardpointAxis(p, path);
  const Vec3 from = markerPositionAsModelled(project, hardpointMarker(project, p, path));
  // The joint moves by one offset along the axis: each coincident marker keeps its own stored
  // position plus the offset in its body's frame. A point set to where it is changes nothing,
  // bit for bit (rewriting the stored positions from the global one changed them by round-off,
  // and a model built from them converged to another equilibrium within its tolerance).
  Vec3 delta = Vec3::Zero();
  delta[axis] = sign * value - from[axis];
  if (delta[axis] == 0.0) return;
  std::vector<std::size_t> moving;
  for (std::size_t k = 0; k < project.markers.size(); ++k)
    if ((markerPositionAsModelled(project, project.markers[k]) - from).norm() <= kCoincident) moving.push_back(k);
  for (std::size_t k : moving) {
    MarkerRow& m = project.markers[k];
    const BodyRow* body = nullptr;
    for (const BodyRow& b : project.bodies)
      if (b.id == m.body) body = &b;
    m.position += body ? Vec3(rotation::matrix(body->orientation).transpose() * delta) : delta;
  }
}

}  // namespace

std::string twinPath(const Project& project, const std::string& path) {
  const Parts p = split(path);
  if (isHardpoint(p)) {
    // The marker at the mirror point (x, -y, z); its y mirrored.
    const auto [axis, sign] = hardpointAxis(p, path);
    const Vec3 at = markerPositionAsModelled(project, hardpointMarker(project, p, path));
    if (std::abs(at.y()) <= kCoincident)
      throw std::invalid_argument("'" + printableExcerpt(path) + "': the point lies in the centre plane (y = 0): no twin");
    for (const MarkerRow& m : project.markers)
      if ((markerPositionAsModelled(project, m) - Vec3(at.x(), -at.y(), at.z())).norm() <= kCoincident) {
        const std::string field = axis != 1 ? p.field : sign > 0 ? "mirror y [m]" : "y [m]";
        return "hardpoints/" + std::to_string(m.id) + "/" + field;
      }
    throw std::invalid_argument("'" + printableExcerpt(path) + "': no marker at the mirror point (" + significant(at.x(), 6) +
                                ", " + significant(-at.y(), 6) + ", " + significant(at.z(), 6) + ") m");
  }
  Json doc = Json::parse(writeProjectText(project));
  const Json& row = findRow(doc, p, path);
  const std::string name = row.contains("name") && row["name"].is_string() ? row["name"].get<std::string>() : "";
  const std::string twin = swapSides(name);
  if (name.empty() || twin == name)
    throw std::invalid_argument("'" + printableExcerpt(path) + "': the row's name " + (name.empty() ? "is empty" : "'" + printableExcerpt(name) + "'") +
                                " does not say left or right, so it has no twin");
  for (const Json& r : doc[p.table])
    if (r.contains("name") && r["name"].is_string() && r["name"].get<std::string>() == twin) {
      const std::string id = r.contains("id") ? std::to_string(r["id"].get<long long>()) : twin;
      return p.table + "/" + id + "/" + p.field;
    }
  throw std::invalid_argument("'" + printableExcerpt(path) + "': no row named '" + printableExcerpt(twin) + "' in '" + printableExcerpt(p.table) + "' (the twin of '" + printableExcerpt(name) + "')");
}

double tableValue(const Project& project, const std::string& path) {
  const Parts p = split(path);
  if (isHardpoint(p)) return hardpointValue(project, path);
  Json doc = Json::parse(writeProjectText(project));
  if (p.table == "curves" && p.field == "scale") {
    (void)findRow(doc, p, path);
    return 1.0;
  }
  return findField(findRow(doc, p, path), p, path).get<double>();
}

Project withTableValue(const Project& project, const std::string& path, double value) {
  return withTableValues(project, {{path, value}});
}

Project withTableValues(const Project& project, const std::vector<std::pair<std::string, double>>& cells) {
  Json doc = Json::parse(writeProjectText(project));
  std::vector<std::pair<std::string, double>> hardpoints;  // moved after the table cells
  for (const auto& [path, value] : cells) {
    const Parts p = split(path);
    if (isHardpoint(p)) {
      (void)hardpointAxis(p, path);
      hardpoints.emplace_back(path, value);
      continue;
    }
    Json& row = findRow(doc, p, path);
    if (p.table == "curves" && p.field == "scale") {
      for (Json& point : row["points"]) point[1] = point[1].get<double>() * value;
    } else {
      findField(row, p, path) = value;
    }
  }
  Project out = parseProject(doc.dump(), project.sourcePath);
  out.sourcePath = project.sourcePath;
  for (const auto& [path, value] : hardpoints) moveHardpoint(out, path, value);
  return out;
}

std::vector<CellAlias> aliasedCells(const Project& project, const std::vector<std::string>& paths) {
  // What each path sets: a hardpoint, the joint (its coincident markers) on one axis and the
  // whole stored position of each of those markers; any other path, itself.
  struct Sets {
    std::string key;                 // the cell as one identity
    std::vector<int> markerPosition; // markers whose stored position it rewrites (hardpoints)
    int marker = -1;                 // markers/ID/position[...]: that marker
  };
  std::vector<Sets> sets;
  for (const std::string& path : paths) {
    Sets s;
    s.key = path;
    try {
      const Parts p = split(path);
      if (isHardpoint(p)) {
        const auto [axis, sign] = hardpointAxis(p, path);
        const Vec3 at = markerPositionAsModelled(project, hardpointMarker(project, p, path));
        int first = -1;
        for (const MarkerRow& m : project.markers)
          if ((markerPositionAsModelled(project, m) - at).norm() <= kCoincident) {
            s.markerPosition.push_back(m.id);
            if (first < 0 || m.id < first) first = m.id;
          }
        s.key = "the joint of marker " + std::to_string(first) + ", " + "xyz"[axis] + " [m]";
      } else if (p.table == "markers" && p.field.rfind("position", 0) == 0) {
        s.marker = std::stoi(p.row);
      }
    } catch (const std::exception&) {
      // Left to tableValue()'s message.
    }
    sets.push_back(std::move(s));
  }
  std::vector<CellAlias> out;
  for (std::size_t b = 0; b < sets.size(); ++b)
    for (std::size_t a = 0; a < b; ++a) {
      std::string cell;
      if (sets[a].key == sets[b].key) cell = sets[a].key;
      for (const Sets* h : {&sets[a], &sets[b]}) {
        const Sets* m = h == &sets[a] ? &sets[b] : &sets[a];
        if (m->marker >= 0 && std::find(h->markerPosition.begin(), h->markerPosition.end(), m->marker) != h->markerPosition.end())
          cell = "the position of marker " + std::to_string(m->marker) + ", which the hardpoint moves with its joint";
      }
      if (!cell.empty())
        out.push_back({a, b, "'" + printableExcerpt(paths[b]) + "' sets the same cell as '" + printableExcerpt(paths[a]) + "' (" +
                                 cell + "): give it once"});
    }
  return out;
}

}  // namespace ek
