// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/kc.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/linearize.h"
#include "engine/dynamics/outputs.h"
#include "engine/analysis/simulation.h"

namespace ek {
namespace {

constexpr double kDeg = 180.0 / M_PI;
/// Pseudo time step [s^2] of the continuation from the previous point of a sweep: long enough
/// to be Newton's method at once; the solver shortens it where a step fails.
constexpr double kWarmStartStep = 1e2;

struct KindName {
  KcKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {{KcKind::ParallelTravel, "parallel-travel"},
                               {KcKind::OppositeTravel, "opposite-travel"},
                               {KcKind::SingleTravel, "single-travel"},
                               {KcKind::StaticLoad, "static-load"}};

/// The linearization at an equilibrium and the factorized A = -J_r K + mu M (mu: the tiny
/// regularization of free directions such as wheel spin, as in the equilibrium solver).
class Linearization {
 public:
  Linearization(const SuspensionModel& model, const KcDesign& design) : model_(model), ws_(model), sys_(model) {
    ws_.wheelLoads = design.wheelLoads;
    linearize(model, design.state, VecX::Zero(model.nInputs()), ws_);
    sys_.factorize(ws_, 1e-12 * sys_.stiffnessScale(ws_));
  }
  const Workspace& ws() const { return ws_; }
  /// The response dq (dr = K dq) to a generalized load column b: J_r dr + b = 0.
  VecX respond(const VecX& b) {
    VecX dq(b.size());
    sys_.solve(b, dq);
    return dq;
  }
  /// Gradient of a wheel channel in body-twist increments: dy = g . dq.
  VecX gradient(int wheel, int channel) const {
    VecX g;
    wheelChannelGradient(model_, ws_, wheel, channel, g);
    for (int l = 0; l < model_.nFreeBodies(); ++l) g.segment<3>(6 * l + 3) = ws_.Kinv[l].transpose() * g.segment<3>(6 * l + 3);
    return g;
  }
  VecX loadColumn(int wheel, int load) const {
    VecX b;
    wheelLoadColumn(model_, ws_, wheel, load, b);
    return b;
  }

 private:
  const SuspensionModel& model_;
  Workspace ws_;
  EquilibriumSystem sys_;
};

/// Rates of every wheel channel and of every vertical force when the wheel centres move with
/// d(height) = pattern (one entry per wheel), the vertical forces solving for it.
struct TravelRates {
  MatX channel;  ///< [wheel][channel] per metre of travel
  VecX force;    ///< vertical force per metre [N/m]
};
TravelRates travelRates(const SuspensionModel& model, Linearization& lin, const VecX& pattern) {
  const int m = static_cast<int>(model.wheels.size());
  MatX X(model.nDof(), m), CK(m, model.nDof());
  for (int w = 0; w < m; ++w) {
    X.col(w) = lin.respond(lin.loadColumn(w, kFzContact));
    CK.row(w) = lin.gradient(w, kCentreZ).transpose();
  }
  const Eigen::FullPivLU<MatX> lu(CK * X);
  if (lu.rank() < m)
    throw SimulationError("the wheel heights cannot be driven by the vertical forces at the contact points "
                          "(the vertical stiffness of the suspension is singular at the design position)");
  TravelRates t;
  t.force = lu.solve(pattern);
  const VecX dq = X * t.force;
  t.channel.resize(m, kWheelChannels);
  for (int w = 0; w < m; ++w)
    for (int c = 0; c < kWheelChannels; ++c) t.channel(w, c) = lin.gradient(w, c).dot(dq);
  return t;
}

}  // namespace

const char* toString(KcKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k.name;
  return "";
}

bool parseKcKind(const std::string& name, KcKind& kind) {
  for (const auto& k : kKinds)
    if (name == k.name) {
      kind = k.kind;
      return true;
    }
  return false;
}

int KcResult::column(const std::string& name) const {
  for (std::size_t k = 0; k < columns.size(); ++k)
    if (columns[k] == name) return static_cast<int>(k);
  return -1;
}

KcDesign solveDesign(const SuspensionModel& model, double tolerance) {
  if (model.wheels.empty())
    throw std::invalid_argument("the project has no wheels: K&C analyses need the 'wheels' table");
  KcDesign d;
  model.initialState(d.state.r, d.state.v);
  d.state.v.setZero();
  Workspace ws(model);
  calcBodyKinematics(model, d.state, ws);
  calcMarkerKinematics(model, ws);
  std::vector<WheelHeight> held;
  for (std::size_t w = 0; w < model.wheels.size(); ++w) {
    d.centreZ.push_back(wheelChannels(model.wheels[w], ws)[kCentreZ]);
    held.push_back({static_cast<int>(w), d.centreZ.back()});
  }
  try {
    solveEquilibrium(model, VecX::Zero(model.nInputs()), d.state, ws, tolerance, 2000, held);
  } catch (const SimulationError& e) {
    throw SimulationError(std::string("design position: ") + e.what());
  }
  d.wheelLoads = ws.wheelLoads;
  return d;
}

MatX wheelCompliance(const SuspensionModel& model, const KcDesign& design, int wheel, int load) {
  Linearization lin(model, design);
  const VecX dq = lin.respond(lin.loadColumn(wheel, load));
  const int m = static_cast<int>(model.wheels.size());
  MatX out(m, kWheelChannels);
  for (int w = 0; w < m; ++w)
    for (int c = 0; c < kWheelChannels; ++c) out(w, c) = lin.gradient(w, c).dot(dq);
  return out;
}

std::vector<KcMetric> designMetrics(const SuspensionModel& model, const KcDesign& design) {
  Linearization lin(model, design);
  const int m = static_cast<int>(model.wheels.size());
  std::vector<KcMetric> out;
  auto add = [&](const std::string& name, int w, double value, const std::string& unit) {
    out.push_back({name, w >= 0 ? model.wheels[w].name : std::string(), unit, value});
  };
  std::vector<std::array<double, kWheelChannels>> design0;
  for (int w = 0; w < m; ++w) design0.push_back(wheelChannels(model.wheels[w], lin.ws()));

  // Parallel travel.
  const TravelRates par = travelRates(model, lin, VecX::Ones(m));
  for (int w = 0; w < m; ++w) {
    const double side = model.wheels[w].side;
    add("bump steer", w, par.channel(w, kToe) * kDeg, "deg/m");
    add("bump camber", w, par.channel(w, kCamber) * kDeg, "deg/m");
    add("wheel rate", w, par.force[w] / 1000.0, "N/mm");
    add("vertical force at design", w, design.wheelLoads[kWheelLoads * w + kFzContact], "N");
    add("half-track change (contact point, outboard)", w, side * par.channel(w, kContactY) * 1000.0, "mm/m");
    add("wheelbase change (wheel centre x)", w, par.channel(w, kCentreX) * 1000.0, "mm/m");
    add("contact point x change", w, par.channel(w, kContactX) * 1000.0, "mm/m");
  }
  // Kinematic roll centre: each contact point moves perpendicular to the line from it to the
  // roll centre in the front view; intersect a left and a right wheel's lines (or a line with the
  // vehicle centre plane y = 0 when the model has one side only).
  {
    int left = -1, right = -1;
    for (int w = m - 1; w >= 0; --w) (model.wheels[w].side > 0 ? left : right) = w;  // the first of each side
    auto line = [&](int w, Eigen::Vector2d& p, Eigen::Vector2d& d) {
      p = {design0[w][kContactY], design0[w][kContactZ]};
      d = {-par.channel(w, kContactZ), par.channel(w, kContactY)};  // perpendicular to the velocity
    };
    Eigen::Vector2d rc;
    bool found = false;
    if (left >= 0 && right >= 0) {
      Eigen::Vector2d p1, d1, p2, d2;
      line(left, p1, d1);
      line(right, p2, d2);
      Eigen::Matrix2d M;
      M << d1, -d2;
      if (std::abs(M.determinant()) > 1e-12 * d1.norm() * d2.norm()) {
        const Eigen::Vector2d t = M.lu().solve(p2 - p1);
        rc = p1 + t[0] * d1;
        found = true;
      }
    } else if (m > 0) {
      Eigen::Vector2d p, d;
      line(0, p, d);
      if (std::abs(d.x()) > 1e-12 * d.norm()) {
        rc = p + (-p.x() / d.x()) * d;
        found = true;
      }
    }
    if (found) {
      double ground = 0.0;
      for (int w = 0; w < m; ++w) ground += design0[w][kContactZ] / m;
      add("roll centre height (above the contact points)", -1, (rc.y() - ground) * 1000.0, "mm");
      add("roll centre lateral position (y)", -1, rc.x() * 1000.0, "mm");
    }
    // Roll stiffness from opposite travel of a left and a right wheel.
    if (left >= 0 && right >= 0) {
      VecX pattern = VecX::Zero(m);
      for (int w = 0; w < m; ++w) pattern[w] = model.wheels[w].side;
      const TravelRates opp = travelRates(model, lin, pattern);
      double moment = 0.0;
      for (int w = 0; w < m; ++w) moment += opp.force[w] * design0[w][kContactY];
      const double track = design0[left][kContactY] - design0[right][kContactY];
      add("roll stiffness (wheel pads)", -1, moment / (2.0 / track) / kDeg, "N m/deg");
      // Roll angle phi = (travel left - travel right) / track: d(travel left) / d(phi) = track / 2.
      for (int w = 0; w < m; ++w)
        add("camber change per roll angle (left wheels up)", w, opp.channel(w, kCamber) * (track / 2.0), "deg/deg");
    }
  }
  // Anti-dive / anti-lift from the side-view paths (outboard brakes: contact point; drive shafts:
  // wheel centre).
  if (const auto& v = model.project().vehicle) {
    const double lever = v->wheelbase / v->cgHeight;
    for (int w = 0; w < m; ++w) {
      const double cp = par.channel(w, kContactX), wc = par.channel(w, kCentreX);
      if (v->frontAxle) {
        add("anti-dive (braking)", w, cp * lever * v->frontBrakeShare * 100.0, "%");
        if (v->frontDriveShare > 0.0) add("anti-lift (traction)", w, wc * lever * v->frontDriveShare * 100.0, "%");
      } else {
        add("anti-lift (braking)", w, -cp * lever * (1.0 - v->frontBrakeShare) * 100.0, "%");
        if (v->frontDriveShare < 1.0) add("anti-squat (traction)", w, -wc * lever * (1.0 - v->frontDriveShare) * 100.0, "%");
      }
    }
  }
  // Compliances: each wheel under its own loads, vertical forces held.
  for (int w = 0; w < m; ++w) {
    auto response = [&](int load) {
      const VecX dq = lin.respond(lin.loadColumn(w, load));
      std::array<double, kWheelChannels> r{};
      for (int c = 0; c < kWheelChannels; ++c) r[c] = lin.gradient(w, c).dot(dq);
      return r;
    };
    const auto brake = response(kFxContact), drive = response(kFxCentre), lateral = response(kFyContact),
               align = response(kMzContact);
    add("toe compliance, braking Fx at contact", w, brake[kToe] * kDeg * 1000.0, "deg/kN");
    add("camber compliance, braking Fx at contact", w, brake[kCamber] * kDeg * 1000.0, "deg/kN");
    add("wheel centre x compliance, braking Fx at contact", w, brake[kCentreX] * 1e6, "mm/kN");
    add("toe compliance, Fx at wheel centre", w, drive[kToe] * kDeg * 1000.0, "deg/kN");
    add("camber compliance, Fx at wheel centre", w, drive[kCamber] * kDeg * 1000.0, "deg/kN");
    add("wheel centre x compliance, Fx at wheel centre", w, drive[kCentreX] * 1e6, "mm/kN");
    add("toe compliance, lateral Fy (+y) at contact", w, lateral[kToe] * kDeg * 1000.0, "deg/kN");
    add("camber compliance, lateral Fy (+y) at contact", w, lateral[kCamber] * kDeg * 1000.0, "deg/kN");
    add("wheel centre y compliance, lateral Fy (+y) at contact", w, lateral[kCentreY] * 1e6, "mm/kN");
    add("toe compliance, aligning torque Mz", w, align[kToe] * kDeg * 1000.0, "deg/kN m");
  }
  return out;
}

KcResult runKc(const SuspensionModel& model, const KcOptions& o, const std::function<void(double)>& progress,
               const std::atomic<bool>* cancel) {
  const int m = static_cast<int>(model.wheels.size());
  if (m == 0) throw std::invalid_argument("the project has no wheels: K&C analyses need the 'wheels' table");
  if (o.points < 2) throw std::invalid_argument("a sweep needs at least 2 points");
  if (!(o.to > o.from)) throw std::invalid_argument("the sweep's end must be greater than its start");
  if ((o.kind == KcKind::SingleTravel && (o.wheel < 0 || o.wheel >= m)) || (o.wheel >= m))
    throw std::invalid_argument("wheel index " + std::to_string(o.wheel) + " does not exist (the project has " +
                                std::to_string(m) + " wheels)");
  if (o.kind == KcKind::StaticLoad && (o.load < 0 || o.load >= kWheelLoads))
    throw std::invalid_argument("unknown wheel load");
  const bool travel = o.kind != KcKind::StaticLoad;
  KcDesign design = solveDesign(model, o.tolerance);

  KcResult res;
  if (travel) {
    res.sweepName = o.kind == KcKind::OppositeTravel ? "travel (left wheels)" : "travel";
    res.sweepUnit = "m";
  } else {
    res.sweepName = kWheelLoadNames[o.load];
    res.sweepUnit = (o.load >= kMxContact && o.load <= kMzContact) ? "N m" : "N";
  }
  for (int w = 0; w < m; ++w) {
    for (int c = 0; c < kWheelChannels; ++c) {
      if (needsSteeringAxis(c) && !model.wheels[w].hasSteeringAxis()) continue;
      res.columns.push_back(model.wheels[w].name + " " + kWheelComponents[c]);
      res.units.push_back(wheelChannelUnit(c));
    }
    res.columns.push_back(model.wheels[w].name + " vertical force");
    res.units.push_back("N");
  }
  const std::vector<Channel> outputs = resolveChannels(model, {});
  for (const auto& c : outputs) {
    res.columns.push_back(c.name);
    res.units.push_back(c.unit);
  }
  const std::vector<Vec3> markerStart = markerPositionsAsModelled(model);

  const std::vector<double>& z0 = design.centreZ;
  auto targets = [&](double s) {
    std::vector<WheelHeight> held;
    if (!travel) return held;
    for (int w = 0; w < m; ++w) {
      double e = 1.0;
      if (o.kind == KcKind::OppositeTravel) e = model.wheels[w].side;
      if (o.kind == KcKind::SingleTravel) e = w == o.wheel ? 1.0 : 0.0;
      held.push_back({w, z0[w] + s * e});
    }
    return held;
  };
  auto record = [&](double s, const State& st, const Workspace& wsp) {
    std::vector<double> row;
    Workspace out(model);
    out.wheelLoads = wsp.wheelLoads;
    evaluateOutputsState(model, st, VecX::Zero(model.nInputs()), out);
    for (int w = 0; w < m; ++w) {
      const auto ch = wheelChannels(model.wheels[w], out);
      for (int c = 0; c < kWheelChannels; ++c)
        if (!(needsSteeringAxis(c) && !model.wheels[w].hasSteeringAxis())) row.push_back(ch[c]);
      row.push_back(wsp.wheelLoads[kWheelLoads * w + kFzContact]);
    }
    for (const auto& c : outputs) row.push_back(channelValue(c, out, markerStart));
    return std::pair{s, row};
  };

  // Points from the design value outwards in both directions, each from its neighbour.
  std::vector<double> grid(o.points);
  for (int k = 0; k < o.points; ++k) grid[k] = o.from + (o.to - o.from) * k / (o.points - 1);
  std::vector<std::pair<double, std::vector<double>>> rows;
  int done = 0;
  for (int direction : {+1, -1}) {
    State st = design.state;
    Workspace wsp(model);
    wsp.wheelLoads = design.wheelLoads;
    std::vector<int> order;
    for (int k = 0; k < o.points; ++k)
      if ((direction > 0 && grid[k] >= 0.0) || (direction < 0 && grid[k] < 0.0)) order.push_back(k);
    if (direction < 0) std::reverse(order.begin(), order.end());
    for (int k : order) {
      if (cancel && cancel->load()) throw SimulationError("the analysis was cancelled");
      const double s = grid[k];
      if (!travel) {
        for (int w = 0; w < m; ++w)
          if (o.wheel < 0 || o.wheel == w) wsp.wheelLoads[kWheelLoads * w + o.load] = s;
      }
      try {
        res.iterations += solveEquilibrium(model, VecX::Zero(model.nInputs()), st, wsp, o.tolerance, 2000, targets(s), kWarmStartStep)
                .iterations;
      } catch (const SimulationError& e) {
        throw SimulationError("point " + std::to_string(k + 1) + " of " + std::to_string(o.points) + " (" +
                              res.sweepName + " = " + significant(s) + " " + res.sweepUnit + "): " + e.what());
      }
      rows.push_back(record(s, st, wsp));
      if (progress) progress(double(++done) / o.points);
    }
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [s, row] : rows) {
    res.sweep.push_back(s);
    res.values.push_back(std::move(row));
  }
  res.metrics = designMetrics(model, design);
  return res;
}

void writeKcCsv(const KcResult& r, const std::string& path) {
  std::string text = csvField(r.sweepName + " [" + r.sweepUnit + "]");
  for (std::size_t c = 0; c < r.columns.size(); ++c) text += "," + csvField(r.columns[c] + " [" + r.units[c] + "]");
  text += "\n";
  for (std::size_t k = 0; k < r.sweep.size(); ++k) {
    text += shortestText(r.sweep[k]);
    for (double v : r.values[k]) text += "," + significant(v, 10);
    text += "\n";
  }
  writeTextFile(text, path);
}

}  // namespace ek
