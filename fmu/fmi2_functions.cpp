// SPDX-License-Identifier: GPL-3.0-or-later
// The FMI 2.0 entry points of the Elastokin FMU (co-simulation): thin wrappers around
// fmu::Instance, as the FMI 3 ones (fmi3_functions.cpp). Model-exchange functions and types other
// than Real answer fmi2Error with a logged message.
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "fmu/fmi2_api.h"
#include "fmu/fmu_instance.h"

#ifndef ELASTOKIN_FMU_ISA_NAME
#define ELASTOKIN_FMU_ISA_NAME "this build's instruction set"
#endif

using ek::fmu::Instance;
using ek::fmu::Status;

namespace {

struct Fmi2Instance {
  std::string name;
  fmi2CallbackLogger logger = nullptr;
  fmi2ComponentEnvironment environment = nullptr;
  std::unique_ptr<Instance> instance;
};

fmi2Status toFmi(Status s) { return static_cast<fmi2Status>(static_cast<int>(s)); }

Fmi2Instance* of(fmi2Component c) { return static_cast<Fmi2Instance*>(c); }

void log(Fmi2Instance* w, Status s, const char* category, const std::string& message) {
  // The logger takes a printf format: the message goes in as an argument, never as the format.
  if (w && w->logger) w->logger(w->environment, w->name.c_str(), toFmi(s), category, "%s", message.c_str());
}

template <class F>
fmi2Status call(fmi2Component c, const char* function, F&& f) {
  Fmi2Instance* w = of(c);
  if (!w || !w->instance) return fmi2Error;
  try {
    return toFmi(f(*w->instance));
  } catch (const std::bad_alloc&) {
    log(w, Status::Fatal, "logStatusFatal", std::string(function) + ": out of memory");
    return fmi2Fatal;
  } catch (const std::exception& e) {
    log(w, Status::Error, "logStatusError", std::string(function) + ": " + e.what());
    return fmi2Error;
  }
}

fmi2Status unsupported(fmi2Component c, const char* function) {
  return call(c, function, [&](Instance& in) { return in.unsupported(function); });
}

/// The folder of a resource location URI ("file:///a/b/resources", "file:/a/b/resources").
std::string resourceFolder(const char* uri) {
  std::string u = uri ? uri : "";
  if (u.rfind("file://", 0) == 0) u = u.substr(7);
  else if (u.rfind("file:", 0) == 0) u = u.substr(5);
  if (u.rfind("localhost/", 0) == 0) u = u.substr(9);
  std::string out;  // percent-decoding
  for (std::size_t k = 0; k < u.size(); ++k) {
    if (u[k] == '%' && k + 2 < u.size() && std::isxdigit(static_cast<unsigned char>(u[k + 1])) &&
        std::isxdigit(static_cast<unsigned char>(u[k + 2]))) {
      out += static_cast<char>(std::stoi(u.substr(k + 1, 2), nullptr, 16));
      k += 2;
    } else {
      out += u[k];
    }
  }
  if (!out.empty() && out.back() != '/') out += '/';
  return out;
}

}  // namespace

extern "C" {

const char* fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char* fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t, const fmi2String[]) {
  return call(c, "fmi2SetDebugLogging", [&](Instance& in) {
    in.debugLogging = loggingOn != fmi2False;
    return Status::OK;
  });
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID, fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions* functions, fmi2Boolean, fmi2Boolean loggingOn) {
  auto* w = new (std::nothrow) Fmi2Instance;
  if (!w) return nullptr;
  w->name = instanceName ? instanceName : "";
  if (functions) {
    w->logger = functions->logger;
    w->environment = functions->componentEnvironment;
  }
  if (fmuType != fmi2CoSimulation) {
    log(w, Status::Error, "logStatusError", "model exchange is not supported: the Elastokin FMU is a co-simulation FMU");
    delete w;
    return nullptr;
  }
  try {
    w->instance = std::make_unique<Instance>(resourceFolder(fmuResourceLocation), fmuGUID ? fmuGUID : "", 2,
                                             [w](Status s, const char* category, const std::string& message) {
                                               log(w, s, category, message);
                                             });
    w->instance->debugLogging = loggingOn != fmi2False;
    if (loggingOn) log(w, Status::OK, "logEvents", "Elastokin FMU, engine built for " ELASTOKIN_FMU_ISA_NAME);
  } catch (const std::exception& e) {
    log(w, Status::Error, "logStatusError", std::string("instantiation failed: ") + e.what());
    delete w;
    return nullptr;
  }
  return w;
}

void fmi2FreeInstance(fmi2Component c) { delete of(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean, fmi2Real, fmi2Real startTime, fmi2Boolean stopTimeDefined,
                               fmi2Real stopTime) {
  return call(c, "fmi2SetupExperiment", [&](Instance& in) {
    return in.enterInitialization(startTime, stopTimeDefined != fmi2False, stopTime);
  });
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
  // The experiment (start and stop time) came with fmi2SetupExperiment, which entered it.
  return call(c, "fmi2EnterInitializationMode", [&](Instance&) { return Status::OK; });
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
  return call(c, "fmi2ExitInitializationMode", [&](Instance& in) { return in.exitInitialization(); });
}

fmi2Status fmi2Terminate(fmi2Component c) {
  return call(c, "fmi2Terminate", [&](Instance& in) { return in.terminate(); });
}

fmi2Status fmi2Reset(fmi2Component c) {
  return call(c, "fmi2Reset", [&](Instance& in) { return in.reset(); });
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
  return call(c, "fmi2GetReal", [&](Instance& in) {
    static_assert(sizeof(fmi2ValueReference) == sizeof(std::uint32_t));
    return in.getReal(reinterpret_cast<const std::uint32_t*>(vr), nvr, value);
  });
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
  return call(c, "fmi2SetReal",
              [&](Instance& in) { return in.setReal(reinterpret_cast<const std::uint32_t*>(vr), nvr, value); });
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference[], size_t nvr, fmi2Integer[]) {
  return nvr == 0 ? fmi2OK : unsupported(c, "fmi2GetInteger");
}
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference[], size_t nvr, fmi2Boolean[]) {
  return nvr == 0 ? fmi2OK : unsupported(c, "fmi2GetBoolean");
}
fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference[], size_t nvr, fmi2String[]) {
  return nvr == 0 ? fmi2OK : unsupported(c, "fmi2GetString");
}
fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference[], size_t nvr, const fmi2Integer[]) {
  return nvr == 0 ? fmi2OK : unsupported(c, "fmi2SetInteger");
}
fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference[], size_t nvr, const fmi2Boolean[]) {
  return nvr == 0 ? fmi2OK : unsupported(c, "fmi2SetBoolean");
}
fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference[], size_t nvr, const fmi2String[]) {
  return nvr == 0 ? fmi2OK : unsupported(c, "fmi2SetString");
}

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* FMUstate) {
  return call(c, "fmi2GetFMUstate", [&](Instance& in) {
    if (!FMUstate) return in.fail("fmi2GetFMUstate: no place for the state");
    return in.saveInto(FMUstate);
  });
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
  return call(c, "fmi2SetFMUstate", [&](Instance& in) {
    if (!FMUstate) return in.fail("fmi2SetFMUstate: no state given");
    return in.restore(*static_cast<Instance::Saved*>(FMUstate));
  });
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* FMUstate) {
  return call(c, "fmi2FreeFMUstate", [&](Instance&) {
    if (FMUstate) Instance::release(FMUstate);
    return Status::OK;
  });
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t* size) {
  return call(c, "fmi2SerializedFMUstateSize", [&](Instance& in) {
    if (!FMUstate || !size) return in.fail("fmi2SerializedFMUstateSize: no state or size given");
    *size = in.serializedSize(*static_cast<Instance::Saved*>(FMUstate));
    return Status::OK;
  });
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size) {
  return call(c, "fmi2SerializeFMUstate", [&](Instance& in) {
    if (!FMUstate) return in.fail("fmi2SerializeFMUstate: no state given");
    return in.serialize(*static_cast<Instance::Saved*>(FMUstate), reinterpret_cast<std::uint8_t*>(serializedState), size);
  });
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size, fmi2FMUstate* FMUstate) {
  return call(c, "fmi2DeSerializeFMUstate", [&](Instance& in) {
    Instance::Saved* s = nullptr;
    const Status st = in.deserialize(reinterpret_cast<const std::uint8_t*>(serializedState), size, &s);
    if (FMUstate) *FMUstate = s;
    else Instance::free(s);
    return st;
  });
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference[], size_t, const fmi2ValueReference[],
                                        size_t, const fmi2Real[], fmi2Real[]) {
  return unsupported(c, "fmi2GetDirectionalDerivative");
}

fmi2Status fmi2EnterEventMode(fmi2Component c) { return unsupported(c, "fmi2EnterEventMode"); }
fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo*) { return unsupported(c, "fmi2NewDiscreteStates"); }
fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) { return unsupported(c, "fmi2EnterContinuousTimeMode"); }
fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean, fmi2Boolean*, fmi2Boolean*) {
  return unsupported(c, "fmi2CompletedIntegratorStep");
}
fmi2Status fmi2SetTime(fmi2Component c, fmi2Real) { return unsupported(c, "fmi2SetTime"); }
fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real[], size_t) {
  return unsupported(c, "fmi2SetContinuousStates");
}
fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real[], size_t) { return unsupported(c, "fmi2GetDerivatives"); }
fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real[], size_t) { return unsupported(c, "fmi2GetEventIndicators"); }
fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real[], size_t) { return unsupported(c, "fmi2GetContinuousStates"); }
fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real[], size_t) {
  return unsupported(c, "fmi2GetNominalsOfContinuousStates");
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference[], size_t, const fmi2Integer[],
                                       const fmi2Real[]) {
  return unsupported(c, "fmi2SetRealInputDerivatives");
}
fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference[], size_t, const fmi2Integer[],
                                        fmi2Real[]) {
  return unsupported(c, "fmi2GetRealOutputDerivatives");
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize, fmi2Boolean) {
  return call(c, "fmi2DoStep", [&](Instance& in) {
    bool terminate = false;
    return in.doStep(currentCommunicationPoint, communicationStepSize, &terminate);
  });
}

fmi2Status fmi2CancelStep(fmi2Component c) { return unsupported(c, "fmi2CancelStep"); }

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind, fmi2Status*) { return unsupported(c, "fmi2GetStatus"); }
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real* value) {
  return call(c, "fmi2GetRealStatus", [&](Instance& in) {
    if (s != fmi2LastSuccessfulTime || !value) return in.fail("fmi2GetRealStatus: only fmi2LastSuccessfulTime is known");
    *value = in.time();
    return Status::OK;
  });
}
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind, fmi2Integer*) {
  return unsupported(c, "fmi2GetIntegerStatus");
}
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean* value) {
  return call(c, "fmi2GetBooleanStatus", [&](Instance& in) {
    if (s != fmi2Terminated || !value) return in.fail("fmi2GetBooleanStatus: only fmi2Terminated is known");
    *value = fmi2False;
    return Status::OK;
  });
}
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind, fmi2String*) {
  return unsupported(c, "fmi2GetStringStatus");
}

}  // extern "C"
