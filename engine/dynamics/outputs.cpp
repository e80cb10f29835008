// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/outputs.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/linearize.h"
#include "engine/dynamics/wheels.h"

namespace ek {
namespace {

int componentIndex(OutputQuantity q, const std::string& c) {
  if (q == OutputQuantity::Wheel) {
    for (int k = 0; k < kWheelChannels; ++k)
      if (c == kWheelComponents[k]) return k;
    return 0;
  }
  if (q == OutputQuantity::Tyre) {
    for (int k = 0; k < static_cast<int>(kTyreComponents.size()); ++k)
      if (c == kTyreComponents[k]) return k;
    return 0;
  }
  if (q == OutputQuantity::SteeringRack) {
    for (int k = 0; k < static_cast<int>(kSteeringRackComponents.size()); ++k)
      if (c == kSteeringRackComponents[k]) return k;
    return 0;
  }
  if (q == OutputQuantity::ErrorEstimate) {
    for (int k = 0; k < static_cast<int>(kErrorEstimateComponents.size()); ++k)
      if (c == kErrorEstimateComponents[k]) return k;
    return 0;
  }
  static const char* names[] = {"x", "y", "z", "rx", "ry", "rz"};
  for (int k = 0; k < 6; ++k)
    if (c == names[k]) return k;
  return 0;
}

std::string unitOf(OutputQuantity q, int comp, InputKind kind) {
  const bool rot = comp >= 3;
  switch (q) {
    case OutputQuantity::MarkerPosition:
    case OutputQuantity::MarkerDisplacement: return "m";
    case OutputQuantity::MarkerVelocity: return "m/s";
    case OutputQuantity::BodyAngles: return "rad";
    case OutputQuantity::BodyAngularVelocity: return "rad/s";
    case OutputQuantity::BushingForce: return rot ? "N m" : "N";
    case OutputQuantity::BushingDeflection:
    case OutputQuantity::BushingBranchDeflection: return rot ? "rad" : "m";
    case OutputQuantity::P2PForce: return "N";
    case OutputQuantity::P2PLength: return "m";
    case OutputQuantity::Input: return inputUnit(kind);
    case OutputQuantity::Wheel: return wheelChannelUnit(comp);
    case OutputQuantity::ErrorEstimate: {
      static const char* units[] = {"m", "rad", "m/s", "rad/s"};
      return units[comp];
    }
    case OutputQuantity::ModalCoordinate: return "m kg^0.5";  // the rate's unit: resolveChannels
    case OutputQuantity::Tyre: {
      static const char* units[] = {"N", "N", "N", "N m", "N m", "N m", "-", "rad", "rad", "m/s", "rad/s", "m"};
      return units[comp];
    }
    case OutputQuantity::SteeringRack: {
      static const char* units[] = {"m", "N", "N m", "rad"};
      return units[comp];
    }
  }
  return "";
}

}  // namespace

std::vector<Channel> resolveChannels(const SuspensionModel& model, const std::vector<std::string>& names) {
  std::vector<Channel> all;
  for (const auto& o : model.project().outputs) {
    Channel c;
    c.name = o.name;
    c.quantity = o.quantity;
    c.component = componentIndex(o.quantity, o.component);
    InputKind kind = InputKind::Force;
    switch (o.quantity) {
      case OutputQuantity::MarkerPosition:
      case OutputQuantity::MarkerDisplacement:
      case OutputQuantity::MarkerVelocity: c.index = model.markerById(o.element).value; break;
      case OutputQuantity::BodyAngles:
      case OutputQuantity::BodyAngularVelocity: c.index = model.bodyById(o.element).value; break;
      case OutputQuantity::BushingForce:
      case OutputQuantity::BushingDeflection: c.index = model.bushingById(o.element); break;
      case OutputQuantity::BushingBranchDeflection: {
        // The component becomes the branch's element state (validation checked it exists).
        int direction = 0, branch = 0;
        parseBranchComponent(o.component, direction, branch);
        c.index = model.bushingById(o.element);
        const int d = model.bushings[c.index].branchDirection[direction];
        c.component = model.branchDirections[d].first + branch - 1;
        c.unit = direction >= 3 ? "rad" : "m";
        all.push_back(c);
        continue;
      }
      case OutputQuantity::P2PForce:
      case OutputQuantity::P2PLength: c.index = model.p2pById(o.element); break;
      case OutputQuantity::Input:
        c.index = model.inputById(o.element);
        kind = model.inputs[c.index].kind;
        break;
      case OutputQuantity::Wheel:
      case OutputQuantity::Tyre:
        c.index = model.wheelById(o.element);
        c.wheel = &model.wheels[c.index];
        break;
      case OutputQuantity::SteeringRack: c.index = model.steeringRackById(o.element); break;
      case OutputQuantity::ErrorEstimate: break;
      case OutputQuantity::ModalCoordinate: {
        // The flexible body of the element's body; the mode from the component (validation
        // checked both, but only the reduction knows how many modes the body keeps).
        int mode = 0;
        parseModalComponent(o.component, mode, c.rate);
        const int body = model.bodyById(o.element).value;
        c.index = model.bodies[body].flexible;
        const int modes = c.index >= 0 ? model.flexibleBodies[c.index].modes() : 0;
        if (mode < 1 || mode > modes)
          throw std::invalid_argument("output '" + o.name + "': body " + std::to_string(o.element) + " '" +
                                      model.bodies[body].name + "' keeps " + std::to_string(modes) +
                                      " elastic modes, so it has no mode " + std::to_string(mode));
        c.component = mode - 1;
        c.unit = c.rate ? "m kg^0.5/s" : "m kg^0.5";
        all.push_back(c);
        continue;
      }
    }
    c.unit = unitOf(o.quantity, c.component, kind);
    all.push_back(c);
  }
  if (names.empty()) return all;
  std::vector<Channel> picked;
  for (const auto& n : names) {
    bool found = false;
    for (const auto& c : all)
      if (c.name == n) {
        picked.push_back(c);
        found = true;
      }
    if (!found) {
      std::string known;
      for (const auto& c : all) known += (known.empty() ? "" : ", ") + ("'" + c.name + "'");
      throw std::invalid_argument("unknown channel '" + n + "' (the project's outputs: " +
                                  (known.empty() ? "none" : known) + ")");
    }
  }
  return picked;
}

std::vector<Channel> stateChannels(const SuspensionModel& model) {
  std::vector<Channel> out;
  for (Channel& c : resolveChannels(model, {}))
    if (c.quantity != OutputQuantity::ErrorEstimate) out.push_back(std::move(c));
  return out;
}

std::vector<Channel> wheelOutputChannels(const SuspensionModel& model) {
  std::vector<Channel> out;
  for (std::size_t w = 0; w < model.wheels.size(); ++w)
    for (int c = 0; c < kWheelChannels; ++c) {
      if (needsSteeringAxis(c) && !model.wheels[w].hasSteeringAxis()) continue;
      Channel ch;
      ch.name = model.wheels[w].name + " " + kWheelComponents[c];
      ch.unit = wheelChannelUnit(c);
      ch.quantity = OutputQuantity::Wheel;
      ch.index = static_cast<int>(w);
      ch.component = c;
      ch.wheel = &model.wheels[w];
      out.push_back(ch);
    }
  return out;
}

std::string describeChannel(const SuspensionModel& model, const Channel& c) {
  static const char* axes[] = {"x", "y", "z", "x", "y", "z"};
  const char* axis = axes[std::clamp(c.component, 0, 5)];
  auto marker = [&](int k) {
    const ModelMarker& m = model.markers[k];
    return "marker " + std::to_string(m.id) + " '" + m.name + "' (body '" + model.bodies[m.body.value].name + "')";
  };
  auto pair = [&](const char* kind, int id, const std::string& name, MarkerIndex i, MarkerIndex j) {
    return std::string(kind) + " " + std::to_string(id) + " '" + name + "' (marker I: " + marker(i.value) +
           "; marker J: " + marker(j.value) + ")";
  };
  const std::string global = std::string(" along global ") + axis + " (ISO 8855: x forward, y left, z up)";
  switch (c.quantity) {
    case OutputQuantity::MarkerPosition: return "position of " + marker(c.index) + global;
    case OutputQuantity::MarkerDisplacement:
      return "displacement of " + marker(c.index) + " from its design position (as modelled)" + global +
             ", positive along +" + axis;
    case OutputQuantity::MarkerVelocity: return "velocity of " + marker(c.index) + global;
    case OutputQuantity::BodyAngles: {
      static const char* cardan[] = {"alpha_x'' (roll, about x'')", "alpha_y' (pitch, about y')", "alpha_z (yaw, about z)"};
      const ModelBody& b = model.bodies[c.index];
      return std::string("Cardan angle ") + cardan[std::clamp(c.component - 3, 0, 2)] + " of body " + std::to_string(b.id) +
             " '" + b.name + "' against the global frame, R = Rz Ry' Rx'', right-handed; integrated, never wraps";
    }
    case OutputQuantity::BodyAngularVelocity: {
      const ModelBody& b = model.bodies[c.index];
      return std::string("angular velocity of body ") + std::to_string(b.id) + " '" + b.name + "' about its own " + axis +
             " axis (body frame), right-handed";
    }
    case OutputQuantity::BushingForce: {
      const ModelBushing& b = model.bushings[c.index];
      return std::string(c.component >= 3 ? "moment (the generalized force of the Cardan angle r" : "force along ") +
             axis + (c.component >= 3 ? ")" : " of marker J's axes") + " on marker I of " +
             pair("bushing", b.id, b.name, b.i, b.j);
    }
    case OutputQuantity::BushingDeflection: {
      const ModelBushing& b = model.bushings[c.index];
      return std::string(c.component >= 3 ? "rotation r" : "deflection ") + axis +
             (c.component >= 3 ? " (Cardan angle of R_JI)" : " in marker J's axes") + " of marker I relative to marker J of " +
             pair("bushing", b.id, b.name, b.i, b.j);
    }
    case OutputQuantity::BushingBranchDeflection: {
      const ModelBushing& b = model.bushings[c.index];
      return "spring deflection of a Maxwell branch (element state " + std::to_string(c.component) + ") of " +
             pair("bushing", b.id, b.name, b.i, b.j);
    }
    case OutputQuantity::P2PForce: {
      const ModelP2P& e = model.p2ps[c.index];
      return "tension of " + pair("P2P element", e.id, e.name, e.i, e.j) + ", positive pulling the markers together";
    }
    case OutputQuantity::P2PLength: {
      const ModelP2P& e = model.p2ps[c.index];
      return "distance between the markers of " + pair("P2P element", e.id, e.name, e.i, e.j);
    }
    case OutputQuantity::Input: {
      const ModelInput& in = model.inputs[c.index];
      return std::string("value of project input ") + std::to_string(in.id) + " '" + in.name + "' (" +
             inputKindName(in.kind) + " at " + marker(in.marker.value) + ")";
    }
    case OutputQuantity::Wheel: {
      static const char* what[] = {
          "toe, the heading line's angle about z; positive toe-in (front of the wheel towards the vehicle centre), both sides",
          "camber, the wheel plane against the vertical; positive top of the wheel outboard, both sides",
          "spin, the wheel's rotation about its axis relative to the carrier; right-handed about the centre marker's x axis",
          "x of the wheel centre, global", "y of the wheel centre, global (y left)", "z of the wheel centre, global (z up)",
          "x of the contact point (lowest point of the unloaded tyre), global",
          "y of the contact point (lowest point of the unloaded tyre), global (y left)",
          "z of the contact point (lowest point of the unloaded tyre), global (z up)",
          "caster angle of the steering axis; positive top rearward",
          "kingpin inclination of the steering axis; positive top inboard",
          "scrub radius at the road plane; positive contact point outboard of the steering axis",
          "trail at the road plane; positive steering axis ahead of the contact point"};
      const ModelWheel& w = model.wheels[c.index];
      return "wheel " + std::to_string(w.id) + " '" + w.name + "': " + what[std::clamp(c.component, 0, kWheelChannels - 1)] +
             " (ISO 8855)";
    }
    case OutputQuantity::Tyre: {
      static const char* what[] = {
          "longitudinal force Fx at the contact point, along the wheel's heading on the road (ISO W x)",
          "lateral force Fy at the contact point (ISO W y, to the left of the heading)",
          "vertical load Fz, the road's push on the tyre",
          "overturning moment Mx (ISO W x)", "rolling resistance moment My (ISO W y)", "aligning torque Mz (ISO W z)",
          "slip ratio kappa the Magic Formula sees (from the longitudinal deflection; -V_sx / |V_x| when steady)",
          "slip angle alpha the Magic Formula sees (from the lateral deflection; tan(alpha) = V_sy / V_x when steady)",
          "inclination angle gamma against the road normal (ISO: positive with the wheel top to the right)",
          "forward speed V_x of the contact point along the heading", "spin rate Omega of the wheel about its axis",
          "effective rolling radius R_e"};
      const ModelWheel& w = model.wheels[c.index];
      return "wheel " + std::to_string(w.id) + " '" + w.name + "', tyre: " +
             what[std::clamp(c.component, 0, static_cast<int>(kTyreComponents.size()) - 1)];
    }
    case OutputQuantity::SteeringRack: {
      static const char* what[] = {
          "travel of the rack along the housing marker's z axis from its position as modelled",
          "force on the rack along the housing marker's z axis (the column's pull, positive along +z)",
          "torque in the steering column, what the driver holds: ratio times the rack's force",
          "twist of the column: steering-wheel angle minus the angle the rack's travel stands for"};
      const ModelSteeringRack& r = model.steeringRacks[c.index];
      return what[std::clamp(c.component, 0, 3)] + std::string(" of ") + pair("steering rack", r.id, r.name, r.i, r.j);
    }
    case OutputQuantity::ErrorEstimate:
      return std::string("the integrator's local error estimate of the step that ended here: the largest over the "
                         "coordinates of kind ") + kErrorEstimateComponents[std::clamp(c.component, 0, 3)];
    case OutputQuantity::ModalCoordinate: {
      const ModelFlexibleBody& f = model.flexibleBodies[c.index];
      const double hz = std::sqrt(std::max(0.0, f.modal.stiffness[c.component])) / (2.0 * M_PI);
      return std::string(c.rate ? "rate of the coordinate" : "coordinate") + " of elastic mode " +
             std::to_string(c.component + 1) + " (" + significant(hz, 4) + " Hz) of flexible body " +
             std::to_string(f.id) + " '" + f.name + "' (body '" + model.bodies[f.body].name +
             "'), mass-normalized: the mode's shape times this is the deformation";
    }
  }
  return c.name;
}

double channelValue(const Channel& c, const Workspace& ws, const std::vector<Vec3>& markerStart,
                    const LocalErrorEstimate& stepError) {
  // Body angles and angular velocities are listed rx, ry, rz: alpha_x'', alpha_y', alpha_z.
  const int rot = c.component >= 3 ? c.component - 3 : 0;
  switch (c.quantity) {
    case OutputQuantity::MarkerPosition: return ws.markers[c.index].p[c.component];
    case OutputQuantity::MarkerDisplacement: return ws.markers[c.index].p[c.component] - markerStart[c.index][c.component];
    case OutputQuantity::MarkerVelocity: return ws.markers[c.index].v[c.component];
    case OutputQuantity::BodyAngles: return ws.bodies[c.index].angles[2 - rot];
    case OutputQuantity::BodyAngularVelocity: return ws.bodies[c.index].w_B[rot];
    case OutputQuantity::BushingForce: return ws.bushings[c.index].force[c.component];
    case OutputQuantity::BushingDeflection: return ws.bushings[c.index].deflection[c.component];
    case OutputQuantity::BushingBranchDeflection: return ws.z[c.component];
    case OutputQuantity::P2PForce: return ws.p2ps[c.index].tension;
    case OutputQuantity::P2PLength: return ws.p2ps[c.index].length;
    case OutputQuantity::Input: return ws.u[c.index];
    case OutputQuantity::Wheel: return wheelChannels(*c.wheel, ws)[c.component];
    case OutputQuantity::ErrorEstimate: {
      const LocalErrorEstimate& e = stepError;
      const double values[] = {e.position, e.angle, e.velocity, e.angularVelocity};
      return values[c.component];
    }
    case OutputQuantity::ModalCoordinate:
      return c.rate ? ws.flexible[c.index].qd[c.component] : ws.flexible[c.index].q[c.component];
    case OutputQuantity::Tyre: {
      const TyreContact& t = ws.tyres[c.index];  // kTyreComponents' order
      const double values[] = {t.forces[kMfFx], t.forces[kMfFy], t.fz,      t.forces[kMfMx], t.forces[kMfMy],
                               t.forces[kMfMz], t.kappa,         t.alpha,   t.gamma,         t.vx,
                               t.spin,          t.effectiveRadius};
      return values[c.component];
    }
    case OutputQuantity::SteeringRack: {
      const SteeringRackResult& r = ws.steeringRacks[c.index];  // kSteeringRackComponents' order
      const double values[] = {r.travel, r.force, r.columnTorque, r.columnTwist};
      return values[c.component];
    }
  }
  return 0.0;
}

std::vector<Vec3> markerPositionsAsModelled(const SuspensionModel& model) {
  State s;
  model.initialState(s.r, s.v);
  Workspace ws(model);
  calcBodyKinematics(model, s, ws);
  calcMarkerKinematics(model, ws);
  std::vector<Vec3> p;
  p.reserve(ws.markers.size());
  for (const auto& mk : ws.markers) p.push_back(mk.p);
  return p;
}

void channelValues(const std::vector<Channel>& channels, const Workspace& ws, const std::vector<Vec3>& markerStart,
                   double* out, const LocalErrorEstimate& stepError) {
  constexpr std::size_t kCached = 8;  // wheels whose channels are kept for the call (more: computed each time)
  std::array<const ModelWheel*, kCached> wheel{};
  std::array<std::array<double, kWheelChannels>, kCached> values;
  std::size_t cached = 0;
  for (std::size_t k = 0; k < channels.size(); ++k) {
    const Channel& c = channels[k];
    if (c.quantity != OutputQuantity::Wheel) {
      out[k] = channelValue(c, ws, markerStart, stepError);
      continue;
    }
    std::size_t at = 0;
    while (at < cached && wheel[at] != c.wheel) ++at;
    if (at == cached) {
      if (cached == kCached) {
        out[k] = channelValue(c, ws, markerStart, stepError);
        continue;
      }
      wheel[at] = c.wheel;
      values[at] = wheelChannels(*c.wheel, ws);
      ++cached;
    }
    out[k] = values[at][static_cast<std::size_t>(c.component)];
  }
}

void Recorder::reset(std::vector<Channel> channels, std::size_t capacity) {
  channels_ = std::move(channels);
  times_.clear();
  values_.clear();
  times_.reserve(capacity);
  values_.reserve(capacity * channels_.size());
}

void Recorder::record(double t, const Workspace& ws, const std::vector<Vec3>& markerStart,
                      const LocalErrorEstimate& stepError) {
  if (times_.size() == times_.capacity()) return;  // the run was sized for its samples
  times_.push_back(t);
  const std::size_t at = values_.size();
  values_.resize(at + channels_.size());  // within the capacity reserved: no allocation
  channelValues(channels_, ws, markerStart, values_.data() + at, stepError);
}

std::vector<double> Recorder::series(std::size_t c) const {
  std::vector<double> s(size());
  for (std::size_t k = 0; k < size(); ++k) s[k] = value(k, c);
  return s;
}

void writeCsv(const Recorder& rec, const std::string& path) {
  OutputFile f(path, "results file");
  f << "time [s]";
  for (const auto& c : rec.channels()) f << "," << csvField(c.name + " [" + c.unit + "]");
  f << "\n";
  std::string line;
  for (std::size_t k = 0; k < rec.size(); ++k) {
    // Every number exactly (the shortest text that reads back as the same double): times stay
    // distinct at any step, and differences of two runs' files are the runs' differences.
    line = shortestText(rec.time(k));
    for (std::size_t c = 0; c < rec.channels().size(); ++c) {
      line += ',';
      line += shortestText(rec.value(k, c));
    }
    line += '\n';
    f << line;
  }
  f.commit();
}

void evaluateOutputsState(const SuspensionModel& model, const State& state, const VecX& u, Workspace& ws) {
  evaluateElements(model, state, u, ws.uDot, ws, kValuesOnly);
}

}  // namespace ek
