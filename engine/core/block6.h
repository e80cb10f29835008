// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file block6.h
/// Kernels on 6x6 blocks (column-major, 36 contiguous doubles) and 6-vectors that the step runs
/// hundreds of times: block times vector into running sums, and block products. A column of six
/// is one 4-wide and one 2-wide vector (GCC/Clang vector extensions, as lanes.h); the compiler
/// keeps them in registers and fuses `c + a * x` into multiply-adds. Over Eigen's expressions this adds the
/// order of the sums: a 6x6 times a vector summed column after column is a chain of six
/// dependent multiply-adds per block (their latency, not the core's throughput, bounds it);
/// here the columns go into three independent sums.

#include <cstring>

namespace ek::block6 {

using V4 = double __attribute__((vector_size(32)));
using V2 = double __attribute__((vector_size(16)));

/// A column of six: rows 0-3 and rows 4-5.
struct Column {
  V4 lo;
  V2 hi;
};

inline Column load(const double* p) {
  Column c;
  std::memcpy(&c.lo, p, sizeof c.lo);
  std::memcpy(&c.hi, p + 4, sizeof c.hi);
  return c;
}
inline void store(double* p, const Column& c) {
  std::memcpy(p, &c.lo, sizeof c.lo);
  std::memcpy(p + 4, &c.hi, sizeof c.hi);
}
inline Column operator+(const Column& a, const Column& b) { return {a.lo + b.lo, a.hi + b.hi}; }
inline Column operator-(const Column& a, const Column& b) { return {a.lo - b.lo, a.hi - b.hi}; }
inline Column operator*(const Column& a, double x) { return {a.lo * V4{x, x, x, x}, a.hi * V2{x, x}}; }

/// Running sums of blocks times vectors: s += W x, the columns of W spread over three partial
/// sums (columns j and j + 3 into the same one).
struct Sums {
  Column s[3] = {};
  /// s += W x (W column-major 6x6, x six doubles).
  void add(const double* W, const double* x) {
    for (int j = 0; j < 6; ++j) s[j % 3] = s[j % 3] + load(W + 6 * j) * x[j];
  }
  /// The sum, into out[0..6).
  void get(double* out) const {
    store(out, {(s[0].lo + s[1].lo) + s[2].lo, (s[0].hi + s[1].hi) + s[2].hi});
  }
};

/// C -= A B (6x6, column-major; C must not alias B). A and B are read in full before C is
/// written: the compiler need not assume that a store to C changes them, so the six columns'
/// chains of multiply-adds run side by side instead of one after the other.
inline void subtractProduct(double* C, const double* A, const double* B) {
  Column a[6], c[6];
  for (int k = 0; k < 6; ++k) a[k] = load(A + 6 * k);
  for (int j = 0; j < 6; ++j) {
    c[j] = load(C + 6 * j);
    for (int k = 0; k < 6; ++k) c[j] = c[j] - a[k] * B[6 * j + k];
  }
  for (int j = 0; j < 6; ++j) store(C + 6 * j, c[j]);
}

/// C = A B (6x6, column-major; C may be A, must not alias B), read in full before C is written
/// as in subtractProduct().
inline void product(double* C, const double* A, const double* B) {
  Column a[6], c[6];
  for (int k = 0; k < 6; ++k) a[k] = load(A + 6 * k);
  for (int j = 0; j < 6; ++j) {
    c[j] = a[0] * B[6 * j];
    for (int k = 1; k < 6; ++k) c[j] = c[j] + a[k] * B[6 * j + k];
  }
  for (int j = 0; j < 6; ++j) store(C + 6 * j, c[j]);
}

}  // namespace ek::block6
