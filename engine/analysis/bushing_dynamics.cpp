// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/bushing_dynamics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <unsupported/Eigen/LevenbergMarquardt>

#include "engine/core/error.h"
#include "engine/core/text_file.h"
#include "engine/model/validate.h"
#include "engine/core/text.h"

namespace ek {

namespace {

using Complex = std::complex<double>;
constexpr double kPi = 3.14159265358979323846;

/// The slope at 0 of a law (a curve's derivative there, or the coefficient).
double slopeAtZero(const Project& p, const LawRow& law, const std::string& what) {
  const double slope = lawSlopeAtZero(p, law);
  if (std::isnan(slope))
    throw ModelError({p.sourcePath, "curves", "id " + std::to_string(*law.curve), ""},
                     "curve " + std::to_string(*law.curve) + " of " + what + " is missing or not a valid curve");
  return slope;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\""), b = s.find_last_not_of(" \t\"");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

/// "magnitude [N/mm]" -> ("magnitude", "n/mm"): a header cell's name and unit, lower case.
std::pair<std::string, std::string> nameAndUnit(const std::string& cell) {
  const std::string t = asciiLower(trim(cell));
  const auto open = t.find('['), close = t.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return {t, ""};
  std::string unit = t.substr(open + 1, close - open - 1);
  unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
  return {trim(t.substr(0, open)), unit};
}

/// The model of the fit: its parameters are log k0 (when fitted), then per branch log k_i and
/// log lambda_i (lambda_i = k_i / c_i).
struct FitModel {
  const StiffnessMeasurement& m;
  const FitOptions& o;
  int parameters() const { return (o.fitStatic ? 1 : 0) + 2 * o.branches; }

  void residuals(const Eigen::VectorXd& x, Eigen::VectorXd& r, Eigen::MatrixXd* J) const {
    const int n = static_cast<int>(m.points.size());
    r.resize(2 * n);
    if (J) J->resize(2 * n, parameters());
    const double k0 = o.fitStatic ? std::exp(x[0]) : o.start.k0;
    const int first = o.fitStatic ? 1 : 0;
    for (int p = 0; p < n; ++p) {
      const StiffnessPoint& pt = m.points[p];
      const double w = 2 * kPi * pt.frequency, scale = 1.0 / pt.magnitude;
      const Complex jw(0.0, w);
      Complex K = k0 + jw * o.start.c0;
      auto put = [&](int col, Complex d) {
        (*J)(2 * p, col) = d.real() * scale;
        (*J)(2 * p + 1, col) = d.imag() * scale;
      };
      if (J && o.fitStatic) put(0, k0);
      for (int i = 0; i < o.branches; ++i) {
        const double k = std::exp(x[first + 2 * i]), l = std::exp(x[first + 2 * i + 1]);
        const Complex s = jw / (l + jw);
        K += k * s;
        if (J) {
          put(first + 2 * i, k * s);
          put(first + 2 * i + 1, -k * l * jw / ((l + jw) * (l + jw)));
        }
      }
      const Complex e = (K - std::polar(pt.magnitude, pt.lossAngle)) * scale;
      r[2 * p] = e.real();
      r[2 * p + 1] = e.imag();
    }
  }
};

struct LmFunctor : Eigen::DenseFunctor<double> {
  LmFunctor(const FitModel& f, int values) : Eigen::DenseFunctor<double>(f.parameters(), values), fit(f) {}
  int operator()(const InputType& x, ValueType& r) const {
    Eigen::VectorXd rr;
    fit.residuals(x, rr, nullptr);
    r = rr;
    return 0;
  }
  int df(const InputType& x, JacobianType& J) const {
    Eigen::VectorXd rr;
    Eigen::MatrixXd JJ;
    fit.residuals(x, rr, &JJ);
    J = JJ;
    return 0;
  }
  const FitModel& fit;
};

const char* statusText(Eigen::LevenbergMarquardtSpace::Status s) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (s) {
    case RelativeReductionTooSmall: return "converged (relative reduction of the residual below the tolerance)";
    case RelativeErrorTooSmall: return "converged (relative change of the parameters below the tolerance)";
    case RelativeErrorAndReductionTooSmall: return "converged (residual and parameters)";
    case CosinusTooSmall: return "converged (residual orthogonal to the Jacobian's columns)";
    case TooManyFunctionEvaluation: return "stopped: too many evaluations";
    case FtolTooSmall: return "converged (no further reduction possible: residual tolerance)";
    case XtolTooSmall: return "converged (no further improvement possible: parameter tolerance)";
    case GtolTooSmall: return "converged (gradient tolerance)";
    default: return "stopped";
  }
}

/// A start: lambda_i spread geometrically over the measured angular frequencies (times
/// `shift`), the stiffnesses (and k0) from the linear least-squares problem they leave.
Eigen::VectorXd startValues(const StiffnessMeasurement& m, const FitOptions& o, double shift) {
  const double w0 = 2 * kPi * m.points.front().frequency, w1 = 2 * kPi * m.points.back().frequency;
  const int nb = o.branches, first = o.fitStatic ? 1 : 0, n = static_cast<int>(m.points.size());
  std::vector<double> lambda(nb);
  for (int i = 0; i < nb; ++i) lambda[i] = shift * w0 * std::pow(std::max(w1 / w0, 1.0 + 1e-9), (i + 0.5) / nb);
  Eigen::MatrixXd A(2 * n, first + nb);
  Eigen::VectorXd b(2 * n);
  for (int p = 0; p < n; ++p) {
    const StiffnessPoint& pt = m.points[p];
    const Complex jw(0.0, 2 * kPi * pt.frequency);
    const double scale = 1.0 / pt.magnitude;
    Complex rhs = std::polar(pt.magnitude, pt.lossAngle) - jw * o.start.c0;
    if (o.fitStatic) A(2 * p, 0) = scale, A(2 * p + 1, 0) = 0.0;
    else rhs -= o.start.k0;
    for (int i = 0; i < nb; ++i) {
      const Complex s = jw / (lambda[i] + jw) * scale;
      A(2 * p, first + i) = s.real();
      A(2 * p + 1, first + i) = s.imag();
    }
    b[2 * p] = rhs.real() * scale;
    b[2 * p + 1] = rhs.imag() * scale;
  }
  const Eigen::VectorXd k = A.colPivHouseholderQr().solve(b);
  double typical = 0.0;
  for (const auto& pt : m.points) typical += pt.magnitude / n;
  Eigen::VectorXd x(first + 2 * nb);
  if (o.fitStatic) x[0] = std::log(std::max(k[0], 1e-3 * typical));
  for (int i = 0; i < nb; ++i) {
    x[first + 2 * i] = std::log(std::max(k[first + i], 1e-3 * typical));
    x[first + 2 * i + 1] = std::log(lambda[i]);
  }
  return x;
}

}  // namespace

DirectionDynamics directionDynamics(const Project& p, const BushingRow& b, int direction) {
  const BushingDirectionRow& d = b.directions.at(static_cast<std::size_t>(direction));
  const std::string what = "bushing " + std::to_string(b.id) + " ('" + printableExcerpt(b.name) + "') " + kBushingDirections[direction];
  DirectionDynamics out;
  out.k0 = slopeAtZero(p, d.stiffness, what + " stiffness");
  out.c0 = slopeAtZero(p, d.damping, what + " damping");
  out.branches = d.maxwell;
  out.rotational = direction >= 3;
  return out;
}

std::complex<double> complexStiffness(const DirectionDynamics& d, double frequency) {
  const Complex jw(0.0, 2 * kPi * frequency);
  Complex K = d.k0 + jw * d.c0;
  for (const MaxwellBranchRow& b : d.branches) K += b.stiffness * jw * b.damping / (b.stiffness + jw * b.damping);
  return K;
}

StiffnessMeasurement parseStiffnessCsv(const std::string& text, const std::string& path) {
  StiffnessMeasurement m;
  m.path = path;
  Diagnostics diag;
  auto at = [&](int line, int column) {
    Location w{path};
    w.line = line;
    w.column = column;
    return w;
  };
  std::istringstream in(text);
  std::string line;
  int lineNo = 0, colFrequency = -1, colMagnitude = -1, colLoss = -1;
  double magnitudeFactor = 1.0, lossFactor = kPi / 180.0;
  bool header = false;
  char separator = ',';
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    std::vector<std::string> fields;
    if (!header) separator = line.find(';') != std::string::npos && line.find(',') == std::string::npos ? ';' : ',';
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, separator);) fields.push_back(f);
    if (!header) {
      // The first line that is not a comment is the header: the three columns and their units.
      header = true;
      for (int c = 0; c < static_cast<int>(fields.size()); ++c) {
        const auto [name, unit] = nameAndUnit(fields[c]);
        if (name == "frequency") {
          colFrequency = c;
          if (unit != "hz") diag.error(at(lineNo, c + 1), "the frequency's unit must be [Hz], found [" + unit + "]");
        } else if (name == "magnitude" || name == "dynamic stiffness" || name == "stiffness") {
          colMagnitude = c;
          static const std::pair<const char*, double> translational[] = {
              {"n/m", 1.0}, {"n/mm", 1e3}, {"kn/m", 1e3}, {"kn/mm", 1e6}};
          static const std::pair<const char*, double> rotational[] = {
              {"nm/rad", 1.0}, {"nm/deg", 180.0 / kPi}, {"nmm/rad", 1e-3}, {"nmm/deg", 0.18 / kPi}};
          bool known = false;
          for (const auto& [u, f] : translational)
            if (unit == u) known = true, magnitudeFactor = f, m.rotational = false;
          for (const auto& [u, f] : rotational)
            if (unit == u) known = true, magnitudeFactor = f, m.rotational = true;
          if (!known)
            diag.error(at(lineNo, c + 1), "unknown unit [" + unit +
                                              "] of the magnitude (N/m, N/mm, kN/m, kN/mm, N m/rad, N m/deg, "
                                              "N mm/rad, N mm/deg)");
        } else if (name == "loss angle" || name == "phase") {
          colLoss = c;
          if (unit == "rad") lossFactor = 1.0;
          else if (unit != "deg")
            diag.error(at(lineNo, c + 1), "the loss angle's unit must be [deg] or [rad], found [" + unit + "]");
        }
      }
      const std::string first = "the first line that is not a comment must be the header; ";
      if (colFrequency < 0) diag.error(at(lineNo, 0), first + "missing column 'frequency [Hz]'");
      if (colMagnitude < 0) diag.error(at(lineNo, 0), first + "missing column 'magnitude [N/m]' (or another stiffness unit)");
      if (colLoss < 0) diag.error(at(lineNo, 0), first + "missing column 'loss angle [deg]'");
      if (colFrequency < 0 || colMagnitude < 0 || colLoss < 0) break;  // the rows cannot be read
      continue;
    }
    StiffnessPoint pt;
    bool ok = true;
    const std::pair<int, double*> cells[] = {{colFrequency, &pt.frequency}, {colMagnitude, &pt.magnitude}, {colLoss, &pt.lossAngle}};
    for (const auto& [c, out] : cells) {
      if (c >= static_cast<int>(fields.size())) {
        diag.error(at(lineNo, c + 1), "the line has " + std::to_string(fields.size()) + " columns, column " +
                                          std::to_string(c + 1) + " is missing");
        ok = false;
      } else if (!parseDecimalField(fields[c], *out)) {
        diag.error(at(lineNo, c + 1), "\"" + trim(fields[c]) + "\" is not a finite decimal number");
        ok = false;
      }
    }
    if (!ok) continue;
    if (!(pt.frequency > 0.0)) diag.error(at(lineNo, colFrequency + 1), "the frequency must be positive"), ok = false;
    if (!(pt.magnitude > 0.0)) diag.error(at(lineNo, colMagnitude + 1), "the magnitude must be positive"), ok = false;
    pt.magnitude *= magnitudeFactor;
    pt.lossAngle *= lossFactor;
    if (!(pt.lossAngle >= 0.0 && pt.lossAngle < kPi / 2))
      diag.error(at(lineNo, colLoss + 1), "the loss angle must lie in 0 ... 90 deg (a passive bushing)"), ok = false;
    if (ok) m.points.push_back(pt);
  }
  if (!diag.hasErrors() && !header) diag.error({path}, "the file holds no header and no data");
  else if (!diag.hasErrors() && m.points.size() < 3)
    diag.error({path}, "a measurement needs at least 3 points, found " + std::to_string(m.points.size()));
  diag.throwIfErrors();
  std::stable_sort(m.points.begin(), m.points.end(),
                   [](const StiffnessPoint& a, const StiffnessPoint& b) { return a.frequency < b.frequency; });
  return m;
}

StiffnessMeasurement readStiffnessCsv(const std::string& path) {
  return parseStiffnessCsv(readTextFile(path, 64u << 20, "measurement file"), path);
}

std::string stiffnessCsvText(const StiffnessMeasurement& m, const std::string& comment) {
  std::string out;
  std::istringstream lines(comment);
  for (std::string l; std::getline(lines, l);) out += "# " + l + "\n";
  out += m.rotational ? "frequency [Hz],magnitude [N m/rad],loss angle [deg]\n" : "frequency [Hz],magnitude [N/m],loss angle [deg]\n";
  char buf[128];
  for (const StiffnessPoint& p : m.points) {
    ek::csnprintf(buf, sizeof buf, "%.17g,%.17g,%.17g\n", p.frequency, p.magnitude, p.lossAngle * 180.0 / kPi);
    out += buf;
  }
  return out;
}

void fitResiduals(const StiffnessMeasurement& m, const FitOptions& options, const Eigen::VectorXd& parameters,
                  Eigen::VectorXd& residuals, Eigen::MatrixXd* jacobian) {
  FitModel{m, options}.residuals(parameters, residuals, jacobian);
}

FitResult fitMaxwellBranches(const StiffnessMeasurement& m, const FitOptions& options) {
  if (options.branches < 1 || options.branches > 8)
    throw std::invalid_argument("the number of Maxwell branches must be 1 ... 8, not " + std::to_string(options.branches));
  const FitModel model{m, options};
  const int nValues = 2 * static_cast<int>(m.points.size()), nParams = model.parameters();
  if (nValues <= nParams)
    throw std::invalid_argument(m.path + ": " + std::to_string(m.points.size()) + " points cannot determine " +
                                std::to_string(nParams) + " parameters; use fewer branches or more points");
  // Three starts (the relaxation rates spread over the measured band, and shifted down and up by
  // a factor of 3); the best optimum is kept.
  Eigen::VectorXd best;
  double bestCost = std::numeric_limits<double>::infinity();
  FitResult result;
  for (double shift : {1.0, 1.0 / 3.0, 3.0}) {
    Eigen::VectorXd x = startValues(m, options, shift);
    LmFunctor f(model, nValues);
    Eigen::LevenbergMarquardt<LmFunctor> lm(f);
    lm.setXtol(1e-15);
    lm.setFtol(1e-15);
    lm.setGtol(0.0);
    lm.setMaxfev(4000);
    const auto status = lm.minimize(x);
    Eigen::VectorXd r;
    model.residuals(x, r, nullptr);
    const double cost = r.squaredNorm();
    if (std::isfinite(cost) && cost < bestCost) {
      bestCost = cost;
      best = x;
      result.iterations = static_cast<int>(lm.iterations());
      result.status = statusText(status);
    }
  }
  // Every start ended where the residuals are not finite (measured values beyond what the model's
  // arithmetic holds, e.g. a stiffness of 1e200): nothing to report but that.
  if (best.size() == 0)
    throw std::invalid_argument(m.path + ": the fit found no finite optimum from any of its three starts (are the "
                                "measured stiffnesses finite and of a real bushing's magnitude?)");
  Eigen::VectorXd r;
  Eigen::MatrixXd J;
  model.residuals(best, r, &J);
  const int first = options.fitStatic ? 1 : 0;
  // Standard errors of the log parameters: s^2 (J^T J)^-1, s^2 the residual variance.
  const double s2 = r.squaredNorm() / (nValues - nParams);
  const Eigen::MatrixXd cov = s2 * (J.transpose() * J).completeOrthogonalDecomposition().pseudoInverse();
  result.model = options.start;
  result.model.rotational = m.rotational;
  result.model.k0 = options.fitStatic ? std::exp(best[0]) : options.start.k0;
  result.model.branches.clear();
  std::vector<int> order(options.branches);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return best[first + 2 * a + 1] < best[first + 2 * b + 1]; });
  if (options.fitStatic) result.logStandardErrors.push_back(std::sqrt(std::max(cov(0, 0), 0.0)));
  for (int i : order) {
    const double k = std::exp(best[first + 2 * i]), l = std::exp(best[first + 2 * i + 1]);
    result.model.branches.push_back({k, k / l});
    for (int q : {first + 2 * i, first + 2 * i + 1}) result.logStandardErrors.push_back(std::sqrt(std::max(cov(q, q), 0.0)));
  }
  double sqMag = 0.0, sqLoss = 0.0;
  for (const StiffnessPoint& pt : m.points) {
    const Complex K = complexStiffness(result.model, pt.frequency);
    sqMag += std::pow(std::abs(K) / pt.magnitude - 1.0, 2);
    sqLoss += std::pow(std::arg(K) - pt.lossAngle, 2);
  }
  const double n = static_cast<double>(m.points.size());
  result.rmsMagnitude = std::sqrt(sqMag / n);
  result.rmsLossAngle = std::sqrt(sqLoss / n);
  result.rmsComplex = std::sqrt(r.squaredNorm() / n);
  return result;
}

HydroImport importHydroBushing(const Project& project, int id, const PropertyData& data, const HydroImportOptions& o) {
  if (data.type != PropertyType::HydroBushing)
    throw ModelError({data.path}, std::string("a '") + propertyTypeName(data.type) + "' file is not a hydro bushing");
  int index = -1;
  for (std::size_t k = 0; k < project.bushings.size(); ++k)
    if (project.bushings[k].id == id) index = static_cast<int>(k);
  if (index < 0) throw ModelError({project.sourcePath, "bushings", "id " + std::to_string(id), ""}, "no such row to import onto");
  HydroImport out;
  PropertyImport& r = out.import;
  r.fileType = "hbu";
  r.units = data.units.describe();
  r.warnings = data.warnings;
  r.leftOut = data.leftOut;
  r.project = project;
  BushingRow& b = r.project.bushings[index];
  for (int d = 0; d < 6; ++d) {
    std::vector<const HydroTable*> tables;
    for (const HydroTable& t : data.hydro)
      if (t.direction == d) tables.push_back(&t);
    if (tables.empty()) continue;
    const bool rot = d >= 3;
    const double unit = rot ? data.units.angle : data.units.length;
    const HydroTable* pick = *std::min_element(tables.begin(), tables.end(),
                                               [](const HydroTable* a, const HydroTable* c) { return a->amplitude < c->amplitude; });
    if (o.amplitude) {
      pick = nullptr;
      std::string have;
      for (const HydroTable* t : tables) {
        if (std::abs(t->amplitude - *o.amplitude) <= 1e-9 * std::max(std::abs(*o.amplitude), 1e-300)) pick = t;
        have += (have.empty() ? "" : ", ") + significant(t->amplitude / unit, 6);
      }
      if (!pick)
        throw ModelError({data.path}, "no " + std::string(kBushingDirections[d]) + " table at the amplitude " +
                                          significant(*o.amplitude / unit, 6) + " " + (rot ? data.units.angleName : data.units.lengthName) +
                                          " (the file has " + have + ")");
    }
    StiffnessMeasurement m;
    m.path = data.path;
    m.rotational = rot;
    for (const HydroPoint& p : pick->points) m.points.push_back({p.frequency, p.magnitude, p.lossAngle});
    FitOptions fo;
    fo.branches = o.branches;
    fo.start = directionDynamics(r.project, b, d);
    // The measured dynamic stiffness is the direction's whole dynamics: its damper is replaced by
    // the branches (a damper kept would add loss the measurement already holds).
    fo.start.c0 = 0.0;
    fo.fitStatic = !b.directions[d].stiffness.curve;
    FitResult fit;
    try {
      fit = fitMaxwellBranches(m, fo);
    } catch (const std::exception& e) {
      throw ModelError({data.path, "", "", pick->block}, std::string("the Maxwell fit of the ") + kBushingDirections[d] +
                                                              " table failed: " + e.what());
    }
    bool finite = std::isfinite(fit.model.k0);
    for (const MaxwellBranchRow& br : fit.model.branches)
      finite = finite && std::isfinite(br.stiffness) && std::isfinite(br.damping) && br.stiffness > 0 && br.damping > 0;
    if (!finite)
      throw ModelError({data.path, "", "", pick->block},
                       std::string("the Maxwell fit of the ") + kBushingDirections[d] + " table did not give finite branches (" +
                           fit.status + "); try fewer branches (--branches)");
    BushingDirectionRow& dir = b.directions[d];
    if (dir.damping.curve || dir.damping.coefficient != 0.0)
      r.changes.push_back(b.name + " " + kBushingDirections[d] + " damping: replaced by the branches (0)");
    dir.damping = LawRow{0.0, std::nullopt};
    dir.maxwell = fit.model.branches;
    if (fo.fitStatic) dir.stiffness = LawRow{fit.model.k0, std::nullopt};
    const std::string label = b.name + " " + kBushingDirections[d];
    r.changes.push_back(label + ": " + std::to_string(fit.model.branches.size()) + " Maxwell branch(es) fitted to [" +
                        pick->block + "] at the amplitude " + significant(pick->amplitude / unit, 6) + " " +
                        (rot ? data.units.angleName : data.units.lengthName) + " (" + std::to_string(m.points.size()) +
                        " points): RMS magnitude error " + significant(100.0 * fit.rmsMagnitude, 3) +
                        " %, RMS loss-angle error " + significant(fit.rmsLossAngle * 180.0 / kPi, 3) + " deg" +
                        (fo.fitStatic ? "; static stiffness " + significant(fit.model.k0, 8) + (rot ? " N m/rad" : " N/m")
                                      : "; the static stiffness curve is kept"));
    for (const HydroTable* t : tables)
      if (t != pick)
        r.leftOut.push_back(label + " table at the amplitude " + significant(t->amplitude / unit, 6) + " " +
                            (rot ? data.units.angleName : data.units.lengthName) +
                            " (one amplitude is fitted; choose it with --amplitude)");
    out.fits.push_back({d, pick->amplitude, fit});
  }
  checkImportResult(project, r.project, data.path);
  return out;
}

}  // namespace ek
