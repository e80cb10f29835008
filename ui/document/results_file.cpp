// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/results_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/model/project_io.h"
#include "ui/document/file_output.h"

namespace ek::ui {
namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kFormat = "elastokin-results";
constexpr int kVersion = 1;

/// A field that is missing or of the wrong type: its path in the file.
struct BadField {
  std::string where, what;
};

const Json& field(const Json& j, const char* key, const std::string& where, Json::value_t type) {
  if (!j.is_object() || !j.contains(key)) throw BadField{where + "." + key, "missing"};
  const Json& v = j[key];
  const bool ok = type == Json::value_t::number_float ? v.is_number() : v.type() == type ||
                  (type == Json::value_t::number_integer && v.is_number_integer());
  if (!ok) throw BadField{where + "." + key, std::string("expected ") + Json(type).type_name() + ", found " + v.type_name()};
  return v;
}

std::vector<double> numbers(const Json& a, const std::string& where) {
  std::vector<double> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number()) throw BadField{where + "[" + std::to_string(i) + "]", "expected a number"};
    out.push_back(a[i].get<double>());
  }
  return out;
}

}  // namespace

QString resultsPathFor(const QString& projectPath) {
  const QFileInfo f(projectPath);
  return f.dir().filePath(f.completeBaseName() + ".results.json");
}

QString writeRuns(const QString& path, const std::vector<RunRecord>& runs) {
  Json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  Json list = Json::array();
  for (const RunRecord& r : runs) {
    Json run;
    run["number"] = r.number;
    run["load case"] = r.loadCase.toStdString();
    run["started"] = r.when.toString(Qt::ISODateWithMs).toStdString();
    run["changes"] = r.changes.toStdString();
    run["shown"] = r.shown;
    run["stopped"] = r.stopped.toStdString();
    run["project"] = Json::parse(writeProjectText(r.project));
    Json channels = Json::array();
    for (int c = 0; c < r.channels.size(); ++c)
      channels.push_back(Json{{"name", r.channels[c].toStdString()}, {"unit", r.units[c].toStdString()}});
    run["channels"] = channels;
    run["time [s]"] = r.t;  // numbers as the shortest text that reads back exactly
    run["values"] = r.v;
    list.push_back(run);
  }
  j["runs"] = list;
  return writeFileBytes(path, QByteArray::fromStdString(j.dump(1) + "\n"), QObject::tr("runs file"));
}

QString readRuns(const QString& path, std::vector<RunRecord>& runs) {
  runs.clear();
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return QObject::tr("%1: cannot read (%2)").arg(path, f.errorString());
  const QByteArray bytes = f.readAll();
  Json j;
  try {
    j = Json::parse(bytes.constData(), bytes.constData() + bytes.size());
  } catch (const Json::parse_error& e) {
    return QObject::tr("%1: malformed JSON (%2)").arg(path, QString::fromStdString(e.what()));
  }
  std::vector<RunRecord> out;
  try {
    if (!j.is_object() || j.value("format", Json()) != kFormat)
      throw BadField{"format", std::string("expected \"") + kFormat + "\""};
    if (field(j, "version", "", Json::value_t::number_integer).get<long long>() != kVersion)
      throw BadField{"version", "expected " + std::to_string(kVersion)};
    const Json& list = field(j, "runs", "", Json::value_t::array);
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string at = "runs[" + std::to_string(k) + "]";
      const Json& run = list[k];
      RunRecord r;
      r.number = static_cast<int>(field(run, "number", at, Json::value_t::number_integer).get<long long>());
      r.loadCase = QString::fromStdString(field(run, "load case", at, Json::value_t::string).get<std::string>());
      r.when = QDateTime::fromString(QString::fromStdString(field(run, "started", at, Json::value_t::string).get<std::string>()),
                                     Qt::ISODateWithMs);
      r.changes = QString::fromStdString(field(run, "changes", at, Json::value_t::string).get<std::string>());
      r.shown = field(run, "shown", at, Json::value_t::boolean).get<bool>();
      r.stopped = QString::fromStdString(field(run, "stopped", at, Json::value_t::string).get<std::string>());
      r.finished = true;
      try {
        r.project = parseProject(field(run, "project", at, Json::value_t::object).dump(), path.toStdString() + " " + at);
      } catch (const std::exception& e) {
        throw BadField{at + ".project", e.what()};
      }
      const Json& channels = field(run, "channels", at, Json::value_t::array);
      for (std::size_t c = 0; c < channels.size(); ++c) {
        const std::string ca = at + ".channels[" + std::to_string(c) + "]";
        r.channels << QString::fromStdString(field(channels[c], "name", ca, Json::value_t::string).get<std::string>());
        r.units << QString::fromStdString(field(channels[c], "unit", ca, Json::value_t::string).get<std::string>());
      }
      r.t = numbers(field(run, "time [s]", at, Json::value_t::array), at + ".time [s]");
      const Json& values = field(run, "values", at, Json::value_t::array);
      if (values.size() != channels.size())
        throw BadField{at + ".values", std::to_string(values.size()) + " columns for " + std::to_string(channels.size()) +
                                           " channels"};
      for (std::size_t c = 0; c < values.size(); ++c) {
        const std::string va = at + ".values[" + std::to_string(c) + "]";
        if (!values[c].is_array()) throw BadField{va, "expected an array"};
        r.v.push_back(numbers(values[c], va));
        if (r.v.back().size() != r.t.size())
          throw BadField{va, std::to_string(r.v.back().size()) + " samples for " + std::to_string(r.t.size()) + " times"};
      }
      for (std::size_t i = 1; i < r.t.size(); ++i)
        if (!(r.t[i] > r.t[i - 1])) throw BadField{at + ".time [s][" + std::to_string(i) + "]", "times must increase"};
      out.push_back(std::move(r));
    }
  } catch (const BadField& e) {
    return QObject::tr("%1, field '%2': %3").arg(path, QString::fromStdString(e.where), QString::fromStdString(e.what));
  } catch (const Json::exception& e) {
    return QObject::tr("%1: %2").arg(path, QString::fromStdString(e.what()));
  }
  runs = std::move(out);
  return {};
}

}  // namespace ek::ui
