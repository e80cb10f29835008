// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/table_path.h"

#include <nlohmann/json.hpp>
#include <cctype>
#include <stdexcept>

#include "engine/core/text.h"
#include "engine/model/project_io.h"

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

/// `name` with the whole words left and right (any case as written) swapped; unchanged if it has neither.
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

}  // namespace

std::string twinPath(const Project& project, const std::string& path) {
  const Parts p = split(path);
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
  for (const auto& [path, value] : cells) {
    const Parts p = split(path);
    Json& row = findRow(doc, p, path);
    if (p.table == "curves" && p.field == "scale") {
      for (Json& point : row["points"]) point[1] = point[1].get<double>() * value;
    } else {
      findField(row, p, path) = value;
    }
  }
  Project out = parseProject(doc.dump(), project.sourcePath);
  out.sourcePath = project.sourcePath;
  return out;
}

}  // namespace ek
