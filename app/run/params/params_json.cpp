#include "params/params_json.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/error.hpp"
#include "core/quote.hpp"

namespace simscope::app {

Json params_to_json(const ParamSet& params) {
  Json o = Json::object();
  for (const auto& [name, v] : params.values()) {
    if (auto i = std::get_if<std::int64_t>(&v))
      o[name] = *i;
    else if (auto d = std::get_if<double>(&v))
      o[name] = json_number(*d);
    else if (auto b = std::get_if<bool>(&v))
      o[name] = *b;
    else
      o[name] = std::get<std::string>(v);
  }
  return o;
}

namespace {

/// The parameter value a JSON number gives; see apply_json.
ParamValue number_value(const ParamSpec& spec, const Json& v) {
  if (spec.type == ParamType::Int) {
    if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<std::int64_t>();
    if (v.is_number_unsigned()) {
      const std::uint64_t u = v.get<std::uint64_t>();
      if (u <= std::uint64_t(std::numeric_limits<std::int64_t>::max())) return std::int64_t(u);
    } else {
      const double d = v.get<double>();
      if (std::isfinite(d) && d == std::floor(d) && d >= -9223372036854775808.0 &&
          d < 9223372036854775808.0)
        return std::int64_t(d);
    }
  }
  return v.get<double>();
}

}  // namespace

void apply_json(ParamSet& params, const Json& json, const std::string& origin) {
  ParamSet next = params;  // all or nothing
  for (auto it = json.begin(); json.is_object() && it != json.end(); ++it) {
    const std::string& name = it.key();
    const Json& v = it.value();
    try {
      const ParamSpec& spec = next.schema().at(name);
      ParamValue value;
      if (v.is_string())
        value = Schema::parse_value(spec, v.get<std::string>());
      else if (v.is_boolean())
        value = v.get<bool>();
      else if (v.is_number())
        value = number_value(spec, v);
      else
        throw Error("parameter " + quote_text(name) +
                    ": expected a number, string or boolean in JSON");
      next.set(name, value);
    } catch (const Error& e) {
      throw Error(origin + ": " + e.what());
    }
  }
  params = std::move(next);
}

std::string to_text(const ParamSet& params) {
  std::string out;
  for (const auto& [name, v] : params.values()) out += name + "=" + format_value(v) + "\n";
  return out;
}

}  // namespace simscope::app
