// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/criteria.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>

#include "engine/core/text.h"

namespace ek {

namespace {

constexpr EnumName<CriterionKind> kNames[] = {{CriterionKind::Rms, "rms"},
                            {CriterionKind::Maximum, "max"},
                            {CriterionKind::MaximumAbs, "max abs"},
                            {CriterionKind::PeakToPeak, "peak to peak"},
                            {CriterionKind::IntegralSquare, "integral square"},
                            {CriterionKind::WeightedIntegral, "weighted integral"},
                            {CriterionKind::ValueAt, "value at"},
                            {CriterionKind::SettlingTime, "settling time"}};

/// An integer in [0, n) from the generator, by rejection (unbiased, the same on every platform).
std::uint32_t below(std::mt19937& g, std::uint32_t n) {
  const std::uint32_t limit = static_cast<std::uint32_t>((std::uint64_t(1) << 32) / n * n - 1);
  for (;;) {
    const std::uint32_t x = g();
    if (x <= limit) return x % n;
  }
}

}  // namespace

bool parseCriterionKind(const std::string& name, CriterionKind& out) { return valueOf(kNames, name, out); }

const char* toString(CriterionKind kind) { return nameOf(kNames, kind); }

double evaluateCriterion(const Criterion& c, const std::vector<double>& t, const std::vector<double>& y) {
  if (t.size() != y.size()) throw std::invalid_argument("times and values differ in length");
  std::size_t a = 0, b = t.size();
  while (a < t.size() && t[a] < c.from - 1e-12) ++a;
  while (b > a && t[b - 1] > c.to + 1e-12) --b;
  const std::size_t n = b - a;
  const std::size_t need = c.kind == CriterionKind::WeightedIntegral && c.derivative == 2 ? 3 : 2;
  if (n < need)
    throw std::invalid_argument("the window " + shortestText(c.from) + " ... " + shortestText(c.to) + " s holds " +
                                std::to_string(n) + " samples (at least " + std::to_string(need) + " needed)");
  auto trapezoid = [&](auto f) {
    double s = 0.0;
    for (std::size_t k = a + 1; k < b; ++k) s += 0.5 * (f(k - 1) + f(k)) * (t[k] - t[k - 1]);
    return s;
  };
  switch (c.kind) {
    case CriterionKind::Rms:
      return std::sqrt(trapezoid([&](std::size_t k) { return y[k] * y[k]; }) / (t[b - 1] - t[a]));
    case CriterionKind::Maximum: return *std::max_element(y.begin() + a, y.begin() + b);
    case CriterionKind::MaximumAbs: {
      double m = 0.0;
      for (std::size_t k = a; k < b; ++k) m = std::max(m, std::abs(y[k]));
      return m;
    }
    case CriterionKind::PeakToPeak: {
      const auto [lo, hi] = std::minmax_element(y.begin() + a, y.begin() + b);
      return *hi - *lo;
    }
    case CriterionKind::IntegralSquare: return trapezoid([&](std::size_t k) { return y[k] * y[k]; });
    case CriterionKind::WeightedIntegral: {
      if (c.derivative < 0 || c.derivative > 2) throw std::invalid_argument("the derivative order must be 0, 1 or 2");
      // Derivatives by central differences on the (possibly uneven) samples, one-sided at the ends.
      std::vector<double> d(y.begin() + a, y.begin() + b), tt(t.begin() + a, t.begin() + b);
      for (int order = 0; order < c.derivative; ++order) {
        std::vector<double> e(d.size());
        for (std::size_t k = 0; k < d.size(); ++k) {
          const std::size_t l = k == 0 ? 0 : k - 1, r = k + 1 == d.size() ? k : k + 1;
          e[k] = (d[r] - d[l]) / (tt[r] - tt[l]);
        }
        d.swap(e);
      }
      double s = 0.0;
      for (std::size_t k = 1; k < d.size(); ++k) {
        auto f = [&](std::size_t j) {
          const double m = c.exponent == 2.0 ? d[j] * d[j] : std::pow(std::abs(d[j]), c.exponent);
          return (c.weightPower == 0.0 ? 1.0 : std::pow(tt[j] - tt[0], c.weightPower)) * m;
        };
        s += 0.5 * (f(k - 1) + f(k)) * (tt[k] - tt[k - 1]);
      }
      return s;
    }
    case CriterionKind::ValueAt: {
      if (c.time < t[a] - 1e-12 || c.time > t[b - 1] + 1e-12)
        throw std::invalid_argument("the time " + shortestText(c.time) + " s is outside the samples");
      const std::size_t k = static_cast<std::size_t>(std::upper_bound(t.begin() + a, t.begin() + b, c.time) - t.begin());
      if (k >= b) return y[b - 1];
      if (k == a) return y[a];
      const double w = (c.time - t[k - 1]) / (t[k] - t[k - 1]);
      return (1.0 - w) * y[k - 1] + w * y[k];
    }
    case CriterionKind::SettlingTime: {
      const auto [lo, hi] = std::minmax_element(y.begin() + a, y.begin() + b);
      const double tolerance = c.band * (*hi - *lo), end = y[b - 1];
      for (std::size_t k = b; k-- > a;)
        if (std::abs(y[k] - end) > tolerance) return (k + 1 < b ? t[k + 1] : t[k]) - t[a];
      return 0.0;
    }
  }
  return 0.0;
}

std::vector<std::vector<double>> latinHypercube(int n, int dims, unsigned seed) {
  if (n < 1 || dims < 1) throw std::invalid_argument("a Latin hypercube needs at least one point and one dimension");
  std::mt19937 g(seed);
  std::vector<std::vector<double>> points(n, std::vector<double>(dims));
  std::vector<int> strata(n);
  for (int d = 0; d < dims; ++d) {
    for (int k = 0; k < n; ++k) strata[k] = k;
    for (int k = n - 1; k > 0; --k) std::swap(strata[k], strata[below(g, static_cast<std::uint32_t>(k + 1))]);
    for (int k = 0; k < n; ++k) {
      const double u = g() * (1.0 / 4294967296.0);  // in [0, 1)
      points[k][d] = (strata[k] + u) / n;
    }
  }
  return points;
}

std::vector<std::vector<double>> fullFactorial(const std::vector<int>& levels) {
  std::size_t total = 1;
  for (int l : levels) {
    if (l < 1) throw std::invalid_argument("every variable needs at least one level");
    total *= static_cast<std::size_t>(l);
  }
  std::vector<std::vector<double>> points(total, std::vector<double>(levels.size()));
  for (std::size_t i = 0; i < total; ++i) {
    std::size_t rest = i;
    for (std::size_t d = levels.size(); d-- > 0;) {
      const int l = levels[d], k = static_cast<int>(rest % static_cast<std::size_t>(l));
      rest /= static_cast<std::size_t>(l);
      points[i][d] = l == 1 ? 0.5 : double(k) / (l - 1);
    }
  }
  return points;
}

}  // namespace ek
