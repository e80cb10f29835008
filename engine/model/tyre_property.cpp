// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/tyre_property.h"

#include <cmath>
#include <cstdlib>
#include <map>

#include "engine/core/text.h"
#include "engine/core/text_file.h"
#include "engine/model/teim_orbit.h"

namespace ek {

namespace {

/// A value's dimension: the SI factor is length^l force^f mass^m time^t angle^a of the file's units.
struct Dimension {
  int length = 0, force = 0, mass = 0, time = 0, angle = 0;
};
constexpr Dimension kNone{}, kLength{1}, kForce{0, 1}, kStiffness{-1, 1}, kDamping{-1, 1, 0, 1}, kSpeed{1, 0, 0, -1},
    kPressure{-2, 1}, kMass{0, 0, 1}, kInertia{2, 0, 1}, kAngle{0, 0, 0, 0, 1}, kFrequency{0, 0, 0, -1},
    kAcceleration{1, 0, 0, -2}, kTorsion{1, 1, 0, 0, -1};

struct Key {
  const char* name;
  Dimension dimension;
};

/// The blocks a .tir file may hold and their keys; coefficient blocks take theirs from
/// EK_MF_COEFFICIENTS (plus the turn-slip block, read and not used).
const std::map<std::string, std::vector<Key>>& knownBlocks() {
  static const std::map<std::string, std::vector<Key>> blocks = [] {
    std::map<std::string, std::vector<Key>> b{
        {"MDI_HEADER", {{"FILE_TYPE", kNone}, {"FILE_VERSION", kNone}, {"FILE_FORMAT", kNone}}},
        {"MODEL",
         {{"PROPERTY_FILE_FORMAT", kNone}, {"FUNCTION_NAME", kNone}, {"USER_SUB_ID", kNone}, {"N_TIRE_STATES", kNone},
          {"FITTYP", kNone}, {"MFSAFE1", kNone}, {"MFSAFE2", kNone}, {"MFSAFE3", kNone}, {"TYRESIDE", kNone},
          {"LONGVL", kSpeed}, {"VXLOW", kSpeed}, {"ROAD_INCREMENT", kLength}, {"ROAD_DIRECTION", kNone},
          {"USE_MODE", kNone}, {"HMAX_LOCAL", kNone}, {"TIME_SWITCH_INTEG", kNone}, {"SWITCH_INTEG", kNone}}},
        {"DIMENSION",
         {{"UNLOADED_RADIUS", kLength}, {"WIDTH", kLength}, {"ASPECT_RATIO", kNone}, {"RIM_RADIUS", kLength},
          {"RIM_WIDTH", kLength}}},
        {"OPERATING_CONDITIONS", {{"INFLPRES", kPressure}, {"NOMPRES", kPressure}}},
        {"INERTIA",
         {{"MASS", kMass}, {"IXX", kInertia}, {"IYY", kInertia}, {"BELT_MASS", kMass}, {"BELT_IXX", kInertia},
          {"BELT_IYY", kInertia}, {"GRAVITY", kAcceleration}}},
        {"VERTICAL",
         {{"FNOMIN", kForce}, {"VERTICAL_STIFFNESS", kStiffness}, {"VERTICAL_DAMPING", kDamping},
          {"MC_CONTOUR_A", kNone}, {"MC_CONTOUR_B", kNone}, {"BREFF", kNone}, {"DREFF", kNone}, {"FREFF", kNone},
          {"Q_RE0", kNone}, {"Q_V1", kNone}, {"Q_V2", kNone}, {"Q_FZ2", kNone}, {"Q_FCX", kNone}, {"Q_FCY", kNone},
          {"Q_FCY2", kNone}, {"Q_CAM", kNone}, {"Q_CAM1", kNone}, {"Q_CAM2", kNone}, {"Q_CAM3", kNone},
          {"Q_FYS1", kNone}, {"Q_FYS2", kNone}, {"Q_FYS3", kNone}, {"PFZ1", kNone}, {"BOTTOM_OFFST", kLength},
          {"BOTTOM_STIFF", kStiffness}}},
        {"STRUCTURAL",
         {{"LONGITUDINAL_STIFFNESS", kStiffness}, {"LATERAL_STIFFNESS", kStiffness}, {"YAW_STIFFNESS", kTorsion},
          {"FREQ_LONG", kFrequency}, {"FREQ_LAT", kFrequency}, {"FREQ_YAW", kFrequency}, {"FREQ_WINDUP", kFrequency},
          {"DAMP_LONG", kNone}, {"DAMP_LAT", kNone}, {"DAMP_YAW", kNone}, {"DAMP_WINDUP", kNone},
          {"DAMP_RESIDUAL", kNone}, {"DAMP_VLOW", kNone}, {"Q_BVX", kNone}, {"Q_BVT", kNone}, {"PCFX1", kNone},
          {"PCFX2", kNone}, {"PCFX3", kNone}, {"PCFY1", kNone}, {"PCFY2", kNone}, {"PCFY3", kNone}, {"PCMZ1", kNone}}},
        {"CONTACT_PATCH",
         {{"Q_RA1", kNone}, {"Q_RA2", kNone}, {"Q_RB1", kNone}, {"Q_RB2", kNone}, {"ELLIPS_SHIFT", kNone},
          {"ELLIPS_LENGTH", kNone}, {"ELLIPS_HEIGHT", kNone}, {"ELLIPS_ORDER", kNone}, {"ELLIPS_MAX_STEP", kLength},
          {"ELLIPS_NWIDTH", kNone}, {"ELLIPS_NLENGTH", kNone}, {"ENV_C1", kNone}, {"ENV_C2", kNone}}},
        {"INFLATION_PRESSURE_RANGE", {{"PRESMIN", kPressure}, {"PRESMAX", kPressure}}},
        {"VERTICAL_FORCE_RANGE", {{"FZMIN", kForce}, {"FZMAX", kForce}}},
        {"LONG_SLIP_RANGE", {{"KPUMIN", kNone}, {"KPUMAX", kNone}}},
        {"SLIP_ANGLE_RANGE", {{"ALPMIN", kAngle}, {"ALPMAX", kAngle}}},
        {"INCLINATION_ANGLE_RANGE", {{"CAMMIN", kAngle}, {"CAMMAX", kAngle}}},
        {"TURNSLIP_COEFFICIENTS",
         {{"PDXP1", kNone}, {"PDXP2", kNone}, {"PDXP3", kNone}, {"PKYP1", kNone}, {"PDYP1", kNone}, {"PDYP2", kNone},
          {"PDYP3", kNone}, {"PDYP4", kNone}, {"PHYP1", kNone}, {"PHYP2", kNone}, {"PHYP3", kNone}, {"PHYP4", kNone},
          {"PECP1", kNone}, {"PECP2", kNone}, {"QDTP1", kNone}, {"QCRP1", kNone}, {"QCRP2", kNone}, {"QBRP1", kNone},
          {"QDRP1", kNone}, {"QDRP2", kNone}}},
        {"UNITS", {}},
        {"SHAPE", {}},
        {"DEFLECTION_LOAD_CURVE", {}},
    };
#define EK_MF_KEY(name, block, fallback) b[#block "_COEFFICIENTS"].push_back({#name, kNone});
    EK_MF_COEFFICIENTS(EK_MF_KEY)
#undef EK_MF_KEY
    return b;
  }();
  return blocks;
}

constexpr const char* kCoefficientNames[] = {
#define EK_MF_NAME(name, block, fallback) #name,
    EK_MF_COEFFICIENTS(EK_MF_NAME)
#undef EK_MF_NAME
};
constexpr double kCoefficientDefaults[] = {
#define EK_MF_DEFAULT(name, block, fallback) fallback,
    EK_MF_COEFFICIENTS(EK_MF_DEFAULT)
#undef EK_MF_DEFAULT
};

double factorOf(const Dimension& d, const PropertyUnits& u) {
  return std::pow(u.length, d.length) * std::pow(u.force, d.force) * std::pow(u.mass, d.mass) *
         std::pow(u.time, d.time) * std::pow(u.angle, d.angle);
}

/// The version a FITTYP number or a PROPERTY_FILE_FORMAT name stands for.
bool versionOfFittyp(double fittyp, MfVersion& v) {
  if (fittyp == 6.0 || fittyp == 21.0) v = MfVersion::Pac2002;
  else if (fittyp == 61.0) v = MfVersion::Mf61;
  else if (fittyp == 62.0) v = MfVersion::Mf62;
  else return false;
  return true;
}
bool versionOfFormat(std::string name, MfVersion& v) {
  name = asciiLower(name);
  std::string s;
  for (char c : name)
    if (c != '_' && c != ' ' && c != '.' && c != '-') s += c;
  if (s == "pac2002" || s == "mf52" || s == "mf05" || s == "mftyre52") v = MfVersion::Pac2002;
  else if (s == "mf61" || s == "mftyre61") v = MfVersion::Mf61;
  else if (s == "mf62" || s == "mftyre62") v = MfVersion::Mf62;
  else return false;
  return true;
}

}  // namespace

std::string TyreProperty::versionName() const {
  switch (version) {
    case MfVersion::Pac2002: return "PAC2002 (MF 5.2)";
    case MfVersion::Mf61: return "MF 6.1";
    case MfVersion::Mf62: return "MF 6.2";
  }
  return "?";
}

TyreProperty parseTyreProperty(const std::string& text, const std::string& path) {
  Diagnostics diag;
  const TeimFile file = parseTeimOrbit(text, path, diag, {{"SHAPE", {"radial", "width"}}});
  TyreProperty t;
  t.path = path;
  auto at = [&](int line) {
    Location w{path};
    w.line = line;
    return w;
  };
  t.fileUnits = readPropertyUnits(file.block("UNITS"), path, false, false, diag);
  const PropertyUnits& u = t.fileUnits;
  const auto& blocks = knownBlocks();
  // Every value of the file in SI, by block and key, with its line.
  std::map<std::string, std::map<std::string, std::pair<double, int>>> values;
  std::map<std::string, std::pair<std::string, int>> texts;  // quoted values of [MODEL]
  for (const TeimBlock& b : file.blocks) {
    const auto known = blocks.find(b.name);
    if (known == blocks.end()) {
      diag.error(at(b.line), "unknown block [" + b.name + "] in a tyre property file");
      continue;
    }
    for (const TeimBlock& sub : b.subBlocks) diag.error(at(sub.line), "[" + b.name + "] has no sub-blocks; found (" + sub.name + ")");
    if (b.name == "UNITS") continue;  // read above
    if (b.table && b.name != "SHAPE" && b.name != "DEFLECTION_LOAD_CURVE")
      diag.error(at(b.table->line), "[" + b.name + "] holds no table");
    for (const TeimAttribute& a : b.attributes) {
      const Key* key = nullptr;
      for (const Key& k : known->second)
        if (a.key == k.name) key = &k;
      if (!key) {
        diag.error(at(a.line), "[" + b.name + "] has no key " + printableExcerpt(a.key) +
                                   (b.name.find("COEFFICIENTS") != std::string::npos
                                        ? " (not a coefficient of the Magic Formula versions read: PAC2002, MF 6.1, 6.2)"
                                        : ""));
        continue;
      }
      if (a.quoted) {
        texts[a.key] = {a.value, a.line};
        continue;
      }
      double v = 0.0;
      if (!parseTeimNumber(a.value, v)) {
        diag.error(at(a.line), "[" + b.name + "] " + a.key + " is not a number: '" + printableExcerpt(a.value) + "'");
        continue;
      }
      values[b.name][a.key] = {v * factorOf(key->dimension, u), a.line};
    }
  }
  auto value = [&](const char* block, const char* key, double fallback, bool required) {
    if (const auto b = values.find(block); b != values.end())
      if (const auto k = b->second.find(key); k != b->second.end()) return k->second.first;
    if (required) diag.error({path}, std::string("[") + block + "] needs " + key);
    return fallback;
  };
  auto lineOf = [&](const char* block, const char* key) {
    if (const auto b = values.find(block); b != values.end())
      if (const auto k = b->second.find(key); k != b->second.end()) return k->second.second;
    return 0;
  };

  // The version: FITTYP, PROPERTY_FILE_FORMAT or both (then they must agree).
  bool haveFittyp = false, haveFormat = false;
  MfVersion byFittyp = MfVersion::Mf61, byFormat = MfVersion::Mf61;
  if (lineOf("MODEL", "FITTYP")) {
    haveFittyp = versionOfFittyp(value("MODEL", "FITTYP", 0, false), byFittyp);
    if (!haveFittyp)
      diag.error(at(lineOf("MODEL", "FITTYP")), "[MODEL] FITTYP " + shortestText(value("MODEL", "FITTYP", 0, false)) +
                                                    " is not a version read here (6 or 21: PAC2002, 61: MF 6.1, 62: MF 6.2)");
  }
  if (const auto f = texts.find("PROPERTY_FILE_FORMAT"); f != texts.end()) {
    haveFormat = versionOfFormat(f->second.first, byFormat);
    if (!haveFormat)
      diag.error(at(f->second.second), "[MODEL] PROPERTY_FILE_FORMAT '" + printableExcerpt(f->second.first) +
                                           "' is not a version read here (PAC2002, MF_61, MF_62)");
  }
  if (haveFittyp && haveFormat && byFittyp != byFormat)
    diag.error(at(lineOf("MODEL", "FITTYP")), "[MODEL] FITTYP (line " + std::to_string(lineOf("MODEL", "FITTYP")) +
                                                  ") and PROPERTY_FILE_FORMAT (line " +
                                                  std::to_string(texts["PROPERTY_FILE_FORMAT"].second) +
                                                  ") name different versions");
  if (!haveFittyp && !haveFormat && !lineOf("MODEL", "FITTYP") && !texts.count("PROPERTY_FILE_FORMAT"))
    diag.error({path}, "[MODEL] names no version: FITTYP or PROPERTY_FILE_FORMAT");
  t.version = haveFittyp ? byFittyp : byFormat;

  if (lineOf("MODEL", "USE_MODE")) {
    const double m = value("MODEL", "USE_MODE", 4, false);
    const bool whole = std::abs(m) <= 14.0 && m == std::round(m);  // before the cast: 1e300 is no int
    if (!whole || static_cast<int>(std::abs(m)) % 10 > 4)
      diag.error(at(lineOf("MODEL", "USE_MODE")), "[MODEL] USE_MODE " + shortestText(m) +
                                                      " is not a mode (0..4, +10 with relaxation, negative mirrored)");
    else
      t.useMode = static_cast<int>(m);
  }
  if (const auto s = texts.find("TYRESIDE"); s != texts.end()) {
    const std::string side = asciiLower(s->second.first);
    if (side == "left") t.side = TyreSide::Left;
    else if (side == "right") t.side = TyreSide::Right;
    else if (side == "symmetric" || side == "sym") t.side = TyreSide::Symmetric;
    else diag.error(at(s->second.second), "[MODEL] TYRESIDE '" + printableExcerpt(s->second.first) + "' is not LEFT, RIGHT or SYMMETRIC");
  }
  for (const auto& [key, v] : texts)
    if (key != "PROPERTY_FILE_FORMAT" && key != "TYRESIDE" && key != "FUNCTION_NAME" && key != "FILE_TYPE" &&
        key != "FILE_FORMAT" && key != "ROAD_DIRECTION")
      diag.error(at(v.second), key + " must be a number, not the text '" + printableExcerpt(v.first) + "'");

  t.longvl = value("MODEL", "LONGVL", 16.7, false);
  t.vxlow = value("MODEL", "VXLOW", 1.0, false);
  t.unloadedRadius = value("DIMENSION", "UNLOADED_RADIUS", 0.0, true);
  t.width = value("DIMENSION", "WIDTH", 0.0, false);
  t.rimRadius = value("DIMENSION", "RIM_RADIUS", 0.0, false);
  t.rimWidth = value("DIMENSION", "RIM_WIDTH", 0.0, false);
  t.nominalPressure = value("OPERATING_CONDITIONS", "NOMPRES", 0.0, false);
  t.inflationPressure = value("OPERATING_CONDITIONS", "INFLPRES", t.nominalPressure, false);
  if (t.nominalPressure == 0.0) t.nominalPressure = t.inflationPressure;
  t.mass = value("INERTIA", "MASS", 0.0, false);
  t.ixx = value("INERTIA", "IXX", 0.0, false);
  t.iyy = value("INERTIA", "IYY", 0.0, false);
  t.nominalLoad = value("VERTICAL", "FNOMIN", 0.0, true);
  t.verticalStiffness = value("VERTICAL", "VERTICAL_STIFFNESS", 0.0, true);
  t.verticalDamping = value("VERTICAL", "VERTICAL_DAMPING", 0.0, false);
  t.qRe0 = value("VERTICAL", "Q_RE0", 1.0, false);
  t.qV1 = value("VERTICAL", "Q_V1", 0.0, false);
  t.qV2 = value("VERTICAL", "Q_V2", 0.0, false);
  t.qFz2 = value("VERTICAL", "Q_FZ2", 0.0, false);
  t.qFcx = value("VERTICAL", "Q_FCX", 0.0, false);
  t.qFcy = value("VERTICAL", "Q_FCY", 0.0, false);
  t.pFz1 = value("VERTICAL", "PFZ1", 0.0, false);
  t.bReff = value("VERTICAL", "BREFF", 0.0, false);
  t.dReff = value("VERTICAL", "DREFF", 0.0, false);
  t.fReff = value("VERTICAL", "FREFF", 0.0, false);
  t.bottomOffset = value("VERTICAL", "BOTTOM_OFFST", 0.0, false);
  t.bottomStiffness = value("VERTICAL", "BOTTOM_STIFF", 0.0, false);
  t.longitudinalStiffness = value("STRUCTURAL", "LONGITUDINAL_STIFFNESS", 0.0, false);
  t.lateralStiffness = value("STRUCTURAL", "LATERAL_STIFFNESS", 0.0, false);
  for (const char* positive : {"UNLOADED_RADIUS", "FNOMIN", "VERTICAL_STIFFNESS"})
    for (const char* block : {"DIMENSION", "VERTICAL"})
      if (const int line = lineOf(block, positive); line && !(value(block, positive, 0, false) > 0.0))
        diag.error(at(line), std::string("[") + block + "] " + positive + " must be positive");

  for (int c = 0; c < static_cast<int>(Mf::Count); ++c) t.coefficient[c] = kCoefficientDefaults[c];
  for (const auto& [block, keys] : values)
    if (block.find("COEFFICIENTS") != std::string::npos && block != "TURNSLIP_COEFFICIENTS")
      for (const auto& [key, v] : keys)
        for (int c = 0; c < static_cast<int>(Mf::Count); ++c)
          if (key == kCoefficientNames[c]) t.coefficient[c] = v.first;
  // What the formulas of the file's use mode divide by or cannot do without.
  const int forces = std::abs(t.useMode) % 10;
  auto need = [&](const char* block, std::initializer_list<const char*> keys) {
    for (const char* k : keys) value(block, k, 0.0, true);
  };
  if (forces == 1 || forces >= 3) need("LONGITUDINAL_COEFFICIENTS", {"PCX1", "PDX1", "PKX1"});
  if (forces >= 2) {
    need("LATERAL_COEFFICIENTS", {"PCY1", "PDY1", "PKY1", "PKY2"});
    need("ALIGNING_COEFFICIENTS", {"QBZ1", "QCZ1", "QDZ1"});
  }
  if (forces >= 3) {
    need("LONGITUDINAL_COEFFICIENTS", {"RBX1", "RCX1"});
    need("LATERAL_COEFFICIENTS", {"RBY1", "RCY1"});
  }
  // The relaxation lengths of the transient slip (a wheel always runs with them: they carry it
  // through standstill): PTX1 / PTY1, or the carcass stiffness they follow from.
  auto relaxation = [&](const char* block, const char* coefficient, const char* stiffness) {
    if (lineOf(block, coefficient) && value(block, coefficient, 0.0, false) != 0.0) return;
    if (value("STRUCTURAL", stiffness, 0.0, false) > 0.0) return;
    diag.error({path}, std::string("[") + block + "] needs " + coefficient + " or [STRUCTURAL] needs a positive " +
                           stiffness + " (the relaxation length)");
  };
  if (forces == 1 || forces >= 3) relaxation("LONGITUDINAL_COEFFICIENTS", "PTX1", "LONGITUDINAL_STIFFNESS");
  if (forces >= 2) relaxation("LATERAL_COEFFICIENTS", "PTY1", "LATERAL_STIFFNESS");

  if (const TeimBlock* b = file.block("SHAPE"); b && b->table && !b->table->bad) {
    if (b->table->labels.size() != 2) diag.error(at(b->table->line), "[SHAPE] needs two columns {radial width}");
    else
      for (const auto& r : b->table->rows) t.shape.emplace_back(r[0], r[1]);
  }
  if (const TeimBlock* b = file.block("DEFLECTION_LOAD_CURVE"); b && b->table && !b->table->bad) {
    const auto& l = b->table->labels;
    if (l.size() != 2 || l[0] != "pen" || l[1] != "fz") {
      diag.error(at(b->table->line), "[DEFLECTION_LOAD_CURVE] needs the table {pen fz}");
    } else {
      for (std::size_t k = 0; k < b->table->rows.size(); ++k) {
        const auto& r = b->table->rows[k];
        t.deflectionLoad.emplace_back(r[0] * u.length, r[1] * u.force);
        if (k > 0 && !(t.deflectionLoad[k].first > t.deflectionLoad[k - 1].first))
          diag.error(at(b->table->rowLines[k]), "[DEFLECTION_LOAD_CURVE] deflections must rise row by row");
      }
    }
  }
  diag.throwIfErrors();
  return t;
}

TyreProperty readTyreProperty(const std::string& path) { return parseTyreProperty(readTextFile(path, 16u << 20, "tyre property file"), path); }

}  // namespace ek
