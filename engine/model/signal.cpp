// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/signal.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/core/text_file.h"

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
      if (std::isnan(t)) return t;  // would pass both range tests below and run off the end
      if (t <= p.front()[0]) return p.front()[1];
      if (t >= p.back()[0]) return p.back()[1];
      const auto it = std::upper_bound(p.begin(), p.end(), t,
                                       [](double x, const std::array<double, 2>& q) { return x < q[0]; });
      const auto& b = *it;
      const auto& a = *(it - 1);
      return a[1] + (b[1] - a[1]) * (t - a[0]) / (b[0] - a[0]);
    }
    case SignalType::Bump:
      // Cosine bump (paper 001 Sect. 5): offset + h/2 (1 - cos(2 pi (t - t0) / (t1 - t0))) on [t0, t1].
      if (!(t > s.t0 && t < s.t1)) return std::isnan(t) ? t : s.value;
      return s.value + 0.5 * s.amplitude * (1.0 - std::cos(2.0 * M_PI * (t - s.t0) / (s.t1 - s.t0)));
  }
  return 0.0;
}

double rate(const SignalRow& s, double t) {
  switch (s.type) {
    case SignalType::Constant:
    case SignalType::Step:
      return 0.0;
    case SignalType::Ramp:
      return t >= s.t0 && t < s.t1 ? (s.value2 - s.value) / (s.t1 - s.t0) : 0.0;
    case SignalType::Sine:
      if (t < s.t0) return 0.0;
      return s.amplitude * 2.0 * M_PI * s.frequency * std::cos(2.0 * M_PI * s.frequency * (t - s.t0) + s.phase);
    case SignalType::Chirp: {
      if (t < s.t0 || t > s.t1) return 0.0;
      const double tau = t - s.t0;
      const double k = (s.frequency2 - s.frequency) / (s.t1 - s.t0);
      return s.amplitude * 2.0 * M_PI * (s.frequency + k * tau) *
             std::cos(2.0 * M_PI * (s.frequency * tau + 0.5 * k * tau * tau));
    }
    case SignalType::Table: {
      const auto& p = s.table;
      if (p.size() < 2 || !(t >= p.front()[0]) || t >= p.back()[0]) return std::isnan(t) ? t : 0.0;
      const auto it = std::upper_bound(p.begin(), p.end(), t,
                                       [](double x, const std::array<double, 2>& q) { return x < q[0]; });
      const auto& b = *it;
      const auto& a = *(it - 1);
      return (b[1] - a[1]) / (b[0] - a[0]);
    }
    case SignalType::Bump: {
      if (!(t > s.t0 && t < s.t1)) return std::isnan(t) ? t : 0.0;
      const double w = 2.0 * M_PI / (s.t1 - s.t0);
      return 0.5 * s.amplitude * w * std::sin(w * (t - s.t0));
    }
  }
  return 0.0;
}

namespace {


}  // namespace

std::vector<std::array<double, 2>> readSignalTable(const std::string& path) {
  // Only regular files of a bounded size: a device or a pipe (/dev/zero, a FIFO) would never end.
  std::istringstream in(readTextFile(path, 256u << 20, "signal table"));
  std::vector<std::array<double, 2>> pts;
  std::string line;
  int lineNo = 0;
  char separator = 0;  // ',' or ';', fixed by the first data line
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '#') continue;
    const Location at{path, "", "line " + std::to_string(lineNo), ""};
    if (!separator) separator = line.find(';') != std::string::npos && line.find(',') == std::string::npos ? ';' : ',';
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, separator);) fields.push_back(f);
    double t = 0.0, v = 0.0;
    const bool tOk = fields.size() >= 1 && parseDecimalField(fields[0], t);
    const bool vOk = fields.size() >= 2 && parseDecimalField(fields[1], v);
    if (pts.empty() && lineNo == 1 && !tOk && !vOk) continue;  // header line
    if (fields.size() != 2)
      throw ModelError(at, "expected 2 columns 'time" + std::string(1, separator) + " value', found " +
                               std::to_string(fields.size()));
    if (!tOk || !vOk) {
      Location w = at;
      w.field = tOk ? "column 2" : "column 1";
      throw ModelError(w, "\"" + (tOk ? fields[1] : fields[0]) + "\" is not a finite decimal number");
    }
    if (!pts.empty() && !(t > pts.back()[0]))
      throw ModelError({path, "", "line " + std::to_string(lineNo), "column 1"}, "times must increase strictly");
    pts.push_back({t, v});
  }
  if (pts.size() < 2) throw ModelError({path, "", "", ""}, "a signal table needs at least 2 rows");
  return pts;
}

std::vector<std::string> referencedFiles(const Project& project) {
  const std::filesystem::path base = std::filesystem::path(project.sourcePath).parent_path();
  std::vector<std::string> files;
  for (const auto& lc : project.loadCases)
    for (const auto& d : lc.drives)
      if (d.signal.type == SignalType::Table && !d.signal.file.empty()) {
        const std::string f = (base / d.signal.file).lexically_normal().string();
        if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
      }
  return files;
}

InputSignals::InputSignals(const SuspensionModel& model, const LoadCaseRow& lc) {
  signals_.assign(model.nInputs(), SignalRow{});  // constant 0
  const std::filesystem::path base = std::filesystem::path(model.project().sourcePath).parent_path();
  for (std::size_t k = 0; k < lc.drives.size(); ++k) {
    const auto& d = lc.drives[k];
    SignalRow s = d.signal;
    if (s.type == SignalType::Table && !s.file.empty()) {  // else the points given in memory
      const std::string file = (base / s.file).string();
      try {
        s.table = readSignalTable(file);
      } catch (const ModelError& e) {
        throw ModelError({model.project().sourcePath, "load cases", "'" + printableExcerpt(lc.name) + "'",
                          "signals[" + std::to_string(k) + "].file"},
                         e.what());
      }
    }
    signals_[model.inputById(d.input)] = s;
  }
  loadCase_ = signals_;
  held_.assign(signals_.size(), 0);
}

void InputSignals::hold(int index, double value) {
  SignalRow& s = signals_.at(static_cast<std::size_t>(index));
  if (!held_[static_cast<std::size_t>(index)]) s = SignalRow{};  // constant (no table: no allocation afterwards)
  s.type = SignalType::Constant;
  s.value = value;
  held_[static_cast<std::size_t>(index)] = 1;
}

void InputSignals::release(int index) {
  signals_.at(static_cast<std::size_t>(index)) = loadCase_.at(static_cast<std::size_t>(index));
  held_[static_cast<std::size_t>(index)] = 0;
}

void InputSignals::holdLoadCaseAt(double t) {
  for (std::size_t k = 0; k < loadCase_.size(); ++k) hold(static_cast<int>(k), ek::evaluate(loadCase_[k], t));
}

void InputSignals::evaluate(double t, VecX& out) const {
  for (std::size_t k = 0; k < signals_.size(); ++k) out[static_cast<Eigen::Index>(k)] = ek::evaluate(signals_[k], t);
}

void InputSignals::evaluateRate(double t, VecX& out) const {
  for (std::size_t k = 0; k < signals_.size(); ++k) out[static_cast<Eigen::Index>(k)] = ek::rate(signals_[k], t);
}

}  // namespace ek
