// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file wheels.h
/// Wheel alignment channels (ISO 8855, docs/analyses.md) and the loads of the K&C analyses at a
/// wheel's contact point, with their analytic partials.
///
/// Conventions: vehicle axes x forward, y left, z up (the global frame; the road is the plane
/// z = const under the wheel). The spin axis a points outboard on both sides.
/// - toe: angle of the wheel's heading line about z, positive toe-in (front of the wheel
///   towards the vehicle centre) on both sides: toe = atan2(a_x, side a_y);
/// - camber: angle between the wheel plane and the vertical, positive when the top of the
///   wheel leans outboard: camber = -asin(a_z);
/// - spin: rotation of the wheel relative to its carrier about the spin axis since the design
///   pose, (-pi, pi];
/// - centre: the centre marker; contact: centre - radius e, e the unit vector of the wheel plane
///   closest to the road normal (the lowest point of the unloaded tyre);
/// - with a steering axis s (lower to upper marker): caster = atan2(-s_x, s_z) (top rearward
///   positive), kingpin inclination = atan2(-side s_y, s_z) (top inboard positive), and with G
///   the axis' intersection with the road plane through the contact point, scrub radius =
///   (contact - G) . l (l: the outboard horizontal direction of the axle, positive when the
///   contact point is outboard of G) and trail = (G - contact) . f (f: the wheel's forward
///   horizontal direction, positive when G is ahead of the contact point).

#include <array>
#include <string>

#include "engine/dynamics/workspace.h"

namespace ek {

/// The alignment channels, in the order of kWheelComponents.
enum WheelChannel {
  kToe, kCamber, kSpin, kCentreX, kCentreY, kCentreZ, kContactX, kContactY, kContactZ,
  kCaster, kKingpin, kScrub, kTrail, kWheelChannels
};
static_assert(kWheelChannels == static_cast<int>(kWheelComponents.size()));

/// True for channels that need the wheel's steering axis.
inline bool needsSteeringAxis(int channel) { return channel >= kCaster; }

/// Unit of a channel: "rad" for angles, "m" for lengths.
const char* wheelChannelUnit(int channel);

/// All channels of one wheel from marker kinematics (stages 1-2). Steering channels are NaN when
/// the wheel has no steering axis.
std::array<double, kWheelChannels> wheelChannels(const ModelWheel& wheel, const Workspace& ws);

/// The same with the steering axis given as a line (a point on it and its direction), e.g. the
/// carrier's instantaneous screw axis; a NaN direction gives NaN steering channels.
std::array<double, kWheelChannels> wheelChannels(const ModelWheel& wheel, const Workspace& ws, const Vec3& axisPoint,
                                                 const Vec3& axisDirection);

/// Gradient of one channel with respect to r (all free bodies' positions and Cardan angles),
/// analytic (forward-mode automatic differentiation of the channel's formula, chained through
/// the marker kinematics). @pre stages 1-2 ran. `g` is resized to nDof.
void wheelChannelGradient(const SuspensionModel& model, const Workspace& ws, int wheel, int channel, VecX& g);

/// Loads of the K&C analyses, per wheel, in the vehicle axes (global directions). Forces at the
/// contact point and torques act on the wheel with the brake locked: the part of their moment
/// about the spin axis is carried by the carrier. The traction force acts at the wheel centre.
enum WheelLoad {
  kFxContact, kFyContact, kFzContact, kMxContact, kMyContact, kMzContact, kFxCentre, kWheelLoads
};
inline constexpr std::array<const char*, kWheelLoads> kWheelLoadNames{
    "Fx at contact", "Fy at contact", "Fz at contact", "Mx", "My", "Mz", "Fx at centre"};
/// The loads' keys as the runner (--load) and the Python module take them.
inline constexpr std::array<const char*, kWheelLoads> kWheelLoadKeys{
    "fx-contact", "fy-contact", "fz-contact", "mx", "my", "mz", "fx-centre"};
/// The WheelLoad of a key, -1 for an unknown one.
inline int wheelLoadByKey(const std::string& key) {
  for (int k = 0; k < kWheelLoads; ++k)
    if (key == kWheelLoadKeys[k]) return k;
  return -1;
}

/// Adds the loads of a K&C rig on the wheels (kWheelLoads per wheel) to the world wrenches and
/// their position partials (Jw_r). @pre calcSurfaceForces() ran. Does nothing when they are zero.
void addWheelLoads(const SuspensionModel& model, const VecX& wheelLoads, Workspace& ws);

/// Column of dh/d(load) for one load of one wheel (generalized forces: force global, torque in
/// body axes), size nDof. @pre stages 1-2 ran.
void wheelLoadColumn(const SuspensionModel& model, const Workspace& ws, int wheel, int load, VecX& column);

}  // namespace ek
