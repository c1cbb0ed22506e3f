#include "params/param_set.hpp"

#include "core/error.hpp"
#include "core/quote.hpp"
#include "params/schema.hpp"

namespace simscope {

ParamSet::ParamSet(const Schema* schema) : schema_(schema) {
  for (const auto& s : schema->specs()) values_[s.name] = s.default_value;
}

void ParamSet::set_from_string(const std::string& name, const std::string& text) {
  const ParamSpec& s = schema_->at(name);
  values_[name] = Schema::parse_value(s, text);
}

void ParamSet::set(const std::string& name, const ParamValue& value) {
  const ParamSpec& s = schema_->at(name);
  values_[name] = Schema::check_value(s, value);
}

const ParamValue& ParamSet::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    if (schema_) schema_->at(name);  // throws the "unknown parameter" message
    throw Error("unknown parameter '" + quote_text(name) + "'");
  }
  return it->second;
}

bool ParamSet::is_default(const std::string& name) const {
  const ParamValue& v = get(name);
  return v == schema_->at(name).default_value;
}

std::string ParamSet::changed(const std::vector<std::string>& names) const {
  std::string out;
  for (const auto& n : names)
    if (!is_default(n)) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::int64_t ParamSet::get_int(const std::string& name) const {
  return std::get<std::int64_t>(get(name));
}
double ParamSet::get_double(const std::string& name) const {
  const ParamValue& v = get(name);
  if (auto i = std::get_if<std::int64_t>(&v)) return double(*i);
  return std::get<double>(v);
}
bool ParamSet::get_bool(const std::string& name) const { return std::get<bool>(get(name)); }
const std::string& ParamSet::get_string(const std::string& name) const {
  return std::get<std::string>(get(name));
}

}  // namespace simscope
