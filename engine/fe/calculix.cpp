// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/fe/calculix.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/core/text_file.h"

namespace ek::fe {
namespace {

constexpr std::uintmax_t kMaxDeckBytes = 512ull << 20;
constexpr std::uintmax_t kMaxMatrixBytes = 4ull << 30;

/// Calls f(line, number) for each line of text, trimmed, blank lines skipped (numbers 1-based).
template <class F>
void forEachLine(std::string_view text, F&& f) {
  int lineNo = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = trimBlanks(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++lineNo;
    if (!line.empty()) f(line, lineNo);
  }
}

std::vector<std::string_view> splitCommas(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(trimBlanks(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.size() > 1 && out.back().empty()) out.pop_back();  // a trailing comma
  return out;
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return u;
}

bool integerField(std::string_view s, int& out) {
  long long v = 0;
  if (!parseInteger(s, v, 1, 2147483647)) return false;
  out = static_cast<int>(v);
  return true;
}

/// A keyword line: "*NAME, KEY=VALUE, FLAG" -> name and parameters (upper case keys).
struct Keyword {
  std::string name;
  std::map<std::string, std::string> params;
};
Keyword keyword(std::string_view line) {
  Keyword k;
  const auto parts = splitCommas(line.substr(1));
  k.name = upper(parts.front());
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t eq = parts[i].find('=');
    if (eq == std::string_view::npos) k.params[upper(parts[i])] = "";
    else k.params[upper(trimBlanks(parts[i].substr(0, eq)))] = std::string(trimBlanks(parts[i].substr(eq + 1)));
  }
  return k;
}

bool readsElementType(const std::string& type) {
  return type.rfind("C3D", 0) == 0 || type == "MASS" || type == "SPRINGA";
}

struct DeckReader {
  CalculixDeck& deck;
  Diagnostics& diagnostics;
  std::unordered_map<int, int> nodeLine;
  std::vector<std::tuple<std::string, std::string, Location>> setReferences;  // set, item, where
  int depth = 0;

  void read(const std::string& path) {
    if (++depth > 16) {
      diagnostics.error(Location(path), "*INCLUDE nested more than 16 deep");
      return;
    }
    const std::string text = readTextFile(path, kMaxDeckBytes, "CalculiX input deck");
    Keyword current;
    bool continued = false;  // an *ELEMENT data line ending in a comma continues on the next
    forEachLine(text, [&](std::string_view line, int lineNo) {
      if (line.rfind("**", 0) == 0) return;
      Location where(path);
      where.line = lineNo;
      if (line.front() == '*') {
        current = keyword(line);
        continued = false;
        if (current.name == "INCLUDE") {
          const auto input = current.params.find("INPUT");
          if (input == current.params.end() || input->second.empty()) {
            diagnostics.error(where, "*INCLUDE without INPUT=");
            return;
          }
          std::filesystem::path p(input->second);
          if (p.is_relative()) p = std::filesystem::path(path).parent_path() / p;
          try {
            read(p.string());
          } catch (const ModelError& e) {
            diagnostics.error(where, e.what());
          }
        } else if (current.name == "ELEMENT") {
          const std::string type = upper(current.params.count("TYPE") ? current.params["TYPE"] : "");
          if (!readsElementType(type))
            diagnostics.error(where, "element type '" + printableExcerpt(type) +
                                         "' is not read: solid elements (C3D...), MASS and SPRINGA are; CalculiX "
                                         "expands shells and beams into solids whose nodes its matrix files do "
                                         "not locate");
        }
        return;
      }
      data(current, line, where, continued);
    });
    --depth;
  }

  void addToSet(const std::string& set, std::string_view item, const Location& where) {
    setReferences.emplace_back(set, upper(item), where);
  }

  void data(Keyword& k, std::string_view line, const Location& where, bool& continued) {
    const auto fields = splitCommas(line);
    if (k.name == "NODE") {
      int id = 0;
      Vec3 x = Vec3::Zero();
      bool ok = integerField(fields[0], id) && fields.size() <= 4;
      for (std::size_t a = 1; ok && a < fields.size(); ++a) ok = fields[a].empty() || parseFortranDecimal(fields[a], x[a - 1]);
      if (!ok) {
        diagnostics.error(where, "a *NODE line is 'id, x, y, z', not '" + printableExcerpt(line) + "'");
        return;
      }
      const auto [it, fresh] = nodeLine.emplace(id, where.line);
      if (!fresh) {
        diagnostics.error(where, "node " + std::to_string(id) + " is given twice (first on line " +
                                     std::to_string(it->second) + ")");
        return;
      }
      deck.nodeIds.push_back(id);
      deck.nodes.push_back(x);
      if (k.params.count("NSET")) addToSet(upper(k.params["NSET"]), fields[0], where);
    } else if (k.name == "NSET") {
      const std::string set = upper(k.params.count("NSET") ? k.params["NSET"] : "");
      if (set.empty()) {
        diagnostics.error(where, "*NSET without NSET=");
        return;
      }
      deck.nodeSets[set];
      if (k.params.count("GENERATE")) {
        int a = 0, b = 0, step = 1;
        if (fields.size() < 2 || fields.size() > 3 || !integerField(fields[0], a) || !integerField(fields[1], b) ||
            (fields.size() == 3 && !integerField(fields[2], step)) || b < a) {
          diagnostics.error(where, "a *NSET, GENERATE line is 'first, last[, step]', not '" + printableExcerpt(line) + "'");
          return;
        }
        for (int id = a; id <= b; id += step) addToSet(set, std::to_string(id), where);
      } else {
        for (std::string_view f : fields)
          if (!f.empty()) addToSet(set, f, where);
      }
    } else if (k.name == "ELEMENT") {
      if (!continued) ++deck.elementTypes[upper(k.params.count("TYPE") ? k.params["TYPE"] : "")];
      continued = !line.empty() && line.back() == ',';
    }
  }

  /// Resolves the sets' items (node ids or names of sets given before) once the nodes are known.
  void resolveSets() {
    std::map<std::string, std::set<int>> seen;
    for (const auto& [set, item, where] : setReferences) {
      std::vector<int>& nodes = deck.nodeSets[set];
      std::set<int>& inSet = seen[set];  // a lambda may not capture a structured binding before C++20
      auto add = [&nodes, &inSet](int id) {
        if (inSet.insert(id).second) nodes.push_back(id);
      };
      int id = 0;
      if (integerField(item, id)) {
        if (!nodeLine.count(id)) diagnostics.error(where, "set " + set + " names node " + item + ", which is not defined");
        else add(id);
      } else if (item != set && deck.nodeSets.count(item)) {
        for (int n : std::vector<int>(deck.nodeSets[item])) add(n);
      } else {
        diagnostics.error(where, "set " + set + " names '" + printableExcerpt(item) + "', neither a node nor a set");
      }
    }
  }
};

void readTriplets(const std::string& path, int size, std::vector<Eigen::Triplet<double>>& out, Diagnostics& d) {
  const std::string text = readTextFile(path, kMaxMatrixBytes, "CalculiX matrix file");
  bool any = false;
  forEachLine(text, [&](std::string_view line, int lineNo) {
    any = true;
    std::string_view f[3];
    std::size_t n = 0, pos = 0;
    while (pos < line.size() && n < 4) {
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
      const std::size_t end = line.find_first_of(" \t", pos);
      if (pos >= line.size()) break;
      if (n < 3) f[n] = line.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
      ++n;
      pos = end == std::string_view::npos ? line.size() : end;
    }
    int i = 0, j = 0;
    double v = 0.0;
    Location where(path);
    where.line = lineNo;
    if (n != 3 || !integerField(f[0], i) || !integerField(f[1], j) || !parseFortranDecimal(f[2], v)) {
      d.error(where, "a line is 'row column value', not '" + printableExcerpt(line) + "'");
    } else if (i > size || j > size) {
      d.error(where, "row or column " + std::to_string(std::max(i, j)) + " is beyond the " + std::to_string(size) +
                         " rows of the .dof file");
    } else {
      out.emplace_back(i - 1, j - 1, v);
      if (i != j) out.emplace_back(j - 1, i - 1, v);
    }
  });
  if (!any) d.error(Location(path), "the file holds no matrix entries");
}

}  // namespace

CalculixDeck readCalculixDeck(const std::string& path) {
  CalculixDeck deck;
  deck.path = path;
  Diagnostics d;
  DeckReader reader{deck, d, {}, {}, 0};
  reader.read(path);
  reader.resolveSets();
  if (deck.nodes.empty()) d.error(Location(path), "the deck defines no node (*NODE)");
  d.throwIfErrors();
  return deck;
}

CalculixMatrices readCalculixMatrices(const std::string& job) {
  CalculixMatrices m;
  Diagnostics d;
  const std::string dofPath = job + ".dof";
  const std::string text = readTextFile(dofPath, kMaxDeckBytes, "CalculiX degree-of-freedom file");
  forEachLine(text, [&](std::string_view line, int lineNo) {
    const std::size_t dot = line.find('.');
    int node = 0, dir = 0;
    if (dot == std::string_view::npos || !integerField(line.substr(0, dot), node) ||
        !integerField(line.substr(dot + 1), dir) || dir > 6) {
      Location where(dofPath);
      where.line = lineNo;
      d.error(where, "a line is 'node.direction', not '" + printableExcerpt(line) + "'");
      return;
    }
    m.dofs.emplace_back(node, dir);
  });
  if (m.dofs.empty()) d.error(Location(dofPath), "the file names no degree of freedom");
  d.throwIfErrors();
  const int n = static_cast<int>(m.dofs.size());
  std::vector<Eigen::Triplet<double>> k, mass;
  readTriplets(job + ".sti", n, k, d);
  readTriplets(job + ".mas", n, mass, d);
  d.throwIfErrors();
  m.stiffness.resize(n, n);
  m.stiffness.setFromTriplets(k.begin(), k.end());
  m.mass.resize(n, n);
  m.mass.setFromTriplets(mass.begin(), mass.end());
  return m;
}

ModalBody reduceCalculixModel(const CalculixDeck& deck, const CalculixMatrices& matrices,
                              const std::vector<RigidInterface>& interfaces, const FeUnits& units,
                              const ReductionOptions& options) {
  Diagnostics d;
  const Location where(deck.path);
  if (!(units.length > 0) || !(units.mass > 0)) d.error(where, "the units must be positive");
  if (interfaces.empty()) d.error(where, "no interface node set: the body needs at least one");
  std::unordered_map<int, int> nodeIndex;
  for (std::size_t i = 0; i < deck.nodeIds.size(); ++i) nodeIndex[deck.nodeIds[i]] = static_cast<int>(i);

  // Each node's rows of the matrices (x, y, z), from the .dof.
  const int nNodes = static_cast<int>(deck.nodes.size());
  std::vector<std::array<int, 3>> rows(nNodes, {-1, -1, -1});
  for (std::size_t r = 0; r < matrices.dofs.size(); ++r) {
    const auto [node, dir] = matrices.dofs[r];
    const auto it = nodeIndex.find(node);
    if (it == nodeIndex.end()) {
      d.error(where, "the matrices hold node " + std::to_string(node) +
                         ", which the deck does not define (an element's internal node: shells, beams and "
                         "incompatible-mode solids are not read)");
      break;
    }
    if (dir > 3) {
      d.error(where, "the matrices hold a rotation of node " + std::to_string(node) + ": only solid models are read");
      break;
    }
    int& slot = rows[it->second][dir - 1];
    if (slot >= 0) {
      d.error(where, "the matrices hold direction " + std::to_string(dir) + " of node " + std::to_string(node) +
                         " twice: CalculiX expanded shell or beam elements, which are not read");
      break;
    }
    slot = static_cast<int>(r);
  }
  // Interfaces: every node of a set follows its reference node.
  std::vector<int> follows(nNodes, -1);
  for (std::size_t k = 0; k < interfaces.size(); ++k) {
    const std::string name = upper(interfaces[k].set);
    const auto set = deck.nodeSets.find(name);
    if (set == deck.nodeSets.end()) {
      std::string known;
      for (const auto& [s, nodes] : deck.nodeSets) known += (known.empty() ? "" : ", ") + s;
      d.error(where, "interface set '" + printableExcerpt(interfaces[k].set) + "' is not in the deck (its sets: " +
                         (known.empty() ? "none" : known) + ")");
      continue;
    }
    if (set->second.empty()) d.error(where, "interface set " + name + " has no node");
    for (int id : set->second) {
      int& f = follows[nodeIndex.at(id)];
      if (f >= 0) {
        d.error(where, "node " + std::to_string(id) + " is in interface sets " + upper(interfaces[f].set) + " and " + name);
        continue;
      }
      f = static_cast<int>(k);
    }
  }
  d.throwIfErrors();

  // The coupled model's nodes: the reference nodes (six each), then the free nodes (three each).
  const int nb = static_cast<int>(interfaces.size());
  std::vector<Vec3> nodes;
  DofMap dofs;
  for (int k = 0; k < nb; ++k) {
    nodes.push_back(units.length * interfaces[k].position);
    dofs.first.push_back(6 * k);
    dofs.warp.push_back(-1);
    dofs.rotations.push_back(1);
  }
  int next = 6 * nb;
  std::vector<int> newFirst(nNodes, -1);
  for (int i = 0; i < nNodes; ++i) {
    const bool inModel = rows[i][0] >= 0 || rows[i][1] >= 0 || rows[i][2] >= 0;
    if (!inModel) continue;  // a node no element uses
    if (rows[i][0] < 0 || rows[i][1] < 0 || rows[i][2] < 0) {
      d.error(where, "node " + std::to_string(deck.nodeIds[i]) +
                         " lacks a direction in the matrices: the body must be free (no *BOUNDARY, *EQUATION "
                         "or *RIGID BODY in the matrix step)");
      continue;
    }
    if (follows[i] >= 0) continue;
    newFirst[i] = next;
    nodes.push_back(units.length * deck.nodes[i]);
    dofs.first.push_back(next);
    dofs.warp.push_back(-1);
    dofs.rotations.push_back(0);
    next += 3;
  }
  d.throwIfErrors();
  dofs.size = next;

  // x_full = T x_coupled: a follower's translation u_m + theta_m x (X - X_m).
  const int nFull = static_cast<int>(matrices.dofs.size());
  std::vector<Eigen::Triplet<double>> t;
  for (int i = 0; i < nNodes; ++i) {
    if (rows[i][0] < 0) continue;
    if (follows[i] < 0) {
      for (int a = 0; a < 3; ++a) t.emplace_back(rows[i][a], newFirst[i] + a, 1.0);
      continue;
    }
    const int k = follows[i];
    const Mat3 arm = -skew(Vec3(units.length * (deck.nodes[i] - interfaces[k].position)));
    for (int a = 0; a < 3; ++a) {
      t.emplace_back(rows[i][a], 6 * k + a, 1.0);
      for (int b = 0; b < 3; ++b)
        if (arm(a, b) != 0.0) t.emplace_back(rows[i][a], 6 * k + 3 + b, arm(a, b));
    }
  }
  SparseMatrix T(nFull, next);
  T.setFromTriplets(t.begin(), t.end());
  // Stiffness in force / length scales by the mass unit, as the mass does (force = mass length / s^2).
  const SparseMatrix Tt = T.transpose();
  const SparseMatrix K = units.mass * (Tt * (matrices.stiffness * T));
  const SparseMatrix M = units.mass * (Tt * (matrices.mass * T));
  std::vector<int> boundary(6 * nb);
  for (int b = 0; b < 6 * nb; ++b) boundary[b] = b;
  try {
    return floatingFrameBody(K, M, nodes, dofs, boundary, options);
  } catch (const std::invalid_argument& e) {
    throw ModelError(where, std::string("the reduction failed: ") + e.what());
  }
}

}  // namespace ek::fe
