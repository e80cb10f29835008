// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: any bytes as a Magic Formula tyre property file (.tir, tyre_property.h), and when
// accepted, the forces and their partial derivatives at a few states, mirrored and not. Bad input
// is rejected with a ModelError that says something; nothing crashes, hangs or leaks, whatever
// the coefficients (a force may come out NaN for absurd ones: that is the file's, not a crash).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/core/error.h"
#include "engine/dynamics/magic_formula.h"
#include "engine/model/tyre_property.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ek::TyreProperty t;
  try {
    t = ek::parseTyreProperty(text, "fuzz.tir");
  } catch (const ek::ModelError& e) {
    if (e.errors().empty() || std::string(e.what()).empty()) std::abort();  // an error must say something
    return 0;
  }
  ek::MfPartials d{};
  for (const ek::MfState& s : {ek::MfState{0.05, -0.04, 0.02, t.nominalLoad, 20.0}, ek::MfState{0.0, 0.0, 0.0, 0.0, 0.0},
                               ek::MfState{-1.0, 1.2, -0.3, 3.0 * t.nominalLoad, -5.0}})
    for (bool mirrored : {false, true}) {
      (void)ek::magicFormula(t, s, mirrored);
      (void)ek::magicFormula(t, s, mirrored, d);
    }
  return 0;
}
