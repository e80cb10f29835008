// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/validate.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/model/curve.h"
#include "engine/model/project_io.h"

namespace ek {
namespace {

class Checker {
 public:
  explicit Checker(const Project& p) : p_(p) {}

  [[noreturn]] void fail(const std::string& table, const std::string& row, const std::string& field,
                         const std::string& what) const {
    throw ModelError({p_.sourcePath, table, row, field}, what);
  }
  static std::string rowId(int id) { return "id " + std::to_string(id); }

  template <class Rows>
  std::map<int, std::size_t> uniqueIds(const Rows& rows, const std::string& table) const {
    std::map<int, std::size_t> ids;
    for (std::size_t k = 0; k < rows.size(); ++k)
      if (!ids.emplace(rows[k].id, k).second)
        fail(table, rowId(rows[k].id), "id", "duplicate id " + std::to_string(rows[k].id) + " (also row #" +
                                                 std::to_string(ids[rows[k].id] + 1) + " of the table)");
    return ids;
  }

 private:
  const Project& p_;
};

void checkLaw(const Checker& c, const std::map<int, std::size_t>& curves, const LawRow& law, const std::string& table,
              int id, const std::string& field) {
  if (law.curve) {
    if (!curves.count(*law.curve))
      c.fail(table, Checker::rowId(id), field, "curve " + std::to_string(*law.curve) + " does not exist");
  } else if (law.coefficient < 0.0) {
    c.fail(table, Checker::rowId(id), field, "must not be negative");
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
    case OutputQuantity::P2PForce:
    case OutputQuantity::P2PLength:
    case OutputQuantity::Input: return comp.empty();
  }
  return false;
}

}  // namespace

namespace {

/// NaN/Inf anywhere is an error (projects edited in memory never went through the JSON reader).
void checkFinite(const Project& p) {
  const Checker c(p);
  auto num = [&](double v, const std::string& table, const std::string& row, const std::string& field) {
    if (!std::isfinite(v)) c.fail(table, row, field, "value is not finite");
  };
  auto vec = [&](const Vec3& v, const std::string& table, const std::string& row, const std::string& field) {
    for (int k = 0; k < 3; ++k) num(v[k], table, row, field);
  };
  vec(p.gravity, "", "", "gravity [m/s^2]");
  num(p.simulation.step, "", "", "simulation.step [s]");
  num(p.simulation.sampleRate, "", "", "simulation.sample rate [Hz]");
  for (const auto& b : p.bodies) {
    const std::string row = Checker::rowId(b.id);
    num(b.mass, "bodies", row, "mass [kg]");
    vec(b.com, "bodies", row, "com [m]");
    for (double v : b.inertia) num(v, "bodies", row, "inertia [kg m^2]");
    vec(b.position, "bodies", row, "position [m]");
    vec(b.orientation, "bodies", row, "orientation [rad]");
    vec(b.velocity, "bodies", row, "velocity [m/s]");
    vec(b.angularVelocity, "bodies", row, "angular velocity [rad/s]");
  }
  for (const auto& m : p.markers) {
    vec(m.position, "markers", Checker::rowId(m.id), "position [m]");
    vec(m.orientation, "markers", Checker::rowId(m.id), "orientation [rad]");
  }
  for (const auto& b : p.bushings)
    for (int k = 0; k < 6; ++k) {
      const std::string dir = kBushingDirections[k];
      const bool rot = k >= 3;
      num(b.directions[k].stiffness.coefficient, "bushings", Checker::rowId(b.id),
          dir + "." + (rot ? "stiffness [N m/rad]" : "stiffness [N/m]"));
      num(b.directions[k].damping.coefficient, "bushings", Checker::rowId(b.id),
          dir + "." + (rot ? "damping [N m s/rad]" : "damping [N s/m]"));
      num(b.directions[k].preload, "bushings", Checker::rowId(b.id), dir + "." + (rot ? "preload [N m]" : "preload [N]"));
    }
  for (const auto& e : p.p2ps) {
    const std::string row = Checker::rowId(e.id);
    if (e.freeLength) num(*e.freeLength, "p2p elements", row, "free length [m]");
    num(e.preload, "p2p elements", row, "preload [N]");
    num(e.spring.coefficient, "p2p elements", row, "spring [N/m]");
    num(e.damper.coefficient, "p2p elements", row, "damper [N s/m]");
    if (e.bumpStop) {
      num(e.bumpStop->clearance, "p2p elements", row, "bump stop.clearance [m]");
      num(e.bumpStop->law.coefficient, "p2p elements", row, "bump stop.stiffness [N/m]");
    }
    if (e.reboundStop) {
      num(e.reboundStop->clearance, "p2p elements", row, "rebound stop.clearance [m]");
      num(e.reboundStop->law.coefficient, "p2p elements", row, "rebound stop.stiffness [N/m]");
    }
  }
  for (const auto& cv : p.curves)
    for (const auto& pt : cv.points) {
      num(pt[0], "curves", Checker::rowId(cv.id), "points");
      num(pt[1], "curves", Checker::rowId(cv.id), "points");
    }
  for (const auto& in : p.inputs) vec(in.direction, "inputs", Checker::rowId(in.id), "direction");
  for (const auto& lc : p.loadCases) {
    num(lc.duration, "load cases", "'" + lc.name + "'", "duration [s]");
    for (std::size_t k = 0; k < lc.drives.size(); ++k) {
      const SignalRow& s = lc.drives[k].signal;
      for (double v : {s.value, s.value2, s.t0, s.t1, s.amplitude, s.frequency, s.frequency2, s.phase})
        num(v, "load cases", "'" + lc.name + "'", "signals[" + std::to_string(k) + "]");
    }
  }
}

}  // namespace

void validate(const Project& p) {
  checkFinite(p);
  const Checker c(p);
  const auto bodies = c.uniqueIds(p.bodies, "bodies");
  const auto markers = c.uniqueIds(p.markers, "markers");
  const auto bushings = c.uniqueIds(p.bushings, "bushings");
  const auto p2ps = c.uniqueIds(p.p2ps, "p2p elements");
  const auto curves = c.uniqueIds(p.curves, "curves");
  const auto inputs = c.uniqueIds(p.inputs, "inputs");

  for (const auto& b : p.bodies) {
    if (b.fixed) continue;
    const std::string row = Checker::rowId(b.id);
    if (!(b.mass > 0.0)) c.fail("bodies", row, "mass [kg]", "mass must be positive, is " + std::to_string(b.mass));
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(inertiaTensor(b.inertia));
    const Vec3 l = eig.eigenvalues();
    if (!(l.minCoeff() > 0.0))
      c.fail("bodies", row, "inertia [kg m^2]", "inertia tensor is not positive definite (principal moments " +
                                                    std::to_string(l[0]) + ", " + std::to_string(l[1]) + ", " +
                                                    std::to_string(l[2]) + ")");
    const double tol = 1e-9 * l.maxCoeff();
    if (l[0] + l[1] < l[2] - tol)
      c.fail("bodies", row, "inertia [kg m^2]",
             "principal moments violate the triangle inequality (" + std::to_string(l[0]) + " + " +
                 std::to_string(l[1]) + " < " + std::to_string(l[2]) + ")");
    if (std::abs(std::cos(b.orientation[1])) < 1e-3)
      c.fail("bodies", row, "orientation [rad]",
             "pitch angle alpha_y' at +-90 deg is the Cardan singularity; choose the body frame so that it "
             "does not rotate about its y' axis by large angles");
  }
  if (std::none_of(p.bodies.begin(), p.bodies.end(), [](const BodyRow& b) { return !b.fixed; }))
    c.fail("bodies", "", "", "the project has no free body");

  for (const auto& m : p.markers)
    if (!bodies.count(m.body))
      c.fail("markers", Checker::rowId(m.id), "body", "body " + std::to_string(m.body) + " does not exist");

  auto checkMarkers = [&](const std::string& table, int id, int mi, int mj) {
    if (!markers.count(mi))
      c.fail(table, Checker::rowId(id), "marker_i", "marker " + std::to_string(mi) + " does not exist");
    if (!markers.count(mj))
      c.fail(table, Checker::rowId(id), "marker_j", "marker " + std::to_string(mj) + " does not exist");
    const int bi = p.markers[markers.at(mi)].body, bj = p.markers[markers.at(mj)].body;
    if (bi == bj)
      c.fail(table, Checker::rowId(id), "marker_j",
             "both markers (" + std::to_string(mi) + ", " + std::to_string(mj) + ") are on body " +
                 std::to_string(bi) + "; a force element must join two different bodies");
  };
  for (const auto& b : p.bushings) {
    checkMarkers("bushings", b.id, b.markerI, b.markerJ);
    for (int k = 0; k < 6; ++k) {
      const std::string dir = kBushingDirections[k];
      const bool rot = k >= 3;
      checkLaw(c, curves, b.directions[k].stiffness, "bushings", b.id,
               dir + "." + (rot ? "stiffness [N m/rad]" : "stiffness [N/m]"));
      checkLaw(c, curves, b.directions[k].damping, "bushings", b.id,
               dir + "." + (rot ? "damping [N m s/rad]" : "damping [N s/m]"));
    }
  }
  for (const auto& e : p.p2ps) {
    checkMarkers("p2p elements", e.id, e.markerI, e.markerJ);
    const std::string row = Checker::rowId(e.id);
    if (e.freeLength && !(*e.freeLength > 0.0)) c.fail("p2p elements", row, "free length [m]", "must be positive");
    checkLaw(c, curves, e.spring, "p2p elements", e.id, "spring [N/m]");
    checkLaw(c, curves, e.damper, "p2p elements", e.id, "damper [N s/m]");
    for (const auto* stop : {&e.bumpStop, &e.reboundStop}) {
      if (!*stop) continue;
      const std::string key = stop == &e.bumpStop ? "bump stop" : "rebound stop";
      if ((*stop)->clearance < 0.0) c.fail("p2p elements", row, key + ".clearance [m]", "must not be negative");
      checkLaw(c, curves, (*stop)->law, "p2p elements", e.id, key + ".stiffness [N/m]");
    }
  }
  for (const auto& cv : p.curves) {
    const std::string row = Checker::rowId(cv.id);
    Interpolation ip;
    Extrapolation ep;
    if (!parseInterpolation(cv.interpolation, ip))
      c.fail("curves", row, "interpolation", "unknown interpolation \"" + cv.interpolation + "\" (linear, pchip, spline)");
    if (!parseExtrapolation(cv.extrapolation, ep))
      c.fail("curves", row, "extrapolation", "unknown extrapolation \"" + cv.extrapolation + "\" (linear, constant)");
    if (cv.points.size() < 2)
      c.fail("curves", row, "points", "a curve needs at least 2 points, has " + std::to_string(cv.points.size()));
    for (std::size_t k = 1; k < cv.points.size(); ++k)
      if (!(cv.points[k][0] > cv.points[k - 1][0]))
        c.fail("curves", row, "points",
               "abscissae must increase strictly: point " + std::to_string(k + 1) + " (x = " +
                   std::to_string(cv.points[k][0]) + ") does not follow point " + std::to_string(k) +
                   " (x = " + std::to_string(cv.points[k - 1][0]) + ")");
  }
  for (const auto& in : p.inputs) {
    if (!markers.count(in.marker))
      c.fail("inputs", Checker::rowId(in.id), "marker", "marker " + std::to_string(in.marker) + " does not exist");
    if (in.direction.norm() == 0.0) c.fail("inputs", Checker::rowId(in.id), "direction", "must not be zero");
  }
  std::set<std::string> lcNames;
  for (const auto& lc : p.loadCases) {
    const std::string row = "'" + lc.name + "'";
    if (!lcNames.insert(lc.name).second) c.fail("load cases", row, "name", "duplicate load case name");
    if (!(lc.duration > 0.0)) c.fail("load cases", row, "duration [s]", "must be positive");
    std::set<int> driven;
    for (std::size_t k = 0; k < lc.drives.size(); ++k) {
      const SignalRow& s = lc.drives[k].signal;
      const std::string sig = "signals[" + std::to_string(k) + "]";
      if ((s.type == SignalType::Ramp || s.type == SignalType::Chirp) && !(s.t1 > s.t0))
        c.fail("load cases", row, sig + ".end [s]", "must be later than 'start [s]'");
      if (s.type == SignalType::Table && s.file.empty()) c.fail("load cases", row, sig + ".file", "no file given");
      const std::string field = sig + ".input";
      const int in = lc.drives[k].input;
      if (!inputs.count(in)) c.fail("load cases", row, field, "input " + std::to_string(in) + " does not exist");
      if (!driven.insert(in).second)
        c.fail("load cases", row, field, "input " + std::to_string(in) + " is driven twice");
    }
  }
  std::set<std::string> outNames;
  for (const auto& o : p.outputs) {
    const std::string row = "'" + o.name + "'";
    if (!outNames.insert(o.name).second) c.fail("outputs", row, "name", "duplicate output name");
    const std::map<int, std::size_t>* ids = nullptr;
    std::string key;
    switch (o.quantity) {
      case OutputQuantity::MarkerPosition:
      case OutputQuantity::MarkerDisplacement:
      case OutputQuantity::MarkerVelocity: ids = &markers; key = "marker"; break;
      case OutputQuantity::BodyAngles:
      case OutputQuantity::BodyAngularVelocity: ids = &bodies; key = "body"; break;
      case OutputQuantity::BushingForce:
      case OutputQuantity::BushingDeflection: ids = &bushings; key = "bushing"; break;
      case OutputQuantity::P2PForce:
      case OutputQuantity::P2PLength: ids = &p2ps; key = "p2p"; break;
      case OutputQuantity::Input: ids = &inputs; key = "input"; break;
    }
    if (!ids->count(o.element)) c.fail("outputs", row, key, key + " " + std::to_string(o.element) + " does not exist");
    if ((o.quantity == OutputQuantity::BodyAngles || o.quantity == OutputQuantity::BodyAngularVelocity) &&
        p.bodies[bodies.at(o.element)].fixed)
      c.fail("outputs", row, key, "body " + std::to_string(o.element) + " is fixed");
    if (!componentValid(o.quantity, o.component))
      c.fail("outputs", row, "component", "component \"" + o.component + "\" does not fit quantity \"" +
                                              toString(o.quantity) + "\"");
  }
}

}  // namespace ek
