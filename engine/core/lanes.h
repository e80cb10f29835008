// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file lanes.h
/// 3-vectors and 3x3 matrices whose every entry is a pack of kLanes doubles: one kernel runs the
/// same arithmetic for kLanes independent elements at once (structure of arrays), one SIMD
/// instruction per scalar operation. Lane l of every result depends on lane l of the inputs
/// only, with the same instruction sequence in every lane: an element's result does not depend
/// on which elements share its pack, nor on its lane.
///
/// Packs are GCC/Clang vector extensions; the compiler maps them to the widest registers of the
/// target (AVX2: one register) or splits them. Eigen is not used here: its 3x3 products
/// vectorize across the entries of one matrix, which leaves most lanes of a register empty.

#include <cmath>
#include <initializer_list>
#if defined(__AVX__)
#include <immintrin.h>
#endif

// Without AVX the packs are returned in memory instead of registers, and GCC warns that this
// ABI differs from an AVX build's. The packs never cross a library boundary (every function here
// is inline, the kernels that use them are internal), so the note does not apply.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace ek::lanes {

// Four lanes (one AVX2 register). Eight lanes in AVX-512 registers were measured 1-4 % slower
// (docs/performance.md: the transposing stores and the gathers do not shrink) and left out.
constexpr int kLanes = 4;
using Pack = double __attribute__((vector_size(kLanes * sizeof(double))));
/// Four doubles: the unit of the transposing loads and stores (one AVX2 register).
using Quad = double __attribute__((vector_size(4 * sizeof(double))));

/// s in every lane (S = double: s itself; the templates below are written for both).
template <class S = Pack>
inline S splat(double s) {
  return S{} + s;
}

/// Lane l of a pack, or the scalar itself (the lane-by-lane parts of templated kernels).
inline double laneOf(const Pack& a, int l) { return a[l]; }
inline double laneOf(double a, int) { return a; }
inline void setLane(Pack& a, int l, double v) { a[l] = v; }
inline void setLane(double& a, int, double v) { a = v; }
/// The number of elements a value of S holds.
template <class S>
constexpr int laneCount = kLanes;
template <>
inline constexpr int laneCount<double> = 1;

/// Square root (IEEE, correctly rounded: lane-wise equal to std::sqrt bit for bit).
inline double sqrt(double a) { return std::sqrt(a); }
inline Pack sqrt(Pack a) {
#if defined(__AVX__)
  return _mm256_sqrt_pd(a);
#else
  Pack r;
  for (int l = 0; l < kLanes; ++l) r[l] = std::sqrt(a[l]);
  return r;
#endif
}

/// atan2(y, x) in (-pi, pi], lane-wise for S = Pack, the same arithmetic for S = double, within
/// a few units in the last place of std::atan2 (tst_lanes). The ratio t = min(|x|, |y|) / max(|x|, |y|) in [0, 1] is reduced to
/// |u| <= tan(pi/12) by atan(t) = pi/6 + atan((sqrt(3) t - 1) / (t + sqrt(3))) where t > tan(pi/12),
/// and atan(u) summed as its Taylor series u sum_k (-1)^k u^2k / (2k + 1) up to k = 13 (the next
/// term is below 3.5e-18 of the result); the octant follows from the signs and the swap. NaN in,
/// NaN out; atan2(0, 0) = 0.
template <class S>
inline S atan2(S y, S x) {
  const double kPi = 3.141592653589793, kSqrt3 = 1.7320508075688772, kTanPi12 = 0.2679491924311227;
  const S ax = x < 0.0 ? -x : x, ay = y < 0.0 ? -y : y;
  const auto swap = ay > ax;
  const S num = swap ? ax : ay, den = swap ? ay : ax;
  const S t = den == 0.0 ? S{} : num / den;
  const auto reduced = t > kTanPi12;
  const S u = reduced ? (t * kSqrt3 - 1.0) / (t + kSqrt3) : t;
  const S z = u * u;
  S p = splat<S>(-1.0 / 27.0);  // Horner from k = 13
  for (int k = 12; k >= 0; --k) p = (k % 2 ? -1.0 : 1.0) / (2 * k + 1) + z * p;
  S r = u * p;
  r = reduced ? r + kPi / 6.0 : r;
  r = swap ? kPi / 2.0 - r : r;
  r = x < 0.0 ? kPi - r : r;
  return y < 0.0 ? -r : r;
}

/// (The C library's atan2 per lane was 5-7 % of a step slower: docs/performance.md.)

/// Lane-wise sin and cos of x, within a few units in the last place of std::sin/std::cos
/// (tst_lanes): x = k pi/2 + r with pi/2 in three parts (33, 33 and 53 bits: k pi/2's first two
/// products are exact for |k| < 2^20), |r| <= pi/4, sin r and cos r as their Taylor series up to
/// r^17 and r^18 (the next terms are below 1e-19), the quadrant k mod 4 choosing signs and
/// roles. Lanes with |x| > 1e5 (or not finite) take std::sin and std::cos. (The library's per lane
/// was 1.4-3.1 % of a step slower: docs/performance.md.)
inline void sincos(Pack x, Pack& s, Pack& c) {
  constexpr double kTwoOverPi = 0.6366197723675814;
  constexpr double kP1 = 1.5707963267341256, kP2 = 6.077100506303966e-11, kP3 = 2.0222662487959506e-21;
  using Int = long long __attribute__((vector_size(kLanes * sizeof(long long))));
  const Pack ax = x < 0.0 ? -x : x;
  const auto large = !(ax <= 1e5);  // NaN too
  const Pack xs = large ? Pack{} : x;
  Pack k = xs * kTwoOverPi;
#if defined(__AVX__)
  k = _mm256_round_pd(k, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#else
  for (int l = 0; l < kLanes; ++l) k[l] = std::nearbyint(k[l]);
#endif
  const Pack r = ((xs - k * kP1) - k * kP2) - k * kP3;
  const Pack z = r * r;
  // sin r = r + r z (-1/3! + z/5! - ... + z^7/17!), cos r = 1 + z (-1/2! + z/4! - ... - z^8/18!).
  Pack ps = splat(1.0 / 355687428096000.0);
  for (double cf : {-1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0, -1.0 / 5040.0,
                    1.0 / 120.0, -1.0 / 6.0})
    ps = ps * z + cf;
  const Pack sr = r + r * z * ps;
  Pack pc = splat(-1.0 / 6402373705728000.0);
  for (double cf : {1.0 / 20922789888000.0, -1.0 / 87178291200.0, 1.0 / 479001600.0, -1.0 / 3628800.0, 1.0 / 40320.0,
                    -1.0 / 720.0, 1.0 / 24.0, -0.5})
    pc = pc * z + cf;
  const Pack cr = 1.0 + z * pc;
  const Int q = __builtin_convertvector(k, Int) & 3;
  s = (q & 1) != 0 ? cr : sr;
  c = (q & 1) != 0 ? sr : cr;
  s = (q & 2) != 0 ? -s : s;
  c = ((q + 1) & 2) != 0 ? -c : c;
  for (int l = 0; l < kLanes; ++l)
    if (large[l]) s[l] = std::sin(x[l]), c[l] = std::cos(x[l]);
}

/// A 3-vector of S (Pack: kLanes vectors, one per lane; double: one vector). The kernels that
/// use these types are templates over S: the lane instantiation runs kLanes elements at once, the
/// scalar one the same arithmetic for one element.
template <class S>
struct V3T {
  S x, y, z;
};
/// Row-major: m[r][c].
template <class S>
struct M3T {
  S m[3][3];
};
using V3 = V3T<Pack>;
using M3 = M3T<Pack>;

template <class S>
inline V3T<S> operator+(const V3T<S>& a, const V3T<S>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class S>
inline V3T<S> operator-(const V3T<S>& a, const V3T<S>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class S>
inline V3T<S> operator*(const S& s, const V3T<S>& a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class S>
inline V3T<S> cross(const V3T<S>& a, const V3T<S>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class S>
inline S at(const V3T<S>& v, int i) {
  return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}
/// Entry-wise product.
template <class S>
inline V3T<S> times(const V3T<S>& a, const V3T<S>& b) {
  return {a.x * b.x, a.y * b.y, a.z * b.z};
}

template <class S>
inline M3T<S> operator+(const M3T<S>& a, const M3T<S>& b) {
  M3T<S> o;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o.m[r][c] = a.m[r][c] + b.m[r][c];
  return o;
}
template <class S>
inline M3T<S> operator-(const M3T<S>& a, const M3T<S>& b) {
  M3T<S> o;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o.m[r][c] = a.m[r][c] - b.m[r][c];
  return o;
}
template <class S>
inline M3T<S> operator-(const M3T<S>& a) {
  M3T<S> o;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o.m[r][c] = -a.m[r][c];
  return o;
}
/// a b
template <class S>
inline M3T<S> operator*(const M3T<S>& a, const M3T<S>& b) {
  M3T<S> o;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o.m[r][c] = a.m[r][0] * b.m[0][c] + a.m[r][1] * b.m[1][c] + a.m[r][2] * b.m[2][c];
  return o;
}
/// a b^T
template <class S>
inline M3T<S> timesTransposed(const M3T<S>& a, const M3T<S>& b) {
  M3T<S> o;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o.m[r][c] = a.m[r][0] * b.m[c][0] + a.m[r][1] * b.m[c][1] + a.m[r][2] * b.m[c][2];
  return o;
}
/// a^T b
template <class S>
inline M3T<S> transposedTimes(const M3T<S>& a, const M3T<S>& b) {
  M3T<S> o;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o.m[r][c] = a.m[0][r] * b.m[0][c] + a.m[1][r] * b.m[1][c] + a.m[2][r] * b.m[2][c];
  return o;
}
/// a v
template <class S>
inline V3T<S> operator*(const M3T<S>& a, const V3T<S>& v) {
  return {a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z, a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
          a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z};
}
/// a^T v
template <class S>
inline V3T<S> transposedTimes(const M3T<S>& a, const V3T<S>& v) {
  return {a.m[0][0] * v.x + a.m[1][0] * v.y + a.m[2][0] * v.z, a.m[0][1] * v.x + a.m[1][1] * v.y + a.m[2][1] * v.z,
          a.m[0][2] * v.x + a.m[1][2] * v.y + a.m[2][2] * v.z};
}
/// a diag(d)
template <class S>
inline M3T<S> timesDiagonal(const M3T<S>& a, const V3T<S>& d) {
  M3T<S> o;
  for (int r = 0; r < 3; ++r) o.m[r][0] = a.m[r][0] * d.x, o.m[r][1] = a.m[r][1] * d.y, o.m[r][2] = a.m[r][2] * d.z;
  return o;
}
/// a^T diag(d)
template <class S>
inline M3T<S> transposedTimesDiagonal(const M3T<S>& a, const V3T<S>& d) {
  M3T<S> o;
  for (int r = 0; r < 3; ++r) o.m[r][0] = a.m[0][r] * d.x, o.m[r][1] = a.m[1][r] * d.y, o.m[r][2] = a.m[2][r] * d.z;
  return o;
}
/// M [a]x without forming [a]x: row i is m_i x a.
template <class S>
[[gnu::always_inline]] inline M3T<S> timesSkew(const M3T<S>& M, const V3T<S>& a) {
  M3T<S> o;
  for (int i = 0; i < 3; ++i) {
    o.m[i][0] = M.m[i][1] * a.z - M.m[i][2] * a.y;
    o.m[i][1] = M.m[i][2] * a.x - M.m[i][0] * a.z;
    o.m[i][2] = M.m[i][0] * a.y - M.m[i][1] * a.x;
  }
  return o;
}
/// [a]x M without forming [a]x: column j is a x m_j.
template <class S>
[[gnu::always_inline]] inline M3T<S> skewTimes(const V3T<S>& a, const M3T<S>& M) {
  M3T<S> o;
  for (int j = 0; j < 3; ++j) {
    o.m[0][j] = a.y * M.m[2][j] - a.z * M.m[1][j];
    o.m[1][j] = a.z * M.m[0][j] - a.x * M.m[2][j];
    o.m[2][j] = a.x * M.m[1][j] - a.y * M.m[0][j];
  }
  return o;
}
/// [a]x [b]x = b a^T - (a . b) I
template <class S>
inline M3T<S> skewSkew(const V3T<S>& a, const V3T<S>& b) {
  const S ab = a.x * b.x + a.y * b.y + a.z * b.z;
  M3T<S> o;
  for (int r = 0; r < 3; ++r) {
    const S br = at(b, r);
    o.m[r][0] = br * a.x, o.m[r][1] = br * a.y, o.m[r][2] = br * a.z;
    o.m[r][r] -= ab;
  }
  return o;
}
/// [a]x
template <class S>
inline M3T<S> skew(const V3T<S>& a) {
  const S z{};
  M3T<S> o;
  o.m[0][0] = z, o.m[0][1] = -a.z, o.m[0][2] = a.y;
  o.m[1][0] = a.z, o.m[1][1] = z, o.m[1][2] = -a.x;
  o.m[2][0] = -a.y, o.m[2][1] = a.x, o.m[2][2] = z;
  return o;
}

/// A pack at any address aligned for double. Vector types alias their element type only: a store
/// through one cannot change a pointer, so the compiler keeps destinations read from arrays in
/// registers across stores (std::memcpy, which may write any object, makes it reload them).
/// (The alignment is lowered on a typedef of Pack: given together with vector_size, it is not.)
typedef Pack UnalignedPack __attribute__((aligned(alignof(double))));
typedef Quad UnalignedQuad __attribute__((aligned(alignof(double))));
static_assert(alignof(UnalignedPack) == alignof(double) && alignof(UnalignedQuad) == alignof(double));
inline Pack loadPack(const double* p) { return *reinterpret_cast<const UnalignedPack*>(p); }
inline void storePack(double* p, Pack x) { *reinterpret_cast<UnalignedPack*>(p) = x; }
inline Quad loadQuad(const double* p) { return *reinterpret_cast<const UnalignedQuad*>(p); }
inline void storeQuad(double* p, Quad x) { *reinterpret_cast<UnalignedQuad*>(p) = x; }

/// Lanes 4 h .. 4 h + 3 of a pack, and a pack from its quarters (the lanes in groups of four; with
/// four lanes the pack itself).
inline Quad quarter(Pack x, [[maybe_unused]] int h) {
  return x;
}
inline void setQuarters(Pack& x, const Quad* q) {
  x = q[0];
}

/// The 4x4 transpose of four quads: t[l][i] = e[i][l].
inline void transpose4(const Quad* e, Quad* t) {
#if defined(__clang__)
  const Quad t0 = __builtin_shufflevector(e[0], e[1], 0, 4, 2, 6);
  const Quad t1 = __builtin_shufflevector(e[0], e[1], 1, 5, 3, 7);
  const Quad t2 = __builtin_shufflevector(e[2], e[3], 0, 4, 2, 6);
  const Quad t3 = __builtin_shufflevector(e[2], e[3], 1, 5, 3, 7);
  t[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  t[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  t[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  t[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
#else
  using Mask = long long __attribute__((vector_size(4 * sizeof(long long))));
  const Quad t0 = __builtin_shuffle(e[0], e[1], Mask{0, 4, 2, 6});
  const Quad t1 = __builtin_shuffle(e[0], e[1], Mask{1, 5, 3, 7});
  const Quad t2 = __builtin_shuffle(e[2], e[3], Mask{0, 4, 2, 6});
  const Quad t3 = __builtin_shuffle(e[2], e[3], Mask{1, 5, 3, 7});
  t[0] = __builtin_shuffle(t0, t2, Mask{0, 1, 4, 5});
  t[1] = __builtin_shuffle(t1, t3, Mask{0, 1, 4, 5});
  t[2] = __builtin_shuffle(t0, t2, Mask{2, 3, 6, 7});
  t[3] = __builtin_shuffle(t1, t3, Mask{2, 3, 6, 7});
#endif
}

/// Stores N packs lane by lane: out[l][i] = e[i][l]. Groups of four packs are transposed in
/// registers, four lanes at a time, and written as one quad per lane (the structure-of-arrays
/// results of a kernel into each element's own storage).
template <int N>
inline void storeLanes(const Pack (&e)[N], double* const (&out)[kLanes]) {
  static_assert(N % 4 == 0, "groups of four packs");
  for (int g = 0; g < N; g += 4)
    for (int h = 0; h < kLanes / 4; ++h) {
      const Quad q[4] = {quarter(e[g], h), quarter(e[g + 1], h), quarter(e[g + 2], h), quarter(e[g + 3], h)};
      Quad r[4];
      transpose4(q, r);
      for (int l = 0; l < 4; ++l) storeQuad(out[4 * h + l] + g, r[l]);
    }
}

/// Stores (Add = false) or adds N packs, given by their addresses, lane by lane: out[l][i] (+)=
/// (*e[i])[l]. The quads are read from the packs' memory, four lanes at a time (no staging copy).
/// The lanes are added one after the other, so two lanes may add to the same destination (two
/// elements between the same bodies): it receives the lower lane's values first.
template <bool Add, int N>
inline void putLanes(const Pack* const (&e)[N], double* const (&out)[kLanes]) {
  static_assert(N % 4 == 0, "groups of four packs");
  for (int g = 0; g < N; g += 4)
    for (int h = 0; h < kLanes / 4; ++h) {
      Quad q[4], r[4];
      for (int i = 0; i < 4; ++i) q[i] = loadQuad(reinterpret_cast<const double*>(e[g + i]) + 4 * h);
      transpose4(q, r);
      for (int l = 0; l < 4; ++l) {
        double* const o = out[4 * h + l] + g;
        storeQuad(o, Add ? loadQuad(o) + r[l] : r[l]);
      }
    }
}

/// Loads N packs lane by lane: e[i][l] = src[l][i] (the inverse of storeLanes()): each lane's
/// values are read as quads and transposed in registers.
template <int N>
inline void loadLanes(const double* const (&src)[kLanes], Pack (&e)[N]) {
  static_assert(N % 4 == 0, "groups of four packs");
  for (int g = 0; g < N; g += 4) {
    Quad t[kLanes / 4][4];
    for (int h = 0; h < kLanes / 4; ++h) {
      const Quad r[4] = {loadQuad(src[4 * h] + g), loadQuad(src[4 * h + 1] + g), loadQuad(src[4 * h + 2] + g),
                         loadQuad(src[4 * h + 3] + g)};
      transpose4(r, t[h]);
    }
    for (int i = 0; i < 4; ++i) {
      Quad q[kLanes / 4];
      for (int h = 0; h < kLanes / 4; ++h) q[h] = t[h][i];
      setQuarters(e[g + i], q);
    }
  }
}

}  // namespace ek::lanes
