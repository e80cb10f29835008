// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: any bytes as a SID file (engine/fe/sid.h), and when the file is read, its
// floating-frame data (the modes diagonalized, the invariants and damping converted) and the file
// written again. Bad input is rejected with a ModelError that says something; nothing crashes,
// hangs or leaks, and a file read and written reads back.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/core/error.h"
#include "engine/fe/sid.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ek::fe::SidFile sid;
  try {
    sid = ek::fe::parseSid(text, "fuzz.SID_FEM");
  } catch (const ek::ModelError& e) {
    if (e.errors().empty() || std::string(e.what()).empty()) std::abort();  // an error must say something
    return 0;
  }
  try {
    (void)ek::fe::parseSid(ek::fe::writeSid(sid), "written.SID_FEM");  // what is read is written readably
  } catch (const ek::ModelError&) {
    std::abort();
  }
  try {
    (void)ek::fe::modalBodyFromSid(sid, ek::fe::FeUnits());
  } catch (const ek::ModelError& e) {
    if (e.errors().empty() || std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
