// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/fe/sid.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/core/text_file.h"

namespace ek::fe {
namespace {

constexpr std::uintmax_t kMaxSidBytes = 2ull << 30;
constexpr double kMaxEntries = 5e7;  // numbers of one block: a size beyond this is a broken header

const std::array<const char*, 11> kBodyBlocks = {"mdCM", "J", "Ct", "Cr", "Me", "Gr", "Ge", "Oe", "ksigma", "Ke", "De"};
const std::array<const char*, 5> kNodeBlocks = {"origin", "phi", "psi", "AP", "sigma"};

/// The block's name as the format spells it, matched in any case ("" when none).
template <std::size_t N>
std::string canonical(const std::array<const char*, N>& names, std::string_view word) {
  for (const char* n : names)
    if (asciiLower(std::string(word)) == asciiLower(n)) return n;
  return {};
}

/// The size a block must have for n modes.
std::pair<int, int> expectedSize(const std::string& name, int n) {
  if (name == "mdCM" || name == "origin") return {3, 1};
  if (name == "J" || name == "AP") return {3, 3};
  if (name == "Ct" || name == "Cr") return {n, 3};
  if (name == "Me" || name == "Ke" || name == "De") return {n, n};
  if (name == "Gr") return {3, 3 * n};
  if (name == "Ge") return {n, 3 * n};
  if (name == "Oe") return {n, 6};
  if (name == "ksigma") return {n, 1};
  if (name == "sigma") return {6, 1};
  return {3, n};  // phi, psi
}

/// A Taylor block while it is read: its header, then its entries.
struct TaylorReader {
  std::string name;
  SidTaylor t;
  std::set<std::string> keys;
  std::map<std::array<int, 3>, std::pair<double, bool>> given;  // (i, j, k or 0) -> value, set explicitly
  bool sized = false;   ///< the header was checked (at the first entry or the block's end)
  bool sizeOk = false;  ///< and it was good: the entries can be placed
};

struct Parser {
  Parser(const std::string& path_, Diagnostics& d_) : path(path_), d(d_) {}
  const std::string& path;
  Diagnostics& d;
  SidFile sid;
  enum class Ctx { Top, Part, Modal, Refmod, Frame, Node, Taylor };
  std::vector<Ctx> stack{Ctx::Top};
  std::optional<TaylorReader> taylor;
  std::optional<SidNode> node;
  std::set<std::string> refmodKeys;
  int headerNodes = -1, headerModes = -1, headerLine = 0, refmodLine = 0, partLine = 0, modalLine = 0;
  bool seenPart = false, seenModal = false, seenRefmod = false, seenFrame = false;

  Location at(int line) const {
    Location w(path);
    w.line = line;
    return w;
  }
  Ctx ctx() const { return stack.back(); }

  void line(std::string_view raw, int no) {
    if (const auto bang = raw.find('!'); bang != std::string_view::npos) raw = raw.substr(0, bang);
    const std::string_view text = trimBlanks(raw);
    if (text.empty()) return;
    const std::string lower = asciiLower(std::string(text));
    if (!seenPart && ctx() == Ctx::Top && headerLine == 0 && (std::isdigit(static_cast<unsigned char>(text.front())))) {
      header(text, no);
      return;
    }
    if (ctx() == Ctx::Taylor) return taylorLine(text, lower, no);
    const auto eq = text.find('=');
    const std::string word = asciiLower(std::string(trimBlanks(text.substr(0, text.find_first_of(" \t=(")))));
    if (word == "end") return endLine(lower, no);
    switch (ctx()) {
      case Ctx::Top:
        if (lower == "part") {
          if (seenPart) d.error(at(no), "a second 'part': a file holds one body");
          seenPart = true;
          partLine = no;
          stack.push_back(Ctx::Part);
        } else {
          d.error(at(no), "expected 'part', found '" + printableExcerpt(text) + "'");
        }
        return;
      case Ctx::Part:
        if (lower == "new modal" || lower == "modal") {
          if (seenModal) d.error(at(no), "a second 'modal' block");
          seenModal = true;
          modalLine = no;
          stack.push_back(Ctx::Modal);
        } else {
          d.error(at(no), "expected 'new modal', found '" + printableExcerpt(text) + "'");
        }
        return;
      case Ctx::Modal:
        if (lower == "refmod") {
          if (seenRefmod) d.error(at(no), "a second 'refmod' block");
          seenRefmod = true;
          refmodLine = no;
          stack.push_back(Ctx::Refmod);
        } else if (lower == "frame" || lower == "new frame") {
          if (seenFrame) d.error(at(no), "a second 'frame' block");
          seenFrame = true;
          stack.push_back(Ctx::Frame);
        } else if (const std::string b = canonical(kBodyBlocks, text); !b.empty()) {
          startTaylor(b, no);
        } else {
          d.error(at(no), "unknown block '" + printableExcerpt(text) +
                              "' (a modal block holds refmod, frame, mdCM, J, Ct, Cr, Me, Gr, Ge, Oe, ksigma, Ke, De)");
        }
        return;
      case Ctx::Refmod:
        return refmodLine_(text, word, eq, no);
      case Ctx::Frame:
        if (word == "new" && lower.rfind("new node", 0) == 0 && eq != std::string_view::npos) {
          long long id = 0;
          if (!parseInteger(trimBlanks(text.substr(eq + 1)), id, 0, 2147483647)) {
            d.error(at(no), "a node id must be a whole number, found '" + printableExcerpt(trimBlanks(text.substr(eq + 1))) + "'");
            id = -1;
          }
          for (const SidNode& n : sid.nodes)
            if (n.id == id && id >= 0) d.error(at(no), "node " + std::to_string(id) + " is given twice (first at line " + std::to_string(n.line) + ")");
          node = SidNode();
          node->id = static_cast<int>(id);
          node->line = no;
          stack.push_back(Ctx::Node);
        } else {
          d.error(at(no), "expected 'new node = ID' or 'end frame', found '" + printableExcerpt(text) + "'");
        }
        return;
      case Ctx::Node:
        if (word == "rframe" && eq != std::string_view::npos) {
          node->rframe = std::string(trimBlanks(text.substr(eq + 1)));
        } else if (const std::string b = canonical(kNodeBlocks, text); !b.empty()) {
          startTaylor(b, no);
        } else {
          d.error(at(no), "unknown entry '" + printableExcerpt(text) + "' in a node (rframe, origin, phi, psi, AP, sigma)");
        }
        return;
      case Ctx::Taylor:
        return;
    }
  }

  void header(std::string_view text, int no) {
    headerLine = no;
    std::vector<long long> ints;
    std::size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
      std::size_t j = i;
      while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
      long long v = 0;
      if (j == i || !parseInteger(text.substr(i, j - i), v, 0, 2147483647)) break;
      ints.push_back(v);
      i = j;
    }
    if (ints.size() < 2) {
      d.error(at(no), "a first line of numbers names the nodes and the modes: two whole numbers, found '" +
                          printableExcerpt(text) + "'");
      return;
    }
    headerNodes = static_cast<int>(ints[0]);
    headerModes = static_cast<int>(ints[1]);
  }

  void refmodLine_(std::string_view text, const std::string& word, std::size_t eq, int no) {
    if (eq == std::string_view::npos) {
      d.error(at(no), "expected KEY = VALUE in refmod, found '" + printableExcerpt(text) + "'");
      return;
    }
    const std::string_view value = trimBlanks(text.substr(eq + 1));
    if (word == "mass") {
      refmodKeys.insert(word);
      if (!parseFortranDecimal(value, sid.mass)) d.error(at(no), "mass is not a number: '" + printableExcerpt(value) + "'");
    } else if (word == "nelastq") {
      refmodKeys.insert(word);
      long long n = 0;
      if (!parseInteger(value, n, 0, 10000)) d.error(at(no), "nelastq must be a whole number from 0 to 10000, found '" + printableExcerpt(value) + "'");
      else sid.nelastq = static_cast<int>(n);
      sid.ielastq.resize(static_cast<std::size_t>(sid.nelastq));
    } else if (word == "ielastq") {
      const auto open = text.find('('), close = text.find(')');
      long long k = 0;
      if (open == std::string_view::npos || close == std::string_view::npos || close > eq ||
          !parseInteger(trimBlanks(text.substr(open + 1, close - open - 1)), k, 1, 10000))
        d.error(at(no), "expected ielastq(K) = NAME, found '" + printableExcerpt(text) + "'");
      else if (k > static_cast<long long>(sid.ielastq.size()))
        d.error(at(no), "ielastq(" + std::to_string(k) + ") beyond nelastq = " + std::to_string(sid.ielastq.size()));
      else
        sid.ielastq[static_cast<std::size_t>(k - 1)] = std::string(value);
    } else {
      d.error(at(no), "unknown key '" + printableExcerpt(word) + "' in refmod (mass, nelastq, ielastq)");
    }
  }

  void startTaylor(const std::string& name, int no) {
    const auto& blocks = ctx() == Ctx::Node ? node->blocks : sid.blocks;
    if (const auto it = blocks.find(name); it != blocks.end())
      d.error(at(no), "block " + name + " is given twice (first at line " + std::to_string(it->second.line) + ")");
    taylor = TaylorReader();
    taylor->name = name;
    taylor->t.line = no;
    stack.push_back(Ctx::Taylor);
  }

  void taylorLine(std::string_view text, const std::string& lower, int no) {
    TaylorReader& r = *taylor;
    if (lower.rfind("end", 0) == 0 && (lower.size() == 3 || lower[3] == ' ' || lower[3] == '\t')) {
      const std::string closing = std::string(trimBlanks(text.substr(3)));
      if (asciiLower(closing) != asciiLower(r.name))
        d.error(at(no), "'" + printableExcerpt(text) + "' inside block " + r.name + " (opened at line " +
                            std::to_string(r.t.line) + "): expected 'end " + r.name + "'");
      finishTaylor();
      return;
    }
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) {
      d.error(at(no), "expected KEY = VALUE or an entry in block " + r.name + ", found '" + printableExcerpt(text) + "'");
      return;
    }
    const std::string key = asciiLower(std::string(trimBlanks(text.substr(0, std::min(eq, text.find('('))))));
    const std::string_view value = trimBlanks(text.substr(eq + 1));
    if (key == "order" || key == "nrow" || key == "ncol" || key == "nq" || key == "nqn" || key == "structure") {
      if (r.sized) {
        d.error(at(no), key + " after the block's entries");
        return;
      }
      long long v = 0;
      if (!parseInteger(value, v, 0, 1000000)) {
        d.error(at(no), key + " must be a whole number, found '" + printableExcerpt(value) + "'");
        return;
      }
      if (!r.keys.insert(key).second) d.error(at(no), key + " is given twice in block " + r.name);
      int& field = key == "order" ? r.t.order : key == "nrow" ? r.t.nrow : key == "ncol" ? r.t.ncol
                                              : key == "nq"    ? r.t.nq    : key == "nqn"  ? r.t.nqn : r.t.structure;
      field = static_cast<int>(v);
      if (key == "order" && v > 1)
        d.error(at(no), "order " + std::to_string(v) + ": Elastokin reads Taylor blocks of order 0 and 1");
      if (key == "nqn" && v != 0) d.error(at(no), "nqn " + std::to_string(v) + ": higher-order terms are not read (nqn must be 0)");
      if (key == "structure" && v > 4)
        d.error(at(no), "structure " + std::to_string(v) + " is not one of 0 (zero), 1 (diagonal), 2 (symmetric), 3 (full), 4 (unit)");
      return;
    }
    if (key != "m0" && key != "m1") {
      d.error(at(no), "unknown key '" + printableExcerpt(key) + "' in block " + r.name +
                          " (order, nrow, ncol, nq, nqn, structure, m0, m1)");
      return;
    }
    if (!size(r, no)) return;
    const auto open = text.find('('), close = text.find(')');
    std::array<int, 3> idx{0, 0, 0};
    const int want = key == "m0" ? 2 : 3;
    int got = 0;
    bool ok = open != std::string_view::npos && close != std::string_view::npos && open < close && close < eq;
    if (ok) {
      std::string_view inside = text.substr(open + 1, close - open - 1);
      while (ok && !inside.empty()) {
        const auto comma = inside.find(',');
        long long v = 0;
        if (got >= 3 || !parseInteger(trimBlanks(inside.substr(0, comma)), v, 1, 1000000)) ok = false;
        else idx[static_cast<std::size_t>(got++)] = static_cast<int>(v);
        inside = comma == std::string_view::npos ? std::string_view() : inside.substr(comma + 1);
      }
    }
    if (!ok || got != want) {
      d.error(at(no), "expected " + key + (want == 2 ? "( ROW, COLUMN)" : "( ROW, COLUMN, MODE)") + " = VALUE, found '" +
                          printableExcerpt(text) + "'");
      return;
    }
    double v = 0.0;
    if (!parseFortranDecimal(value, v)) {
      d.error(at(no), "not a number: '" + printableExcerpt(value) + "'");
      return;
    }
    const SidTaylor& t = r.t;
    if (idx[0] > t.nrow || idx[1] > t.ncol || (want == 3 && idx[2] > t.nq)) {
      d.error(at(no), key + "(" + std::to_string(idx[0]) + ", " + std::to_string(idx[1]) +
                          (want == 3 ? ", " + std::to_string(idx[2]) : "") + ") is outside block " + r.name + "'s " +
                          std::to_string(t.nrow) + " x " + std::to_string(t.ncol) +
                          (want == 3 ? " x " + std::to_string(t.nq) : "") + " (row, column" + (want == 3 ? ", mode)" : ")"));
      return;
    }
    if (want == 3 && t.order < 1) {
      d.error(at(no), "an m1 entry in block " + r.name + " of order 0");
      return;
    }
    if (t.structure == 0 || t.structure == 4) {
      d.error(at(no), "block " + r.name + " has structure " + std::to_string(t.structure) + " (" +
                          (t.structure == 0 ? "zero" : "unit") + " matrix) and takes no entries");
      return;
    }
    if (t.structure == 1 && idx[0] != idx[1]) {
      d.error(at(no), "block " + r.name + " is diagonal (structure 1): " + key + "(" + std::to_string(idx[0]) + ", " +
                          std::to_string(idx[1]) + ") is off the diagonal");
      return;
    }
    const std::array<int, 3> k{idx[0], idx[1], want == 3 ? idx[2] : 0};
    const auto [it, fresh] = r.given.try_emplace(k, v, true);
    if (!fresh && it->second.second) {
      d.error(at(no), key + " entry given twice in block " + r.name);
      return;
    }
    if (!fresh && it->second.first != v) {
      d.error(at(no), "block " + r.name + " is symmetric (structure 2) but this entry differs from its mirror");
      return;
    }
    it->second = {v, true};
    if (t.structure == 2 && k[0] != k[1]) {
      const std::array<int, 3> m{k[1], k[0], k[2]};
      const auto [mt, mfresh] = r.given.try_emplace(m, v, false);
      if (!mfresh && mt->second.first != v)
        d.error(at(no), "block " + r.name + " is symmetric (structure 2) but this entry differs from its mirror");
    }
  }

  /// Checks the header when the first entry comes (or at the block's end) and sizes the block.
  bool size(TaylorReader& r, int no) {
    if (r.sized) return r.sizeOk;
    r.sized = true;
    SidTaylor& t = r.t;
    for (const char* k : {"order", "nrow", "ncol", "structure"})
      if (!r.keys.count(k)) {
        d.error(at(no), "block " + r.name + " has no " + k + " before its entries");
        return false;
      }
    if (t.nrow < 1 || t.ncol < 1 || (t.order == 1 && t.nq < 1) ||
        static_cast<double>(t.nrow) * t.ncol * (1.0 + (t.order == 1 ? t.nq : 0)) > kMaxEntries) {
      d.error(at(no), "block " + r.name + " cannot be " + std::to_string(t.nrow) + " x " + std::to_string(t.ncol) +
                          (t.order == 1 ? " x " + std::to_string(t.nq) : std::string()));
      return false;
    }
    if ((t.structure == 2 || t.structure == 4 || t.structure == 1) && t.nrow != t.ncol) {
      d.error(at(no), "block " + r.name + " has structure " + std::to_string(t.structure) + " but is not square (" +
                          std::to_string(t.nrow) + " x " + std::to_string(t.ncol) + ")");
      return false;
    }
    r.sizeOk = true;
    return true;
  }

  void finishTaylor() {
    stack.pop_back();
    TaylorReader r = std::move(*taylor);
    taylor.reset();
    if (!size(r, r.t.line)) return;
    SidTaylor& t = r.t;
    t.m0 = t.structure == 4 ? MatX(MatX::Identity(t.nrow, t.ncol)) : MatX(MatX::Zero(t.nrow, t.ncol));
    t.m1.assign(t.order == 1 ? static_cast<std::size_t>(t.nq) : 0u, MatX::Zero(t.nrow, t.ncol));
    for (const auto& [k, v] : r.given) {
      if (k[2] == 0) t.m0(k[0] - 1, k[1] - 1) = v.first;
      else if (k[2] <= static_cast<int>(t.m1.size())) t.m1[static_cast<std::size_t>(k[2] - 1)](k[0] - 1, k[1] - 1) = v.first;
    }
    auto& blocks = ctx() == Ctx::Node ? node->blocks : sid.blocks;
    blocks[r.name] = std::move(t);
  }

  void endLine(const std::string& lower, int no) {
    const std::string what = std::string(trimBlanks(std::string_view(lower).substr(3)));
    auto expect = [&](Ctx c) {
      if (ctx() != c) {
        d.error(at(no), "'end " + what + "' without its block");
        return false;
      }
      stack.pop_back();
      return true;
    };
    if (what == "part") expect(Ctx::Part);
    else if (what == "modal") expect(Ctx::Modal);
    else if (what == "refmod") expect(Ctx::Refmod);
    else if (what == "frame") expect(Ctx::Frame);
    else if (what == "node") {
      if (expect(Ctx::Node)) {
        sid.nodes.push_back(std::move(*node));
        node.reset();
      }
    } else
      d.error(at(no), "'end " + what + "' does not close a block here");
  }

  void finish(int lastLine) {
    if (taylor) d.error(at(taylor->t.line), "block " + taylor->name + " is not closed ('end " + taylor->name + "' missing)");
    else if (stack.size() > 1) d.error(at(lastLine), "the file ends inside a block (an 'end' line is missing)");
    if (!seenPart) {
      d.error(Location(path), "no 'part': not a SID file");
      return;
    }
    if (!seenRefmod) d.error(at(modalLine), "no refmod block (mass, nelastq)");
    for (const char* k : {"mass", "nelastq"})
      if (seenRefmod && !refmodKeys.count(k)) d.error(at(refmodLine), std::string("refmod has no ") + k);
    if (sid.nodes.empty()) d.error(at(modalLine), "no node in the frame block");
    const int n = sid.nelastq;
    auto checkSize = [&](const std::string& name, const SidTaylor& t) {
      const auto [rows, cols] = expectedSize(name, n);
      if (t.nrow != rows || t.ncol != cols)
        d.error(at(t.line), "block " + name + " is " + std::to_string(t.nrow) + " x " + std::to_string(t.ncol) +
                                "; with nelastq = " + std::to_string(n) + " it must be " + std::to_string(rows) + " x " +
                                std::to_string(cols));
      if (t.order == 1 && t.nq != n)
        d.error(at(t.line), "block " + name + " has nq = " + std::to_string(t.nq) + " but nelastq = " + std::to_string(n));
    };
    for (const auto& [name, t] : sid.blocks) checkSize(name, t);
    for (const char* k : {"mdCM", "J", "Ct", "Cr", "Me", "Ke"})
      if (!sid.blocks.count(k)) d.error(at(modalLine), std::string("no block ") + k + " (Elastokin needs mdCM, J, Ct, Cr, Me and Ke)");
    for (const SidNode& nd : sid.nodes) {
      for (const auto& [name, t] : nd.blocks) checkSize(name, t);
      for (const char* k : {"origin", "phi"})
        if (!nd.blocks.count(k)) d.error(at(nd.line), "node " + std::to_string(nd.id) + " has no " + k);
    }
    if (headerLine > 0 && headerNodes != static_cast<int>(sid.nodes.size()))
      d.error(at(headerLine), "the first line names " + std::to_string(headerNodes) + " nodes; the file has " +
                                  std::to_string(sid.nodes.size()));
    if (headerLine > 0 && headerModes != n)
      d.error(at(headerLine), "the first line names " + std::to_string(headerModes) + " modes; nelastq is " + std::to_string(n));
  }
};

/// "1.2345678901234567D+01": 17 significant digits, Fortran's exponent letter.
std::string fortran(double v) {
  std::string s = cformat("%.16E", v == 0.0 ? 0.0 : v);
  if (const auto e = s.find('E'); e != std::string::npos) s[e] = 'D';
  return s;
}

void writeTaylor(std::string& out, const std::string& indent, const std::string& name, const SidTaylor& t) {
  out += indent + name + "\n";
  const std::string in = indent + "   ";
  out += cformat("%sorder = %d\n%snrow = %d\n%sncol = %d\n%snq = %d\n%snqn = %d\n%sstructure = %d\n", in.c_str(), t.order,
                 in.c_str(), t.nrow, in.c_str(), t.ncol, in.c_str(), t.nq, in.c_str(), t.nqn, in.c_str(), t.structure);
  auto wanted = [&](int i, int j) { return t.structure == 3 || (t.structure == 2 && j <= i) || (t.structure == 1 && i == j); };
  if (t.structure != 0 && t.structure != 4) {
    for (int i = 0; i < t.nrow; ++i)
      for (int j = 0; j < t.ncol; ++j)
        if (wanted(i, j)) out += cformat("%sm0( %d, %d) = %s\n", in.c_str(), i + 1, j + 1, fortran(t.m0(i, j)).c_str());
    for (std::size_t k = 0; k < t.m1.size(); ++k)
      for (int i = 0; i < t.nrow; ++i)
        for (int j = 0; j < t.ncol; ++j)
          if (wanted(i, j) && t.m1[k](i, j) != 0.0)
            out += cformat("%sm1( %d, %d, %zu) = %s\n", in.c_str(), i + 1, j + 1, k + 1, fortran(t.m1[k](i, j)).c_str());
  }
  out += indent + "end " + name + "\n";
}

/// The rigid-body part of modes that are not free-floating (an attached frame: Craig-Bampton
/// modes of a body held at an interface, or any mode set not orthogonalized to the rigid motions).
/// Mode k's momentum at rest is Ct_k (translation) and Cr_k = sum m x x phi_k (rotation, about the
/// file's origin); the rigid motion that carries it, r_k(x) = alpha_k + beta_k x x, solves
/// M_rr (alpha_k; beta_k) = (Ct_k; Cr_k) with the rigid body's mass matrix about the origin
/// M_rr = [m I, -m [c]x; m [c]x, J0]. phi_k - r_k is then free-floating.
struct RigidPart {
  std::vector<Vec3> alpha, beta;  ///< per file mode
  double largest = 0.0;           ///< the largest momentum relative to its scale, for the note
};

RigidPart rigidPartOfModes(double mass, const Vec3& firstMoment, const Mat3& J0, const MatX& ct0, const MatX& cr0) {
  Eigen::Matrix<double, 6, 6> Mrr;
  Mrr << mass * Mat3::Identity(), -skew(firstMoment), skew(firstMoment), J0;
  const Eigen::LDLT<Eigen::Matrix<double, 6, 6>> ldlt(Mrr);
  RigidPart r;
  for (Eigen::Index k = 0; k < ct0.rows(); ++k) {
    Eigen::Matrix<double, 6, 1> c;
    c << ct0.row(k).transpose(), cr0.row(k).transpose();
    const Eigen::Matrix<double, 6, 1> a = ldlt.solve(c);
    r.alpha.push_back(a.head<3>());
    r.beta.push_back(a.tail<3>());
  }
  return r;
}

SidTaylor taylor(int order, int nq, int structure, MatX m0, std::vector<MatX> m1 = {}) {
  SidTaylor t;
  t.order = order;
  t.nrow = static_cast<int>(m0.rows());
  t.ncol = static_cast<int>(m0.cols());
  t.nq = nq;
  t.structure = structure;
  t.m0 = std::move(m0);
  t.m1 = std::move(m1);
  return t;
}

/// Oe's row for a symmetric X (the derivative of J by a modal coordinate): the coefficients of
/// w^T X w / 2 over omega-bar, the six products (xx, yy, zz, xy, then yz, xz), times sign and scale.
/// Written with sign +1, scale 1; read in whichever of the eight variants (sign, scale, order of
/// the last two) fits the file's J, since tools differ here.
struct OeConvention {
  double sign = 1.0, scale = 1.0;
  bool yzFirst = true;
  Eigen::Matrix<double, 1, 6> row(const Mat3& X) const {
    Eigen::Matrix<double, 1, 6> r;
    r << 0.5 * X(0, 0), 0.5 * X(1, 1), 0.5 * X(2, 2), X(0, 1), yzFirst ? X(1, 2) : X(0, 2), yzFirst ? X(0, 2) : X(1, 2);
    return sign * scale * r;
  }
  Mat3 matrix(const Eigen::Matrix<double, 1, 6>& r0) const {
    const Eigen::Matrix<double, 1, 6> r = r0 / (sign * scale);
    const double yz = yzFirst ? r(4) : r(5), xz = yzFirst ? r(5) : r(4);
    Mat3 X;
    X << 2 * r(0), r(3), xz, r(3), 2 * r(1), yz, xz, yz, 2 * r(2);
    return X;
  }
  std::string describe() const {
    return std::string(sign > 0 ? "+" : "-") + (scale == 1.0 ? "" : "2 x ") +
           "(Jxx/2, Jyy/2, Jzz/2, Jxy, " + (yzFirst ? "Jyz, Jxz" : "Jxz, Jyz") + ")";
  }
};

}  // namespace

SidFile parseSid(std::string_view text, const std::string& path) {
  Diagnostics d;
  Parser p(path, d);
  p.sid.path = path;
  int no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    ++no;
    p.line(text.substr(0, nl), no);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  p.finish(no);
  d.throwIfErrors();
  return std::move(p.sid);
}

SidFile readSid(const std::string& path) { return parseSid(readTextFile(path, kMaxSidBytes, "SID file"), path); }

std::string writeSid(const SidFile& sid) {
  std::string out;
  for (const std::string& c : sid.comments) out += "! " + c + "\n";
  out += "part\n   new modal\n      refmod\n";
  out += "         mass = " + fortran(sid.mass) + "\n";
  out += cformat("         nelastq = %d\n", sid.nelastq);
  for (std::size_t k = 0; k < sid.ielastq.size(); ++k) out += cformat("         ielastq(%zu) = %s\n", k + 1, sid.ielastq[k].c_str());
  out += "      end refmod\n      frame\n";
  for (const SidNode& n : sid.nodes) {
    out += cformat("         new node = %d\n", n.id);
    out += "            rframe = " + n.rframe + "\n";
    for (const char* b : kNodeBlocks)
      if (const auto it = n.blocks.find(b); it != n.blocks.end()) writeTaylor(out, "            ", b, it->second);
    out += "         end node\n";
  }
  out += "      end frame\n";
  for (const char* b : kBodyBlocks)
    if (const auto it = sid.blocks.find(b); it != sid.blocks.end()) writeTaylor(out, "      ", b, it->second);
  out += "   end modal\nend part\n";
  return out;
}

SidFile sidFromModalBody(const ModalBody& b, const VecX& damping, const std::vector<int>& nodeIds) {
  const int n = b.modes();
  SidFile s;
  s.mass = b.mass;
  s.nelastq = n;
  for (int k = 0; k < n; ++k) s.ielastq.push_back(cformat("Eigen Mode %4d : %s Hz", k + 1, significant(b.frequencies[k], 9).c_str()));
  for (std::size_t i = 0; i < b.nodes.size(); ++i) {
    const int node = static_cast<int>(i);
    SidNode nd;
    nd.id = nodeIds.empty() ? node + 1 : nodeIds[i];
    const MatX T = b.translation(node), R = b.rotation(node);
    std::vector<MatX> o1, ap1;
    for (int k = 0; k < n; ++k) {
      o1.push_back(T.col(k));
      ap1.push_back(skew(Vec3(R.col(k))));
    }
    nd.blocks["origin"] = taylor(1, n, 3, MatX(b.centre + b.nodes[i]), o1);
    nd.blocks["phi"] = taylor(0, n, 3, T);
    nd.blocks["psi"] = taylor(0, n, 3, R);
    nd.blocks["AP"] = taylor(1, n, 3, Mat3::Identity(), ap1);
    s.nodes.push_back(std::move(nd));
  }
  const Vec3 c = b.centre;
  const Mat3 J0 = b.inertia + b.mass * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
  std::vector<MatX> md1(n, MatX::Zero(3, 1)), J1(n), Cr1(n), Oe1(n, MatX::Zero(n, 6));
  MatX Gr = MatX::Zero(3, 3 * n), Ge = MatX::Zero(n, 3 * n), Oe0 = MatX::Zero(n, 6);
  const OeConvention oe;
  for (int k = 0; k < n; ++k) {
    J1[k] = b.G[k] + b.G[k].transpose();
    Cr1[k] = b.E[k].transpose();
    Gr.middleCols(3 * k, 3) = 2.0 * b.G[k];
    Ge.middleCols(3 * k, 3) = 2.0 * b.E[k].transpose();
    Oe0.row(k) = oe.row(J1[k]);
    for (int l = 0; l < n; ++l) Oe1[l].row(k) = oe.row(b.h(k, l) + b.h(k, l).transpose());
  }
  s.blocks["mdCM"] = taylor(1, n, 3, MatX(b.mass * c), md1);
  s.blocks["J"] = taylor(1, n, 2, J0, J1);
  s.blocks["Ct"] = taylor(0, n, 3, MatX::Zero(n, 3));
  s.blocks["Cr"] = taylor(1, n, 3, MatX::Zero(n, 3), Cr1);
  s.blocks["Me"] = taylor(0, n, 1, MatX::Identity(n, n));
  s.blocks["Gr"] = taylor(0, n, 3, Gr);
  s.blocks["Ge"] = taylor(0, n, 3, Ge);
  s.blocks["Oe"] = taylor(1, n, 3, Oe0, Oe1);
  s.blocks["Ke"] = taylor(0, n, 1, MatX(b.stiffness.asDiagonal()));
  s.blocks["De"] = taylor(0, n, 1, MatX(damping.asDiagonal()));
  return s;
}

SidBody modalBodyFromSid(const SidFile& sid, const FeUnits& units) {
  Diagnostics d;
  auto at = [&](const SidTaylor& t) {
    Location w(sid.path);
    w.line = t.line;
    return w;
  };
  const int n = sid.nelastq;
  const double L = units.length, Mu = units.mass, ML = Mu * L, ML2 = Mu * L * L;
  auto block = [&](const char* name) -> const SidTaylor* {
    const auto it = sid.blocks.find(name);
    return it == sid.blocks.end() ? nullptr : &it->second;
  };
  auto m1 = [](const SidTaylor* t, int k) -> MatX { return t && k < static_cast<int>(t->m1.size()) ? t->m1[k] : MatX::Zero(t ? t->nrow : 0, t ? t->ncol : 0); };
  SidBody out;
  ModalBody& b = out.body;
  b.mass = sid.mass * Mu;
  if (!(b.mass > 0.0) || !std::isfinite(b.mass)) {
    Location w(sid.path);
    d.error(w, "refmod's mass must be positive, is " + significant(sid.mass, 6));
    d.throwIfErrors();
  }
  const SidTaylor &mdCM = *block("mdCM"), &J = *block("J"), &Ct = *block("Ct"), &Cr = *block("Cr"), &Me = *block("Me"),
                  &Ke = *block("Ke");
  b.centre = mdCM.m0.col(0) * ML / b.mass;
  const Mat3 J0 = J.m0 * ML2;
  const Vec3 c = b.centre;
  b.inertia = J0 - b.mass * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
  if ((J0 - J0.transpose()).norm() > 1e-9 * J0.norm() || b.inertia.selfadjointView<Eigen::Lower>().eigenvalues().minCoeff() <= 0.0)
    d.error(at(J), "J at q = 0 must be symmetric, and about the centre of mass (mdCM / mass) positive definite");

  // Modes that carry momentum at rest (Ct, Cr at q = 0 not zero) lose their rigid-body part,
  // phi'_k = phi_k - r_k, so that the frame becomes the mean axes; Ke stays (a rigid motion strains
  // nothing), Me' = Me - C^T M_rr^-1 C, and the invariants change by the terms below
  // (docs/flexible-bodies.md, "Modes that are not free-floating").
  const MatX ct0 = Ct.m0 * ML, cr0 = Cr.m0 * ML2;
  const bool attached = !ct0.isZero(0.0) || !cr0.isZero(0.0);
  RigidPart rigid;
  MatX me = Me.m0 * ML2;
  const MatX ke = Ke.m0 * ML2;
  if (attached) {
    rigid = rigidPartOfModes(b.mass, b.mass * c, J0, ct0, cr0);
    const double jScale = std::sqrt(b.inertia.trace() / 3.0);
    for (int k = 0; k < n; ++k) {
      const double mk = std::sqrt(std::abs(me(k, k)));
      rigid.largest = std::max({rigid.largest, ct0.row(k).norm() / (std::sqrt(b.mass) * mk), cr0.row(k).norm() / (jScale * mk)});
      for (int l = 0; l < n; ++l) me(k, l) -= ct0.row(k).dot(rigid.alpha[l]) + cr0.row(k).dot(rigid.beta[l]);
    }
    me = (0.5 * (me + me.transpose())).eval();
    const VecX left = Eigen::SelfAdjointEigenSolver<MatX>(me, Eigen::EigenvaluesOnly).eigenvalues();
    if (n > 0 && !(left.minCoeff() > 1e-9 * left.cwiseAbs().maxCoeff())) {
      d.error(at(ct0.isZero(0.0) ? Cr : Ct),
              "Me less the rigid motion the modes carry (Me - C^T M_rr^-1 C, C = Ct and Cr at q = 0) is not positive "
              "definite: a mode is a rigid-body motion of the body, or Ct and Cr do not fit Me, mdCM and J");
      d.throwIfErrors();
    }
    out.notes.push_back("the modes are not free-floating (Ct or Cr at q = 0 not zero, up to " + significant(rigid.largest, 3) +
                        " of the mode's scale: an attached frame): their rigid-body part was removed, the body frame is "
                        "the mean axes; the invariants' corrections take the mass as points at the nodes");
  }

  // The modes: Me and Ke diagonalized together (V^T Me V = I, V^T Ke V = diag, ascending).
  MatX V = MatX::Zero(n, n);
  VecX lambda(n);
  const bool diagonal = me.isDiagonal(0.0) && ke.isDiagonal(0.0);
  if (diagonal) {
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    for (int k = 0; k < n; ++k)
      if (!(me(k, k) > 0.0)) d.error(at(Me), "Me(" + std::to_string(k + 1) + ", " + std::to_string(k + 1) + ") must be positive");
    d.throwIfErrors();
    std::stable_sort(order.begin(), order.end(), [&](int i, int j) { return ke(i, i) / me(i, i) < ke(j, j) / me(j, j); });
    for (int k = 0; k < n; ++k) {
      const int j = order[static_cast<std::size_t>(k)];
      V(j, k) = me(j, j) == 1.0 ? 1.0 : 1.0 / std::sqrt(me(j, j));
      lambda[k] = ke(j, j) / me(j, j);
    }
  } else if (n > 0) {
    const Eigen::SelfAdjointEigenSolver<MatX> mes(me);
    if (mes.info() != Eigen::Success || mes.eigenvalues().minCoeff() <= 0.0) {
      d.error(at(Me), "Me must be symmetric positive definite");
      d.throwIfErrors();
    }
    const Eigen::GeneralizedSelfAdjointEigenSolver<MatX> ges(ke, me);
    V = ges.eigenvectors();
    lambda = ges.eigenvalues();
    out.notes.push_back("Me and Ke are not diagonal: the modes were diagonalized (normal modes of Me and Ke)");
  }
  for (int k = 0; k < n; ++k)
    if (!(lambda[k] > 0.0) || !std::isfinite(lambda[k])) {
      d.error(at(Ke), "mode " + std::to_string(k + 1) + " has Ke/Me = " + significant(lambda[k], 6) +
                          ": a rigid-body or unstable mode; a SID file for Elastokin holds the elastic modes only");
      break;
    }
  d.throwIfErrors();
  b.frequencies = lambda.array().sqrt() / (2.0 * M_PI);
  b.stiffness = (2.0 * M_PI * b.frequencies).array().square().matrix();

  // Nodes: every node of the file, six rows each (a node without psi turns with the frame only).
  b.dofs.size = 0;
  b.shapes = MatX::Zero(6 * static_cast<int>(sid.nodes.size()), n);
  bool someWithoutPsi = false, rotations = false;
  for (std::size_t i = 0; i < sid.nodes.size(); ++i) {
    const SidNode& nd = sid.nodes[i];
    out.nodeIds.push_back(nd.id);
    b.nodes.push_back(nd.blocks.at("origin").m0.col(0) * L - b.centre);
    b.dofs.first.push_back(6 * static_cast<int>(i));
    b.dofs.warp.push_back(-1);
    MatX phi = nd.blocks.at("phi").m0 * L, psi = MatX::Zero(3, n);
    if (const auto it = nd.blocks.find("psi"); it != nd.blocks.end()) {
      psi = it->second.m0;
      rotations = rotations || !psi.isZero(0.0);
    } else {
      someWithoutPsi = true;
    }
    if (attached) {
      const Vec3 x = nd.blocks.at("origin").m0.col(0) * L;
      for (int k = 0; k < n; ++k) {
        phi.col(k) -= rigid.alpha[k] + rigid.beta[k].cross(x);
        psi.col(k) -= rigid.beta[k];
      }
    }
    b.shapes.middleRows(6 * static_cast<int>(i), 3) = phi * V;
    b.shapes.middleRows(6 * static_cast<int>(i) + 3, 3) = psi * V;
  }
  b.dofs.size = static_cast<int>(b.shapes.rows());
  if (someWithoutPsi)
    out.notes.push_back(attached ? "nodes without psi (a solid's nodes) turn with the file's reference frame only"
                                 : "nodes without psi (a solid's nodes) turn with the body frame only");

  // Invariants in the file's modes, then in the normal modes: G'_k = sum_j V_jk G_j,
  // E'_k = (sum_j V_jk E_j) V, H'_kl = sum_ij V_ik V_jl H_ij.
  const SidTaylor* gr = block("Gr");
  const SidTaylor* oe = block("Oe");
  std::vector<Mat3> G(n), J1(n);
  std::vector<MatX> E(n);
  for (int k = 0; k < n; ++k) {
    J1[k] = m1(&J, k) * ML2;
    G[k] = gr ? Mat3(gr->m0.middleCols(3 * k, 3) * ML2 / 2.0) : Mat3(J1[k] / 2.0);
    E[k] = m1(&Cr, k).transpose() * ML2;
  }
  double j1max = 0.0;
  for (int k = 0; k < n; ++k) j1max = std::max(j1max, J1[k].cwiseAbs().maxCoeff());
  if (gr)
    for (int k = 0; k < n; ++k)
      if ((G[k] + G[k].transpose() - J1[k]).cwiseAbs().maxCoeff() > 1e-6 * j1max + 1e-12 * b.inertia.norm()) {
        d.error(at(*gr), "Gr does not fit J's first-order terms: (Gr_k + Gr_k^T) / 2 must equal J's m1(:, :, k) (mode " +
                             std::to_string(k + 1) + ")");
        break;
      }
  if (J.order == 0 && !gr) out.notes.push_back("J has no first-order terms and there is no Gr: J1 is neglected");
  if (Cr.order == 0) out.notes.push_back("Cr has no first-order terms: the coupling C(q) of rotation and modes is neglected");
  std::vector<Mat3> H(static_cast<std::size_t>(n) * n, Mat3::Zero());
  if (oe && oe->order == 1) {
    // The convention of Oe from its zero-order part, which must equal J's first-order terms.
    std::vector<OeConvention> candidates;
    for (double sign : {1.0, -1.0})
      for (double scale : {1.0, 2.0})
        for (bool yzFirst : {true, false}) candidates.push_back({sign, scale, yzFirst});
    const MatX oe0 = oe->m0 * ML2;
    std::optional<OeConvention> found;
    if (j1max == 0.0 && oe0.cwiseAbs().maxCoeff() == 0.0) {
      found = OeConvention();
    } else {
      for (const OeConvention& cnv : candidates) {
        bool fits = true;
        for (int k = 0; k < n && fits; ++k) fits = (oe0.row(k) - cnv.row(J1[k])).cwiseAbs().maxCoeff() <= 1e-6 * j1max;
        if (fits) {
          found = cnv;
          break;
        }
      }
    }
    if (!found) {
      d.error(at(*oe), "Oe at q = 0 does not fit J's first-order terms in any of the conventions read (row k = +-[2 x] " +
                           OeConvention().describe() + " of J's m1(:, :, k))");
    } else {
      for (int k = 0; k < n; ++k)
        for (int l = 0; l < n; ++l)
          H[static_cast<std::size_t>(k) * n + l] = found->matrix(oe->m1[l].row(k) * ML2) / 2.0;
      if (!(found->sign == 1.0 && found->scale == 1.0 && found->yzFirst))
        out.notes.push_back("Oe read in the convention " + found->describe());
    }
  } else {
    out.notes.push_back(std::string("Oe ") + (oe ? "has no first-order terms" : "is not in the file") +
                        ": the second-order inertia J2 is neglected");
  }
  d.throwIfErrors();
  if (attached) {
    // The invariants of phi'_k = phi_k - r_k. With the mass as points at the nodes every term is a
    // function of the moments P(u, w) = sum m u w^T of two displacement fields:
    //   G_k = F(P(x, phi_k)),  H_kl = F(P(phi_k, phi_l)),  E_k e_l = axial(P_kl^T - P_kl),
    // F(P) = tr(P) I - P^T. The rigid fields need the mass's moments m, M1 = m c and
    // M2 = sum m x x^T = tr(J0)/2 I - J0, and each mode's S_k = P(x, phi_k) = (tr(G_k)/2 I - G_k)^T
    // from Gr; without Gr, G_k is J1_k / 2 and S_k's antisymmetric part comes from Cr
    // (S - S^T = -[Cr_k]x). Exact for point masses (a solid model's nodes). Where the nodes turn
    // (psi), J0 holds their rotary inertia, which M2 must not: G_k's correction depends on M2
    // only through the commutator [beta_k]x M2 - M2 [beta_k]x, blind to an isotropic rotary
    // inertia, but C1 and J2 take beta_k M2 beta_l^T itself, so they are left out then.
    const auto F = [](const Mat3& P) { return Mat3(P.trace() * Mat3::Identity() - P.transpose()); };
    const auto axial = [](const Mat3& A) -> Vec3 { return Vec3(A(2, 1) - A(1, 2), A(0, 2) - A(2, 0), A(1, 0) - A(0, 1)) / 2.0; };
    const Vec3 M1 = b.mass * c;
    const Mat3 M2 = J0.trace() / 2.0 * Mat3::Identity() - J0;
    std::vector<Mat3> S(n), B(n);
    for (int k = 0; k < n; ++k) {
      S[k] = (G[k].trace() / 2.0 * Mat3::Identity() - G[k]).transpose();
      if (!gr) S[k] -= 0.5 * skew(Vec3(cr0.row(k).transpose()));
      B[k] = skew(rigid.beta[k]);
    }
    const bool withJ1 = J.order == 1 || gr, withE = Cr.order == 1 && !rotations, withH = oe && oe->order == 1 && !rotations;
    if (rotations && (Cr.order == 1 || (oe && oe->order == 1))) {
      for (MatX& e : E) e.setZero();
      std::fill(H.begin(), H.end(), Mat3::Zero());
      out.notes.push_back("the nodes turn (psi) and the modes are not free-floating: C(q)'s first-order terms (Cr) and J's "
                          "second-order terms (Oe) are left out, since removing the rigid part from them needs the nodes' "
                          "second moment of mass without their rotary inertia, which the file does not give");
    }
    for (int k = 0; k < n; ++k) {
      const Vec3& ak = rigid.alpha[k];
      if (withJ1) G[k] -= F(M1 * ak.transpose() + M2 * B[k].transpose());
      for (int l = 0; l < n; ++l) {
        const Vec3& al = rigid.alpha[l];
        const Mat3 phiRl = Vec3(ct0.row(k).transpose()) * al.transpose() + S[k].transpose() * B[l].transpose();
        const Mat3 phiRk = Vec3(ct0.row(l).transpose()) * ak.transpose() + S[l].transpose() * B[k].transpose();
        const Mat3 rr = b.mass * ak * al.transpose() + ak * M1.transpose() * B[l].transpose() + B[k] * M1 * al.transpose() +
                        B[k] * M2 * B[l].transpose();
        const Mat3 dP = -phiRl - phiRk.transpose() + rr;
        if (withH) H[static_cast<std::size_t>(k) * n + l] += F(dP);
        if (withE) E[k].col(l) += axial(dP.transpose() - dP);
      }
    }
  }
  b.G.assign(n, Mat3::Zero());
  b.E.assign(n, fe::Mat3X::Zero(3, n));
  b.H.assign(static_cast<std::size_t>(n) * n, Mat3::Zero());
  for (int k = 0; k < n; ++k) {
    fe::Mat3X e = fe::Mat3X::Zero(3, n);
    for (int j = 0; j < n; ++j) {
      if (V(j, k) == 0.0) continue;
      b.G[k] += V(j, k) * G[j];
      e += V(j, k) * E[j];
    }
    b.E[k] = e * V;
    for (int l = 0; l < n; ++l)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          if (V(i, k) != 0.0 && V(j, l) != 0.0) b.H[static_cast<std::size_t>(k) * n + l] += V(i, k) * V(j, l) * H[static_cast<std::size_t>(i) * n + j];
  }

  // Damping: proportional (diagonal in the normal modes) as a ratio per mode.
  if (const SidTaylor* de = block("De")) {
    const MatX D = V.transpose() * (de->m0 * ML2) * V;
    out.dampingRatios.resize(n);
    for (int k = 0; k < n; ++k) out.dampingRatios[k] = D(k, k) / (2.0 * std::sqrt(lambda[k]));
    const MatX off = D - MatX(D.diagonal().asDiagonal());
    const double coupling = n > 0 ? off.cwiseAbs().maxCoeff() / D.diagonal().cwiseAbs().maxCoeff() : 0.0;
    if (coupling > 1e-6 && attached)
      // The file's modal damping, diagonal in its attached modes, couples the free-floating ones.
      out.notes.push_back("De couples the free-floating modes (up to " + significant(coupling, 3) +
                          " of the largest modal damping): each mode keeps its own term, the coupling is left out");
    else if (coupling > 1e-6)
      d.error(at(*de), "De is not proportional: it couples the normal modes, and Elastokin damps each mode by a ratio");
  }
  if (const SidTaylor* ks = block("ksigma"); ks && ks->m0.cwiseAbs().maxCoeff() > 0.0)
    out.notes.push_back("ksigma (the modal forces of reference stresses) is not read");
  d.throwIfErrors();
  return out;
}

}  // namespace ek::fe
