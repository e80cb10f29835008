// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file types.h
/// Fixed-size Eigen aliases, strong index types and small vector helpers used by every stage.

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <compare>
#include <cstdint>

namespace ek {

using Vec3 = Eigen::Vector3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;
using Mat3X = Eigen::Matrix<double, 3, Eigen::Dynamic>;
using Mat6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;

/// A typed index into one table of the compiled model, so a marker index cannot index bodies.
template <class Tag>
struct Index {
  std::int32_t value = -1;
  constexpr Index() = default;
  constexpr explicit Index(std::int32_t v) : value(v) {}
  constexpr bool valid() const { return value >= 0; }
  constexpr auto operator<=>(const Index&) const = default;
};
using BodyIndex = Index<struct BodyTag>;
using MarkerIndex = Index<struct MarkerTag>;

/// Cross-product matrix: skew(a) * b == a.cross(b).
inline Mat3 skew(const Vec3& a) {
  Mat3 s;
  s << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return s;
}

/// M [a]x without forming [a]x: row i is m_i x a.
inline Mat3 timesSkew(const Mat3& M, const Vec3& a) {
  Mat3 out;
  for (int i = 0; i < 3; ++i) {
    out(i, 0) = M(i, 1) * a.z() - M(i, 2) * a.y();
    out(i, 1) = M(i, 2) * a.x() - M(i, 0) * a.z();
    out(i, 2) = M(i, 0) * a.y() - M(i, 1) * a.x();
  }
  return out;
}

/// [a]x [b]x = b a^T - (a . b) I.
inline Mat3 skewSkew(const Vec3& a, const Vec3& b) {
  Mat3 out = b * a.transpose();
  out.diagonal().array() -= a.dot(b);
  return out;
}

}  // namespace ek
