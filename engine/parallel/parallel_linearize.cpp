// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/parallel/parallel_linearize.h"

#include <algorithm>

#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/flexible_rows.h"
#include "engine/dynamics/tyre_rows.h"

namespace ek {

std::vector<int> ParallelLinearizer::contiguousRanges(const SuspensionModel& model, int threads) {
  const int m = model.nFreeBodies();
  // Work per body row: the element halves acting on it.
  std::vector<double> rowCost(m, 1.0);
  auto countHalves = [&](MarkerIndex i, MarkerIndex j) {
    const int a = model.markers[i.value].body.value, b = model.markers[j.value].body.value;
    if (model.bodies[a].state >= 0) rowCost[model.bodies[a].state] += 1.0;
    if (model.bodies[b].state >= 0) rowCost[model.bodies[b].state] += 1.0;
  };
  for (const auto& b : model.bushings) countHalves(b.i, b.j);
  for (const auto& p : model.p2ps) countHalves(p.i, p.j);
  std::vector<int> owner(m);
  double total = 0.0, done = 0.0;
  for (double c : rowCost) total += c;
  for (int l = 0; l < m; ++l) {
    owner[l] = std::min(threads - 1, static_cast<int>((done + 0.5 * rowCost[l]) / total * threads));
    done += rowCost[l];
  }
  return owner;
}

ParallelLinearizer::ParallelLinearizer(const SuspensionModel& model, WorkerPool& pool, const std::vector<int>& preferred)
    : model_(model), pool_(pool) {
  const int T = pool.size(), m = model.nFreeBodies();
  std::vector<int> owner = contiguousRanges(model, T);
  for (int l = 0; l < m; ++l)
    if (l < static_cast<int>(preferred.size()) && preferred[l] >= 0 && preferred[l] < T) owner[l] = preferred[l];
  rows_.assign(T, {});
  for (int l = 0; l < m; ++l) rows_[owner[l]].push_back(l);
  flexible_ = model.hasFlexibleBodies();
  serialTail_ = !model.steeringRacks.empty() || model.hasTyres() || flexible_;
  modalSlot_.assign(m, 0);
  for (const ModelFlexibleBody& f : model.flexibleBodies)
    for (int k = 0; k < f.modalSlots; ++k) modalSlot_[f.firstModalSlot + k] = 1;
  unitMaps_.assign(m, 0);
  tyres_.assign(T, {});
  for (int k = 0, n = 0; k < static_cast<int>(model.wheels.size()); ++k) {
    const ModelWheel& w = model.wheels[k];
    if (w.tyreSlot >= 0) unitMaps_[w.tyreSlot] = 1;
    if (w.tyre) tyres_[n++ % T].push_back(k);  // the contacts (the Magic Formula) dealt out in turn
  }

  markers_.assign(T, {});
  for (std::size_t k = 0; k < model.markers.size(); ++k) {
    if (model.markers[k].flexible >= 0) continue;  // calcFlexibleKinematics() on the calling thread
    const ModelBody& b = model.bodies[model.markers[k].body.value];
    if (b.state >= 0) markers_[owner[b.state]].push_back(static_cast<int>(k));
    else if (b.driven()) markers_[0].push_back(static_cast<int>(k));
  }

  // Elements: one whose moving sides all belong to thread t (driven bodies to thread 0) is
  // computed by t right after t's kinematics, where its inputs were just written; the others
  // ("cross" elements) are balanced over the threads in a region of their own.
  auto sideThread = [&](MarkerIndex mi) {
    const ModelBody& b = model.bodies[model.markers[mi.value].body.value];
    return b.state >= 0 ? owner[b.state] : (b.driven() ? 0 : -1);
  };
  local_.assign(T, {});
  cross_.assign(T, {});
  std::vector<double> crossLoad(T, 0.0);
  // An element with a side on a flexible body goes through the flexible pass on the calling
  // thread (calcFlexibleElements(), addFlexibleElementForces()), as in the serial step.
  auto place = [&](ElementRef e, MarkerIndex i, MarkerIndex j) {
    if (joinsFlexibleBody(model, i, j)) return;
    const int a = sideThread(i), b = sideThread(j);
    const bool local = a < 0 || b < 0 || a == b;
    const int t = local ? std::max(0, std::max(a, b))
                        : static_cast<int>(std::min_element(crossLoad.begin(), crossLoad.end()) - crossLoad.begin());
    ElementLists& lists = local ? local_[t] : cross_[t];
    (e.kind == ElementRef::Bushing ? lists.bushings : lists.p2ps).push_back(e.index);
    if (!local) crossLoad[t] += e.kind == ElementRef::Bushing ? 3.0 : 1.0;  // a bushing costs about three P2Ps
  };
  for (std::size_t e = 0; e < model.bushings.size(); ++e)
    place({ElementRef::Bushing, static_cast<int>(e)}, model.bushings[e].i, model.bushings[e].j);
  for (std::size_t e = 0; e < model.p2ps.size(); ++e)
    place({ElementRef::P2P, static_cast<int>(e)}, model.p2ps[e].i, model.p2ps[e].j);
  for (int t = 0; t < T; ++t) {
    hasCross_ = hasCross_ || !cross_[t].bushings.empty() || !cross_[t].p2ps.empty();
    for (ElementLists* lists : {&local_[t], &cross_[t]}) {
      lists->bushings = batchOrder(model, lists->bushings, true);
      lists->p2ps = batchOrder(model, lists->p2ps, false);
    }
  }

  // Element row blocks by the thread of their rows, in the serial order (calcSurfaceForces():
  // the kernels' order, batchOrder() and forEachRowBlock()).
  scatter_.assign(T, {});
  auto addScatter = [&](ElementRef e, MarkerIndex i, MarkerIndex j, RowBlock block) {
    const int a = model.bodies[model.markers[i.value].body.value].state;
    const int b = model.bodies[model.markers[j.value].body.value].state;
    const int l = block == kBlockAA || block == kBlockAB ? a : b;  // the row
    const bool both = block == kBlockAA || block == kBlockBB || (a >= 0 && b >= 0);  // ab, ba: free columns only
    if (l >= 0 && both) scatter_[owner[l]].push_back({e, block});
  };
  std::vector<int> bushings, p2ps;
  for (int e = 0; e < static_cast<int>(model.bushings.size()); ++e)
    if (!joinsFlexibleBody(model, model.bushings[e].i, model.bushings[e].j)) bushings.push_back(e);
  for (int e = 0; e < static_cast<int>(model.p2ps.size()); ++e)
    if (!joinsFlexibleBody(model, model.p2ps[e].i, model.p2ps[e].j)) p2ps.push_back(e);
  forEachRowBlock(batchOrder(model, bushings, true), [&](int e, RowBlock b) {
    addScatter({ElementRef::Bushing, e}, model.bushings[e].i, model.bushings[e].j, b);
  });
  forEachRowBlock(batchOrder(model, p2ps, false), [&](int e, RowBlock b) {
    addScatter({ElementRef::P2P, e}, model.p2ps[e].i, model.p2ps[e].j, b);
  });
}

namespace {
void calcElements(const SuspensionModel& model, Workspace& ws, const std::vector<int>& bushings,
                  const std::vector<int>& p2ps, const ElementPass& pass) {
  calcBushingList(model, ws, bushings, pass);
  calcP2PList(model, ws, p2ps, pass);
}
}  // namespace

void ParallelLinearizer::linearize(const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
                                   const LinearizeOptions& options, RowWork* work) {
  const ElementPass pass{true, RowBlocks::InElements, options.branchStageGain};
  ws.u = u;
  ws.uDot = uDot;
  setElementStates(model_, state, ws);
  auto local = [&](int t) {
    if (t == 0) calcDrivenBodyKinematics(model_, ws);
    calcFreeBodyKinematics(model_, state, rows_[t].data(), static_cast<int>(rows_[t].size()), ws);
    for (int l : rows_[t])
      if (unitMaps_[l]) setUnitMaps(ws.bodies[model_.freeBodies[l]]);
    if (work)
      for (int l : rows_[t])
        if (!modalSlot_[l]) work->body(l);  // a modal slot's maps come with the flexible kinematics
    calcMarkerList(model_, ws, markers_[t].data(), static_cast<int>(markers_[t].size()));
    calcElements(model_, ws, local_[t].bushings, local_[t].p2ps, pass);
  };
  pool_.run(local);
  // What needs every body's kinematics: the elements across threads, the tyres' contacts.
  if (hasCross_ || model_.hasTyres()) {
    auto cross = [&](int t) {
      calcElements(model_, ws, cross_[t].bushings, cross_[t].p2ps, pass);
      for (int k : tyres_[t]) calcTyreContact(model_, ws, k, true);
    };
    pool_.run(cross);
  }
  if (flexible_) {
    calcFlexibleKinematics(model_, state, ws);
    if (work)
      for (int l = 0; l < model_.nFreeBodies(); ++l)
        if (modalSlot_[l]) work->body(l);
  }
  if (!model_.steeringRacks.empty()) calcSteeringRacks(model_, ws, true);
  if (flexible_) calcFlexibleElements(model_, ws, options.branchStageGain);
  // Wheel loads (K&C analyses only) are added to all rows after the body forces: then the rows
  // wait for them; in runs they are zero and each row is finished by its thread in one go.
  const bool wheelLoads = options.wheelLoads && !options.wheelLoads->isZero(0.0);
  auto assembleRow = [&](int l) {
    assembleLinearizationRow(model_, l, ws, options.jacobians);
    if (work) work->row(l);
  };
  auto finishRows = [&](int t) {
    for (int l : rows_[t]) addBodyForcesRow(model_, l, ws, true), assembleRow(l);
  };
  auto assemble = [&](int t) {
    for (int l : rows_[t]) assembleRow(l);
  };
  auto rows = [&](int t) {
    for (int l : rows_[t]) clearSurfaceForceRow(model_, l, ws);
    for (const ScatterItem& it : scatter_[t]) scatterElementBlock(model_, it.element, it.block, ws);
    if (wheelLoads || serialTail_) return;
    finishRows(t);
  };
  pool_.run(rows);
  if (serialTail_) {
    scatterSteeringRacks(model_, ws, true);
    if (flexible_) addFlexibleElementForces(model_, ws, true);
    if (model_.hasTyres()) addTyreForces(model_, ws, true);
    if (!wheelLoads && !flexible_) pool_.run(finishRows);
  }
  if (!wheelLoads && !flexible_) return;
  // The flexible bodies' rows need every row's body forces first (flexibleBodyRows()).
  if (wheelLoads) {
    calcBodyForces(model_, ws, options.wheelLoads);
  } else {
    auto bodyForces = [&](int t) {
      for (int l : rows_[t]) addBodyForcesRow(model_, l, ws, true);
    };
    pool_.run(bodyForces);
  }
  if (flexible_) flexibleBodyRows(model_, ws, true);
  pool_.run(assemble);
}

}  // namespace ek
