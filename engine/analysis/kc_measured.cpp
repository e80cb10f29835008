// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/kc_measured.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/core/text_file.h"

namespace ek {
namespace {

constexpr std::uintmax_t kMaxMeasuredBytes = 64u << 20;

/// The fields of one CSV line (RFC 4180 quotes, `sep` between fields).
std::vector<std::string> splitFields(const std::string& line, char sep) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == sep) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

/// "toe left [deg]" or "toe left (deg)" -> name and unit; no unit: "".
std::pair<std::string, std::string> splitHeader(const std::string& header) {
  const std::string h = trimmed(header);
  for (const auto& [open, close] : {std::pair{'[', ']'}, std::pair{'(', ')'}}) {
    if (h.empty() || h.back() != close) continue;
    const auto at = h.rfind(open);
    if (at == std::string::npos) continue;
    return {trimmed(h.substr(0, at)), trimmed(h.substr(at + 1, h.size() - at - 2))};
  }
  return {h, ""};
}

}  // namespace

namespace {
struct RigUnit {
  const char* name;
  double factor;
  const char* kind;  ///< what it measures ("" for none: SI as the channel)
};
constexpr RigUnit kRigUnits[] = {
    {"", 1.0, ""},           {"-", 1.0, ""},          {"m", 1.0, "length"},     {"mm", 1e-3, "length"},
    {"cm", 1e-2, "length"},  {"km", 1e3, "length"},   {"in", 0.0254, "length"}, {"inch", 0.0254, "length"},
    {"ft", 0.3048, "length"}, {"rad", 1.0, "angle"},  {"deg", M_PI / 180, "angle"}, {"degree", M_PI / 180, "angle"},
    {"degrees", M_PI / 180, "angle"}, {"n", 1.0, "force"}, {"kn", 1e3, "force"}, {"lbf", 4.4482216152605, "force"},
    {"n m", 1.0, "moment"},  {"nm", 1.0, "moment"},   {"n*m", 1.0, "moment"},   {"kn m", 1e3, "moment"},
    {"knm", 1e3, "moment"}};

const RigUnit* rigUnit(const std::string& unit) {
  const std::string u = asciiLower(trimmed(unit));
  for (const RigUnit& r : kRigUnits)
    if (u == r.name) return &r;
  return nullptr;
}

/// What a channel's SI unit measures: length, angle, force, moment, or "other" (a ratio, a
/// rate, no unit), which no rig unit but "none" matches.
std::string channelKind(const std::string& siUnit) {
  if (siUnit == "m") return "length";
  if (siUnit == "rad") return "angle";
  if (siUnit == "N") return "force";
  if (siUnit == "N m") return "moment";
  return "other";
}
}  // namespace

bool unitToSi(const std::string& unit, double& factor) {
  const RigUnit* r = rigUnit(unit);
  if (r) factor = r->factor;
  return r != nullptr;
}

std::pair<double, std::string> displayUnit(const std::string& siUnit) {
  if (siUnit == "rad") return {180.0 / M_PI, "deg"};
  if (siUnit == "m") return {1000.0, "mm"};
  return {1.0, siUnit};
}

MeasuredKc readMeasuredKc(const std::string& path, const std::vector<std::pair<std::string, std::string>>& mapping,
                          const std::vector<std::string>& channels, const std::vector<std::string>& units) {
  const std::string text = readTextFile(path, kMaxMeasuredBytes, "measured K&C file");
  Diagnostics diag;
  MeasuredKc m;
  m.path = path;
  std::vector<std::pair<int, std::string>> lines;  // (line number, text) of the non-empty, non-comment lines
  {
    std::size_t start = 0;
    int number = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(start, end - start);
      ++number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!trimmed(line).empty() && trimmed(line)[0] != '#') lines.emplace_back(number, line);
      if (end == text.size()) break;
      start = end + 1;
    }
  }
  auto at = [&](int line, const std::string& column) {
    Location w{path, "", "line " + std::to_string(line), column};
    w.line = line;
    return w;
  };
  if (lines.empty()) {
    diag.error({path}, "no header and no data: the file is empty");
    diag.throwIfErrors();
  }
  const std::string& head = lines[0].second;
  const char sep = head.find(';') != std::string::npos && head.find(',') == std::string::npos ? ';' : ',';
  const std::vector<std::string> headers = splitFields(head, sep);
  if (headers.size() < 2) diag.error(at(lines[0].first, ""), "a header with the swept quantity and at least one channel is needed");
  // Each column's unit: from its header, or from a units row under the header (a second line
  // with no number in it: a data row with a typo stays a data row and is named as such).
  std::vector<std::string> columnUnits(headers.size());
  for (std::size_t c = 0; c < headers.size(); ++c) columnUnits[c] = splitHeader(headers[c]).second;
  std::size_t firstData = 1;
  if (lines.size() > 1) {
    const std::vector<std::string> f = splitFields(lines[1].second, sep);
    const bool units = std::none_of(f.begin(), f.end(), [](const std::string& field) {
      double number = 0.0;
      return parseDecimalField(field, number);
    });
    if (units) {
      firstData = 2;
      if (f.size() != headers.size())
        diag.error(at(lines[1].first, ""), "the units row has " + std::to_string(f.size()) + " fields, the header " +
                                               std::to_string(headers.size()));
      for (std::size_t c = 0; c < std::min(f.size(), headers.size()); ++c) {
        const auto [bare, bracketed] = splitHeader(f[c]);  // "deg", or "[deg]" / "(deg)"
        const std::string u = bare.empty() ? bracketed : bare;
        if (u.empty()) continue;
        if (columnUnits[c].empty()) columnUnits[c] = u;
        else if (asciiLower(columnUnits[c]) != asciiLower(u))
          diag.error(at(lines[1].first, headers[c]), "the units row says '" + printableExcerpt(u) + "', the header '" +
                                                         printableExcerpt(columnUnits[c]) + "'");
      }
    }
  }
  std::vector<double> factor(headers.size(), 1.0);
  std::vector<int> target(headers.size(), -1);  // index into m.columns
  std::vector<bool> used(mapping.size(), false);
  // One column, one channel: a column named twice in the mapping, or two columns onto one
  // channel, is an error (the later replaced the earlier).
  for (std::size_t k = 0; k < mapping.size(); ++k)
    for (std::size_t j = 0; j < k; ++j)
      if (mapping[j].first == mapping[k].first)
        diag.error({path, "", "", mapping[k].first}, "the mapping names this column twice (to '" + printableExcerpt(mapping[j].second) +
                                                         "' and to '" + printableExcerpt(mapping[k].second) + "'); map it once");
  std::map<std::string, std::string> channelColumn;  // channel -> the column compared with it
  for (std::size_t c = 0; c < headers.size(); ++c) {
    const std::string name = splitHeader(headers[c]).first, unit = columnUnits[c];
    // A column not compared may be in any unit (a rig writes N/mm columns too): only the swept
    // quantity's and the compared columns' units must be known.
    auto knownUnit = [&] {
      if (unitToSi(unit, factor[c])) return true;
      diag.error(at(lines[0].first, headers[c]), "unknown unit '" + printableExcerpt(unit) +
                                                     "' (m, mm, cm, in, ft, rad, deg, N, kN, lbf, N m, kN m, or none for SI)");
      return false;
    };
    if (c == 0) {
      knownUnit();
      m.sweepHeader = trimmed(headers[c]);
      continue;
    }
    std::string channel;
    for (std::size_t k = 0; k < mapping.size(); ++k)
      if (mapping[k].first == name || mapping[k].first == trimmed(headers[c])) {
        used[k] = true;
        if (channel.empty()) channel = mapping[k].second;  // a second mapping of it is reported above
      }
    if (channel.empty() && std::find(channels.begin(), channels.end(), name) != channels.end()) channel = name;
    if (channel.empty()) {
      m.leftOut.push_back(trimmed(headers[c]));
      continue;
    }
    if (std::find(channels.begin(), channels.end(), channel) == channels.end()) {
      diag.error(at(lines[0].first, headers[c]), "mapped to '" + printableExcerpt(channel) + "', which is not a channel of the sweep");
      continue;
    }
    if (!knownUnit()) continue;
    if (const auto [it, fresh] = channelColumn.emplace(channel, trimmed(headers[c])); !fresh) {
      diag.error(at(lines[0].first, headers[c]), "is the second column for the channel '" + printableExcerpt(channel) + "' (the first is '" +
                                                     printableExcerpt(it->second) + "'); compare one column with a channel");
      continue;
    }
    // The column's unit must measure what the channel does: toe in mm or kN is no toe.
    const std::size_t ci = static_cast<std::size_t>(std::find(channels.begin(), channels.end(), channel) - channels.begin());
    const RigUnit* ru = rigUnit(unit);
    auto a = [](const std::string& kind) { return (kind[0] == 'a' ? "an " : "a ") + kind; };
    if (ru && *ru->kind && ci < units.size() && channelKind(units[ci]) != ru->kind)
      diag.error(at(lines[0].first, headers[c]), "the unit '" + printableExcerpt(unit) + "' is " + a(ru->kind) + ", but the channel '" +
                                                     printableExcerpt(channel) + "' is " +
                                                     (channelKind(units[ci]) == "other" ? "in " + units[ci] : a(channelKind(units[ci])) + " (" + units[ci] + ")") +
                                                     ": they cannot be compared");
    target[c] = static_cast<int>(m.columns.size());
    m.columns.push_back({trimmed(headers[c]), channel, {}});
  }
  for (std::size_t k = 0; k < mapping.size(); ++k)
    if (!used[k]) diag.error({path, "", "", mapping[k].first}, "the mapping names a column the file does not have");
  if (!diag.hasErrors() && m.columns.empty()) {
    std::string known;
    for (std::size_t k = 0; k < std::min<std::size_t>(channels.size(), 6); ++k) known += (k ? "', '" : "'") + channels[k];
    diag.error(at(lines[0].first, ""), "no column maps to a channel of the sweep, so nothing would be compared: name the columns "
                                       "as the sweep's channels (" + known + "', ...) or map them (NAME=CHANNEL)");
  }
  int badRows = 0;
  for (std::size_t r = firstData; r < lines.size(); ++r) {
    const std::vector<std::string> f = splitFields(lines[r].second, sep);
    if (f.size() != headers.size()) {
      if (++badRows <= 5)
        diag.error(at(lines[r].first, ""), std::to_string(f.size()) + " fields, the header has " + std::to_string(headers.size()));
      continue;
    }
    double sweep = 0.0;
    bool ok = true;
    std::vector<double> row(f.size());
    for (std::size_t c = 0; c < f.size(); ++c) {
      if (c > 0 && target[c] < 0) continue;
      if (!parseDecimalField(f[c], row[c])) {
        ok = false;
        if (++badRows <= 5) diag.error(at(lines[r].first, headers[c]), "'" + printableExcerpt(f[c]) + "' is not a finite decimal number");
      }
    }
    if (!ok) continue;
    sweep = row[0] * factor[0];
    m.sweep.push_back(sweep);
    for (std::size_t c = 1; c < f.size(); ++c)
      if (target[c] >= 0) m.columns[target[c]].values.push_back(row[c] * factor[c]);
  }
  if (badRows > 5) diag.error({path}, std::to_string(badRows - 5) + " more rows with the same kinds of problems");
  if (!diag.hasErrors() && m.sweep.size() < 2) diag.error({path}, "fewer than 2 data rows");
  if (!diag.hasErrors()) {
    // Rigs sweep either way, and loops of loading and unloading: split into monotonic branches
    // (a turning point ends one and starts the next); one falling branch is read backwards.
    for (std::size_t k = 1; k < m.sweep.size(); ++k) {
      if (!(m.sweep[k] != m.sweep[k - 1])) {
        diag.error({path, "", "", m.sweepHeader}, "the swept quantity stands still from row to row (at " +
                                                      significant(m.sweep[k], 6) + " SI): each point needs its own value");
        break;
      }
      const bool rising = m.sweep[k] > m.sweep[k - 1];
      if (m.branches.empty() || m.branches.back().rising != rising) m.branches.push_back({k - 1, k, rising});
      m.branches.back().end = k + 1;
    }
    if (m.branches.size() == 1 && !m.branches[0].rising) {
      std::reverse(m.sweep.begin(), m.sweep.end());
      for (auto& c : m.columns) std::reverse(c.values.begin(), c.values.end());
      m.branches[0].rising = true;
    }
  }
  diag.throwIfErrors();
  return m;
}

std::string MeasuredKc::branchName(std::size_t k) const {
  if (branches.size() <= 1 || k >= branches.size()) return "";
  return "branch " + std::to_string(k + 1) + " of " + std::to_string(branches.size()) +
         (branches[k].rising ? " (rising)" : " (falling)");
}

std::vector<KcCorrelation> correlate(const KcResult& r, const MeasuredKc& measured) {
  if (r.sweep.size() < 2) throw std::invalid_argument("the computed sweep has fewer than 2 points");
  const auto inside = [&](double s) { return s >= r.sweep.front() && s <= r.sweep.back(); };
  if (!measured.sweep.empty() && std::none_of(measured.sweep.begin(), measured.sweep.end(), inside)) {
    // The rig data is fine but does not meet the sweep: an error of the file against the run,
    // named by its sweep column, in the sweep's display unit.
    const auto [f, u] = displayUnit(r.sweepUnit);
    throw ModelError({measured.path, "", "", printableExcerpt(measured.sweepHeader)},
                     "no measured point lies inside the computed sweep: the file's points run from " +
                         significant(measured.sweep.front() * f, 6) + " to " + significant(measured.sweep.back() * f, 6) +
                         " " + u + ", the sweep from " + significant(r.sweep.front() * f, 6) + " to " +
                         significant(r.sweep.back() * f, 6) + " " + u +
                         " (sweep over the file's range with --from and --to, or check the first column's unit)");
  }
  // A measured column at swept value s, interpolated on branch b (NaN outside it).
  auto onBranch = [&](const MeasuredKc::Column& col, const MeasuredKc::Branch& b, double s) {
    for (std::size_t i = b.begin + 1; i < b.end; ++i) {
      const double s0 = measured.sweep[i - 1], s1 = measured.sweep[i];
      if ((s - s0) * (s - s1) <= 0.0) return col.values[i - 1] + (s - s0) / (s1 - s0) * (col.values[i] - col.values[i - 1]);
    }
    return std::numeric_limits<double>::quiet_NaN();
  };
  std::vector<MeasuredKc::Branch> branches = measured.branches;
  if (branches.empty()) branches.push_back({0, measured.sweep.size(), true});
  std::vector<KcCorrelation> out;
  for (const auto& col : measured.columns) {
    const int c = r.column(col.channel);
    if (c < 0) throw std::invalid_argument("the sweep has no channel '" + col.channel + "'");
    const auto [factor, unit] = displayUnit(r.units[c]);
    // The loop's width: every falling branch's points against every rising branch.
    double hysteresis = 0.0;
    for (const auto& up : branches)
      for (const auto& down : branches)
        if (up.rising && !down.rising)
          for (std::size_t i = down.begin; i < down.end; ++i)
            if (const double v = onBranch(col, up, measured.sweep[i]); std::isfinite(v))
              hysteresis = std::max(hysteresis, std::abs(v - col.values[i]) * factor);
    for (std::size_t b = 0; b < branches.size(); ++b) {
      KcCorrelation k;
      k.channel = col.channel;
      k.unit = unit;
      k.branch = measured.branchName(b);
      k.hysteresis = hysteresis;
      double sum = 0.0;
      for (std::size_t i = branches[b].begin; i < branches[b].end; ++i) {
        const double s = measured.sweep[i];
        if (!inside(s)) {
          ++k.outside;
          continue;
        }
        const auto hi = std::upper_bound(r.sweep.begin(), r.sweep.end(), s);
        const std::size_t j = std::min<std::size_t>(std::max<std::ptrdiff_t>(hi - r.sweep.begin(), 1), r.sweep.size() - 1);
        const double t = (s - r.sweep[j - 1]) / (r.sweep[j] - r.sweep[j - 1]);
        const double computed = r.values[j - 1][c] + t * (r.values[j][c] - r.values[j - 1][c]);
        const double d = (computed - col.values[i]) * factor;
        sum += d * d;
        k.mean += d;
        if (std::abs(d) > k.max) k.max = std::abs(d), k.largest = d, k.maxAt = s;
        ++k.points;
      }
      if (k.points > 0) {
        k.rms = std::sqrt(sum / k.points);
        k.mean /= k.points;
      } else {  // this branch lies outside the computed sweep
        k.rms = k.mean = k.max = k.largest = std::numeric_limits<double>::quiet_NaN();
      }
      out.push_back(k);
    }
  }
  return out;
}

}  // namespace ek
