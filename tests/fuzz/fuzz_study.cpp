// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: any bytes as a study file, read and checked against the studies' test oscillator
// (tests/data/studies/oscillator.json, read once). Bad input is rejected with ModelError, naming
// what is wrong, and never crashes, hangs or leaks; an accepted study's start design is valid
// (its variables can be set in the project).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/analysis/study.h"
#include "engine/core/error.h"
#include "engine/model/project_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ek::Project project = ek::readProject(ELASTOKIN_SOURCE_DIR "/tests/data/studies/oscillator.json");
  const std::string text(reinterpret_cast<const char*>(data), size);
  ek::StudyContext context;
  try {
    context = ek::studyContext(text, "fuzz.study.json", &project);
  } catch (const ek::ModelError& e) {
    if (e.errors().empty() || std::string(e.what()).empty()) std::abort();  // an error must say something
    return 0;
  }
  // Accepted: every variable names a number, so the start design can be set.
  (void)ek::applyDesign(context, context.startValues);
  return 0;
}
