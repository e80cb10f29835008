// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/property_units.h"

#include <cctype>
#include <sstream>
#include <stdexcept>

#include "engine/core/text.h"

namespace ek {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kPoundForce = 4.4482216152605;  // N (lbf: 0.45359237 kg times g_n)
constexpr double kFoot = 0.3048;

struct UnitName {
  UnitKind kind;
  const char* name;  ///< the first of a kind's equal factors is the name Adams writes
  double factor;
};

// Adams' unit names (the first of each factor is the one written) and common aliases.
constexpr UnitName kUnits[] = {
    {UnitKind::Length, "mm", 1e-3}, {UnitKind::Length, "millimeter", 1e-3}, {UnitKind::Length, "millimeters", 1e-3},
    {UnitKind::Length, "cm", 1e-2}, {UnitKind::Length, "centimeter", 1e-2}, {UnitKind::Length, "centimeters", 1e-2},
    {UnitKind::Length, "meter", 1.0}, {UnitKind::Length, "m", 1.0}, {UnitKind::Length, "meters", 1.0},
    {UnitKind::Length, "metre", 1.0}, {UnitKind::Length, "km", 1e3}, {UnitKind::Length, "kilometer", 1e3},
    {UnitKind::Length, "kilometers", 1e3}, {UnitKind::Length, "inch", 0.0254}, {UnitKind::Length, "in", 0.0254},
    {UnitKind::Length, "inches", 0.0254}, {UnitKind::Length, "foot", kFoot}, {UnitKind::Length, "ft", kFoot},
    {UnitKind::Length, "feet", kFoot}, {UnitKind::Length, "mile", 1609.344}, {UnitKind::Length, "miles", 1609.344},
    {UnitKind::Force, "newton", 1.0}, {UnitKind::Force, "n", 1.0}, {UnitKind::Force, "newtons", 1.0},
    {UnitKind::Force, "knewton", 1e3}, {UnitKind::Force, "kilonewton", 1e3}, {UnitKind::Force, "kn", 1e3},
    {UnitKind::Force, "mnewton", 1e-3}, {UnitKind::Force, "millinewton", 1e-3},
    {UnitKind::Force, "centinewton", 1e-2}, {UnitKind::Force, "kg_force", 9.80665}, {UnitKind::Force, "kgf", 9.80665},
    {UnitKind::Force, "pound_force", kPoundForce}, {UnitKind::Force, "lbf", kPoundForce},
    {UnitKind::Force, "kpound_force", 1e3 * kPoundForce}, {UnitKind::Force, "kip", 1e3 * kPoundForce},
    {UnitKind::Force, "ounce_force", kPoundForce / 16.0}, {UnitKind::Force, "ozf", kPoundForce / 16.0},
    {UnitKind::Force, "dyne", 1e-5},
    {UnitKind::Angle, "degrees", kPi / 180.0}, {UnitKind::Angle, "degree", kPi / 180.0}, {UnitKind::Angle, "deg", kPi / 180.0},
    {UnitKind::Angle, "radians", 1.0}, {UnitKind::Angle, "radian", 1.0}, {UnitKind::Angle, "rad", 1.0},
    {UnitKind::Mass, "kg", 1.0}, {UnitKind::Mass, "kilogram", 1.0}, {UnitKind::Mass, "gram", 1e-3}, {UnitKind::Mass, "g", 1e-3},
    {UnitKind::Mass, "mgram", 1e-6}, {UnitKind::Mass, "tonne", 1e3}, {UnitKind::Mass, "megagram", 1e3},
    {UnitKind::Mass, "pound_mass", 0.45359237}, {UnitKind::Mass, "lbm", 0.45359237},
    {UnitKind::Mass, "kpound_mass", 453.59237}, {UnitKind::Mass, "slug", kPoundForce / kFoot},
    {UnitKind::Mass, "ounce_mass", 0.45359237 / 16.0},
    {UnitKind::Time, "second", 1.0}, {UnitKind::Time, "sec", 1.0}, {UnitKind::Time, "s", 1.0},
    {UnitKind::Time, "seconds", 1.0}, {UnitKind::Time, "millisecond", 1e-3}, {UnitKind::Time, "ms", 1e-3},
    {UnitKind::Time, "milliseconds", 1e-3}, {UnitKind::Time, "microsecond", 1e-6}, {UnitKind::Time, "minute", 60.0},
    {UnitKind::Time, "min", 60.0}, {UnitKind::Time, "minutes", 60.0}, {UnitKind::Time, "hour", 3600.0},
    {UnitKind::Time, "hr", 3600.0}, {UnitKind::Time, "hours", 3600.0},
};

const char* keyOf(UnitKind k) {
  switch (k) {
    case UnitKind::Length: return "LENGTH";
    case UnitKind::Force: return "FORCE";
    case UnitKind::Angle: return "ANGLE";
    case UnitKind::Mass: return "MASS";
    case UnitKind::Time: return "TIME";
  }
  return "?";
}

/// The canonical (written) name of a factor of `kind`.
std::string canonical(UnitKind kind, const std::string& name) {
  double f = 0.0;
  if (!unitFactor(kind, name, f)) return name;
  for (const UnitName& u : kUnits)
    if (u.kind == kind && u.factor == f) return u.name;
  return name;
}

}  // namespace

bool unitFactor(UnitKind kind, const std::string& name, double& factor) {
  const std::string n = asciiLower(name);
  for (const UnitName& u : kUnits)
    if (u.kind == kind && n == u.name) {
      factor = u.factor;
      return true;
    }
  return false;
}

std::string knownUnits(UnitKind kind) {
  std::string s;
  for (const UnitName& u : kUnits)
    if (u.kind == kind) s += (s.empty() ? "'" : ", '") + std::string(u.name) + "'";
  return s;
}

std::string PropertyUnits::describe() const {
  return lengthName + ", " + forceName + ", " + angleName + ", " + timeName + ", " + massName;
}

PropertyUnits readPropertyUnits(const TeimBlock* units, const std::string& path, bool needAngle, bool needTime,
                                Diagnostics& diag) {
  PropertyUnits u;
  if (!units) {
    diag.error({path}, "the file has no [UNITS] block (LENGTH, FORCE, ANGLE, MASS, TIME)");
    return u;
  }
  auto pick = [&](UnitKind kind, double& factor, std::string& name, bool needed) {
    const TeimAttribute* a = units->attribute(keyOf(kind));
    Location w{path};
    w.line = a ? a->line : units->line;
    if (!a) {
      if (needed) diag.error(w, std::string("[UNITS] has no ") + keyOf(kind));
      return;
    }
    if (!unitFactor(kind, a->value, factor)) {
      diag.error(w, std::string("unknown ") + keyOf(kind) + " unit '" + printableExcerpt(a->value) + "' (" +
                        knownUnits(kind) + ")");
      return;
    }
    name = canonical(kind, a->value);
  };
  pick(UnitKind::Length, u.length, u.lengthName, true);
  pick(UnitKind::Force, u.force, u.forceName, true);
  pick(UnitKind::Angle, u.angle, u.angleName, needAngle);
  pick(UnitKind::Mass, u.mass, u.massName, false);
  pick(UnitKind::Time, u.time, u.timeName, needTime);
  for (const TeimAttribute& a : units->attributes)
    if (a.key != "LENGTH" && a.key != "FORCE" && a.key != "ANGLE" && a.key != "MASS" && a.key != "TIME") {
      Location w{path};
      w.line = a.line;
      diag.error(w, "[UNITS] has an unknown key " + printableExcerpt(a.key) + " (LENGTH, FORCE, ANGLE, MASS, TIME)");
    }
  return u;
}

PropertyUnits parseUnitList(const std::string& list) {
  PropertyUnits u;
  std::vector<std::string> names;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    names.push_back(a == std::string::npos ? std::string() : item.substr(a, b - a + 1));
  }
  if (names.size() < 4 || names.size() > 5)
    throw std::invalid_argument("units are LENGTH,FORCE,ANGLE,TIME[,MASS], e.g. mm,newton,degrees,second; found '" +
                                printableExcerpt(list) + "'");
  const UnitKind kinds[] = {UnitKind::Length, UnitKind::Force, UnitKind::Angle, UnitKind::Time, UnitKind::Mass};
  double* factors[] = {&u.length, &u.force, &u.angle, &u.time, &u.mass};
  std::string* labels[] = {&u.lengthName, &u.forceName, &u.angleName, &u.timeName, &u.massName};
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (!unitFactor(kinds[k], names[k], *factors[k]))
      throw std::invalid_argument(std::string("unknown ") + asciiLower(keyOf(kinds[k])) + " unit '" + printableExcerpt(names[k]) +
                                  "' (" + knownUnits(kinds[k]) + ")");
    *labels[k] = canonical(kinds[k], names[k]);
  }
  return u;
}

TeimBlock unitsBlock(const PropertyUnits& u) {
  TeimBlock b;
  b.name = "UNITS";
  b.attributes = {{"LENGTH", u.lengthName, true, 0}, {"ANGLE", u.angleName, true, 0}, {"FORCE", u.forceName, true, 0},
                  {"MASS", u.massName, true, 0}, {"TIME", u.timeName, true, 0}};
  return b;
}

}  // namespace ek
