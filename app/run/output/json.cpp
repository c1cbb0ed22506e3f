#include "output/json.hpp"

#include <cmath>
#include <cstdint>

namespace simscope::app {

Json json_number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) return std::int64_t(v);
  return v;
}

std::string json_text(const Json& j, bool compact) {
  if (compact) return j.dump(-1, ' ', false, Json::error_handler_t::replace);
  return j.dump(4, ' ', false, Json::error_handler_t::replace) + "\n";
}

double json_double(const Json& o, const char* key, double fallback) {
  if (!o.is_object()) return fallback;
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string json_string(const Json& o, const char* key) {
  if (!o.is_object()) return "";
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace simscope::app
