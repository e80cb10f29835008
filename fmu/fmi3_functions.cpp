// SPDX-License-Identifier: GPL-3.0-or-later
// The FMI 3.0 entry points of the Elastokin FMU (co-simulation): thin wrappers around
// fmu::Instance. Every exception becomes a status and a logged message; functions of interfaces
// the FMU does not provide (model exchange, scheduled execution, clocks, other types than Float64)
// exist, as the standard asks, and answer fmi3Error with a message.
#include <exception>
#include <new>
#include <string>

#include "fmu/fmi3_api.h"
#include "fmu/fmu_instance.h"

#ifndef ELASTOKIN_FMU_ISA_NAME
#define ELASTOKIN_FMU_ISA_NAME "this build's instruction set"
#endif

using ek::fmu::Instance;
using ek::fmu::Status;

namespace {

struct Fmi3Instance {
  std::string name;
  fmi3InstanceEnvironment environment = nullptr;
  fmi3LogMessageCallback logMessage = nullptr;
  std::unique_ptr<Instance> instance;
};

fmi3Status toFmi(Status s) { return static_cast<fmi3Status>(static_cast<int>(s)); }

Fmi3Instance* of(fmi3Instance i) { return static_cast<Fmi3Instance*>(i); }

void log(Fmi3Instance* w, Status s, const char* category, const std::string& message) {
  if (w && w->logMessage) w->logMessage(w->environment, toFmi(s), category, (w->name + ": " + message).c_str());
}

/// Runs f on the instance; an exception or a null instance is an error with a message.
template <class F>
fmi3Status call(fmi3Instance i, const char* function, F&& f) {
  Fmi3Instance* w = of(i);
  if (!w || !w->instance) return fmi3Error;
  try {
    return toFmi(f(*w->instance));
  } catch (const std::bad_alloc&) {
    log(w, Status::Fatal, "logStatusFatal", std::string(function) + ": out of memory");
    return fmi3Fatal;
  } catch (const std::exception& e) {
    log(w, Status::Error, "logStatusError", std::string(function) + ": " + e.what());
    return fmi3Error;
  }
}

fmi3Status unsupported(fmi3Instance i, const char* function) {
  return call(i, function, [&](Instance& in) { return in.unsupported(function); });
}

}  // namespace

extern "C" {

const char* fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t, const fmi3String[]) {
  return call(instance, "fmi3SetDebugLogging", [&](Instance& in) {
    in.debugLogging = loggingOn;
    return Status::OK;
  });
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean,
                                          fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage) {
  if (logMessage)
    logMessage(instanceEnvironment, fmi3Error, "logStatusError",
               (std::string(instanceName ? instanceName : "") +
                ": model exchange is not supported: the Elastokin FMU is a co-simulation FMU (docs/fmi.md)")
                   .c_str());
  return nullptr;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
                                         fmi3Boolean, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed, const fmi3ValueReference[], size_t,
                                         fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback) {
  auto* w = new (std::nothrow) Fmi3Instance;
  if (!w) return nullptr;
  w->name = instanceName ? instanceName : "";
  w->environment = instanceEnvironment;
  w->logMessage = logMessage;
  (void)earlyReturnAllowed;
  if (eventModeUsed) {
    log(w, Status::Error, "logStatusError", "event mode is not supported (hasEventMode is false)");
    delete w;
    return nullptr;
  }
  try {
    if (!resourcePath) throw std::runtime_error("no resource path given: the FMU's project is in its resources");
    w->instance = std::make_unique<Instance>(resourcePath, instantiationToken ? instantiationToken : "", 3,
                                             [w](Status s, const char* category, const std::string& message) {
                                               log(w, s, category, message);
                                             });
    w->instance->debugLogging = loggingOn;
    if (loggingOn) log(w, Status::OK, "logEvents", "Elastokin FMU, engine built for " ELASTOKIN_FMU_ISA_NAME);
  } catch (const std::exception& e) {
    log(w, Status::Error, "logStatusError", std::string("instantiation failed: ") + e.what());
    delete w;
    return nullptr;
  }
  return w;
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback,
                                               fmi3LockPreemptionCallback, fmi3UnlockPreemptionCallback) {
  if (logMessage)
    logMessage(instanceEnvironment, fmi3Error, "logStatusError",
               (std::string(instanceName ? instanceName : "") + ": scheduled execution is not supported").c_str());
  return nullptr;
}

void fmi3FreeInstance(fmi3Instance instance) { delete of(instance); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean, fmi3Float64, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
  return call(instance, "fmi3EnterInitializationMode",
              [&](Instance& in) { return in.enterInitialization(startTime, stopTimeDefined, stopTime); });
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  return call(instance, "fmi3ExitInitializationMode", [&](Instance& in) { return in.exitInitialization(); });
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) { return unsupported(instance, "fmi3EnterEventMode"); }

fmi3Status fmi3Terminate(fmi3Instance instance) {
  return call(instance, "fmi3Terminate", [&](Instance& in) { return in.terminate(); });
}

fmi3Status fmi3Reset(fmi3Instance instance) {
  return call(instance, "fmi3Reset", [&](Instance& in) { return in.reset(); });
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          fmi3Float64 values[], size_t nValues) {
  return call(instance, "fmi3GetFloat64", [&](Instance& in) {
    if (nValues != nValueReferences) return in.fail("fmi3GetFloat64: nValues must equal nValueReferences (scalars only)");
    return in.getReal(valueReferences, nValueReferences, values);
  });
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          const fmi3Float64 values[], size_t nValues) {
  return call(instance, "fmi3SetFloat64", [&](Instance& in) {
    if (nValues != nValueReferences) return in.fail("fmi3SetFloat64: nValues must equal nValueReferences (scalars only)");
    return in.setReal(valueReferences, nValueReferences, values);
  });
}

// Variables of other types: the FMU has none.
#define ELASTOKIN_NO_TYPE(NAME, TYPE)                                                                               \
  fmi3Status fmi3Get##NAME(fmi3Instance instance, const fmi3ValueReference[], size_t n, TYPE[], size_t) {           \
    return n == 0 ? fmi3OK : unsupported(instance, "fmi3Get" #NAME);                                                \
  }                                                                                                                 \
  fmi3Status fmi3Set##NAME(fmi3Instance instance, const fmi3ValueReference[], size_t n, const TYPE[], size_t) {     \
    return n == 0 ? fmi3OK : unsupported(instance, "fmi3Set" #NAME);                                                \
  }
ELASTOKIN_NO_TYPE(Float32, fmi3Float32)
ELASTOKIN_NO_TYPE(Int8, fmi3Int8)
ELASTOKIN_NO_TYPE(UInt8, fmi3UInt8)
ELASTOKIN_NO_TYPE(Int16, fmi3Int16)
ELASTOKIN_NO_TYPE(UInt16, fmi3UInt16)
ELASTOKIN_NO_TYPE(Int32, fmi3Int32)
ELASTOKIN_NO_TYPE(UInt32, fmi3UInt32)
ELASTOKIN_NO_TYPE(Int64, fmi3Int64)
ELASTOKIN_NO_TYPE(UInt64, fmi3UInt64)
ELASTOKIN_NO_TYPE(Boolean, fmi3Boolean)
ELASTOKIN_NO_TYPE(String, fmi3String)
#undef ELASTOKIN_NO_TYPE

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference[], size_t n, size_t[], fmi3Binary[], size_t) {
  return n == 0 ? fmi3OK : unsupported(instance, "fmi3GetBinary");
}
fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference[], size_t n, fmi3Clock[]) {
  return n == 0 ? fmi3OK : unsupported(instance, "fmi3GetClock");
}
fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference[], size_t n, const size_t[], const fmi3Binary[],
                         size_t) {
  return n == 0 ? fmi3OK : unsupported(instance, "fmi3SetBinary");
}
fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference[], size_t n, const fmi3Clock[]) {
  return n == 0 ? fmi3OK : unsupported(instance, "fmi3SetClock");
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference, size_t*) {
  return unsupported(instance, "fmi3GetNumberOfVariableDependencies");
}
fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference, size_t[], fmi3ValueReference[], size_t[],
                                       fmi3DependencyKind[], size_t) {
  return unsupported(instance, "fmi3GetVariableDependencies");
}

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* FMUState) {
  return call(instance, "fmi3GetFMUState", [&](Instance& in) {
    if (!FMUState) return in.fail("fmi3GetFMUState: no place for the state");
    return in.saveInto(FMUState);
  });
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState) {
  return call(instance, "fmi3SetFMUState", [&](Instance& in) {
    if (!FMUState) return in.fail("fmi3SetFMUState: no state given");
    return in.restore(*static_cast<Instance::Saved*>(FMUState));
  });
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* FMUState) {
  return call(instance, "fmi3FreeFMUState", [&](Instance&) {
    if (FMUState) Instance::release(FMUState);
    return Status::OK;
  });
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t* size) {
  return call(instance, "fmi3SerializedFMUStateSize", [&](Instance& in) {
    if (!FMUState || !size) return in.fail("fmi3SerializedFMUStateSize: no state or size given");
    *size = in.serializedSize(*static_cast<Instance::Saved*>(FMUState));
    return Status::OK;
  });
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[], size_t size) {
  return call(instance, "fmi3SerializeFMUState", [&](Instance& in) {
    if (!FMUState) return in.fail("fmi3SerializeFMUState: no state given");
    return in.serialize(*static_cast<Instance::Saved*>(FMUState), serializedState, size);
  });
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState* FMUState) {
  return call(instance, "fmi3DeserializeFMUState", [&](Instance& in) {
    Instance::Saved* s = nullptr;
    const Status st = in.deserialize(serializedState, size, &s);
    if (FMUState) *FMUState = s;
    else Instance::free(s);
    return st;
  });
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3ValueReference[],
                                        size_t, const fmi3Float64[], size_t, fmi3Float64[], size_t) {
  return unsupported(instance, "fmi3GetDirectionalDerivative");
}
fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3ValueReference[],
                                    size_t, const fmi3Float64[], size_t, fmi3Float64[], size_t) {
  return unsupported(instance, "fmi3GetAdjointDerivative");
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) { return unsupported(instance, "fmi3EnterConfigurationMode"); }
fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) { return unsupported(instance, "fmi3ExitConfigurationMode"); }

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference[], size_t, fmi3Float64[],
                                  fmi3IntervalQualifier[]) {
  return unsupported(instance, "fmi3GetIntervalDecimal");
}
fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference[], size_t, fmi3UInt64[], fmi3UInt64[],
                                   fmi3IntervalQualifier[]) {
  return unsupported(instance, "fmi3GetIntervalFraction");
}
fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference[], size_t, fmi3Float64[]) {
  return unsupported(instance, "fmi3GetShiftDecimal");
}
fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference[], size_t, fmi3UInt64[], fmi3UInt64[]) {
  return unsupported(instance, "fmi3GetShiftFraction");
}
fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3Float64[]) {
  return unsupported(instance, "fmi3SetIntervalDecimal");
}
fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3UInt64[],
                                   const fmi3UInt64[]) {
  return unsupported(instance, "fmi3SetIntervalFraction");
}
fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3Float64[]) {
  return unsupported(instance, "fmi3SetShiftDecimal");
}
fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3UInt64[],
                                const fmi3UInt64[]) {
  return unsupported(instance, "fmi3SetShiftFraction");
}
fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) { return unsupported(instance, "fmi3EvaluateDiscreteStates"); }
fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean*, fmi3Boolean*, fmi3Boolean*, fmi3Boolean*,
                                    fmi3Boolean*, fmi3Float64*) {
  return unsupported(instance, "fmi3UpdateDiscreteStates");
}

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) { return unsupported(instance, "fmi3EnterContinuousTimeMode"); }
fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean, fmi3Boolean*, fmi3Boolean*) {
  return unsupported(instance, "fmi3CompletedIntegratorStep");
}
fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64) { return unsupported(instance, "fmi3SetTime"); }
fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64[], size_t) {
  return unsupported(instance, "fmi3SetContinuousStates");
}
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64[], size_t) {
  return unsupported(instance, "fmi3GetContinuousStateDerivatives");
}
fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64[], size_t) {
  return unsupported(instance, "fmi3GetEventIndicators");
}
fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64[], size_t) {
  return unsupported(instance, "fmi3GetContinuousStates");
}
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64[], size_t) {
  return unsupported(instance, "fmi3GetNominalsOfContinuousStates");
}
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t*) {
  return unsupported(instance, "fmi3GetNumberOfEventIndicators");
}
fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t*) {
  return unsupported(instance, "fmi3GetNumberOfContinuousStates");
}

fmi3Status fmi3EnterStepMode(fmi3Instance instance) { return unsupported(instance, "fmi3EnterStepMode"); }

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3Int32[],
                                    fmi3Float64[], size_t) {
  return unsupported(instance, "fmi3GetOutputDerivatives");
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean, fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                      fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
  if (eventHandlingNeeded) *eventHandlingNeeded = fmi3False;
  if (earlyReturn) *earlyReturn = fmi3False;
  if (terminateSimulation) *terminateSimulation = fmi3False;
  const fmi3Status s = call(instance, "fmi3DoStep", [&](Instance& in) {
    bool terminate = false;
    const Status st = in.doStep(currentCommunicationPoint, communicationStepSize, &terminate);
    if (terminateSimulation) *terminateSimulation = terminate;
    return st;
  });
  if (lastSuccessfulTime && of(instance) && of(instance)->instance) *lastSuccessfulTime = of(instance)->instance->time();
  return s;
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference, fmi3Float64) {
  return unsupported(instance, "fmi3ActivateModelPartition");
}

}  // extern "C"
