// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file fmu_export.h
/// A project as a co-simulation FMU (FMI 3.0 or 2.0, Linux x86-64; docs/fmi.md): modelDescription.xml,
/// the FMU's binaries (binaries/x86_64-linux/, FMI 2: binaries/linux64/: elastokin.so, which the
/// importer loads, and the engine's builds per instruction set, elastokin-x86-64-v3.so and
/// elastokin-x86-64-v4.so, of which it loads the widest the CPU runs), the project and the files
/// it reads, and the FMU's configuration under resources/.

#include <map>
#include <string>
#include <vector>

#include "engine/model/project.h"
#include "fmu/fmu_description.h"

namespace ek::fmu {

struct FmuExportOptions {
  int fmiVersion = 3;
  std::string loadCase;             ///< built-in signals and initial state; empty: none
  std::string integrator = "lsrt2"; ///< or ros34pw2
  double step = -1.0;               ///< [s]; negative: the project's
  int linearizeEvery = -1;          ///< negative: the project's
  std::vector<std::string> parameters;  ///< table cell paths tunable at instantiation
  std::string modelName;            ///< default: the project's name
  bool sources = false;             ///< also the sources a C++20 compiler builds the FMU's library from
};

struct FmuExport {
  std::map<std::string, std::string> files;  ///< path in the FMU -> contents
  FmuVariables variables;
  FmuConfig config;
};

/// The FMU's binaries as built with this program: the one the importer loads, and the engine's
/// builds beside it (elastokin-<instruction set>.so).
struct FmuBinaries {
  std::string loader;
  std::vector<std::string> builds;
};

/// The files of a source FMU (docs/fmi.md, "Source FMUs") as the build listed them
/// (fmu/source_manifest.py): the translation units, the headers they include (the project's,
/// Eigen's, Spectra's and nlohmann/json's), and the licence texts, each with its licence.
struct FmuSources {
  struct File {
    std::string kind;     ///< "unit" (compiled), "header" or "licence" (a licence text)
    std::string path;     ///< in sources/ (a licence text: in documentation/licenses/)
    std::string licence;  ///< SPDX identifier
    std::string from;     ///< where this program reads it
  };
  std::vector<File> files;
};

/// Everything the FMU holds, in memory (the binaries read from `binaries`; with options.sources,
/// the sources read from `sources`, with sources/buildDescription.xml (FMI 3) or the
/// <SourceFiles> list (FMI 2) and the licences under documentation/licenses/).
/// @throws ModelError (a project that is not a valid model, an unknown load case or parameter,
///   options out of range), IoError (a binary, a source file or a signal table cannot be read).
FmuExport makeFmu(const Project& project, const FmuExportOptions& options, const FmuBinaries& binaries,
                  const FmuSources& sources = {});

/// The FMU as a zip file at `path`, written through OutputFile. @throws IoError.
void writeFmu(const FmuExport& fmu, const std::string& path);
/// The .fmu's bytes: a zip archive of fmu.files built in memory (no temporary file an
/// interruption could leave behind). @throws IoError when the archive cannot be built.
std::string zipArchive(const FmuExport& fmu);

/// The FMU's unpacked folder at `dir` (created), as an importer unpacks it. @throws IoError.
void writeFmuFolder(const FmuExport& fmu, const std::string& dir);

/// modelDescription.xml for FMI 3.0 or 2.0.
/// FMI 2 lists a source FMU's translation units in it (`sourceFiles`, paths in sources/).
std::string modelDescription(const FmuConfig& config, const FmuVariables& variables, const std::string& description,
                             const std::vector<std::string>& sourceFiles = {});

/// The FMU's binaries as built with this program (the build tree, or beside the installed program
/// in ../lib/elastokin/). @throws IoError when the loader or every build is missing.
FmuBinaries fmuBinaries();

/// The source FMU's file list as built with this program (the build tree's fmu/sources.manifest, or
/// ../share/elastokin/fmu-sources/ beside the installed program). @throws IoError when the list
/// is missing, a row is malformed or it lists no translation unit (a listed file that cannot be
/// read is makeFmu()'s IoError).
FmuSources fmuSources();
/// fmuSources() when `options.sources` asks for them, else none (a binary-only FMU).
FmuSources fmuSources(const FmuExportOptions& options);

/// sources/buildDescription.xml of an FMI 3 source FMU: one C++20 source file set, sources/ the
/// include directory.
std::string buildDescription(const FmuSources& sources);

}  // namespace ek::fmu
