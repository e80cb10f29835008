// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/fe_import.h"

#include <algorithm>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/model/model.h"

namespace ek {

std::string calculixJob(const std::string& deck) {
  const std::size_t n = deck.size();
  if (n > 4 && asciiLower(deck.substr(n - 4)) == ".inp") return deck.substr(0, n - 4);
  return deck;
}

namespace {

/// The free body `bodyId` of the project, or an error on the option `--onto`.
const BodyRow* freeBody(const Project& project, int bodyId, Diagnostics& d) {
  const Location option("--onto");
  const auto body = std::find_if(project.bodies.begin(), project.bodies.end(), [&](const BodyRow& b) { return b.id == bodyId; });
  if (body == project.bodies.end()) d.error(option, "body " + std::to_string(bodyId) + " does not exist");
  else if (body->fixed) d.error(option, "body " + std::to_string(bodyId) + " is fixed; only a free body can be flexible");
  return body == project.bodies.end() ? nullptr : &*body;
}

/// The project with body `bodyId` made flexible by `reduced` (its row of the table replaced or
/// added; the body row's mass, centre of mass and inertia set to zero: they come from the body).
FeImport makeReduced(const Project& project, int bodyId, ReducedBodyRow reduced, double dampingRatio,
                     std::vector<double> dampingRatios = {}) {
  FeImport out;
  out.project = project;
  out.mass = reduced.modal.mass;
  out.frequencies = reduced.modal.frequencies;
  auto& rows = out.project.flexibleBodies;
  auto row = std::find_if(rows.begin(), rows.end(), [&](const FlexibleBodyRow& f) { return f.body == bodyId; });
  out.replaced = row != rows.end();
  if (!out.replaced) {
    FlexibleBodyRow f;
    for (const auto& r : rows) f.id = std::max(f.id, r.id);
    f.id += 1;
    f.body = bodyId;
    for (const BodyRow& b : project.bodies)
      if (b.id == bodyId) f.name = b.name;
    rows.push_back(f);
    row = rows.end() - 1;
  }
  for (BodyRow& b : out.project.bodies)
    if (b.id == bodyId) {
      out.previousMass = b.mass;
      b.mass = 0.0;
      b.com = Vec3::Zero();
      std::fill(b.inertia.begin(), b.inertia.end(), 0.0);
    }
  FlexibleBodyRow& f = *row;
  const FlexibleBodyRow kept = f;
  f = FlexibleBodyRow();
  f.id = kept.id;
  f.name = kept.name;
  f.body = bodyId;
  f.maxFrequency = kept.maxFrequency;
  f.dampingRatio = dampingRatio;
  f.dampingRatios = std::move(dampingRatios);
  f.reduced = std::move(reduced);
  out.flexibleRow = f.id;
  return out;
}

}  // namespace

FeImport importCalculixBody(const Project& project, int bodyId, const std::string& deck, const FeImportOptions& options) {
  Diagnostics d;
  freeBody(project, bodyId, d);
  if (options.interfaces.empty()) d.error(Location("--interface"), "no interface given: SET=MARKER, at least one");
  std::vector<fe::RigidInterface> interfaces;
  std::vector<int> markerIds;
  for (const auto& interface : options.interfaces) {
    const std::string& set = interface.first;
    const int markerId = interface.second;
    const auto m = std::find_if(project.markers.begin(), project.markers.end(), [&](const MarkerRow& r) { return r.id == markerId; });
    if (m == project.markers.end()) {
      d.error(Location("--interface"), "marker " + std::to_string(markerId) + " does not exist");
      continue;
    }
    if (m->body != bodyId)
      d.error(Location("--interface"), "marker " + std::to_string(markerId) + " is on body " + std::to_string(m->body) +
                                           ", not on body " + std::to_string(bodyId));
    if (std::find(markerIds.begin(), markerIds.end(), markerId) != markerIds.end())
      d.error(Location("--interface"), "marker " + std::to_string(markerId) + " is named twice");
    interfaces.push_back({set, m->position / options.units.length});
    markerIds.push_back(markerId);
  }
  d.throwIfErrors();

  const fe::CalculixDeck model = fe::readCalculixDeck(deck);
  const std::string job = calculixJob(deck);
  const fe::CalculixMatrices matrices = fe::readCalculixMatrices(job);
  fe::ModalBody modal = fe::reduceCalculixModel(model, matrices, interfaces, options.units, options.reduction);
  fe::keepNodes(modal, static_cast<int>(interfaces.size()));

  ReducedBodyRow reduced;
  reduced.source = std::filesystem::path(deck).filename().string() + ", units " + significant(options.units.length, 6) +
                   " m, " + significant(options.units.mass, 6) + " kg, " +
                   (options.reduction.modes >= 0 ? std::to_string(options.reduction.modes) + " fixed-interface modes"
                                                 : "fixed-interface modes up to " +
                                                       significant(options.reduction.maxFrequency, 6) + " Hz");
  reduced.interfaceMarkers = markerIds;
  reduced.modal = std::move(modal);
  FeImport out = makeReduced(project, bodyId, std::move(reduced), options.dampingRatio);
  out.nodes = static_cast<int>(model.nodes.size());
  out.dofs = static_cast<int>(matrices.dofs.size());
  for (std::size_t i = 0; i < markerIds.size(); ++i) {
    std::size_t count = 0;  // the deck's sets are stored by their upper-case names
    for (const auto& [name, ids] : model.nodeSets)
      if (asciiLower(name) == asciiLower(interfaces[i].set)) count = ids.size();
    out.riders.emplace_back(markerIds[i], "set " + interfaces[i].set + " (" + std::to_string(count) + " nodes)");
  }
  return out;
}

FeImport importSidBody(const Project& project, int bodyId, const std::string& path, const SidImportOptions& options) {
  Diagnostics d;
  freeBody(project, bodyId, d);
  const Location option("--interface");
  for (const auto& binding : options.bindings) {
    const int marker = binding.second;
    const auto m = std::find_if(project.markers.begin(), project.markers.end(), [&](const MarkerRow& r) { return r.id == marker; });
    if (m == project.markers.end()) d.error(option, "marker " + std::to_string(marker) + " does not exist");
    else if (m->body != bodyId)
      d.error(option, "marker " + std::to_string(marker) + " is on body " + std::to_string(m->body) + ", not on body " +
                          std::to_string(bodyId));
    if (std::count_if(options.bindings.begin(), options.bindings.end(), [&](const auto& b) { return b.second == marker; }) > 1)
      d.error(option, "marker " + std::to_string(marker) + " is bound twice");
  }
  if (!(options.tolerance >= 0.0)) d.error(Location("--bind-tolerance"), "must be zero or positive");
  d.throwIfErrors();

  const fe::SidFile sid = fe::readSid(path);
  fe::SidBody read = fe::modalBodyFromSid(sid, options.units);
  const fe::ModalBody& all = read.body;
  auto nodeIndex = [&](int id) {
    const auto it = std::find(read.nodeIds.begin(), read.nodeIds.end(), id);
    return it == read.nodeIds.end() ? -1 : static_cast<int>(it - read.nodeIds.begin());
  };
  // Each marker of the body onto a node: by id, else the nearest within the tolerance.
  std::vector<int> markerIds, nodes;
  for (const MarkerRow& m : project.markers) {
    if (m.body != bodyId) continue;
    const auto bound = std::find_if(options.bindings.begin(), options.bindings.end(), [&](const auto& b) { return b.second == m.id; });
    int node = -1;
    if (bound != options.bindings.end()) {
      node = nodeIndex(bound->first);
      if (node < 0) {
        d.error(option, "node " + std::to_string(bound->first) + " is not in " + path);
        continue;
      }
    } else {
      double best = INFINITY;
      for (int i = 0; i < static_cast<int>(all.nodes.size()); ++i) {
        const double dist = (all.nodes[i] + all.centre - m.position).norm();
        if (dist < best) best = dist, node = i;
      }
      if (!(best <= options.tolerance)) {
        d.error({project.sourcePath, "markers", "id " + std::to_string(m.id), "position"},
                "marker " + std::to_string(m.id) + " of body " + std::to_string(bodyId) + " is " + significant(best * 1e3, 4) +
                    " mm from the nearest node of " + path + " (node " + std::to_string(read.nodeIds[node]) +
                    "), beyond the tolerance of " + significant(options.tolerance * 1e3, 4) +
                    " mm: bind it with --interface NODE=MARKER or widen --bind-tolerance");
        continue;
      }
    }
    markerIds.push_back(m.id);
    nodes.push_back(node);
  }
  if (markerIds.empty()) d.error(option, "body " + std::to_string(bodyId) + " has no marker to ride on the body's nodes");
  d.throwIfErrors();

  ReducedBodyRow reduced;
  reduced.interfaceMarkers = markerIds;
  fe::ModalBody& m = reduced.modal;
  m = all;
  m.nodes.clear();
  m.dofs = fe::DofMap();
  m.shapes = MatX(6 * static_cast<int>(nodes.size()), all.modes());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    m.nodes.push_back(all.nodes[nodes[i]]);
    m.shapes.middleRows(6 * static_cast<int>(i), 6) = all.shapes.middleRows(all.dofs.first[nodes[i]], 6);
    m.dofs.first.push_back(6 * static_cast<int>(i));
    m.dofs.warp.push_back(-1);
  }
  m.dofs.size = static_cast<int>(m.shapes.rows());
  double ratio = options.dampingRatio;
  std::vector<double> ratios;  // per mode, when De gives the modes different ones
  if (read.dampingRatios.size() > 0) {
    ratio = read.dampingRatios[0];
    for (int k = 1; k < read.dampingRatios.size(); ++k)
      if (std::abs(read.dampingRatios[k] - ratio) > 1e-6 * std::max(std::abs(ratio), 1e-9)) {
        ratios.assign(read.dampingRatios.begin(), read.dampingRatios.end());
        break;
      }
    if (!ratios.empty() && static_cast<int>(ratios.size()) != all.modes())
      d.error(Location(path), "De gives " + std::to_string(ratios.size()) + " damping ratios for the body's " +
                                  std::to_string(all.modes()) + " elastic modes");
    for (double z : read.dampingRatios)
      if (!(z >= 0.0 && z < 1.0))
        d.error(Location(path), "De gives a mode the damping ratio " + significant(z, 6) + ", outside [0, 1)");
  } else {
    read.notes.push_back("the file has no De: damping ratio " + significant(ratio, 4) + " for every mode");
  }
  d.throwIfErrors();
  reduced.source = std::filesystem::path(path).filename().string() + ", units " + significant(options.units.length, 6) +
                   " m, " + significant(options.units.mass, 6) + " kg";
  FeImport out = makeReduced(project, bodyId, std::move(reduced), ratio, std::move(ratios));
  out.nodes = static_cast<int>(all.nodes.size());
  out.dofs = 6 * out.nodes;
  out.notes = std::move(read.notes);
  for (std::size_t i = 0; i < markerIds.size(); ++i)
    out.riders.emplace_back(markerIds[i], "node " + std::to_string(read.nodeIds[nodes[i]]));
  return out;
}

std::string exportSidBody(const Project& project, int bodyId) {
  const auto row = std::find_if(project.flexibleBodies.begin(), project.flexibleBodies.end(),
                                [&](const FlexibleBodyRow& f) { return f.body == bodyId; });
  if (row == project.flexibleBodies.end())
    throw ModelError(Location("--export-property"), "body " + std::to_string(bodyId) + " is not flexible (no row of 'flexible bodies' names it)");
  const auto model = SuspensionModel::build(project);
  const int index = model->bodies[model->bodyById(bodyId).value].flexible;
  const ModelFlexibleBody& f = model->flexibleBodies[static_cast<std::size_t>(index)];
  std::vector<std::string> riders(f.modal.nodes.size());
  for (const ModelMarker& mk : model->markers)
    if (mk.flexible == index)
      riders[static_cast<std::size_t>(mk.node)] += (riders[static_cast<std::size_t>(mk.node)].empty() ? "" : ", ") + std::to_string(mk.id);
  fe::SidFile sid = fe::sidFromModalBody(f.modal, f.damping);
  sid.comments.push_back("SID file (Standard Input Data of a flexible body) written by Elastokin");
  sid.comments.push_back("from flexible body " + std::to_string(row->id) + " '" + printableExcerpt(row->name) + "' (body " +
                         std::to_string(bodyId) + ") of " + (project.sourcePath.empty() ? "a project" : project.sourcePath));
  sid.comments.push_back("units m, kg, s (N); reference frame: the body frame of the project (the centre of mass at mdCM/mass)");
  sid.comments.push_back("modes: free-floating (mean axes), unit modal mass; damping De = 2 zeta omega per mode");
  sid.comments.push_back("Oe(k, :) . (wx^2, wy^2, wz^2, wx wy, wy wz, wx wz) = w^T (dJ/dq_k) w / 2; Gr_k = 2 G_k, Ge_k = 2 Cr1_k");
  for (std::size_t i = 0; i < riders.size(); ++i)
    if (!riders[i].empty()) sid.comments.push_back("node " + std::to_string(i + 1) + ": markers " + riders[i]);
  return fe::writeSid(sid);
}

}  // namespace ek
