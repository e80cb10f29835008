// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/joint_presets.h"

#include <algorithm>

namespace ek {
namespace {

constexpr double kBallJoint = 1.5e7;       // [N/m]: the order of a ball joint's stiffness
constexpr double kLever = 0.05;            // [m]: stiff rotation = stiff translation x lever^2
constexpr double kFreeRotation = 8.0;      // [N m/rad]: friction-like, as the shipped ball joints
constexpr double kTranslationalLoss = 1e-3;  // [s]: damping / stiffness
constexpr double kRotationalLoss = 2e-4;     // [s]

}  // namespace

const char* jointPresetName(JointPreset preset) {
  switch (preset) {
    case JointPreset::Rubber: return "rubber bushing";
    case JointPreset::Spherical: return "spherical joint";
    case JointPreset::Revolute: return "revolute joint (about x)";
    case JointPreset::Cylindrical: return "cylindrical joint (along and about x)";
    case JointPreset::Universal: return "universal joint (twist about x held)";
    case JointPreset::Fixed: return "fixed joint";
  }
  return "";
}

double stiffJointStiffness(const Project& project) {
  double k = kBallJoint;
  for (const auto& b : project.bushings)
    for (int d = 0; d < 3; ++d)
      if (!b.directions[d].stiffness.curve) k = std::max(k, b.directions[d].stiffness.coefficient);
  return k;
}

void applyJointPreset(BushingRow& row, JointPreset preset, const Project& project) {
  const double kt = stiffJointStiffness(project), kr = kt * kLever * kLever;
  // Stiffness per direction x, y, z, rx, ry, rz; a negative entry means free.
  std::array<double, 6> k{};
  switch (preset) {
    case JointPreset::Rubber:  // a control-arm bushing along x: radial, axial, torsion, conical
      k = {1.0e6, 2.5e6, 2.5e6, 120.0, 2500.0, 2500.0};
      break;
    case JointPreset::Spherical: k = {kt, kt, kt, -1, -1, -1}; break;
    case JointPreset::Revolute: k = {kt, kt, kt, -1, kr, kr}; break;
    case JointPreset::Cylindrical: k = {-1, kt, kt, -1, kr, kr}; break;
    case JointPreset::Universal: k = {kt, kt, kt, kr, -1, -1}; break;
    case JointPreset::Fixed: k = {kt, kt, kt, kr, kr, kr}; break;
  }
  for (int d = 0; d < 6; ++d) {
    const bool rotational = d >= 3;
    const double stiffness = k[d] >= 0 ? k[d] : rotational ? kFreeRotation : 0.0;
    BushingDirectionRow& dir = row.directions[d];
    dir = BushingDirectionRow{};
    dir.stiffness.coefficient = stiffness;
    dir.damping.coefficient = stiffness * (rotational ? kRotationalLoss : kTranslationalLoss);
  }
}

}  // namespace ek
