// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file joint_presets.h
/// Bushing rows that stand in for ideal joints, and a typical rubber bushing, with stiffness
/// from the project's own scale (docs/project-format.md, "Joint presets"). Elastokin has no ideal
/// joints: every body is free and joints are stiff bushings, so a preset says which directions
/// are stiff and which are free in the frame of marker J.

#include <array>
#include <string>

#include "engine/model/project.h"

namespace ek {

enum class JointPreset { Rubber, Spherical, Revolute, Cylindrical, Universal, Fixed };

inline constexpr std::array<JointPreset, 6> kJointPresets{JointPreset::Rubber,      JointPreset::Spherical,
                                                          JointPreset::Revolute,    JointPreset::Cylindrical,
                                                          JointPreset::Universal,   JointPreset::Fixed};

/// "rubber bushing", "spherical joint", "revolute joint (about x)", ...
const char* jointPresetName(JointPreset preset);

/// The stiffness of a stiff translational direction for this project: the stiffest translational
/// coefficient of its bushings, at least 1.5e7 N/m (a ball joint's order). A stiff rotational
/// direction gets this times (50 mm)^2.
double stiffJointStiffness(const Project& project);

/// Sets the six directions of `row` (stiffness, damping, preload zero) for the preset; the
/// markers, id and name are left as they are. Free rotations keep a joint's friction-like
/// 8 N m/rad, free translations nothing; damping 1e-3 s x stiffness (translations) and
/// 2e-4 s x stiffness (rotations), as the shipped bushings.
void applyJointPreset(BushingRow& row, JointPreset preset, const Project& project);

}  // namespace ek
