// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/test_models.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/core/rotation.h"
#include "support/runs.h"

namespace ek::test {
BodyRow groundRow() {
  BodyRow ground;
  ground.id = 0;
  ground.name = "ground";
  ground.fixed = true;
  return ground;
}

Project singleBushing(double mass, const Vec3& inertia, double k, double kr, const Vec3& at) {
  Project p;
  p.name = "single bushing";
  const BodyRow ground = groundRow();
  BodyRow body;
  body.id = 1;
  body.name = "mass";
  body.mass = mass;
  body.inertia = {inertia.x(), inertia.y(), inertia.z(), 0, 0, 0};
  body.position = at;
  p.bodies = {ground, body};
  p.markers = {MarkerRow{1, "ground mount", 0, at, Vec3::Zero()}, MarkerRow{2, "body mount", 1, Vec3::Zero(), Vec3::Zero()}};
  BushingRow b;
  b.id = 1;
  b.name = "bushing";
  b.markerI = 2;
  b.markerJ = 1;
  for (int d = 0; d < 3; ++d) b.directions[d].stiffness.coefficient = k;
  for (int d = 3; d < 6; ++d) b.directions[d].stiffness.coefficient = kr;
  p.bushings = {b};
  return p;
}

Project flexibleBar(int modes, bool gravity) {
  Project p;
  p.name = "flexible bar";
  if (!gravity) p.gravity.setZero();
  BodyRow bar;
  bar.id = 1;
  bar.name = "bar";
  bar.position = Vec3(0.02, 0.0, 0.3);
  bar.orientation = Vec3(0.05, -0.03, 0.02);
  BodyRow arm;
  arm.id = 2;
  arm.name = "arm";
  arm.mass = 3.0;
  arm.inertia = {0.02, 0.03, 0.025, 0.001, 0.0, -0.002};
  arm.position = Vec3(-0.25, 0.5, 0.1);
  p.bodies = {groundRow(), bar, arm};
  FlexibleBodyRow f;
  f.id = 1;
  f.name = "bar beams";
  f.body = 1;
  f.points = {{-0.25, -0.5, 0.05}, {0, -0.45, 0}, {0, 0.45, 0}, {-0.25, 0.5, 0.05}};
  f.elementsPerSegment = 3;
  f.section.area = M_PI * (0.022 * 0.022 - 0.016 * 0.016) / 4;
  f.section.iy = f.section.iz = M_PI * (std::pow(0.022, 4) - std::pow(0.016, 4)) / 64;
  f.section.torsion = 2 * f.section.iy;
  f.section.shearY = f.section.shearZ = 0.53;
  f.material = {210e9, 80.77e9, 7850.0};
  f.modes = modes;
  f.dampingRatio = 0.02;
  p.flexibleBodies = {f};
  // Global positions of the bar's points as modelled.
  const Mat3 R = rotation::matrix(bar.orientation);
  auto global = [&](const Vec3& local) { return Vec3(bar.position + R * local); };
  const Vec3 turn(0.1, 0.2, -0.1);
  p.markers = {
      MarkerRow{10, "bar mount left", 1, f.points[1], turn},
      MarkerRow{11, "bar mount right", 1, f.points[2], Vec3::Zero()},
      MarkerRow{12, "bar end left", 1, f.points[0], Vec3::Zero()},
      MarkerRow{13, "bar end right", 1, f.points[3], Vec3::Zero()},
      MarkerRow{14, "bar end right, offset", 1, f.points[3] + Vec3(0.0, 0.01, 0.05), Vec3(0.0, 0.1, 0.0)},
      MarkerRow{1, "ground mount left", 0, global(f.points[1]), Vec3(0.1, 0.2, -0.1) + bar.orientation},
      MarkerRow{2, "ground mount right", 0, global(f.points[2]), bar.orientation},
      MarkerRow{3, "ground link top", 0, global(f.points[0]) + Vec3(0.0, 0.0, 0.25), Vec3::Zero()},
      MarkerRow{4, "ground arm mount", 0, Vec3(-0.25, 0.5, 0.1), Vec3::Zero()},
      MarkerRow{20, "arm mount", 2, Vec3::Zero(), Vec3::Zero()},
      MarkerRow{21, "arm link", 2, global(f.points[3]) - arm.position + Vec3(0.0, 0.0, 0.2), Vec3::Zero()},
      MarkerRow{22, "arm at the bar", 2, global(f.points[3] + Vec3(0.0, 0.01, 0.05)) - arm.position, Vec3(0.0, 0.1, 0.0)},
  };
  auto bushing = [](int id, const char* name, int i, int j, double k, double kr, double c, double cr) {
    BushingRow b;
    b.id = id;
    b.name = name;
    b.markerI = i;
    b.markerJ = j;
    for (int d = 0; d < 3; ++d) b.directions[d].stiffness.coefficient = k * (1.0 + 0.2 * d), b.directions[d].damping.coefficient = c;
    for (int d = 3; d < 6; ++d) b.directions[d].stiffness.coefficient = kr * (1.0 + 0.3 * (d - 3)), b.directions[d].damping.coefficient = cr;
    return b;
  };
  p.bushings = {bushing(1, "mount left", 10, 1, 2e6, 300.0, 400.0, 2.0), bushing(2, "mount right", 2, 11, 2e6, 300.0, 400.0, 2.0),
                bushing(3, "arm", 20, 4, 4e5, 2e3, 300.0, 3.0), bushing(4, "arm to bar", 22, 14, 1e5, 500.0, 100.0, 1.0)};
  P2PRow left;
  left.id = 1;
  left.name = "link left";
  left.markerI = 12;
  left.markerJ = 3;
  left.spring.coefficient = 5e4;
  left.damper.coefficient = 300.0;
  left.preload = 20.0;
  P2PRow right = left;
  right.id = 2;
  right.name = "link right";
  right.markerI = 21;
  right.markerJ = 13;
  p.p2ps = {left, right};
  return p;
}

void addDrivenRig(Project& p, const Vec3& lift, const Vec3& padOrientation) {
  BodyRow rig;
  rig.id = 3;
  rig.name = "rig";
  rig.fixed = true;
  p.bodies.push_back(rig);
  const auto mount = std::find_if(p.markers.begin(), p.markers.end(), [](const MarkerRow& m) { return m.id == 1; });
  p.markers.push_back(MarkerRow{30, "rig pad", 3, mount->position + Vec3(0.0, 0.0, -0.05), padOrientation});
  BushingRow b = p.bushings.front();
  b.id = 5;
  b.name = "rig to bar";
  b.markerI = 12;
  b.markerJ = 30;
  p.bushings.push_back(b);
  InputRow in;
  in.id = 1;
  in.name = "lift";
  in.marker = 30;
  in.kind = InputKind::Translation;
  in.direction = lift;
  p.inputs.push_back(in);
}

Project freeOscillator() {
  Project p = singleBushing(2.0, Vec3(0.01, 0.01, 0.01), 2e5, 50.0);
  p.gravity.setZero();
  p.bodies[1].position = Vec3(1e-3, 0, 0);
  p.outputs.push_back({"x", OutputQuantity::MarkerPosition, 2, "x"});
  addFreeLoadCase(p, 0.1);
  return p;
}

Project stiffOscillator(double duration) {
  Project p = singleBushing(1.0, Vec3(0.01, 0.01, 0.01), 1e7, 0.0);
  p.gravity.setZero();
  p.bodies[1].position = Vec3(1e-3, 0, 0);
  for (int k = 3; k < 6; ++k) p.bushings[0].directions[k].stiffness.coefficient = 1e3;
  p.outputs.push_back({"x", OutputQuantity::MarkerPosition, 2, "x"});
  addFreeLoadCase(p, duration);
  return p;
}

Project randomProject(unsigned seed, int nFree, int nBushings, int nP2P, bool withGround) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  auto rv = [&](double s) { return Vec3(s * U(rng), s * U(rng), s * U(rng)); };
  const double deg60 = M_PI / 3.0;
  Project p;
  p.name = "random " + std::to_string(seed);
  p.gravity = Vec3(0.3, -0.2, -9.81);

  // Curves: progressive stiffness (pchip), a spline, a linear one, and an asymmetric damper.
  p.curves.push_back({1, "progressive", "pchip", "linear",
                      {{-0.05, -9e4}, {-0.02, -2.5e4}, {0.0, 0.0}, {0.01, 1.1e4}, {0.03, 5e4}, {0.06, 2e5}}});
  p.curves.push_back({2, "spline", "spline", "linear", {{-1.0, -3e3}, {-0.3, -500}, {0.0, 0.0}, {0.4, 900}, {1.2, 5e3}}});
  p.curves.push_back({3, "damper", "pchip", "constant", {{-2.0, -2e3}, {-0.5, -800}, {0.0, 0.0}, {0.5, 2e3}, {2.0, 5e3}}});
  p.curves.push_back({4, "linear", "linear", "linear", {{-1.0, -2e4}, {0.0, 0.0}, {1.0, 3e4}}});
  p.curves.push_back({5, "stop", "pchip", "linear", {{0.0, 0.0}, {0.01, 500}, {0.02, 3e3}, {0.04, 2e4}}});

  int marker = 1;
  if (withGround) {
    BodyRow g;
    g.id = 100;
    g.name = "ground";
    g.fixed = true;
    g.position = rv(0.5);
    g.orientation = rv(0.4);
    p.bodies.push_back(g);
  }
  for (int k = 0; k < nFree; ++k) {
    BodyRow b;
    b.id = k + 1;
    b.name = "body " + std::to_string(k + 1);
    b.mass = 1.0 + 5.0 * std::abs(U(rng));
    b.com = rv(0.05);
    const Vec3 d(0.05 + 0.1 * std::abs(U(rng)), 0.05 + 0.1 * std::abs(U(rng)), 0.05 + 0.1 * std::abs(U(rng)));
    b.inertia = {d.y() + d.z(), d.x() + d.z(), d.x() + d.y(), 0.01 * U(rng), 0.01 * U(rng), 0.01 * U(rng)};
    b.position = rv(0.3);
    b.orientation = rv(deg60);
    b.velocity = rv(1.0);
    b.angularVelocity = rv(3.0);
    p.bodies.push_back(b);
  }
  auto addMarker = [&](int body) {
    MarkerRow m;
    m.id = marker++;
    m.name = "m" + std::to_string(m.id);
    m.body = body;
    m.position = rv(0.15);
    m.orientation = rv(deg60);
    p.markers.push_back(m);
    return m.id;
  };
  // Endpoints: a chain (so the topology is connected), the rest random pairs, some to ground.
  auto pickPair = [&](int e) {
    int a, b;
    if (e < nFree - 1) {
      a = e + 1;
      b = e + 2;
    } else {
      a = 1 + static_cast<int>(std::abs(U(rng)) * nFree) % nFree;
      do b = (withGround && U(rng) > 0.4) ? 100 : 1 + static_cast<int>(std::abs(U(rng)) * nFree) % nFree;
      while (b == a);
    }
    return std::pair{a, b};
  };
  auto law = [&](double coefficient, int curveId, bool useCurve) {
    LawRow l;
    if (useCurve) l.curve = curveId;
    else l.coefficient = coefficient;
    return l;
  };
  auto bodyRow = [&](int id) -> const BodyRow& {
    for (const auto& b : p.bodies)
      if (b.id == id) return b;
    return p.bodies.front();
  };
  // Marker J is placed near marker I's world pose (offset ~2 cm, ~0.3 rad), so deflections lie
  // in the curves' nonlinear range, as in an assembled suspension.
  auto addMatchingMarker = [&](int body, int otherMarker, double dp, double da) {
    const MarkerRow other = p.markers[otherMarker - 1];
    const BodyRow& ob = bodyRow(other.body);
    const Mat3 Ro = rotation::matrix(ob.orientation);
    const Vec3 pw = ob.position + Ro * other.position + rv(dp);
    const Mat3 Rw = Ro * rotation::matrix(other.orientation) * rotation::matrix(rv(da));
    const BodyRow& b = bodyRow(body);
    const Mat3 Rb = rotation::matrix(b.orientation);
    MarkerRow m;
    m.id = marker++;
    m.name = "m" + std::to_string(m.id);
    m.body = body;
    m.position = Rb.transpose() * (pw - b.position);
    m.orientation = rotation::anglesFromMatrix(Rb.transpose() * Rw);
    p.markers.push_back(m);
    return m.id;
  };
  for (int e = 0; e < nBushings; ++e) {
    auto [a, b] = pickPair(e);
    BushingRow r;
    r.id = 10 + e;
    r.name = "bushing " + std::to_string(e);
    r.markerI = addMarker(a);
    r.markerJ = addMatchingMarker(b, r.markerI, 0.02, 0.3);
    for (int d = 0; d < 6; ++d) {
      const bool rot = d >= 3;
      r.directions[d].stiffness = law(rot ? 2e3 : 2e5, rot ? 2 : 1 + 3 * (d % 2), U(rng) > -0.3);
      r.directions[d].damping = law(rot ? 5.0 : 500.0, 3, U(rng) > 0.0);
      r.directions[d].preload = 50.0 * U(rng);
    }
    p.bushings.push_back(r);
  }
  for (int e = 0; e < nP2P; ++e) {
    auto [a, b] = pickPair(nBushings + e);
    P2PRow r;
    r.id = 50 + e;
    r.name = "p2p " + std::to_string(e);
    r.markerI = addMarker(a);
    r.markerJ = addMarker(b);
    const MarkerRow& mi = p.markers[r.markerI - 1];
    const MarkerRow& mj = p.markers[r.markerJ - 1];
    auto world = [&](const MarkerRow& m) {
      const BodyRow& body = bodyRow(m.body);
      return Vec3(body.position + rotation::matrix(body.orientation) * m.position);
    };
    r.freeLength = (world(mi) - world(mj)).norm() + 0.02 * U(rng);
    r.preload = 100.0 * U(rng);
    r.spring = law(3e4, 4, e % 2 == 0);
    r.damper = law(1e3, 3, e % 2 == 1);
    r.bumpStop = StopRow{0.0, law(1e5, 5, true)};
    r.reboundStop = StopRow{0.0, law(2e5, 5, false)};
    p.p2ps.push_back(r);
  }
  // Inputs on body 1 (force global + torque marker) and the last body (force marker, torque global).
  const int m1 = addMarker(1), m2 = addMarker(nFree);
  p.inputs.push_back({1, "F global", m1, InputKind::Force, InputFrame::Global, Vec3(0.3, -0.5, 0.8)});
  p.inputs.push_back({2, "T marker", m1, InputKind::Torque, InputFrame::Marker, Vec3(0.0, 1.0, 0.2)});
  p.inputs.push_back({3, "F marker", m2, InputKind::Force, InputFrame::Marker, Vec3(1.0, 0.1, 0.0)});
  p.inputs.push_back({4, "T global", m2, InputKind::Torque, InputFrame::Global, Vec3(0.2, 0.2, 1.0)});
  return p;
}

Project wheelCorner(double side, double toe, double camber) {
  Project p;
  p.name = "wheel corner";
  const auto rz = [](double a) { return Mat3(Eigen::AngleAxisd(a, Vec3::UnitZ())); };
  const auto rx = [](double a) { return Mat3(Eigen::AngleAxisd(a, Vec3::UnitX())); };
  // The wheel frame: x along the outboard axle, turned by toe about z and leaned by camber
  // about the heading, both towards the sides ISO 8855 calls positive.
  const Mat3 R = rz(-side * toe) * rx(-side * camber) * rz(side * M_PI / 2);
  const Vec3 wheelAngles = rotation::anglesFromMatrix(R);
  const BodyRow ground = groundRow();
  BodyRow carrier;
  carrier.id = 1;
  carrier.name = "carrier";
  carrier.mass = 5.0;
  carrier.inertia = {0.05, 0.05, 0.05, 0, 0, 0};
  carrier.position = Vec3(0.0, side * 0.70, 0.30);
  BodyRow wheel;
  wheel.id = 2;
  wheel.name = "wheel";
  wheel.mass = 20.0;
  wheel.inertia = {1.2, 0.8, 0.8, 0, 0, 0};
  wheel.position = Vec3(0.0, side * 0.78, 0.30);
  wheel.orientation = wheelAngles;
  p.bodies = {ground, carrier, wheel};
  p.markers = {MarkerRow{1, "carrier mount", 1, Vec3::Zero(), Vec3::Zero()},
               MarkerRow{2, "ground mount", 0, carrier.position, Vec3::Zero()},
               MarkerRow{10, "wheel centre", 2, Vec3::Zero(), Vec3::Zero()},
               MarkerRow{11, "bearing", 1, wheel.position - carrier.position, wheelAngles},
               MarkerRow{20, "upper ball joint", 1, Vec3(-0.03, side * 0.65, 0.55) - carrier.position, Vec3::Zero()},
               MarkerRow{21, "lower ball joint", 1, Vec3(0.01, side * 0.72, 0.15) - carrier.position, Vec3::Zero()}};
  BushingRow mount;
  mount.id = 1;
  mount.name = "carrier mount";
  mount.markerI = 1;
  mount.markerJ = 2;
  for (int d = 0; d < 3; ++d) mount.directions[d].stiffness.coefficient = 1e6;
  for (int d = 3; d < 6; ++d) mount.directions[d].stiffness.coefficient = 1e4;
  BushingRow bearing;
  bearing.id = 2;
  bearing.name = "wheel bearing";
  bearing.markerI = 10;
  bearing.markerJ = 11;
  for (int d = 0; d < 3; ++d) bearing.directions[d].stiffness.coefficient = 1e7;
  bearing.directions[3].damping.coefficient = 0.2;  // rx: the spin is free
  bearing.directions[4].stiffness.coefficient = 1e5;
  bearing.directions[5].stiffness.coefficient = 1e5;
  p.bushings = {mount, bearing};
  WheelRow w;
  w.id = 1;
  w.name = "wheel";
  w.marker = 10;
  w.carrier = 1;
  w.radius = 0.30;
  w.side = side > 0 ? WheelSide::Left : WheelSide::Right;
  w.steeringAxis = std::array<int, 2>{20, 21};
  p.wheels = {w};
  return p;
}

Project spinningBody() {
  Project p = test::singleBushing(2.0, Vec3(0.03, 0.05, 0.07), 500.0, 5.0, Vec3(0, 0, 0.3));
  p.bodies[1].velocity = Vec3(0.2, -0.1, 0.3);
  p.bodies[1].angularVelocity = Vec3(2.0, -3.0, 4.0);
  p.markers.push_back({3, "spring body", 1, Vec3(0.1, 0.05, 0.0), Vec3::Zero()});
  p.markers.push_back({4, "spring ground", 0, Vec3(0.1, 0.05, 0.6), Vec3::Zero()});
  P2PRow s;
  s.id = 1;
  s.markerI = 3;
  s.markerJ = 4;
  s.freeLength = 0.25;
  s.spring.coefficient = 3000.0;
  p.p2ps = {s};
  test::addFreeLoadCase(p, 0.5);
  return p;
}

void addMaxwellBranches(Project& p, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (BushingRow& b : p.bushings) {
    std::vector<int> dirs{0, 1, 2, 3, 4, 5};
    std::shuffle(dirs.begin(), dirs.end(), rng);
    for (int n = 0; n < 3; ++n) {
      const int k = dirs[n];
      const int count = 1 + static_cast<int>(U(rng) * 2.0);
      for (int i = 0; i < count; ++i) {
        const double stiffness = (k < 3 ? 2e4 : 20.0) * std::pow(10.0, U(rng));
        const double lambda = 5.0 * std::pow(100.0, U(rng));
        b.directions[k].maxwell.push_back({stiffness, stiffness / lambda});
      }
      // A direction with a stiffness curve scales its branches with the curve's slope.
      b.directions[k].maxwellScaledBySlope = b.directions[k].stiffness.curve.has_value();
    }
  }
}

void addSteeringWheel(Project& p, const Vec3& orientation) {
  BodyRow wheel;
  wheel.id = 200;
  wheel.name = "steering wheel";
  wheel.fixed = true;
  wheel.position = Vec3(0.3, 0.0, 0.8);
  p.bodies.push_back(wheel);
  p.markers.push_back({1000, "steering wheel", 200, Vec3::Zero(), orientation});
  p.inputs.push_back({900, "steering wheel angle", 1000, InputKind::Rotation, InputFrame::Marker, Vec3::UnitZ()});
}

Project tyreCarriage(double slipAngle) {
  Project p;
  p.name = "tyre carriage";
  BodyRow hub;
  hub.id = 1;
  hub.name = "carriage";
  hub.mass = kCarriageMass;
  hub.inertia = {20.0, 20.0, 20.0, 0, 0, 0};
  const double r0 = 0.3135, deflection = 0.015 + (kCarriageMass * 9.81 - 3300.0) / 1200.0 * 0.005;
  hub.position = Vec3(0.0, 0.0, r0 - deflection);
  hub.orientation = Vec3(slipAngle, 0.0, 0.0);  // Cardan z-y'-x'': yawed
  hub.velocity = Vec3(kCarriageSpeed, 0.0, 0.0);
  p.bodies = {groundRow(), hub};
  // The wheel centre marker's x axis is the spin axis, pointing outboard (left): +y of the hub.
  // The guide runs along global x; its marker on the carriage undoes the carriage's yaw.
  p.markers = {MarkerRow{1, "ground guide", 0, hub.position, Vec3::Zero()},
               MarkerRow{2, "carriage guide", 1, Vec3::Zero(), Vec3(-slipAngle, 0.0, 0.0)},
               MarkerRow{3, "wheel centre", 1, Vec3::Zero(), Vec3(M_PI / 2, 0.0, 0.0)}};
  BushingRow guide;
  guide.id = 1;
  guide.name = "guide";
  guide.markerI = 2;
  guide.markerJ = 1;
  // In the guide's axes (global): stiff across, free along and vertically; every
  // rotation held. The forward freedom lets the tyre's Fx slow the carriage.
  guide.directions[1].stiffness.coefficient = 5e6;
  guide.directions[1].damping.coefficient = 2e4;
  for (int d = 3; d < 6; ++d) {
    guide.directions[d].stiffness.coefficient = 1e6;
    guide.directions[d].damping.coefficient = 2e3;
  }
  p.bushings = {guide};
  WheelRow w;
  w.id = 1;
  w.name = "wheel";
  w.marker = 3;
  w.carrier = 1;
  w.radius = r0;
  w.side = WheelSide::Left;
  w.tyre = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/tyres/car_205_60R15_mf61_si.tir";
  w.lowSpeedDamping = 0.0;
  p.wheels = {w};
  addFreeLoadCase(p, 1.0);
  p.loadCases[0].initialState = InitialState::AsModelled;
  return p;
}

}  // namespace ek::test
