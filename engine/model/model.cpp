// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/model.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/core/rotation.h"
#include "engine/core/text.h"
#include "engine/model/project_io.h"

namespace ek {

int BlockPattern::find(int row, int column) const {
  const auto b = col.begin() + rowStart[row], e = col.begin() + rowStart[row + 1];
  const auto it = std::lower_bound(b, e, column);
  return (it != e && *it == column) ? static_cast<int>(it - col.begin()) : -1;
}

int InputPattern::find(int r, int k) const {
  for (int s = rowStart[r]; s < rowStart[r + 1]; ++s)
    if (input[s] == k) return s;
  return -1;
}

fe::BeamMesh beamMesh(const FlexibleBodyRow& f) {
  fe::BeamMesh mesh;
  mesh.nodes.push_back(f.points.front());
  for (std::size_t k = 1; k < f.points.size(); ++k)
    for (int e = 1; e <= f.elementsPerSegment; ++e) {
      const double t = static_cast<double>(e) / f.elementsPerSegment;
      mesh.nodes.push_back((1.0 - t) * f.points[k - 1] + t * f.points[k]);
      const int last = static_cast<int>(mesh.nodes.size()) - 1;
      mesh.elements.push_back({last - 1, last, f.up, f.section, f.material});
    }
  return mesh;
}

void SuspensionModel::compileFlexibleBodies(const Project& p, SuspensionModel& m,
                                             std::map<int, int>& nodeOfMarker) {
  for (const auto& row : p.flexibleBodies) {
    const BodyIndex bi = m.bodyById(row.body);
    ModelFlexibleBody f;
    f.id = row.id;
    f.name = row.name;
    f.body = bi.value;
    // The markers ride on nodes: a reduced body's interface markers on their reference nodes, the
    // others on the nearest node (body frame).
    auto nearest = [](const std::vector<Vec3>& nodes, const Vec3& offset, const Vec3& x) {
      int best = 0;
      for (int k = 1; k < static_cast<int>(nodes.size()); ++k)
        if ((nodes[k] + offset - x).squaredNorm() < (nodes[best] + offset - x).squaredNorm()) best = k;
      return best;
    };
    if (row.reduced) {
      f.modal = row.reduced->modal;
      const auto& ids = row.reduced->interfaceMarkers;
      for (const auto& mk : p.markers) {
        if (mk.body != row.body) continue;
        const auto at = std::find(ids.begin(), ids.end(), mk.id);
        nodeOfMarker[mk.id] = at != ids.end() ? static_cast<int>(at - ids.begin())
                                              : nearest(f.modal.nodes, f.modal.centre, mk.position);
      }
    } else {
      const fe::BeamMesh mesh = beamMesh(row);
      std::set<int> interface;
      for (const auto& mk : p.markers) {
        if (mk.body != row.body) continue;
        const int best = nearest(mesh.nodes, Vec3::Zero(), mk.position);
        interface.insert(best);
        nodeOfMarker[mk.id] = best;
      }
      fe::ReductionOptions options;
      options.modes = row.modes;
      try {
        f.modal = fe::floatingFrameBody(mesh, std::vector<int>(interface.begin(), interface.end()), options);
      } catch (const std::exception& e) {
        throw ModelError({p.sourcePath, "flexible bodies", "id " + std::to_string(row.id), ""},
                         std::string("the beams cannot be reduced: ") + e.what());
      }
    }
    if (!row.dampingRatios.empty() && static_cast<int>(row.dampingRatios.size()) != f.modal.modes())
      throw ModelError({p.sourcePath, "flexible bodies", "id " + std::to_string(row.id), "damping ratios"},
                       "gives " + std::to_string(row.dampingRatios.size()) + " ratios for the body's " +
                           std::to_string(f.modal.modes()) +
                           " elastic modes: give one per mode, by rising frequency (a frequency cut drops the "
                           "ratios of the modes above it)");
    if (row.maxFrequency > 0.0 && f.modal.modes() > 0) {
      int keep = 0;
      while (keep < f.modal.modes() && f.modal.frequencies[keep] <= row.maxFrequency) ++keep;
      if (keep == 0)
        throw ModelError({p.sourcePath, "flexible bodies", "id " + std::to_string(row.id), "max frequency [Hz]"},
                         "keeps no elastic mode: the lowest is at " + significant(f.modal.frequencies[0], 6) + " Hz");
      fe::truncateModes(f.modal, keep);
    }
    const int n = f.modes();
    // c_k = 2 zeta_k omega_k + alpha + beta omega_k^2 (unit modal mass: omega_k^2 = K_kk).
    f.damping.resize(n);
    for (int k = 0; k < n; ++k) {
      const double zeta = row.dampingRatios.empty() ? row.dampingRatio : row.dampingRatios[static_cast<std::size_t>(k)];
      const double stiffness = f.modal.stiffness[k];
      f.damping[k] = 2.0 * zeta * std::sqrt(stiffness) + row.massDamping + row.stiffnessDamping * stiffness;
    }
    ModelBody& body = m.bodies[bi.value];
    const int index = static_cast<int>(m.flexibleBodies.size());
    body.flexible = index;
    body.mass = f.modal.mass;
    body.inertia = f.modal.inertia;
    body.com = f.modal.centre;
    body.p0 = p.bodies[bi.value].position + body.R0 * body.com;
    f.frameSlot = body.state;
    f.firstModalSlot = m.nFree_;
    f.modalSlots = (n + 5) / 6;
    // The slots are appended to m.bodies, which moves its elements: no reference to `body` below.
    const int id = body.id;
    const std::string name = body.name;
    for (int k = 0; k < f.modalSlots; ++k) {
      ModelBody slot;
      slot.id = id;
      slot.name = name + " modes " + std::to_string(6 * k + 1) + "-" + std::to_string(std::min(n, 6 * k + 6));
      slot.modal = true;
      slot.flexible = index;
      slot.state = m.nFree_++;
      slot.mass = 1.0;
      slot.inertia = Mat3::Identity();
      slot.angles0.setZero();
      slot.p0.setZero();
      m.freeBodies.push_back(static_cast<int>(m.bodies.size()));
      m.bodies.push_back(slot);
    }
    m.flexibleBodies.push_back(std::move(f));
  }
}

std::shared_ptr<const SuspensionModel> SuspensionModel::build(const Project& p) {
  validate(p);
  std::shared_ptr<SuspensionModel> m(new SuspensionModel());
  m->project_ = p;
  m->gravity = p.gravity;

  m->curves.reserve(p.curves.size());  // Characteristic keeps pointers: never reallocate after this
  std::map<int, const Curve*> curveById;
  for (const auto& c : p.curves) {
    Interpolation ip;
    Extrapolation ep;
    parseInterpolation(c.interpolation, ip);
    parseExtrapolation(c.extrapolation, ep);
    std::vector<double> x, y;
    for (const auto& pt : c.points) {
      x.push_back(pt[0]);
      y.push_back(pt[1]);
    }
    m->curves.emplace_back(std::move(x), std::move(y), ip, ep);
    curveById[c.id] = &m->curves.back();
  }
  auto law = [&](const LawRow& l) {
    Characteristic ch;
    if (l.curve) ch.curve = curveById.at(*l.curve);
    else ch.coefficient = l.coefficient;
    return ch;
  };

  for (const auto& b : p.bodies) {
    ModelBody mb;
    mb.id = b.id;
    mb.name = b.name;
    mb.fixed = b.fixed;
    mb.R0 = rotation::matrix(b.orientation);
    mb.angles0 = b.orientation;
    if (b.fixed) {
      mb.p0 = b.position;
    } else {
      mb.state = m->nFree_++;
      m->freeBodies.push_back(static_cast<int>(m->bodies.size()));
      mb.mass = b.mass;
      mb.inertia = inertiaTensor(b.inertia);
      mb.com = b.com;
      mb.p0 = b.position + mb.R0 * b.com;
      mb.v0 = b.velocity;
      mb.w0 = b.angularVelocity;
    }
    m->bodies.push_back(mb);
  }
  std::map<int, int> nodeOfMarker;  // the node each marker on a flexible body rides on
  compileFlexibleBodies(p, *m, nodeOfMarker);
  for (const auto& mk : p.markers) {
    ModelMarker mm;
    mm.id = mk.id;
    mm.name = mk.name;
    mm.body = m->bodyById(mk.body);
    const ModelBody& body = m->bodies[mm.body.value];
    mm.s = mk.position - (body.fixed ? Vec3::Zero() : body.com);
    mm.R_BM = rotation::matrix(mk.orientation);
    mm.aligned = mm.R_BM == Mat3::Identity();
    if (body.flexible >= 0) {
      ModelFlexibleBody& f = m->flexibleBodies[body.flexible];
      mm.flexible = body.flexible;
      mm.node = nodeOfMarker.at(mk.id);
      mm.shape = fe::pointShape(f.modal, mm.node, mm.s - f.modal.nodes[mm.node]);
      f.markers.push_back(static_cast<int>(m->markers.size()));
    }
    m->markers.push_back(mm);
  }

  // Tyres: a state slot per wheel with a .tir file (docs/tyres.md), after the bodies' slots.
  std::map<int, const InputRow*> inputRowById;
  for (const InputRow& r : p.inputs) inputRowById.emplace(r.id, &r);
  std::vector<int> tyreSlotOfRow(p.wheels.size(), -1);
  std::vector<std::shared_ptr<const TyreProperty>> tyreOfRow(p.wheels.size());
  for (std::size_t k = 0; k < p.wheels.size(); ++k) {
    const WheelRow& w = p.wheels[k];
    if (w.tyre.empty()) continue;
    const Location at{p.sourcePath, "wheels", "id " + std::to_string(w.id), "tyre"};
    std::filesystem::path file(w.tyre);
    if (file.is_relative() && !p.sourcePath.empty()) file = std::filesystem::path(p.sourcePath).parent_path() / file;
    try {
      tyreOfRow[k] = std::make_shared<const TyreProperty>(readTyreProperty(file.string()));
    } catch (const ModelError&) {
      throw;  // names the file and its lines
    } catch (const std::exception& e) {
      throw ModelError(at, e.what());
    }
    const ModelBody& hub = m->bodies[m->markers[m->markerById(w.marker).value].body.value];
    if (hub.state < 0 || hub.flexible >= 0)
      throw ModelError(at, "a tyre needs its wheel on a free rigid body; '" + hub.name + "' is " +
                               (hub.state < 0 ? "fixed" : "flexible"));
    if (!(w.spinInertia > 0.0) && !(tyreOfRow[k]->iyy > 0.0))
      throw ModelError({p.sourcePath, "wheels", "id " + std::to_string(w.id), "spin inertia [kg m^2]"},
                       "is 0 and the tyre file gives no IYY: the spinning wheel needs one");
    for (const auto& [input, key] : {std::pair{w.driveInput, "drive input"}, std::pair{w.brakeInput, "brake input"}}) {
      if (!input) continue;
      const MarkerIndex marker = m->markerById(inputRowById.at(*input)->marker);
      const ModelBody& reaction = m->bodies[m->markers[marker.value].body.value];
      if (reaction.flexible >= 0)
        throw ModelError({p.sourcePath, "wheels", "id " + std::to_string(w.id), key},
                         "input " + std::to_string(*input) + " reacts on flexible body '" + reaction.name +
                             "', which a wheel's torque cannot yet: put its marker on a rigid body");
    }
    ModelBody slot;
    slot.id = w.id;
    slot.name = w.name + " tyre";
    slot.modal = true;
    slot.tyre = static_cast<int>(k);
    slot.state = m->nFree_++;
    slot.mass = 1.0;
    slot.inertia = Mat3::Identity();
    tyreSlotOfRow[k] = slot.state;
    m->freeBodies.push_back(static_cast<int>(m->bodies.size()));
    m->bodies.push_back(slot);
    m->hasTyres_ = true;
  }

  // Block pattern from the topology: diagonal blocks plus one pair per coupled free bodies. A
  // flexible body's slots (frame and modes) couple with each other and share their columns.
  const int n = m->nFree_;
  std::vector<std::set<int>> cols(n);
  for (int k = 0; k < n; ++k) cols[k].insert(k);
  std::vector<std::vector<int>> group(n);  // the slots that move with slot k's body
  for (int k = 0; k < n; ++k) group[k] = {k};
  for (const auto& f : m->flexibleBodies)
    for (int s : f.stateSlots()) group[s] = f.stateSlots();
  for (int k = 0; k < n; ++k)
    for (int s : group[k]) cols[k].insert(s);
  auto stateOf = [&](int markerId) { return m->bodies[m->markers[m->markerById(markerId).value].body.value].state; };
  auto couple = [&](int mi, int mj) {
    const int a = stateOf(mi), b = stateOf(mj);
    if (a >= 0 && b >= 0)
      for (int x : group[a])
        for (int y : group[b]) {
          cols[x].insert(y);
          cols[y].insert(x);
        }
  };
  for (const auto& b : p.bushings) couple(b.markerI, b.markerJ);
  for (const auto& e : p.p2ps) couple(e.markerI, e.markerJ);
  for (const auto& e : p.steeringRacks) couple(e.markerI, e.markerJ);
  // A tyre's slot and its hub.
  for (std::size_t k = 0; k < p.wheels.size(); ++k)
    if (tyreSlotOfRow[k] >= 0) {
      const int a = stateOf(p.wheels[k].marker), t = tyreSlotOfRow[k];
      cols[a].insert(t);
      cols[t].insert(a);
    }
  // A drive or brake torque's reaction body with the hub (the wheel's axis) and the slot (the
  // brake's spin rate).
  std::vector<std::vector<int>> spinTorqueInputs(p.wheels.size());  // a tyre's drive and brake inputs
  std::set<int> spinTorqueIds;
  for (std::size_t k = 0; k < p.wheels.size(); ++k)
    if (tyreSlotOfRow[k] >= 0)
      for (const auto& input : {p.wheels[k].driveInput, p.wheels[k].brakeInput})
        if (input) spinTorqueInputs[k].push_back(*input), spinTorqueIds.insert(*input);
  for (std::size_t k = 0; k < p.wheels.size(); ++k)
    for (int id : spinTorqueInputs[k]) {
      const int r = stateOf(inputRowById.at(id)->marker);
      if (r < 0) continue;
      for (int c : {stateOf(p.wheels[k].marker), tyreSlotOfRow[k]}) cols[r].insert(c), cols[c].insert(r);
    }
  // A wheel load's brake torque acts on the carrier and depends on the wheel's pose.
  for (const auto& w : p.wheels) {
    const int a = stateOf(w.marker), b = m->bodies[m->bodyById(w.carrier).value].state;
    if (a >= 0 && b >= 0) cols[a].insert(b), cols[b].insert(a);
  }
  BlockPattern& bp = m->pattern;
  bp.nBodies = n;
  bp.rowStart.assign(1, 0);
  for (int k = 0; k < n; ++k) {
    for (int c : cols[k]) bp.col.push_back(c);
    bp.rowStart.push_back(static_cast<int>(bp.col.size()));
  }
  bp.diag.resize(n);
  for (int k = 0; k < n; ++k) bp.diag[k] = bp.find(k, k);
  auto blockSlots = [&](int mi, int mj) {
    const int a = stateOf(mi), b = stateOf(mj);
    BlockSlots s;
    if (a >= 0) s.aa = bp.diag[a];
    if (b >= 0) s.bb = bp.diag[b];
    if (a >= 0 && b >= 0) {
      s.ab = bp.find(a, b);
      s.ba = bp.find(b, a);
    }
    return s;
  };

  for (const auto& b : p.bushings) {
    ModelBushing mb;
    mb.id = b.id;
    mb.name = b.name;
    mb.i = m->markerById(b.markerI);
    mb.j = m->markerById(b.markerJ);
    for (int k = 0; k < 6; ++k) {
      mb.stiffness[k] = law(b.directions[k].stiffness);
      mb.damping[k] = law(b.directions[k].damping);
      mb.preload[k] = b.directions[k].preload;
      if (!b.directions[k].maxwell.empty()) {
        ModelBranchDirection d;
        d.bushing = static_cast<int>(m->bushings.size());
        d.direction = k;
        d.first = m->nElementStates_;
        for (const auto& br : b.directions[k].maxwell) d.branches.push_back({br.stiffness, br.damping});
        d.scaled = b.directions[k].maxwellScaledBySlope;
        if (d.scaled) d.slope0 = mb.stiffness[k].eval(0.0).dydx;
        m->nElementStates_ += static_cast<int>(d.branches.size());
        mb.branchDirection[k] = static_cast<int>(m->branchDirections.size());
        m->branchDirections.push_back(std::move(d));
      }
    }
    mb.blocks = blockSlots(b.markerI, b.markerJ);
    for (int k = 0; k < 6; ++k) {
      const int slot = k < 3 ? k : 8 - k;  // rx, ry, rz -> the angles phi, theta, psi (slots 5, 4, 3)
      mb.coefficients[slot] = mb.stiffness[k].coefficient;
      mb.coefficients[6 + slot] = mb.damping[k].coefficient;
      mb.coefficients[12 + slot] = mb.preload[k];
      if (mb.stiffness[k].curve || mb.damping[k].curve || mb.branchDirection[k] >= 0) {
        mb.nonlinear = true;
        mb.coefficients[slot] = mb.coefficients[6 + slot] = 0.0;
      }
    }
    m->bushings.push_back(mb);
  }
  VecX r0, v0;
  m->initialState(r0, v0);
  for (const auto& e : p.p2ps) {
    ModelP2P mp;
    mp.id = e.id;
    mp.name = e.name;
    mp.i = m->markerById(e.markerI);
    mp.j = m->markerById(e.markerJ);
    auto worldPos = [&](MarkerIndex mi) {
      const ModelMarker& mk = m->markers[mi.value];
      const ModelBody& body = m->bodies[mk.body.value];
      return Vec3(body.p0 + body.R0 * mk.s);
    };
    const double modelled = (worldPos(mp.i) - worldPos(mp.j)).norm();
    if (!e.freeLength && modelled < 1e-9)
      throw ModelError({p.sourcePath, "p2p elements", "id " + std::to_string(e.id), "marker_j"},
                       "the markers coincide as modelled, so the element has no line of action; "
                       "move a marker or give 'free length [m]'");
    mp.freeLength = e.freeLength ? *e.freeLength : modelled;
    mp.preload = e.preload;
    mp.spring = law(e.spring);
    mp.damper = law(e.damper);
    if (e.bumpStop) mp.bump = {true, e.bumpStop->clearance, law(e.bumpStop->law)};
    if (e.reboundStop) mp.rebound = {true, e.reboundStop->clearance, law(e.reboundStop->law)};
    mp.blocks = blockSlots(e.markerI, e.markerJ);
    m->p2ps.push_back(mp);
  }
  for (const auto& in : p.inputs) {
    ModelInput mi;
    mi.id = in.id;
    mi.name = in.name;
    mi.marker = m->markerById(in.marker);
    mi.kind = in.kind;
    mi.frame = in.frame;
    mi.direction = in.direction;
    const int st = m->bodies[m->markers[mi.marker.value].body.value].state;
    mi.slot = st >= 0 ? bp.diag[st] : -1;
    mi.body = m->markers[mi.marker.value].body;
    mi.spinTorque = spinTorqueIds.count(in.id) > 0;
    if (mi.motion()) {
      ModelBody& body = m->bodies[mi.body.value];
      const ModelMarker& mk = m->markers[mi.marker.value];
      mi.axis = mi.frame == InputFrame::Global ? in.direction : Vec3(body.R0 * mk.R_BM * in.direction);
      if (mi.kind == InputKind::Rotation) {
        mi.axis.normalize();
        body.rotation = static_cast<int>(m->inputs.size());
      }
      mi.centre = body.p0 + body.R0 * mk.s;
      if (body.drives.empty()) m->drivenBodies.push_back(mi.body.value);
      body.drives.push_back(static_cast<int>(m->inputs.size()));
    }
    m->inputs.push_back(mi);
  }
  for (const auto& e : p.steeringRacks) {
    ModelSteeringRack mr;
    mr.id = e.id;
    mr.name = e.name;
    mr.i = m->markerById(e.markerI);
    mr.j = m->markerById(e.markerJ);
    mr.input = m->inputById(e.input);
    mr.ratio = e.ratio;
    if (e.travelCurve) {
      mr.travelCurve = curveById.at(*e.travelCurve);
      const CurveValue atZero = mr.travelCurve->eval(0.0);
      mr.travelAtZero = atZero.y;
      mr.ratio = atZero.dydx;
    }
    mr.columnStiffness = e.columnStiffness;
    mr.columnDamping = e.columnDamping;
    mr.stiffness = e.columnStiffness / (mr.ratio * mr.ratio);
    mr.damping = e.columnDamping / (mr.ratio * mr.ratio);
    // The travel as modelled: d_W . z_J at the markers' design poses.
    auto position = [&](MarkerIndex mi) {
      const ModelMarker& mk = m->markers[mi.value];
      const ModelBody& body = m->bodies[mk.body.value];
      return Vec3(body.p0 + body.R0 * mk.s);
    };
    const ModelMarker& housing = m->markers[mr.j.value];
    const Vec3 axis = m->bodies[housing.body.value].R0 * housing.R_BM.col(2);
    mr.travel0 = (position(mr.i) - position(mr.j)).dot(axis);
    mr.blocks = blockSlots(e.markerI, e.markerJ);
    m->steeringRacks.push_back(mr);
  }
  {
    // The rows of J_u: a load's body (a flexible body's frame and modal slots: the load's modal
    // forces, and M(q)^-1 couples them); the free bodies that elements join to a driven body.
    std::vector<std::set<int>> inputsOfRow(n);
    auto bodyOf = [&](MarkerIndex mk) { return m->markers[mk.value].body.value; };
    auto addRows = [&](int k, int body) {  // a flexible body's every slot: M(q)^-1 couples them
      const ModelBody& b = m->bodies[body];
      if (b.flexible >= 0)
        for (int st : m->flexibleBodies[b.flexible].stateSlots()) inputsOfRow[st].insert(k);
      else if (b.state >= 0)
        inputsOfRow[b.state].insert(k);
    };
    auto drivenTo = [&](int k, MarkerIndex i, MarkerIndex j) {
      const int bi = bodyOf(i), bj = bodyOf(j);
      if (bi == m->inputs[k].body.value) addRows(k, bj);
      if (bj == m->inputs[k].body.value) addRows(k, bi);
    };
    for (int k = 0; k < m->nInputs(); ++k) {
      const ModelInput& in = m->inputs[k];
      if (in.spinTorque) continue;  // the rows of its wheels' slots and of its reaction, below
      if (!in.motion()) {
        addRows(k, in.body.value);
        continue;
      }
      for (const auto& b : m->bushings) drivenTo(k, b.i, b.j);
      for (const auto& e : m->p2ps) drivenTo(k, e.i, e.j);
      for (const auto& e : m->steeringRacks) drivenTo(k, e.i, e.j);
    }
    // A steering rack's angle pulls on the rack and the housing.
    for (const auto& e : m->steeringRacks)
      for (MarkerIndex mk : {e.i, e.j}) addRows(e.input, bodyOf(mk));
    for (std::size_t w = 0; w < p.wheels.size(); ++w)
      for (int id : spinTorqueInputs[w]) {
        const int k = m->inputById(id);
        inputsOfRow[tyreSlotOfRow[w]].insert(k);
        addRows(k, m->inputs[k].body.value);
      }
    InputPattern& ip = m->inputPattern;
    ip.rowStart.assign(1, 0);
    for (int l = 0; l < n; ++l) {
      for (int k : inputsOfRow[l]) {
        ip.input.push_back(k);
        ip.row.push_back(l);
      }
      ip.rowStart.push_back(ip.nSlots());
    }
    ip.colStart.assign(m->nInputs() + 1, 0);
    for (int k : ip.input) ++ip.colStart[k + 1];
    for (int k = 0; k < m->nInputs(); ++k) ip.colStart[k + 1] += ip.colStart[k];
    ip.colSlots.resize(ip.nSlots());
    std::vector<int> next(ip.colStart.begin(), ip.colStart.end() - 1);
    for (int s = 0; s < ip.nSlots(); ++s) ip.colSlots[next[ip.input[s]]++] = s;
    for (auto& e : m->steeringRacks) {
      const int a = m->markers[e.i.value].body.value, b = m->markers[e.j.value].body.value;
      if (m->bodies[a].state >= 0) e.inputSlotA = ip.find(m->bodies[a].state, e.input);
      if (m->bodies[b].state >= 0) e.inputSlotB = ip.find(m->bodies[b].state, e.input);
    }
  }
  for (const auto& w : p.wheels) {
    ModelWheel mw;
    mw.id = w.id;
    mw.name = w.name;
    mw.marker = m->markerById(w.marker);
    mw.body = m->markers[mw.marker.value].body;
    mw.carrier = m->bodyById(w.carrier);
    mw.radius = w.radius;
    mw.side = w.side == WheelSide::Left ? 1.0 : -1.0;
    if (w.steeringInput) mw.steeringInput = m->inputById(*w.steeringInput);
    if (w.steeringAxis) {
      mw.steerUpper = m->markerById((*w.steeringAxis)[0]);
      mw.steerLower = m->markerById((*w.steeringAxis)[1]);
    }
    {
      const ModelMarker& mk = m->markers[mw.marker.value];
      const ModelBody& wb = m->bodies[mw.body.value];
      const ModelBody& cb = m->bodies[mw.carrier.value];
      const Mat3 R_WM0 = wb.R0 * mk.R_BM;
      mw.axisSign = R_WM0.col(0).y() * mw.side >= 0.0 ? 1.0 : -1.0;
      mw.R_CM0 = cb.R0.transpose() * R_WM0;
    }
    const int a = m->bodies[mw.body.value].state, b = m->bodies[mw.carrier.value].state;
    mw.slotWheel = bp.diag[a];
    if (b >= 0 && b != a) mw.slotCarrier = bp.find(b, a);
    const std::size_t row = m->wheels.size();
    if (const auto& tyre = tyreOfRow[row]) {
      mw.tyre = tyre;
      mw.tyreSlot = tyreSlotOfRow[row];
      const bool measuredLeft = tyre->side == TyreSide::Left;
      mw.tyreMirrored = tyre->mirrored() != (tyre->side != TyreSide::Symmetric && measuredLeft != (mw.side > 0.0));
      mw.spinInertia = w.spinInertia > 0.0 ? w.spinInertia : tyre->iyy;
      mw.lowSpeedDamping = w.lowSpeedDamping;
      mw.roadHeight = w.roadHeight;
      mw.tyreBlockHub = bp.find(a, mw.tyreSlot);
      mw.tyreBlockSlot = bp.find(mw.tyreSlot, a);
      for (auto [input, torque] : {std::pair{w.driveInput, &mw.drive}, std::pair{w.brakeInput, &mw.brake}}) {
        if (!input) continue;
        torque->input = m->inputById(*input);
        torque->reaction = m->bodies[m->inputs[torque->input].body.value].state;
        torque->inputSlot = m->inputPattern.find(mw.tyreSlot, torque->input);
        if (torque->reaction < 0) continue;
        torque->blockHub = bp.find(torque->reaction, a);
        torque->blockSlot = bp.find(torque->reaction, mw.tyreSlot);
        torque->reactionInput = m->inputPattern.find(torque->reaction, torque->input);
      }
      // The wheel starts rolling with its hub: Omega = V_x / loaded radius.
      const ModelMarker& mk = m->markers[mw.marker.value];
      const ModelBody& hub = m->bodies[mw.body.value];
      const Vec3 y = mw.axisSign * mw.side * (hub.R0 * mk.R_BM).col(0);
      const Vec3 arm = hub.R0 * (mk.s - hub.com);
      const Vec3 centre = hub.p0 + arm, velocity = hub.v0 + (hub.R0 * hub.w0).cross(arm);
      Vec3 forward = y.cross(Vec3::UnitZ());
      const Vec3 radial = forward.normalized().cross(y);
      const double loaded = std::clamp((centre.z() - mw.roadHeight) / radial.z(), 0.5 * tyre->unloadedRadius,
                                       tyre->unloadedRadius);
      m->bodies[m->freeBodies[mw.tyreSlot]].v0 = Vec3(velocity.dot(forward.normalized()) / loaded, 0.0, 0.0);
    }
    m->wheels.push_back(mw);
  }
  return m;
}

ModelSteeringRack::Command ModelSteeringRack::command(double u) const {
  if (travelCurve == nullptr) return {ratio * u, ratio, 0.0};
  const CurveValue s = travelCurve->eval(u);
  return {s.y - travelAtZero, s.dydx, travelCurve->secondDerivative(u)};
}

BodyIndex SuspensionModel::bodyById(int id) const {
  for (std::size_t k = 0; k < bodies.size(); ++k)
    if (bodies[k].id == id && !bodies[k].modal) return BodyIndex(static_cast<int>(k));
  return {};
}
MarkerIndex SuspensionModel::markerById(int id) const {
  for (std::size_t k = 0; k < markers.size(); ++k)
    if (markers[k].id == id) return MarkerIndex(static_cast<int>(k));
  return {};
}
int SuspensionModel::bushingById(int id) const {
  for (std::size_t k = 0; k < bushings.size(); ++k)
    if (bushings[k].id == id) return static_cast<int>(k);
  return -1;
}
int SuspensionModel::p2pById(int id) const {
  for (std::size_t k = 0; k < p2ps.size(); ++k)
    if (p2ps[k].id == id) return static_cast<int>(k);
  return -1;
}
int SuspensionModel::steeringRackById(int id) const {
  for (std::size_t k = 0; k < steeringRacks.size(); ++k)
    if (steeringRacks[k].id == id) return static_cast<int>(k);
  return -1;
}
int SuspensionModel::inputById(int id) const {
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].id == id) return static_cast<int>(k);
  return -1;
}
int SuspensionModel::wheelById(int id) const {
  for (std::size_t k = 0; k < wheels.size(); ++k)
    if (wheels[k].id == id) return static_cast<int>(k);
  return -1;
}
const LoadCaseRow* SuspensionModel::loadCase(const std::string& name) const {
  for (const auto& lc : project_.loadCases)
    if (lc.name == name) return &lc;
  return nullptr;
}

void SuspensionModel::initialState(VecX& r, VecX& v) const {
  r.resize(nDof());
  v.resize(nDof());
  for (int s = 0; s < nFree_; ++s) {
    const ModelBody& b = bodies[freeBodies[s]];
    r.segment<3>(6 * s) = b.p0;
    r.segment<3>(6 * s + 3) = b.angles0;
    v.segment<3>(6 * s) = b.v0;
    v.segment<3>(6 * s + 3) = b.w0;
  }
}

}  // namespace ek
