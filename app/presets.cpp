#include "presets.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStringList>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "params_json.hpp"
#include "session.hpp"
#include "view_schema.hpp"

namespace simscope::app {
namespace {

const QStringList kTopKeys = {"simscope_preset", "workload", "params", "view"};

QJsonObject read_preset_object(const std::string& path) {
  QFile f(QString::fromStdString(path));
  if (!f.open(QIODevice::ReadOnly))
    throw Error(path + ": cannot open preset (" + f.errorString().toStdString() + ")");
  QJsonParseError err{};
  const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
  if (err.error != QJsonParseError::NoError)
    throw Error(path + ": not valid JSON at offset " + std::to_string(err.offset) + " (" +
                err.errorString().toStdString() + ")");
  if (!doc.isObject() || !doc.object()["workload"].isString() || !doc.object()["params"].isObject())
    throw Error(path +
                ": not a simscope preset (expected an object with \"workload\" and "
                "\"params\")");
  const QJsonValue version = doc.object()["simscope_preset"];
  if (!version.isUndefined() && version.toInt(-1) != 1)
    throw Error(path + ": preset format " +
                QJsonDocument(QJsonArray{version}).toJson(QJsonDocument::Compact).toStdString() +
                " is not supported (this simscope reads simscope_preset 1)");
  for (const QString& key : doc.object().keys())
    if (!kTopKeys.contains(key))
      throw Error(path + ": unknown key \"" + quote_text(key.toStdString()) +
                  "\" in the preset (allowed: simscope_preset, workload, params, view)");
  if (doc.object().contains("view") && !doc.object()["view"].isObject())
    throw Error(path + ": \"view\" must be an object of view settings (view.colormap, ...)");
  return doc.object();
}

/// Names in "params" that the workload does not know, and in "view" that are not view
/// settings, refused with where they belong: view.* settings go under "view", a workload's
/// parameters under "params".
void check_names(const std::string& path, const QJsonObject& params, const QJsonObject& view,
                 const Schema& workload) {
  const Schema& vs = view_schema();
  for (const QString& key : params.keys()) {
    const std::string name = key.toStdString(), quoted = quote_text(name);
    if (workload.find(name)) continue;
    if (vs.find(name))
      throw Error(path + ": \"" + quoted +
                  "\" is a view setting: put it under \"view\", not "
                  "\"params\"");
    if (name.rfind("view.", 0) == 0)
      throw Error(path + ": under \"params\": unknown parameter '" + quoted +
                  "'; view settings go under \"view\" (view settings: " + vs.names() +
                  "; parameters of workload '" + workload.workload() + "': " + workload.names() +
                  ")");
    throw Error(path + ": under \"params\": " + unknown_parameter_message(workload, name));
  }
  for (const QString& key : view.keys()) {
    const std::string name = key.toStdString(), quoted = quote_text(name);
    if (vs.find(name)) continue;
    if (workload.find(name))
      throw Error(path + ": \"" + quoted + "\" is a parameter of workload '" + workload.workload() +
                  "': put it under \"params\", not \"view\"");
    throw Error(path + ": under \"view\": unknown view setting '" + quoted +
                "' (view settings: " + vs.names() + ")");
  }
}

}  // namespace

std::string preset_workload(const std::string& path) {
  return read_preset_object(path)["workload"].toString().toStdString();
}

void load_preset(const std::string& path, ParamSet& params, ParamSet* view) {
  const QJsonObject o = read_preset_object(path);
  const std::string workload = o["workload"].toString().toStdString();
  if (workload != params.schema().workload())
    throw Error(path + ": preset is for workload '" + quote_text(workload) + "', not '" +
                params.schema().workload() + "'");
  check_names(path, o["params"].toObject(), o["view"].toObject(), params.schema());
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
