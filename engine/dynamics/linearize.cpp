// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/linearize.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/dynamics/flexible_rows.h"
#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/tyre_rows.h"
#include "engine/dynamics/wheels.h"

namespace ek {
namespace {

/// Wrench (F, tau) acting at a point with lever arm rho from the centre of mass => partials of
/// (F, tau + rho x F).
Mat6x12 shiftToCentre(const Mat6x12& d, const Vec3& rho) {
  Mat6x12 out = d;
  for (int c = 0; c < 12; ++c) out.col(c).tail<3>() += rho.cross(d.col(c).head<3>());
  return out;
}

/// Partials of a free body's world wrench w.r.t. a driven body's (p, theta, v, w_B) => the
/// columns of its motion inputs and their rates.
void addDriven(const SuspensionModel& model, Workspace& ws, int state, int drivenBody, const Mat6x12& d) {
  for (int k : model.bodies[drivenBody].drives) {
    const int s = model.inputPattern.find(state, k);
    ws.Jw_u[s].noalias() += d * ws.drives[k].dPose_du;
    ws.Jw_udot[s].noalias() += d * ws.drives[k].dPose_dudot;
  }
}

/// Adds a half's position and velocity blocks to slot s.
void addSlot(Workspace& ws, int s, const ElementWrench::Slot& blocks) {
  ws.Jw_r[s] += blocks.r;
  ws.Jw_v[s] += blocks.v;
}

/// One row block of an element (a bushing, P2P element or steering rack, with its wrench w;
/// forEachRowBlock()) with what goes along with it into the same rows: aa with the wrench in the
/// rows of the body of marker I (the "A half") and its partials w.r.t. a driven J side; bb with
/// the reaction, which acts at p_I, in the rows of J's body (the "B half") and its partials w.r.t.
/// a driven I side. The block itself if `addBlocks` (else the kernel added it); no partial at all
/// without `partials` (the values-only pass). The element's type is known where it is called:
/// no dispatch in the step.
template <class Element>
void scatterBlock(const SuspensionModel& model, const Element& element, const ElementWrench& w, RowBlock block,
                  bool addBlocks, bool partials, Workspace& ws) {
  const MarkerIndex i = element.i, j = element.j;
  const BlockSlots& blocks = element.blocks;
  const MarkerKinematics& mi = ws.markers[i.value];
  const MarkerKinematics& mj = ws.markers[j.value];
  const int stateA = mi.state, stateB = mj.state;
  switch (block) {
    case kBlockAA: {
      if (stateA < 0) return;
      const Vec3& rho = mi.rho;
      ws.wrench[stateA].head<3>() += w.F;
      ws.wrench[stateA].tail<3>() += w.tau + rho.cross(w.F);
      if (addBlocks) addSlot(ws, blocks.aa, w.aa);
      if (partials && stateB < 0 && mj.moves) addDriven(model, ws, stateA, mj.body, shiftToCentre(sidePartials(w, false), rho));
      return;
    }
    case kBlockBA:
      if (addBlocks && stateA >= 0 && stateB >= 0) addSlot(ws, blocks.ba, w.ba);
      return;
    case kBlockAB:
      if (addBlocks && stateA >= 0 && stateB >= 0) addSlot(ws, blocks.ab, w.ab);
      return;
    case kBlockBB: {
      if (stateB < 0) return;
      const Vec3 q = mi.p - ws.bodies[mj.body].p;  // the reaction acts at p_I
      ws.wrench[stateB].head<3>() -= w.F;
      ws.wrench[stateB].tail<3>() -= w.tau + q.cross(w.F);
      if (addBlocks) addSlot(ws, blocks.bb, w.bb);
      if (partials && stateA < 0 && mi.moves) {  // a driven body
        Mat6x12 dBA = -shiftToCentre(sidePartials(w, true), q);
        dBA.block<3, 3>(3, 0) += skew(w.F);
        dBA.block<3, 3>(3, 3) -= skewSkew(w.F, mi.rho);
        addDriven(model, ws, stateB, mi.body, dBA);
      }
      return;
    }
  }
}

/// A steering rack's force by the steering-wheel angle and its rate (dF/du = k ratio z, dF/du' =
/// c ratio z, and with a variable ratio the change of k and c: calcSteeringRacks()) into the
/// world-wrench columns of its input: on the rack about its centre, the reaction at p_I on the
/// housing.
void addSteeringAngleColumns(const SuspensionModel& model, int e, Workspace& ws) {
  const ModelSteeringRack& r = model.steeringRacks[e];
  const MarkerKinematics& mi = ws.markers[r.i.value];
  const MarkerKinematics& mj = ws.markers[r.j.value];
  const Vec3 z = mj.R.col(2);
  Vec6 unit;
  if (r.inputSlotA >= 0) {
    unit << z, mi.rho.cross(z);
    ws.Jw_u[r.inputSlotA] += ws.steeringRacks[e].dForce_du * unit;
    ws.Jw_udot[r.inputSlotA] += ws.steeringRacks[e].dForce_dudot * unit;
  }
  if (r.inputSlotB >= 0) {
    unit << -z, -(mi.p - ws.bodies[mj.body].p).cross(z);
    ws.Jw_u[r.inputSlotB] += ws.steeringRacks[e].dForce_du * unit;
    ws.Jw_udot[r.inputSlotB] += ws.steeringRacks[e].dForce_dudot * unit;
  }
}

}  // namespace

void clearSurfaceForceRow(const SuspensionModel& model, int l, Workspace& ws) {
  const BlockPattern& bp = model.pattern;
  ws.wrench[l].setZero();
  for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s) {
    ws.Jw_r[s].setZero();
    ws.Jw_v[s].setZero();
  }
  if (model.hasMotionInputs())
    for (int s = model.inputPattern.rowStart[l]; s < model.inputPattern.rowStart[l + 1]; ++s) {
      ws.Jw_u[s].setZero();
      ws.Jw_udot[s].setZero();
    }
}

void scatterElementBlock(const SuspensionModel& model, ElementRef e, RowBlock block, Workspace& ws) {
  switch (e.kind) {
    case ElementRef::Bushing:
      scatterBlock(model, model.bushings[e.index], ws.bushings[e.index].wrench, block, true, true, ws);
      return;
    case ElementRef::P2P: scatterBlock(model, model.p2ps[e.index], ws.p2ps[e.index].wrench, block, true, true, ws); return;
    case ElementRef::SteeringRack:
      scatterBlock(model, model.steeringRacks[e.index], ws.steeringRacks[e.index].wrench, block, true, true, ws);
      return;
  }
}

void clearSurfaceForces(const SuspensionModel& model, Workspace& ws) {
  // All rows at once (what clearSurfaceForceRow() does row by row, as one sweep).
  for (auto& w : ws.wrench) w.setZero();
  for (auto& b : ws.Jw_r) b.setZero();
  for (auto& b : ws.Jw_v) b.setZero();
  if (model.hasMotionInputs()) {
    for (auto& b : ws.Jw_u) b.setZero();
    for (auto& b : ws.Jw_udot) b.setZero();
  }
}

void calcSurfaceForces(const SuspensionModel& model, Workspace& ws, const ElementPass& pass) {
  const bool addBlocks = pass.partials && pass.blocks == RowBlocks::InElements;
  if (addBlocks) clearSurfaceForces(model, ws);
  if (!pass.partials)
    for (auto& w : ws.wrench) w.setZero();
  // Without the blocks, only aa and bb carry something (the wrenches, driven sides).
  forEachRowBlock(ws.bushingOrder, [&](int e, RowBlock b) {
    if (addBlocks || b == kBlockAA || b == kBlockBB)
      scatterBlock(model, model.bushings[e], ws.bushings[e].wrench, b, addBlocks, pass.partials, ws);
  });
  forEachRowBlock(ws.p2pOrder, [&](int e, RowBlock b) {
    if (addBlocks || b == kBlockAA || b == kBlockBB)
      scatterBlock(model, model.p2ps[e], ws.p2ps[e].wrench, b, addBlocks, pass.partials, ws);
  });
  scatterSteeringRacks(model, ws, pass.partials);
  if (model.hasFlexibleBodies()) addFlexibleElementForces(model, ws, pass.partials);
}

void scatterSteeringRacks(const SuspensionModel& model, Workspace& ws, bool partials) {
  for (int e : ws.rigidRacks) {  // a rack on a flexible body: addFlexibleElementForces()
    for (int b = kBlockAA; b <= kBlockBB; ++b)
      scatterBlock(model, model.steeringRacks[e], ws.steeringRacks[e].wrench, static_cast<RowBlock>(b), partials, partials,
                   ws);
    if (partials) addSteeringAngleColumns(model, e, ws);
  }
}

void addBodyForcesRow(const SuspensionModel& model, int l, Workspace& ws, bool partials) {
  // Gravity on the centre of mass; none on modal coordinates (the modes do not move the centre).
  if (!model.bodies[model.freeBodies[l]].modal) ws.wrench[l].head<3>() += model.bodies[model.freeBodies[l]].mass * model.gravity;

  // Every slot of the row is written: motion inputs from the element partials that
  // calcSurfaceForces() collected, loads from their direction (inputs ascending).
  const InputPattern& ip = model.inputPattern;
  const Mat3 Rt = ws.bodies[model.freeBodies[l]].R.transpose();
  for (int s = ip.rowStart[l]; s < ip.rowStart[l + 1]; ++s) {
    const int k = ip.input[s];
    const ModelInput& in = model.inputs[k];
    if (in.spinTorque) continue;  // addTyreForces() applies it and writes its slots
    if (in.motion()) {
      if (!partials) continue;
      ws.Ju[s] << ws.Jw_u[s].head<3>(), Rt * ws.Jw_u[s].tail<3>();
      ws.Judot[s] << ws.Jw_udot[s].head<3>(), Rt * ws.Jw_udot[s].tail<3>();
      continue;
    }
    if (model.markers[in.marker.value].flexible >= 0) continue;  // flexibleBodyRows() adds it
    const MarkerKinematics& mk = ws.markers[in.marker.value];
    const Vec3 dir = in.frame == InputFrame::Global ? in.direction : Vec3(mk.R * in.direction);
    const double u = ws.u[k];
    Vec6 unit;  // world wrench about the centre of mass per unit u
    if (in.kind == InputKind::Force) unit << dir, mk.rho.cross(dir);
    else unit << Vec3::Zero(), dir;
    ws.wrench[l] += u * unit;
    if (!partials) continue;
    Mat3 dTau_dth = Mat3::Zero(), dF_dth = Mat3::Zero();
    const Vec3 val = u * dir;
    if (in.kind == InputKind::Force) {
      dTau_dth = skew(val) * skew(mk.rho);
      if (in.frame == InputFrame::Marker) {
        dF_dth = -skew(val);
        dTau_dth -= skew(mk.rho) * skew(val);
      }
    } else if (in.frame == InputFrame::Marker) {
      dTau_dth = -skew(val);
    }
    ws.Jw_r[in.slot].block<3, 3>(0, 3) += dF_dth;
    ws.Jw_r[in.slot].block<3, 3>(3, 3) += dTau_dth;
    ws.Ju[s] << unit.head<3>(), Rt * unit.tail<3>();
  }
}

void calcBodyForces(const SuspensionModel& model, Workspace& ws, const VecX* wheelLoads) {
  for (int l = 0; l < model.nFreeBodies(); ++l) addBodyForcesRow(model, l, ws, true);
  if (wheelLoads) addWheelLoads(model, *wheelLoads, ws);
}

void bodyRhsRow(const SuspensionModel& model, int l, const Workspace& ws, VecX& h) {
  const BodyKinematics& bl = ws.bodies[model.freeBodies[l]];
  const Vec3 Iw = model.bodies[model.freeBodies[l]].inertia * bl.w_B;
  h.segment<3>(6 * l) = ws.wrench[l].head<3>();
  h.segment<3>(6 * l + 3) = bl.R.transpose() * ws.wrench[l].tail<3>() - bl.w_B.cross(Iw);
}

namespace {
/// Row l of the assembly (never inlined: one machine code for the serial and the parallel step).
[[gnu::noinline]] void assembleRow(const SuspensionModel& model, int l, Workspace& ws, bool jacobians) {
  const BlockPattern& bp = model.pattern;
  {
    const BodyKinematics& bl = ws.bodies[model.freeBodies[l]];
    const ModelBody& body = model.bodies[model.freeBodies[l]];
    bodyRhsRow(model, l, ws, ws.h);
    ws.Kinv[l] = bl.Tinv;
    ws.N[l] = bl.N;
    if (!jacobians) return;
    const Mat3 Rt = bl.R.transpose();
    const Vec3 tau = ws.wrench[l].tail<3>();
    const Vec3 Iw = body.inertia * bl.w_B;
    for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s) {
      const BodyKinematics& bk = ws.bodies[model.freeBodies[bp.col[s]]];
      const Mat6& Wr = ws.Jw_r[s];
      const Mat6& Wv = ws.Jw_v[s];
      Mat6& Jr = ws.Jr[s];
      Mat6& Jv = ws.Jv[s];
      Mat3 tauTheta = Wr.block<3, 3>(3, 3);
      if (s == bp.diag[l]) tauTheta += skew(tau);  // d(R^T tau) = R^T (d tau + [tau]x d theta)
      Jr.block<3, 3>(0, 0) = Wr.block<3, 3>(0, 0);
      Jr.block<3, 3>(0, 3) = Wr.block<3, 3>(0, 3) * bk.RT;
      Jr.block<3, 3>(3, 0) = Rt * Wr.block<3, 3>(3, 0);
      Jr.block<3, 3>(3, 3) = Rt * tauTheta * bk.RT;
      Jv.topRows<3>() = Wv.topRows<3>();
      Jv.bottomRows<3>() = Rt * Wv.bottomRows<3>();
    }
    // Gyroscopic term -w x I w (h_w of eq. 2b) depends on w_B only.
    ws.Jv[bp.diag[l]].block<3, 3>(3, 3) -= skew(bl.w_B) * body.inertia - skew(Iw);
  }
}

}  // namespace

void assembleLinearizationRow(const SuspensionModel& model, int l, Workspace& ws, bool jacobians) {
  assembleRow(model, l, ws, jacobians);
}

void assembleLinearization(const SuspensionModel& model, Workspace& ws) {
  for (int l = 0; l < model.nFreeBodies(); ++l) assembleRow(model, l, ws, true);
}

void evaluateElements(const SuspensionModel& model, const State& state, const VecX& u, const VecX& uDot,
                      Workspace& ws, const ElementPass& pass) {
  ws.u = u;
  ws.uDot = uDot;  // a copy of itself when the caller passes ws.uDot
  calcBodyKinematics(model, state, ws);
  calcMarkerKinematics(model, ws);
  if (model.hasFlexibleBodies()) calcFlexibleKinematics(model, state, ws);
  if (model.hasTyres()) calcTyreKinematics(model, ws);
  if (pass.partials && pass.blocks == RowBlocks::AddToRows) clearSurfaceForces(model, ws);
  calcBushings(model, ws, pass);
  calcP2Ps(model, ws, pass);
  if (!model.steeringRacks.empty()) calcSteeringRacks(model, ws, pass.partials);
  if (model.hasFlexibleBodies()) calcFlexibleElements(model, ws, pass.branchStageGain);
  if (model.hasTyres()) calcTyreContacts(model, ws, pass.partials);
}

namespace {

/// Every stage in order at (state, u, uDot).
void runStages(const SuspensionModel& model, const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
               const LinearizeOptions& options) {
  // The element kernels add their blocks to the cleared rows (no copy through the elements).
  evaluateElements(model, state, u, uDot, ws, ElementPass{true, RowBlocks::AddToRows, options.branchStageGain});
  calcSurfaceForces(model, ws, ElementPass{true, RowBlocks::AddToRows, options.branchStageGain});
  if (model.hasTyres()) addTyreForces(model, ws, true);
  calcBodyForces(model, ws, options.wheelLoads);
  if (model.hasFlexibleBodies()) flexibleBodyRows(model, ws, true);
  for (int l = 0; l < model.nFreeBodies(); ++l) assembleRow(model, l, ws, options.jacobians);
}

}  // namespace

void linearize(const SuspensionModel& model, const State& state, const VecX& u, Workspace& ws,
               const VecX* wheelLoads) {
  ws.uDot.setZero();
  LinearizeOptions options;
  options.wheelLoads = wheelLoads;
  runStages(model, state, u, ws.uDot, ws, options);
}

void linearize(const SuspensionModel& model, const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
               const LinearizeOptions& options) {
  runStages(model, state, u, uDot, ws, options);
}

void evaluateRhs(const SuspensionModel& model, const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
                 VecX& h, VecX& rDot) {
  // The pipeline of linearize() without any partial: the same sums in the same order.
  evaluateElements(model, state, u, uDot, ws, kValuesOnly);
  calcSurfaceForces(model, ws, kValuesOnly);
  if (model.hasTyres()) addTyreForces(model, ws, false);
  if (model.hasFlexibleBodies()) {  // the flexible rows need every row's body forces first
    for (int l = 0, m = model.nFreeBodies(); l < m; ++l) addBodyForcesRow(model, l, ws, false);
    flexibleBodyRows(model, ws, false);
  }
  for (int l = 0, m = model.nFreeBodies(); l < m; ++l) {
    if (!model.hasFlexibleBodies()) addBodyForcesRow(model, l, ws, false);
    bodyRhsRow(model, l, ws, h);
    const BodyKinematics& bl = ws.bodies[model.freeBodies[l]];
    rDot.segment<3>(6 * l) = bl.v;
    rDot.segment<3>(6 * l + 3) = bl.Tinv * bl.w_B;
  }
}

void blockMultiplyAdd(const BlockPattern& bp, const std::vector<Mat6>& blocks, const VecX& x, VecX& y) {
  for (int l = 0; l < bp.nBodies; ++l) blockMultiplyAddRow(bp, blocks, l, x, y);
}

[[gnu::noinline]] void inputMultiplyAddRow(const SuspensionModel& model, const Workspace& ws, int l, const VecX& du,
                                          const VecX& dud, bool motion, VecX& y) {
  const InputPattern& ip = model.inputPattern;
  for (int s = ip.rowStart[l]; s < ip.rowStart[l + 1]; ++s) {
    const int k = ip.input[s];
    y.segment<6>(6 * l).noalias() += ws.Ju[s] * du[k];
    if (motion && model.inputs[k].motion()) y.segment<6>(6 * l).noalias() += ws.Judot[s] * dud[k];
  }
}

VecX inputColumn(const SuspensionModel& model, const std::vector<Vec6>& slots, int k) {
  const InputPattern& ip = model.inputPattern;
  VecX c = VecX::Zero(model.nDof());
  for (int q = ip.colStart[k]; q < ip.colStart[k + 1]; ++q) c.segment<6>(6 * ip.row[ip.colSlots[q]]) = slots[ip.colSlots[q]];
  return c;
}

MatX inputMatrix(const SuspensionModel& model, const std::vector<Vec6>& slots) {
  MatX J(model.nDof(), model.nInputs());
  for (int k = 0; k < model.nInputs(); ++k) J.col(k) = inputColumn(model, slots, k);
  return J;
}

MatX blockToDense(const BlockPattern& bp, const std::vector<Mat6>& blocks) {
  MatX D = MatX::Zero(6 * bp.nBodies, 6 * bp.nBodies);
  for (int l = 0; l < bp.nBodies; ++l)
    for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s) D.block<6, 6>(6 * l, 6 * bp.col[s]) = blocks[s];
  return D;
}

namespace {

bool finite(const ElementWrench& w) {
  bool ok = w.F.allFinite() && w.tau.allFinite() && w.Fp.allFinite() && w.Fv.allFinite() && w.FthA.allFinite() &&
            w.FwA.allFinite() && w.FthB.allFinite() && w.FwB.allFinite() && w.TthA.allFinite() && w.TwA.allFinite() &&
            w.TthB.allFinite() && w.TwB.allFinite();
  for (const ElementWrench::Slot* s : {&w.aa, &w.ab, &w.ba, &w.bb}) ok = ok && s->r.allFinite() && s->v.allFinite();
  return ok;
}

std::string vectorText(const Vec6& v) {
  std::string t;
  for (int k = 0; k < 6; ++k) t += (k ? ", " : "") + significant(v[k], 4);
  return "(" + t + ")";
}

}  // namespace

std::string nonFiniteElement(const SuspensionModel& model, const State& state, const VecX& u, Workspace& ws) {
  try {
    ws.uDot.setZero();
    evaluateElements(model, state, u, ws.uDot, ws, ElementPass{});
  } catch (const SimulationError& e) {
    return e.what();
  }
  for (std::size_t e = 0; e < model.bushings.size(); ++e) {
    const BushingResult& b = ws.bushings[e];
    if (finite(b.wrench) && b.force.allFinite()) continue;
    return "bushing " + std::to_string(model.bushings[e].id) + " ('" + model.bushings[e].name + "'): its " +
           (b.force.allFinite() ? "partial derivatives are" : "force is") + " not finite (NaN or Inf) at the deflection " +
           vectorText(b.deflection) + " [m, rad] and rate " + vectorText(b.rate) +
           " (a characteristic curve or law beyond what a number can hold?)";
  }
  for (std::size_t e = 0; e < model.p2ps.size(); ++e) {
    const P2PResult& p = ws.p2ps[e];
    if (finite(p.wrench) && std::isfinite(p.tension)) continue;
    return "P2P element " + std::to_string(model.p2ps[e].id) + " ('" + model.p2ps[e].name + "'): its " +
           (std::isfinite(p.tension) ? "partial derivatives are" : "tension is") + " not finite (NaN or Inf) at the length " +
           significant(p.length, 6) + " m and rate " + significant(p.rate, 4) + " m/s";
  }
  return {};
}

}  // namespace ek
