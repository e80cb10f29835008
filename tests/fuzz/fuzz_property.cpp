// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: any bytes as an Adams property file (adams_import.h), read and, when accepted,
// put onto the quarter axle's bushing 3 or P2P element 1 (read once) and written back in mm, N,
// deg, s; a hydro bushing ('hbu') through the Maxwell fit onto bushing 3. Bad input is rejected with ModelError naming what is wrong, never crashes, hangs or
// leaks; an accepted file's import either is a valid project or names the project's new errors,
// and its export reads back.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/analysis/bushing_dynamics.h"
#include "engine/core/error.h"
#include "engine/model/adams_export.h"
#include "engine/model/adams_import.h"
#include "engine/model/project_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ek::Project project = ek::readProject(ELASTOKIN_SOURCE_DIR "/projects/quarter_double_wishbone.json");
  static const ek::PropertyUnits units = ek::parseUnitList("mm,newton,degrees,second");
  const std::string text(reinterpret_cast<const char*>(data), size);
  ek::PropertyData d;
  try {
    d = ek::readPropertyText(text, "fuzz.bus");
  } catch (const ek::ModelError& e) {
    if (e.errors().empty() || std::string(e.what()).empty()) std::abort();  // an error must say something
    return 0;
  }
  if (d.type == ek::PropertyType::HydroBushing) {
    try {
      (void)ek::importHydroBushing(project, 3, d, ek::HydroImportOptions{});
    } catch (const ek::ModelError& e) {
      if (std::string(e.what()).empty()) std::abort();
    }
    return 0;
  }
  const bool bushing = d.type == ek::PropertyType::Bushing;
  try {
    const ek::PropertyImport r = ek::importPropertyData(project, bushing ? ek::ImportTarget::Bushing : ek::ImportTarget::P2P,
                                                        bushing ? 3 : 1, d);
    const ek::PropertyExport e = ek::exportPropertyFile(r.project, d.type, bushing ? 3 : 1, units);
    (void)ek::readPropertyText(e.text, "fuzz-export.bus");
  } catch (const ek::ModelError& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
