// SPDX-License-Identifier: GPL-3.0-or-later
// The FMU's shared library as the importer loads it (binaries/<platform>/elastokin.so). It holds
// no model: loaded, it picks beside itself the engine built for the widest instruction set this
// CPU runs — elastokin-x86-64-v4.so (AVX-512) or elastokin-x86-64-v3.so (AVX2, FMA) — loads it
// and forwards every FMI function to it. An FMU built for one instruction set either leaves
// speed unused on newer CPUs (the engine is ~20 % faster with AVX-512, docs/fmi.md) or does not
// run on older ones; this way it does both.
//
// A forward is a jump through a pointer (what a PLT entry does): the arguments stay in their
// registers untouched, whatever the function's signature, and the call costs one indirect jump.
// Until an implementation is loaded the pointers lead to fallbacks that answer fmi3Error /
// fmi2Error, and the instantiation functions log why (no suitable CPU, a missing binary), so an
// importer gets a message instead of a crash.
//
// ELASTOKIN_FMU_ISA=x86-64-v3 (or -v4) in the environment picks the build by name (tests run
// both on one machine); naming one this CPU cannot run is the same error as having none.
//
// Built for the x86-64 baseline and with the C runtime only, so that it loads anywhere and can
// say what is missing.
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmu/fmi2_api.h"
#include "fmu/fmi3_api.h"
#include "fmu/fmi_functions.inc"

#define EK_HIDDEN __attribute__((visibility("hidden")))

extern "C" {

/// Why no implementation is loaded (empty once one is).
EK_HIDDEN char ek_fmi_dispatch_error[1024] = "the Elastokin FMU's binary was not loaded";

/// The fallback of every function that has an instance or a state to work on: without an
/// implementation no instance exists, so any call is an error (fmi3Error == fmi2Error == 3).
/// A function returning void ignores the value.
EK_HIDDEN int ek_fmi_unavailable(void) { return 3; }

}  // extern "C"

namespace {

const char* version3() { return fmi3Version; }
const char* version2() { return "2.0"; }
const char* typesPlatform2() { return "default"; }

fmi3Instance unavailable3(fmi3String instanceName, fmi3InstanceEnvironment environment, fmi3LogMessageCallback logMessage) {
  if (logMessage) {
    char message[1200];
    snprintf(message, sizeof message, "%s: %s", instanceName ? instanceName : "", ek_fmi_dispatch_error);
    logMessage(environment, fmi3Error, "logStatusError", message);
  }
  return nullptr;
}

fmi3Instance instantiateModelExchange3(fmi3String instanceName, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean,
                                       fmi3InstanceEnvironment environment, fmi3LogMessageCallback logMessage) {
  return unavailable3(instanceName, environment, logMessage);
}

fmi3Instance instantiateCoSimulation3(fmi3String instanceName, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean, fmi3Boolean,
                                      fmi3Boolean, const fmi3ValueReference[], size_t, fmi3InstanceEnvironment environment,
                                      fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback) {
  return unavailable3(instanceName, environment, logMessage);
}

fmi3Instance instantiateScheduledExecution3(fmi3String instanceName, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean,
                                            fmi3InstanceEnvironment environment, fmi3LogMessageCallback logMessage,
                                            fmi3ClockUpdateCallback, fmi3LockPreemptionCallback, fmi3UnlockPreemptionCallback) {
  return unavailable3(instanceName, environment, logMessage);
}

fmi2Component instantiate2(fmi2String instanceName, fmi2Type, fmi2String, fmi2String, const fmi2CallbackFunctions* functions,
                           fmi2Boolean, fmi2Boolean) {
  if (functions && functions->logger)
    functions->logger(functions->componentEnvironment, instanceName ? instanceName : "", fmi2Error, "logStatusError", "%s",
                      ek_fmi_dispatch_error);
  return nullptr;
}

}  // namespace

// One pointer per function (ek_target_<name>), starting at its fallback, and the exported
// function itself: a jump through the pointer.
#define EK_FALLBACK(name) reinterpret_cast<void*>(&ek_fmi_unavailable)
#define EK_TARGET(name) EK_HIDDEN __attribute__((used)) void* ek_target_##name = EK_FALLBACK(name);
extern "C" {
ELASTOKIN_FMI_FUNCTIONS(EK_TARGET)
}
#undef EK_TARGET

#define EK_TRAMPOLINE(name)                                                                                             \
  asm(".text\n\t.globl " #name "\n\t.type " #name ", @function\n\t.p2align 4\n" #name ":\n\tjmp *ek_target_" #name \
      "(%rip)\n\t.size " #name ", .-" #name "\n");
ELASTOKIN_FMI_FUNCTIONS(EK_TRAMPOLINE)
#undef EK_TRAMPOLINE

namespace {

struct Special {
  void** target;
  void* fallback;
};

/// The functions whose fallback is not the plain error: the versions, which an importer asks
/// before anything else, and the instantiations, which say why nothing can be instantiated.
const Special kSpecial[] = {
    {&ek_target_fmi3GetVersion, reinterpret_cast<void*>(&version3)},
    {&ek_target_fmi2GetVersion, reinterpret_cast<void*>(&version2)},
    {&ek_target_fmi2GetTypesPlatform, reinterpret_cast<void*>(&typesPlatform2)},
    {&ek_target_fmi3InstantiateModelExchange, reinterpret_cast<void*>(&instantiateModelExchange3)},
    {&ek_target_fmi3InstantiateCoSimulation, reinterpret_cast<void*>(&instantiateCoSimulation3)},
    {&ek_target_fmi3InstantiateScheduledExecution, reinterpret_cast<void*>(&instantiateScheduledExecution3)},
    {&ek_target_fmi2Instantiate, reinterpret_cast<void*>(&instantiate2)},
};

struct Entry {
  const char* name;
  void** target;
};

#define EK_ENTRY(name) {#name, &ek_target_##name},
const Entry kEntries[] = {ELASTOKIN_FMI_FUNCTIONS(EK_ENTRY)};
#undef EK_ENTRY

/// Whether this CPU runs code built for `isa` (x86-64-v3: AVX2, FMA, BMI1/2, ...; v4: AVX-512
/// F/BW/CD/DQ/VL, as the x86-64 psABI's micro-architecture levels define them).
bool cpuRuns(const char* isa) {
  __builtin_cpu_init();
  if (strcmp(isa, "x86-64-v4") == 0) return __builtin_cpu_supports("x86-64-v4");
  if (strcmp(isa, "x86-64-v3") == 0) return __builtin_cpu_supports("x86-64-v3");
  return false;
}

/// The implementations in the order of preference.
const char* const kIsas[] = {"x86-64-v4", "x86-64-v3"};

/// The reason, cut to the buffer if need be.
__attribute__((format(printf, 1, 2))) void setError(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(ek_fmi_dispatch_error, sizeof ek_fmi_dispatch_error, format, args);
  va_end(args);
}

__attribute__((constructor)) void loadImplementation() {
  for (const Special& s : kSpecial) *s.target = s.fallback;
  Dl_info self{};
  if (!dladdr(reinterpret_cast<void*>(&loadImplementation), &self) || !self.dli_fname) {
    setError("the Elastokin FMU cannot find its own binary's folder");
    return;
  }
  char folder[4096];
  snprintf(folder, sizeof folder, "%s", self.dli_fname);
  char* slash = strrchr(folder, '/');
  if (slash) slash[1] = '\0';
  else snprintf(folder, sizeof folder, "./");

  const char* isa = nullptr;
  char path[4352];
  const char* forced = getenv("ELASTOKIN_FMU_ISA");
  if (forced && *forced) {
    if (!cpuRuns(forced)) {
      setError("ELASTOKIN_FMU_ISA=%s: not an instruction set this CPU runs (the FMU has builds for x86-64-v3 "
               "and x86-64-v4)",
               forced);
      return;
    }
    isa = forced;
  } else {
    for (const char* candidate : kIsas) {
      if (!cpuRuns(candidate)) continue;
      snprintf(path, sizeof path, "%selastokin-%s.so", folder, candidate);
      FILE* f = fopen(path, "rb");
      if (!f) continue;
      fclose(f);
      isa = candidate;
      break;
    }
    if (!isa) {
      setError("this CPU runs neither of the Elastokin FMU's builds (x86-64-v3: AVX2 and FMA, x86-64-v4: "
               "AVX-512), or they are missing from %s",
               folder);
      return;
    }
  }
  snprintf(path, sizeof path, "%selastokin-%s.so", folder, isa);
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    setError("the Elastokin FMU's build for %s cannot be loaded: %s", isa, dlerror());
    return;
  }
  void* found[sizeof kEntries / sizeof kEntries[0]];
  for (size_t k = 0; k < sizeof kEntries / sizeof kEntries[0]; ++k) {
    found[k] = dlsym(handle, kEntries[k].name);
    if (!found[k]) {
      setError("%s does not export %s: the FMU's binaries are from different builds", path, kEntries[k].name);
      dlclose(handle);
      return;
    }
  }
  for (size_t k = 0; k < sizeof kEntries / sizeof kEntries[0]; ++k) *kEntries[k].target = found[k];
  ek_fmi_dispatch_error[0] = '\0';
}

}  // namespace
