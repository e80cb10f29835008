// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/adams_import.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "engine/core/text_file.h"
#include "engine/model/validate.h"
#include "engine/core/text.h"

namespace ek {

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Attribute {
  std::string value;
  int line = 0;
};

struct TableData {
  std::string labels;
  int line = 0;
  std::vector<std::array<double, 2>> rows;
  std::vector<int> rowLines;
  bool bad = false;  ///< a row could not be read (reported): the table is not used
};

struct Block {
  std::string name;
  int line = 0;
  std::map<std::string, Attribute> attributes;
  std::optional<TableData> table;
};

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string unquote(std::string s) {
  s = trim(s);
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return trim(s);
}

/// A number, FORTRAN exponents ("1.5D3") included.
bool parseNumber(std::string token, double& out) {
  std::replace(token.begin(), token.end(), 'd', 'e');
  std::replace(token.begin(), token.end(), 'D', 'e');
  return parseDecimalField(token, out);
}

/// The TeimOrbit structure of the file; problems go to `diag` with their line.
std::vector<Block> parseBlocks(const std::string& text, const std::string& path, Diagnostics& diag) {
  std::vector<Block> blocks;
  std::istringstream in(text);
  std::string raw;
  int lineNo = 0;
  bool inSubBlock = false;
  auto at = [&](int line) {
    Location w{path};
    w.line = line;
    return w;
  };
  while (std::getline(in, raw)) {
    ++lineNo;
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '$') continue;
    if (line[0] == '[') {
      const auto close = line.find(']');
      if (close == std::string::npos) {
        diag.error(at(lineNo), "a block name must be closed by ']': " + line);
        continue;
      }
      blocks.push_back({upper(trim(line.substr(1, close - 1))), lineNo, {}, {}});
      inSubBlock = false;
      continue;
    }
    if (blocks.empty()) {
      diag.error(at(lineNo), "expected a block such as [MDI_HEADER] before \"" + printableExcerpt(line) + "\"");
      continue;
    }
    Block& b = blocks.back();
    if (line[0] == '(') {  // a sub-block: only the header's comments are expected; not imported
      inSubBlock = true;
      if (b.name != "MDI_HEADER")
        diag.warning(at(lineNo), "sub-block " + line + " of [" + b.name + "] is not imported");
      continue;
    }
    if (inSubBlock) continue;
    if (line[0] == '{') {
      if (line.find('}') == std::string::npos) {
        diag.error(at(lineNo), "a table's labels must be closed by '}': " + line);
        continue;
      }
      if (b.table) {
        diag.error(at(lineNo), "block [" + b.name + "] holds a second table (one is allowed)");
        continue;
      }
      b.table = TableData{trim(line.substr(1, line.find('}') - 1)), lineNo, {}, {}};
      continue;
    }
    const auto eq = line.find('=');
    if (eq != std::string::npos && (!b.table || b.table->rows.empty())) {
      const std::string key = upper(trim(line.substr(0, eq)));
      if (key.empty()) diag.error(at(lineNo), "an attribute needs a name before '='");
      else b.attributes[key] = {unquote(line.substr(eq + 1)), lineNo};
      continue;
    }
    if (!b.table) {
      diag.error(at(lineNo), "expected an attribute 'NAME = value', a table '{labels}' or a block '[NAME]', found \"" +
                                 line + "\"");
      continue;
    }
    std::istringstream ss(line);
    std::vector<std::string> tokens;
    for (std::string t; ss >> t;) tokens.push_back(t);
    if (tokens.size() != 2) {
      diag.error(at(lineNo), "a row of table {" + b.table->labels + "} in [" + b.name + "] needs 2 numbers, found " +
                                 std::to_string(tokens.size()) + " values");
      b.table->bad = true;
      continue;
    }
    std::array<double, 2> row{};
    bool ok = true;
    for (int k = 0; k < 2; ++k)
      if (!parseNumber(tokens[k], row[k])) {
        diag.error(at(lineNo), "\"" + tokens[k] + "\" in [" + b.name + "] is not a finite number");
        ok = false;
      }
    if (!ok) {
      b.table->bad = true;
      continue;
    }
    b.table->rows.push_back(row);
    b.table->rowLines.push_back(lineNo);
  }
  return blocks;
}

/// Factors from the file's units to SI.
struct Units {
  double length = 1.0, angle = 1.0, force = 1.0, time = 1.0;
};

Units readUnits(const Block* units, const std::string& path, bool needAngle, Diagnostics& diag) {
  Units u;
  Location where{path};
  if (!units) {
    diag.error(where, "the file has no [UNITS] block (LENGTH, FORCE, ANGLE, TIME)");
    return u;
  }
  auto pick = [&](const char* key, const std::vector<std::pair<const char*, double>>& table, double& out, bool needed) {
    const auto it = units->attributes.find(key);
    Location w{path};
    w.line = units->line;
    if (it == units->attributes.end()) {
      if (needed) diag.error(w, std::string("[UNITS] has no ") + key);
      return;
    }
    w.line = it->second.line;
    const std::string v = it->second.value;
    for (const auto& [name, factor] : table)
      if (v == name) {
        out = factor;
        return;
      }
    std::string known;
    for (const auto& [name, factor] : table) known += (known.empty() ? "" : ", ") + std::string("'") + name + "'";
    diag.error(w, std::string("unknown ") + key + " unit '" + printableExcerpt(v) + "' (" + known + ")");
  };
  pick("LENGTH", {{"mm", 1e-3}, {"millimeter", 1e-3}, {"cm", 1e-2}, {"centimeter", 1e-2}, {"m", 1.0}, {"meter", 1.0},
                  {"km", 1e3}, {"kilometer", 1e3}, {"inch", 0.0254}, {"foot", 0.3048}, {"mile", 1609.344}},
       u.length, true);
  pick("ANGLE", {{"degree", kPi / 180}, {"degrees", kPi / 180}, {"deg", kPi / 180}, {"radian", 1.0}, {"radians", 1.0},
                 {"rad", 1.0}},
       u.angle, needAngle);
  pick("FORCE", {{"newton", 1.0}, {"knewton", 1e3}, {"kilonewton", 1e3}, {"kg_force", 9.80665}, {"dyne", 1e-5},
                 {"pound_force", 4.4482216152605}, {"kpound_force", 4448.2216152605}, {"ounce_force", 0.27801385095378125}},
       u.force, true);
  pick("TIME", {{"second", 1.0}, {"sec", 1.0}, {"s", 1.0}, {"millisecond", 1e-3}, {"ms", 1e-3}, {"minute", 60.0},
                {"hour", 3600.0}},
       u.time, true);
  return u;
}

class Importer {
 public:
  Importer(const Project& p, const std::string& path, Diagnostics& diag) : out_(p), path_(path), diag_(diag) {
    for (const auto& c : p.curves) nextCurve_ = std::max(nextCurve_, c.id + 1);
  }

  Location at(int line) const {
    Location w{path_};
    w.line = line;
    return w;
  }

  /// A table as a curve (x and y scaled; `mirror`: (x, y) -> (-x, -y), reversed), added to the
  /// project; its id, or nothing when the table is unusable (errors reported).
  std::optional<int> curve(const Block& b, double sx, double sy, const std::string& name, bool mirror = false) {
    const TableData& t = *b.table;
    if (t.bad) return std::nullopt;
    if (t.rows.size() < 2) {
      diag_.error(at(t.line), "the table of [" + b.name + "] needs at least 2 rows, found " + std::to_string(t.rows.size()));
      return std::nullopt;
    }
    for (std::size_t k = 1; k < t.rows.size(); ++k)
      if (!(t.rows[k][0] > t.rows[k - 1][0])) {
        diag_.error(at(t.rowLines[k]), "the first column of [" + b.name + "] must increase strictly (" +
                                           number(t.rows[k][0]) + " after " + number(t.rows[k - 1][0]) + ")");
        return std::nullopt;
      }
    CurveRow c;
    c.id = nextCurve_++;
    c.name = name;
    c.interpolation = "pchip";
    c.extrapolation = "linear";
    for (const auto& r : t.rows) c.points.push_back({sx * r[0], sy * r[1]});
    if (mirror) {
      std::reverse(c.points.begin(), c.points.end());
      for (auto& pt : c.points) pt = {-pt[0], -pt[1]};
    }
    out_.curves.push_back(c);
    changes.push_back(name + ": curve " + std::to_string(c.id) + ", " + std::to_string(c.points.size()) + " points");
    return c.id;
  }

  /// A numeric attribute, scaled; nothing (with an error) when it is not a finite number.
  std::optional<double> value(const Block& b, const std::string& key, double scale) {
    const auto it = b.attributes.find(key);
    if (it == b.attributes.end()) return std::nullopt;
    double v = 0.0;
    if (!parseNumber(it->second.value, v)) {
      diag_.error(at(it->second.line), key + " in [" + b.name + "] must be a finite number, found '" + printableExcerpt(it->second.value) + "'");
      return std::nullopt;
    }
    return v * scale;
  }

  /// A law from a block: its table (a curve) or the attribute `key` (a coefficient).
  bool law(const Block& b, const std::string& key, double sx, double sy, double coefficientScale,
           const std::string& name, LawRow& out) {
    if (b.table) {
      const auto id = curve(b, sx, sy, name);
      if (!id) return false;
      out = LawRow{0.0, *id};
      return true;
    }
    if (const auto v = value(b, key, coefficientScale)) {
      out = LawRow{*v, std::nullopt};
      changes.push_back(name + ": coefficient " + number(*v));
      return true;
    }
    if (!b.attributes.count(key))
      diag_.error(at(b.line), "[" + b.name + "] holds neither a table nor " + key);
    return false;
  }

  static std::string number(double v) {
    char buf[40];
    ek::csnprintf(buf, sizeof buf, "%.6g", v);
    return buf;
  }

  Project out_;
  std::vector<std::string> changes;
  std::string path_;
  Diagnostics& diag_;
  int nextCurve_ = 1;
};

const Block* find(const std::vector<Block>& blocks, const std::string& name) {
  for (const Block& b : blocks)
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace

PropertyImport importPropertyText(const Project& project, ImportTarget target, int id, const std::string& text,
                                  const std::string& path) {
  Diagnostics diag;
  const std::vector<Block> blocks = parseBlocks(text, path, diag);
  PropertyImport result;
  const Block* header = find(blocks, "MDI_HEADER");
  if (!header || !header->attributes.count("FILE_TYPE")) {
    diag.error({path}, "the file has no [MDI_HEADER] block with FILE_TYPE (bus, spr, dpr, bst or reb)");
    diag.throwIfErrors();
  }
  const Attribute& type = header->attributes.at("FILE_TYPE");
  result.fileType = [&] {
    std::string t = type.value;
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return t;
  }();
  Location typeAt{path};
  typeAt.line = type.line;
  const bool bushingFile = result.fileType == "bus";
  const bool p2pFile = result.fileType == "spr" || result.fileType == "dpr" || result.fileType == "bst" ||
                       result.fileType == "reb";
  if (!bushingFile && !p2pFile) {
    diag.error(typeAt, "FILE_TYPE '" + printableExcerpt(type.value) + "' is not supported (bus, spr, dpr, bst, reb)");
    diag.throwIfErrors();
  }
  const std::string table = target == ImportTarget::Bushing ? "bushings" : "p2p elements";
  bool fatal = false;  // the rest of the file cannot be read onto the element
  if (bushingFile != (target == ImportTarget::Bushing))
    fatal = true, diag.error(typeAt, "a '" + printableExcerpt(result.fileType) + "' file describes " + (bushingFile ? "a bushing" : "a P2P element") +
                           ", not a row of the " + table + " table");
  int index = -1;
  if (target == ImportTarget::Bushing) {
    for (std::size_t k = 0; k < project.bushings.size(); ++k)
      if (project.bushings[k].id == id) index = static_cast<int>(k);
  } else {
    for (std::size_t k = 0; k < project.p2ps.size(); ++k)
      if (project.p2ps[k].id == id) index = static_cast<int>(k);
  }
  if (index < 0)
    fatal = true, diag.error({project.sourcePath, table, "id " + std::to_string(id), ""}, "no such row to import onto");
  if (fatal) diag.throwIfErrors();

  const Units u = readUnits(find(blocks, "UNITS"), path, bushingFile, diag);
  Importer im(project, path, diag);
  const std::string stem = std::filesystem::path(path).stem().string();
  std::vector<std::string> used{"MDI_HEADER", "UNITS"};
  if (target == ImportTarget::Bushing) {
    BushingRow& b = im.out_.bushings[index];
    std::vector<std::string> kept;
    const char* names[] = {"X", "Y", "Z", "TX", "TY", "TZ"};
    for (int d = 0; d < 6; ++d) {
      const bool rot = d >= 3;
      const double lx = rot ? u.angle : u.length, f = rot ? u.force * u.length : u.force;
      const std::string dir = kBushingDirections[d], label = b.name + " " + dir;
      const std::string sName = std::string(names[d]) + "_STIFFNESS", dName = std::string(names[d]) + "_DAMPING";
      if (const Block* s = find(blocks, sName)) {
        used.push_back(sName);
        im.law(*s, "STIFFNESS", lx, f, f / lx, label + " stiffness (" + stem + ")", b.directions[d].stiffness);
      } else {
        kept.push_back(dir + " stiffness");
      }
      if (const Block* c = find(blocks, dName)) {
        used.push_back(dName);
        im.law(*c, "DAMPING", lx / u.time, f, f * u.time / lx, label + " damping (" + stem + ")", b.directions[d].damping);
      } else {
        kept.push_back(dir + " damping");
      }
    }
    if (const Block* pre = find(blocks, "PRELOAD")) {
      used.push_back("PRELOAD");
      const char* keys[] = {"FX", "FY", "FZ", "TX", "TY", "TZ"};
      for (int d = 0; d < 6; ++d)
        if (const auto v = im.value(*pre, keys[d], d < 3 ? u.force : u.force * u.length)) {
          b.directions[d].preload = *v;
          im.changes.push_back(b.name + " " + kBushingDirections[d] + " preload: " + Importer::number(*v));
        }
    }
    if (!kept.empty() && kept.size() < 12) {
      std::string list;
      for (const auto& k : kept) list += (list.empty() ? "" : ", ") + k;
      diag.warning({path}, "not in the file, kept as they were: " + list);
    }
  } else {
    P2PRow& e = im.out_.p2ps[index];
    const Block* curve = find(blocks, "CURVE");
    used.push_back("CURVE");
    if (!curve || !curve->table) {
      diag.error({path}, "the file has no [CURVE] block with a table");
    } else if (result.fileType == "spr") {
      // Compression from the free length vs compressive force -> tension vs extension.
      if (const auto c = im.curve(*curve, u.length, u.force, e.name + " spring (" + stem + ")", true))
        e.spring = LawRow{0.0, *c};
      used.push_back("SPRING_DATA");
      const Block* data = find(blocks, "SPRING_DATA");
      const auto free = data ? im.value(*data, "FREE_LENGTH", u.length) : std::nullopt;
      if (free) {
        e.freeLength = *free;
        im.changes.push_back(e.name + " free length: " + Importer::number(*free) + " m");
      } else if (!data || !data->attributes.count("FREE_LENGTH")) {
        diag.warning({path}, "no [SPRING_DATA] FREE_LENGTH: the free length is kept");
      }
    } else if (result.fileType == "dpr") {
      if (const auto c = im.curve(*curve, u.length / u.time, u.force, e.name + " damper (" + stem + ")"))
        e.damper = LawRow{0.0, *c};
    } else {
      const bool bump = result.fileType == "bst";
      std::optional<StopRow>& stop = bump ? e.bumpStop : e.reboundStop;
      if (const auto c = im.curve(*curve, u.length, u.force,
                                  e.name + (bump ? " bump stop (" : " rebound stop (") + stem + ")")) {
        if (!stop) {
          stop = StopRow{};
          diag.warning({path}, std::string("the ") + (bump ? "bump" : "rebound") +
                                   " stop's clearance is not part of the file: set to 0 m (edit it in the P2P table)");
        }
        stop->law = LawRow{0.0, *c};
      }
    }
  }
  for (const Block& b : blocks)
    if (std::find(used.begin(), used.end(), b.name) == used.end()) {
      Location w{path};
      w.line = b.line;
      diag.warning(w, "block [" + b.name + "] is not imported" +
                          (b.name == "SHAPE" ? std::string(" (the bushing's geometry, for graphics only)") : std::string()));
    }
  diag.throwIfErrors();
  // The result must be a valid row (e.g. a curve with a negative free length is refused here).
  // Only the errors the import brought in (the project may have had others before).
  std::vector<std::string> before;
  const Diagnostics original = ek::check(project), imported = ek::check(im.out_);
  for (const Diagnostic& d : original.items()) before.push_back(d.text());
  Diagnostics own;
  for (const Diagnostic& d : imported.items())
    if (d.severity == Severity::Error && std::find(before.begin(), before.end(), d.text()) == before.end())
      own.error(d.where, d.message + " (after importing " + path + ")");
  own.throwIfErrors();
  for (const Diagnostic& d : diag.items())
    if (d.severity == Severity::Warning) result.warnings.push_back(d);
  result.project = std::move(im.out_);
  result.changes = std::move(im.changes);
  return result;
}

PropertyImport importPropertyFile(const Project& project, ImportTarget target, int id, const std::string& path) {
  return importPropertyText(project, target, id, readTextFile(path, 16u << 20, "property file"), path);
}

}  // namespace ek
