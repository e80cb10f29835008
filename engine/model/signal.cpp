// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/signal.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"

namespace ek {

double evaluate(const SignalRow& s, double t) {
  switch (s.type) {
    case SignalType::Constant:
      return s.value;
    case SignalType::Step:
      return t < s.t0 ? s.value : s.value2;
    case SignalType::Ramp:
      if (t <= s.t0) return s.value;
      if (t >= s.t1) return s.value2;
      return s.value + (s.value2 - s.value) * (t - s.t0) / (s.t1 - s.t0);
    case SignalType::Sine:
      if (t < s.t0) return s.value;
      return s.value + s.amplitude * std::sin(2.0 * M_PI * s.frequency * (t - s.t0) + s.phase);
    case SignalType::Chirp: {
      // Linear frequency sweep f(tau) = f0 + k tau, phase 2 pi (f0 tau + k tau^2 / 2); paper 003 LC2
      // is f0 = 0, f1 = 30 Hz over 15 s: 500 sin(2 pi (t - 5)^2).
      if (t < s.t0 || t > s.t1) return s.value;
      const double tau = t - s.t0;
      const double k = (s.frequency2 - s.frequency) / (s.t1 - s.t0);
      return s.value + s.amplitude * std::sin(2.0 * M_PI * (s.frequency * tau + 0.5 * k * tau * tau));
    }
    case SignalType::Table: {
      const auto& p = s.table;
      if (p.empty()) return 0.0;
      if (t <= p.front()[0]) return p.front()[1];
      if (t >= p.back()[0]) return p.back()[1];
      const auto it = std::upper_bound(p.begin(), p.end(), t,
                                       [](double x, const std::array<double, 2>& q) { return x < q[0]; });
      const auto& b = *it;
      const auto& a = *(it - 1);
      return a[1] + (b[1] - a[1]) * (t - a[0]) / (b[0] - a[0]);
    }
  }
  return 0.0;
}

std::vector<std::array<double, 2>> readSignalTable(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ModelError({path, "", "", ""}, "cannot open the signal table");
  std::vector<std::array<double, 2>> pts;
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '#') continue;
    std::replace(line.begin(), line.end(), ';', ',');
    std::stringstream ss(line);
    std::string a, b;
    std::getline(ss, a, ',');
    std::getline(ss, b, ',');
    char* end = nullptr;
    const double t = std::strtod(a.c_str(), &end);
    const bool tOk = end != a.c_str();
    const double v = std::strtod(b.c_str(), &end);
    const bool vOk = end != b.c_str();
    if (!tOk || !vOk) {
      if (pts.empty() && lineNo == 1) continue;  // header line
      throw ModelError({path, "", "line " + std::to_string(lineNo), tOk ? "column 2" : "column 1"},
                       "expected two numbers 'time, value'");
    }
    if (!std::isfinite(t) || !std::isfinite(v))
      throw ModelError({path, "", "line " + std::to_string(lineNo), ""}, "value is not finite");
    if (!pts.empty() && !(t > pts.back()[0]))
      throw ModelError({path, "", "line " + std::to_string(lineNo), "column 1"}, "times must increase strictly");
    pts.push_back({t, v});
  }
  if (pts.size() < 2) throw ModelError({path, "", "", ""}, "a signal table needs at least 2 rows");
  return pts;
}

InputSignals::InputSignals(const SuspensionModel& model, const LoadCaseRow& lc) {
  signals_.assign(model.nInputs(), SignalRow{});  // constant 0
  const std::filesystem::path base = std::filesystem::path(model.project().sourcePath).parent_path();
  for (std::size_t k = 0; k < lc.drives.size(); ++k) {
    const auto& d = lc.drives[k];
    SignalRow s = d.signal;
    if (s.type == SignalType::Table) {
      const std::string file = (base / s.file).string();
      try {
        s.table = readSignalTable(file);
      } catch (const ModelError& e) {
        throw ModelError({model.project().sourcePath, "load cases", "'" + lc.name + "'",
                          "signals[" + std::to_string(k) + "].file"},
                         e.what());
      }
    }
    signals_[model.inputById(d.input)] = s;
  }
}

void InputSignals::evaluate(double t, VecX& out) const {
  for (std::size_t k = 0; k < signals_.size(); ++k) out[static_cast<Eigen::Index>(k)] = ek::evaluate(signals_[k], t);
}

}  // namespace ek
