// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: any bytes as a project file. Reading, validation and compilation may reject the
// input (ModelError) but never crash, hang or leak; a project that is accepted must survive a
// write-read round trip unchanged (nothing is silently changed by the file format).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "engine/model/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ek::Project project;
  try {
    project = ek::parseProject(text, "fuzz.json");
  } catch (const ek::ModelError& e) {
    if (e.errors().empty() || std::string(e.what()).empty()) std::abort();  // an error must say something
    return 0;
  }
  const ek::Diagnostics d = ek::check(project);
  try {
    (void)ek::SuspensionModel::build(project);
    if (d.hasErrors()) std::abort();  // build() accepted what check() rejected
  } catch (const ek::ModelError&) {
    if (!d.hasErrors()) std::abort();  // build() rejected what check() accepted
  }
  // Round trip: the canonical text reads back to the same tables.
  const ek::Project again = ek::parseProject(ek::writeProjectText(project), "fuzz.json");
  if (!(again == project)) std::abort();
  return 0;
}
