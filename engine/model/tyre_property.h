// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file tyre_property.h
/// A Magic Formula tyre property file (`.tir`, TeimOrbit text) read into SI (DESIGN.md section 11):
/// the model's version and use mode, the dimensions, the vertical properties, the scaling factors
/// and the coefficients of the force and moment formulas (docs/tyres.md lists the keys read).
///
/// Real files differ in ways read here: a [UNITS] block in any Adams units (mm, kN, deg as well
/// as SI; every dimensional value converted, the dimensionless coefficients as they are), MASS
/// in [UNITS] and [INERTIA], tabs, `$` and `!` comments, D exponents, a [SHAPE] table with or
/// without its `{radial width}` line, a [DEFLECTION_LOAD_CURVE] `{pen fz}` table, no FITTYP (the
/// version then from PROPERTY_FILE_FORMAT), USE_MODE with +10 (transient) and a minus sign
/// (mirrored). Strict: an unknown block or key, a key twice, a version given two ways that
/// disagree, a missing key the formulas need: errors naming the file and the line, all in one pass.

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/model/property_units.h"

namespace ek {

/// The formula set a file is fitted for.
enum class MfVersion { Pac2002, Mf61, Mf62 };

enum class TyreSide { Left, Right, Symmetric };

/// Every coefficient and scaling factor the formulas read, with the block that holds it and its
/// value when the file leaves it out (coefficients 0, scaling factors 1).
#define EK_MF_COEFFICIENTS(X)                                                                                      \
  X(LFZO, SCALING, 1) X(LCX, SCALING, 1) X(LMUX, SCALING, 1) X(LEX, SCALING, 1) X(LKX, SCALING, 1)               \
  X(LHX, SCALING, 1) X(LVX, SCALING, 1) X(LGAX, SCALING, 1) X(LCY, SCALING, 1) X(LMUY, SCALING, 1)               \
  X(LEY, SCALING, 1) X(LKY, SCALING, 1) X(LKYC, SCALING, 1) X(LKZC, SCALING, 1) X(LHY, SCALING, 1)               \
  X(LVY, SCALING, 1) X(LGAY, SCALING, 1) X(LTR, SCALING, 1) X(LRES, SCALING, 1) X(LGAZ, SCALING, 1)              \
  X(LXAL, SCALING, 1) X(LYKA, SCALING, 1) X(LVYKA, SCALING, 1) X(LS, SCALING, 1) X(LSGKP, SCALING, 1)            \
  X(LSGAL, SCALING, 1) X(LGYR, SCALING, 1) X(LMX, SCALING, 1) X(LVMX, SCALING, 1) X(LMY, SCALING, 1)             \
  X(LMP, SCALING, 1) X(LMUV, SCALING, 0) X(LCZ, SCALING, 1) X(LKZ, SCALING, 1) X(LIP, SCALING, 1)                \
  X(PCX1, LONGITUDINAL, 0) X(PDX1, LONGITUDINAL, 0) X(PDX2, LONGITUDINAL, 0) X(PDX3, LONGITUDINAL, 0)            \
  X(PEX1, LONGITUDINAL, 0) X(PEX2, LONGITUDINAL, 0) X(PEX3, LONGITUDINAL, 0) X(PEX4, LONGITUDINAL, 0)            \
  X(PKX1, LONGITUDINAL, 0) X(PKX2, LONGITUDINAL, 0) X(PKX3, LONGITUDINAL, 0) X(PHX1, LONGITUDINAL, 0)            \
  X(PHX2, LONGITUDINAL, 0) X(PVX1, LONGITUDINAL, 0) X(PVX2, LONGITUDINAL, 0) X(PPX1, LONGITUDINAL, 0)            \
  X(PPX2, LONGITUDINAL, 0) X(PPX3, LONGITUDINAL, 0) X(PPX4, LONGITUDINAL, 0) X(RBX1, LONGITUDINAL, 0)            \
  X(RBX2, LONGITUDINAL, 0) X(RBX3, LONGITUDINAL, 0) X(RCX1, LONGITUDINAL, 0) X(REX1, LONGITUDINAL, 0)            \
  X(REX2, LONGITUDINAL, 0) X(RHX1, LONGITUDINAL, 0) X(PTX1, LONGITUDINAL, 0) X(PTX2, LONGITUDINAL, 0)            \
  X(PTX3, LONGITUDINAL, 0)                                                                                       \
  X(QSX1, OVERTURNING, 0) X(QSX2, OVERTURNING, 0) X(QSX3, OVERTURNING, 0) X(QSX4, OVERTURNING, 0)                \
  X(QSX5, OVERTURNING, 0) X(QSX6, OVERTURNING, 0) X(QSX7, OVERTURNING, 0) X(QSX8, OVERTURNING, 0)                \
  X(QSX9, OVERTURNING, 0) X(QSX10, OVERTURNING, 0) X(QSX11, OVERTURNING, 0) X(QSX12, OVERTURNING, 0)             \
  X(QSX13, OVERTURNING, 0) X(QSX14, OVERTURNING, 0) X(PPMX1, OVERTURNING, 0)                                     \
  X(PCY1, LATERAL, 0) X(PDY1, LATERAL, 0) X(PDY2, LATERAL, 0) X(PDY3, LATERAL, 0) X(PEY1, LATERAL, 0)            \
  X(PEY2, LATERAL, 0) X(PEY3, LATERAL, 0) X(PEY4, LATERAL, 0) X(PEY5, LATERAL, 0) X(PKY1, LATERAL, 0)            \
  X(PKY2, LATERAL, 0) X(PKY3, LATERAL, 0) X(PKY4, LATERAL, 0) X(PKY5, LATERAL, 0) X(PKY6, LATERAL, 0)            \
  X(PKY7, LATERAL, 0) X(PHY1, LATERAL, 0) X(PHY2, LATERAL, 0) X(PHY3, LATERAL, 0) X(PVY1, LATERAL, 0)            \
  X(PVY2, LATERAL, 0) X(PVY3, LATERAL, 0) X(PVY4, LATERAL, 0) X(PPY1, LATERAL, 0) X(PPY2, LATERAL, 0)            \
  X(PPY3, LATERAL, 0) X(PPY4, LATERAL, 0) X(PPY5, LATERAL, 0) X(RBY1, LATERAL, 0) X(RBY2, LATERAL, 0)            \
  X(RBY3, LATERAL, 0) X(RBY4, LATERAL, 0) X(RCY1, LATERAL, 0) X(REY1, LATERAL, 0) X(REY2, LATERAL, 0)            \
  X(RHY1, LATERAL, 0) X(RHY2, LATERAL, 0) X(RVY1, LATERAL, 0) X(RVY2, LATERAL, 0) X(RVY3, LATERAL, 0)            \
  X(RVY4, LATERAL, 0) X(RVY5, LATERAL, 0) X(RVY6, LATERAL, 0) X(PTY1, LATERAL, 0) X(PTY2, LATERAL, 0)            \
  X(QSY1, ROLLING, 0) X(QSY2, ROLLING, 0) X(QSY3, ROLLING, 0) X(QSY4, ROLLING, 0) X(QSY5, ROLLING, 0)            \
  X(QSY6, ROLLING, 0) X(QSY7, ROLLING, 0) X(QSY8, ROLLING, 0)                                                    \
  X(QBZ1, ALIGNING, 0) X(QBZ2, ALIGNING, 0) X(QBZ3, ALIGNING, 0) X(QBZ4, ALIGNING, 0) X(QBZ5, ALIGNING, 0)       \
  X(QBZ6, ALIGNING, 0) X(QBZ9, ALIGNING, 0) X(QBZ10, ALIGNING, 0) X(QCZ1, ALIGNING, 0) X(QDZ1, ALIGNING, 0)      \
  X(QDZ2, ALIGNING, 0) X(QDZ3, ALIGNING, 0) X(QDZ4, ALIGNING, 0) X(QDZ6, ALIGNING, 0) X(QDZ7, ALIGNING, 0)       \
  X(QDZ8, ALIGNING, 0) X(QDZ9, ALIGNING, 0) X(QDZ10, ALIGNING, 0) X(QDZ11, ALIGNING, 0) X(QEZ1, ALIGNING, 0)     \
  X(QEZ2, ALIGNING, 0) X(QEZ3, ALIGNING, 0) X(QEZ4, ALIGNING, 0) X(QEZ5, ALIGNING, 0) X(QHZ1, ALIGNING, 0)       \
  X(QHZ2, ALIGNING, 0) X(QHZ3, ALIGNING, 0) X(QHZ4, ALIGNING, 0) X(PPZ1, ALIGNING, 0) X(PPZ2, ALIGNING, 0)       \
  X(SSZ1, ALIGNING, 0) X(SSZ2, ALIGNING, 0) X(SSZ3, ALIGNING, 0) X(SSZ4, ALIGNING, 0) X(QTZ1, ALIGNING, 0)       \
  X(MBELT, ALIGNING, 0)

enum class Mf : int {
#define EK_MF_ENUM(name, block, fallback) name,
  EK_MF_COEFFICIENTS(EK_MF_ENUM)
#undef EK_MF_ENUM
      Count
};

struct TyreProperty {
  std::string path;
  MfVersion version = MfVersion::Mf61;
  /// USE_MODE as written: |mode| % 10 the force set (0 Fz, 1 Fx, 2 Fy Mx Mz, 3 combined, 4 with
  /// My), +10 with relaxation (transient), negative mirrored.
  int useMode = 4;
  TyreSide side = TyreSide::Symmetric;
  double unloadedRadius = 0.0;  ///< [m]
  double width = 0.0;           ///< [m]
  double rimRadius = 0.0;       ///< [m]
  double rimWidth = 0.0;        ///< [m]
  double nominalLoad = 0.0;     ///< FNOMIN [N]
  double verticalStiffness = 0.0;  ///< [N/m]
  double verticalDamping = 0.0;    ///< [N s/m]
  double longvl = 0.0;          ///< reference speed [m/s]
  double vxlow = 1.0;           ///< below this speed the low-speed treatment [m/s]
  double nominalPressure = 0.0, inflationPressure = 0.0;  ///< [Pa]; equal when the file gives one
  double mass = 0.0, ixx = 0.0, iyy = 0.0;               ///< [kg], [kg m^2]
  double qRe0 = 1.0, qV1 = 0.0, qV2 = 0.0, qFz2 = 0.0, qFcx = 0.0, qFcy = 0.0, pFz1 = 0.0;  ///< vertical
  double bReff = 0.0, dReff = 0.0, fReff = 0.0;          ///< effective rolling radius
  double bottomOffset = 0.0, bottomStiffness = 0.0;      ///< [m], [N/m]
  double longitudinalStiffness = 0.0, lateralStiffness = 0.0;  ///< [STRUCTURAL] carcass [N/m], 0 when absent
  /// Relaxation lengths' coefficients (PTX1..3, PTY1..2) are in `coefficient`.
  std::vector<std::pair<double, double>> deflectionLoad;  ///< (deflection [m], vertical force [N])
  std::vector<std::pair<double, double>> shape;           ///< (radial, width), dimensionless
  std::array<double, static_cast<int>(Mf::Count)> coefficient{};
  PropertyUnits fileUnits;

  double operator[](Mf c) const { return coefficient[static_cast<int>(c)]; }
  /// The formula set's name as files write it ("MF 6.1").
  std::string versionName() const;
  bool mirrored() const { return useMode < 0; }
  bool transient() const { return (useMode < 0 ? -useMode : useMode) >= 10; }
};

/// Reads a .tir file. @throws ModelError listing every problem with its line; std::runtime_error
/// if the file cannot be read.
TyreProperty readTyreProperty(const std::string& path);
/// The same from text (`path` names it in messages).
TyreProperty parseTyreProperty(const std::string& text, const std::string& path);

}  // namespace ek
