// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/fe/calculix.h"

#include <Eigen/SparseCholesky>

#include <algorithm>
#include <array>
#include <map>
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
  static const std::set<std::string> shells = {"S3", "S4", "S4R", "S6", "S8", "S8R"};
  return type.rfind("C3D", 0) == 0 || type == "MASS" || type == "SPRINGA" || shells.count(type) > 0;
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
                                         "' is not read: solid elements (C3D...), shells (S3, S4, S4R, S6, S8, "
                                         "S8R), MASS and SPRINGA are");
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
  // The expansion report lists the knots as CalculiX makes them, each with its rotation node and
  // then its expansion node numbered next.
  const std::string& report = m.report = job + ".12d";
  if (std::filesystem::exists(report)) {
    const std::string text = readTextFile(report, kMaxDeckBytes, "CalculiX expansion report");
    constexpr std::string_view kKnot = "a KNOT was generated in node";
    forEachLine(text, [&](std::string_view line, int lineNo) {
      const std::size_t at = line.find(kKnot);
      if (at == std::string_view::npos) return;
      int node = 0;
      if (!integerField(trimBlanks(line.substr(at + kKnot.size())), node)) {
        Location where(report);
        where.line = lineNo;
        d.error(where, "a knot line names no node: '" + printableExcerpt(line) + "'");
        return;
      }
      m.knots.push_back(node);
    });
    d.throwIfErrors();
  }
  return m;
}

namespace {

/// A knot: a shell node on a fold, whose copies through the thickness CalculiX ties as a rigid
/// body to the node itself, a rotation node (three small rotations, radians) and an expansion
/// node (one factor on the thickness).
struct Knot {
  int node = -1;                            ///< the deck node's index
  std::array<int, 3> rotation{-1, -1, -1};  ///< rows of the matrices
  int expansion = -1;
};

/// A model with CalculiX's expansion resolved: one point per solid node (a shell node's copies
/// through the thickness each a point at its own position; a knot one point with its rotation and
/// expansion rows), the other internal rows condensed out.
struct CopiedModel {
  std::vector<int> node;                ///< per point: the deck node's index
  std::vector<Vec3> position;           ///< per point, model units
  std::vector<std::array<int, 3>> rows; ///< per point: its rows of stiffness and mass
  std::vector<std::array<int, 4>> knot; ///< per point: its knot's rotation and expansion rows, or -1
  SparseMatrix stiffness, mass;         ///< over the kept rows (internal rows condensed out)
};

/// Resolves the expansion. Internal rows other than knots' (the incompatible modes of C3D8I) are
/// condensed out statically, which is exact for massless degrees of freedom. A copy's position
/// follows from the rigid motions of the model, found without the shell normals or thicknesses:
/// K x = 0 with the mean of a node's copies and each knot's node moving as its deck position
/// (copies are symmetric about the mid-surface), the knots' rows free; then u = theta x p of the
/// rotations gives p, and a knot's rows must come out as the rotation and no expansion.
CopiedModel locateCopies(const CalculixDeck& deck, const CalculixMatrices& m, const std::vector<std::vector<std::array<int, 3>>>& copies,
                         const std::vector<int>& internal, const std::vector<Knot>& knots, const Location& where) {
  CopiedModel out;
  const int nFull = static_cast<int>(m.dofs.size());
  std::vector<int> kept(static_cast<std::size_t>(nFull), -1);
  std::vector<bool> isInternal(static_cast<std::size_t>(nFull), false);
  for (int r : internal) isInternal[static_cast<std::size_t>(r)] = true;
  int nKept = 0;
  for (int r = 0; r < nFull; ++r)
    if (!isInternal[static_cast<std::size_t>(r)]) kept[static_cast<std::size_t>(r)] = nKept++;
  const auto keptRow = [&](int r) { return kept[static_cast<std::size_t>(r)]; };
  if (internal.empty()) {
    out.stiffness = m.stiffness;
    out.mass = m.mass;
  } else {
    std::vector<int> inner(static_cast<std::size_t>(nFull), -1);
    for (std::size_t k = 0; k < internal.size(); ++k) inner[static_cast<std::size_t>(internal[k])] = static_cast<int>(k);
    const int nu = static_cast<int>(internal.size());
    std::vector<Eigen::Triplet<double>> cc, cu, uu, mc;
    double massScale = 0.0, internalMass = 0.0;
    for (int c = 0; c < m.mass.outerSize(); ++c)
      for (SparseMatrix::InnerIterator it(m.mass, c); it; ++it) {
        massScale = std::max(massScale, std::abs(it.value()));
        if (isInternal[static_cast<std::size_t>(it.row())] || isInternal[static_cast<std::size_t>(it.col())])
          internalMass = std::max(internalMass, std::abs(it.value()));
        else
          mc.emplace_back(keptRow(static_cast<int>(it.row())), keptRow(static_cast<int>(it.col())), it.value());
      }
    if (internalMass > 1e-12 * massScale)
      throw ModelError(where, "the matrices give mass to nodes the deck does not define (the incompatible modes of "
                              "C3D8I, into which CalculiX expands S4 shells); they cannot be condensed out: use S4R "
                              "or S8R shells");
    for (int c = 0; c < m.stiffness.outerSize(); ++c)
      for (SparseMatrix::InnerIterator it(m.stiffness, c); it; ++it) {
        const auto r = static_cast<std::size_t>(it.row()), col = static_cast<std::size_t>(it.col());
        if (!isInternal[r] && !isInternal[col]) cc.emplace_back(kept[r], kept[col], it.value());
        else if (!isInternal[r]) cu.emplace_back(kept[r], inner[col], it.value());
        else if (isInternal[r] && isInternal[col]) uu.emplace_back(inner[r], inner[col], it.value());
      }
    SparseMatrix Kcc(nKept, nKept), Kcu(nKept, nu), Kuu(nu, nu);
    Kcc.setFromTriplets(cc.begin(), cc.end());
    Kcu.setFromTriplets(cu.begin(), cu.end());
    Kuu.setFromTriplets(uu.begin(), uu.end());
    Eigen::SimplicialLDLT<SparseMatrix> ldlt(Kuu);
    if (ldlt.info() != Eigen::Success || !(ldlt.vectorD().minCoeff() > 0.0))
      throw ModelError(where, "the stiffness of the nodes the deck does not define (incompatible modes) is singular");
    const SparseMatrix Kuc = Kcu.transpose();
    const SparseMatrix X = ldlt.solve(Kuc);
    out.stiffness = Kcc - Kcu * X;
    out.mass.resize(nKept, nKept);
    out.mass.setFromTriplets(mc.begin(), mc.end());
  }

  // The points, and the unknowns of the rigid motions: per node with c copies and direction,
  // c - 1 offsets y (the last copy's is minus their sum); per knot its four rows.
  std::vector<int> knotOf(copies.size(), -1);
  for (std::size_t k = 0; k < knots.size(); ++k) knotOf[static_cast<std::size_t>(knots[k].node)] = static_cast<int>(k);
  std::vector<Eigen::Triplet<double>> ty;
  int ny = 0;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const auto& list = copies[i];
    for (const auto& c : list) {
      if (c[0] < 0 || c[1] < 0 || c[2] < 0)
        throw ModelError(where, "node " + std::to_string(deck.nodeIds[i]) +
                                    " lacks a direction in the matrices: the body must be free (no *BOUNDARY, *EQUATION "
                                    "or *RIGID BODY in the matrix step)");
      out.node.push_back(static_cast<int>(i));
      out.position.push_back(deck.nodes[i]);
      out.rows.push_back({keptRow(c[0]), keptRow(c[1]), keptRow(c[2])});
      std::array<int, 4> knot{-1, -1, -1, -1};
      if (knotOf[i] >= 0) {
        const Knot& k = knots[static_cast<std::size_t>(knotOf[i])];
        knot = {keptRow(k.rotation[0]), keptRow(k.rotation[1]), keptRow(k.rotation[2]), keptRow(k.expansion)};
        for (int row : knot) ty.emplace_back(row, ny++, 1.0);
      }
      out.knot.push_back(knot);
    }
    if (list.size() < 2) continue;
    const int n = static_cast<int>(list.size());
    for (int a = 0; a < 3; ++a)
      for (int j = 0; j + 1 < n; ++j) {
        ty.emplace_back(keptRow(list[static_cast<std::size_t>(j)][a]), ny, 1.0);
        ty.emplace_back(keptRow(list[static_cast<std::size_t>(n - 1)][a]), ny, -1.0);
        ++ny;
      }
  }
  if (ny == 0) return out;  // a solid model: every node where the deck puts it
  SparseMatrix T(nKept, ny);
  T.setFromTriplets(ty.begin(), ty.end());
  const SparseMatrix A = SparseMatrix(T.transpose()) * (out.stiffness * T);
  Eigen::SimplicialLDLT<SparseMatrix> ldlt(A);
  if (ldlt.info() != Eigen::Success || !(ldlt.vectorD().minCoeff() > 0.0))
    throw ModelError(where, "the shell nodes' copies through the thickness cannot be located (singular stiffness)");
  MatX x0 = MatX::Zero(nKept, 6);
  for (std::size_t p = 0; p < out.rows.size(); ++p)
    for (int k = 0; k < 6; ++k) {
      Vec3 a = Vec3::Zero(), th = Vec3::Zero();
      if (k < 3) a[k] = 1.0;
      else th[k - 3] = 1.0;
      const Vec3 u = a + th.cross(out.position[p]);
      for (int d = 0; d < 3; ++d) x0(out.rows[p][static_cast<std::size_t>(d)], k) = u[d];
    }
  const MatX y = ldlt.solve(-(SparseMatrix(T.transpose()) * (out.stiffness * x0)));
  const MatX R = x0 + T * y;
  const double residual = (out.stiffness * R).norm(), scale = out.stiffness.norm() * R.norm();
  if (!(residual <= 1e-8 * scale))
    throw ModelError(where, "the shell nodes' copies through the thickness cannot be located (the rigid motions leave " +
                                significant(residual / scale, 3) + " of the stiffness)");
  for (std::size_t p = 0; p < out.rows.size(); ++p) {
    // u = theta x p: p_x from the y row under theta_z, p_y from the z row under theta_x, p_z from the x row under theta_y.
    const auto& r = out.rows[p];
    out.position[p] = Vec3(R(r[1], 5), R(r[2], 3), R(r[0], 4));
    // A knot's rotation node turns with the body; its expansion stays zero.
    const auto& k = out.knot[p];
    if (k[0] < 0) continue;
    Eigen::Matrix<double, 4, 6> expected = Eigen::Matrix<double, 4, 6>::Zero(), got;
    expected.block<3, 3>(0, 3).setIdentity();
    for (int row = 0; row < 4; ++row) got.row(row) = R.row(k[static_cast<std::size_t>(row)]);
    if (!((got - expected).cwiseAbs().maxCoeff() <= 1e-6))
      throw ModelError(where, "the knot at node " + std::to_string(deck.nodeIds[static_cast<std::size_t>(out.node[p])]) +
                                  ": its rotation and expansion nodes in the matrices do not move as a knot's (" +
                                  significant((got - expected).cwiseAbs().maxCoeff(), 3) +
                                  " off); the knots of the .12d file do not fit the matrices");
  }
  return out;
}

}  // namespace

ModalBody reduceCalculixModel(const CalculixDeck& deck, const CalculixMatrices& matrices,
                              const std::vector<RigidInterface>& interfaces, const FeUnits& units,
                              const ReductionOptions& options) {
  Diagnostics d;
  const Location where(deck.path);
  if (!(units.length > 0) || !(units.mass > 0)) d.error(where, "the units must be positive");
  if (interfaces.empty()) d.error(where, "no interface node set: the body needs at least one");
  std::unordered_map<int, int> nodeIndex;
  for (std::size_t i = 0; i < deck.nodeIds.size(); ++i) nodeIndex[deck.nodeIds[i]] = static_cast<int>(i);

  // The matrices' rows (node, direction) from the .dof. CalculiX expands a shell node into two or
  // three solid nodes through the thickness, each listed under the original number ("copies", in
  // .dof order), and adds nodes of its own that the deck does not define ("internal"): the
  // incompatible modes of C3D8I, and per knot a rotation node (three rows) with its expansion node
  // numbered next (one row), made in the order the .12d file lists the knots.
  const int nFullRows = static_cast<int>(matrices.dofs.size());
  std::map<int, std::vector<std::pair<int, int>>> internalNodes;  // id -> (direction, row)
  std::vector<std::vector<std::array<int, 3>>> copies(deck.nodes.size());
  for (int r = 0; r < nFullRows; ++r) {
    const auto [node, dir] = matrices.dofs[static_cast<std::size_t>(r)];
    if (dir < 1 || dir > 3) {
      d.error(where, "the matrices hold direction " + std::to_string(dir) + " of node " + std::to_string(node) +
                         ": beam elements and rotations are not read");
      break;
    }
    const auto it = nodeIndex.find(node);
    if (it == nodeIndex.end()) {
      internalNodes[node].emplace_back(dir, r);
      continue;
    }
    auto& list = copies[static_cast<std::size_t>(it->second)];
    std::size_t j = 0;
    while (j < list.size() && list[j][dir - 1] >= 0) ++j;
    if (j == list.size()) list.push_back({-1, -1, -1});
    list[j][dir - 1] = r;
  }
  d.throwIfErrors();
  std::vector<Knot> knots;
  std::vector<int> internal;
  std::size_t pairs = 0;  // rotation nodes with an expansion node numbered next
  for (auto it = internalNodes.begin(); it != internalNodes.end(); ++it) {
    const auto next = std::next(it);
    const bool rotationNode = it->second.size() == 3 && next != internalNodes.end() && next->first == it->first + 1 &&
                              next->second.size() == 1 && next->second[0].first == 1;
    if (!rotationNode) {
      for (const auto& [dir, row] : it->second) internal.push_back(row);
      continue;
    }
    if (pairs++ >= matrices.knots.size()) continue;
    const int id = matrices.knots[knots.size()];
    const auto deckNode = nodeIndex.find(id);
    if (deckNode == nodeIndex.end() || copies[static_cast<std::size_t>(deckNode->second)].size() != 1) {
      d.error(where, matrices.report + " makes node " + std::to_string(id) +
                         " a knot, but the matrices do not hold it as one (a deck node with one set of rows)");
      break;
    }
    Knot k;
    k.node = deckNode->second;
    for (const auto& [dir, row] : it->second) k.rotation[static_cast<std::size_t>(dir - 1)] = row;
    k.expansion = next->second[0].second;
    knots.push_back(k);
    it = next;
  }
  if (pairs != matrices.knots.size())
    d.error(where, "the matrices hold " + std::to_string(pairs) +
                       " knots (a rotation node of three rows, an expansion node of one numbered next), " +
                       matrices.report + " lists " + std::to_string(matrices.knots.size()) +
                       ": keep the .12d file CalculiX wrote with the matrices");
  std::sort(internal.begin(), internal.end());
  d.throwIfErrors();
  // Interfaces: every node of a set follows its reference node.
  std::vector<int> follows(deck.nodes.size(), -1);
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
  const CopiedModel expanded = locateCopies(deck, matrices, copies, internal, knots, where);

  // The coupled model's nodes: the reference nodes (six each), then the free points (three each;
  // a knot six, its rotation node's, and its expansion as the node's extra degree of freedom).
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
  const int nPoints = static_cast<int>(expanded.rows.size());
  std::vector<int> newFirst(static_cast<std::size_t>(nPoints), -1);
  for (int p = 0; p < nPoints; ++p) {
    if (follows[static_cast<std::size_t>(expanded.node[static_cast<std::size_t>(p)])] >= 0) continue;
    newFirst[static_cast<std::size_t>(p)] = next;
    nodes.push_back(units.length * expanded.position[static_cast<std::size_t>(p)]);
    dofs.first.push_back(next);
    const bool knot = expanded.knot[static_cast<std::size_t>(p)][0] >= 0;
    dofs.warp.push_back(knot ? next + 6 : -1);
    dofs.rotations.push_back(knot ? 1 : 0);
    next += knot ? 7 : 3;
  }
  dofs.size = next;

  // x_full = T x_coupled: a follower's translation u_m + theta_m x (X - X_m), its knot's rotation
  // theta_m and no expansion. The model's rows are in model units; the coupled ones SI. Translations
  // scale with the mass unit below (energy / length^2); a knot's rows are without dimension, so
  // their entries carry the length unit (energy = mass unit length unit^2 x model energy).
  const int nFull = static_cast<int>(expanded.stiffness.rows());
  std::vector<Eigen::Triplet<double>> t;
  for (int p = 0; p < nPoints; ++p) {
    const auto& r = expanded.rows[static_cast<std::size_t>(p)];
    const auto& knot = expanded.knot[static_cast<std::size_t>(p)];
    const int k = follows[static_cast<std::size_t>(expanded.node[static_cast<std::size_t>(p)])];
    if (k < 0) {
      const int first = newFirst[static_cast<std::size_t>(p)];
      for (int a = 0; a < 3; ++a) t.emplace_back(r[static_cast<std::size_t>(a)], first + a, 1.0);
      if (knot[0] >= 0)
        for (int a = 0; a < 4; ++a) t.emplace_back(knot[static_cast<std::size_t>(a)], first + 3 + a, units.length);
      continue;
    }
    if (knot[0] >= 0)
      for (int a = 0; a < 3; ++a) t.emplace_back(knot[static_cast<std::size_t>(a)], 6 * k + 3 + a, units.length);
    const Mat3 arm = -skew(Vec3(units.length * (expanded.position[static_cast<std::size_t>(p)] - interfaces[k].position)));
    for (int a = 0; a < 3; ++a) {
      t.emplace_back(r[static_cast<std::size_t>(a)], 6 * k + a, 1.0);
      for (int b = 0; b < 3; ++b)
        if (arm(a, b) != 0.0) t.emplace_back(r[static_cast<std::size_t>(a)], 6 * k + 3 + b, arm(a, b));
    }
  }
  SparseMatrix T(nFull, next);
  T.setFromTriplets(t.begin(), t.end());
  // Stiffness in force / length scales by the mass unit, as the mass does (force = mass length / s^2).
  const SparseMatrix Tt = T.transpose();
  const SparseMatrix K = units.mass * (Tt * (expanded.stiffness * T));
  const SparseMatrix M = units.mass * (Tt * (expanded.mass * T));
  std::vector<int> boundary(6 * nb);
  for (int b = 0; b < 6 * nb; ++b) boundary[b] = b;
  try {
    return floatingFrameBody(K, M, nodes, dofs, boundary, options);
  } catch (const std::invalid_argument& e) {
    throw ModelError(where, std::string("the reduction failed: ") + e.what());
  }
}

}  // namespace ek::fe
