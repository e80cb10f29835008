// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/adams_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>

#include "engine/core/text.h"
#include "engine/core/text_file.h"
#include "engine/model/teim_orbit.h"
#include "engine/model/validate.h"

namespace ek {

namespace {

/// The direction names of a bushing file's blocks and keys (x, y, z, rx, ry, rz).
constexpr const char* kOffsetNames[] = {"X", "Y", "Z", "AX", "AY", "AZ"};

bool parseType(const std::string& name, PropertyType& type) {
  const std::string n = asciiLower(name);
  if (n == "bus") type = PropertyType::Bushing;
  else if (n == "spr") type = PropertyType::Spring;
  else if (n == "dpr") type = PropertyType::Damper;
  else if (n == "bum" || n == "bst") type = PropertyType::BumpStop;
  else if (n == "reb") type = PropertyType::ReboundStop;
  else if (n == "hbu") type = PropertyType::HydroBushing;
  else return false;
  return true;
}

/// Reads the blocks of one file type; every problem goes to diag with its line.
class Reader {
 public:
  Reader(const TeimFile& file, const std::string& path, Diagnostics& diag, PropertyData& out)
      : file_(file), path_(path), diag_(diag), out_(out) {}

  Location at(int line) const {
    Location w{path_};
    w.line = line;
    return w;
  }

  const TeimBlock* use(const std::string& name) {
    used_.insert(name);
    return file_.block(name);
  }

  /// A numeric attribute, scaled; nothing (and an error) when it is not a finite number.
  std::optional<double> number(const TeimBlock& b, const TeimAttribute& a, double scale) {
    double v = 0.0;
    if (a.quoted || !parseTeimNumber(a.value, v)) {
      diag_.error(at(a.line), a.key + " in [" + b.name + "] must be a finite number, found '" + printableExcerpt(a.value) + "'");
      return std::nullopt;
    }
    return v * scale;
  }

  /// A label of a force or torque column (fx, fz, tx, force, torque, f, t, ...).
  static bool isOrdinateLabel(const std::string& l) {
    return l == "f" || l == "t" || l == "force" || l == "torque" || l == "moment" ||
           (l.size() == 2 && (l[0] == 'f' || l[0] == 't') && (l[1] == 'x' || l[1] == 'y' || l[1] == 'z'));
  }
  /// A label of a displacement, angle or velocity column (x, a, disp, defl, vel, angle, ...).
  static bool isAbscissaLabel(const std::string& l) {
    static const char* const known[] = {"x", "y", "z", "a", "b", "c", "ax", "ay", "az", "disp", "defl", "deflection",
                                        "displacement", "vel", "velocity", "angle", "rot", "rotation", "travel"};
    for (const char* k : known)
      if (l == k) return true;
    return false;
  }

  /// The block's table as two columns scaled to SI; nothing when unusable (errors reported).
  std::optional<PropertyTable> table(const TeimBlock& b, double sx, double sy, bool needed = true) {
    if (!b.table) {
      if (needed) diag_.error(at(b.line), "[" + b.name + "] holds no table");
      return std::nullopt;
    }
    const TeimTable& t = *b.table;
    if (t.bad) return std::nullopt;
    if (t.labels.size() != 2) {
      diag_.error(at(t.line), "the table of [" + b.name + "] needs 2 columns, found " + std::to_string(t.labels.size()));
      return std::nullopt;
    }
    // The columns are read by position, {abscissa ordinate}; labels that say the opposite order
    // ({fx x}, {force disp}) are an error, not a curve read the wrong way round.
    if (isOrdinateLabel(t.labels[0]) && isAbscissaLabel(t.labels[1])) {
      diag_.error(at(t.line), "the table of [" + b.name + "] is labelled {" + t.labels[0] + " " + t.labels[1] +
                                  "}: the first column must be the displacement, angle or velocity and the second the "
                                  "force or torque; swap the columns");
      return std::nullopt;
    }
    if (t.rows.size() < 2) {
      diag_.error(at(t.line), "the table of [" + b.name + "] needs at least 2 rows, found " + std::to_string(t.rows.size()));
      return std::nullopt;
    }
    for (std::size_t k = 1; k < t.rows.size(); ++k)
      if (!(t.rows[k][0] > t.rows[k - 1][0])) {
        diag_.error(at(t.rowLines[k]), "the first column of [" + b.name + "] must increase strictly (" +
                                           significant(t.rows[k][0], 8) + " after " + significant(t.rows[k - 1][0], 8) + ")");
        return std::nullopt;
      }
    PropertyTable p;
    p.block = b.name;
    p.line = t.line;
    for (const auto& r : t.rows) p.points.push_back({sx * r[0], sy * r[1]});
    // An Elastokin export records a curve's interpolation and extrapolation before its table.
    for (const std::string& c : b.tableComments) {
      const auto colon = c.find(':');
      if (colon == std::string::npos) continue;
      const std::string key = asciiLower(c.substr(0, colon));
      std::string value = asciiLower(c.substr(colon + 1));
      value.erase(0, value.find_first_not_of(" \t"));
      value.erase(value.find_last_not_of(" \t") + 1);
      if (key == "interpolation" && (value == "linear" || value == "pchip" || value == "spline")) p.interpolation = value;
      if (key == "extrapolation" && (value == "linear" || value == "constant")) p.extrapolation = value;
    }
    return p;
  }

  void readBushing() {
    const PropertyUnits& u = out_.units;
    std::array<const TeimAttribute*, 6> constant{};
    if (const TeimBlock* damping = use("DAMPING")) {
      for (const TeimAttribute& a : damping->attributes) {
        int d = -1;
        for (int k = 0; k < 6; ++k)
          if (a.key == std::string(kAdamsForceNames[k]) + "_DAMPING") d = k;
        if (d < 0) {
          diag_.error(at(a.line), "unknown key " + a.key + " in [DAMPING] (FX_DAMPING ... TZ_DAMPING)");
          continue;
        }
        constant[d] = &a;
        const double lx = d >= 3 ? u.angle : u.length, f = d >= 3 ? u.force * u.length : u.force;
        if (const auto v = number(*damping, a, f * u.time / lx)) out_.damping[d].coefficient = *v;
      }
      if (damping->table) diag_.error(at(damping->table->line), "[DAMPING] holds constants, not a table");
    }
    for (int d = 0; d < 6; ++d) {
      const bool rot = d >= 3;
      const double lx = rot ? u.angle : u.length, f = rot ? u.force * u.length : u.force;
      if (const TeimBlock* c = use(std::string(kAdamsForceNames[d]) + "_CURVE")) out_.stiffness[d].table = table(*c, lx, f);
      const std::string dc = std::string(kAdamsForceNames[d]) + "_DAMPING_CURVE";
      if (const TeimBlock* c = use(dc)) {
        if (constant[d]) {
          diag_.error(at(c->line), "[" + dc + "] and " + constant[d]->key + " in [DAMPING] (line " +
                                       std::to_string(constant[d]->line) + ") both give the " + kBushingDirections[d] +
                                       " damping; give one of them");
          out_.damping[d].coefficient.reset();
        } else {
          out_.damping[d].table = table(*c, lx / u.time, f);
        }
      }
    }
    if (const TeimBlock* p = use("PRELOAD"))
      for (const TeimAttribute& a : p->attributes) {
        int d = -1;
        for (int k = 0; k < 6; ++k)
          if (a.key == kAdamsForceNames[k] || a.key == std::string(kAdamsForceNames[k]) + "_PRELOAD") d = k;
        if (d < 0) {
          diag_.error(at(a.line), "unknown key " + a.key + " in [PRELOAD] (FX ... TZ)");
          continue;
        }
        if (out_.preload[d]) diag_.error(at(a.line), "the " + std::string(kBushingDirections[d]) + " preload is given twice in [PRELOAD]");
        out_.preload[d] = number(*p, a, d >= 3 ? u.force * u.length : u.force);
      }
    if (const TeimBlock* o = use("OFFSET"))
      for (const TeimAttribute& a : o->attributes) {
        int d = -1;
        for (int k = 0; k < 6; ++k)
          if (a.key == kOffsetNames[k] || a.key == std::string(kOffsetNames[k]) + "_OFFSET") d = k;
        if (d < 0) {
          diag_.error(at(a.line), "unknown key " + a.key + " in [OFFSET] (X, Y, Z, AX, AY, AZ)");
          continue;
        }
        if (out_.offset[d]) diag_.error(at(a.line), "the " + std::string(kBushingDirections[d]) + " offset is given twice in [OFFSET]");
        out_.offset[d] = number(*o, a, d >= 3 ? u.angle : u.length);
      }
    bool any = false;
    for (int d = 0; d < 6; ++d) any = any || out_.stiffness[d].given() || out_.damping[d].given();
    if (!any && !diag_.hasErrors())
      nothing("a 'bus' file holds the tables [FX_CURVE] {x fx}, [FY_CURVE] {y fy}, [FZ_CURVE] {z fz}, [TX_CURVE] {ax tx}, "
              "[TY_CURVE] {ay ty}, [TZ_CURVE] {az tz} and the constants FX_DAMPING ... TZ_DAMPING in [DAMPING]");
  }

  /// The [CURVE] of a spring, damper or stop file.
  void readCurveFile(double sx, double sy, bool mirror, const char* expected) {
    const TeimBlock* c = use("CURVE");
    if (c) {
      if (auto t = table(*c, sx, sy)) {
        if (mirror) {
          std::reverse(t->points.begin(), t->points.end());
          for (auto& p : t->points) p = {-p[0], -p[1]};
        }
        out_.law.table = std::move(t);
      }
      for (const TeimAttribute& a : c->attributes) out_.leftOut.push_back("[CURVE] " + a.key + " (not a value of the law)");
    }
    if (!out_.law.given() && !diag_.hasErrors()) nothing(expected);
  }

  void readSpring() {
    const PropertyUnits& u = out_.units;
    // Compression from the free length against the compressive force -> tension against extension.
    const TeimBlock* data = use("SPRING_DATA");
    if (data)
      for (const TeimAttribute& a : data->attributes) {
        if (a.key == "FREE_LENGTH") out_.freeLength = number(*data, a, u.length);
        else if (a.key == "SPRING_RATE" || a.key == "STIFFNESS") {
          if (out_.law.coefficient) {  // both names: one value given twice, not the last winning
            diag_.error(at(a.line), a.key + " in [SPRING_DATA] gives the spring rate a second time (SPRING_RATE and "
                                    "STIFFNESS name one value); give it once");
            continue;
          }
          if (const auto k = number(*data, a, u.force / u.length)) out_.law.coefficient = *k;
        } else {
          out_.leftOut.push_back("[SPRING_DATA] " + a.key + " (not a value of the spring law)");
        }
      }
    const TeimBlock* c = file_.block("CURVE");
    if (c && out_.law.coefficient) {
      diag_.error(at(c->line), "[CURVE] and the spring rate in [SPRING_DATA] both give the spring law; give one of them");
      return;
    }
    if (out_.law.coefficient) {
      used_.insert("CURVE");
      return;
    }
    readCurveFile(u.length, u.force, true,
                  "a 'spr' file holds the spring's curve [CURVE] {disp force} (or SPRING_RATE) and FREE_LENGTH in [SPRING_DATA]");
  }

  void readStop() {
    const PropertyUnits& u = out_.units;
    for (const TeimBlock& b : file_.blocks)
      if (const TeimAttribute* a = b.attribute("CLEARANCE")) {
        if (out_.clearance) {
          diag_.error(at(a->line), "CLEARANCE is given twice (in [" + b.name + "] and before)");
          continue;
        }
        out_.clearance = number(b, *a, u.length);
        used_.insert(b.name);
      }
    readCurveFile(u.length, u.force, false,
                  out_.type == PropertyType::BumpStop
                      ? "a 'bum' file holds the stop's curve [CURVE] {disp force} (force against the travel after contact)"
                      : "a 'reb' file holds the stop's curve [CURVE] {disp force} (force against the travel after contact)");
  }

  /// Hydro bushing: tables of dynamic stiffness and loss angle over frequency, per amplitude.
  void readHydro() {
    const PropertyUnits& u = out_.units;
    for (const TeimBlock& b : file_.blocks) {
      if (!b.table || b.name == "MDI_HEADER" || b.name == "UNITS" || b.name == "SHAPE") continue;
      const TeimTable& t = *b.table;
      int f = -1, a = -1, k = -1, phi = -1;
      for (std::size_t c = 0; c < t.labels.size(); ++c) {
        const std::string& l = t.labels[c];
        const int ci = static_cast<int>(c);
        if (l == "freq" || l == "frequency" || l == "f") f = ci;
        else if (l == "amp" || l == "amplitude") a = ci;
        else if (l == "k" || l == "stiffness" || l == "dyn_stiffness" || l == "kdyn" || l == "k_dyn" || l == "magnitude") k = ci;
        else if (l == "loss_angle" || l == "loss" || l == "phi" || l == "phase" || l == "delta") phi = ci;
      }
      if (f < 0 || k < 0 || phi < 0) continue;
      used_.insert(b.name);
      if (t.bad) continue;
      int direction = 2;  // axial hydro mounts: z unless the block says otherwise
      if (const TeimAttribute* d = b.attribute("DIRECTION")) {
        direction = -1;
        for (int q = 0; q < 6; ++q)
          if (asciiLower(d->value) == kBushingDirections[q]) direction = q;
        if (direction < 0) {
          diag_.error(at(d->line), "DIRECTION in [" + b.name + "] must be x, y, z, rx, ry or rz, found '" +
                                       printableExcerpt(d->value) + "'");
          continue;
        }
      } else {
        for (int q = 0; q < 6; ++q)
          if (b.name.rfind(std::string(kOffsetNames[q]) + "_", 0) == 0 || b.name.rfind(std::string(kAdamsForceNames[q]) + "_", 0) == 0)
            direction = q;
      }
      const bool rot = direction >= 3;
      const double ks = rot ? u.force * u.length / u.angle : u.force / u.length, as = rot ? u.angle : u.length;
      std::optional<double> fixedAmplitude;
      if (const TeimAttribute* am = b.attribute("AMPLITUDE")) fixedAmplitude = number(b, *am, as);
      // One table per amplitude, in the order the rows give them.
      std::vector<HydroTable> tables;
      for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const auto& row = t.rows[r];
        const double amp = a >= 0 ? row[a] * as : fixedAmplitude.value_or(0.0);
        auto it = std::find_if(tables.begin(), tables.end(), [&](const HydroTable& h) { return h.amplitude == amp; });
        if (it == tables.end()) {
          tables.push_back({direction, amp, {}, b.name, t.line});
          it = tables.end() - 1;
        }
        const HydroPoint p{row[f], row[k] * ks, row[phi] * u.angle};
        if (!(p.frequency > 0.0) || !(p.magnitude > 0.0) || !(p.lossAngle >= 0.0 && p.lossAngle < M_PI / 2)) {
          diag_.error(at(t.rowLines[r]), "a row of [" + b.name + "] needs a positive frequency and stiffness and a loss "
                                             "angle from 0 to 90 deg");
          continue;
        }
        if (!it->points.empty() && !(p.frequency > it->points.back().frequency)) {
          diag_.error(at(t.rowLines[r]), "the frequencies of [" + b.name + "] must increase at each amplitude (" +
                                             significant(p.frequency, 8) + " Hz after " +
                                             significant(it->points.back().frequency, 8) + " Hz)");
          continue;
        }
        it->points.push_back(p);
      }
      for (auto& h : tables) {
        if (h.points.size() < 3) {
          diag_.error(at(t.line), "[" + b.name + "] has " + std::to_string(h.points.size()) + " points at amplitude " +
                                      significant(h.amplitude, 6) + " (at least 3 are needed for a fit)");
          continue;
        }
        out_.hydro.push_back(std::move(h));
      }
    }
    if (out_.hydro.empty() && !diag_.hasErrors())
      nothing("an 'hbu' file holds tables of dynamic stiffness and loss angle over frequency, e.g. [DYNAMIC_STIFFNESS] "
              "{frequency amplitude stiffness loss_angle} (labels: frequency, amplitude, stiffness or k, loss_angle or phi)");
  }

  void nothing(const std::string& expected) {
    std::string found;
    for (const TeimBlock& b : file_.blocks) found += (found.empty() ? "[" : ", [") + b.name + "]";
    diag_.error({path_}, "nothing to import: " + expected + "; this file has " + (found.empty() ? "no blocks" : found));
  }

  /// Blocks and sub-blocks that were not read, for the summary.
  void listLeftOut() {
    for (const TeimBlock& b : file_.blocks) {
      for (const TeimBlock& s : b.subBlocks)
        if (!(b.name == "MDI_HEADER" && s.name == "COMMENTS"))
          out_.leftOut.push_back("(" + s.name + ") of [" + b.name + "] (line " + std::to_string(s.line) + ")");
      if (used_.count(b.name) || b.name == "MDI_HEADER" || b.name == "UNITS") continue;
      out_.leftOut.push_back("[" + b.name + "] (line " + std::to_string(b.line) + ")" +
                             (b.name == "SHAPE" ? ": the geometry, for graphics only"
                                                : std::string(": not a block of a '") + propertyTypeName(out_.type) + "' file"));
    }
  }

 private:
  const TeimFile& file_;
  std::string path_;
  Diagnostics& diag_;
  PropertyData& out_;
  std::set<std::string> used_;
};

CurveRow curveFrom(const PropertyTable& t, int id, const std::string& name) {
  CurveRow c;
  c.id = id;
  c.name = name;
  c.interpolation = t.interpolation;
  c.extrapolation = t.extrapolation;
  c.points = t.points;
  return c;
}

}  // namespace

const char* propertyTypeName(PropertyType type) {
  switch (type) {
    case PropertyType::Bushing: return "bus";
    case PropertyType::Spring: return "spr";
    case PropertyType::Damper: return "dpr";
    case PropertyType::BumpStop: return "bum";
    case PropertyType::ReboundStop: return "reb";
    case PropertyType::HydroBushing: return "hbu";
  }
  return "?";
}

PropertyData readPropertyText(const std::string& text, const std::string& path) {
  Diagnostics diag;
  const TeimFile file = parseTeimOrbit(text, path, diag);
  PropertyData out;
  out.path = path;
  const TeimBlock* header = file.block("MDI_HEADER");
  const TeimAttribute* type = header ? header->attribute("FILE_TYPE") : nullptr;
  if (!type) {
    diag.error({path}, "the file has no [MDI_HEADER] block with FILE_TYPE (bus, spr, dpr, bum, reb or hbu): is it an "
                       "Adams property file?");
    diag.throwIfErrors();
  }
  Location typeAt{path};
  typeAt.line = type->line;
  if (!parseType(type->value, out.type)) {
    diag.error(typeAt, "FILE_TYPE '" + printableExcerpt(type->value) +
                           "' is not one Elastokin imports (bus, spr, dpr, bum, reb, hbu; 'bst' is read as 'bum')");
    diag.throwIfErrors();
  }
  if (const TeimAttribute* format = header->attribute("FILE_FORMAT"); format && asciiLower(format->value) != "ascii") {
    Location w{path};
    w.line = format->line;
    diag.error(w, "FILE_FORMAT '" + printableExcerpt(format->value) + "': only ASCII property files can be read");
  }
  const bool bushing = out.type == PropertyType::Bushing || out.type == PropertyType::HydroBushing;
  bool needTime = out.type == PropertyType::Damper;
  if (out.type == PropertyType::Bushing)
    for (const TeimBlock& b : file.blocks)
      needTime = needTime || b.name == "DAMPING" || b.name.find("_DAMPING_CURVE") != std::string::npos;
  out.units = readPropertyUnits(file.block("UNITS"), path, bushing, needTime, diag);
  Reader r(file, path, diag, out);
  switch (out.type) {
    case PropertyType::Bushing: r.readBushing(); break;
    case PropertyType::Spring: r.readSpring(); break;
    case PropertyType::Damper:
      r.readCurveFile(out.units.length / out.units.time, out.units.force, false,
                      "a 'dpr' file holds the damper's curve [CURVE] {vel force} (force against the extension rate)");
      break;
    case PropertyType::BumpStop:
    case PropertyType::ReboundStop: r.readStop(); break;
    case PropertyType::HydroBushing: r.readHydro(); break;
  }
  r.listLeftOut();
  diag.throwIfErrors();
  for (const Diagnostic& d : diag.items())
    if (d.severity == Severity::Warning) out.warnings.push_back(d);
  return out;
}

PropertyData readPropertyFile(const std::string& path) {
  std::string text;
  try {
    text = readTextFile(path, 16u << 20, "property file");
  } catch (const ModelError& e) {
    throw IoError(e.what());
  }
  return readPropertyText(text, path);
}

void checkImportResult(const Project& before, const Project& after, const std::string& path) {
  std::vector<std::string> old;
  const Diagnostics was = ek::check(before), is = ek::check(after);
  for (const Diagnostic& d : was.items()) old.push_back(d.text());
  Diagnostics own;
  for (const Diagnostic& d : is.items())
    if (d.severity == Severity::Error && std::find(old.begin(), old.end(), d.text()) == old.end())
      own.error(d.where, d.message + " (after importing " + path + ")");
  own.throwIfErrors();
}

PropertyImport importPropertyData(const Project& project, ImportTarget target, int id, const PropertyData& data) {
  PropertyImport result;
  result.fileType = propertyTypeName(data.type);
  result.units = data.units.describe();
  result.warnings = data.warnings;
  result.leftOut = data.leftOut;
  const std::string& path = data.path;
  const bool bushingFile = data.type == PropertyType::Bushing || data.type == PropertyType::HydroBushing;
  const std::string tableName = target == ImportTarget::Bushing ? "bushings" : "p2p elements";
  Diagnostics diag;
  if (data.type == PropertyType::HydroBushing)
    diag.error({path}, "a hydro bushing ('hbu') is identified, not copied: import it with the Maxwell fit "
                       "(elastokin-sim --import, or Edit > Import in the workbench)");
  else if (bushingFile != (target == ImportTarget::Bushing))
    diag.error({path}, std::string("a '") + result.fileType + "' file describes " + (bushingFile ? "a bushing" : "a P2P element") +
                           ", not a row of the " + tableName + " table");
  int index = -1;
  if (target == ImportTarget::Bushing) {
    for (std::size_t k = 0; k < project.bushings.size(); ++k)
      if (project.bushings[k].id == id) index = static_cast<int>(k);
  } else {
    for (std::size_t k = 0; k < project.p2ps.size(); ++k)
      if (project.p2ps[k].id == id) index = static_cast<int>(k);
  }
  if (index < 0) diag.error({project.sourcePath, tableName, "id " + std::to_string(id), ""}, "no such row to import onto");
  diag.throwIfErrors();

  Project out = project;
  int nextCurve = 1;
  for (const auto& c : out.curves) nextCurve = std::max(nextCurve, c.id + 1);
  const std::string stem = std::filesystem::path(path).stem().string();
  auto law = [&](const PropertyLaw& l, const std::string& name, LawRow& target) {
    if (l.table) {
      out.curves.push_back(curveFrom(*l.table, nextCurve, name));
      target = LawRow{0.0, nextCurve};
      result.changes.push_back(name + ": curve " + std::to_string(nextCurve) + ", " + std::to_string(l.table->points.size()) +
                               " points from [" + l.table->block + "]");
      ++nextCurve;
    } else if (l.coefficient) {
      target = LawRow{*l.coefficient, std::nullopt};
      result.changes.push_back(name + ": coefficient " + significant(*l.coefficient, 10));
    }
  };
  if (target == ImportTarget::Bushing) {
    BushingRow& b = out.bushings[index];
    std::vector<std::string> kept;
    for (int d = 0; d < 6; ++d) {
      const std::string dir = kBushingDirections[d], label = b.name + " " + dir;
      const char* unit = d >= 3 ? " N m" : " N";
      PropertyLaw stiffness = data.stiffness[d];
      if (data.offset[d] && *data.offset[d] != 0.0) {
        // The law is zero at the offset: S(q) = S_file(q - offset), a shifted curve.
        if (stiffness.table)
          for (auto& p : stiffness.table->points) p[0] += *data.offset[d];
        result.changes.push_back(label + " offset " + significant(*data.offset[d], 10) + (d >= 3 ? " rad" : " m") +
                                 ": the stiffness curve is shifted by it");
        if (!stiffness.table)
          result.leftOut.push_back(label + " offset (the file gives no stiffness table to shift)");
      }
      if (stiffness.given()) law(stiffness, label + " stiffness (" + stem + ")", b.directions[d].stiffness);
      else kept.push_back(dir + " stiffness");
      if (data.damping[d].given()) law(data.damping[d], label + " damping (" + stem + ")", b.directions[d].damping);
      else kept.push_back(dir + " damping");
      if (data.preload[d]) {
        b.directions[d].preload = *data.preload[d];
        result.changes.push_back(label + " preload: " + significant(*data.preload[d], 10) + unit);
      }
    }
    if (!kept.empty() && kept.size() < 12) {
      std::string list;
      for (const auto& k : kept) list += (list.empty() ? "" : ", ") + k;
      result.warnings.push_back({Severity::Warning, {path}, "not in the file, kept as they were: " + list});
    }
  } else {
    P2PRow& e = out.p2ps[index];
    switch (data.type) {
      case PropertyType::Spring:
        law(data.law, e.name + " spring (" + stem + ")", e.spring);
        if (data.freeLength) {
          e.freeLength = *data.freeLength;
          result.changes.push_back(e.name + " free length: " + significant(*data.freeLength, 10) + " m");
        } else {
          result.warnings.push_back({Severity::Warning, {path}, "no FREE_LENGTH in [SPRING_DATA]: the free length is kept"});
        }
        if (e.preload != 0.0) result.warnings.push_back({Severity::Warning, {path}, "the element's preload (" +
                                                         significant(e.preload, 6) + " N) is kept and adds to the file's curve"});
        break;
      case PropertyType::Damper: law(data.law, e.name + " damper (" + stem + ")", e.damper); break;
      case PropertyType::BumpStop:
      case PropertyType::ReboundStop: {
        const bool bump = data.type == PropertyType::BumpStop;
        std::optional<StopRow>& stop = bump ? e.bumpStop : e.reboundStop;
        if (!stop) stop = StopRow{};
        law(data.law, e.name + (bump ? " bump stop (" : " rebound stop (") + stem + ")", stop->law);
        if (data.clearance) {
          stop->clearance = *data.clearance;
          result.changes.push_back(e.name + (bump ? " bump" : " rebound") + " stop clearance: " +
                                   significant(*data.clearance, 10) + " m");
        } else {
          result.warnings.push_back({Severity::Warning, {path}, std::string("the ") + (bump ? "bump" : "rebound") +
                                                                    " stop's clearance is not in the file (Adams/Car keeps "
                                                                    "it in the subsystem): " +
                                                                    significant(stop->clearance, 6) + " m kept"});
        }
        break;
      }
      default: break;
    }
  }
  checkImportResult(project, out, path);
  result.project = std::move(out);
  return result;
}

PropertyImport importPropertyFile(const Project& project, ImportTarget target, int id, const std::string& path) {
  return importPropertyData(project, target, id, readPropertyFile(path));
}

}  // namespace ek
