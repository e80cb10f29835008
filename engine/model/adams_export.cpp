// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/adams_export.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/core/rotation.h"
#include "engine/core/text.h"
#include "engine/model/teim_orbit.h"

namespace ek {

namespace {

constexpr const char* kCurveLabels[][2] = {{"x", "fx"}, {"y", "fy"}, {"z", "fz"}, {"ax", "tx"}, {"ay", "ty"}, {"az", "tz"}};
constexpr const char* kRateLabels[][2] = {{"vx", "fx"}, {"vy", "fy"}, {"vz", "fz"}, {"wx", "tx"}, {"wy", "ty"}, {"wz", "tz"}};

TeimAttribute text(const std::string& key, const std::string& value) { return {key, value, true, 0}; }
TeimAttribute number(const std::string& key, double value) {
  // A value the file's units cannot hold (1e308 N in mN) would be written as "inf", which no
  // reader takes back.
  if (!std::isfinite(value))
    throw std::invalid_argument(key + " is " + shortestText(value) + " in the file's units: it does not fit a number; choose other units");
  return {key, shortestText(value), false, 0};
}

class Writer {
 public:
  Writer(const Project& p, const PropertyUnits& u, const std::string& element) : project_(p), units_(u), element_(element) {}

  /// The points of a law in SI (a constant: a straight line through zero over about +-span, a
  /// round number in the file's unit `unit`).
  std::vector<std::array<double, 2>> points(const LawRow& law, double span, double unit, const char* what,
                                            const CurveRow** curve) {
    *curve = nullptr;
    if (!law.curve) {
      const double s = unit * std::pow(10.0, std::floor(std::log10(span / unit) + 1e-9));
      return {{-s, -law.coefficient * s}, {0.0, 0.0}, {s, law.coefficient * s}};
    }
    for (const CurveRow& c : project_.curves)
      if (c.id == *law.curve) {
        *curve = &c;
        return c.points;
      }
    throw ModelError({project_.sourcePath, "curves", "id " + std::to_string(*law.curve), ""},
                     "the " + std::string(what) + " of " + element_ + " is curve " + std::to_string(*law.curve) +
                         ", which does not exist");
  }

  /// A block holding a table of `pts` (SI) in file units (x / sx, y / sy).
  TeimBlock table(const std::string& name, const char* xl, const char* yl, const std::vector<std::array<double, 2>>& pts,
                  double sx, double sy, const CurveRow* curve) {
    TeimBlock b;
    b.name = name;
    TeimTable t;
    t.labels = {xl, yl};
    for (const auto& p : pts) t.rows.push_back({p[0] / sx, p[1] / sy});
    b.table = std::move(t);
    // Adams interpolates with Akima splines and extrapolates linearly; Elastokin reads a table as
    // PCHIP. Another choice is recorded for Elastokin (Adams ignores comments).
    if (curve && curve->interpolation != "pchip") b.tableComments.push_back("interpolation: " + curve->interpolation);
    if (curve && curve->extrapolation != "linear") b.tableComments.push_back("extrapolation: " + curve->extrapolation);
    return b;
  }

  static TeimBlock header(PropertyType type, const std::string& comment) {
    TeimBlock h;
    h.name = "MDI_HEADER";
    h.attributes = {text("FILE_TYPE", propertyTypeName(type)), {"FILE_VERSION", "4.0", false, 0}, text("FILE_FORMAT", "ASCII")};
    TeimBlock comments;
    comments.name = "COMMENTS";
    TeimTable t;
    t.labels = {"comment_string"};
    std::string c = comment;  // one quoted string: quotes inside become double quotes
    std::replace(c.begin(), c.end(), '\'', '"');
    t.textRows = {c};
    comments.table = std::move(t);
    h.subBlocks.push_back(std::move(comments));
    return h;
  }

  const Project& project_;
  const PropertyUnits& units_;
  std::string element_;
};

const MarkerRow* markerOf(const Project& p, int id) {
  for (const MarkerRow& m : p.markers)
    if (m.id == id) return &m;
  return nullptr;
}

/// The distance of a P2P element's markers as modelled (its free length when none is given).
double modelledLength(const Project& p, const P2PRow& e) {
  auto world = [&](int markerId) {
    const MarkerRow* m = markerOf(p, markerId);
    if (!m) return Vec3(Vec3::Zero());
    for (const BodyRow& b : p.bodies)
      if (b.id == m->body) return Vec3(b.position + rotation::matrix(b.orientation) * m->position);
    return Vec3(m->position);
  };
  return (world(e.markerI) - world(e.markerJ)).norm();
}

}  // namespace

bool parseExportElement(const std::string& spec, PropertyType& type, int& id) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos) return false;
  const std::string kind = spec.substr(0, colon);
  if (kind == "bushing") type = PropertyType::Bushing;
  else if (kind == "spring") type = PropertyType::Spring;
  else if (kind == "damper") type = PropertyType::Damper;
  else if (kind == "bumpstop") type = PropertyType::BumpStop;
  else if (kind == "reboundstop") type = PropertyType::ReboundStop;
  else return false;
  long long v = 0;
  if (!parseInteger(spec.substr(colon + 1), v, 0, 2147483647)) return false;
  id = static_cast<int>(v);
  return true;
}

PropertyExport exportPropertyFile(const Project& project, PropertyType type, int id, const PropertyUnits& u) {
  PropertyExport out;
  out.type = type;
  TeimFile file;
  const std::string source = project.name.empty() ? project.sourcePath : project.name;
  if (type == PropertyType::Bushing) {
    const BushingRow* b = nullptr;
    for (const BushingRow& r : project.bushings)
      if (r.id == id) b = &r;
    if (!b) throw ModelError({project.sourcePath, "bushings", "id " + std::to_string(id), ""}, "no such bushing to export");
    const std::string element = "bushing " + std::to_string(id) + " ('" + b->name + "')";
    Writer w(project, u, element);
    file.blocks.push_back(Writer::header(type, "Exported by Elastokin from " + source + ", " + element));
    file.blocks.push_back(unitsBlock(u));
    TeimBlock damping;
    damping.name = "DAMPING";
    std::vector<TeimBlock> curves, dampingCurves;
    TeimBlock preload;
    preload.name = "PRELOAD";
    for (int d = 0; d < 6; ++d) {
      const bool rot = d >= 3;
      const double lx = rot ? u.angle : u.length, f = rot ? u.force * u.length : u.force;
      const BushingDirectionRow& dir = b->directions[d];
      const std::string name = kBushingDirections[d];
      const CurveRow* curve = nullptr;
      const auto stiff = w.points(dir.stiffness, rot ? 0.1 : 0.01, lx, (name + " stiffness").c_str(), &curve);
      curves.push_back(w.table(std::string(kAdamsForceNames[d]) + "_CURVE", kCurveLabels[d][0], kCurveLabels[d][1], stiff, lx, f, curve));
      out.written.push_back(name + " stiffness: " + (curve ? "curve " + std::to_string(curve->id) : "constant " +
                            significant(dir.stiffness.coefficient, 10)) + " -> [" + kAdamsForceNames[d] + "_CURVE]");
      if (dir.damping.curve) {
        const auto pts = w.points(dir.damping, 1.0, lx / u.time, (name + " damping").c_str(), &curve);
        dampingCurves.push_back(w.table(std::string(kAdamsForceNames[d]) + "_DAMPING_CURVE", kRateLabels[d][0], kRateLabels[d][1],
                                        pts, lx / u.time, f, curve));
        out.written.push_back(name + " damping: curve " + std::to_string(curve->id) + " -> [" + kAdamsForceNames[d] + "_DAMPING_CURVE]");
      } else {
        damping.attributes.push_back(number(std::string(kAdamsForceNames[d]) + "_DAMPING", dir.damping.coefficient / (f * u.time / lx)));
        out.written.push_back(name + " damping: constant " + significant(dir.damping.coefficient, 10) + " -> [DAMPING]");
      }
      if (dir.preload != 0.0) {
        preload.attributes.push_back(number(kAdamsForceNames[d], dir.preload / f));
        out.written.push_back(name + " preload -> [PRELOAD]");
      }
      if (!dir.maxwell.empty())
        out.leftOut.push_back(name + ": " + std::to_string(dir.maxwell.size()) +
                              " Maxwell branch(es) (a 'bus' file has no block for them)");
    }
    if (!damping.attributes.empty()) file.blocks.push_back(std::move(damping));
    for (auto& c : curves) file.blocks.push_back(std::move(c));
    for (auto& c : dampingCurves) file.blocks.push_back(std::move(c));
    if (!preload.attributes.empty()) file.blocks.push_back(std::move(preload));
  } else {
    const P2PRow* e = nullptr;
    for (const P2PRow& r : project.p2ps)
      if (r.id == id) e = &r;
    if (!e) throw ModelError({project.sourcePath, "p2p elements", "id " + std::to_string(id), ""}, "no such P2P element to export");
    const std::string element = "P2P element " + std::to_string(id) + " ('" + e->name + "')";
    Writer w(project, u, element);
    file.blocks.push_back(Writer::header(type, "Exported by Elastokin from " + source + ", " + element));
    file.blocks.push_back(unitsBlock(u));
    const CurveRow* curve = nullptr;
    if (type == PropertyType::Spring) {
      TeimBlock data;
      data.name = "SPRING_DATA";
      const double free = e->freeLength ? *e->freeLength : modelledLength(project, *e);
      data.attributes.push_back(number("FREE_LENGTH", free / u.length));
      file.blocks.push_back(std::move(data));
      // Tension against extension (plus the preload) -> compressive force against compression.
      auto pts = w.points(e->spring, 0.05, u.length, "spring", &curve);
      for (auto& p : pts) p = {-p[0], -(p[1] + e->preload)};
      std::reverse(pts.begin(), pts.end());
      file.blocks.push_back(w.table("CURVE", "disp", "force", pts, u.length, u.force, curve));
      out.written.push_back(std::string("spring: ") + (curve ? "curve " + std::to_string(curve->id) : "constant") +
                            (e->preload != 0.0 ? " with the preload " + significant(e->preload, 10) + " N" : "") +
                            " -> [CURVE]; free length " + significant(free, 10) + " m -> [SPRING_DATA]" +
                            (e->freeLength ? "" : " (the distance of the markers as modelled)"));
      if (e->damper.curve || e->damper.coefficient != 0.0) out.leftOut.push_back("the damper (export it as damper:" + std::to_string(id) + ")");
    } else if (type == PropertyType::Damper) {
      const auto pts = w.points(e->damper, 1.0, u.length / u.time, "damper", &curve);
      file.blocks.push_back(w.table("CURVE", "vel", "force", pts, u.length / u.time, u.force, curve));
      out.written.push_back(std::string("damper: ") + (curve ? "curve " + std::to_string(curve->id) : "constant") + " -> [CURVE]");
    } else {
      const bool bump = type == PropertyType::BumpStop;
      const std::optional<StopRow>& stop = bump ? e->bumpStop : e->reboundStop;
      if (!stop)
        throw ModelError({project.sourcePath, "p2p elements", "id " + std::to_string(id), bump ? "bump stop" : "rebound stop"},
                         element + " has no " + (bump ? "bump" : "rebound") + " stop to export");
      TeimBlock data;
      data.name = bump ? "BUMPSTOP_DATA" : "REBOUNDSTOP_DATA";
      data.attributes.push_back(number("CLEARANCE", stop->clearance / u.length));
      file.blocks.push_back(std::move(data));
      const auto pts = w.points(stop->law, 0.02, u.length, bump ? "bump stop" : "rebound stop", &curve);
      file.blocks.push_back(w.table("CURVE", "disp", "force", pts, u.length, u.force, curve));
      out.written.push_back(std::string(bump ? "bump" : "rebound") + " stop: " +
                            (curve ? "curve " + std::to_string(curve->id) : "constant") + " -> [CURVE], clearance " +
                            significant(stop->clearance, 10) + " m -> [" + data.name + "]");
    }
  }
  out.text = writeTeimOrbit(file);
  return out;
}

}  // namespace ek
