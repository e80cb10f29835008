// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/fe_import.h"

#include <algorithm>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace ek {

std::string calculixJob(const std::string& deck) {
  const std::size_t n = deck.size();
  if (n > 4 && asciiLower(deck.substr(n - 4)) == ".inp") return deck.substr(0, n - 4);
  return deck;
}

FeImport importCalculixBody(const Project& project, int bodyId, const std::string& deck, const FeImportOptions& options) {
  Diagnostics d;
  const Location option("--onto");
  const auto body = std::find_if(project.bodies.begin(), project.bodies.end(), [&](const BodyRow& b) { return b.id == bodyId; });
  if (body == project.bodies.end()) d.error(option, "body " + std::to_string(bodyId) + " does not exist");
  else if (body->fixed) d.error(option, "body " + std::to_string(bodyId) + " is fixed; only a free body can be flexible");
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

  FeImport out;
  out.project = project;
  out.nodes = static_cast<int>(model.nodes.size());
  out.dofs = static_cast<int>(matrices.dofs.size());
  out.mass = modal.mass;
  out.frequencies = modal.frequencies;
  ReducedBodyRow reduced;
  reduced.source = std::filesystem::path(deck).filename().string() + ", units " + significant(options.units.length, 6) +
                   " m, " + significant(options.units.mass, 6) + " kg, " +
                   (options.reduction.modes >= 0 ? std::to_string(options.reduction.modes) + " fixed-interface modes"
                                                 : "fixed-interface modes up to " +
                                                       significant(options.reduction.maxFrequency, 6) + " Hz");
  reduced.interfaceMarkers = markerIds;
  reduced.modal = std::move(modal);
  auto& rows = out.project.flexibleBodies;
  auto row = std::find_if(rows.begin(), rows.end(), [&](const FlexibleBodyRow& f) { return f.body == bodyId; });
  out.replaced = row != rows.end();
  if (!out.replaced) {
    FlexibleBodyRow f;
    for (const auto& r : rows) f.id = std::max(f.id, r.id);
    f.id += 1;
    f.body = bodyId;
    f.name = body->name;
    rows.push_back(f);
    row = rows.end() - 1;
  }
  // The body's mass properties now come from the model.
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
  f.dampingRatio = options.dampingRatio;
  f.reduced = std::move(reduced);
  out.flexibleRow = f.id;
  return out;
}

}  // namespace ek
