// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: any bytes as a list of cell paths (one per line, as a study's variables or an FMU's
// parameters name them) against the double-wishbone axle (read once). aliasedCells() never
// crashes and reports each clash with a message; and no clash goes unreported: every two paths
// that resolve and are not reported as aliases can be set together, each keeping its own value
// (an unreported alias would lose one value or tear a joint apart). Table paths that do not
// resolve are errors with a message.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/project_io.h"
#include "engine/model/table_path.h"

namespace {

std::vector<std::string> pathsOf(const std::string& text) {
  std::vector<std::string> paths;
  std::size_t at = 0;
  while (at <= text.size() && paths.size() < 6) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end > at) paths.push_back(text.substr(at, std::min<std::size_t>(end - at, 200)));
    at = end + 1;
  }
  return paths;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * (1.0 + std::abs(b)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ek::Project project = ek::readProject(ELASTOKIN_SOURCE_DIR "/projects/double_wishbone.json");
  const std::vector<std::string> paths = pathsOf(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<ek::CellAlias> aliases;
  try {
    aliases = ek::aliasedCells(project, paths);
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) std::abort();
    return 0;
  }
  std::set<std::pair<std::size_t, std::size_t>> reported;
  for (const auto& a : aliases) {
    if (a.message.empty() || a.first >= a.second || a.second >= paths.size()) std::abort();
    reported.insert({a.first, a.second});
  }
  // The cells that resolve (a curve's scale is relative to the project given, not a cell value).
  std::vector<std::size_t> cells;
  std::vector<double> values(paths.size(), 0.0);
  for (std::size_t k = 0; k < paths.size(); ++k) {
    if (paths[k].rfind("curves/", 0) == 0) continue;
    try {
      values[k] = ek::tableValue(project, paths[k]);
      cells.push_back(k);
    } catch (const std::invalid_argument& e) {
      if (std::string(e.what()).empty()) std::abort();  // an error must say something
    }
  }
  for (std::size_t a = 0; a < cells.size(); ++a)
    for (std::size_t b = a + 1; b < cells.size(); ++b) {
      const std::size_t i = cells[a], j = cells[b];
      if (reported.count({i, j})) continue;
      const double vi = values[i] * 1.01 + 1e-3, vj = values[j] * 0.99 + 2e-3;
      ek::Project q;
      try {
        q = ek::withTableValues(project, {{paths[i], vi}, {paths[j], vj}});
      } catch (const std::invalid_argument&) {
        continue;  // a value the cell does not take (checked by the table's own errors)
      }
      if (!close(ek::tableValue(q, paths[i]), vi) || !close(ek::tableValue(q, paths[j]), vj)) std::abort();
    }
  return 0;
}
