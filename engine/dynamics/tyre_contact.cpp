// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/tyre_contact.h"

#include <cmath>
#include <unsupported/Eigen/AutoDiff>

namespace ek {

// Named, not anonymous: the engine is built in unity batches (magic_formula.cpp has its own Ad).
namespace tyre_contact_detail {

using Ad = Eigen::AutoDiffScalar<Eigen::Matrix<double, kTyreVariables, 1>>;
template <class T>
using V3 = Eigen::Matrix<T, 3, 1>;

constexpr double kAirborneDecay = 100.0;  ///< [1/s] the deflections' decay while the tyre is off the road
constexpr double kStiffnessGuard = 1.0;   ///< [N] added to |Kxk|, |Kya| where the low-speed damping divides

double valueOf(double x) { return x; }
double valueOf(const Ad& x) { return x.value(); }
double atanOf(double x) { return std::atan(x); }
Ad atanOf(const Ad& x) { return Ad(std::atan(x.value()), x.derivatives() / (1.0 + x.value() * x.value())); }  // no atan2: it allocates

template <class T>
V3<T> cross(const V3<T>& a, const V3<T>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
template <class T>
T dot(const V3<T>& a, const V3<T>& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
template <class T>
T absOf(const T& x) {
  return valueOf(x) < 0.0 ? T(-x) : x;
}

constexpr double kUnloading = 0.01;  ///< the ramp of loading() in deflection over R0 per unit rim slip

/// 1 while the deflection d (u or -v_y) has the sign the rim's slip s drives it to (or is 0), 0
/// once it has the other sign by more than kUnloading R0 |s|, the C1 smoothstep between.
template <class T>
T loading(const T& d, const T& s, double r0) {
  if (valueOf(s) == 0.0) return T(0.0);
  const T t = 1.0 + d / (kUnloading * r0 * s);
  if (valueOf(t) >= 1.0) return T(1.0);
  if (valueOf(t) <= 0.0) return T(0.0);
  return T(t * t * (3.0 - 2.0 * t));
}

/// The deflection-load curve, linear between its points and beyond the last, zero below the first.
template <class T>
T curveLoad(const std::vector<std::pair<double, double>>& curve, const T& rho) {
  const double r = valueOf(rho);
  if (r <= curve.front().first) return T(curve.front().second);
  std::size_t k = 1;
  while (k + 1 < curve.size() && curve[k].first < r) ++k;
  const auto& [r0, f0] = curve[k - 1];
  const auto& [r1, f1] = curve[k];
  return T(f0 + (f1 - f0) / (r1 - r0) * (rho - r0));
}

/// The Magic Formula on the scalar type: its partials chained into the variables' for Ad.
std::array<double, kMfOutputs> formula(const TyreProperty& tyre, double kappa, double alpha, double gamma, double fz,
                                       double vx, bool mirrored) {
  return magicFormula(tyre, {kappa, alpha, gamma, fz, vx}, mirrored);
}
std::array<Ad, kMfOutputs> formula(const TyreProperty& tyre, const Ad& kappa, const Ad& alpha, const Ad& gamma,
                                   const Ad& fz, const Ad& vx, bool mirrored) {
  MfPartials d{};
  const MfForces f = magicFormula(tyre, {kappa.value(), alpha.value(), gamma.value(), fz.value(), vx.value()}, mirrored, d);
  const Ad* in[kMfInputs] = {&kappa, &alpha, &gamma, &fz, &vx};
  std::array<Ad, kMfOutputs> out;
  for (int o = 0; o < kMfOutputs; ++o) {
    Ad::DerType g = Ad::DerType::Zero();
    for (int i = 0; i < kMfInputs; ++i)
      if (d[o][i] != 0.0) g += d[o][i] * in[i]->derivatives();
    out[o] = Ad(f[o], g);
  }
  return out;
}

/// sigma_kappa, sigma_alpha (the secant ones at the rim's slip), Kxk, Kya.
std::array<double, 4> transient(const TyreProperty& tyre, double fz, double gamma, double kappaRim, double tanAlphaRim,
                                bool mirrored) {
  const MfTransient t = transientProperties(tyre, fz, gamma, {kappaRim, tanAlphaRim, mirrored});
  return {t.sigmaKappa, t.sigmaAlpha, t.kxk, t.kya};
}
std::array<Ad, 4> transient(const TyreProperty& tyre, const Ad& fz, const Ad& gamma, const Ad& kappaRim,
                            const Ad& tanAlphaRim, bool mirrored) {
  const MfTransient t =
      transientProperties(tyre, fz.value(), gamma.value(), {kappaRim.value(), tanAlphaRim.value(), mirrored}, true);
  const double v[4] = {t.sigmaKappa, t.sigmaAlpha, t.kxk, t.kya};
  const Ad* in[4] = {&fz, &gamma, &kappaRim, &tanAlphaRim};
  std::array<Ad, 4> out;
  for (int o = 0; o < 4; ++o) {
    Ad::DerType g = Ad::DerType::Zero();
    for (int i = 0; i < 4; ++i)
      if (t.partials[o][i] != 0.0) g += t.partials[o][i] * in[i]->derivatives();
    out[o] = Ad(v[o], g);
  }
  return out;
}

template <class T>
void evaluate(const TyreProperty& tyre, const TyreRoad& road, const TyreContactOptions& options,
              const std::array<T, kTyreVariables>& x, std::array<T, kTyreResults>& result, TyreContact& info) {
  using std::asin, std::cos, std::sqrt;
  const V3<T> c(x[0], x[1], x[2]), y(x[3], x[4], x[5]), v(x[6], x[7], x[8]), w(x[9], x[10], x[11]);
  const T& spin = x[kTyreSpin];
  const T& u = x[kTyreDeflectionX];
  const T& vy = x[kTyreDeflectionY];
  const V3<T> n(T(0.0), T(0.0), T(1.0));
  const double r0 = tyre.unloadedRadius, fz0 = tyre.nominalLoad, cz = tyre.verticalStiffness;
  const double v0 = tyre.longvl > 0.0 ? tyre.longvl : 16.7;

  // Contact geometry.
  V3<T> xw = cross(y, n);
  xw /= T(sqrt(dot(xw, xw)));
  const V3<T> yw = cross(n, xw);
  const V3<T> zp = cross(xw, y);
  const T s = (c[2] - road.height) / zp[2];
  const V3<T> arm = -s * zp;  // P - c
  const V3<T> p = c + arm;
  const T rho = r0 - s;
  const T sinGamma = dot(y, n);
  const T gamma = T(asin(sinGamma));

  // Vertical load.
  const V3<T> vp = v + cross(w, arm);
  const bool contact = valueOf(rho) > 0.0;
  T fz(0.0);
  if (contact) {
    const T rolling = 1.0 + tyre.qV2 * absOf(spin) * r0 / v0;
    const T spring = tyre.deflectionLoad.empty() ? T(cz * rho + tyre.qFz2 * fz0 * (rho / r0) * (rho / r0))
                                                 : curveLoad(tyre.deflectionLoad, rho);
    fz = rolling * spring - tyre.verticalDamping * dot(vp, n);
    if (valueOf(fz) < 0.0) fz = T(0.0);
  }

  // Slip.
  const T vx = dot(vp, xw), vyc = dot(vp, yw);
  const T rOmega = r0 * (tyre.qRe0 + tyre.qV1 * (r0 * spin / v0) * (r0 * spin / v0));
  const T rhoD = rho * cz / fz0;
  const T re = rOmega - (fz0 / cz) * (tyre.dReff * atanOf(T(tyre.bReff * rhoD)) + tyre.fReff * rhoD);
  const T vsx = vx - re * spin, vsy = vyc;
  const double rimFloor = 0.1 * tyre.vxlow;
  const T rimSpeed = T(sqrt(T(vx * vx + rimFloor * rimFloor)));
  // The secant lengths hold while the rim's slip drives the deflection its own way; once the
  // deflection has the other sign (a stopped carriage rocking back on its locked wheel's carcass)
  // the patch sticks and the file's length holds.
  const T kappaRim = -vsx / rimSpeed, alphaRim = vsy / rimSpeed;
  const std::array<T, 4> tr = transient(tyre, fz, gamma, T(kappaRim * loading(u, kappaRim, r0)),
                                        T(alphaRim * loading(T(-vy), alphaRim, r0)), options.mirrored);
  const T &sigmaKappa = tr[0], &sigmaAlpha = tr[1], &kxk = tr[2], &kya = tr[3];
  const double speed = std::abs(valueOf(vx));
  const T kLow = speed < tyre.vxlow ? T(0.5 * options.lowSpeedDamping * (1.0 + cos(T(M_PI * vx / tyre.vxlow))))
                                    : T(0.0);
  const T kappa = u / sigmaKappa - kLow * vsx / (kxk + kStiffnessGuard);
  const double kyaGuard = valueOf(kya) < 0.0 ? -kStiffnessGuard : kStiffnessGuard;
  // The formula takes tan(alpha) = V_sy / V_x and uses tan(alpha) sgn(V_x): the slip of the
  // deflection is the latter.
  const double forwards = valueOf(vx) < 0.0 ? -1.0 : 1.0;
  const T alpha = T(atanOf(T(forwards * (-vy / sigmaAlpha - kLow * vsy / (kya + kyaGuard)))));
  const T absVx = absOf(vx);
  if (contact) {
    result[kTyreDeflectionRateX] = -vsx - absVx * u / sigmaKappa;
    result[kTyreDeflectionRateY] = -vsy - absVx * vy / sigmaAlpha;
  } else {
    result[kTyreDeflectionRateX] = -kAirborneDecay * u;
    result[kTyreDeflectionRateY] = -kAirborneDecay * vy;
  }

  // Forces and moments, the wrench on the hub and the spin torque.
  const auto f = formula(tyre, kappa, alpha, gamma, fz, vx, options.mirrored);
  const V3<T> force = f[kMfFx] * xw + f[kMfFy] * yw + fz * n;
  const V3<T> moment = f[kMfMx] * xw + f[kMfMy] * yw + f[kMfMz] * n;
  const V3<T> mc = cross(arm, force) + moment;
  const T tauY = dot(mc, y);
  const V3<T> hub = mc - tauY * y;
  for (int k = 0; k < 3; ++k) {
    result[kTyreForce + k] = force[k];
    result[kTyreTorque + k] = hub[k];
  }
  result[kTyreSpinTorque] = tauY;

  info.point = Vec3(valueOf(p[0]), valueOf(p[1]), valueOf(p[2]));
  info.fz = valueOf(fz);
  info.kappa = valueOf(kappa);
  info.alpha = valueOf(alpha);
  info.gamma = valueOf(gamma);
  info.vx = valueOf(vx);
  info.effectiveRadius = valueOf(re);
  info.sigmaKappa = valueOf(sigmaKappa);
  info.sigmaAlpha = valueOf(sigmaAlpha);
  info.spin = valueOf(spin);
  for (int o = 0; o < kMfOutputs; ++o) info.forces[o] = valueOf(f[o]);
}

}  // namespace tyre_contact_detail

void tyreContact(const TyreProperty& tyre, const TyreRoad& road, const TyreContactOptions& options,
                 const TyreContactState& state, bool partials, TyreContact& out) {
  const double in[kTyreVariables] = {state.centre[0],
                                     state.centre[1],
                                     state.centre[2],
                                     state.axis[0],
                                     state.axis[1],
                                     state.axis[2],
                                     state.velocity[0],
                                     state.velocity[1],
                                     state.velocity[2],
                                     state.angularVelocity[0],
                                     state.angularVelocity[1],
                                     state.angularVelocity[2],
                                     state.spin,
                                     state.deflectionX,
                                     state.deflectionY};
  if (!partials) {
    std::array<double, kTyreVariables> x;
    std::copy(in, in + kTyreVariables, x.begin());
    tyre_contact_detail::evaluate<double>(tyre, road, options, x, out.result, out);
    return;
  }
  // The values too come from the automatic differentiation: its value parts are the scalar
  // pass's operations in the same order, and this file and magic_formula.cpp are compiled without
  // floating-point contraction (engine/CMakeLists.txt), so they equal the values-only pass bit for
  // bit (tst_tyre_contact partialsPassValuesEqualTheValuesOnlyPass) without a second pass.
  std::array<tyre_contact_detail::Ad, kTyreVariables> x;
  for (int i = 0; i < kTyreVariables; ++i) x[i] = tyre_contact_detail::Ad(in[i], kTyreVariables, i);
  std::array<tyre_contact_detail::Ad, kTyreResults> r;
  tyre_contact_detail::evaluate<tyre_contact_detail::Ad>(tyre, road, options, x, r, out);
  for (int o = 0; o < kTyreResults; ++o) {
    if (r[o].derivatives().size()) out.partials.row(o) = r[o].derivatives().transpose();
    else out.partials.row(o).setZero();
    out.result[o] = r[o].value();
  }
}

}  // namespace ek
