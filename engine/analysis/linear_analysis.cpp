// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/linear_analysis.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <locale>

#include "engine/analysis/kc.h"
#include "engine/analysis/simulation.h"
#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "engine/dynamics/linearize.h"
#include "engine/dynamics/wheels.h"

namespace ek {
namespace {

using MatXc = Eigen::MatrixXcd;
using RowMatXc = Eigen::Matrix<std::complex<double>, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Complex = std::complex<double>;

void checkFinite(const SuspensionModel& model, const Workspace& ws) {
  for (int l = 0; l < model.nFreeBodies(); ++l) {
    bool finite = ws.Kinv[l].allFinite() && ws.N[l].allFinite();
    for (int s = model.pattern.rowStart[l]; s < model.pattern.rowStart[l + 1]; ++s)
      finite = finite && ws.Jr[s].allFinite() && ws.Jv[s].allFinite();
    if (!finite) {
      const ModelBody& b = model.bodies[model.freeBodies[l]];
      throw SimulationError("the linearization is not finite (NaN or Inf) in the equations of body " +
                            std::to_string(b.id) + " ('" + printableExcerpt(b.name) + "'): no eigen-analysis or frequency response possible");
    }
  }
}

}  // namespace

void buildFirstOrderSystem(const SuspensionModel& model, const OperatingPoint& point, FirstOrderSystem& sys) {
  const int n = model.nDof();
  sys.n = n;
  linearize(model, point.state, point.u, sys.ws, &point.wheelLoads);
  checkFinite(model, sys.ws);
  const MatX Jr = blockToDense(model.pattern, sys.ws.Jr), Jv = blockToDense(model.pattern, sys.ws.Jv);
  MatX Minv = MatX::Zero(n, n), K = MatX::Zero(n, n), N = MatX::Zero(n, n);
  sys.massDiag.resize(model.nFreeBodies());
  sys.inertia.clear();
  for (int l = 0; l < model.nFreeBodies(); ++l) {
    const ModelBody& b = model.bodies[model.freeBodies[l]];
    Minv.block<3, 3>(6 * l, 6 * l) = Mat3::Identity() / b.mass;
    Minv.block<3, 3>(6 * l + 3, 6 * l + 3) = b.inertia.inverse();
    K.block<3, 3>(6 * l, 6 * l).setIdentity();
    K.block<3, 3>(6 * l + 3, 6 * l + 3) = sys.ws.Kinv[l];
    N.block<3, 3>(6 * l + 3, 6 * l + 3) = sys.ws.N[l];
    sys.massDiag[l] = b.mass;
    sys.inertia.push_back(b.inertia);
  }
  const MatX MJr = Minv * Jr;
  double scale = 0.0;
  for (int k = 0; k < n; ++k) scale = std::max(scale, std::abs(MJr(k, k)));
  sys.s = scale > 0.0 ? std::sqrt(scale) : 1.0;
  sys.S.resize(2 * n, 2 * n);
  sys.S << N, sys.s * K, MJr / sys.s, Minv * Jv;
}

namespace {

/// Generalized load column b (nDof) of an input at the operating point, the column bd of its
/// rate (driven bodies: dh/du_dot; zero for loads), its name and unit.
VecX inputColumn(const SuspensionModel& model, const FirstOrderSystem& sys, const ResponseInput& in,
                 std::string& name, std::string& unit, VecX& bd) {
  VecX b;
  bd = VecX::Zero(model.nDof());
  if (in.kind == ResponseInput::Kind::ProjectInput) {
    if (in.index < 0 || in.index >= model.nInputs())
      throw std::invalid_argument("input index " + std::to_string(in.index) + " does not exist");
    const ModelInput& mi = model.inputs[in.index];
    name = mi.name;
    unit = inputUnit(mi.kind);
    b = inputColumn(model, sys.ws.Ju, in.index);
    bd = inputColumn(model, sys.ws.Judot, in.index);
  } else {
    if (in.index < 0 || in.index >= static_cast<int>(model.wheels.size()))
      throw std::invalid_argument("wheel index " + std::to_string(in.index) + " does not exist");
    if (in.load < 0 || in.load >= kWheelLoads) throw std::invalid_argument("unknown wheel load");
    name = model.wheels[in.index].name + " " + kWheelLoadNames[in.load];
    unit = (in.load >= kMxContact && in.load <= kMzContact) ? "N m" : "N";
    wheelLoadColumn(model, sys.ws, in.index, in.load, b);
  }
  return b;
}

/// Solves (j w I - H) z = c for an upper Hessenberg H by Gaussian elimination with partial
/// pivoting between neighbouring rows (O(n^2), row-major so that the row updates are contiguous);
/// W is scratch of H's size. Returns false if singular.
bool solveShiftedHessenberg(const MatX& H, double w, RowMatXc& W, VecXc& z) {
  const Eigen::Index m = H.rows();
  W = -H.cast<Complex>();
  W.diagonal().array() += Complex(0.0, w);
  for (Eigen::Index k = 0; k + 1 < m; ++k) {
    if (std::abs(W(k + 1, k)) > std::abs(W(k, k))) {
      W.row(k).tail(m - k).swap(W.row(k + 1).tail(m - k));
      std::swap(z[k], z[k + 1]);
    }
    if (W(k, k) == Complex(0.0)) return false;
    const Complex l = W(k + 1, k) / W(k, k);
    if (l != Complex(0.0)) {
      W.row(k + 1).tail(m - k - 1) -= l * W.row(k).tail(m - k - 1);
      z[k + 1] -= l * z[k];
    }
  }
  if (W(m - 1, m - 1) == Complex(0.0)) return false;
  W.triangularView<Eigen::Upper>().solveInPlace(z);
  return z.allFinite();
}

}  // namespace

OperatingPoint loadCasePoint(const std::shared_ptr<const SuspensionModel>& model, const std::string& loadCase) {
  Simulation sim(model, loadCase, RunOptions{});
  sim.initialize();
  OperatingPoint p;
  p.state = sim.state();
  p.u = VecX::Zero(model->nInputs());
  InputSignals(*model, *model->loadCase(loadCase)).evaluate(0.0, p.u);
  p.wheelLoads = VecX::Zero(kWheelLoads * static_cast<Eigen::Index>(model->wheels.size()));
  p.description = "initial state of load case " + loadCase +
                  (model->loadCase(loadCase)->initialState == InitialState::Equilibrium ? " (static equilibrium)"
                                                                                        : " (as modelled)");
  return p;
}

OperatingPoint designPoint(const SuspensionModel& model) {
  const KcDesign d = solveDesign(model);
  OperatingPoint p;
  p.state = d.state;
  p.u = VecX::Zero(model.nInputs());
  p.wheelLoads = d.wheelLoads;
  p.description = "K&C design position (wheel centres at their modelled heights, vertical contact forces held)";
  return p;
}

namespace {

/// Kinetic energy of each free body in a mode's velocity part dv (the quadratic form per body).
std::vector<double> bodyEnergies(const FirstOrderSystem& sys, int nBodies, const VecXc& dv) {
  std::vector<double> e(nBodies, 0.0);
  for (int l = 0; l < nBodies; ++l) {
    const Eigen::Vector3cd vt = dv.segment<3>(6 * l), wt = dv.segment<3>(6 * l + 3);
    e[l] = sys.massDiag[l] * vt.squaredNorm() + (wt.adjoint() * sys.inertia[l].cast<Complex>() * wt)(0, 0).real();
  }
  return e;
}

/// The kinetic energy's Hermitian form over the bodies with `weight` (per body) between the
/// velocity parts of two first-order vectors a and b: sum_l weight_l b_l^H M_l a_l.
Complex energyForm(const FirstOrderSystem& sys, const std::vector<double>& weight, const VecXc& a, const VecXc& b) {
  const int n = sys.n;
  Complex sum = 0.0;
  for (std::size_t l = 0; l < weight.size(); ++l) {
    if (weight[l] == 0.0) continue;
    const Eigen::Vector3cd va = a.segment<3>(n + 6 * l), vb = b.segment<3>(n + 6 * l);
    const Eigen::Vector3cd wa = a.segment<3>(n + 6 * l + 3), wb = b.segment<3>(n + 6 * l + 3);
    sum += weight[l] * (sys.massDiag[l] * vb.dot(va) + wb.dot(sys.inertia[l].cast<Complex>() * wa));
  }
  return sum;
}

/// A pair of modes with one eigenvalue (to 1e-6 relative: two halves that do not interact, such
/// as the left and right track rods of an axle whose body is held) is any combination of its two
/// eigenvectors; the solver returns an arbitrary one. The pair is turned into the combinations
/// whose kinetic energy lies most on the left (y > 0) and most on the right of the model: the
/// stationary points of E_left(c) / E(c) over c = alpha a + beta b, a 2x2 Hermitian pencil.
void separateSides(const SuspensionModel& model, const FirstOrderSystem& sys, VecXc& a, VecXc& b) {
  const int nb = model.nFreeBodies();
  std::vector<double> left(nb, 0.0), all(nb, 1.0);
  for (int l = 0; l < nb; ++l) left[l] = model.bodies[model.freeBodies[l]].p0.y() > 1e-9 ? 1.0 : 0.0;
  Eigen::Matrix2cd A, B;
  const VecXc* v[2] = {&a, &b};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      A(i, j) = energyForm(sys, left, *v[j], *v[i]);
      B(i, j) = energyForm(sys, all, *v[j], *v[i]);
    }
  // B is Hermitian positive definite: with B = L L^H, the pencil is the Hermitian L^-1 A L^-H.
  const Eigen::LLT<Eigen::Matrix2cd> llt(B);
  if (llt.info() != Eigen::Success) return;
  const Eigen::Matrix2cd L = llt.matrixL();
  const Eigen::Matrix2cd C = L.inverse() * A * L.inverse().adjoint();
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2cd> es(0.5 * (C + C.adjoint()));
  const Eigen::Matrix2cd coeff = L.inverse().adjoint() * es.eigenvectors();  // ascending: right first
  const VecXc right = coeff(0, 0) * a + coeff(1, 0) * b, leftMode = coeff(0, 1) * a + coeff(1, 1) * b;
  a = leftMode;
  b = right;
}

Mode makeMode(const SuspensionModel& model, const FirstOrderSystem& sys, Complex lambda, const VecXc& full) {
  const int n = sys.n;
  Mode m;
  const double mag = std::abs(lambda);
  m.eigenvalue = lambda;
  m.oscillatory = lambda.imag() > 0.0;
  m.frequency = mag / (2.0 * M_PI);
  m.dampedFrequency = lambda.imag() / (2.0 * M_PI);
  m.dampingRatio = m.oscillatory ? -lambda.real() / mag : 1.0;
  VecXc dr = full.head(n);
  const VecXc dv = sys.s * full.tail(n);
  // Normalize: largest entry 1 and real (rotations weighted by a 0.1 m lever).
  Eigen::Index big = 0;
  double bigValue = -1.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double v = std::abs(dr[i]) * (i % 6 < 3 ? 1.0 : 0.1);
    if (v > bigValue) {
      bigValue = v;
      big = i;
    }
  }
  if (std::abs(dr[big]) > 0.0) dr /= dr[big];
  m.shape = dr;
  m.energy = bodyEnergies(sys, model.nFreeBodies(), dv);
  double total = 0.0;
  for (double e : m.energy) total += e;
  if (total > 0.0)
    for (auto& e : m.energy) e /= total;
  m.dominantBody = static_cast<int>(std::max_element(m.energy.begin(), m.energy.end()) - m.energy.begin());
  // A mode of a coupled mirror-image pair has the same energy in both halves: name both.
  const int d = m.dominantBody;
  const Vec3 p = model.bodies[model.freeBodies[d]].p0;
  for (int l = 0; l < model.nFreeBodies() && std::abs(p.y()) > 1e-9; ++l) {
    const Vec3 q = model.bodies[model.freeBodies[l]].p0;
    if (l == d || (q - Vec3(p.x(), -p.y(), p.z())).norm() > 1e-6 || m.energy[l] < 0.99 * m.energy[d]) continue;
    const int leftSlot = p.y() > 0.0 ? d : l, rightSlot = p.y() > 0.0 ? l : d;
    m.dominantBody = leftSlot;
    m.twinBody = rightSlot;
    // Mirror images move alike in x and z and oppositely in y: compare the larger of x and z.
    const Eigen::Vector3cd a = m.shape.segment<3>(6 * leftSlot), b = m.shape.segment<3>(6 * rightSlot);
    const int c = std::abs(a.z()) >= std::abs(a.x()) ? 2 : 0;
    m.inPhase = (a[c] * std::conj(b[c])).real() >= 0.0;
    break;
  }
  return m;
}

}  // namespace

std::string dominantText(const SuspensionModel& model, const Mode& m) {
  if (m.dominantBody < 0 || m.dominantBody >= model.nFreeBodies()) return "-";
  const std::string& a = model.bodies[model.freeBodies[m.dominantBody]].name;
  if (m.twinBody < 0) return a + " (" + std::to_string(static_cast<int>(std::lround(100 * m.energy[m.dominantBody]))) + " %)";
  return a + " + " + model.bodies[model.freeBodies[m.twinBody]].name + (m.inPhase ? ", in phase (" : ", anti-phase (") +
         std::to_string(static_cast<int>(std::lround(100 * m.energy[m.dominantBody]))) + " % each)";
}

ModesResult computeModes(const SuspensionModel& model, const OperatingPoint& point) {
  FirstOrderSystem sys(model);
  buildFirstOrderSystem(model, point, sys);
  const Eigen::EigenSolver<MatX> es(sys.S, true);
  if (es.info() != Eigen::Success) throw SimulationError("the eigenvalue iteration did not converge");
  ModesResult res;
  res.point = point.description;
  double maxAbs = 0.0;
  for (Eigen::Index k = 0; k < es.eigenvalues().size(); ++k) maxAbs = std::max(maxAbs, std::abs(es.eigenvalues()[k]));
  const MatXc V = es.eigenvectors();
  std::vector<std::pair<Complex, VecXc>> kept;  // the eigenvalue and its first-order eigenvector
  for (Eigen::Index k = 0; k < es.eigenvalues().size(); ++k) {
    const Complex lambda = es.eigenvalues()[k];
    if (std::abs(lambda) < 1e-9 * maxAbs) {
      ++res.zeroModes;
      continue;
    }
    // A double real root of two halves that do not interact can come out as a conjugate pair
    // with a round-off imaginary part: both members are kept as real modes (their vectors span
    // the two halves' modes, separated below). Otherwise the conjugate of a kept mode is skipped.
    if (std::abs(lambda.imag()) <= 1e-6 * std::abs(lambda)) {
      kept.emplace_back(Complex(lambda.real(), 0.0), V.col(k));
      continue;
    }
    if (lambda.imag() < 0.0) continue;
    kept.emplace_back(lambda, V.col(k));
  }
  // The unused entries of a flexible body's last modal slot are no coordinates: each gives a
  // double zero eigenvalue (r' = v, v' = 0), which is not a free direction of the model.
  for (const auto& f : model.flexibleBodies) res.zeroModes -= 2 * (6 * f.modalSlots - f.modes());
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return std::abs(a.first) < std::abs(b.first); });
  // Degenerate pairs: separated into their left and right halves (left first).
  for (std::size_t k = 0; k + 1 < kept.size(); ++k) {
    const bool pair = std::abs(kept[k].first - kept[k + 1].first) <= 1e-6 * std::abs(kept[k].first) &&
                      (k + 2 >= kept.size() || std::abs(kept[k + 2].first - kept[k].first) > 1e-6 * std::abs(kept[k].first));
    if (!pair) continue;
    separateSides(model, sys, kept[k].second, kept[k + 1].second);
    ++res.separatedPairs;
    ++k;
  }
  for (const auto& [lambda, v] : kept) res.modes.push_back(makeMode(model, sys, lambda, v));
  return res;
}

std::vector<Channel> responseChannels(const SuspensionModel& model) {
  std::vector<Channel> ch = stateChannels(model);
  for (const auto& c : wheelOutputChannels(model)) ch.push_back(c);
  return ch;
}

std::size_t FrequencyResponse::peak(std::size_t output) const {
  // The lowest frequency whose magnitude is the largest to round-off: a flat response peaks at
  // its lowest frequency, not where the last digits happen to wiggle.
  const auto& h = response[output];
  double largest = 0.0;
  for (const auto& v : h) largest = std::max(largest, std::abs(v));
  for (std::size_t i = 0; i < h.size(); ++i)
    if (std::abs(h[i]) >= largest * (1.0 - 1e-9)) return i;
  return 0;
}

namespace {

/// Central difference of channel values w.r.t. x[i] (x[i] +- step, restored after); `values`
/// evaluates every channel at the current x into its argument.
template <class Values>
VecX centralDifference(VecX& x, Eigen::Index i, double step, const Values& values, VecX& plus, VecX& minus) {
  const double x0 = x[i];
  x[i] = x0 + step;
  values(plus);
  x[i] = x0 - step;
  values(minus);
  x[i] = x0;
  return (plus - minus) / (2.0 * step);
}

}  // namespace

void inputFeedthrough(const SuspensionModel& model, const OperatingPoint& point, const std::vector<Channel>& channels,
                      int input, VecX& Cu, VecX& Cud) {
  const int m = static_cast<int>(channels.size());
  Cu = VecX::Zero(m);
  Cud = VecX::Zero(m);
  if (input < 0 || input >= model.nInputs()) throw std::invalid_argument("input index does not exist");
  const std::vector<Vec3> start = markerPositionsAsModelled(model);
  const double step = model.inputs[input].motion() ? 1e-6 : 1e-3;  // m or rad; N or N m
  Workspace ws(model);
  VecX u = point.u, plus(m), minus(m);
  auto values = [&](VecX& out) {
    evaluateOutputsState(model, point.state, u, ws);
    for (int c = 0; c < m; ++c) out[c] = channelValue(channels[c], ws, start);
  };
  Cu = centralDifference(u, input, step, values, plus, minus);
  Cud = centralDifference(ws.uDot, input, step, values, plus, minus);
}

void outputGradients(const SuspensionModel& model, const OperatingPoint& point, const std::vector<Channel>& channels,
                     MatX& Cr, MatX& Cv) {
  const int n = model.nDof(), m = static_cast<int>(channels.size());
  Cr = MatX::Zero(m, n);
  Cv = MatX::Zero(m, n);
  Workspace ws(model);
  evaluateOutputsState(model, point.state, point.u, ws);
  bool numeric = false;
  VecX g;
  for (int c = 0; c < m; ++c) {
    if (channels[c].quantity == OutputQuantity::Wheel) {
      wheelChannelGradient(model, ws, channels[c].index, channels[c].component, g);
      Cr.row(c) = g.transpose();
    } else {
      numeric = true;
    }
  }
  if (!numeric) return;
  const std::vector<Vec3> start = markerPositionsAsModelled(model);
  constexpr double kStep = 1e-6;
  State s = point.state;
  VecX plus(m), minus(m);
  auto values = [&](VecX& out) {
    evaluateOutputsState(model, s, point.u, ws);
    for (int c = 0; c < m; ++c)
      out[c] = channels[c].quantity == OutputQuantity::Wheel ? 0.0 : channelValue(channels[c], ws, start);
  };
  for (VecX* x : {&s.r, &s.v}) {
    MatX& C = x == &s.r ? Cr : Cv;
    for (int i = 0; i < n; ++i) {
      const VecX d = centralDifference(*x, i, kStep, values, plus, minus);
      for (int c = 0; c < m; ++c)
        if (channels[c].quantity != OutputQuantity::Wheel) C(c, i) = d[c];
    }
  }
}

FrequencyResponse frequencyResponse(const SuspensionModel& model, const OperatingPoint& point,
                                    const ResponseInput& input, const std::vector<Channel>& channels,
                                    const FrequencyOptions& o, const std::function<void(double)>& progress,
                                    const std::atomic<bool>* cancel) {
  if (!(o.from > 0.0) || !(o.to > o.from) || !std::isfinite(o.to))
    throw std::invalid_argument("the frequency range needs 0 < from < to");
  if (o.points < 2) throw std::invalid_argument("a frequency response needs at least 2 frequencies");
  if (channels.empty()) throw std::invalid_argument("a frequency response needs at least one output channel");
  FirstOrderSystem sys(model);
  buildFirstOrderSystem(model, point, sys);
  const int n = sys.n;
  FrequencyResponse res;
  res.point = point.description;
  VecX bd;
  const VecX b = inputColumn(model, sys, input, res.inputName, res.inputUnit, bd);
  MatX Cr, Cv;
  outputGradients(model, point, channels, Cr, Cv);
  // Outputs that see a project input directly (a marker on a driven body, the input itself).
  VecX Cu = VecX::Zero(static_cast<Eigen::Index>(channels.size())), Cud = Cu;
  if (input.kind == ResponseInput::Kind::ProjectInput) inputFeedthrough(model, point, channels, input.index, Cu, Cud);
  for (const auto& c : channels) {
    res.outputs.push_back(c.name);
    res.units.push_back(c.unit);
  }

  // x' = S x + B du + Bd du_dot with x = (dr, dv / s), B = (0, M^-1 b / s); S = Q H Q^T.
  auto firstOrder = [&](const VecX& g) {
    VecX B = VecX::Zero(2 * n);
    for (int l = 0; l < model.nFreeBodies(); ++l) {
      B.segment<3>(n + 6 * l) = g.segment<3>(6 * l) / sys.massDiag[l];
      B.segment<3>(n + 6 * l + 3) = sys.inertia[l].inverse() * g.segment<3>(6 * l + 3);
    }
    return VecX(B / sys.s);
  };
  const Eigen::HessenbergDecomposition<MatX> hd(sys.S);
  const MatX H = hd.matrixH();
  const MatX Q = hd.matrixQ();
  const VecX c0 = Q.transpose() * firstOrder(b), c0d = Q.transpose() * firstOrder(bd);
  MatX D(channels.size(), 2 * n);
  D << Cr, sys.s * Cv;
  const MatXc DQ = (D * Q).cast<Complex>();

  res.response.assign(channels.size(), {});
  RowMatXc W;
  VecXc z;
  // The logarithms apart (to / from may overflow for a range such as 1e-300 ... 1e300 Hz).
  const double ratio = (std::log(o.to) - std::log(o.from)) / (o.points - 1);
  for (int k = 0; k < o.points; ++k) {
    if (cancel && cancel->load()) {
      res.cancelled = true;
      break;
    }
    const double f = k + 1 == o.points ? o.to : k == 0 ? o.from : std::exp(std::log(o.from) + ratio * k);
    const double w = 2.0 * M_PI * f;
    if (!std::isfinite(w))
      throw std::invalid_argument("the frequency " + shortestText(f) + " Hz is beyond what a number can hold as 2 pi f");
    z = c0.cast<Complex>() + Complex(0.0, w) * c0d.cast<Complex>();
    const bool solved = solveShiftedHessenberg(H, w, W, z);
    if (!solved && z.allFinite())
      throw SimulationError("the linearized system is singular at " + shortestText(f) +
                            " Hz (an undamped mode at exactly this frequency)");
    const VecXc y = DQ * z + Cu.cast<Complex>() + Complex(0.0, w) * Cud.cast<Complex>();
    if (!solved || !y.allFinite())
      throw SimulationError("the response at " + shortestText(f) + " Hz is not finite (NaN or Inf): the frequency is " +
                            (f < 1.0 ? "so low" : "so high") + " that the linearized system's numbers overflow; " +
                            "choose a range of physical frequencies");
    res.frequency.push_back(f);
    for (std::size_t c = 0; c < channels.size(); ++c) res.response[c].push_back(y[c]);
    if (progress && (k % 25 == 0 || k + 1 == o.points)) progress(static_cast<double>(k + 1) / o.points);
  }
  return res;
}

// Both files hold every number exactly (the shortest text that reads back as the same double), as
// the run's results do: a script reading them sees what the engine computed.
void writeFrequencyResponseCsv(const FrequencyResponse& r, const std::string& path) {
  std::string out = "frequency [Hz]";
  for (std::size_t c = 0; c < r.outputs.size(); ++c)
    out += "," + csvField(r.outputs[c] + " magnitude [" + r.units[c] + "/" + r.inputUnit + "]") + "," +
           csvField(r.outputs[c] + " phase [deg]");
  out += '\n';
  for (std::size_t k = 0; k < r.frequency.size(); ++k) {
    out += shortestText(r.frequency[k]);
    for (const auto& h : r.response)
      out += "," + shortestText(std::abs(h[k])) + "," + shortestText(std::arg(h[k]) * 180.0 / M_PI);
    out += '\n';
  }
  writeFile(path, out, "analysis results");
}

void writeModesCsv(const SuspensionModel& model, const ModesResult& r, const std::string& path) {
  std::string out =
      "mode,frequency [Hz],damped frequency [Hz],damping ratio [-],real part [1/s],imaginary part [1/s],dominant body";
  for (int l = 0; l < model.nFreeBodies(); ++l) out += "," + csvField("energy " + model.bodies[model.freeBodies[l]].name + " [-]");
  out += '\n';
  for (std::size_t k = 0; k < r.modes.size(); ++k) {
    const Mode& m = r.modes[k];
    out += std::to_string(k + 1);
    for (double v : {m.frequency, m.dampedFrequency, m.dampingRatio, m.eigenvalue.real(), m.eigenvalue.imag()})
      out += "," + shortestText(v);
    out += "," + csvField(model.bodies[model.freeBodies[m.dominantBody]].name);
    for (double e : m.energy) out += "," + shortestText(e);
    out += '\n';
  }
  writeFile(path, out, "analysis results");
}

}  // namespace ek
