// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Helpers of the manoeuvre tests (Qt Test): the shipped vehicle on tyres, a metric by name, the
/// metrics and notes printed.

#include <QtTest>

#include <string>

#include "engine/analysis/manoeuvre.h"
#include "engine/core/text.h"
#include "engine/model/project_io.h"

namespace ek::test {

/// projects/full_vehicle_tyres.json, read once.
inline const Project& vehicleOnTyres() {
  static const Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/full_vehicle_tyres.json");
  return p;
}

/// The value of metric `name`; a test without it stops.
inline double metricValue(const ManoeuvreResult& r, const std::string& name) {
  const ManoeuvreMetric* m = r.metric(name);
  if (!m) qFatal("no metric %s", name.c_str());
  return m->value;
}

inline void printMetrics(const ManoeuvreResult& r) {
  for (const ManoeuvreMetric& m : r.metrics)
    qInfo("  %-55s %12s %s", m.name.c_str(), significant(m.value, 6).c_str(), m.unit.c_str());
  for (const std::string& n : r.notes) qInfo("  note: %s", n.c_str());
}

}  // namespace ek::test
