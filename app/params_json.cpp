#include "params_json.hpp"

#include <QJsonValue>
#include <cmath>

#include "core/error.hpp"
#include "core/quote.hpp"

namespace simscope::app {

QJsonObject to_json(const ParamSet& params) {
  QJsonObject o;
  for (const auto& [name, v] : params.values()) {
    const QString key = QString::fromStdString(name);
    if (auto i = std::get_if<std::int64_t>(&v))
      o[key] = qint64(*i);
    else if (auto d = std::get_if<double>(&v))
      o[key] = *d;
    else if (auto b = std::get_if<bool>(&v))
      o[key] = *b;
    else
      o[key] = QString::fromStdString(std::get<std::string>(v));
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
        // An integer in the JSON text is kept exactly (Qt stores it as qint64): a seed of
        // 2^53 + 1 must meet the range check as itself, not as the double 2^53.
        const qint64 a = v.toInteger(0), b = v.toInteger(1);
        if (spec.type == ParamType::Int && a == b)
          value = std::int64_t(a);
        else
          value = v.toDouble();
      } else {
        throw Error("parameter " + quote_text(name) +
                    ": expected a number, string or boolean in JSON");
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
