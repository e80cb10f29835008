// SPDX-License-Identifier: GPL-3.0-or-later
#include "fmu/fmu_export.h"

#include <algorithm>
#include <minizip/zip.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "engine/core/text_file.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "engine/model/signal.h"
#include "engine/model/table_path.h"
#include "engine/model/validate.h"

namespace ek::fmu {

namespace fs = std::filesystem;

namespace {

// Text as XML 1.0 holds it: markup characters and tab, line feed and carriage return as
// references (an attribute keeps them), UTF-8 decoded and checked; what XML 1.0 cannot hold at
// all (other control characters, U+FFFE, U+FFFF, surrogates, malformed bytes) becomes U+FFFD, so
// that modelDescription.xml always reads back.
std::string xml(const std::string& s) {
  constexpr const char* kReplacement = "\xEF\xBF\xBD";
  std::string out;
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = b[i];
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        case '\t': out += "&#9;"; break;
        case '\n': out += "&#10;"; break;
        case '\r': out += "&#13;"; break;
        default: out += c < 0x20 ? kReplacement : std::string(1, static_cast<char>(c));
      }
      ++i;
      continue;
    }
    // A multi-byte sequence: its length, its code point, and whether XML allows it.
    const int len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    char32_t cp = len == 4 ? c & 0x07 : len == 3 ? c & 0x0F : c & 0x1F;
    bool ok = len > 0 && i + len <= n;
    for (int k = 1; ok && k < len; ++k) {
      ok = (b[i + k] & 0xC0) == 0x80;
      cp = (cp << 6) | (b[i + k] & 0x3F);
    }
    const bool formed = ok && !(len == 3 && cp < 0x800) && !(len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) &&
                        !(cp >= 0xD800 && cp <= 0xDFFF);
    const bool allowed = formed && cp != 0xFFFE && cp != 0xFFFF;
    if (allowed) out.append(s, i, static_cast<std::size_t>(len));
    else out += kReplacement;
    i += formed ? static_cast<std::size_t>(len) : 1;  // one replacement per character, or per stray byte
  }
  return out;
}

std::string attr(const char* name, const std::string& value) { return std::string(" ") + name + "=\"" + xml(value) + "\""; }

std::string randomToken() {
  std::random_device rd;
  std::mt19937_64 g((static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
                    static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count()));
  const char* hex = "0123456789abcdef";
  std::string t = "{";
  for (int k = 0; k < 32; ++k) {
    if (k == 8 || k == 12 || k == 16 || k == 20) t += '-';
    t += hex[g() & 15];
  }
  return t + "}";
}

std::string nowUtc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return cformat("%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                 tm.tm_sec);
}

std::string unitDefinitions(const FmuVariables& v) {
  std::set<std::string> units;
  for (const FmuVariable& x : v.all)
    if (!x.unit.empty()) units.insert(x.unit);
  std::string out = "  <UnitDefinitions>\n";
  for (const std::string& u : units) {
    BaseUnit b;
    out += "    <Unit" + attr("name", u);
    if (baseUnitOf(u, b)) {
      out += "><BaseUnit";
      if (b.kg) out += attr("kg", std::to_string(b.kg));
      if (b.m) out += attr("m", std::to_string(b.m));
      if (b.s) out += attr("s", std::to_string(b.s));
      if (b.rad) out += attr("rad", std::to_string(b.rad));
      if (b.factor != 1.0) out += attr("factor", shortestText(b.factor));
      out += "/>";
      if (const DisplayUnit d = displayUnitOf(u); !d.name.empty())
        out += "<DisplayUnit" + attr("name", d.name) + attr("factor", shortestText(d.factor)) + "/>";
      out += "</Unit>\n";
    } else {
      out += "/>\n";
    }
  }
  return out + "  </UnitDefinitions>\n";
}

/// displayUnit="..." for a unit that has one (only where the unit defines it: baseUnitOf).
std::string displayUnitAttribute(const std::string& unit) {
  BaseUnit b;
  const DisplayUnit d = displayUnitOf(unit);
  return d.name.empty() || !baseUnitOf(unit, b) ? std::string() : attr("displayUnit", d.name);
}

const char* causality(Causality c) {
  switch (c) {
    case Causality::Independent: return "independent";
    case Causality::Input: return "input";
    case Causality::Output: return "output";
    case Causality::Parameter: return "parameter";
  }
  return "local";
}

/// The categories the FMU logs in (the standard's names), for both versions' schema.
std::string logCategories() {
  return "  <LogCategories>\n"
         "    <Category name=\"logEvents\" description=\"the engine build loaded, the static equilibrium found\"/>\n"
         "    <Category name=\"logStatusError\" description=\"errors: bad use, bad values, a run that stopped\"/>\n"
         "    <Category name=\"logStatusFatal\" description=\"out of memory\"/>\n"
         "  </LogCategories>\n";
}

}  // namespace

std::string modelDescription(const FmuConfig& c, const FmuVariables& v, const std::string& description,
                             const std::vector<std::string>& sourceFiles) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string stop = shortestText(c.stopTime > c.startTime ? c.stopTime : c.startTime + 10.0);
  const std::string step = shortestText(c.step);
  if (c.fmiVersion == 3) {
    out += "<fmiModelDescription fmiVersion=\"3.0\"" + attr("modelName", c.modelName) + attr("instantiationToken", c.token) +
           attr("description", description) + attr("generationTool", "Elastokin") + attr("generationDateAndTime", nowUtc()) +
           " variableNamingConvention=\"flat\">\n";
    out += "  <CoSimulation modelIdentifier=\"" + std::string(kModelIdentifier) +
           "\" canHandleVariableCommunicationStepSize=\"true\" fixedInternalStepSize=\"" + step +
           "\" canGetAndSetFMUState=\"true\" canSerializeFMUState=\"true\" hasEventMode=\"false\""
           " providesIntermediateUpdate=\"false\" mightReturnEarlyFromDoStep=\"false\"/>\n";
    out += unitDefinitions(v);
    out += logCategories();
    out += "  <DefaultExperiment" + attr("startTime", shortestText(c.startTime)) + attr("stopTime", stop) +
           attr("stepSize", step) + "/>\n";
    out += "  <ModelVariables>\n";
    for (const FmuVariable& x : v.all) {
      out += "    <Float64" + attr("name", x.name) + attr("valueReference", std::to_string(x.valueReference)) +
             attr("description", x.description) + attr("causality", causality(x.causality));
      switch (x.causality) {
        case Causality::Independent: out += " variability=\"continuous\""; break;
        case Causality::Input: out += " variability=\"continuous\"" + attr("start", shortestText(x.start)); break;
        case Causality::Output: out += " variability=\"continuous\""; break;
        case Causality::Parameter: out += " variability=\"fixed\"" + attr("start", shortestText(x.start)); break;
      }
      if (!x.unit.empty()) out += attr("unit", x.unit) + displayUnitAttribute(x.unit);
      out += "/>\n";
    }
    out += "  </ModelVariables>\n  <ModelStructure>\n";
    for (int k = 0; k < v.nOutputs; ++k)
      out += "    <Output valueReference=\"" + std::to_string(v.firstOutput + k) + "\"/>\n";
    for (int k = 0; k < v.nOutputs; ++k)
      out += "    <InitialUnknown valueReference=\"" + std::to_string(v.firstOutput + k) + "\"/>\n";
    out += "  </ModelStructure>\n</fmiModelDescription>\n";
    return out;
  }
  out += "<fmiModelDescription fmiVersion=\"2.0\"" + attr("modelName", c.modelName) + attr("guid", c.token) +
         attr("description", description) + attr("generationTool", "Elastokin") + attr("generationDateAndTime", nowUtc()) +
         " variableNamingConvention=\"flat\" numberOfEventIndicators=\"0\">\n";
  out += "  <CoSimulation modelIdentifier=\"" + std::string(kModelIdentifier) +
         "\" canHandleVariableCommunicationStepSize=\"true\" canInterpolateInputs=\"false\" maxOutputDerivativeOrder=\"0\""
         " canGetAndSetFMUstate=\"true\" canSerializeFMUstate=\"true\" canNotUseMemoryManagementFunctions=\"true\"";
  if (sourceFiles.empty()) {
    out += "/>\n";
  } else {
    out += ">\n    <SourceFiles>\n";
    for (const std::string& f : sourceFiles) out += "      <File" + attr("name", f) + "/>\n";
    out += "    </SourceFiles>\n  </CoSimulation>\n";
  }
  out += unitDefinitions(v);
  out += logCategories();
  out += "  <DefaultExperiment" + attr("startTime", shortestText(c.startTime)) + attr("stopTime", stop) +
         attr("stepSize", step) + "/>\n";
  out += "  <ModelVariables>\n";
  int index = 0;
  std::vector<int> outputIndex;
  for (const FmuVariable& x : v.all) {
    if (x.causality == Causality::Independent) continue;  // FMI 2 has no time variable
    ++index;
    out += "    <ScalarVariable" + attr("name", x.name) + attr("valueReference", std::to_string(x.valueReference)) +
           attr("description", x.description) + attr("causality", causality(x.causality));
    switch (x.causality) {
      case Causality::Input: out += " variability=\"continuous\"><Real" + attr("start", shortestText(x.start)); break;
      case Causality::Output:
        out += " variability=\"continuous\" initial=\"calculated\"><Real";
        outputIndex.push_back(index);
        break;
      default: out += " variability=\"fixed\" initial=\"exact\"><Real" + attr("start", shortestText(x.start)); break;
    }
    if (!x.unit.empty()) out += attr("unit", x.unit) + displayUnitAttribute(x.unit);
    out += "/></ScalarVariable>\n";
  }
  out += "  </ModelVariables>\n  <ModelStructure>\n    <Outputs>\n";
  for (int i : outputIndex) out += "      <Unknown index=\"" + std::to_string(i) + "\"/>\n";
  out += "    </Outputs>\n    <InitialUnknowns>\n";
  for (int i : outputIndex) out += "      <Unknown index=\"" + std::to_string(i) + "\"/>\n";
  out += "    </InitialUnknowns>\n  </ModelStructure>\n</fmiModelDescription>\n";
  return out;
}

namespace {

/// Where a file the build made is: in the build tree (`built`, empty if this program was not
/// built with it), then beside the installed program (`installed`, relative to its prefix).
std::vector<std::string> builtOrInstalled(const char* built, const fs::path& installed) {
  std::vector<std::string> places;
  if (built && *built) places.push_back(built);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) places.push_back((exe.parent_path() / ".." / installed).lexically_normal().string());
  return places;
}

}  // namespace

FmuBinaries fmuBinaries() {
#ifdef ELASTOKIN_FMU_BINARY
  const char* built = ELASTOKIN_FMU_BINARY;
#else
  const char* built = nullptr;
#endif
  const std::vector<std::string> places = builtOrInstalled(built, "lib/elastokin/elastokin.so");
  std::error_code ec;
  for (const std::string& p : places) {
    if (!fs::is_regular_file(p, ec)) continue;
    FmuBinaries b;
    b.loader = p;
    for (const auto& e : fs::directory_iterator(fs::path(p).parent_path(), ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(std::string(kModelIdentifier) + "-", 0) == 0 && e.path().extension() == ".so") b.builds.push_back(e.path().string());
    }
    std::sort(b.builds.begin(), b.builds.end());
    if (b.builds.empty())
      throw IoError("the FMU's engine builds (" + std::string(kModelIdentifier) + "-x86-64-v3.so, ...) are missing beside " + p);
    return b;
  }
  throw IoError("the FMU's shared library is not built (looked in " + (places.empty() ? std::string("nowhere") : places.front()) +
                "): build Elastokin with -DELASTOKIN_FMU=ON");
}

FmuSources fmuSources() {
#ifdef ELASTOKIN_FMU_SOURCES_MANIFEST
  const char* built = ELASTOKIN_FMU_SOURCES_MANIFEST;
#else
  const char* built = nullptr;
#endif
  const std::vector<std::string> places = builtOrInstalled(built, "share/elastokin/fmu-sources/sources.manifest");
  std::error_code ec;
  for (const std::string& p : places) {
    if (!fs::is_regular_file(p, ec)) continue;
    std::string text;
    try {
      text = readTextFile(p, 16u << 20, "source FMU manifest");
    } catch (const ModelError& e) {
      throw IoError(e.what());
    }
    FmuSources s;
    int line = 0;
    std::istringstream rows(text);
    for (std::string row; std::getline(rows, row);) {
      ++line;
      if (row.empty()) continue;
      std::vector<std::string> f;
      std::istringstream fields(row);
      for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
      if (f.size() != 4 || (f[0] != "unit" && f[0] != "header" && f[0] != "licence"))
        throw IoError(p + ", line " + std::to_string(line) + ": not 'kind<TAB>path<TAB>licence<TAB>file'");
      // An installed list names its files relative to itself.
      const std::string from = fs::path(f[3]).is_absolute() ? f[3] : (fs::path(p).parent_path() / f[3]).string();
      s.files.push_back({f[0], f[1], f[2], from});
    }
    if (std::none_of(s.files.begin(), s.files.end(), [](const FmuSources::File& f) { return f.kind == "unit"; }))
      throw IoError(p + ": lists no source file");
    return s;
  }
  throw IoError("the source FMU's file list is not built (looked in " +
                (places.empty() ? std::string("nowhere") : places.front()) + "): build Elastokin with -DELASTOKIN_FMU=ON");
}

FmuSources fmuSources(const FmuExportOptions& options) { return options.sources ? fmuSources() : FmuSources{}; }

std::string buildDescription(const FmuSources& sources) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiBuildDescription fmiVersion=\"3.0\">\n";
  out += "  <BuildConfiguration modelIdentifier=\"" + std::string(kModelIdentifier) +
         "\" description=\"The FMU's shared library from these sources alone: any C++20 compiler, sources/ the "
         "include directory, no other library (README.txt)\">\n";
  out += "    <SourceFileSet language=\"C++20\">\n";
  for (const FmuSources::File& f : sources.files)
    if (f.kind == "unit") out += "      <SourceFile" + attr("name", f.path) + "/>\n";
  out += "      <IncludeDirectory name=\".\"/>\n    </SourceFileSet>\n  </BuildConfiguration>\n</fmiBuildDescription>\n";
  return out;
}

namespace {

/// sources/README.txt: how to build, and which licence each file carries.
std::string sourcesReadme(const FmuSources& sources, int fmiVersion) {
  std::map<std::string, int> perLicence;
  for (const FmuSources::File& f : sources.files)
    if (f.kind != "licence") ++perLicence[f.licence];
  std::string out =
      "Elastokin FMU: the sources of its shared library\n"
      "=================================================\n\n"
      "Everything a C++20 compiler needs to build binaries/<platform>/" + std::string(kModelIdentifier) + ".so\n"
      "(.dll on Windows) for a target that does not run the shipped Linux x86-64 binaries, such as a\n"
      "real-time system that builds FMUs from their sources. No library other than these files and the\n"
      "compiler's own C and C++ runtime is needed: the engine's fixed-step part (LSRT2 and ROS34PW2 on\n"
      "the topology solver), the FMI 3.0 and 2.0 entry points, and the header-only libraries Eigen,\n"
      "Spectra and nlohmann/json.\n"
      "The model itself is not compiled in: the library reads resources/project.json at instantiation.\n\n"
      "The translation units are listed in " +
      std::string(fmiVersion == 3 ? "buildDescription.xml (FMI 3.0)" : "modelDescription.xml, <SourceFiles> (FMI 2.0)") +
      "; every one is compiled with\nthis folder as the include directory and linked into one shared library, "
      "for example:\n\n"
      "  cd sources\n"
      "  g++ -std=c++20 -O2 -ffp-contract=off -fPIC -fvisibility=hidden -shared -I. $(units) -o ../binaries/x86_64-linux/" +
      std::string(kModelIdentifier) + ".so\n"
      "  clang++ -std=c++20 -O2 -ffp-contract=off -fPIC -fvisibility=hidden -shared -I. $(units) -o ../binaries/x86_64-linux/" +
      std::string(kModelIdentifier) + ".so\n\n"
      "-fvisibility=hidden: only the FMI functions are exported, as from the shipped binaries.\n"
      "-ffp-contract=off: no a*b+c fused into one rounding where the compiler's inlining happens to\n"
      "allow it, so that every compiler gives the same results.\n\n"
      "Tested with GCC 12 and Clang 14 at -O2 on Linux x86-64: with -march=x86-64-v3 both give the\n"
      "same results bit for bit, and the shipped x86-64-v3 binary's to round-off; without -march\n"
      "(SSE2) Eigen sums in another order, again a round-off difference (docs/fmi.md, \"Source FMUs\").\n\n"
      "Licences (texts in documentation/licenses/):\n";
  for (const auto& [licence, n] : perLicence) out += "  " + licence + ": " + std::to_string(n) + (n == 1 ? " file\n" : " files\n");
  out += "\nFile by file:\n";
  for (const FmuSources::File& f : sources.files)
    if (f.kind != "licence") out += "  " + f.licence + "  " + f.path + "\n";
  return out;
}

}  // namespace

FmuExport makeFmu(const Project& input, const FmuExportOptions& o, const FmuBinaries& binaries, const FmuSources& sources) {
  if (o.fmiVersion != 2 && o.fmiVersion != 3) throw std::invalid_argument("the FMI version must be 2 or 3");
  Project project = input;
  check(project).throwIfErrors();
  FmuExport out;
  FmuConfig& c = out.config;
  c.fmiVersion = o.fmiVersion;
  c.token = randomToken();
  c.modelName = o.modelName.empty() ? (project.name.empty() ? std::string("elastokin") : project.name) : o.modelName;
  c.loadCase = o.loadCase;
  c.integrator = o.integrator;
  c.step = o.step > 0.0 ? o.step : project.simulation.step;
  c.linearizeEvery = o.linearizeEvery > 0 ? o.linearizeEvery : project.simulation.linearizeEvery;
  c.parameters = o.parameters;
  std::string aliases;
  for (const CellAlias& a : aliasedCells(project, c.parameters)) aliases += (aliases.empty() ? "" : "\n") + a.message;
  if (!aliases.empty()) throw std::invalid_argument("FMU parameters: " + aliases);
  if (c.integrator != "lsrt2" && c.integrator != "ros34pw2")
    throw std::invalid_argument("the FMU's integrator is lsrt2 or ros34pw2, not '" + printableExcerpt(c.integrator) + "'");
  const auto model = SuspensionModel::build(project);
  if (!c.loadCase.empty()) {
    const LoadCaseRow* lc = model->loadCase(c.loadCase);
    if (!lc) {
      std::string known;
      for (const auto& l : project.loadCases) known += (known.empty() ? "'" : ", '") + l.name + "'";
      throw std::invalid_argument("unknown load case '" + printableExcerpt(c.loadCase) + "' (the project has: " + known + ")");
    }
    c.stopTime = lc->duration;
  }
  out.variables = describeVariables(project, *model, c);
  // The files the project reads go to resources/tables/, the project refers to them there.
  int k = 0;
  const fs::path base = fs::path(project.sourcePath).parent_path();
  std::map<std::string, std::string> copied;  // original resolved path -> path in resources
  for (auto& lc : project.loadCases)
    for (auto& d : lc.drives)
      if (d.signal.type == SignalType::Table && !d.signal.file.empty()) {
        const std::string from = (base / d.signal.file).lexically_normal().string();
        auto it = copied.find(from);
        if (it == copied.end()) {
          const std::string name = "tables/" + std::to_string(++k) + "-" + fs::path(from).filename().string();
          try {
            out.files["resources/" + name] = readTextFile(from, 256u << 20, "signal table");
          } catch (const ModelError& e) {
            throw IoError(e.what());
          }
          it = copied.emplace(from, name).first;
        }
        d.signal.file = it->second;
      }
  // Each wheel's tyre property file goes to resources/tyres/, the wheel refers to it there.
  k = 0;
  for (auto& w : project.wheels) {
    if (w.tyre.empty()) continue;
    const std::string from = (base / w.tyre).lexically_normal().string();
    auto it = copied.find(from);
    if (it == copied.end()) {
      const std::string name = "tyres/" + std::to_string(++k) + "-" + fs::path(from).filename().string();
      try {
        out.files["resources/" + name] = readTextFile(from, 16u << 20, "tyre property file of wheel " + std::to_string(w.id));
      } catch (const ModelError& e) {
        throw IoError(e.what());
      }
      it = copied.emplace(from, name).first;
    }
    w.tyre = it->second;
  }
  out.files["resources/" + std::string(kProjectFile)] = writeProjectText(project);
  out.files["resources/" + std::string(kConfigFile)] = writeConfig(c);
  const std::string description = "Elastokin suspension model '" + project.name + "' (" + std::to_string(model->nFreeBodies()) +
                                  " bodies, " + std::to_string(model->nDof()) + " DOF), " + c.integrator + " at " +
                                  shortestText(c.step) + " s" + (c.loadCase.empty() ? "" : ", load case " + c.loadCase);
  std::vector<std::string> units;
  if (o.sources) {
    if (sources.files.empty()) throw IoError("the source FMU's file list is empty: build Elastokin with -DELASTOKIN_FMU=ON");
    try {
      for (const FmuSources::File& f : sources.files) {
        const std::string where = f.kind == "licence" ? "documentation/licenses/" : "sources/";
        out.files[where + f.path] = readTextFile(f.from, 64u << 20, "FMU source file");
        if (f.kind == "unit") units.push_back(f.path);
      }
    } catch (const ModelError& e) {
      throw IoError(e.what());
    }
    out.files["sources/README.txt"] = sourcesReadme(sources, c.fmiVersion);
    if (c.fmiVersion == 3) out.files["sources/buildDescription.xml"] = buildDescription(sources);
  }
  out.files["modelDescription.xml"] = modelDescription(c, out.variables, description, c.fmiVersion == 2 ? units : std::vector<std::string>{});
  try {
    // The platform folder of FMI 3 ("x86_64-linux") and of FMI 2 ("linux64").
    const std::string platform = c.fmiVersion == 3 ? "x86_64-linux" : "linux64";
    out.files["binaries/" + platform + "/" + std::string(kModelIdentifier) + ".so"] =
        readTextFile(binaries.loader, 1u << 30, "FMU binary");
    for (const std::string& b : binaries.builds)
      out.files["binaries/" + platform + "/" + fs::path(b).filename().string()] = readTextFile(b, 1u << 30, "FMU binary");
  } catch (const ModelError& e) {
    throw IoError(e.what());
  }
  return out;
}

void writeFmuFolder(const FmuExport& fmu, const std::string& dir) {
  for (const auto& [name, bytes] : fmu.files) {
    const fs::path p = fs::path(dir) / name;
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    if (ec) throw IoError(p.parent_path().string() + ": cannot create the folder (" + ec.message() + ")");
    writeFile(p.string(), bytes, "FMU file");
  }
}

namespace {

/// minizip's file functions over a byte string: the archive is built in memory, so no temporary
/// file or folder exists that an interruption could leave behind.
struct MemoryZip {
  std::string bytes;
  std::size_t at = 0;
  bool failed = false;
};

voidpf ZCALLBACK memoryOpen(voidpf opaque, const void*, int) { return opaque; }
uLong ZCALLBACK memoryRead(voidpf, voidpf stream, void* buf, uLong size) {
  auto& m = *static_cast<MemoryZip*>(stream);
  const std::size_t n = std::min<std::size_t>(size, m.bytes.size() - std::min(m.at, m.bytes.size()));
  std::memcpy(buf, m.bytes.data() + m.at, n);
  m.at += n;
  return static_cast<uLong>(n);
}
uLong ZCALLBACK memoryWrite(voidpf, voidpf stream, const void* buf, uLong size) {
  auto& m = *static_cast<MemoryZip*>(stream);
  try {
    if (m.at + size > m.bytes.size()) m.bytes.resize(m.at + size);
  } catch (const std::bad_alloc&) {
    m.failed = true;
    return 0;
  }
  std::memcpy(m.bytes.data() + m.at, buf, size);
  m.at += size;
  return size;
}
ZPOS64_T ZCALLBACK memoryTell(voidpf, voidpf stream) { return static_cast<MemoryZip*>(stream)->at; }
long ZCALLBACK memorySeek(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto& m = *static_cast<MemoryZip*>(stream);
  const std::size_t base = origin == ZLIB_FILEFUNC_SEEK_SET ? 0 : origin == ZLIB_FILEFUNC_SEEK_CUR ? m.at : m.bytes.size();
  if (base + offset > m.bytes.size()) return -1;
  m.at = base + offset;
  return 0;
}
int ZCALLBACK memoryClose(voidpf, voidpf) { return 0; }
int ZCALLBACK memoryError(voidpf, voidpf stream) { return static_cast<MemoryZip*>(stream)->failed ? 1 : 0; }

}  // namespace

std::string zipArchive(const FmuExport& fmu) {
  MemoryZip memory;
  zlib_filefunc64_def io{memoryOpen, memoryRead, memoryWrite, memoryTell, memorySeek, memoryClose, memoryError, &memory};
  zipFile zf = zipOpen2_64("memory", APPEND_STATUS_CREATE, nullptr, &io);
  if (!zf) throw IoError("cannot start the zip archive");
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  bool ok = true;
  for (const auto& [name, bytes] : fmu.files) {
    zip_fileinfo info{};
    info.tmz_date = {static_cast<uInt>(tm.tm_sec), static_cast<uInt>(tm.tm_min), static_cast<uInt>(tm.tm_hour),
                     static_cast<uInt>(tm.tm_mday), static_cast<uInt>(tm.tm_mon), static_cast<uInt>(tm.tm_year + 1900)};
    info.external_fa = (name.rfind("binaries/", 0) == 0 ? 0100755u : 0100644u) << 16;
    ok = ok && zipOpenNewFileInZip64(zf, name.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, Z_DEFLATED,
                                     Z_DEFAULT_COMPRESSION, bytes.size() > 0xffffffffu) == ZIP_OK;
    ok = ok && zipWriteInFileInZip(zf, bytes.data(), static_cast<unsigned>(bytes.size())) == ZIP_OK;
    ok = ok && zipCloseFileInZip(zf) == ZIP_OK;
  }
  ok = zipClose(zf, nullptr) == ZIP_OK && ok && !memory.failed;
  if (!ok) throw IoError(memory.failed ? "out of memory building the zip archive" : "building the zip archive failed");
  return std::move(memory.bytes);
}

void writeFmu(const FmuExport& fmu, const std::string& path) {
  checkWritable(path, "FMU");
  std::string zipped;
  try {
    zipped = zipArchive(fmu);
  } catch (const IoError& e) {
    throw IoError(path + ": " + e.what());
  }
  writeFile(path, zipped, "FMU");
}

}  // namespace ek::fmu
