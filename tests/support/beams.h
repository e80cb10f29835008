// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Materials, sections and meshes the flexible-body tests share.

#include <cmath>

#include "engine/fe/beam.h"

namespace ek::test {

inline fe::BeamMaterial steel() { return {210e9, 80.77e9, 7850.0}; }

/// A round tube of outer diameter d and wall t (shear factor 0.53 of a thin tube).
inline fe::BeamSection tube(double d, double t) {
  fe::BeamSection s;
  const double di = d - 2 * t;
  s.area = M_PI * (d * d - di * di) / 4;
  s.iy = s.iz = M_PI * (std::pow(d, 4) - std::pow(di, 4)) / 64;
  s.torsion = 2 * s.iy;
  s.shearY = s.shearZ = 0.53;
  return s;
}

/// An anti-roll-bar-like shape: a cross bar along y and two arms along -x with raised ends,
/// `perSegment` elements each (nodes 0, perSegment, 2 perSegment, 3 perSegment at the corners),
/// so that no mode is symmetric to the frame and every inertia invariant is non-zero.
inline fe::BeamMesh bentBar(int perSegment, const fe::BeamMaterial& material, const fe::BeamSection& section) {
  fe::BeamMesh mesh;
  const Vec3 corners[4] = {{-0.25, -0.5, 0.05}, {0, -0.45, 0}, {0, 0.45, 0}, {-0.25, 0.5, 0.05}};
  mesh.nodes.push_back(corners[0]);
  for (int s = 0; s < 3; ++s)
    for (int i = 1; i <= perSegment; ++i)
      mesh.nodes.push_back(corners[s] + (corners[s + 1] - corners[s]) * double(i) / perSegment);
  for (int e = 0; e + 1 < static_cast<int>(mesh.nodes.size()); ++e)
    mesh.elements.push_back({e, e + 1, Vec3::UnitZ(), section, material});
  return mesh;
}

}  // namespace ek::test
