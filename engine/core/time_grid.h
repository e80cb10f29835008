// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file time_grid.h
/// Times on a fixed-step grid that hit interval ends exactly.
///
/// Summing or multiplying the step overshoots: 1400 x 0.001 = 1.4000000000000001, past an input
/// that ends at 1.4 s (whose literal is the double 1.3999999999999999), so the sample at the end
/// of a chirp showed the offset. When 1/dt is an integer N (every step the project format allows
/// in practice: 1 ms, 0.5 ms, 0.25 ms, 2 ms) and t lies on the grid of 1/N, the time `steps`
/// steps later is computed from the integer tick count as (ticks + steps) / N: one correctly
/// rounded division, the double nearest to the decimal time.

#include <cmath>

namespace ek {

/// The time `steps` steps of dt after t (steps = 0.5 gives the midpoint). Falls back to
/// t + steps dt when 1/dt is not an integer or t is not on its grid.
inline double gridTime(double t, double dt, double steps) {
  const double rate = 1.0 / dt;
  const double n = std::round(rate);
  if (n >= 1.0 && n <= 1e12 && std::abs(rate - n) <= 1e-9 * n) {
    const double x = t * n;
    const double ticks = std::round(x);
    if (std::abs(x - ticks) <= 1e-6 && std::abs(ticks) < 1e15) {
      if (steps == std::floor(steps)) return (ticks + steps) / n;
      return (2.0 * ticks + 2.0 * steps) / (2.0 * n);  // half steps: exact in units of 1/(2N)
    }
  }
  return t + steps * dt;
}

}  // namespace ek
