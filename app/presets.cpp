#include "presets.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include "core/error.hpp"
#include "params_json.hpp"

namespace simscope::app {
namespace {

QJsonObject read_preset_object(const std::string& path) {
  QFile f(QString::fromStdString(path));
  if (!f.open(QIODevice::ReadOnly))
    throw Error(path + ": cannot open preset (" + f.errorString().toStdString() + ")");
  QJsonParseError err{};
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
  if (err.error != QJsonParseError::NoError)
    throw Error(path + ": not valid JSON at offset " + std::to_string(err.offset) + " (" +
                err.errorString().toStdString() + ")");
  if (!doc.isObject() || !doc.object()["workload"].isString() ||
      !doc.object()["params"].isObject())
    throw Error(path + ": not a simscope preset (expected an object with \"workload\" and "
                       "\"params\")");
  const QJsonValue version = doc.object()["simscope_preset"];
  if (!version.isUndefined() && version.toInt(-1) != 1)
    throw Error(path + ": preset format " + QJsonDocument(QJsonArray{version}).toJson(
                                               QJsonDocument::Compact).toStdString() +
                " is not supported (this simscope reads simscope_preset 1)");
  return doc.object();
}

}  // namespace

std::string preset_workload(const std::string& path) {
  return read_preset_object(path)["workload"].toString().toStdString();
}

void load_preset(const std::string& path, ParamSet& params, ParamSet* view) {
  const QJsonObject o = read_preset_object(path);
  const std::string workload = o["workload"].toString().toStdString();
  if (workload != params.schema().workload())
    throw Error(path + ": preset is for workload '" + workload + "', not '" +
                params.schema().workload() + "'");
  ParamSet next = params;
  // File parameters written relative to the preset resolve against the preset's folder.
  QJsonObject values = o["params"].toObject();
  const QDir base = QFileInfo(QString::fromStdString(path)).absoluteDir();
  for (const ParamSpec& spec : params.schema().specs()) {
    const QString key = QString::fromStdString(spec.name);
    const QString file = values.value(key).toString();  // "" when absent or not a string
    if (spec.type == ParamType::Path && !file.isEmpty() && QDir::isRelativePath(file))
      values[key] = QDir::cleanPath(base.filePath(file));
  }
  apply_json(next, values, path);
  if (view && o["view"].isObject()) apply_json(*view, o["view"].toObject(), path);
  params = std::move(next);
}

void save_preset(const std::string& path, const ParamSet& params, const ParamSet* view) {
  QJsonObject o;
  o["simscope_preset"] = 1;
  o["workload"] = QString::fromStdString(params.schema().workload());
  o["params"] = to_json(params);
  if (view) o["view"] = to_json(*view);
  QSaveFile f(QString::fromStdString(path));
  if (!f.open(QIODevice::WriteOnly) ||
      f.write(QJsonDocument(o).toJson(QJsonDocument::Indented)) < 0 || !f.commit())
    throw Error(path + ": cannot write preset (" + f.errorString().toStdString() + ")");
}

}  // namespace simscope::app
