#include "params_json.hpp"

#include <QJsonValue>
#include <cmath>

#include "core/error.hpp"

namespace simscope::app {

QJsonObject to_json(const ParamSet& params) {
  QJsonObject o;
  for (const auto& [name, v] : params.values()) {
    const QString key = QString::fromStdString(name);
    if (auto i = std::get_if<std::int64_t>(&v)) o[key] = qint64(*i);
    else if (auto d = std::get_if<double>(&v)) o[key] = *d;
    else if (auto b = std::get_if<bool>(&v)) o[key] = *b;
    else o[key] = QString::fromStdString(std::get<std::string>(v));
  }
  return o;
}

void apply_json(ParamSet& params, const QJsonObject& json, const std::string& origin) {
  ParamSet next = params;  // all or nothing
  for (auto it = json.begin(); it != json.end(); ++it) {
    const std::string name = it.key().toStdString();
    const QJsonValue v = it.value();
    try {
      const ParamSpec& spec = next.schema().at(name);
      ParamValue value;
      if (v.isString()) {
        value = Schema::parse_value(spec, v.toString().toStdString());
      } else if (v.isBool()) {
        value = v.toBool();
      } else if (v.isDouble()) {
        const double d = v.toDouble();
        if (spec.type == ParamType::Int && std::floor(d) == d && std::fabs(d) < 9e18)
          value = std::int64_t(d);
        else
          value = d;
      } else {
        throw Error("parameter " + name + ": expected a number, string or boolean in JSON");
      }
      next.set(name, value);
    } catch (const Error& e) {
      throw Error(origin + ": " + e.what());
    }
  }
  params = std::move(next);
}

QString to_text(const ParamSet& params) {
  QString out;
  for (const auto& [name, v] : params.values())
    out += QString::fromStdString(name + "=" + format_value(v)) + "\n";
  return out;
}

}  // namespace simscope::app
