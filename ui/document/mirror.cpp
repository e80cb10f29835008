// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/mirror.h"

#include <map>

#include "engine/core/error.h"
#include "engine/core/rotation.h"
#include "engine/model/model.h"
#include "ui/document/project_document.h"

namespace ek::ui {
namespace {

const Mat3 S = Vec3(1.0, -1.0, 1.0).asDiagonal();

bool isLeft(const std::string& n) { return n.find("left") != std::string::npos; }
std::string toRight(std::string n) { return n.replace(n.find("left"), 4, "right"); }

template <class Rows>
bool hasName(const Rows& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.name == name) return true;
  return false;
}
template <class Rows>
int maxId(const Rows& rows) {
  int m = 0;
  for (const auto& r : rows) m = std::max(m, r.id);
  return m;
}

Vec3 mirrorAngles(const Vec3& a) { return rotation::anglesFromMatrix(S * rotation::matrix(a) * S); }

}  // namespace

Project mirrorLeftToRight(const Project& in, int* added) {
  Project p = in;
  int count = 0;
  std::map<int, int> body, marker, input, bushing, p2p, wheel;  // old id -> mirrored id
  int nextBody = maxId(p.bodies), nextMarker = maxId(p.markers), nextInput = maxId(p.inputs);
  int nextBushing = maxId(p.bushings), nextP2P = maxId(p.p2ps);

  for (const BodyRow& b : in.bodies) {
    if (!isLeft(b.name) || hasName(in.bodies, toRight(b.name))) continue;
    BodyRow m = b;
    m.id = ++nextBody;
    m.name = toRight(b.name);
    m.position = S * b.position;
    m.orientation = mirrorAngles(b.orientation);
    m.com = S * b.com;  // body frame mirrored with S: local vectors map with S
    Mat3 I;
    I << b.inertia[0], b.inertia[3], b.inertia[4], b.inertia[3], b.inertia[1], b.inertia[5], b.inertia[4],
        b.inertia[5], b.inertia[2];
    const Mat3 J = S * I * S;
    m.inertia = {J(0, 0), J(1, 1), J(2, 2), J(0, 1), J(0, 2), J(1, 2)};
    m.velocity = S * b.velocity;
    m.angularVelocity = -(S * b.angularVelocity);  // a pseudovector
    body[b.id] = m.id;
    p.bodies.push_back(m);
    ++count;
  }
  auto bodyRow = [&](int id) -> const BodyRow* {
    for (const auto& b : p.bodies)
      if (b.id == id) return &b;
    return nullptr;
  };
  for (const MarkerRow& mk : in.markers) {
    const bool onMirrored = body.count(mk.body) > 0;
    if (!onMirrored && (!isLeft(mk.name) || hasName(in.markers, toRight(mk.name)))) continue;
    MarkerRow m = mk;
    m.id = ++nextMarker;
    if (isLeft(mk.name)) m.name = toRight(mk.name);
    if (onMirrored) {
      m.body = body[mk.body];
      m.position = S * mk.position;
      m.orientation = mirrorAngles(mk.orientation);
    } else {
      // A "left" marker on an unmirrored body (vehicle body, subframe): mirror its global pose.
      const BodyRow* b = bodyRow(mk.body);
      if (!b) continue;
      const Mat3 R = rotation::matrix(b->orientation);
      const Vec3 world = S * (b->position + R * mk.position);
      m.position = R.transpose() * (world - b->position);
      m.orientation = rotation::anglesFromMatrix(R.transpose() * S * R * rotation::matrix(mk.orientation) * S);
    }
    marker[mk.id] = m.id;
    p.markers.push_back(m);
    ++count;
  }
  auto mapMarker = [&](int id) { return marker.count(id) ? marker[id] : id; };
  for (const BushingRow& e : in.bushings) {
    if (!(marker.count(e.markerI) || marker.count(e.markerJ)) || hasName(in.bushings, toRight(e.name))) continue;
    BushingRow m = e;
    m.id = ++nextBushing;
    m.name = isLeft(e.name) ? toRight(e.name) : e.name + " (mirrored)";
    m.markerI = mapMarker(e.markerI);
    m.markerJ = mapMarker(e.markerJ);
    bushing[e.id] = m.id;
    p.bushings.push_back(m);
    ++count;
  }
  for (const P2PRow& e : in.p2ps) {
    if (!(marker.count(e.markerI) || marker.count(e.markerJ)) || hasName(in.p2ps, toRight(e.name))) continue;
    P2PRow m = e;
    m.id = ++nextP2P;
    m.name = isLeft(e.name) ? toRight(e.name) : e.name + " (mirrored)";
    m.markerI = mapMarker(e.markerI);
    m.markerJ = mapMarker(e.markerJ);
    p2p[e.id] = m.id;
    p.p2ps.push_back(m);
    ++count;
  }
  for (const InputRow& in2 : in.inputs) {
    if (!marker.count(in2.marker) || hasName(in.inputs, toRight(in2.name))) continue;
    InputRow m = in2;
    m.id = ++nextInput;
    m.name = isLeft(in2.name) ? toRight(in2.name) : in2.name + " (mirrored)";
    m.marker = marker[in2.marker];
    // Forces and translations are polar vectors, torques and rotation axes axial ones.
    const bool polar = in2.kind == InputKind::Force || in2.kind == InputKind::Translation;
    m.direction = polar ? Vec3(S * in2.direction) : Vec3(-(S * in2.direction));
    if (in2.frame == InputFrame::Marker) m.direction = polar ? in2.direction : Vec3(-in2.direction);
    input[in2.id] = m.id;
    p.inputs.push_back(m);
    ++count;
  }
  int nextWheel = maxId(p.wheels);
  for (const WheelRow& w : in.wheels) {
    if (w.side != WheelSide::Left || !marker.count(w.marker) || hasName(in.wheels, toRight(w.name))) continue;
    WheelRow m = w;
    m.id = ++nextWheel;
    m.name = isLeft(w.name) ? toRight(w.name) : w.name + " (mirrored)";
    m.side = WheelSide::Right;
    m.marker = marker[w.marker];
    m.carrier = body.count(w.carrier) ? body[w.carrier] : w.carrier;
    if (w.steeringInput && input.count(*w.steeringInput)) m.steeringInput = input[*w.steeringInput];
    // A drive or brake input on the left's own side is mirrored with it; one on the centre line
    // (a differential's) stays shared.
    if (w.driveInput && input.count(*w.driveInput)) m.driveInput = input[*w.driveInput];
    if (w.brakeInput && input.count(*w.brakeInput)) m.brakeInput = input[*w.brakeInput];
    if (w.steeringAxis) m.steeringAxis = std::array<int, 2>{mapMarker((*w.steeringAxis)[0]), mapMarker((*w.steeringAxis)[1])};
    wheel[w.id] = m.id;
    p.wheels.push_back(m);
    ++count;
  }
  for (LoadCaseRow& lc : p.loadCases) {
    const auto drives = lc.drives;
    for (const auto& d : drives)
      if (input.count(d.input)) {
        bool present = false;
        for (const auto& e : lc.drives) present |= e.input == input[d.input];
        if (!present) lc.drives.push_back({input[d.input], d.signal});
      }
  }
  for (const OutputRow& o : in.outputs) {
    if (!isLeft(o.name) || hasName(in.outputs, toRight(o.name))) continue;
    const std::map<int, int>* ids = nullptr;
    switch (o.quantity) {
      case OutputQuantity::MarkerPosition:
      case OutputQuantity::MarkerDisplacement:
      case OutputQuantity::MarkerVelocity: ids = &marker; break;
      case OutputQuantity::BodyAngles:
      case OutputQuantity::BodyAngularVelocity:
      case OutputQuantity::ModalCoordinate: ids = &body; break;
      case OutputQuantity::BushingForce:
      case OutputQuantity::BushingDeflection:
      case OutputQuantity::BushingBranchDeflection: ids = &bushing; break;
      case OutputQuantity::P2PForce:
      case OutputQuantity::P2PLength: ids = &p2p; break;
      case OutputQuantity::Input: ids = &input; break;
      case OutputQuantity::Wheel:
      case OutputQuantity::Tyre: ids = &wheel; break;
      case OutputQuantity::SteeringRack:  // one rack for both sides
      case OutputQuantity::ErrorEstimate: break;  // of the run: nothing to mirror
    }
    if (!ids || !ids->count(o.element)) continue;
    OutputRow m = o;
    m.name = toRight(o.name);
    m.element = ids->at(o.element);
    p.outputs.push_back(m);
    ++count;
  }
  if (added) *added = count;
  return p;
}

QString applyMirror(ProjectDocument* doc) {
  int added = 0;
  Project mirrored = mirrorLeftToRight(doc->project(), &added);
  if (added == 0) return QStringLiteral("nothing to mirror: no rows named \"left\" without a \"right\" twin");
  try {
    validate(mirrored);
  } catch (const ModelError& e) {
    return QString::fromStdString(e.what());
  }
  replaceProject(doc, mirrored, QStringLiteral("mirror left to right"));
  return {};
}

}  // namespace ek::ui
