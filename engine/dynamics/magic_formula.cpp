// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/magic_formula.h"

#include <cmath>
#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>

namespace ek {

namespace {

using Ad = Eigen::AutoDiffScalar<Eigen::Matrix<double, kMfInputs, 1>>;

double value(double x) { return x; }
template <class D>
double value(const Eigen::AutoDiffScalar<D>& x) {
  return x.value();
}
double atanOf(double x) { return std::atan(x); }
/// atan with its derivative 1 / (1 + x^2), keeping the fixed-size derivative type (Eigen's atan2
/// of AutoDiffScalar returns a dynamic-size one, which allocates).
template <class D>
Eigen::AutoDiffScalar<D> atanOf(const Eigen::AutoDiffScalar<D>& x) {
  const double v = x.value();
  return Eigen::AutoDiffScalar<D>(std::atan(v), x.derivatives() / (1.0 + v * v));
}
template <class T>
double sgn(const T& x) {
  return value(x) > 0.0 ? 1.0 : (value(x) < 0.0 ? -1.0 : 0.0);
}
template <class T>
T absOf(const T& x) {
  return value(x) < 0.0 ? T(-x) : x;
}

/// A curvature factor E of the formula, limited to 1 as the formula requires.
template <class T>
T atMostOne(const T& e) {
  return value(e) > 1.0 ? T(1.0) : e;
}

constexpr double kEps = 1e-6;  ///< the formulas' epsilon against division by zero

/// The Magic Formula's sine/cosine kernels: D sin(C atan(Bx - E(Bx - atan(Bx)))).
template <class T>
T shape(const T& b, const T& c, const T& e, const T& x) {
  const T bx = b * x;
  return T(c * atanOf(T(bx - e * (bx - atanOf(bx)))));
}

/// The slip stiffnesses of the pure-slip formulas at load fz (>= 0) and inclination gammaIn:
/// Kxk (4.E15) and Kya (4.E25; PAC2002: PKY1 Fz0 sin(2 atan(Fz / (PKY2 Fz0)))).
template <class T>
struct SlipStiffness {
  T kxk, kya;
};

/// The formulas' load and pressure increments (4.E1-E2): Fz0' = LFZO Fz0, dfz = (Fz - Fz0') / Fz0',
/// dpi = (p - p0) / p0 (0 without NOMPRES).
template <class T>
struct Increments {
  double fz0;
  T dfz;
  double dpi;
};

template <class T>
Increments<T> increments(const TyreProperty& p, const T& fz) {
  const double fz0 = p[Mf::LFZO] * p.nominalLoad;
  const double dpi = p.nominalPressure > 0.0 ? (p.inflationPressure - p.nominalPressure) / p.nominalPressure : 0.0;
  return {fz0, T((fz - fz0) / fz0), dpi};
}

template <class T>
SlipStiffness<T> slipStiffness(const TyreProperty& p, const T& fz, const T& gammaIn) {
  const auto c = [&p](Mf k) { return p[k]; };
  const bool pac = p.version == MfVersion::Pac2002;
  const auto [fz0, dfz, dpi] = increments(p, fz);
  using std::exp, std::sin;
  const T kxk = fz * (c(Mf::PKX1) + c(Mf::PKX2) * dfz) * exp(c(Mf::PKX3) * dfz) *
                (1.0 + c(Mf::PPX1) * dpi + c(Mf::PPX2) * dpi * dpi) * c(Mf::LKX);
  T kya;
  if (pac) {
    const T gy = gammaIn * c(Mf::LGAY);
    kya = c(Mf::PKY1) * fz0 * sin(2.0 * atanOf(T(fz / (c(Mf::PKY2) * fz0)))) * (1.0 - c(Mf::PKY3) * absOf(gy)) *
          c(Mf::LKY);
  } else {
    const T gy = sin(gammaIn);
    kya = c(Mf::PKY1) * fz0 * (1.0 + c(Mf::PPY1) * dpi) * (1.0 - c(Mf::PKY3) * absOf(gy)) *
          sin(c(Mf::PKY4) * atanOf(T(fz / ((c(Mf::PKY2) + c(Mf::PKY5) * gy * gy) * (1.0 + c(Mf::PPY2) * dpi) * fz0)))) *
          c(Mf::LKY);
  }
  return {kxk, kya};
}

/// A pure-slip curve D sin(C atan(B x - E (B x - atan(B x)))), x the slip plus its shift.
template <class T>
struct SlipCurve {
  T b, c, d, e;
};

/// The peak D = mu Fz of a pure-slip curve (4.E12-E13, 4.E22-E23): mu = (D1 + D2 dfz)
/// (1 + P3 dpi + P4 dpi^2) (1 - D3 g^2) LMU, with the coefficients `k` = {D1, D2, D3, P3, P4, LMU};
/// and B = K / (C D) (4.E16, 4.E26) with the formulas' epsilon.
template <class T>
SlipCurve<T> peakAndStiffness(const TyreProperty& p, const std::array<Mf, 6>& k, const Increments<T>& in,
                              const T& fz, const T& g, double c, const T& stiffness) {
  const T mu = (p[k[0]] + p[k[1]] * in.dfz) * (1.0 + p[k[3]] * in.dpi + p[k[4]] * in.dpi * in.dpi) *
               (1.0 - p[k[2]] * g * g) * p[k[5]];
  const T d = mu * fz;
  return {T(stiffness / (c * d + kEps * sgn(value(d) == 0.0 ? 1.0 : value(d)))), T(c), d, T(0.0)};
}

/// The pure longitudinal curve's B, C, D, E (4.E10-E16) at load fz (>= 0) and inclination
/// gammaIn, with the slip stiffness kxk; `slipSign` the sign of the shifted slip (E's PEX4 term).
template <class T>
SlipCurve<T> longitudinalCurve(const TyreProperty& p, const T& fz, const T& gammaIn, const T& kxk, double slipSign) {
  const auto c = [&p](Mf k) { return p[k]; };
  const Increments<T> in = increments(p, fz);
  using std::sin;
  const T gx = p.version == MfVersion::Pac2002 ? T(gammaIn * c(Mf::LGAX)) : T(sin(gammaIn));
  SlipCurve<T> curve = peakAndStiffness(p, {Mf::PDX1, Mf::PDX2, Mf::PDX3, Mf::PPX3, Mf::PPX4, Mf::LMUX}, in, fz, gx,
                                        c(Mf::PCX1) * c(Mf::LCX), kxk);
  curve.e = atMostOne(
      T((c(Mf::PEX1) + c(Mf::PEX2) * in.dfz + c(Mf::PEX3) * in.dfz * in.dfz) * (1.0 - c(Mf::PEX4) * slipSign) * c(Mf::LEX)));
  return curve;
}

/// The pure lateral curve's B, C, D, E (4.E20-E26; PAC2002's E without PEY5) at load fz (>= 0)
/// and inclination gammaIn, with the cornering stiffness kya; `slipSign` the sign of the shifted
/// slip (E's PEY3, PEY4 terms).
template <class T>
SlipCurve<T> lateralCurve(const TyreProperty& p, const T& fz, const T& gammaIn, const T& kya, double slipSign) {
  const auto c = [&p](Mf k) { return p[k]; };
  const bool pac = p.version == MfVersion::Pac2002;
  const Increments<T> in = increments(p, fz);
  using std::sin;
  const T gy = pac ? T(gammaIn * c(Mf::LGAY)) : T(sin(gammaIn));
  SlipCurve<T> curve = peakAndStiffness(p, {Mf::PDY1, Mf::PDY2, Mf::PDY3, Mf::PPY3, Mf::PPY4, Mf::LMUY}, in, fz, gy,
                                        c(Mf::PCY1) * c(Mf::LCY), kya);
  const T asymmetry = (c(Mf::PEY3) + c(Mf::PEY4) * gy) * slipSign;
  curve.e = atMostOne(T(pac ? T((c(Mf::PEY1) + c(Mf::PEY2) * in.dfz) * (1.0 - asymmetry) * c(Mf::LEY))
                            : T((c(Mf::PEY1) + c(Mf::PEY2) * in.dfz) * (1.0 + c(Mf::PEY5) * gy * gy - asymmetry) *
                                c(Mf::LEY))));
  return curve;
}

template <class T>
struct Evaluation {
  T fx, fy, mz, mx, my;
};

template <class T>
Evaluation<T> evaluate(const TyreProperty& p, const T& kappa, const T& alphaIn, const T& gammaIn, const T& fzIn,
                       const T& vx) {
  const auto c = [&p](Mf k) { return p[k]; };
  const bool pac = p.version == MfVersion::Pac2002;
  const T fz = value(fzIn) > 0.0 ? fzIn : T(0.0);
  const double r0 = p.unloadedRadius;
  const Increments<T> in = increments(p, fz);
  const double fz0 = in.fz0;  // Fz0'
  const T& dfz = in.dfz;
  const double dpi = in.dpi;
  const double sv = sgn(vx) == 0.0 ? 1.0 : sgn(vx);
  using std::cos, std::exp, std::pow, std::sin, std::sqrt, std::tan;
  const T& alpha = alphaIn;
  const T alphaStar = T(tan(alpha) * sv);
  const T gammaStar = pac ? gammaIn : T(sin(gammaIn));
  const T cosAlpha = cos(alpha);  // cos'(alpha) = Vcx / Vc
  const double lmux = c(Mf::LMUX), lmuy = c(Mf::LMUY);
  const double amu = 10.0;
  const double lmuxPrime = amu * lmux / (1.0 + (amu - 1.0) * lmux), lmuyPrime = amu * lmuy / (1.0 + (amu - 1.0) * lmuy);

  // Longitudinal force, pure slip (4.E9-E18).
  const T shx = (c(Mf::PHX1) + c(Mf::PHX2) * dfz) * c(Mf::LHX);
  const T kx = kappa + shx;
  const SlipStiffness<T> stiffness = slipStiffness(p, fz, gammaIn);
  const T& kxk = stiffness.kxk;
  const SlipCurve<T> curveX = longitudinalCurve(p, fz, gammaIn, kxk, sgn(kx));
  const T svx = fz * (c(Mf::PVX1) + c(Mf::PVX2) * dfz) * c(Mf::LVX) * (pac ? lmux : lmuxPrime);
  const T fx0 = curveX.d * sin(shape(curveX.b, curveX.c, curveX.e, kx)) + svx;

  // Lateral force, pure slip (4.E19-E30).
  const T gy = pac ? T(gammaIn * c(Mf::LGAY)) : gammaStar;
  const T& kya = stiffness.kya;
  T shy, svy, svyg;
  if (pac) {
    shy = (c(Mf::PHY1) + c(Mf::PHY2) * dfz) * c(Mf::LHY) + c(Mf::PHY3) * gy;
    svyg = fz * (c(Mf::PVY3) + c(Mf::PVY4) * dfz) * gy * lmuy;
    svy = fz * (c(Mf::PVY1) + c(Mf::PVY2) * dfz) * c(Mf::LVY) * lmuy + svyg;
  } else {
    const T kyg0 = fz * (c(Mf::PKY6) + c(Mf::PKY7) * dfz) * (1.0 + c(Mf::PPY5) * dpi) * c(Mf::LKYC);
    svyg = fz * (c(Mf::PVY3) + c(Mf::PVY4) * dfz) * gy * c(Mf::LKYC) * lmuyPrime;
    const T kyaP = kya + kEps * sgn(value(kya) == 0.0 ? 1.0 : value(kya));
    shy = (c(Mf::PHY1) + c(Mf::PHY2) * dfz) * c(Mf::LHY) + (kyg0 * gy - svyg) / kyaP;
    svy = fz * (c(Mf::PVY1) + c(Mf::PVY2) * dfz) * c(Mf::LVY) * lmuyPrime + svyg;
  }
  const T kyaPrime = kya + kEps * sgn(value(kya) == 0.0 ? 1.0 : value(kya));
  const T ay = alphaStar + shy;
  const SlipCurve<T> curveY = lateralCurve(p, fz, gammaIn, kya, sgn(ay));
  const double cy = c(Mf::PCY1) * c(Mf::LCY);
  const T& by = curveY.b;
  const T fy0 = curveY.d * sin(shape(by, curveY.c, curveY.e, ay)) + svy;

  // Combined slip (4.E50-E67): weighting functions G.
  const T bxa = pac ? T(c(Mf::RBX1) * cos(atanOf(T(c(Mf::RBX2) * kappa))) * c(Mf::LXAL))
                    : T((c(Mf::RBX1) + c(Mf::RBX3) * gammaStar * gammaStar) * cos(atanOf(T(c(Mf::RBX2) * kappa))) *
                        c(Mf::LXAL));
  const T cxa = T(c(Mf::RCX1));
  const T exa = atMostOne(T(c(Mf::REX1) + c(Mf::REX2) * dfz));
  const T shxa = T(c(Mf::RHX1));
  const T gxa = cos(shape(bxa, cxa, exa, T(alphaStar + shxa))) / cos(shape(bxa, cxa, exa, shxa));
  const T fx = c(Mf::RBX1) != 0.0 ? T(gxa * fx0) : fx0;

  const T byk = pac ? T(c(Mf::RBY1) * cos(atanOf(T(c(Mf::RBY2) * (alphaStar - c(Mf::RBY3))))) * c(Mf::LYKA))
                    : T((c(Mf::RBY1) + c(Mf::RBY4) * gammaStar * gammaStar) *
                        cos(atanOf(T(c(Mf::RBY2) * (alphaStar - c(Mf::RBY3))))) * c(Mf::LYKA));
  const T cyk = T(c(Mf::RCY1));
  const T eyk = atMostOne(T(c(Mf::REY1) + c(Mf::REY2) * dfz));
  const T shyk = c(Mf::RHY1) + c(Mf::RHY2) * dfz;
  const T dvyk = curveY.d * (c(Mf::RVY1) + c(Mf::RVY2) * dfz + c(Mf::RVY3) * gammaStar) *
                 cos(atanOf(T(c(Mf::RVY4) * alphaStar)));
  const T svyk = dvyk * sin(c(Mf::RVY5) * atanOf(T(c(Mf::RVY6) * kappa))) * c(Mf::LVYKA);
  const bool combinedY = c(Mf::RBY1) != 0.0;
  const T gyk = combinedY ? T(cos(shape(byk, cyk, eyk, T(kappa + shyk))) / cos(shape(byk, cyk, eyk, shyk)))
                          : T(1.0);
  const T fy = combinedY ? T(gyk * fy0 + svyk) : fy0;

  // Aligning torque (4.E31-E49, combined 4.E71-E78).
  const T gz = pac ? T(gammaIn * c(Mf::LGAZ)) : gammaStar;
  const T sht = c(Mf::QHZ1) + c(Mf::QHZ2) * dfz + (c(Mf::QHZ3) + c(Mf::QHZ4) * dfz) * gz;
  const T at = alphaStar + sht;
  const T bt = pac ? T((c(Mf::QBZ1) + c(Mf::QBZ2) * dfz + c(Mf::QBZ3) * dfz * dfz) *
                       (1.0 + c(Mf::QBZ4) * gz + c(Mf::QBZ5) * absOf(gz)) * c(Mf::LKY) / lmuy)
                   : T((c(Mf::QBZ1) + c(Mf::QBZ2) * dfz + c(Mf::QBZ3) * dfz * dfz) *
                       (1.0 + c(Mf::QBZ5) * absOf(gz) + c(Mf::QBZ6) * gz * gz) * c(Mf::LKY) / lmuy);
  const T ct = T(c(Mf::QCZ1));
  const T dt = pac ? T(fz * (c(Mf::QDZ1) + c(Mf::QDZ2) * dfz) * (1.0 + c(Mf::QDZ3) * gz + c(Mf::QDZ4) * gz * gz) *
                       (r0 / fz0) * c(Mf::LTR) * sv)
                   : T(fz * (r0 / fz0) * (c(Mf::QDZ1) + c(Mf::QDZ2) * dfz) * (1.0 - c(Mf::PPZ1) * dpi) * c(Mf::LTR) *
                       sv * (1.0 + c(Mf::QDZ3) * absOf(gz) + c(Mf::QDZ4) * gz * gz));
  const T et = atMostOne(T((c(Mf::QEZ1) + c(Mf::QEZ2) * dfz + c(Mf::QEZ3) * dfz * dfz) *
         (1.0 + (c(Mf::QEZ4) + c(Mf::QEZ5) * gz) * (2.0 / M_PI) * atanOf(T(bt * ct * at)))));
  const T shf = shy + svy / kyaPrime;
  const T ar = alphaStar + shf;
  const T br = c(Mf::QBZ9) * c(Mf::LKY) / lmuy + c(Mf::QBZ10) * by * cy;
  const T dr = pac ? T(fz * ((c(Mf::QDZ6) + c(Mf::QDZ7) * dfz) * c(Mf::LRES) + (c(Mf::QDZ8) + c(Mf::QDZ9) * dfz) * gz) *
                       r0 * lmuy * sv * cosAlpha)
                   : T(fz * r0 *
                       ((c(Mf::QDZ6) + c(Mf::QDZ7) * dfz) * c(Mf::LRES) +
                        ((c(Mf::QDZ8) + c(Mf::QDZ9) * dfz) * (1.0 + c(Mf::PPZ2) * dpi) +
                         (c(Mf::QDZ10) + c(Mf::QDZ11) * dfz) * absOf(gz)) * gz * c(Mf::LKZC)) *
                       lmuy * sv * cosAlpha);
  // Equivalent slip angles under longitudinal slip; at kappa = 0 exactly the pure ones.
  const T ratio = kxk / kyaPrime;
  auto equivalent = [&](const T& a) {
    if (value(kappa) == 0.0) return a;
    return T(sqrt(T(a * a + ratio * ratio * kappa * kappa)) * sgn(a));
  };
  const T ateq = equivalent(at), areq = equivalent(ar);
  // F'y: the lateral force at zero camber, less its kappa-induced part (SVyk).
  T fyPrime;
  {
    T kya0, shy0, svy0;
    if (pac) {
      kya0 = c(Mf::PKY1) * fz0 * sin(2.0 * atanOf(T(fz / (c(Mf::PKY2) * fz0)))) * c(Mf::LKY);
      shy0 = (c(Mf::PHY1) + c(Mf::PHY2) * dfz) * c(Mf::LHY);
      svy0 = fz * (c(Mf::PVY1) + c(Mf::PVY2) * dfz) * c(Mf::LVY) * lmuy;
    } else {
      kya0 = c(Mf::PKY1) * fz0 * (1.0 + c(Mf::PPY1) * dpi) *
             sin(c(Mf::PKY4) * atanOf(T(fz / (c(Mf::PKY2) * (1.0 + c(Mf::PPY2) * dpi) * fz0)))) * c(Mf::LKY);
      shy0 = (c(Mf::PHY1) + c(Mf::PHY2) * dfz) * c(Mf::LHY);
      svy0 = fz * (c(Mf::PVY1) + c(Mf::PVY2) * dfz) * c(Mf::LVY) * lmuyPrime;
    }
    const T ay0 = alphaStar + shy0;
    const SlipCurve<T> curve0 = lateralCurve(p, fz, T(0.0), kya0, sgn(ay0));
    fyPrime = gyk * (curve0.d * sin(shape(curve0.b, curve0.c, curve0.e, ay0)) + svy0);
  }
  const T t = dt * cos(shape(bt, ct, et, ateq)) * cosAlpha;
  const T mzr = dr * cos(atanOf(T(br * areq)));
  const T s = r0 * (c(Mf::SSZ1) + c(Mf::SSZ2) * (fy / fz0) + (c(Mf::SSZ3) + c(Mf::SSZ4) * dfz) * gz) * c(Mf::LS);
  const T mz = -t * fyPrime + mzr + s * fx;

  // Overturning moment (4.E69) and rolling resistance moment (4.E70).
  T mx;
  if (pac) {
    mx = r0 * fz * (c(Mf::QSX1) * c(Mf::LVMX) - c(Mf::QSX2) * gammaIn + c(Mf::QSX3) * fy / fz0) * c(Mf::LMX);
  } else {
    const T fzr = fz / fz0, fyr = fy / fz0;
    mx = r0 * fz * c(Mf::LMX) *
         (c(Mf::QSX1) * c(Mf::LVMX) - c(Mf::QSX2) * gammaIn * (1.0 + c(Mf::PPMX1) * dpi) + c(Mf::QSX3) * fyr +
          c(Mf::QSX4) * cos(c(Mf::QSX5) * atanOf(T((c(Mf::QSX6) * fzr) * (c(Mf::QSX6) * fzr)))) *
              sin(c(Mf::QSX7) * gammaIn + c(Mf::QSX8) * atanOf(T(c(Mf::QSX9) * fyr))) +
          c(Mf::QSX10) * atanOf(T(c(Mf::QSX11) * fzr)) * gammaIn);
  }
  const double v0 = p.longvl > 0.0 ? p.longvl : 16.7;
  const T vr = vx / v0;
  // The rolling resistance fades below VXLOW, sin(pi V_x / (2 VXLOW)) for sgn(V_x) (smooth at
  // VXLOW): a wheel at rest carries no My, which sgn(V_x) would give it at either sign.
  const double vLow = p.vxlow > 0.0 ? p.vxlow : 1.0;
  const T rolling = std::abs(value(vx)) < vLow ? T(sin(T(0.5 * M_PI * vx / vLow))) : T(sv);
  T my;
  if (pac) {
    my = -rolling * r0 * fz * (c(Mf::QSY1) + c(Mf::QSY2) * fx / fz0 + c(Mf::QSY3) * absOf(vr) + c(Mf::QSY4) * vr * vr * vr * vr) *
         c(Mf::LMY);
  } else {
    const double pr = p.nominalPressure > 0.0 ? p.inflationPressure / p.nominalPressure : 1.0;
    const T loadTerm = value(fz) > 0.0 ? T(pow(T(fz / fz0), c(Mf::QSY7))) : T(0.0);
    my = -rolling * r0 * fz0 * c(Mf::LMY) *
         (c(Mf::QSY1) + c(Mf::QSY2) * fx / fz0 + c(Mf::QSY3) * absOf(vr) + c(Mf::QSY4) * vr * vr * vr * vr +
          (c(Mf::QSY5) + c(Mf::QSY6) * fz / fz0) * gammaIn * gammaIn) *
         loadTerm * std::pow(pr, c(Mf::QSY8));
  }
  // USE_MODE: the force set the file is for.
  const int forces = std::abs(p.useMode) % 10;
  Evaluation<T> e{fx, fy, mz, mx, my};
  const T zero = T(0.0);
  if (forces == 0) e = {zero, zero, zero, zero, zero};
  if (forces == 1) e = {fx0, zero, zero, zero, zero};
  if (forces == 2) e = {zero, fy0, T(-t * fyPrime + mzr), mx, zero};
  if (forces == 3) e.my = zero;
  if (value(fzIn) <= 0.0) e = {zero, zero, zero, zero, zero};
  return e;
}

}  // namespace

MfForces magicFormula(const TyreProperty& tyre, const MfState& s, bool mirrored) {
  const double m = mirrored ? -1.0 : 1.0;
  const auto e = evaluate<double>(tyre, s.kappa, m * s.alpha, m * s.gamma, s.fz, s.vx);
  return {e.fx, m * e.fy, m * e.mz, m * e.mx, e.my};
}

MfForces magicFormula(const TyreProperty& tyre, const MfState& s, bool mirrored, MfPartials& partials) {
  const double m = mirrored ? -1.0 : 1.0;
  using D = Ad::DerType;
  const Ad kappa(s.kappa, D::Unit(kMfInputs, kMfKappa)), alpha(m * s.alpha, m * D::Unit(kMfInputs, kMfAlpha)),
      gamma(m * s.gamma, m * D::Unit(kMfInputs, kMfGamma)), fz(s.fz, D::Unit(kMfInputs, kMfFz)),
      vx(s.vx, D::Unit(kMfInputs, kMfVx));
  const auto e = evaluate<Ad>(tyre, kappa, alpha, gamma, fz, vx);
  const Ad* out[kMfOutputs] = {&e.fx, &e.fy, &e.mz, &e.mx, &e.my};
  const double sign[kMfOutputs] = {1.0, m, m, m, 1.0};
  MfForces f{};
  for (int o = 0; o < kMfOutputs; ++o) {
    f[o] = sign[o] * out[o]->value();
    for (int i = 0; i < kMfInputs; ++i)
      partials[o][i] = out[o]->derivatives().size() ? sign[o] * out[o]->derivatives()[i] : 0.0;
  }
  return f;
}

namespace {

constexpr double kSigmaFloor = 1e-4;  ///< [m] added to the relaxation lengths: no division by zero unloaded
constexpr double kSecantFloor = 1e-3;  ///< the secant ratio's least value (reached only by a curve with C >= 2)

/// The pure-slip curve's secant slope at slip x over its slope at zero (its shifts left out):
/// sin(C atan(B x - E (B x - atan(B x)))) / (B C x); below |B x| = 1e-4 its series
/// 1 - ((1 + E) / 3 + C^2 / 6) (B x)^2, exact to the double's rounding there.
template <class T>
T secantRatio(const SlipCurve<T>& k, const T& x) {
  using std::sin;
  const T z = k.b * x;
  if (std::abs(value(z)) < 1e-4 || value(k.c) == 0.0) return T(1.0 - ((1.0 + k.e) / 3.0 + k.c * k.c / 6.0) * z * z);
  const T r = sin(shape(k.b, k.c, k.e, x)) / (k.c * z);
  return value(r) < kSecantFloor ? T(kSecantFloor) : r;
}

template <class T>
std::array<T, 4> transient(const TyreProperty& p, const T& fzIn, const T& gamma, const T& kappaRim, const T& tanAlphaRim,
                           bool mirrored) {
  const auto c = [&p](Mf k) { return p[k]; };
  const T fz = value(fzIn) > 0.0 ? fzIn : T(0.0);
  const Increments<T> in = increments(p, fz);
  const double fz0 = in.fz0, r0 = p.unloadedRadius;
  const T& dfz = in.dfz;
  const SlipStiffness<T> k = slipStiffness(p, fz, gamma);
  using std::exp, std::sin;
  T sigmaKappa, sigmaAlpha;
  if (c(Mf::PTX1) != 0.0)
    sigmaKappa = fz * (c(Mf::PTX1) + c(Mf::PTX2) * dfz) * exp(T(-c(Mf::PTX3) * dfz)) * (r0 / fz0) * c(Mf::LSGKP);
  else
    sigmaKappa = k.kxk / p.longitudinalStiffness;
  if (c(Mf::PTY1) != 0.0) {
    const T gy = p.version == MfVersion::Pac2002 ? T(gamma * c(Mf::LGAY)) : T(sin(gamma));
    sigmaAlpha = c(Mf::PTY1) * sin(T(2.0 * atanOf(T(fz / (c(Mf::PTY2) * fz0))))) * (1.0 - c(Mf::PKY3) * absOf(gy)) *
                 r0 * c(Mf::LFZO) * c(Mf::LSGAL);
  } else {
    sigmaAlpha = k.kya / p.lateralStiffness;
  }
  // The secant relaxation lengths at the rim's slip (docs/tyres.md): the carcass spring's
  // stiffness Kxk / sigma_kappa0 stays, the slip stiffness becomes the curve's secant one. A
  // mirrored tyre's curve is the file's at -alpha, -gamma.
  const double m = mirrored ? -1.0 : 1.0;
  const T gammaFile = T(m * gamma), alphaFile = T(m * tanAlphaRim);
  const T ratioX = secantRatio(longitudinalCurve(p, fz, gammaFile, k.kxk, sgn(kappaRim)), kappaRim);
  const T ratioY = secantRatio(lateralCurve(p, fz, gammaFile, k.kya, sgn(alphaFile)), alphaFile);
  return {T((sigmaKappa + kSigmaFloor) * ratioX), T((sigmaAlpha + kSigmaFloor) * ratioY), k.kxk, k.kya};
}

}  // namespace

MfTransient transientProperties(const TyreProperty& tyre, double fz, double gamma, const MfRimSlip& slip) {
  const auto t = transient<double>(tyre, fz, gamma, slip.kappa, slip.tanAlpha, slip.mirrored);
  return {t[0], t[1], t[2], t[3], {}};
}

MfTransient transientProperties(const TyreProperty& tyre, double fz, double gamma, const MfRimSlip& slip,
                                bool withPartials) {
  if (!withPartials) return transientProperties(tyre, fz, gamma, slip);
  using A4 = Eigen::AutoDiffScalar<Eigen::Vector4d>;
  const auto t = transient<A4>(tyre, A4(fz, 4, 0), A4(gamma, 4, 1), A4(slip.kappa, 4, 2), A4(slip.tanAlpha, 4, 3),
                               slip.mirrored);
  MfTransient r{t[0].value(), t[1].value(), t[2].value(), t[3].value(), {}};
  for (int o = 0; o < 4; ++o)
    for (int i = 0; i < 4; ++i) r.partials[o][i] = t[o].derivatives().size() ? t[o].derivatives()[i] : 0.0;
  return r;
}

double longitudinalSlipStiffness(const TyreProperty& tyre, double fz) {
  MfPartials d{};
  magicFormula(tyre, {0.0, 0.0, 0.0, fz, tyre.longvl > 0.0 ? tyre.longvl : 16.7}, false, d);
  return d[kMfFx][kMfKappa];
}

double corneringStiffness(const TyreProperty& tyre, double fz, double gamma) {
  MfPartials d{};
  magicFormula(tyre, {0.0, 0.0, gamma, fz, tyre.longvl > 0.0 ? tyre.longvl : 16.7}, false, d);
  return d[kMfFy][kMfAlpha];
}

}  // namespace ek
