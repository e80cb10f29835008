// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/validate.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "engine/core/rotation.h"
#include "engine/core/text.h"
#include "engine/model/curve.h"
#include "engine/model/project_io.h"

namespace ek {
namespace {

std::string num(double v) { return significant(v, 6); }

/// Records problems with the location of their row and field.
class Checker {
 public:
  Checker(const Project& p, Diagnostics& d) : p_(p), d_(d) {}

  template <class Row>
  Location at(const std::string& table, const Row& row, const std::string& field) const {
    Location w{p_.sourcePath, table, "id " + std::to_string(row.id), field};
    w.rowName = row.name;
    return w;
  }
  /// Rows named rather than numbered (load cases, outputs) and the project's own fields.
  Location atNamed(const std::string& table, const std::string& name, const std::string& field) const {
    return {p_.sourcePath, table, table.empty() ? "" : "'" + printableExcerpt(name) + "'", field};
  }
  void error(Location w, const std::string& what) const { d_.error(std::move(w), what); }
  void warning(Location w, const std::string& what) const { d_.warning(std::move(w), what); }

  /// Ids of a table; a repeated id is an error and the first row with it is kept.
  template <class Rows>
  std::map<int, std::size_t> uniqueIds(const Rows& rows, const std::string& table) const {
    std::map<int, std::size_t> ids;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const auto [it, inserted] = ids.emplace(rows[k].id, k);
      if (!inserted)
        error(at(table, rows[k], "id"), "duplicate id " + std::to_string(rows[k].id) + " (also row #" +
                                            std::to_string(it->second + 1) + " of the table)");
    }
    return ids;
  }

 private:
  const Project& p_;
  Diagnostics& d_;
};

std::string stiffnessKey(int k) { return std::string(kBushingDirections[k]) + (k >= 3 ? ".stiffness [N m/rad]" : ".stiffness [N/m]"); }
/// "x.maxwell[2].stiffness [N/m]": a field of the n-th (from 1) Maxwell branch of direction k.
std::string branchKey(int k, std::size_t n, bool stiffness) {
  const bool rot = k >= 3;
  return std::string(kBushingDirections[k]) + ".maxwell[" + std::to_string(n + 1) + "]." +
         (stiffness ? (rot ? "stiffness [N m/rad]" : "stiffness [N/m]") : (rot ? "damping [N m s/rad]" : "damping [N s/m]"));
}
std::string dampingKey(int k) { return std::string(kBushingDirections[k]) + (k >= 3 ? ".damping [N m s/rad]" : ".damping [N s/m]"); }
std::string preloadKey(int k) { return std::string(kBushingDirections[k]) + (k >= 3 ? ".preload [N m]" : ".preload [N]"); }

void checkLaw(const Checker& c, const std::map<int, std::size_t>& curves, const LawRow& law, Location where) {
  if (law.curve) {
    if (!curves.count(*law.curve)) c.error(std::move(where), "curve " + std::to_string(*law.curve) + " does not exist");
  } else if (law.coefficient < 0.0) {
    c.error(std::move(where), "must not be negative");
  }
}

/// A steering rack's travel curve (docs/steering.md, "Variable ratio"): its slope is the rack's
/// ratio, so it must keep one sign and never vanish, beyond the points too (linear extrapolation).
/// A curve with errors of its own is left to their messages.
void checkTravelCurve(const Checker& c, const CurveRow& cv, const Location& where) {
  Interpolation ip;
  Extrapolation ep;
  if (!parseInterpolation(cv.interpolation, ip) || !parseExtrapolation(cv.extrapolation, ep) || cv.points.size() < 2)
    return;
  std::vector<double> x, y;
  for (const auto& pt : cv.points) {
    if (!std::isfinite(pt[0]) || !std::isfinite(pt[1]) || (!x.empty() && !(pt[0] > x.back()))) return;
    x.push_back(pt[0]);
    y.push_back(pt[1]);
  }
  const std::string which = "curve " + std::to_string(cv.id);
  if (ep != Extrapolation::Linear) {
    c.error(where, which + " holds its end values (extrapolation 'constant'): the slope of a travel curve is the "
                           "rack's ratio, beyond the points too, so it needs 'linear' extrapolation");
    return;
  }
  const Curve curve(x, y, ip, ep);
  constexpr int kSamples = 16;  // per interval, the points included
  double sign = 0.0;
  for (std::size_t k = 0; k + 1 < x.size(); ++k)
    for (int j = 0; j <= kSamples; ++j) {
      const double at = x[k] + (x[k + 1] - x[k]) * j / kSamples;
      const double slope = curve.eval(at).dydx;
      if (!(std::abs(slope) > 0.0) || slope * sign < 0.0) {
        c.error(where, which + (slope * sign < 0.0 ? " turns back" : " is flat") + " at x = " + num(at) +
                           " (slope " + num(slope) + "): its slope is the rack's ratio, so the travel must rise "
                           "or fall strictly over the whole curve");
        return;
      }
      sign = slope;
    }
}

bool componentValid(OutputQuantity q, const std::string& comp) {
  static const std::set<std::string> xyz{"x", "y", "z"}, rot{"rx", "ry", "rz"};
  switch (q) {
    case OutputQuantity::MarkerPosition:
    case OutputQuantity::MarkerDisplacement:
    case OutputQuantity::MarkerVelocity: return xyz.count(comp) > 0;
    case OutputQuantity::BodyAngles:
    case OutputQuantity::BodyAngularVelocity: return rot.count(comp) > 0;
    case OutputQuantity::BushingForce:
    case OutputQuantity::BushingDeflection: return xyz.count(comp) > 0 || rot.count(comp) > 0;
    case OutputQuantity::BushingBranchDeflection: {
      int direction = 0, branch = 0;
      return parseBranchComponent(comp, direction, branch);
    }
    case OutputQuantity::P2PForce:
    case OutputQuantity::P2PLength:
    case OutputQuantity::Input: return comp.empty();
    case OutputQuantity::Wheel:
      return std::find(kWheelComponents.begin(), kWheelComponents.end(), comp) != kWheelComponents.end();
    case OutputQuantity::ErrorEstimate:
      return std::find(kErrorEstimateComponents.begin(), kErrorEstimateComponents.end(), comp) !=
             kErrorEstimateComponents.end();
    case OutputQuantity::ModalCoordinate: {
      int mode = 0;
      bool rate = false;
      return parseModalComponent(comp, mode, rate);
    }
    case OutputQuantity::Tyre:
      return std::find(kTyreComponents.begin(), kTyreComponents.end(), comp) != kTyreComponents.end();
    case OutputQuantity::SteeringRack:
      return std::find(kSteeringRackComponents.begin(), kSteeringRackComponents.end(), comp) !=
             kSteeringRackComponents.end();
  }
  return false;
}

/// NaN/Inf anywhere is an error (projects edited in memory never went through the JSON reader).
void checkFinite(const Project& p, const Checker& c) {
  auto numAt = [&](double v, Location w) {
    if (!std::isfinite(v)) c.error(std::move(w), "value is not finite");
  };
  auto vecAt = [&](const Vec3& v, const Location& w) {
    if (!v.allFinite()) c.error(w, "value is not finite");
  };
  vecAt(p.gravity, c.atNamed("", "", "gravity [m/s^2]"));
  numAt(p.simulation.step, c.atNamed("", "", "simulation.step [s]"));
  numAt(p.simulation.sampleRate, c.atNamed("", "", "simulation.sample rate [Hz]"));
  for (const auto& b : p.bodies) {
    numAt(b.mass, c.at("bodies", b, "mass [kg]"));
    vecAt(b.com, c.at("bodies", b, "com [m]"));
    if (!std::all_of(b.inertia.begin(), b.inertia.end(), [](double v) { return std::isfinite(v); }))
      c.error(c.at("bodies", b, "inertia [kg m^2]"), "value is not finite");
    vecAt(b.position, c.at("bodies", b, "position [m]"));
    vecAt(b.orientation, c.at("bodies", b, "orientation [rad]"));
    vecAt(b.velocity, c.at("bodies", b, "velocity [m/s]"));
    vecAt(b.angularVelocity, c.at("bodies", b, "angular velocity [rad/s]"));
  }
  for (const auto& m : p.markers) {
    vecAt(m.position, c.at("markers", m, "position [m]"));
    vecAt(m.orientation, c.at("markers", m, "orientation [rad]"));
  }
  for (const auto& b : p.bushings)
    for (int k = 0; k < 6; ++k) {
      numAt(b.directions[k].stiffness.coefficient, c.at("bushings", b, stiffnessKey(k)));
      numAt(b.directions[k].damping.coefficient, c.at("bushings", b, dampingKey(k)));
      numAt(b.directions[k].preload, c.at("bushings", b, preloadKey(k)));
      for (std::size_t n = 0; n < b.directions[k].maxwell.size(); ++n) {
        numAt(b.directions[k].maxwell[n].stiffness, c.at("bushings", b, branchKey(k, n, true)));
        numAt(b.directions[k].maxwell[n].damping, c.at("bushings", b, branchKey(k, n, false)));
      }
    }
  for (const auto& e : p.p2ps) {
    if (e.freeLength) numAt(*e.freeLength, c.at("p2p elements", e, "free length [m]"));
    numAt(e.preload, c.at("p2p elements", e, "preload [N]"));
    numAt(e.spring.coefficient, c.at("p2p elements", e, "spring [N/m]"));
    numAt(e.damper.coefficient, c.at("p2p elements", e, "damper [N s/m]"));
    for (const auto* stop : {&e.bumpStop, &e.reboundStop}) {
      if (!*stop) continue;
      const std::string key = stop == &e.bumpStop ? "bump stop" : "rebound stop";
      numAt((*stop)->clearance, c.at("p2p elements", e, key + ".clearance [m]"));
      numAt((*stop)->law.coefficient, c.at("p2p elements", e, key + ".stiffness [N/m]"));
    }
  }
  for (const auto& e : p.steeringRacks) {
    numAt(e.ratio, c.at("steering racks", e, "ratio [m/rad]"));
    numAt(e.columnStiffness, c.at("steering racks", e, "column stiffness [N m/rad]"));
    numAt(e.columnDamping, c.at("steering racks", e, "column damping [N m s/rad]"));
  }
  for (const auto& cv : p.curves)
    for (const auto& pt : cv.points)
      if (!std::isfinite(pt[0]) || !std::isfinite(pt[1])) c.error(c.at("curves", cv, "points"), "value is not finite");
  for (const auto& in : p.inputs) vecAt(in.direction, c.at("inputs", in, "direction"));
  for (const auto& w : p.wheels) {
    numAt(w.radius, c.at("wheels", w, "radius [m]"));
    numAt(w.spinInertia, c.at("wheels", w, "spin inertia [kg m^2]"));
    numAt(w.lowSpeedDamping, c.at("wheels", w, "low-speed damping [N s/m]"));
    numAt(w.roadHeight, c.at("wheels", w, "road height [m]"));
  }
  if (p.vehicle) {
    numAt(p.vehicle->wheelbase, c.atNamed("", "", "vehicle.wheelbase [m]"));
    numAt(p.vehicle->cgHeight, c.atNamed("", "", "vehicle.cg height [m]"));
    numAt(p.vehicle->frontBrakeShare, c.atNamed("", "", "vehicle.front brake share"));
    numAt(p.vehicle->frontDriveShare, c.atNamed("", "", "vehicle.front drive share"));
    numAt(p.vehicle->sprungMass, c.atNamed("", "", "vehicle.sprung mass [kg]"));
    numAt(p.vehicle->frontMassShare, c.atNamed("", "", "vehicle.sprung mass front share"));
    numAt(p.vehicle->otherAxleRollStiffness, c.atNamed("", "", "vehicle.other axle roll stiffness [N m/deg]"));
    numAt(p.vehicle->otherAxleRollCentreHeight, c.atNamed("", "", "vehicle.other axle roll centre height [m]"));
  }
  for (const auto& lc : p.loadCases) {
    numAt(lc.duration, c.atNamed("load cases", lc.name, "duration [s]"));
    for (std::size_t k = 0; k < lc.drives.size(); ++k) {
      const SignalRow& s = lc.drives[k].signal;
      for (double v : {s.value, s.value2, s.t0, s.t1, s.amplitude, s.frequency, s.frequency2, s.phase})
        numAt(v, c.atNamed("load cases", lc.name, "signals[" + std::to_string(k) + "]"));
    }
  }
}

/// The ids of the bodies that a flexible-body row makes flexible.
std::set<int> flexibleBodyIds(const Project& p) {
  std::set<int> ids;
  for (const auto& f : p.flexibleBodies) ids.insert(f.body);
  return ids;
}

void checkBodies(const Project& p, const Checker& c) {
  const std::set<int> flexible = flexibleBodyIds(p);
  for (const auto& b : p.bodies) {
    if (b.fixed) continue;
    if (flexible.count(b.id)) {
      // Mass and inertia come from the beams or the reduced body; a value here would be ignored, so it is an error.
      const bool zero = b.mass == 0.0 && b.com == Vec3::Zero() &&
                        std::all_of(b.inertia.begin(), b.inertia.end(), [](double v) { return v == 0.0; });
      if (!zero)
        c.error(c.at("bodies", b, "mass [kg]"),
                "the body is flexible (table 'flexible bodies'): its mass, centre of mass and inertia come from "
                "its beams or its reduced body; leave mass, com and inertia 0 here");
      continue;
    }
    if (std::isfinite(b.mass) && !(b.mass > 0.0))
      c.error(c.at("bodies", b, "mass [kg]"), "mass must be positive, is " + num(b.mass));
    if (std::all_of(b.inertia.begin(), b.inertia.end(), [](double v) { return std::isfinite(v); })) {
      const Eigen::SelfAdjointEigenSolver<Mat3> eig(inertiaTensor(b.inertia));
      const Vec3 l = eig.eigenvalues();
      if (!(l.minCoeff() > 0.0))
        c.error(c.at("bodies", b, "inertia [kg m^2]"), "inertia tensor is not positive definite (principal moments " +
                                                           num(l[0]) + ", " + num(l[1]) + ", " + num(l[2]) + ")");
      else if (l[0] + l[1] < l[2] - 1e-9 * l.maxCoeff())
        c.error(c.at("bodies", b, "inertia [kg m^2]"), "principal moments violate the triangle inequality (" +
                                                           num(l[0]) + " + " + num(l[1]) + " < " + num(l[2]) + ")");
    }
    if (std::abs(std::cos(b.orientation[1])) < 1e-3)
      c.error(c.at("bodies", b, "orientation [rad]"),
              "pitch angle alpha_y' at +-90 deg is the Cardan singularity; choose the body frame so that it "
              "does not rotate about its y' axis by large angles");
  }
  if (std::none_of(p.bodies.begin(), p.bodies.end(), [](const BodyRow& b) { return !b.fixed; }))
    c.error(c.atNamed("bodies", "", ""), "the project has no free body");
}

/// A body reduced elsewhere: its markers on the body, the data's sizes consistent, the modes
/// ascending and positive.
void checkReducedBody(const Project& p, const Checker& c, const FlexibleBodyRow& f,
                      const std::map<int, std::size_t>& markers) {
  const std::string t = "flexible bodies";
  const fe::ModalBody& m = f.reduced->modal;
  const int n = static_cast<int>(m.frequencies.size()), nodes = static_cast<int>(m.nodes.size());
  const std::string key = "reduced body.";
  if (f.reduced->interfaceMarkers.empty())
    c.error(c.at(t, f, key + "interface markers"), "names no marker: the body needs at least one interface");
  std::set<int> seenMarkers;
  for (int id : f.reduced->interfaceMarkers) {
    if (!markers.count(id)) c.error(c.at(t, f, key + "interface markers"), "marker " + std::to_string(id) + " does not exist");
    else if (p.markers[markers.at(id)].body != f.body)
      c.error(c.at(t, f, key + "interface markers"),
              "marker " + std::to_string(id) + " is on body " + std::to_string(p.markers[markers.at(id)].body) +
                  ", not on body " + std::to_string(f.body));
    if (!seenMarkers.insert(id).second)
      c.error(c.at(t, f, key + "interface markers"), "marker " + std::to_string(id) + " is named twice");
  }
  if (!(std::isfinite(m.mass) && m.mass > 0.0)) c.error(c.at(t, f, key + "mass [kg]"), "must be positive, is " + num(m.mass));
  if (!m.inertia.allFinite() || (m.inertia - m.inertia.transpose()).norm() > 1e-9 * m.inertia.norm() ||
      m.inertia.selfadjointView<Eigen::Lower>().eigenvalues().minCoeff() <= 0.0)
    c.error(c.at(t, f, key + "inertia [kg m^2]"), "must be symmetric and positive definite");
  for (int k = 0; k < n; ++k)
    if (!(std::isfinite(m.frequencies[k]) && m.frequencies[k] > 0.0 && (k == 0 || m.frequencies[k] >= m.frequencies[k - 1]))) {
      c.error(c.at(t, f, key + "frequencies [Hz]"), "must be positive and ascending; mode " + std::to_string(k + 1) +
                                                        " is " + num(m.frequencies[k]) + " Hz");
      break;
    }
  const bool sizes = nodes == static_cast<int>(f.reduced->interfaceMarkers.size()) && m.shapes.rows() == 6 * nodes &&
                     m.shapes.cols() == n && m.stiffness.size() == n && static_cast<int>(m.G.size()) == n &&
                     static_cast<int>(m.H.size()) == n * n && static_cast<int>(m.E.size()) == n;
  if (!sizes)
    c.error(c.at(t, f, "reduced body"), "its sizes do not fit: " + std::to_string(n) + " modes and " +
                                            std::to_string(f.reduced->interfaceMarkers.size()) +
                                            " interface markers need as many nodes, 6 shape rows per node, n G, n^2 H and n E");
  if (!m.shapes.allFinite()) c.error(c.at(t, f, key + "node shapes"), "must be finite");
}

/// Flexible bodies: a free body each, a beam that can be assembled, a marker to carry the body,
/// and only the elements that ride on its nodes so far (bushings, P2P elements, steering racks);
/// wheels on a flexible body are not supported yet (docs/flexible-bodies.md).
void checkFlexibleBodies(const Project& p, const Checker& c, const std::map<int, std::size_t>& bodies,
                         const std::map<int, std::size_t>& markers) {
  const std::string t = "flexible bodies";
  c.uniqueIds(p.flexibleBodies, t);
  std::set<int> seen;
  for (const auto& f : p.flexibleBodies) {
    if (!bodies.count(f.body)) {
      c.error(c.at(t, f, "body"), "body " + std::to_string(f.body) + " does not exist");
      continue;
    }
    if (p.bodies[bodies.at(f.body)].fixed)
      c.error(c.at(t, f, "body"), "body " + std::to_string(f.body) + " is fixed; only a free body can be flexible");
    if (!seen.insert(f.body).second)
      c.error(c.at(t, f, "body"), "body " + std::to_string(f.body) + " is made flexible by another row already");
    if (f.reduced) {
      checkReducedBody(p, c, f, markers);
    } else {
    if (f.points.size() < 2)
      c.error(c.at(t, f, "points [m]"), "a beam needs at least 2 points, has " + std::to_string(f.points.size()));
    for (std::size_t k = 0; k < f.points.size(); ++k)
      if (!f.points[k].allFinite()) c.error(c.at(t, f, "points [m]"), "point " + std::to_string(k + 1) + " is not finite");
    for (std::size_t k = 1; k < f.points.size(); ++k) {
      const Vec3 d = f.points[k] - f.points[k - 1];
      if (!(d.norm() > 1e-9)) {
        c.error(c.at(t, f, "points [m]"), "points " + std::to_string(k) + " and " + std::to_string(k + 1) + " coincide");
      } else if (f.up.allFinite() && d.normalized().cross(f.up).norm() < 1e-6 * std::max(f.up.norm(), 1e-300)) {
        c.error(c.at(t, f, "up"), "is along the beam between points " + std::to_string(k) + " and " +
                                      std::to_string(k + 1) + "; it must fix the section's axes");
      }
    }
    if (f.elementsPerSegment < 1 || f.elementsPerSegment > 1000)
      c.error(c.at(t, f, "elements per segment"), "must be 1 to 1000, is " + std::to_string(f.elementsPerSegment));
    const std::pair<double, const char*> positive[] = {
        {f.section.area, "section.area [m^2]"}, {f.section.iy, "section.iy [m^4]"},
        {f.section.iz, "section.iz [m^4]"}, {f.section.torsion, "section.torsion [m^4]"},
        {f.material.youngsModulus, "material.E [Pa]"}, {f.material.shearModulus, "material.G [Pa]"},
        {f.material.density, "material.density [kg/m^3]"}};
    for (const auto& [v, key] : positive)
      if (!(std::isfinite(v) && v > 0.0)) c.error(c.at(t, f, key), "must be positive, is " + num(v));
    if (!(std::isfinite(f.section.warping) && f.section.warping >= 0.0))
      c.error(c.at(t, f, "section.warping [m^6]"), "must not be negative, is " + num(f.section.warping));
    for (const auto& [v, key] : {std::pair{f.section.shearY, "section.shear y"}, std::pair{f.section.shearZ, "section.shear z"}})
      if (!(std::isfinite(v) && v > 0.0 && v <= 1.0)) c.error(c.at(t, f, key), "must be in (0, 1], is " + num(v));
    if (f.modes < 0 || f.modes > 200) c.error(c.at(t, f, "modes"), "must be 0 to 200, is " + std::to_string(f.modes));
    }
    if (!(std::isfinite(f.maxFrequency) && f.maxFrequency >= 0.0))
      c.error(c.at(t, f, "max frequency [Hz]"), "must not be negative (0: every mode kept), is " + num(f.maxFrequency));
    if (!(std::isfinite(f.dampingRatio) && f.dampingRatio >= 0.0 && f.dampingRatio < 1.0))
      c.error(c.at(t, f, "damping ratio"), "must be in [0, 1), is " + num(f.dampingRatio));
    for (std::size_t k = 0; k < f.dampingRatios.size(); ++k)
      if (!(std::isfinite(f.dampingRatios[k]) && f.dampingRatios[k] >= 0.0 && f.dampingRatios[k] < 1.0))
        c.error(c.at(t, f, "damping ratios"),
                "mode " + std::to_string(k + 1) + ": must be in [0, 1), is " + num(f.dampingRatios[k]));
    for (const auto& [v, key] : {std::pair{f.massDamping, "mass-proportional damping [1/s]"},
                                 std::pair{f.stiffnessDamping, "stiffness-proportional damping [s]"}})
      if (!(std::isfinite(v) && v >= 0.0)) c.error(c.at(t, f, key), "must not be negative, is " + num(v));
    if (std::none_of(p.markers.begin(), p.markers.end(), [&](const MarkerRow& m) { return m.body == f.body; }))
      c.error(c.at(t, f, "body"), "body " + std::to_string(f.body) +
                                      " has no marker: a flexible body is reduced onto the nodes its markers ride on");
  }
  // What cannot ride on a flexible body yet.
  const std::set<int> flexible = flexibleBodyIds(p);
  auto onFlexible = [&](int markerId) {
    return markers.count(markerId) && flexible.count(p.markers[markers.at(markerId)].body);
  };
  for (const auto& w : p.wheels) {
    if (onFlexible(w.marker))
      c.error(c.at("wheels", w, "marker"), "marker " + std::to_string(w.marker) + " is on a flexible body: a wheel must be rigid");
    if (flexible.count(w.carrier))
      c.error(c.at("wheels", w, "carrier"), "body " + std::to_string(w.carrier) + " is flexible: a carrier must be rigid");
  }
}

std::string formatLength(double metres) {
  char text[32];
  ek::csnprintf(text, sizeof text, "%.1f mm", 1e3 * metres);
  return text;
}

/// Global pose of a marker as modelled: position and orientation.
struct MarkerPose {
  Vec3 p;
  Mat3 R;
};
MarkerPose poseAsModelled(const BodyRow& body, const MarkerRow& m) {
  const Mat3 R_WB = rotation::matrix(body.orientation);
  return {body.position + R_WB * m.position, R_WB * rotation::matrix(m.orientation)};
}

/// Wheels: the centre marker on a free body, a carrier that exists, a positive radius, and a
/// steering axis of two distinct markers that do not coincide as modelled.
void checkWheels(const Project& p, const Checker& c, const std::map<int, std::size_t>& bodies,
                 const std::map<int, std::size_t>& markers, const std::map<int, std::size_t>& inputs) {
  std::map<int, int> wheelOfBody;
  std::map<int, std::pair<int, std::string>> roleOfInput;  // a drive or brake input: its first wheel and role
  for (const auto& w : p.wheels) {
    if (w.steeringInput && !inputs.count(*w.steeringInput))
      c.error(c.at("wheels", w, "steering input"), "input " + std::to_string(*w.steeringInput) + " does not exist");
    else if (w.steeringInput && !isMotion(p.inputs[inputs.at(*w.steeringInput)].kind))
      c.error(c.at("wheels", w, "steering input"),
              "input " + std::to_string(*w.steeringInput) + " is a " +
                  inputKindName(p.inputs[inputs.at(*w.steeringInput)].kind) +
                  "; the steering axis is the screw axis under a prescribed motion (a translation or rotation "
                  "input on a driven rack); under a load the bushings' deflections would tilt it");
    else if (w.steeringInput && w.steeringAxis)
      c.error(c.at("wheels", w, "steering input"),
              "the wheel has steering axis markers already; give either the markers or the input");
    if (!markers.count(w.marker)) {
      c.error(c.at("wheels", w, "marker"), "marker " + std::to_string(w.marker) + " does not exist");
    } else {
      const int body = p.markers[markers.at(w.marker)].body;
      if (bodies.count(body) && p.bodies[bodies.at(body)].fixed)
        c.error(c.at("wheels", w, "marker"), "marker " + std::to_string(w.marker) + " is on body " +
                                                 std::to_string(body) + ", which is fixed: a wheel must be free");
      else if (bodies.count(body) && !wheelOfBody.emplace(body, w.id).second)
        c.error(c.at("wheels", w, "marker"), "body " + std::to_string(body) + " is already wheel " +
                                                 std::to_string(wheelOfBody.at(body)));
      else if (bodies.count(body)) {
        // Toe and camber are angles of the spin axis against the vehicle's y axis.
        const Vec3 axis = poseAsModelled(p.bodies[bodies.at(body)], p.markers[markers.at(w.marker)]).R.col(0);
        if (axis.allFinite() && !(std::abs(axis.y()) > 0.5))
          c.error(c.at("wheels", w, "marker"),
                  "the x axis of marker " + std::to_string(w.marker) + " is the spin axis and should point along "
                  "the axle (vehicle y); as modelled it is (" + num(axis.x()) + ", " + num(axis.y()) + ", " +
                  num(axis.z()) + ")");
      }
    }
    for (const auto& [input, key] : {std::pair{w.driveInput, "drive input"}, std::pair{w.brakeInput, "brake input"}}) {
      if (!input) continue;
      if (w.tyre.empty())
        c.error(c.at("wheels", w, key), "the wheel has no tyre: only a tyre's spinning wheel takes a drive or brake torque");
      if (!inputs.count(*input))
        c.error(c.at("wheels", w, key), "input " + std::to_string(*input) + " does not exist");
      else if (p.inputs[inputs.at(*input)].kind != InputKind::Torque)
        c.error(c.at("wheels", w, key), "input " + std::to_string(*input) + " is a " +
                                            inputKindName(p.inputs[inputs.at(*input)].kind) +
                                            "; a wheel's drive and brake take a torque input");
      const auto [it, first] = roleOfInput.emplace(*input, std::pair{w.id, std::string(key)});
      if (!first && it->second.second != key)
        c.error(c.at("wheels", w, key), "input " + std::to_string(*input) + " is the " + it->second.second +
                                            " of wheel " + std::to_string(it->second.first) +
                                            " already; one input cannot both drive and brake");
    }
    if (!w.tyre.empty()) {
      if (w.spinInertia < 0.0) c.error(c.at("wheels", w, "spin inertia [kg m^2]"), "must not be negative");
      if (w.lowSpeedDamping < 0.0) c.error(c.at("wheels", w, "low-speed damping [N s/m]"), "must not be negative");
    }
    if (!bodies.count(w.carrier))
      c.error(c.at("wheels", w, "carrier"), "body " + std::to_string(w.carrier) + " does not exist");
    if (std::isfinite(w.radius) && !(w.radius > 0.0)) c.error(c.at("wheels", w, "radius [m]"), "must be positive");
    if (w.steeringAxis) {
      const auto [upper, lower] = *w.steeringAxis;
      bool ok = true;
      for (int id : {upper, lower})
        if (!markers.count(id) || !bodies.count(p.markers[markers.at(id)].body)) {
          c.error(c.at("wheels", w, "steering axis"), "marker " + std::to_string(id) + " does not exist");
          ok = false;
        }
      if (ok) {
        const MarkerRow& mu = p.markers[markers.at(upper)];
        const MarkerRow& ml = p.markers[markers.at(lower)];
        const Vec3 d = poseAsModelled(p.bodies[bodies.at(mu.body)], mu).p - poseAsModelled(p.bodies[bodies.at(ml.body)], ml).p;
        if (!(d.norm() > 1e-6))
          c.error(c.at("wheels", w, "steering axis"), "markers " + std::to_string(upper) + " and " +
                                                          std::to_string(lower) + " coincide as modelled: no axis");
        else if (!(d.z() > 0.0))
          c.error(c.at("wheels", w, "steering axis"), "the first marker (" + std::to_string(upper) +
                                                          ") must be above the second (" + std::to_string(lower) + ")");
      }
    }
  }
}

void checkVehicle(const VehicleRow& v, const Checker& c) {
  auto positive = [&](double x, const char* field) {
    if (std::isfinite(x) && !(x > 0.0)) c.error(c.atNamed("", "", std::string("vehicle.") + field), "must be positive");
  };
  auto share = [&](double x, const char* field) {
    if (std::isfinite(x) && !(x >= 0.0 && x <= 1.0))
      c.error(c.atNamed("", "", std::string("vehicle.") + field), "must lie between 0 and 1, is " + num(x));
  };
  positive(v.wheelbase, "wheelbase [m]");
  positive(v.cgHeight, "cg height [m]");
  share(v.frontBrakeShare, "front brake share");
  share(v.frontDriveShare, "front drive share");
  share(v.frontMassShare, "sprung mass front share");
  auto notNegative = [&](double x, const char* field) {
    if (std::isfinite(x) && !(x >= 0.0)) c.error(c.atNamed("", "", std::string("vehicle.") + field), "must not be negative");
  };
  notNegative(v.sprungMass, "sprung mass [kg]");
  notNegative(v.otherAxleRollStiffness, "other axle roll stiffness [N m/deg]");
}

}  // namespace

Diagnostics check(const Project& p) {
  Diagnostics d;
  const Checker c(p, d);
  checkFinite(p, c);  // the checks below skip what it reports, so nothing is reported twice
  const auto bodies = c.uniqueIds(p.bodies, "bodies");
  const auto markers = c.uniqueIds(p.markers, "markers");
  const auto bushings = c.uniqueIds(p.bushings, "bushings");
  const auto p2ps = c.uniqueIds(p.p2ps, "p2p elements");
  const auto racks = c.uniqueIds(p.steeringRacks, "steering racks");
  const auto curves = c.uniqueIds(p.curves, "curves");
  const auto inputs = c.uniqueIds(p.inputs, "inputs");
  checkBodies(p, c);

  for (const auto& m : p.markers)
    if (!bodies.count(m.body))
      c.error(c.at("markers", m, "body"), "body " + std::to_string(m.body) + " does not exist");
  auto markerOk = [&](int id) { return markers.count(id) && bodies.count(p.markers[markers.at(id)].body); };
  auto pose = [&](int id) {
    const MarkerRow& m = p.markers[markers.at(id)];
    return poseAsModelled(p.bodies[bodies.at(m.body)], m);
  };
  std::set<int> held;  // bodies that some force element acts on

  // Both markers exist and sit on two different bodies; false if the element cannot be checked further.
  auto checkMarkers = [&](const std::string& table, const auto& row) {
    bool ok = true;
    for (const auto& [id, key] : {std::pair{row.markerI, "marker_i"}, std::pair{row.markerJ, "marker_j"}})
      if (!markers.count(id)) {
        c.error(c.at(table, row, key), "marker " + std::to_string(id) + " does not exist");
        ok = false;
      }
    if (!ok || !markerOk(row.markerI) || !markerOk(row.markerJ)) return false;
    const int bi = p.markers[markers.at(row.markerI)].body, bj = p.markers[markers.at(row.markerJ)].body;
    if (bi == bj) {
      c.error(c.at(table, row, "marker_j"), "both markers (" + std::to_string(row.markerI) + ", " +
                                                std::to_string(row.markerJ) + ") are on body " + std::to_string(bi) +
                                                "; a force element must join two different bodies");
      return false;
    }
    held.insert(bi);
    held.insert(bj);
    return true;
  };
  for (const auto& b : p.bushings) {
    const bool markersOk = checkMarkers("bushings", b);
    bool anyStiffness = false;
    for (int k = 0; k < 6; ++k) {
      checkLaw(c, curves, b.directions[k].stiffness, c.at("bushings", b, stiffnessKey(k)));
      checkLaw(c, curves, b.directions[k].damping, c.at("bushings", b, dampingKey(k)));
      anyStiffness |= b.directions[k].stiffness.curve.has_value() || b.directions[k].stiffness.coefficient != 0.0;
      // A branch needs a spring and a damper: k = 0 is no branch, c = 0 an infinitely fast one.
      for (std::size_t n = 0; n < b.directions[k].maxwell.size(); ++n) {
        const MaxwellBranchRow& m = b.directions[k].maxwell[n];
        if (std::isfinite(m.stiffness) && !(m.stiffness > 0.0))
          c.error(c.at("bushings", b, branchKey(k, n, true)), "must be positive");
        if (std::isfinite(m.damping) && !(m.damping > 0.0))
          c.error(c.at("bushings", b, branchKey(k, n, false)), "must be positive");
      }
      if (b.directions[k].maxwellScaledBySlope) {
        const std::string key = std::string(kBushingDirections[k]) + ".maxwell scaled by slope";
        const double slope0 = lawSlopeAtZero(p, b.directions[k].stiffness);
        if (b.directions[k].maxwell.empty())
          c.warning(c.at("bushings", b, key), "has no effect: the direction has no Maxwell branches");
        else if (std::isfinite(slope0) && !(slope0 > 0.0)) {
          char value[32];
          ek::csnprintf(value, sizeof value, "%g", slope0);
          c.error(c.at("bushings", b, key),
                  std::string("needs a static stiffness whose slope at zero deflection is positive (it is ") + value + ")");
        }
      }
    }
    if (!anyStiffness)
      c.warning(c.at("bushings", b, ""), "no stiffness in any direction: the bushing only damps, and a body "
                                         "held by it alone has no static equilibrium");
    if (markersOk) {
      // The deflection angles are the Cardan angles of R_JI; at +-90 deg pitch they are undefined.
      const MarkerPose I = pose(b.markerI), J = pose(b.markerJ);
      // A bushing joins two points that coincide as modelled; apart, it starts deflected.
      const double gap = (I.p - J.p).norm();
      if (gap > kBushingGap)
        c.warning(c.at("bushings", b, "marker_j"),
                  "as modelled, markers " + std::to_string(b.markerI) + " and " + std::to_string(b.markerJ) + " are " +
                      formatLength(gap) + " apart: the bushing starts deflected by that much (its markers should "
                      "coincide; a P2P element joins distant points)");
      const Vec3 a = rotation::anglesFromMatrix(J.R.transpose() * I.R);
      if (std::abs(std::cos(a[1])) < 1e-3)
        c.error(c.at("bushings", b, "marker_j"),
                "as modelled, marker " + std::to_string(b.markerI) + " is rotated by 90 deg about the y axis of marker " +
                    std::to_string(b.markerJ) + ": the Cardan singularity of the deflection angles; orient the two "
                    "markers alike");
    }
  }
  for (const auto& e : p.p2ps) {
    const bool markersOk = checkMarkers("p2p elements", e);
    if (e.freeLength && std::isfinite(*e.freeLength) && !(*e.freeLength > 0.0))
      c.error(c.at("p2p elements", e, "free length [m]"), "must be positive");
    checkLaw(c, curves, e.spring, c.at("p2p elements", e, "spring [N/m]"));
    checkLaw(c, curves, e.damper, c.at("p2p elements", e, "damper [N s/m]"));
    for (const auto* stop : {&e.bumpStop, &e.reboundStop}) {
      if (!*stop) continue;
      const std::string key = stop == &e.bumpStop ? "bump stop" : "rebound stop";
      if ((*stop)->clearance < 0.0) c.error(c.at("p2p elements", e, key + ".clearance [m]"), "must not be negative");
      checkLaw(c, curves, (*stop)->law, c.at("p2p elements", e, key + ".stiffness [N/m]"));
    }
    if (markersOk && (pose(e.markerI).p - pose(e.markerJ).p).norm() <= 1e-9)
      c.error(c.at("p2p elements", e, "marker_j"),
              "as modelled, markers " + std::to_string(e.markerI) + " and " + std::to_string(e.markerJ) +
                  " coincide: a point-to-point element needs a line of action");
  }
  for (const auto& e : p.steeringRacks) {
    const std::string t = "steering racks";
    checkMarkers(t, e);
    if (!inputs.count(e.input))
      c.error(c.at(t, e, "steering input"), "input " + std::to_string(e.input) + " does not exist");
    else if (p.inputs[inputs.at(e.input)].kind != InputKind::Rotation)
      c.error(c.at(t, e, "steering input"),
              "input " + std::to_string(e.input) + " is a " + inputKindName(p.inputs[inputs.at(e.input)].kind) +
                  " input; the steering-wheel angle is a rotation input (it turns the steering wheel's body)");
    if (e.travelCurve) {
      if (!curves.count(*e.travelCurve))
        c.error(c.at(t, e, "travel curve"), "curve " + std::to_string(*e.travelCurve) + " does not exist");
      else
        checkTravelCurve(c, p.curves[curves.at(*e.travelCurve)], c.at(t, e, "travel curve"));
    } else if (std::isfinite(e.ratio) && e.ratio == 0.0) {
      c.error(c.at(t, e, "ratio [m/rad]"), "must not be zero (the rack's travel per steering-wheel angle)");
    }
    if (std::isfinite(e.columnStiffness) && !(e.columnStiffness > 0.0))
      c.error(c.at(t, e, "column stiffness [N m/rad]"), "must be positive");
    if (std::isfinite(e.columnDamping) && e.columnDamping < 0.0)
      c.error(c.at(t, e, "column damping [N m s/rad]"), "must not be negative");
  }
  checkFlexibleBodies(p, c, bodies, markers);
  for (const auto& b : p.bodies)
    if (!b.fixed && !held.count(b.id))
      c.warning(c.at("bodies", b, ""), "no force element acts on this body: it falls freely");
  for (const auto& cv : p.curves) {
    Interpolation ip;
    Extrapolation ep;
    if (!parseInterpolation(cv.interpolation, ip))
      c.error(c.at("curves", cv, "interpolation"),
              "unknown interpolation \"" + printableExcerpt(cv.interpolation) + "\" (linear, pchip, spline)");
    if (!parseExtrapolation(cv.extrapolation, ep))
      c.error(c.at("curves", cv, "extrapolation"),
              "unknown extrapolation \"" + printableExcerpt(cv.extrapolation) + "\" (linear, constant)");
    if (cv.points.size() < 2)
      c.error(c.at("curves", cv, "points"), "a curve needs at least 2 points, has " + std::to_string(cv.points.size()));
    for (std::size_t k = 1; k < cv.points.size(); ++k)
      if (std::isfinite(cv.points[k][0]) && std::isfinite(cv.points[k - 1][0]) &&
          !(cv.points[k][0] > cv.points[k - 1][0])) {
        c.error(c.at("curves", cv, "points"),
                "abscissae must increase strictly: point " + std::to_string(k + 1) + " (x = " + num(cv.points[k][0]) +
                    ") does not follow point " + std::to_string(k) + " (x = " + num(cv.points[k - 1][0]) + ")");
        break;
      }
  }
  std::map<int, int> rotationOf;  // body id -> id of the rotation input that drives it
  for (const auto& in : p.inputs) {
    if (!markers.count(in.marker))
      c.error(c.at("inputs", in, "marker"), "marker " + std::to_string(in.marker) + " does not exist");
    if (in.direction.norm() == 0.0) c.error(c.at("inputs", in, "direction"), "must not be zero");
    if (!markerOk(in.marker)) continue;
    const BodyRow& body = p.bodies[bodies.at(p.markers[markers.at(in.marker)].body)];
    if (!isMotion(in.kind)) {
      if (body.fixed)
        c.warning(c.at("inputs", in, "marker"),
                  std::string("the ") + inputKindName(in.kind) + " acts on marker " + std::to_string(in.marker) +
                      " of fixed body " + std::to_string(body.id) + " ('" + body.name +
                      "'): it moves nothing; put it on a marker of a free body");
      continue;
    }
    if (!body.fixed) {
      c.error(c.at("inputs", in, "kind"),
              std::string("a ") + inputKindName(in.kind) + " prescribes the motion of a fixed body, but marker " +
                  std::to_string(in.marker) + " is on free body " + std::to_string(body.id) + " ('" + body.name +
                  "'); use a force or torque to load a free body");
    } else if (in.kind == InputKind::Rotation && !rotationOf.emplace(body.id, in.id).second) {
      c.error(c.at("inputs", in, "kind"), "body " + std::to_string(body.id) + " ('" + body.name +
                                               "') is already rotated by input " +
                                               std::to_string(rotationOf.at(body.id)) +
                                               "; a driven body takes at most one rotation");
    }
  }
  const auto wheels = c.uniqueIds(p.wheels, "wheels");
  checkWheels(p, c, bodies, markers, inputs);
  if (p.vehicle) checkVehicle(*p.vehicle, c);
  std::set<std::string> lcNames;
  for (const auto& lc : p.loadCases) {
    if (!lcNames.insert(lc.name).second) c.error(c.atNamed("load cases", lc.name, "name"), "duplicate load case name");
    if (std::isfinite(lc.duration) && !(lc.duration > 0.0))
      c.error(c.atNamed("load cases", lc.name, "duration [s]"), "must be positive");
    else if (p.simulation.step > 0.0 && lc.duration / p.simulation.step > static_cast<double>(kMaxSteps))
      c.error(c.atNamed("load cases", lc.name, "duration [s]"),
              num(lc.duration) + " s are " + num(lc.duration / p.simulation.step) + " steps of " +
                  num(p.simulation.step) + " s; a run takes at most " + std::to_string(kMaxSteps) + " steps");
    std::set<int> driven;
    for (std::size_t k = 0; k < lc.drives.size(); ++k) {
      const SignalRow& s = lc.drives[k].signal;
      const std::string sig = "signals[" + std::to_string(k) + "]";
      if ((s.type == SignalType::Ramp || s.type == SignalType::Chirp || s.type == SignalType::Bump) && std::isfinite(s.t0) && std::isfinite(s.t1) &&
          !(s.t1 > s.t0))
        c.error(c.atNamed("load cases", lc.name, sig + ".end [s]"), "must be later than 'start [s]'");
      if (s.type == SignalType::Table && s.file.empty() && s.table.empty())
        c.error(c.atNamed("load cases", lc.name, sig + ".file"), "no file given");
      const int in = lc.drives[k].input;
      if (!inputs.count(in))
        c.error(c.atNamed("load cases", lc.name, sig + ".input"), "input " + std::to_string(in) + " does not exist");
      else if (!driven.insert(in).second)
        c.error(c.atNamed("load cases", lc.name, sig + ".input"), "input " + std::to_string(in) + " is driven twice");
    }
    // A driver's vehicle body: one that exists and is free.
    auto vehicleBody = [&](const Location& where, int body) {
      if (!bodies.count(body))
        c.error(where, "body " + std::to_string(body) + " does not exist");
      else if (p.bodies[bodies.at(body)].fixed)
        c.error(where, "body " + std::to_string(body) + " is fixed; the vehicle body is a free body");
    };
    if (const auto& f = lc.speedFollower) {
      auto at = [&](const std::string& field) { return c.atNamed("load cases", lc.name, "speed follower." + field); };
      vehicleBody(at("body"), f->body);
      if (!std::isfinite(f->speed)) c.error(at("speed [m/s]"), "value is not finite");
      if (!(f->gain > 0.0)) c.error(at("gain [N m s/m]"), "must be positive");
      if (std::isnan(f->until)) c.error(at("until [s]"), "value is not a number");
      if (f->driveInputs.empty()) c.error(at("drive inputs"), "names no input: the follower drives the wheels' drive inputs");
      for (int in : f->driveInputs) {
        const bool wheelDrive = std::any_of(p.wheels.begin(), p.wheels.end(), [&](const WheelRow& w) {
          return !w.tyre.empty() && w.driveInput == in;
        });
        if (!inputs.count(in))
          c.error(at("drive inputs"), "input " + std::to_string(in) + " does not exist");
        else if (!wheelDrive)
          c.error(at("drive inputs"), "input " + std::to_string(in) + " is no wheel's drive input (a wheel with a tyre)");
        else if (driven.count(in))
          c.error(at("drive inputs"), "input " + std::to_string(in) +
                                          " has a signal in this load case as well; the follower sets it");
      }
    }
    if (const auto& f = lc.pathFollower) {
      auto at = [&](const std::string& field) { return c.atNamed("load cases", lc.name, "path follower." + field); };
      vehicleBody(at("body"), f->body);
      const bool rackInput = std::any_of(p.steeringRacks.begin(), p.steeringRacks.end(),
                                         [&](const SteeringRackRow& r) { return r.input == f->steeringInput; });
      if (!inputs.count(f->steeringInput))
        c.error(at("steering input"), "input " + std::to_string(f->steeringInput) + " does not exist");
      else if (!rackInput)
        c.error(at("steering input"), "input " + std::to_string(f->steeringInput) +
                                          " is no steering rack's input (the steering-wheel angle)");
      else if (driven.count(f->steeringInput))
        c.error(at("steering input"), "input " + std::to_string(f->steeringInput) +
                                          " has a signal in this load case as well; the follower sets it");
      if (!(f->previewTime > 0.0) || !std::isfinite(f->previewTime)) c.error(at("preview time [s]"), "must be positive");
      if (!(f->minimumPreview > 0.0) || !std::isfinite(f->minimumPreview))
        c.error(at("minimum preview [m]"), "must be positive (at standstill the preview point would lie on the vehicle)");
      if (!(f->gain > 0.0) || !std::isfinite(f->gain)) c.error(at("gain [rad m]"), "must be positive");
      if (!(f->reactionTime >= 0.0 && f->reactionTime <= 2.0))
        c.error(at("reaction time [s]"), "must be 0 to 2 s (a driver's is 0.1 to 0.5 s), is " + num(f->reactionTime));
      if (f->path.size() < 2) c.error(at("path [m]"), "needs at least two points");
      for (std::size_t k = 0; k < f->path.size(); ++k) {
        const auto& q = f->path[k];
        if (!std::isfinite(q[0]) || !std::isfinite(q[1]))
          c.error(at("path [m]"), "point " + std::to_string(k + 1) + " is not finite");
        else if (k > 0 && q == f->path[k - 1])
          c.error(at("path [m]"), "point " + std::to_string(k + 1) + " repeats point " + std::to_string(k) +
                                      " (a segment needs a length)");
      }
    }
  }
  std::set<std::string> outNames;
  for (const auto& o : p.outputs) {
    if (!outNames.insert(o.name).second) c.error(c.atNamed("outputs", o.name, "name"), "duplicate output name");
    const std::map<int, std::size_t>* ids = nullptr;
    std::string key;
    switch (o.quantity) {
      case OutputQuantity::MarkerPosition:
      case OutputQuantity::MarkerDisplacement:
      case OutputQuantity::MarkerVelocity: ids = &markers; key = "marker"; break;
      case OutputQuantity::BodyAngles:
      case OutputQuantity::BodyAngularVelocity:
      case OutputQuantity::ModalCoordinate: ids = &bodies; key = "body"; break;
      case OutputQuantity::BushingForce:
      case OutputQuantity::BushingDeflection:
      case OutputQuantity::BushingBranchDeflection: ids = &bushings; key = "bushing"; break;
      case OutputQuantity::P2PForce:
      case OutputQuantity::P2PLength: ids = &p2ps; key = "p2p"; break;
      case OutputQuantity::Input: ids = &inputs; key = "input"; break;
      case OutputQuantity::Wheel:
      case OutputQuantity::Tyre: ids = &wheels; key = "wheel"; break;
      case OutputQuantity::SteeringRack: ids = &racks; key = "steering rack"; break;
      case OutputQuantity::ErrorEstimate: break;  // of the run, no element
    }
    if (ids && !ids->count(o.element))
      c.error(c.atNamed("outputs", o.name, key), key + " " + std::to_string(o.element) + " does not exist");
    else if ((o.quantity == OutputQuantity::BodyAngles || o.quantity == OutputQuantity::BodyAngularVelocity) &&
             p.bodies[bodies.at(o.element)].fixed)
      c.error(c.atNamed("outputs", o.name, key), "body " + std::to_string(o.element) + " is fixed");
    int direction = 0, branch = 0;
    if (!componentValid(o.quantity, o.component)) {
      c.error(c.atNamed("outputs", o.name, "component"),
              "component \"" + printableExcerpt(o.component) + "\" does not fit quantity \"" + toString(o.quantity) + "\"" +
                  (o.quantity == OutputQuantity::BushingBranchDeflection
                       ? " (a direction and the branch's number from 1: x1, rz2, ...)"
                       : o.quantity == OutputQuantity::ModalCoordinate
                             ? " (q or qd and the mode's number from 1: q1, qd3, ...)"
                             : ""));
    } else if (o.quantity == OutputQuantity::Tyre && wheels.count(o.element) &&
               p.wheels[wheels.at(o.element)].tyre.empty()) {
      c.error(c.atNamed("outputs", o.name, key), "wheel " + std::to_string(o.element) + " has no tyre");
    } else if (o.quantity == OutputQuantity::ModalCoordinate && bodies.count(o.element) &&
               std::none_of(p.flexibleBodies.begin(), p.flexibleBodies.end(),
                            [&](const FlexibleBodyRow& f) { return f.body == o.element; })) {
      c.error(c.atNamed("outputs", o.name, key),
              "body " + std::to_string(o.element) + " is not flexible (no row of 'flexible bodies' makes it so)");
    } else if (o.quantity == OutputQuantity::BushingBranchDeflection && bushings.count(o.element) &&
               parseBranchComponent(o.component, direction, branch)) {
      const auto& branches = p.bushings[bushings.at(o.element)].directions[direction].maxwell;
      if (branch > static_cast<int>(branches.size()))
        c.error(c.atNamed("outputs", o.name, "component"),
                "bushing " + std::to_string(o.element) + " has " + std::to_string(branches.size()) +
                    " Maxwell branch" + (branches.size() == 1 ? "" : "es") + " in " +
                    o.component.substr(0, o.component.find_first_of("0123456789")) + ", not " +
                    std::to_string(branch));
    }
  }
  // Targets: the metric's existence needs the analysis (analysis/kc.h checkTargets, and
  // analysis/manoeuvre.h for a manoeuvre's); here the row itself.
  std::set<int> targetIds;
  std::set<std::string> wheelNames;
  for (const auto& w : p.wheels) wheelNames.insert(w.name);
  for (const auto& t : p.targets) {
    auto at = [&](const std::string& field) {
      Location w{p.sourcePath, "targets", "id " + std::to_string(t.id), field};
      w.rowName = t.metric;
      return w;
    };
    if (!targetIds.insert(t.id).second) c.error(at("id"), "duplicate id " + std::to_string(t.id));
    if (t.metric.empty()) c.error(at("metric"), "no metric named");
    if (!t.wheel.empty() && !t.manoeuvre.empty())
      c.error(at("wheel"), "a manoeuvre's metrics are the vehicle's: a target for one names no wheel");
    else if (!t.wheel.empty() && !wheelNames.count(t.wheel))
      c.error(at("wheel"), "no wheel '" + printableExcerpt(t.wheel) + "' in the 'wheels' table");
    if (!t.lower && !t.upper) c.error(at("lower"), "a target needs 'lower', 'upper' or both");
    for (const auto& [field, v] : {std::pair{"lower", t.lower}, std::pair{"upper", t.upper}})
      if (v && !std::isfinite(*v)) c.error(at(field), "not a finite number");
    if (t.lower && t.upper && *t.lower > *t.upper)
      c.error(at("upper"), "below 'lower' (" + num(*t.lower) + " > " + num(*t.upper) + ")");
  }
  return d;
}

double lawSlopeAtZero(const Project& p, const LawRow& law) {
  if (!law.curve) return law.coefficient;
  for (const CurveRow& c : p.curves) {
    if (c.id != *law.curve) continue;
    Interpolation ip;
    Extrapolation ep;
    std::vector<double> x, y;
    for (const auto& pt : c.points) x.push_back(pt[0]), y.push_back(pt[1]);
    bool ok = x.size() >= 2 && parseInterpolation(c.interpolation, ip) && parseExtrapolation(c.extrapolation, ep);
    for (std::size_t i = 1; ok && i < x.size(); ++i) ok = x[i] > x[i - 1] && std::isfinite(x[i]) && std::isfinite(y[i]);
    return ok ? Curve(x, y, ip, ep).eval(0.0).dydx : std::nan("");
  }
  return std::nan("");
}


void validate(const Project& p) { check(p).throwIfErrors(); }

Vec3 markerPositionAsModelled(const Project& p, const MarkerRow& m) {
  for (const auto& b : p.bodies)
    if (b.id == m.body) return poseAsModelled(b, m).p;
  return m.position;
}

}  // namespace ek
