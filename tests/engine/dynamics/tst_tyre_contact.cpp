// SPDX-License-Identifier: GPL-3.0-or-later
// A Magic Formula tyre on the road: the vertical load and the contact geometry by hand; in steady
// rolling the transient states rest and the forces are the Magic Formula's at the rolling slip;
// a slip-angle step relaxes over the file's relaxation length, shortened at large slip to the
// secant one; standstill has no singularity and
// the low-speed damping is the force it says; SI and mm/kN/deg files agree; every partial
// derivative equals central differences.
#include <QtTest>

#include <cmath>
#include <random>

#include "engine/dynamics/tyre_contact.h"
#include "engine/model/tyre_property.h"

using namespace ek;

namespace {

const std::string kTyres = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/tyres/";

const TyreProperty& tyre() {
  static const TyreProperty t = readTyreProperty(kTyres + "car_205_60R15_mf61_si.tir");
  return t;
}

/// An upright left wheel deflected by `deflection`, moving at (vx, vy), rolling at `spin`.
TyreContactState rolling(double deflection, double vx, double vy, double spin) {
  TyreContactState s;
  s.centre = Vec3(0.3, -0.2, tyre().unloadedRadius - deflection);
  s.axis = Vec3::UnitY();
  s.velocity = Vec3(vx, vy, 0.0);
  s.spin = spin;
  return s;
}

TyreContact contactOf(const TyreContactState& s, const TyreContactOptions& o = {}, bool partials = false,
                      const TyreProperty& t = tyre()) {
  TyreContact c;
  tyreContact(t, TyreRoad{}, o, s, partials, c);
  return c;
}

}  // namespace

class TestTyreContact : public QObject {
  Q_OBJECT
 private slots:
  void verticalLoadAndGeometry() {
    const TyreProperty& t = tyre();
    const double rho = 0.02;
    TyreContact c = contactOf(rolling(rho, 0.0, 0.0, 0.0));
    // The file's [DEFLECTION_LOAD_CURVE] gives the load (4500 N at 20 mm), linear between points.
    const double fz = 4500.0;
    qInfo("Fz %.6f N at 20 mm (the file's deflection-load curve: %.1f)", c.fz, fz);
    QVERIFY(std::abs(c.fz - fz) < 1e-9 * fz);
    QVERIFY((c.point - Vec3(0.3, -0.2, 0.0)).norm() < 1e-15);
    QCOMPARE(c.gamma, 0.0);
    QVERIFY(std::abs(c.result[kTyreForce + 2] - fz) < 1e-9 * fz);  // the road pushes the hub up
    // The axis' left end 3 deg up: the wheel top leans right, ISO inclination +3 deg; the loaded
    // radius is measured in the wheel plane.
    TyreContactState s = rolling(rho, 0.0, 0.0, 0.0);
    const double g = 3.0 * M_PI / 180.0;
    s.axis = Vec3(0.0, std::cos(g), std::sin(g));
    c = contactOf(s);
    QVERIFY(std::abs(c.gamma - g) < 1e-14);
    const double rhoTilted = t.unloadedRadius - (t.unloadedRadius - rho) / std::cos(g);  // 0.015 .. 0.02
    QVERIFY(std::abs(c.fz - (3300.0 + (4500.0 - 3300.0) / 0.005 * (rhoTilted - 0.015))) < 1e-9 * fz);
    // Without the curve: Cz rho + qFz2 Fz0 (rho / R0)^2.
    TyreProperty noCurve = t;
    noCurve.deflectionLoad.clear();
    TyreContact d;
    tyreContact(noCurve, TyreRoad{}, {}, rolling(rho, 0.0, 0.0, 0.0), false, d);
    const double formula = t.verticalStiffness * rho + t.qFz2 * t.nominalLoad * std::pow(rho / t.unloadedRadius, 2);
    qInfo("without the curve %.6f N (by hand %.6f)", d.fz, formula);
    QVERIFY(std::abs(d.fz - formula) < 1e-9 * formula);
    QVERIFY(std::abs(c.point.z()) < 1e-15);
    QVERIFY(c.point.y() > -0.2);  // the contact moves towards the side the top leans away from
    // Off the road: no force.
    c = contactOf(rolling(-0.001, 10.0, 0.5, 30.0));
    QCOMPARE(c.fz, 0.0);
    for (int k = 0; k < 7; ++k) QCOMPARE(c.result[k], 0.0);
  }

  void steadyRollingIsTheMagicFormula() {
    const TyreProperty& t = tyre();
    for (const auto [kappa, tanAlpha, vx] : {std::array{0.03, -0.04, 20.0}, std::array{-0.08, 0.1, 15.0},
                                             std::array{0.0, 0.02, -5.0}}) {
      // Spin and lateral velocity for this slip; effective radius and load from a first call.
      TyreContactState s = rolling(0.025, vx, 0.0, 0.0);
      TyreContact c = contactOf(s);
      for (int i = 0; i < 3; ++i) {
        s.spin = (vx + kappa * std::abs(vx)) / c.effectiveRadius;
        c = contactOf(s);
      }
      s.velocity.y() = tanAlpha * std::abs(vx);
      // The relaxation lengths at this slip (the secant ones; the deflections do not change them).
      c = contactOf(s);
      const double sigmaKappa = c.sigmaKappa, sigmaAlpha = c.sigmaAlpha;
      s.deflectionX = sigmaKappa * kappa;
      s.deflectionY = -sigmaAlpha * tanAlpha;
      c = contactOf(s);
      QCOMPARE(c.sigmaKappa, sigmaKappa);
      QCOMPARE(c.sigmaAlpha, sigmaAlpha);
      const double kappaRolling = -(vx - c.effectiveRadius * s.spin) / std::abs(vx);  // R_e moves with the spin
      QVERIFY(std::abs(kappaRolling - kappa) < 1e-6);
      s.deflectionX = sigmaKappa * kappaRolling;
      c = contactOf(s);
      QVERIFY(std::abs(c.result[kTyreDeflectionRateX]) < 1e-12);
      QVERIFY(std::abs(c.result[kTyreDeflectionRateY]) < 1e-12);
      const MfForces mf = magicFormula(t, {kappaRolling, std::atan(tanAlpha * (vx < 0.0 ? -1.0 : 1.0)), 0.0, c.fz, vx});
      // The lateral force opposes the sliding, forwards and backwards.
      TyreContactState straight = s;
      straight.velocity.y() = 0.0;
      straight.deflectionY = 0.0;
      QVERIFY((c.forces[kMfFy] - contactOf(straight).forces[kMfFy]) * s.velocity.y() < 0.0);
      for (int o = 0; o < kMfOutputs; ++o) QVERIFY(std::abs(c.forces[o] - mf[o]) < 1e-9 * (1.0 + std::abs(mf[o])));
      QVERIFY(std::abs(c.result[kTyreForce] - mf[kMfFx]) < 1e-9 * c.fz);
      QVERIFY(std::abs(c.result[kTyreForce + 1] - mf[kMfFy]) < 1e-9 * c.fz);
      // The hub carries no moment about the wheel axis; the wheel gets -R_l Fx + My.
      QVERIFY(std::abs(c.result[kTyreTorque + 1]) < 1e-9);
      const double loaded = t.unloadedRadius - 0.025;
      QVERIFY(std::abs(c.result[kTyreSpinTorque] - (-loaded * mf[kMfFx] + mf[kMfMy])) < 1e-9 * c.fz);
      qInfo("vx %5.1f m/s, kappa %5.2f, tan(alpha) %5.2f: Fx %9.3f N, Fy %9.3f N, Mz %8.3f N m, spin torque %8.3f N m",
            vx, kappa, tanAlpha, mf[kMfFx], mf[kMfFy], mf[kMfMz], c.result[kTyreSpinTorque]);
    }
  }

  // A wheel at 10 m/s suddenly sliding sideways: the slip angle follows 1 - exp(-distance /
  // sigma), sigma the file's relaxation length (PTY1, PTY2, MF-Tyre 5.2) times the lateral curve's
  // secant slope over its slope at zero at the rim's slip, both by hand. At tan(alpha) = 0.0005 that
  // is the file's length to 1e-4; at 0.03 a few per cent shorter; at 0.3, beyond the peak, less
  // than half of it (the carcass spring keeps its stiffness while the slip's stiffness falls).
  void relaxationOfASlipAngleStep() {
    const TyreProperty& t = tyre();
    for (const double tanAlpha : {0.0005, 0.03, 0.3}) {
      const double vx = 10.0, rho = 0.02;
      TyreContactState s = rolling(rho, vx, tanAlpha * vx, 0.0);
      TyreContact c = contactOf(s);
      s.spin = vx / c.effectiveRadius;
      c = contactOf(s);
      const double fz0 = t.nominalLoad * t[Mf::LFZO], dfz = (c.fz - fz0) / fz0;
      const double sigma0 = t[Mf::PTY1] * std::sin(2.0 * std::atan(c.fz / (t[Mf::PTY2] * fz0))) * t.unloadedRadius *
                                t[Mf::LFZO] * t[Mf::LSGAL] + 1e-4;
      QVERIFY(std::abs(transientProperties(t, c.fz, 0.0).sigmaAlpha - sigma0) < 1e-14);
      // The pure lateral curve at zero camber and nominal pressure (4.E21-E26): B = Kya / (C D).
      const double kya = t[Mf::PKY1] * fz0 * std::sin(t[Mf::PKY4] * std::atan(c.fz / (t[Mf::PKY2] * fz0))) * t[Mf::LKY];
      const double cy = t[Mf::PCY1] * t[Mf::LCY], dy = (t[Mf::PDY1] + t[Mf::PDY2] * dfz) * t[Mf::LMUY] * c.fz;
      const double by = kya / (cy * dy);
      const double rim = tanAlpha * vx / std::sqrt(vx * vx + 0.01 * t.vxlow * t.vxlow);
      const double ey = (t[Mf::PEY1] + t[Mf::PEY2] * dfz) * (1.0 - t[Mf::PEY3] * (rim > 0.0 ? 1.0 : -1.0)) * t[Mf::LEY];
      const double z = by * rim;
      const double sigma = sigma0 * std::sin(cy * std::atan(z - ey * (z - std::atan(z)))) / (cy * z);
      QVERIFY(std::abs(c.sigmaAlpha - sigma) < 1e-9 * sigma);
      const double dt = 1e-4 * sigma / sigma0;  // 1 m of travel, 1000 steps over the shortened length
      double worst = 0.0;
      for (int k = 1; k <= 1000; ++k) {  // classical Runge-Kutta on v_y
        auto rate = [&](double v) {
          TyreContactState q = s;
          q.deflectionY = v;
          return contactOf(q).result[kTyreDeflectionRateY];
        };
        const double v = s.deflectionY;
        const double k1 = rate(v), k2 = rate(v + dt / 2 * k1), k3 = rate(v + dt / 2 * k2), k4 = rate(v + dt * k3);
        s.deflectionY = v + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
        const double expected = tanAlpha * (1.0 - std::exp(-vx * k * dt / sigma));
        const double got = std::tan(contactOf(s).alpha);
        worst = std::max(worst, std::abs(got - expected));
      }
      qInfo("tan(alpha) %.3f at Fz %.1f N: sigma_alpha %.4f m (file's %.4f m, secant over slope %.4f); over %.2f m "
            "against 1 - exp(-x / sigma): %.2e",
            tanAlpha, c.fz, sigma, sigma0, sigma / sigma0, vx * 1000 * dt, worst);
      QVERIFY(worst < 1e-9 * tanAlpha);
      if (tanAlpha < 0.01) QVERIFY(std::abs(sigma / sigma0 - 1.0) < 1e-4);
      if (tanAlpha > 0.1) QVERIFY(sigma < 0.5 * sigma0);
    }
  }

  void standstillHasNoSingularity() {
    const TyreProperty& t = tyre();
    TyreContactOptions o;
    o.lowSpeedDamping = 2000.0;
    // At rest with the contact deflected: springs, every value and partial finite.
    TyreContactState s = rolling(0.02, 0.0, 0.0, 0.0);
    s.deflectionX = 1e-3;
    s.deflectionY = -0.5e-3;
    TyreContact c = contactOf(s, o, true);
    QVERIFY(c.partials.allFinite());
    s.deflectionY = 0.0;  // each deflection alone: combined slip adds a kappa-induced Fy
    const TyreContact cx = contactOf(s, o);
    s.deflectionX = 0.0;
    s.deflectionY = -0.5e-3;
    const TyreContact cy = contactOf(s, o);
    QVERIFY(c.partials.allFinite());
    for (double r : c.result) QVERIFY(std::isfinite(r));
    QCOMPARE(c.result[kTyreDeflectionRateX], 0.0);
    QCOMPARE(c.result[kTyreDeflectionRateY], 0.0);
    const MfTransient tr = transientProperties(t, c.fz, 0.0);
    const MfForces none = magicFormula(t, {0.0, 0.0, 0.0, c.fz, 0.0});
    const double springX = tr.kxk / tr.sigmaKappa * 1e-3, springY = -tr.kya / tr.sigmaAlpha * -0.5e-3;
    qInfo("at rest, deflections 1 / -0.5 mm: Fx %.2f N (Kxk/sigma u = %.2f), Fy - Fy(0) %.2f N (%.2f)",
          cx.forces[kMfFx] - none[kMfFx], springX, cy.forces[kMfFy] - none[kMfFy], springY);
    QVERIFY(std::abs(cx.forces[kMfFx] - none[kMfFx] - springX) < 0.02 * std::abs(springX));
    QVERIFY(std::abs(cy.forces[kMfFy] - none[kMfFy] - springY) < 0.02 * std::abs(springY));
    // Sliding slowly sideways at rest: the low-speed damping's force -k V_sy.
    TyreContactState slide = rolling(0.02, 0.0, 0.01, 0.0);
    const double fy = contactOf(slide, o).forces[kMfFy] - contactOf(rolling(0.02, 0.0, 0.0, 0.0), o).forces[kMfFy];
    qInfo("sliding at 10 mm/s: Fy change %.3f N (-k V = %.3f N)", fy, -o.lowSpeedDamping * 0.01);
    QVERIFY(std::abs(fy + o.lowSpeedDamping * 0.01) < 0.01 * o.lowSpeedDamping * 0.01);
    // Above VXLOW no damping.
    TyreContactState fast = rolling(0.02, 2.0 * t.vxlow, 0.0, 0.0);
    TyreContactOptions none0;
    QCOMPARE(contactOf(fast, o).forces[kMfFx], contactOf(fast, none0).forces[kMfFx]);
  }

  void unitsConvert() {
    const TyreProperty mm = readTyreProperty(kTyres + "car_205_60R15_mf61_mm_kN_deg.tir");
    TyreContactState s = rolling(0.022, 12.0, -0.4, 12.0 / 0.305);
    s.axis = Vec3(0.05, 1.0, 0.03).normalized();
    s.angularVelocity = Vec3(0.1, -0.2, 0.3);
    s.deflectionX = 2e-3;
    s.deflectionY = 1e-3;
    const TyreContact a = contactOf(s, {}, false), b = contactOf(s, {}, false, mm);
    double worst = 0.0;
    for (int k = 0; k < kTyreResults; ++k)
      worst = std::max(worst, std::abs(a.result[k] - b.result[k]) / (1.0 + std::abs(a.result[k])));
    qInfo("SI against mm/kN/deg: largest relative difference %.2e", worst);
    QVERIFY(worst < 1e-12);
  }

  void partialsMatchDifferences() {
    struct Case {
      const char* name;
      TyreContactState s;
      TyreContactOptions o;
      double step = 1e-6;  ///< relative difference step
    };
    std::vector<Case> cases;
    {
      TyreContactState s = rolling(0.024, 20.0, 0.6, 20.0 * 1.03 / 0.305);
      s.axis = Vec3(0.06, 1.0, -0.035).normalized();
      s.angularVelocity = Vec3(0.2, -0.3, 0.4);
      s.deflectionX = 0.004;
      s.deflectionY = -0.006;
      s.velocity.z() = 0.05;
      cases.push_back({"rolling, cambered, turning", s, {}});
      TyreContactOptions mirrored;
      mirrored.mirrored = true;
      cases.push_back({"the same mirrored", s, mirrored});
      TyreContactState locked = rolling(0.021, 10.0, 1.5, 0.0);  // beyond both peaks: the secant lengths
      locked.axis = Vec3(0.03, 1.0, 0.02).normalized();  // off zero camber, where |gamma| kinks
      locked.deflectionX = -0.01;
      locked.deflectionY = -0.004;
      cases.push_back({"locked and sliding", locked, {}});
      cases.push_back({"the same mirrored", locked, mirrored});
      // Deflections against the rim's slip, half-way down the secant's ramp (docs/tyres.md).
      TyreContactState unloading = locked;
      unloading.velocity = Vec3(2.0, 0.4, 0.0);
      unloading.deflectionX = 0.5 * 0.01 * tyre().unloadedRadius * 2.0 / std::hypot(2.0, 0.1);
      unloading.deflectionY = 0.5 * 0.01 * tyre().unloadedRadius * 0.4 / std::hypot(2.0, 0.1);
      cases.push_back({"unloading against the slip", unloading, {}, 1e-8});  // the ramp is steep: a finer step
    }
    {
      TyreContactState s = rolling(0.018, 0.6, -0.05, 0.5 / 0.305);
      s.axis = Vec3(0.02, 1.0, 0.01).normalized();  // off zero camber, where |gamma| kinks
      s.deflectionX = -0.001;
      s.deflectionY = 0.0015;
      TyreContactOptions o;
      o.lowSpeedDamping = 2000.0;
      cases.push_back({"below VXLOW with damping", s, o});
      s.velocity.x() = -0.4;
      s.spin = -0.45 / 0.305;
      cases.push_back({"reversing slowly", s, o});
    }
    double worstAll = 0.0;
    for (const Case& cs : cases) {
      const TyreContact c = contactOf(cs.s, cs.o, true);
      // The values of the partials' pass equal the values-only pass bit for bit.
      const TyreContact plain = contactOf(cs.s, cs.o, false);
      for (int k = 0; k < kTyreResults; ++k) QVERIFY(c.result[k] == plain.result[k]);
      double* x[kTyreVariables];
      TyreContactState q = cs.s;
      for (int i = 0; i < 3; ++i) {
        x[kTyreCentre + i] = &q.centre[i];
        x[kTyreAxis + i] = &q.axis[i];
        x[kTyreVelocity + i] = &q.velocity[i];
        x[kTyreAngularVelocity + i] = &q.angularVelocity[i];
      }
      x[kTyreSpin] = &q.spin;
      x[kTyreDeflectionX] = &q.deflectionX;
      x[kTyreDeflectionY] = &q.deflectionY;
      double worst = 0.0;
      for (int i = 0; i < kTyreVariables; ++i) {
        const double x0 = *x[i], h = cs.step * std::max(1.0, std::abs(x0));
        *x[i] = x0 + h;
        const TyreContact p = contactOf(q, cs.o);
        *x[i] = x0 - h;
        const TyreContact m = contactOf(q, cs.o);
        *x[i] = x0;
        for (int o = 0; o < kTyreResults; ++o) {
          const double scale = c.partials.row(o).cwiseAbs().maxCoeff() + 1e-6;
          const double fd = (p.result[o] - m.result[o]) / (2 * h);
          if (std::abs(fd - c.partials(o, i)) / scale > worst) {
            worst = std::abs(fd - c.partials(o, i)) / scale;
            if (worst > 1e-6) qInfo("  result %d variable %d: %.8e against %.8e", o, i, c.partials(o, i), fd);
          }
        }
      }
      qInfo("%-28s partials against central differences: %.2e of the row's largest", cs.name, worst);
      worstAll = std::max(worstAll, worst);
    }
    QVERIFY(worstAll < 1e-6);
  }

  /// The partials' pass takes its values from the automatic differentiation (no second, scalar
  /// pass): they must equal the values-only pass bit for bit wherever a step goes, for every
  /// version, vertical law and option (magic_formula.cpp and tyre_contact.cpp are compiled without
  /// floating-point contraction, so both passes round alike).
  void partialsPassValuesEqualTheValuesOnlyPass() {
    std::vector<std::pair<const char*, TyreProperty>> tyres;
    tyres.emplace_back("MF 6.1, deflection-load curve", tyre());
    TyreProperty noCurve = tyre();
    noCurve.deflectionLoad.clear();
    tyres.emplace_back("MF 6.1, Cz", noCurve);
    TyreProperty pac = noCurve;
    pac.version = MfVersion::Pac2002;
    tyres.emplace_back("PAC2002", pac);
    TyreProperty mf62 = noCurve;
    mf62.version = MfVersion::Mf62;
    tyres.emplace_back("MF 6.2", mf62);
    std::mt19937 random(20261207);
    const auto uniform = [&random](double a, double b) { return std::uniform_real_distribution<double>(a, b)(random); };
    int states = 0;
    for (const auto& [name, t] : tyres) {
      int differing = 0;
      for (int k = 0; k < 3000; ++k) {
        TyreContactState s;
        const double deflection = uniform(-0.005, 0.04);  // below 0: off the road
        s.centre = Vec3(uniform(-2.0, 2.0), uniform(-2.0, 2.0), t.unloadedRadius - deflection);
        s.axis = Vec3(uniform(-0.1, 0.1), 1.0, uniform(-0.1, 0.1)).normalized();
        const double vx = k % 5 == 0 ? uniform(-0.8, 0.8) : uniform(-5.0, 40.0);  // a fifth below VXLOW
        s.velocity = Vec3(vx, uniform(-0.2, 0.2) * std::abs(vx) + uniform(-0.3, 0.3), uniform(-0.3, 0.3));
        s.angularVelocity = Vec3(uniform(-1.0, 1.0), uniform(-1.0, 1.0), uniform(-1.0, 1.0));
        s.spin = vx * (1.0 + uniform(-0.3, 0.3)) / t.unloadedRadius + (k % 7 == 0 ? uniform(-3.0, 3.0) : 0.0);
        s.deflectionX = uniform(-0.02, 0.02);
        s.deflectionY = uniform(-0.02, 0.02);
        TyreContactOptions o;
        o.mirrored = k % 2 == 1;
        o.lowSpeedDamping = k % 3 == 0 ? 2000.0 : 0.0;
        const TyreContact full = contactOf(s, o, true, t);
        const TyreContact plain = contactOf(s, o, false, t);
        bool same = full.point == plain.point && full.fz == plain.fz && full.kappa == plain.kappa &&
                    full.alpha == plain.alpha && full.gamma == plain.gamma && full.vx == plain.vx &&
                    full.effectiveRadius == plain.effectiveRadius && full.spin == plain.spin &&
                    full.sigmaKappa == plain.sigmaKappa && full.sigmaAlpha == plain.sigmaAlpha && full.forces == plain.forces;
        for (int r = 0; r < kTyreResults; ++r) same = same && full.result[r] == plain.result[r];
        if (!same && ++differing <= 3) qInfo("  %s: state %d differs", name, k);
        ++states;
      }
      qInfo("%-30s 3000 states, %d with a value that differs", name, differing);
      QCOMPARE(differing, 0);
    }
    QCOMPARE(states, 12000);
  }
};

QTEST_APPLESS_MAIN(TestTyreContact)
#include "tst_tyre_contact.moc"
