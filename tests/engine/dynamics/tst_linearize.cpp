// SPDX-License-Identifier: GPL-3.0-or-later
// The assembled linearization (paper 003 eqs. 8-9) against central finite differences of h:
// J_r, J_v, J_u and N = d(K(r) v)/dr, on random topologies at random non-trivial states.
#include <QtTest>

#include <array>
#include <random>

#include "engine/core/rotation.h"
#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/linearize.h"
#include "engine/model/project_io.h"
#include "support/fd.h"
#include "support/test_models.h"

using namespace ek;

namespace {

struct Fixture {
  std::shared_ptr<const SuspensionModel> model;
  State state;
  VecX u;
};

Fixture make(unsigned seed, int nFree, int nB, int nP, bool ground) {
  Fixture f;
  f.model = SuspensionModel::build(test::randomProject(seed, nFree, nB, nP, ground));
  f.model->initialState(f.state.r, f.state.v);
  f.u = VecX::Random(f.model->nInputs()) * 300.0;
  return f;
}

VecX evalH(const SuspensionModel& m, const State& s, const VecX& u) {
  Workspace ws(m);
  linearize(m, s, u, ws);
  return ws.h;
}

/// J_u, J_udot, J_r and J_v at (st, u, ud) against central differences of h; their relative
/// errors in this order.
std::array<double, 4> partialsAgainstDifferences(const SuspensionModel& m, const State& st, const VecX& u,
                                                 const VecX& ud) {
  Workspace ws(m);
  linearize(m, st, u, ud, ws);
  auto h = [&](const VecX& uu, const VecX& uud, const State& s) {
    Workspace w(m);
    linearize(m, s, uu, uud, w);
    return VecX(w.h);
  };
  // Steps by column: 1e-5 m or rad for motions, 1e-3 N or N m for loads (rounding).
  MatX fdU = test::centralDifference([&](const VecX& x) { return h(x, ud, st); }, u, 1e-5);
  const MatX fdLoads = test::centralDifference([&](const VecX& x) { return h(x, ud, st); }, u, 1e-3);
  for (int k = 0; k < m.nInputs(); ++k)
    if (!m.inputs[k].motion()) fdU.col(k) = fdLoads.col(k);
  const MatX fdUd = test::centralDifference([&](const VecX& x) { return h(u, x, st); }, ud, 1e-5);
  const MatX fdR = test::centralDifference([&](const VecX& r) { return h(u, ud, State{0.0, r, st.v}); }, st.r, 1e-6);
  const MatX fdV = test::centralDifference([&](const VecX& v) { return h(u, ud, State{0.0, st.r, v}); }, st.v, 1e-5);
  return {test::blockRelativeError(inputMatrix(m, ws.Ju), fdU, 3, 1),
          test::blockRelativeError(inputMatrix(m, ws.Judot), fdUd, 3, 1),
          test::blockRelativeError(blockToDense(m.pattern, ws.Jr), fdR, 3, 3),
          test::blockRelativeError(blockToDense(m.pattern, ws.Jv), fdV, 3, 3)};
}

}  // namespace

class TestLinearize : public QObject {
  Q_OBJECT
 private slots:
  void jacobians_data() {
    QTest::addColumn<unsigned>("seed");
    QTest::addColumn<int>("nFree");
    QTest::addColumn<int>("nBushings");
    QTest::addColumn<int>("nP2P");
    QTest::addColumn<bool>("ground");
    QTest::newRow("chain of 3, grounded") << 1u << 3 << 4 << 2 << true;
    QTest::newRow("6 bodies, grounded") << 7u << 6 << 9 << 4 << true;
    QTest::newRow("5 bodies, free floating") << 11u << 5 << 6 << 3 << false;
    QTest::newRow("10 bodies, grounded") << 23u << 10 << 16 << 5 << true;
  }
  void jacobians() {
    QFETCH(unsigned, seed);
    QFETCH(int, nFree);
    QFETCH(int, nBushings);
    QFETCH(int, nP2P);
    QFETCH(bool, ground);
    const Fixture f = make(seed, nFree, nBushings, nP2P, ground);
    const SuspensionModel& m = *f.model;
    Workspace ws(m);
    linearize(m, f.state, f.u, ws);

    const MatX Jr = blockToDense(m.pattern, ws.Jr);
    const MatX Jv = blockToDense(m.pattern, ws.Jv);
    const MatX fdR = test::centralDifference(
        [&](const VecX& r) { return evalH(m, State{0.0, r, f.state.v}, f.u); }, f.state.r, 1e-6);
    const MatX fdV = test::centralDifference(
        [&](const VecX& v) { return evalH(m, State{0.0, f.state.r, v}, f.u); }, f.state.v, 1e-5);
    const MatX fdU = test::centralDifference([&](const VecX& u) { return evalH(m, f.state, u); }, f.u, 1e-3);
    const double eR = test::blockRelativeError(Jr, fdR, 3, 3);
    const double eV = test::blockRelativeError(Jv, fdV, 3, 3);
    const double eU = test::blockRelativeError(inputMatrix(m, ws.Ju), fdU, 3, 1);
    qInfo("relative errors: J_r %.2e, J_v %.2e, J_u %.2e", eR, eV, eU);
    QVERIFY2(eR <= 1e-6, qPrintable(QString("J_r error %1").arg(eR)));
    QVERIFY2(eV <= 1e-6, qPrintable(QString("J_v error %1").arg(eV)));
    QVERIFY2(eU <= 1e-6, qPrintable(QString("J_u error %1").arg(eU)));

    // The pattern is complete: blocks outside it are zero in the finite differences too.
    const MatX outside = (fdR - Jr).cwiseAbs();
    QVERIFY(outside.maxCoeff() <= 1e-6 * fdR.cwiseAbs().maxCoeff());
  }

  // linearize() lets the element kernels add their row blocks to the rows (RowBlocks::AddToRows);
  // storing them in the elements and scattering them (RowBlocks::InElements, the parallel step's
  // way) gives the same wrenches and blocks bit for bit, also where two elements of one batch add
  // to the same block.
  void rowBlocksAddedByTheKernelsEqualTheScatteredOnes() {
    const Fixture f = make(59, 4, 14, 6, true);
    const SuspensionModel& m = *f.model;
    State s = f.state;
    for (int i = 0; i < s.v.size(); ++i) s.v[i] = 0.1 * std::sin(2.0 + i);
    Workspace added(m), scattered(m);
    linearize(m, s, f.u, added);
    scattered.u = f.u;
    scattered.uDot.setZero();
    calcBodyKinematics(m, s, scattered);
    calcMarkerKinematics(m, scattered);
    calcBushings(m, scattered);
    calcP2Ps(m, scattered);
    calcSurfaceForces(m, scattered, ElementPass{true, RowBlocks::InElements, 0.0});
    calcBodyForces(m, scattered);
    assembleLinearization(m, scattered);
    // Some batch of four bushings has two that add to the same diagonal block.
    bool shared = false;
    for (std::size_t k = 0; k + 1 < added.bushingOrder.size(); ++k)
      for (std::size_t q = k + 1; q < added.bushingOrder.size() && q / 4 == k / 4; ++q)
        shared = shared || (m.bushings[added.bushingOrder[k]].blocks.aa >= 0 &&
                            m.bushings[added.bushingOrder[k]].blocks.aa == m.bushings[added.bushingOrder[q]].blocks.aa);
    QVERIFY(shared);
    for (int l = 0; l < m.nFreeBodies(); ++l) QVERIFY(added.wrench[l] == scattered.wrench[l]);
    for (int b = 0; b < m.pattern.nBlocks(); ++b) {
      QVERIFY2(added.Jw_r[b] == scattered.Jw_r[b], qPrintable(QString("Jw_r block %1").arg(b)));
      QVERIFY2(added.Jw_v[b] == scattered.Jw_v[b], qPrintable(QString("Jw_v block %1").arg(b)));
      QVERIFY(added.Jr[b] == scattered.Jr[b] && added.Jv[b] == scattered.Jv[b]);
    }
    QVERIFY(added.h == scattered.h);
    QVERIFY(!added.Jw_r[0].isZero(0.0));
  }

  // The values-only pass (evaluateRhs(): the same pipeline without partials) gives the values of
  // the full pass (linearize()) bit for bit: h, the world wrenches and every element's
  // force, on the shipped full vehicle (driven wheel pads, wheel forces) at a moving state and on
  // random topologies with loads on their markers.
  void valuesOnlyPassEqualsTheFullPassBitForBit() {
    std::vector<std::pair<std::shared_ptr<const SuspensionModel>, VecX>> cases;
    const auto vehicle = SuspensionModel::build(readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/full_vehicle.json"));
    cases.push_back({vehicle, VecX::Random(vehicle->nInputs()) * 0.01});
    for (unsigned seed : {3u, 11u, 59u}) {
      const Fixture f = make(seed, 4 + seed % 3, 6 + seed % 5, 3, true);
      cases.push_back({f.model, f.u});
    }
    for (const auto& [m, u] : cases) {
      State s;
      m->initialState(s.r, s.v);
      for (int i = 0; i < s.r.size(); ++i) s.r[i] += 2e-3 * std::cos(1.7 * i), s.v[i] = 0.3 * std::sin(2.0 + i);
      const VecX ud = VecX::Random(m->nInputs()) * 0.2;
      Workspace full(*m), values(*m);
      linearize(*m, s, u, ud, full);
      VecX h = VecX::Constant(m->nDof(), std::nan("")), rDot = h;
      evaluateRhs(*m, s, u, ud, values, h, rDot);
      QVERIFY(h == full.h);
      for (int l = 0; l < m->nFreeBodies(); ++l) {
        QVERIFY(values.wrench[l] == full.wrench[l]);
        QVERIFY(rDot.segment<3>(6 * l) == s.v.segment<3>(6 * l));
        // T^-1 w_B of the same numbers (the product may be contracted differently in this file)
        const Vec3 ref = full.Kinv[l] * s.v.segment<3>(6 * l + 3);
        QVERIFY((rDot.segment<3>(6 * l + 3) - ref).norm() <= 1e-15 * (1.0 + ref.norm()));
      }
      for (std::size_t e = 0; e < m->bushings.size(); ++e)
        QVERIFY(values.bushings[e].force == full.bushings[e].force && values.bushings[e].rate == full.bushings[e].rate);
      for (std::size_t e = 0; e < m->p2ps.size(); ++e) QVERIFY(values.p2ps[e].tension == full.p2ps[e].tension);
      QVERIFY(!h.isZero(0.0));  // and r' = K v to round-off
    }
  }

  // Driven rig bodies (docs/method.md): a fixed body moved by a rotation and two translations
  // (one in its marker's frame) and a second one by a rotation only, joined to the free bodies by
  // bushings and P2P elements on both the I and the J side. J_u and J_udot against differences of
  // h in the motion inputs' values and rates, at a state where everything moves; J_r and J_v
  // are unchanged by the driven bodies' motion (checked against differences as well).
  void drivenBodyPartials() {
    Project p = test::randomProject(31, 4, 5, 2, true);
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    auto rv = [&](double s) { return Vec3(s * U(rng), s * U(rng), s * U(rng)); };
    int nextMarker = 1000;
    auto marker = [&](int body) {
      p.markers.push_back({nextMarker, "d" + std::to_string(nextMarker), body, rv(0.15), rv(0.8)});
      return nextMarker++;
    };
    for (int id : {200, 201}) {
      BodyRow b;
      b.id = id;
      b.name = "pad " + std::to_string(id);
      b.fixed = true;
      b.position = rv(0.4);
      b.orientation = rv(0.5);
      p.bodies.push_back(b);
    }
    int nextElement = 500;
    auto bushing = [&](int i, int j) {
      BushingRow b;
      b.id = nextElement++;
      b.markerI = i;
      b.markerJ = j;
      for (int d = 0; d < 6; ++d) b.directions[d] = {{d < 3 ? 2e4 : 900.0, {}}, {d < 3 ? 80.0 : 3.0, {}}, 0.0};
      b.directions[2].stiffness.curve = 2;  // a curve's slope too (a C2 spline: no kink near zero deflection)
      p.bushings.push_back(b);
    };
    bushing(marker(200), marker(1));  // driven body on side I
    bushing(marker(2), marker(200));  // and on side J
    bushing(marker(3), marker(201));
    P2PRow s;
    s.id = nextElement++;
    s.markerI = marker(201);
    s.markerJ = marker(4);
    s.spring.coefficient = 3e4;
    s.damper.coefficient = 400.0;
    p.p2ps.push_back(s);
    s.id = nextElement++;
    s.markerI = marker(2);
    s.markerJ = marker(200);
    p.p2ps.push_back(s);
    const int m200 = marker(200), m201 = marker(201);
    p.inputs.push_back({900, "pad z", m200, InputKind::Translation, InputFrame::Global, Vec3(0.2, 0.1, 1.0)});
    p.inputs.push_back({901, "pad roll", m200, InputKind::Rotation, InputFrame::Global, Vec3(1.0, 0.3, -0.2)});
    p.inputs.push_back({902, "pad x", m200, InputKind::Translation, InputFrame::Marker, Vec3(1.0, 0.0, 0.0)});
    p.inputs.push_back({903, "rack turn", m201, InputKind::Rotation, InputFrame::Marker, Vec3(0.0, 0.0, 1.0)});
    const auto m = SuspensionModel::build(p);
    QCOMPARE(static_cast<int>(m->drivenBodies.size()), 2);
    State st;
    m->initialState(st.r, st.v);
    VecX u = VecX::Random(m->nInputs()) * 300.0, ud = VecX::Zero(m->nInputs());
    for (int k = 0; k < m->nInputs(); ++k)
      if (m->inputs[k].motion()) {
        u[k] = 0.02 * U(rng) + (m->inputs[k].kind == InputKind::Rotation ? 0.3 : 0.0);
        ud[k] = 0.5 * U(rng);
      }
    Workspace ws(*m);
    linearize(*m, st, u, ud, ws);
    const MatX Ju = inputMatrix(*m, ws.Ju), Judot = inputMatrix(*m, ws.Judot);
    const auto [eU, eUd, eR, eV] = partialsAgainstDifferences(*m, st, u, ud);
    qInfo("driven bodies, relative errors: J_u %.2e, J_udot %.2e, J_r %.2e, J_v %.2e", eU, eUd, eR, eV);
    QVERIFY2(eU <= 1e-6, qPrintable(QString("J_u error %1").arg(eU)));
    QVERIFY2(eUd <= 1e-6, qPrintable(QString("J_udot error %1").arg(eUd)));
    QVERIFY2(eR <= 1e-6 && eV <= 1e-6, qPrintable(QString("J_r %1, J_v %2").arg(eR).arg(eV)));
    // The motion columns are not trivially zero, and the rate columns of loads are.
    for (int k = 0; k < m->nInputs(); ++k) {
      if (m->inputs[k].motion()) QVERIFY(Ju.col(k).norm() > 1.0 && Judot.col(k).norm() > 0.1);
      else QCOMPARE(Judot.col(k).norm(), 0.0);
    }

    // The driven pose itself: a marker on the rotated body, by construction.
    const ModelInput& rot = m->inputs[m->inputById(903)];
    const ModelMarker& mk = m->markers[m->markerById(m201).value];
    const Vec3 p0 = m->bodies[mk.body.value].p0 + m->bodies[mk.body.value].R0 * mk.s;
    QVERIFY((ws.markers[m->markerById(m201).value].p - p0).norm() < 1e-15);  // on the axis: does not move
    QVERIFY((ws.bodies[mk.body.value].w_W - ud[m->inputById(903)] * rot.axis).norm() < 1e-15);
  }

  // Steering racks (docs/steering.md): the force pulls the rack towards ratio x angle along the
  // housing's z axis, through the column's stiffness and damping. J_u, J_udot (the angle and its
  // rate), J_r and J_v against differences of h, with the housing on ground, on a free body and on
  // a driven body and the rack on a driven body, at a state where everything moves.
  void steeringRackPartials() {
    Project p = test::randomProject(43, 4, 5, 2, true);
    std::mt19937 rng(8);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    auto rv = [&](double s) { return Vec3(s * U(rng), s * U(rng), s * U(rng)); };
    int nextMarker = 1000;
    auto marker = [&](int body) {
      p.markers.push_back({nextMarker, "s" + std::to_string(nextMarker), body, rv(0.15), rv(0.8)});
      return nextMarker++;
    };
    for (int id : {200, 201}) {
      BodyRow b;
      b.id = id;
      b.name = id == 200 ? "steering wheel" : "driven subframe";
      b.fixed = true;
      b.position = rv(0.4);
      b.orientation = rv(0.5);
      p.bodies.push_back(b);
    }
    p.inputs.push_back({900, "steering wheel angle", marker(200), InputKind::Rotation, InputFrame::Marker, Vec3::UnitZ()});
    p.inputs.push_back({901, "subframe z", marker(201), InputKind::Translation, InputFrame::Global, Vec3(0.1, 0.2, 1.0)});
    p.steeringRacks.push_back({700, "housing on ground", 900, marker(1), marker(100), 0.008, 1500.0, 3.0});
    p.steeringRacks.push_back({701, "housing on a free body", 900, marker(2), marker(3), -0.012, 900.0, 1.5});
    p.steeringRacks.push_back({702, "housing driven", 900, marker(4), marker(201), 0.01, 2000.0, 2.0});
    p.steeringRacks.push_back({703, "rack driven", 900, marker(201), marker(2), 0.009, 1200.0, 1.0});
    // A variable ratio (a spline of the travel, quicker towards the lock): at 1.3 rad its slope
    // changes, so k = K_c / S'^2 and c = C_c / S'^2 move with the angle.
    p.curves.push_back({990, "rack travel", "spline", "linear",
                        {{-3.0, -0.0255}, {-1.5, -0.0108}, {0.0, 0.0}, {1.5, 0.0108}, {3.0, 0.0255}}});
    p.steeringRacks.push_back({704, "variable ratio", 900, marker(3), marker(100), 0.0, 1100.0, 2.5, 990});
    const auto m = SuspensionModel::build(p);
    State st;
    m->initialState(st.r, st.v);
    VecX u = VecX::Zero(m->nInputs()), ud = VecX::Zero(m->nInputs());
    const int angle = m->inputById(900), lift = m->inputById(901);
    u[angle] = 1.3, ud[angle] = -0.8;  // 75 deg of steering-wheel angle, turning back
    u[lift] = 0.01, ud[lift] = 0.3;
    Workspace ws(*m);
    linearize(*m, st, u, ud, ws);
    const auto [eU, eUd, eR, eV] = partialsAgainstDifferences(*m, st, u, ud);
    qInfo("steering racks, relative errors: J_u %.2e, J_udot %.2e, J_r %.2e, J_v %.2e", eU, eUd, eR, eV);
    QVERIFY2(eU <= 1e-6, qPrintable(QString("J_u error %1").arg(eU)));
    QVERIFY2(eUd <= 1e-6, qPrintable(QString("J_udot error %1").arg(eUd)));
    QVERIFY2(eR <= 1e-6 && eV <= 1e-6, qPrintable(QString("J_r %1, J_v %2").arg(eR).arg(eV)));
    // The angle's columns carry the racks' pull: k ratio and c ratio on each rack's row.
    const MatX Ju = inputMatrix(*m, ws.Ju), Judot = inputMatrix(*m, ws.Judot);
    const ModelSteeringRack& r = m->steeringRacks[0];
    const int row = 6 * m->bodies[m->markers[r.i.value].body.value].state;
    const Vec3 z = ws.markers[r.j.value].R.col(2);
    QVERIFY((Ju.col(angle).segment<3>(row) - r.stiffness * r.ratio * z).norm() <= 1e-9 * r.stiffness * r.ratio);
    QVERIFY((Judot.col(angle).segment<3>(row) - r.damping * r.ratio * z).norm() <= 1e-9 * r.damping * r.ratio);
    // The force: -(k g + c g') along z, the column's torque ratio times it.
    const SteeringRackResult& out = ws.steeringRacks[0];
    const double g = out.travel - r.ratio * u[angle], gRate = out.rate - r.ratio * ud[angle];
    QCOMPARE(out.force, -(r.stiffness * g + r.damping * gRate));
    QCOMPARE(out.columnTorque, r.ratio * out.force);
    QVERIFY(std::abs(out.force) > 10.0);
    // The variable rack: its slope at the angle differs from the one at zero by more than 10 %,
    // and its force is the law's with the ratio there.
    const ModelSteeringRack& v = m->steeringRacks[4];
    const ModelSteeringRack::Command cmd = v.command(u[angle]);
    const SteeringRackResult& vo = ws.steeringRacks[4];
    const double kv = v.columnStiffness / (cmd.ratio * cmd.ratio), cv = v.columnDamping / (cmd.ratio * cmd.ratio);
    qInfo("variable ratio: %.5f m/rad at 1.3 rad, %.5f at 0; S'' %.5f m/rad^2", cmd.ratio, v.ratio, cmd.ratioSlope);
    QVERIFY(std::abs(cmd.ratio / v.ratio - 1.0) > 0.1 && std::abs(cmd.ratioSlope) > 1e-4);
    QCOMPARE(vo.force, -(kv * (vo.travel - cmd.travel) + cv * (vo.rate - cmd.ratio * ud[angle])));
    QCOMPARE(vo.columnTorque, cmd.ratio * vo.force);
  }

  // Steering racks with a side on a flexible body (docs/flexible-bodies.md, "Steering racks"): the
  // test bar as the housing (its marker J) of a rack on the arm, and as the rack (its marker I) in
  // a housing on the ground on a variable ratio, at a moved state (modes deflected and moving):
  // J_u and J_udot (the angle's pull on the bar's frame and modes, through M0 M(q)^-1), J_r and
  // J_v against central differences.
  void steeringRacksOnAFlexibleBody() {
    Project p = test::flexibleBar(8);
    test::addSteeringWheel(p, Vec3(0.2, 0.1, 0.0));
    const FlexibleBodyRow& f = p.flexibleBodies[0];
    p.markers.push_back({1001, "housing on the bar", 1, f.points[2] + Vec3(0.03, -0.1, 0.02), Vec3(0.3, -0.2, 1.2)});
    p.markers.push_back({1002, "rack on the arm", 2, Vec3(0.02, -0.1, 0.03), Vec3::Zero()});
    p.markers.push_back({1003, "rack on the bar", 1, f.points[1] + Vec3(0.0, 0.02, -0.01), Vec3::Zero()});
    p.markers.push_back({1004, "housing on the ground", 0, Vec3(0.1, -0.3, 0.25), Vec3(-1.4, 0.1, 0.2)});
    p.curves.push_back({990, "rack travel", "spline", "linear",
                        {{-3.0, -0.0255}, {-1.5, -0.0108}, {0.0, 0.0}, {1.5, 0.0108}, {3.0, 0.0255}}});
    p.steeringRacks.push_back({700, "housing on the bar", 900, 1002, 1001, 0.008, 150.0, 0.3});
    p.steeringRacks.push_back({701, "rack on the bar", 900, 1003, 1004, 0.0, 110.0, 0.25, 990});
    const auto m = SuspensionModel::build(p);
    State st;
    m->initialState(st.r, st.v);
    for (int i = 0; i < st.r.size(); ++i) {
      st.r[i] += 2e-3 * std::cos(1.7 * i + 0.3);
      st.v[i] = 0.4 * std::sin(2.0 + 1.3 * i);
    }
    const ModelFlexibleBody& fb = m->flexibleBodies[0];
    for (int k = fb.modes(); k < 6 * fb.modalSlots; ++k) st.r[6 * fb.firstModalSlot + k] = st.v[6 * fb.firstModalSlot + k] = 0.0;
    VecX u = VecX::Zero(m->nInputs()), ud = VecX::Zero(m->nInputs());
    const int angle = m->inputById(900);
    u[angle] = 1.3, ud[angle] = -0.8;
    const auto [eU, eUd, eR, eV] = partialsAgainstDifferences(*m, st, u, ud);
    Workspace ws(*m);
    linearize(*m, st, u, ud, ws);
    const MatX Ju = inputMatrix(*m, ws.Ju);
    const double modal = Ju.col(angle).segment(6 * fb.firstModalSlot, fb.modes()).cwiseAbs().maxCoeff();
    qInfo("steering racks on a flexible body, relative errors: J_u %.2e, J_udot %.2e, J_r %.2e, J_v %.2e; the angle's "
          "largest modal entry %.3g, rack forces %.1f N, %.1f N",
          eU, eUd, eR, eV, modal, ws.steeringRacks[0].force, ws.steeringRacks[1].force);
    QVERIFY(std::abs(ws.steeringRacks[0].force) > 1.0 && std::abs(ws.steeringRacks[1].force) > 1.0);
    QVERIFY(modal > 0.0);
    QVERIFY2(eU <= 1e-6, qPrintable(QString("J_u error %1").arg(eU)));
    QVERIFY2(eUd <= 1e-6, qPrintable(QString("J_udot error %1").arg(eUd)));
    QVERIFY2(eR <= 1e-6 && eV <= 1e-6, qPrintable(QString("J_r %1, J_v %2").arg(eR).arg(eV)));
  }

  void kinematicsMatrixDerivative() {
    const Fixture f = make(5, 4, 5, 2, true);
    const SuspensionModel& m = *f.model;
    Workspace ws(m);
    linearize(m, f.state, f.u, ws);
    auto Kv = [&](const VecX& r) {
      VecX out(r.size());
      for (int l = 0; l < m.nFreeBodies(); ++l) {
        out.segment<3>(6 * l) = f.state.v.segment<3>(6 * l);
        out.segment<3>(6 * l + 3) = rotation::bodyToRate(r.segment<3>(6 * l + 3)) * f.state.v.segment<3>(6 * l + 3);
      }
      return out;
    };
    const MatX fd = test::centralDifference(Kv, f.state.r, 1e-6);
    for (int l = 0; l < m.nFreeBodies(); ++l) {
      const Mat3 fdN = fd.block<3, 3>(6 * l + 3, 6 * l + 3);
      const double e = (ws.N[l] - fdN).cwiseAbs().maxCoeff() / fdN.cwiseAbs().maxCoeff();
      QVERIFY2(e <= 1e-6, qPrintable(QString("N of body %1: %2").arg(l).arg(e)));
      QVERIFY((ws.Kinv[l] - rotation::bodyToRate(f.state.r.segment<3>(6 * l + 3))).norm() < 1e-14);
    }
  }

  // Maxwell branches (docs/method.md, "Maxwell branches"), at random branch deflections z:
  // J_r and J_v with the branch forces in h; the coupling's W (dh/dz_i = -k_i W) and G (the
  // directions' rate partials) against differences; and the eliminated stage Jacobian
  // J + (-sum_d c_eff,d W_d G_d^T) with c_eff,d = sum_i k_i g / (1 + g k_i / c_i).
  void maxwellBranchPartials_data() {
    QTest::addColumn<unsigned>("seed");
    QTest::addColumn<bool>("ground");
    QTest::newRow("4 bodies, grounded") << 3u << true;
    QTest::newRow("5 bodies, free floating") << 13u << false;
  }
  void maxwellBranchPartials() {
    QFETCH(unsigned, seed);
    QFETCH(bool, ground);
    Project p = test::randomProject(seed, ground ? 4 : 5, 7, 2, ground);
    test::addMaxwellBranches(p, seed);
    const auto model = SuspensionModel::build(p);
    const SuspensionModel& m = *model;
    const int n = m.nDof(), nz = m.nElementStates(), nd = static_cast<int>(m.branchDirections.size());
    QVERIFY(nz >= 7 * 3 && nd == 7 * 3);
    State s;
    m.initialState(s.r, s.v);
    s.z = VecX::Random(nz) * 2e-3;
    const VecX u = VecX::Random(m.nInputs()) * 300.0;
    Workspace ws(m);
    linearize(m, s, u, ws);
    auto hAt = [&](const State& x) {
      Workspace w(m);
      linearize(m, x, u, w);
      return VecX(w.h);
    };
    auto ratesAt = [&](const State& x) {
      Workspace w(m);
      linearize(m, x, u, w);
      VecX q(nd);
      for (int d = 0; d < nd; ++d) q[d] = w.bushings[m.branchDirections[d].bushing].rate[m.branchDirections[d].direction];
      return q;
    };
    const MatX fdR = test::centralDifference([&](const VecX& r) { return hAt(State{0.0, r, s.v, s.z}); }, s.r, 1e-6);
    const MatX fdV = test::centralDifference([&](const VecX& v) { return hAt(State{0.0, s.r, v, s.z}); }, s.v, 1e-5);
    const MatX fdZ = test::centralDifference([&](const VecX& z) { return hAt(State{0.0, s.r, s.v, z}); }, s.z, 1e-6);
    const MatX fdGr = test::centralDifference([&](const VecX& r) { return ratesAt(State{0.0, r, s.v, s.z}); }, s.r, 1e-6);
    const MatX fdGv = test::centralDifference([&](const VecX& v) { return ratesAt(State{0.0, s.r, v, s.z}); }, s.v, 1e-5);
    auto deflectionsAt = [&](const State& x) {
      Workspace w(m);
      linearize(m, x, u, w);
      VecX q(nd);
      for (int d = 0; d < nd; ++d)
        q[d] = w.bushings[m.branchDirections[d].bushing].deflection[m.branchDirections[d].direction];
      return q;
    };
    const MatX fdD = test::centralDifference([&](const VecX& r) { return deflectionsAt(State{0.0, r, s.v, s.z}); }, s.r, 1e-6);
    MatX W = MatX::Zero(n, nz), Gr = MatX::Zero(nd, n), Gv = MatX::Zero(nd, n), Wd = MatX::Zero(n, nd);
    MatX D = MatX::Zero(nd, n);
    int scaled = 0;
    for (int d = 0; d < nd; ++d) {
      const BranchCoupling& c = ws.branches[d];
      if (c.stateA >= 0) {
        Wd.block<6, 1>(6 * c.stateA, d) = c.wA;
        Gr.block<1, 6>(d, 6 * c.stateA) = c.grA.transpose();
        Gv.block<1, 6>(d, 6 * c.stateA) = c.gvA.transpose();
        D.block<1, 6>(d, 6 * c.stateA) = c.drA.transpose();
      }
      if (c.stateB >= 0) {
        Wd.block<6, 1>(6 * c.stateB, d) += c.wB;
        Gr.block<1, 6>(d, 6 * c.stateB) += c.grB.transpose();
        Gv.block<1, 6>(d, 6 * c.stateB) += c.gvB.transpose();
        D.block<1, 6>(d, 6 * c.stateB) += c.drB.transpose();
      }
      const ModelBranchDirection& dir = m.branchDirections[d];
      scaled += dir.scaled && c.scaleSlope != 0.0;
      for (std::size_t i = 0; i < dir.branches.size(); ++i) W.col(dir.first + i) = -dir.branches[i].k * c.scale * Wd.col(d);
    }
    const double eR = test::blockRelativeError(blockToDense(m.pattern, ws.Jr), fdR, 3, 3);
    const double eV = test::blockRelativeError(blockToDense(m.pattern, ws.Jv), fdV, 3, 3);
    const double eZ = test::blockRelativeError(W, fdZ, 3, 1);
    const double eGr = test::blockRelativeError(Gr, fdGr, 1, 3);
    const double eGv = test::blockRelativeError(Gv, fdGv, 1, 3);
    const double eD = test::blockRelativeError(D, fdD, 1, 3);
    qInfo("%d branch states in %d directions (%d scaled by a curved slope); relative errors: J_r %.2e, J_v %.2e, "
          "dh/dz %.2e, G_r %.2e, G_v %.2e, D %.2e",
          nz, nd, scaled, eR, eV, eZ, eGr, eGv, eD);
    QVERIFY(fdZ.cwiseAbs().maxCoeff() > 0.0 && fdGr.cwiseAbs().maxCoeff() > 0.0);
    QVERIFY(scaled > 0);
    for (double e : {eR, eV, eZ, eGr, eGv, eD}) QVERIFY2(e <= 1e-6, qPrintable(QString("error %1").arg(e)));

    // The stage Jacobian with the branches eliminated (g = h gamma of a 1 ms LSRT2 step).
    const double g = 1e-3 * (1.0 - 1.0 / std::sqrt(2.0));
    Workspace we(m);
    linearize(m, s, u, VecX::Zero(m.nInputs()), we, LinearizeOptions{true, g});
    QCOMPARE(we.h, ws.h);
    MatX dJr = MatX::Zero(n, n), dJv = MatX::Zero(n, n);
    for (int d = 0; d < nd; ++d) {
      // c_eff = sum k s g / (1 + g l s), s_eff = sum k s g l s' z / (1 + g l s) (docs/method.md).
      const ModelBranchDirection& dir = m.branchDirections[d];
      const double sc = ws.branches[d].scale, sp = ws.branches[d].scaleSlope;
      double cEff = 0.0, sEff = 0.0;
      for (std::size_t i = 0; i < dir.branches.size(); ++i) {
        const MaxwellBranch& b = dir.branches[i];
        cEff += b.k * sc * g / (1.0 + g * b.lambda() * sc);
        sEff += b.k * sc * g * b.lambda() * sp * s.z[dir.first + i] / (1.0 + g * b.lambda() * sc);
      }
      dJr -= cEff * Wd.col(d) * Gr.row(d);
      dJr += sEff * Wd.col(d) * D.row(d);
      dJv -= cEff * Wd.col(d) * Gv.row(d);
    }
    const MatX expR = blockToDense(m.pattern, ws.Jr) + dJr, expV = blockToDense(m.pattern, ws.Jv) + dJv;
    const double sR = (blockToDense(m.pattern, we.Jr) - expR).cwiseAbs().maxCoeff() / expR.cwiseAbs().maxCoeff();
    const double sV = (blockToDense(m.pattern, we.Jv) - expV).cwiseAbs().maxCoeff() / expV.cwiseAbs().maxCoeff();
    qInfo("eliminated stage Jacobian: relative deviation J_r %.2e, J_v %.2e (branch share of J_v %.2e)", sR, sV,
          dJv.cwiseAbs().maxCoeff() / expV.cwiseAbs().maxCoeff());
    QVERIFY(sR <= 1e-12 && sV <= 1e-12);
    QVERIFY(dJv.cwiseAbs().maxCoeff() > 1e-6 * expV.cwiseAbs().maxCoeff());
  }

  void gravityAndInputsAreInH() {
    // One free body, no force elements: h = (m g + F, ...) exactly.
    Project p = test::singleBushing(3.0, Vec3(0.1, 0.2, 0.25), 0.0, 0.0);
    p.gravity = Vec3(0, 0, -9.81);
    p.inputs.push_back({1, "F", 2, InputKind::Force, InputFrame::Global, Vec3(1, 0, 0)});
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    Workspace ws(*m);
    VecX u(1);
    u << 250.0;
    linearize(*m, s, u, ws);
    QCOMPARE(ws.h[0], 250.0);
    QCOMPARE(ws.h[2], 3.0 * -9.81);
  }
};

QTEST_APPLESS_MAIN(TestLinearize)
#include "tst_linearize.moc"
