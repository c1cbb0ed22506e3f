#include "presets.hpp"

#include <QFile>
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
  if (!doc.isObject() || !doc.object().contains("workload") || !doc.object()["params"].isObject())
    throw Error(path + ": not a simscope preset (expected an object with \"workload\" and "
                       "\"params\")");
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
  apply_json(next, o["params"].toObject(), path);
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
