// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/project_io.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "engine/model/json_reader.h"

namespace ek {
namespace {

constexpr const char* kFormat = "elastokin-project";
constexpr int kVersion = 1;

struct QuantityName {
  OutputQuantity q;
  const char* name;
  const char* elementKey;
};
constexpr QuantityName kQuantities[] = {
    {OutputQuantity::MarkerPosition, "marker position", "marker"},
    {OutputQuantity::MarkerDisplacement, "marker displacement", "marker"},
    {OutputQuantity::MarkerVelocity, "marker velocity", "marker"},
    {OutputQuantity::BodyAngles, "body angles", "body"},
    {OutputQuantity::BodyAngularVelocity, "body angular velocity", "body"},
    {OutputQuantity::BushingForce, "bushing force", "bushing"},
    {OutputQuantity::BushingDeflection, "bushing deflection", "bushing"},
    {OutputQuantity::BushingBranchDeflection, "bushing branch deflection", "bushing"},
    {OutputQuantity::P2PForce, "p2p force", "p2p"},
    {OutputQuantity::P2PLength, "p2p length", "p2p"},
    {OutputQuantity::Input, "input", "input"},
    {OutputQuantity::Wheel, "wheel", "wheel"},
    {OutputQuantity::ErrorEstimate, "error estimate", nullptr},
    {OutputQuantity::ModalCoordinate, "modal coordinate", "body"},
    {OutputQuantity::Tyre, "tyre", "wheel"},
    {OutputQuantity::SteeringRack, "steering rack", "steering rack"},
};

struct SignalName {
  SignalType t;
  const char* name;
};
constexpr SignalName kSignals[] = {{SignalType::Constant, "constant"}, {SignalType::Step, "step"},
                                   {SignalType::Ramp, "ramp"},         {SignalType::Sine, "sine"},
                                   {SignalType::Chirp, "chirp"},       {SignalType::Table, "table"},
                                   {SignalType::Bump, "bump"}};

/// At most this many nested objects and arrays: a project needs 5 (table, row, direction, law).
constexpr int kMaxDepth = 64;


LawRow readLaw(ObjectReader& r, const std::string& key) {
  LawRow law;
  const Json& v = r.raw(key);
  if (v.is_number()) {
    law.coefficient = r.toNumber(v, key);
  } else if (v.is_object()) {
    ObjectReader c(v, r.at(key), r.diagnostics());
    law.curve = c.integer("curve");
    c.finish();
  } else if (!v.is_discarded()) {
    r.fail(key, "expected a number or {\"curve\": id}, found " + ObjectReader::describe(v));
  }
  return law;
}

Json writeLaw(const LawRow& law) {
  if (law.curve) return Json{{"curve", *law.curve}};
  return law.coefficient;
}

Json vec(const Vec3& v) { return Json::array({v.x(), v.y(), v.z()}); }

/// A matrix stored as an array of rows: rows x cols numbers (rows < 0: any count).
MatX readRows(ObjectReader& r, const std::string& key, int rows, int cols) {
  const Json& v = r.raw(key);
  if (v.is_discarded()) return MatX(std::max(rows, 0), cols);
  const bool shaped = v.is_array() && (rows < 0 || v.size() == static_cast<std::size_t>(rows)) &&
                      std::all_of(v.begin(), v.end(), [&](const Json& row) {
                        return row.is_array() && row.size() == static_cast<std::size_t>(cols);
                      });
  if (!shaped) {
    r.fail(key, "expected " + (rows < 0 ? std::string("rows") : std::to_string(rows) + " rows") + " of " +
                    std::to_string(cols) + " numbers, found " + ObjectReader::describe(v));
    return MatX::Zero(std::max(rows, 0), cols);
  }
  MatX m(static_cast<int>(v.size()), cols);
  for (int i = 0; i < m.rows(); ++i)
    for (int k = 0; k < cols; ++k) m(i, k) = r.toNumber(v[i][k], key);
  return m;
}

Json writeRows(const MatX& m) {
  Json rows = Json::array();
  for (int i = 0; i < m.rows(); ++i) {
    Json row = Json::array();
    for (int k = 0; k < m.cols(); ++k) row.push_back(m(i, k));
    rows.push_back(row);
  }
  return rows;
}

/// A flexible body reduced elsewhere (docs/project-format.md, "reduced body"): 3 x 3 matrices as
/// rows of 9 numbers (row-major), E_k as 3 rows of n per mode.
ReducedBodyRow readReducedBody(ObjectReader& r) {
  ReducedBodyRow b;
  b.source = r.string("source", "");
  fe::ModalBody& m = b.modal;
  const Json& markers = r.raw("interface markers");
  if (markers.is_array())
    for (const Json& id : markers) b.interfaceMarkers.push_back(r.toInteger(id, "interface markers"));
  else if (!markers.is_discarded())
    r.fail("interface markers", "expected an array of marker ids, found " + ObjectReader::describe(markers));
  m.mass = r.number("mass [kg]");
  m.centre = r.vec3("centre of mass [m]");
  const MatX inertia = readRows(r, "inertia [kg m^2]", 3, 3);
  m.inertia = inertia;
  const MatX f = readRows(r, "frequencies [Hz]", -1, 1);
  m.frequencies = f.col(0);
  m.stiffness = (2.0 * M_PI * m.frequencies).array().square().matrix();
  const int modes = static_cast<int>(m.frequencies.size());
  const MatX nodes = readRows(r, "nodes [m]", static_cast<int>(b.interfaceMarkers.size()), 3);
  for (int i = 0; i < nodes.rows(); ++i) {
    m.nodes.push_back(nodes.row(i).transpose());
    m.dofs.first.push_back(6 * i);
    m.dofs.warp.push_back(-1);
  }
  m.dofs.size = 6 * static_cast<int>(m.nodes.size());
  m.shapes = readRows(r, "node shapes", m.dofs.size, modes);
  const MatX G = readRows(r, "G", modes, 9), H = readRows(r, "H", modes * modes, 9);
  const MatX E = readRows(r, "E", 3 * modes, modes);
  auto mat3 = [](const MatX& rows, int i) {
    Mat3 a;
    for (int k = 0; k < 9; ++k) a(k / 3, k % 3) = rows(i, k);
    return a;
  };
  for (int i = 0; i < G.rows(); ++i) m.G.push_back(mat3(G, i));
  for (int i = 0; i < H.rows(); ++i) m.H.push_back(mat3(H, i));
  for (int k = 0; 3 * k + 3 <= E.rows(); ++k) m.E.push_back(E.middleRows(3 * k, 3));
  r.finish();
  return b;
}

Json writeReducedBody(const ReducedBodyRow& b) {
  const fe::ModalBody& m = b.modal;
  const int n = m.modes();
  auto rows9 = [](const std::vector<Mat3>& v) {
    MatX rows(static_cast<int>(v.size()), 9);
    for (int i = 0; i < rows.rows(); ++i)
      for (int k = 0; k < 9; ++k) rows(i, k) = v[i](k / 3, k % 3);
    return writeRows(rows);
  };
  MatX nodes(static_cast<int>(m.nodes.size()), 3), E(3 * n, n);
  for (int i = 0; i < nodes.rows(); ++i) nodes.row(i) = m.nodes[i].transpose();
  for (int k = 0; k < n; ++k) E.middleRows(3 * k, 3) = m.E[k];
  return Json{{"source", b.source},
              {"interface markers", b.interfaceMarkers},
              {"mass [kg]", m.mass},
              {"centre of mass [m]", vec(m.centre)},
              {"inertia [kg m^2]", writeRows(m.inertia)},
              {"frequencies [Hz]", writeRows(m.frequencies)},
              {"nodes [m]", writeRows(nodes)},
              {"node shapes", writeRows(m.shapes)},
              {"G", rows9(m.G)},
              {"H", rows9(m.H)},
              {"E", writeRows(E)}};
}

/// A flexible body's modal damping: one ratio or one per mode, and proportional damping.
void readModalDamping(ObjectReader& r, FlexibleBodyRow& f) {
  f.dampingRatio = r.number("damping ratio", f.dampingRatio);
  if (r.has("damping ratios")) {
    const Json& a = r.raw("damping ratios");
    if (!a.is_array()) r.fail("damping ratios", "expected an array of numbers, one per mode, found " + ObjectReader::describe(a));
    else
      for (const Json& x : a) f.dampingRatios.push_back(r.toNumber(x, "damping ratios"));
  }
  f.massDamping = r.number("mass-proportional damping [1/s]", f.massDamping);
  f.stiffnessDamping = r.number("stiffness-proportional damping [s]", f.stiffnessDamping);
}

void writeModalDamping(const FlexibleBodyRow& f, Json& j) {
  if (!f.dampingRatios.empty()) j["damping ratios"] = f.dampingRatios;
  if (f.massDamping != 0.0) j["mass-proportional damping [1/s]"] = f.massDamping;
  if (f.stiffnessDamping != 0.0) j["stiffness-proportional damping [s]"] = f.stiffnessDamping;
}

/// A flexible body's row (docs/project-format.md, "flexible bodies").
FlexibleBodyRow readFlexibleBody(ObjectReader& r) {
  FlexibleBodyRow f;
  f.id = r.integer("id");
  f.name = r.string("name", "");
  f.body = r.integer("body");
  if (r.has("reduced body")) {  // from an FE model: no beams
    ObjectReader red(r.raw("reduced body"), r.at("reduced body"), r.diagnostics());
    f.reduced = readReducedBody(red);
    f.maxFrequency = r.number("max frequency [Hz]", f.maxFrequency);
    readModalDamping(r, f);
    return f;
  }
  const Json& pts = r.raw("points [m]");
  if (!pts.is_discarded() && !pts.is_array())
    r.fail("points [m]", "expected an array of [x, y, z] points, found " + ObjectReader::describe(pts));
  else if (pts.is_array())
    for (std::size_t k = 0; k < pts.size(); ++k) {
      const Json& p = pts[k];
      if (!p.is_array() || p.size() != 3) {
        r.fail("points [m]", "point " + std::to_string(k + 1) + ": expected [x, y, z], found " + ObjectReader::describe(p));
        continue;
      }
      f.points.emplace_back(r.toNumber(p[0], "points [m]"), r.toNumber(p[1], "points [m]"), r.toNumber(p[2], "points [m]"));
    }
  f.elementsPerSegment = r.has("elements per segment") ? r.integer("elements per segment") : f.elementsPerSegment;
  f.up = r.vec3("up", f.up);
  {
    ObjectReader sec(r.raw("section"), r.at("section"), r.diagnostics());
    f.section.area = sec.number("area [m^2]");
    f.section.iy = sec.number("iy [m^4]");
    f.section.iz = sec.number("iz [m^4]");
    f.section.torsion = sec.number("torsion [m^4]");
    f.section.warping = sec.number("warping [m^6]", 0.0);
    f.section.shearY = sec.number("shear y", f.section.shearY);
    f.section.shearZ = sec.number("shear z", f.section.shearZ);
    sec.finish();
  }
  {
    ObjectReader mat(r.raw("material"), r.at("material"), r.diagnostics());
    f.material.youngsModulus = mat.number("E [Pa]");
    f.material.shearModulus = mat.number("G [Pa]");
    f.material.density = mat.number("density [kg/m^3]");
    mat.finish();
  }
  f.modes = r.has("modes") ? r.integer("modes") : f.modes;
  f.maxFrequency = r.number("max frequency [Hz]", f.maxFrequency);
  readModalDamping(r, f);
  return f;
}

BodyRow readBody(ObjectReader& r, const std::set<int>& flexible) {
  BodyRow b;
  b.id = r.integer("id");
  b.name = r.string("name", "");
  b.fixed = r.boolean("fixed", false);
  b.subsystem = r.string("subsystem", "");
  b.position = r.vec3("position [m]", Vec3::Zero());
  b.orientation = r.vec3("orientation [rad]", Vec3::Zero());
  // Fixed bodies need no mass properties, but any given are kept so a save reproduces them.
  // A flexible body's mass properties come from its beams: none needed here.
  b.mass = b.fixed || flexible.count(b.id) ? r.number("mass [kg]", 0.0) : r.number("mass [kg]");
  b.com = r.vec3("com [m]", Vec3::Zero());
  if ((!b.fixed && !flexible.count(b.id)) || r.has("inertia [kg m^2]")) {
    const Json& in = r.raw("inertia [kg m^2]");
    if (!in.is_discarded() && (!in.is_array() || (in.size() != 3 && in.size() != 6)))
      r.fail("inertia [kg m^2]", "expected [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], found " +
                                     ObjectReader::describe(in));
    else if (in.is_array())
      for (std::size_t k = 0; k < in.size(); ++k) b.inertia[k] = r.toNumber(in[k], "inertia [kg m^2]");
  }
  b.velocity = r.vec3("velocity [m/s]", Vec3::Zero());
  b.angularVelocity = r.vec3("angular velocity [rad/s]", Vec3::Zero());
  return b;
}

MarkerRow readMarker(ObjectReader& r) {
  MarkerRow m;
  m.id = r.integer("id");
  m.name = r.string("name", "");
  m.body = r.integer("body");
  m.position = r.vec3("position [m]", Vec3::Zero());
  m.orientation = r.vec3("orientation [rad]", Vec3::Zero());
  return m;
}

BushingRow readBushing(ObjectReader& r) {
  BushingRow b;
  b.id = r.integer("id");
  b.name = r.string("name", "");
  b.markerI = r.integer("marker_i");
  b.markerJ = r.integer("marker_j");
  for (int k = 0; k < 6; ++k) {
    const std::string key = kBushingDirections[k];
    if (!r.has(key)) continue;
    ObjectReader d(r.raw(key), r.at(key), r.diagnostics());
    const bool rot = k >= 3;
    auto& dir = b.directions[k];
    const char* ks = rot ? "stiffness [N m/rad]" : "stiffness [N/m]";
    const char* kd = rot ? "damping [N m s/rad]" : "damping [N s/m]";
    const char* kp = rot ? "preload [N m]" : "preload [N]";
    if (d.has(ks)) dir.stiffness = readLaw(d, ks);
    if (d.has(kd)) dir.damping = readLaw(d, kd);
    dir.preload = d.number(kp, 0.0);
    if (d.has("maxwell")) {
      const Json& arr = d.raw("maxwell");
      if (!arr.is_array()) {
        d.fail("maxwell", "must be a list of branches {\"" + std::string(ks) + "\": k, \"" + kd + "\": c}");
      } else {
        for (std::size_t n = 0; n < arr.size(); ++n) {
          const std::string at = "maxwell[" + std::to_string(n + 1) + "]";
          if (!arr[n].is_object()) {
            d.fail("maxwell", "branch " + std::to_string(n + 1) + " must be an object");
            continue;
          }
          ObjectReader br(arr[n], d.at(at), d.diagnostics());
          MaxwellBranchRow m;
          m.stiffness = br.number(ks);
          m.damping = br.number(kd);
          br.finish();
          dir.maxwell.push_back(m);
        }
      }
    }
    dir.maxwellScaledBySlope = d.boolean("maxwell scaled by slope", false);
    d.finish();
  }
  return b;
}

StopRow readStop(ObjectReader& r, const std::string& key) {
  ObjectReader s(r.raw(key), r.at(key), r.diagnostics());
  StopRow stop;
  stop.clearance = s.number("clearance [m]");
  stop.law = readLaw(s, "stiffness [N/m]");
  s.finish();
  return stop;
}

P2PRow readP2P(ObjectReader& r) {
  P2PRow p;
  p.id = r.integer("id");
  p.name = r.string("name", "");
  p.markerI = r.integer("marker_i");
  p.markerJ = r.integer("marker_j");
  if (r.has("free length [m]")) p.freeLength = r.number("free length [m]");
  p.preload = r.number("preload [N]", 0.0);
  if (r.has("spring [N/m]")) p.spring = readLaw(r, "spring [N/m]");
  if (r.has("damper [N s/m]")) p.damper = readLaw(r, "damper [N s/m]");
  if (r.has("bump stop")) p.bumpStop = readStop(r, "bump stop");
  if (r.has("rebound stop")) p.reboundStop = readStop(r, "rebound stop");
  return p;
}

SteeringRackRow readSteeringRack(ObjectReader& r) {
  SteeringRackRow s;
  s.id = r.integer("id");
  s.name = r.string("name", "");
  s.input = r.integer("steering input");
  s.markerI = r.integer("marker_i");
  s.markerJ = r.integer("marker_j");
  if (r.has("travel curve")) {
    s.travelCurve = r.integer("travel curve");
    if (r.has("ratio [m/rad]"))
      r.fail("ratio [m/rad]", "give either 'ratio [m/rad]' (a constant ratio) or 'travel curve' (a variable one), not both");
  } else {
    s.ratio = r.number("ratio [m/rad]");
  }
  s.columnStiffness = r.number("column stiffness [N m/rad]");
  s.columnDamping = r.number("column damping [N m s/rad]", 0.0);
  return s;
}
/// An array of [x, y] pairs under `key`; each malformed pair an error naming its number.
std::vector<std::array<double, 2>> readPairs(ObjectReader& r, const std::string& key) {
  std::vector<std::array<double, 2>> out;
  const Json& pts = r.raw(key);
  if (pts.is_discarded()) return out;
  if (!pts.is_array()) {
    r.fail(key, "expected an array of [x, y] pairs, found " + ObjectReader::describe(pts));
    return out;
  }
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const Json& p = pts[k];
    if (!p.is_array() || p.size() != 2) {
      r.fail(key, "point " + std::to_string(k + 1) + ": expected an [x, y] pair, found " + ObjectReader::describe(p));
      continue;
    }
    out.push_back({r.toNumber(p[0], key), r.toNumber(p[1], key)});
  }
  return out;
}


CurveRow readCurve(ObjectReader& r) {
  CurveRow c;
  c.id = r.integer("id");
  c.name = r.string("name", "");
  c.interpolation = r.string("interpolation", "pchip");
  c.extrapolation = r.string("extrapolation", "linear");
  c.points = readPairs(r, "points");
  return c;
}

InputRow readInput(ObjectReader& r) {
  InputRow in;
  in.id = r.integer("id");
  in.name = r.string("name", "");
  in.marker = r.integer("marker");
  const std::string kind = r.string("kind", "force");
  bool known = false;
  for (InputKind k : {InputKind::Force, InputKind::Torque, InputKind::Translation, InputKind::Rotation})
    if (kind == inputKindName(k)) {
      in.kind = k;
      known = true;
    }
  if (!known)
    r.fail("kind", "expected \"force\", \"torque\", \"translation\" or \"rotation\", found \"" + kind + "\"");
  const std::string frame = r.string("frame", "global");
  if (frame == "global") in.frame = InputFrame::Global;
  else if (frame == "marker") in.frame = InputFrame::Marker;
  else r.fail("frame", "expected \"global\" or \"marker\", found \"" + frame + "\"");
  in.direction = r.vec3("direction");
  return in;
}

WheelRow readWheel(ObjectReader& r) {
  WheelRow w;
  w.id = r.integer("id");
  w.name = r.string("name", "");
  w.marker = r.integer("marker");
  w.carrier = r.integer("carrier");
  w.radius = r.number("radius [m]");
  const std::string side = r.string("side");
  if (side == "left") w.side = WheelSide::Left;
  else if (side == "right") w.side = WheelSide::Right;
  else if (r.has("side")) r.fail("side", "expected \"left\" or \"right\", found \"" + side + "\"");
  if (r.has("steering axis")) {
    const Json& a = r.raw("steering axis");
    if (!a.is_array() || a.size() != 2)
      r.fail("steering axis", "expected [upper marker, lower marker], found " + ObjectReader::describe(a));
    else
      w.steeringAxis = std::array<int, 2>{r.toInteger(a[0], "steering axis"), r.toInteger(a[1], "steering axis")};
  }
  if (r.has("steering input")) w.steeringInput = r.integer("steering input");
  if (r.has("tyre")) w.tyre = r.string("tyre");
  if (r.has("spin inertia [kg m^2]")) w.spinInertia = r.number("spin inertia [kg m^2]");
  if (r.has("low-speed damping [N s/m]")) w.lowSpeedDamping = r.number("low-speed damping [N s/m]");
  if (r.has("road height [m]")) w.roadHeight = r.number("road height [m]");
  if (r.has("drive input")) w.driveInput = r.integer("drive input");
  if (r.has("brake input")) w.brakeInput = r.integer("brake input");
  return w;
}

Json writeWheel(const WheelRow& w) {
  Json r{{"id", w.id},         {"name", w.name},
         {"marker", w.marker}, {"carrier", w.carrier},
         {"radius [m]", w.radius}, {"side", w.side == WheelSide::Left ? "left" : "right"}};
  if (w.steeringAxis) r["steering axis"] = Json::array({(*w.steeringAxis)[0], (*w.steeringAxis)[1]});
  if (w.steeringInput) r["steering input"] = *w.steeringInput;
  if (!w.tyre.empty()) {
    r["tyre"] = w.tyre;
    r["spin inertia [kg m^2]"] = w.spinInertia;
    r["low-speed damping [N s/m]"] = w.lowSpeedDamping;
    r["road height [m]"] = w.roadHeight;
  }
  if (w.driveInput) r["drive input"] = *w.driveInput;
  if (w.brakeInput) r["brake input"] = *w.brakeInput;
  return r;
}

VehicleRow readVehicle(ObjectReader& r) {
  VehicleRow v;
  const std::string axle = r.string("axle");
  if (axle == "front") v.frontAxle = true;
  else if (axle == "rear") v.frontAxle = false;
  else if (r.has("axle")) r.fail("axle", "expected \"front\" or \"rear\", found \"" + axle + "\"");
  v.wheelbase = r.number("wheelbase [m]");
  v.cgHeight = r.number("cg height [m]");
  v.frontBrakeShare = r.number("front brake share");
  v.frontDriveShare = r.number("front drive share");
  const std::string brakes = r.string("brakes", "outboard");
  if (brakes == "inboard") v.inboardBrakes = true;
  else if (brakes != "outboard") r.fail("brakes", "expected \"outboard\" or \"inboard\", found \"" + brakes + "\"");
  v.sprungMass = r.number("sprung mass [kg]", 0.0);
  v.frontMassShare = r.number("sprung mass front share", 0.5);
  v.otherAxleRollStiffness = r.number("other axle roll stiffness [N m/deg]", 0.0);
  v.otherAxleRollCentreHeight = r.number("other axle roll centre height [m]", 0.0);
  return v;
}

Json writeVehicle(const VehicleRow& v) {
  Json j{{"axle", v.frontAxle ? "front" : "rear"}, {"wheelbase [m]", v.wheelbase}, {"cg height [m]", v.cgHeight},
         {"front brake share", v.frontBrakeShare}, {"front drive share", v.frontDriveShare},
         {"brakes", v.inboardBrakes ? "inboard" : "outboard"}};
  if (v.sprungMass != 0.0 || v.frontMassShare != 0.5 || v.otherAxleRollStiffness != 0.0 ||
      v.otherAxleRollCentreHeight != 0.0) {
    j["sprung mass [kg]"] = v.sprungMass;
    j["sprung mass front share"] = v.frontMassShare;
    j["other axle roll stiffness [N m/deg]"] = v.otherAxleRollStiffness;
    j["other axle roll centre height [m]"] = v.otherAxleRollCentreHeight;
  }
  return j;
}

SignalRow readSignal(ObjectReader& r) {
  SignalRow s;
  const std::string type = r.string("type");
  bool known = false;
  for (const auto& n : kSignals)
    if (type == n.name) {
      s.type = n.t;
      known = true;
    }
  if (!known) {
    if (!type.empty() || r.has("type"))
      r.fail("type", "unknown signal type \"" + type + "\" (constant, step, ramp, sine, chirp, table)");
    r.skipRest();
    return s;
  }
  switch (s.type) {
    case SignalType::Constant:
      s.value = r.number("value");
      break;
    case SignalType::Step:
      s.t0 = r.number("time [s]");
      s.value = r.number("before");
      s.value2 = r.number("after");
      break;
    case SignalType::Ramp:
      s.t0 = r.number("start [s]");
      s.t1 = r.number("end [s]");
      s.value = r.number("from");
      s.value2 = r.number("to");
      if (!(s.t1 > s.t0)) r.fail("end [s]", "must be later than 'start [s]'");
      break;
    case SignalType::Sine:
      s.value = r.number("offset", 0.0);
      s.amplitude = r.number("amplitude");
      s.frequency = r.number("frequency [Hz]");
      s.phase = r.number("phase [rad]", 0.0);
      s.t0 = r.number("start [s]", 0.0);
      break;
    case SignalType::Chirp:
      s.value = r.number("offset", 0.0);
      s.amplitude = r.number("amplitude");
      s.t0 = r.number("start [s]");
      s.t1 = r.number("end [s]");
      s.frequency = r.number("start frequency [Hz]");
      s.frequency2 = r.number("end frequency [Hz]");
      if (!(s.t1 > s.t0)) r.fail("end [s]", "must be later than 'start [s]'");
      break;
    case SignalType::Table:
      s.file = r.string("file");
      break;
    case SignalType::Bump:
      s.value = r.number("offset", 0.0);
      s.amplitude = r.number("height");
      s.t0 = r.number("start [s]");
      s.t1 = r.number("end [s]");
      if (!(s.t1 > s.t0)) r.fail("end [s]", "must be later than 'start [s]'");
      break;
  }
  return s;
}

LoadCaseRow readLoadCase(ObjectReader& r) {
  LoadCaseRow lc;
  lc.name = r.string("name");
  lc.duration = r.number("duration [s]");
  if (!(lc.duration > 0.0)) r.fail("duration [s]", "must be positive");
  const std::string init = r.string("initial state", "equilibrium");
  if (init == "equilibrium") lc.initialState = InitialState::Equilibrium;
  else if (init == "as modelled") lc.initialState = InitialState::AsModelled;
  else r.fail("initial state", "expected \"equilibrium\" or \"as modelled\", found \"" + init + "\"");
  if (r.has("signals")) {
    const Json& arr = r.raw("signals");
    if (!arr.is_array()) r.fail("signals", "expected an array, found " + ObjectReader::describe(arr));
    for (std::size_t i = 0; arr.is_array() && i < arr.size(); ++i) {
      ObjectReader s(arr[i], r.at("signals[" + std::to_string(i) + "]"), r.diagnostics());
      LoadCaseRow::Drive d;
      d.input = s.integer("input");
      d.signal = readSignal(s);
      s.finish();
      lc.drives.push_back(d);
    }
  }
  if (r.has("speed follower")) {
    ObjectReader f(r.raw("speed follower"), r.at("speed follower"), r.diagnostics());
    SpeedFollowerRow s;
    s.body = f.integer("body");
    s.speed = f.number("speed [m/s]");
    s.gain = f.number("gain [N m s/m]");
    s.until = f.number("until [s]", std::numeric_limits<double>::infinity());
    const Json& ids = f.raw("drive inputs");
    if (ids.is_array())
      for (const Json& id : ids) s.driveInputs.push_back(f.toInteger(id, "drive inputs"));
    else if (!ids.is_discarded())
      f.fail("drive inputs", "expected an array of input ids, found " + ObjectReader::describe(ids));
    f.finish();
    lc.speedFollower = s;
  }
  if (r.has("path follower")) {
    ObjectReader f(r.raw("path follower"), r.at("path follower"), r.diagnostics());
    PathFollowerRow s;
    s.body = f.integer("body");
    s.steeringInput = f.integer("steering input");
    s.previewTime = f.number("preview time [s]");
    s.minimumPreview = f.number("minimum preview [m]");
    s.gain = f.number("gain [rad m]");
    s.reactionTime = f.number("reaction time [s]", 0.0);
    s.path = readPairs(f, "path [m]");
    f.finish();
    lc.pathFollower = s;
  }
  return lc;
}

OutputRow readOutput(ObjectReader& r) {
  OutputRow o;
  o.name = r.string("name");
  const std::string q = r.string("quantity");
  const QuantityName* found = nullptr;
  for (const auto& n : kQuantities)
    if (q == n.name) found = &n;
  if (!found) {
    if (r.has("quantity")) r.fail("quantity", "unknown quantity \"" + q + "\"");
    r.skipRest();
    return o;
  }
  o.quantity = found->q;
  if (found->elementKey) o.element = r.integer(found->elementKey);
  o.component = r.string("component", "");
  return o;
}

TargetRow readTarget(ObjectReader& r) {
  TargetRow t;
  t.id = r.integer("id");
  t.metric = r.string("metric");
  t.manoeuvre = r.string("manoeuvre", "");
  t.wheel = r.string("wheel", "");
  if (r.has("lower")) t.lower = r.number("lower");
  if (r.has("upper")) t.upper = r.number("upper");
  t.note = r.string("note", "");
  if (!r.has("lower") && !r.has("upper")) r.fail("lower", "a target needs 'lower', 'upper' or both");
  if (t.lower && t.upper && *t.lower > *t.upper)
    r.fail("upper", "below 'lower' (" + shortestText(*t.lower) + " > " + shortestText(*t.upper) + ")");
  return t;
}

Json writeSignal(const SignalRow& s) {
  Json j;
  j["type"] = toString(s.type);
  switch (s.type) {
    case SignalType::Constant: j["value"] = s.value; break;
    case SignalType::Step:
      j["time [s]"] = s.t0; j["before"] = s.value; j["after"] = s.value2;
      break;
    case SignalType::Ramp:
      j["start [s]"] = s.t0; j["end [s]"] = s.t1; j["from"] = s.value; j["to"] = s.value2;
      break;
    case SignalType::Sine:
      j["offset"] = s.value; j["amplitude"] = s.amplitude; j["frequency [Hz]"] = s.frequency;
      j["phase [rad]"] = s.phase; j["start [s]"] = s.t0;
      break;
    case SignalType::Chirp:
      j["offset"] = s.value; j["amplitude"] = s.amplitude; j["start [s]"] = s.t0; j["end [s]"] = s.t1;
      j["start frequency [Hz]"] = s.frequency; j["end frequency [Hz]"] = s.frequency2;
      break;
    case SignalType::Table: j["file"] = s.file; break;
    case SignalType::Bump:
      j["offset"] = s.value; j["height"] = s.amplitude; j["start [s]"] = s.t0; j["end [s]"] = s.t1;
      break;
  }
  return j;
}

}  // namespace

const char* inputKindName(InputKind k) {
  switch (k) {
    case InputKind::Force: return "force";
    case InputKind::Torque: return "torque";
    case InputKind::Translation: return "translation";
    case InputKind::Rotation: return "rotation";
  }
  return "?";
}

const char* inputUnit(InputKind k) {
  switch (k) {
    case InputKind::Force: return "N";
    case InputKind::Torque: return "N m";
    case InputKind::Translation: return "m";
    case InputKind::Rotation: return "rad";
  }
  return "?";
}

const char* toString(OutputQuantity q) {
  for (const auto& n : kQuantities)
    if (n.q == q) return n.name;
  return "?";
}
const char* toString(SignalType t) {
  for (const auto& n : kSignals)
    if (n.t == t) return n.name;
  return "?";
}

namespace {

/// A repeated key as a location: table and row when it is inside a row, the field path after it.
Location duplicateLocation(const Json& j, const std::string& path, const JsonDuplicateKey& d) {
  Location w{path, "", "", ""};
  w.line = d.line;
  w.column = d.column;
  std::size_t k = 0;
  if (d.path.size() >= 2 && !d.path[0].isIndex && d.path[1].isIndex && j.is_object() && j.contains(d.path[0].key)) {
    const Json& table = j.at(d.path[0].key);
    if (table.is_array() && d.path[1].index < table.size()) {
      w.table = d.path[0].key;
      nameRow(table[d.path[1].index], d.path[1].index, w);
      k = 2;
    }
  }
  for (; k < d.path.size(); ++k)
    w.field += d.path[k].isIndex ? "[" + std::to_string(d.path[k].index) + "]"
                                 : (w.field.empty() ? "" : ".") + d.path[k].key;
  w.field += (w.field.empty() ? "" : ".") + d.key;
  return w;
}

}  // namespace

Project parseProject(const std::string& text, const std::string& path) {
  // Before the tree is built: nesting depth (the parser and every printer recurse) and
  // repeated keys (the tree keeps only the last one).
  JsonScan scan;
  const Json j = parseJsonText(text, path, kMaxDepth, "a project needs 5; is this a project file?", scan);
  Diagnostics diag;
  for (const JsonDuplicateKey& d : scan.duplicates)
    diag.error(duplicateLocation(j, path, d),
               "the key \"" + d.key + "\" appears twice in one object (first at line " + std::to_string(d.firstLine) +
                   ", column " + std::to_string(d.firstColumn) + "); remove one of them");
  Project pr;
  pr.sourcePath = path;
  ObjectReader top(j, {path, "", "", ""}, diag);
  // A file of another kind or version: the rest would only be a list of consequences.
  const std::string format = top.string("format");
  if (!diag.hasErrors() && format != kFormat) top.fail("format", std::string("expected \"") + kFormat + "\"");
  const int version = top.integer("version");
  if (!diag.hasErrors() && version != kVersion) top.fail("version", "unsupported version (this build reads 1)");
  if (diag.hasErrors() && (!j.is_object() || format != kFormat || version != kVersion)) diag.throwIfErrors();
  pr.name = top.string("name", "");
  pr.description = top.string("description", "");
  pr.gravity = top.vec3("gravity [m/s^2]", pr.gravity);
  if (top.has("simulation")) {
    ObjectReader s(top.raw("simulation"), top.at("simulation"), diag);
    pr.simulation.step = s.number("step [s]", pr.simulation.step);
    pr.simulation.linearizeEvery = s.has("linearize every") ? s.integer("linearize every") : 1;
    pr.simulation.sampleRate = s.number("sample rate [Hz]", pr.simulation.sampleRate);
    if (!(pr.simulation.step > 0)) s.fail("step [s]", "must be positive");
    if (pr.simulation.linearizeEvery < 1) s.fail("linearize every", "must be at least 1");
    if (!(pr.simulation.sampleRate > 0)) s.fail("sample rate [Hz]", "must be positive");
    s.finish();
  }
  forEachRow(top, "flexible bodies", [&](ObjectReader& r) { pr.flexibleBodies.push_back(readFlexibleBody(r)); });
  std::set<int> flexible;
  for (const auto& f : pr.flexibleBodies) flexible.insert(f.body);
  forEachRow(top, "bodies", [&](ObjectReader& r) { pr.bodies.push_back(readBody(r, flexible)); });
  forEachRow(top, "markers", [&](ObjectReader& r) { pr.markers.push_back(readMarker(r)); });
  forEachRow(top, "bushings", [&](ObjectReader& r) { pr.bushings.push_back(readBushing(r)); });
  forEachRow(top, "p2p elements", [&](ObjectReader& r) { pr.p2ps.push_back(readP2P(r)); });
  forEachRow(top, "steering racks", [&](ObjectReader& r) { pr.steeringRacks.push_back(readSteeringRack(r)); });
  forEachRow(top, "curves", [&](ObjectReader& r) { pr.curves.push_back(readCurve(r)); });
  forEachRow(top, "inputs", [&](ObjectReader& r) { pr.inputs.push_back(readInput(r)); });
  forEachRow(top, "wheels", [&](ObjectReader& r) { pr.wheels.push_back(readWheel(r)); });
  if (top.has("vehicle")) {
    ObjectReader v(top.raw("vehicle"), top.at("vehicle"), diag);
    pr.vehicle = readVehicle(v);
    v.finish();
  }
  forEachRow(top, "load cases", [&](ObjectReader& r) { pr.loadCases.push_back(readLoadCase(r)); });
  forEachRow(top, "outputs", [&](ObjectReader& r) { pr.outputs.push_back(readOutput(r)); });
  forEachRow(top, "targets", [&](ObjectReader& r) { pr.targets.push_back(readTarget(r)); });
  top.finish();
  diag.throwIfErrors();
  return pr;
}

Project readProject(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw ModelError({path, "", "", ""}, "not a regular file");
  constexpr std::uintmax_t kMaxBytes = 256u << 20;
  if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) > kMaxBytes)
    throw ModelError({path, "", "", ""}, "larger than 256 MB: not a project file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError({path, "", "", ""}, "cannot open the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parseProject(ss.str(), path);
}

std::string writeProjectText(const Project& p) {
  Json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["name"] = p.name;
  j["description"] = p.description;
  j["gravity [m/s^2]"] = vec(p.gravity);
  j["simulation"] = Json{{"step [s]", p.simulation.step},
                         {"linearize every", p.simulation.linearizeEvery},
                         {"sample rate [Hz]", p.simulation.sampleRate}};
  std::set<int> flexible;  // bodies whose mass properties come from their beams
  for (const auto& f : p.flexibleBodies) flexible.insert(f.body);
  Json bodies = Json::array();
  for (const auto& b : p.bodies) {
    Json r;
    r["id"] = b.id;
    r["name"] = b.name;
    if (b.fixed) r["fixed"] = true;
    r["subsystem"] = b.subsystem;
    r["position [m]"] = vec(b.position);
    r["orientation [rad]"] = vec(b.orientation);
    const bool moving = b.velocity != Vec3::Zero() || b.angularVelocity != Vec3::Zero();
    const bool hasMassData = b.mass != 0.0 || b.com != Vec3::Zero() || b.inertia != std::array<double, 6>{} || moving;
    if ((!b.fixed && !flexible.count(b.id)) || hasMassData) {
      r["mass [kg]"] = b.mass;
      r["com [m]"] = vec(b.com);
      r["inertia [kg m^2]"] = Json(b.inertia);
    }
    if (moving) {  // at rest is the default: not written
      r["velocity [m/s]"] = vec(b.velocity);
      r["angular velocity [rad/s]"] = vec(b.angularVelocity);
    }
    bodies.push_back(r);
  }
  j["bodies"] = bodies;
  Json markers = Json::array();
  for (const auto& m : p.markers)
    markers.push_back(Json{{"id", m.id}, {"name", m.name}, {"body", m.body},
                           {"position [m]", vec(m.position)}, {"orientation [rad]", vec(m.orientation)}});
  j["markers"] = markers;
  if (!p.flexibleBodies.empty()) {
    Json flexibleBodies = Json::array();
    for (const auto& f : p.flexibleBodies) {
      if (f.reduced) {
        flexibleBodies.push_back(Json{{"id", f.id}, {"name", f.name}, {"body", f.body},
                                      {"reduced body", writeReducedBody(*f.reduced)}, {"damping ratio", f.dampingRatio}});
        if (f.maxFrequency > 0.0) flexibleBodies.back()["max frequency [Hz]"] = f.maxFrequency;
        writeModalDamping(f, flexibleBodies.back());
        continue;
      }
      Json points = Json::array();
      for (const Vec3& x : f.points) points.push_back(vec(x));
      flexibleBodies.push_back(Json{
          {"id", f.id}, {"name", f.name}, {"body", f.body}, {"points [m]", points},
          {"elements per segment", f.elementsPerSegment}, {"up", vec(f.up)},
          {"section", Json{{"area [m^2]", f.section.area}, {"iy [m^4]", f.section.iy}, {"iz [m^4]", f.section.iz},
                           {"torsion [m^4]", f.section.torsion}, {"warping [m^6]", f.section.warping},
                           {"shear y", f.section.shearY}, {"shear z", f.section.shearZ}}},
          {"material", Json{{"E [Pa]", f.material.youngsModulus}, {"G [Pa]", f.material.shearModulus},
                            {"density [kg/m^3]", f.material.density}}},
          {"modes", f.modes}, {"damping ratio", f.dampingRatio}});
      if (f.maxFrequency > 0.0) flexibleBodies.back()["max frequency [Hz]"] = f.maxFrequency;
      writeModalDamping(f, flexibleBodies.back());
    }
    j["flexible bodies"] = flexibleBodies;
  }
  Json bushings = Json::array();
  for (const auto& b : p.bushings) {
    Json r{{"id", b.id}, {"name", b.name}, {"marker_i", b.markerI}, {"marker_j", b.markerJ}};
    for (int k = 0; k < 6; ++k) {
      const auto& d = b.directions[k];
      if (d == BushingDirectionRow{}) continue;
      const bool rot = k >= 3;
      Json dj;
      dj[rot ? "stiffness [N m/rad]" : "stiffness [N/m]"] = writeLaw(d.stiffness);
      dj[rot ? "damping [N m s/rad]" : "damping [N s/m]"] = writeLaw(d.damping);
      dj[rot ? "preload [N m]" : "preload [N]"] = d.preload;
      if (!d.maxwell.empty()) {
        Json branches = Json::array();
        for (const auto& m : d.maxwell)
          branches.push_back(Json{{rot ? "stiffness [N m/rad]" : "stiffness [N/m]", m.stiffness},
                                  {rot ? "damping [N m s/rad]" : "damping [N s/m]", m.damping}});
        dj["maxwell"] = branches;
      }
      if (d.maxwellScaledBySlope) dj["maxwell scaled by slope"] = true;
      r[kBushingDirections[k]] = dj;
    }
    bushings.push_back(r);
  }
  j["bushings"] = bushings;
  Json p2ps = Json::array();
  for (const auto& e : p.p2ps) {
    Json r{{"id", e.id}, {"name", e.name}, {"marker_i", e.markerI}, {"marker_j", e.markerJ}};
    if (e.freeLength) r["free length [m]"] = *e.freeLength;
    r["preload [N]"] = e.preload;
    r["spring [N/m]"] = writeLaw(e.spring);
    r["damper [N s/m]"] = writeLaw(e.damper);
    if (e.bumpStop)
      r["bump stop"] = Json{{"clearance [m]", e.bumpStop->clearance}, {"stiffness [N/m]", writeLaw(e.bumpStop->law)}};
    if (e.reboundStop)
      r["rebound stop"] =
          Json{{"clearance [m]", e.reboundStop->clearance}, {"stiffness [N/m]", writeLaw(e.reboundStop->law)}};
    p2ps.push_back(r);
  }
  j["p2p elements"] = p2ps;
  if (!p.steeringRacks.empty()) {  // older projects have no such table: it stays out when empty
    Json racks = Json::array();
    for (const auto& e : p.steeringRacks) {
      Json row{{"id", e.id}, {"name", e.name}, {"steering input", e.input}, {"marker_i", e.markerI},
               {"marker_j", e.markerJ}};
      if (e.travelCurve)
        row["travel curve"] = *e.travelCurve;
      else
        row["ratio [m/rad]"] = e.ratio;
      row["column stiffness [N m/rad]"] = e.columnStiffness;
      row["column damping [N m s/rad]"] = e.columnDamping;
      racks.push_back(row);
    }
    j["steering racks"] = racks;
  }
  Json curves = Json::array();
  for (const auto& c : p.curves) {
    Json pts = Json::array();
    for (const auto& pt : c.points) pts.push_back(Json::array({pt[0], pt[1]}));
    curves.push_back(Json{{"id", c.id}, {"name", c.name}, {"interpolation", c.interpolation},
                          {"extrapolation", c.extrapolation}, {"points", pts}});
  }
  j["curves"] = curves;
  Json inputs = Json::array();
  for (const auto& in : p.inputs)
    inputs.push_back(Json{{"id", in.id}, {"name", in.name}, {"marker", in.marker},
                          {"kind", inputKindName(in.kind)},
                          {"frame", in.frame == InputFrame::Global ? "global" : "marker"},
                          {"direction", vec(in.direction)}});
  j["inputs"] = inputs;
  Json wheels = Json::array();
  for (const auto& w : p.wheels) wheels.push_back(writeWheel(w));
  j["wheels"] = wheels;
  if (p.vehicle) j["vehicle"] = writeVehicle(*p.vehicle);
  Json lcs = Json::array();
  for (const auto& lc : p.loadCases) {
    Json sig = Json::array();
    for (const auto& d : lc.drives) {
      Json s{{"input", d.input}};
      s.update(writeSignal(d.signal));
      sig.push_back(s);
    }
    lcs.push_back(Json{{"name", lc.name}, {"duration [s]", lc.duration},
                       {"initial state", lc.initialState == InitialState::Equilibrium ? "equilibrium" : "as modelled"},
                       {"signals", sig}});
    if (const auto& f = lc.speedFollower)
      lcs.back()["speed follower"] = Json{{"body", f->body}, {"speed [m/s]", f->speed}, {"drive inputs", f->driveInputs},
                                          {"gain [N m s/m]", f->gain}};
    if (const auto& f = lc.speedFollower; f && std::isfinite(f->until)) lcs.back()["speed follower"]["until [s]"] = f->until;
    if (const auto& f = lc.pathFollower)
      lcs.back()["path follower"] = Json{{"body", f->body}, {"steering input", f->steeringInput},
                                         {"preview time [s]", f->previewTime}, {"minimum preview [m]", f->minimumPreview},
                                         {"gain [rad m]", f->gain}, {"path [m]", f->path}};
    if (const auto& f = lc.pathFollower; f && f->reactionTime != 0.0)
      lcs.back()["path follower"]["reaction time [s]"] = f->reactionTime;
  }
  j["load cases"] = lcs;
  Json outs = Json::array();
  for (const auto& o : p.outputs) {
    Json r{{"name", o.name}, {"quantity", toString(o.quantity)}};
    for (const auto& n : kQuantities)
      if (n.q == o.quantity && n.elementKey) r[n.elementKey] = o.element;
    if (!o.component.empty()) r["component"] = o.component;
    outs.push_back(r);
  }
  j["outputs"] = outs;
  if (!p.targets.empty()) {
    Json targets = Json::array();
    for (const auto& t : p.targets) {
      Json r{{"id", t.id}, {"metric", t.metric}};
      if (!t.manoeuvre.empty()) r["manoeuvre"] = t.manoeuvre;
      if (!t.wheel.empty()) r["wheel"] = t.wheel;
      if (t.lower) r["lower"] = *t.lower;
      if (t.upper) r["upper"] = *t.upper;
      if (!t.note.empty()) r["note"] = t.note;
      targets.push_back(r);
    }
    j["targets"] = targets;
  }
  return j.dump(2) + "\n";
}

namespace {
/// The folder a project's relative file names are resolved against, absolute.
std::filesystem::path projectFolder(const std::string& projectPath) {
  std::filesystem::path folder = std::filesystem::path(projectPath).parent_path();
  if (folder.empty()) folder = ".";  // a bare file name: the working directory (absolute("") throws)
  return std::filesystem::absolute(folder).lexically_normal();
}
}  // namespace

Project relocatedProject(const Project& project, const std::string& path) {
  Project out = project;
  out.sourcePath = path;
  const std::filesystem::path from = projectFolder(project.sourcePath), to = projectFolder(path);
  if (from == to) return out;
  for (auto& lc : out.loadCases)
    for (auto& d : lc.drives) {
      if (d.signal.type != SignalType::Table || d.signal.file.empty()) continue;
      const std::filesystem::path f(d.signal.file);
      if (f.is_absolute()) continue;
      d.signal.file = (from / f).lexically_normal().lexically_relative(to).generic_string();
    }
  return out;
}

void writeProject(const Project& p, const std::string& path) {
  const std::filesystem::path base = std::filesystem::path(p.sourcePath).parent_path();
  Diagnostics clashes;
  for (const auto& lc : p.loadCases)
    for (std::size_t k = 0; k < lc.drives.size(); ++k) {
      const SignalRow& s = lc.drives[k].signal;
      if (s.type != SignalType::Table || s.file.empty() || !sameFile(path, (base / s.file).string())) continue;
      clashes.error({path, "load cases", "'" + printableExcerpt(lc.name) + "'", "signals[" + std::to_string(k) + "].file"},
                    "the project would be written onto the signal table it reads (" + printableExcerpt(s.file) +
                        "): it is never replaced; choose another file");
    }
  clashes.throwIfErrors();
  writeFile(path, writeProjectText(relocatedProject(p, path)), "project");
}

}  // namespace ek
