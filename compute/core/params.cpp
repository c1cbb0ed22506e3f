#include "core/params.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"

namespace simscope {

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::Int: return "int";
    case ParamType::Float: return "float";
    case ParamType::Bool: return "bool";
    case ParamType::Enum: return "enum";
    case ParamType::Path: return "path";
  }
  return "?";
}

std::string format_value(const ParamValue& v) {
  if (auto i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto d = std::get_if<double>(&v)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    // Prefer the shortest text that reads back exactly.
    for (int prec = 1; prec <= 17; ++prec) {
      char shortbuf[40];
      std::snprintf(shortbuf, sizeof shortbuf, "%.*g", prec, *d);
      if (std::strtod(shortbuf, nullptr) == *d) return shortbuf;
    }
    return buf;
  }
  if (auto b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

namespace {

std::string range_text(const ParamSpec& s) {
  std::ostringstream o;
  o << "[" << format_value(ParamValue(s.min)) << ", " << format_value(ParamValue(s.max)) << "]";
  return o.str();
}

std::string choices_text(const ParamSpec& s) {
  std::string out;
  for (size_t i = 0; i < s.choices.size(); ++i) out += (i ? "|" : "") + s.choices[i];
  return out;
}

[[noreturn]] void bad(const ParamSpec& s, const std::string& expected, const std::string& got) {
  throw Error("parameter " + s.name + ": expected " + expected + ", got '" + got + "'");
}

std::string expected_text(const ParamSpec& s) {
  switch (s.type) {
    case ParamType::Int: return "an integer" + (s.has_range() ? " in " + range_text(s) : "");
    case ParamType::Float:
      return "a finite number" + (s.has_range() ? " in " + range_text(s) : "");
    case ParamType::Bool: return "true or false";
    case ParamType::Enum: return "one of " + choices_text(s);
    case ParamType::Path: return "a file path";
  }
  return "?";
}

}  // namespace

ParamSpec param_spec(std::string name, ParamType type, ParamValue default_value, double min,
                     double max, std::string unit, std::string help,
                     std::vector<std::string> choices, bool log_slider) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = type;
  s.default_value = std::move(default_value);
  s.min = min;
  s.max = max;
  s.unit = std::move(unit);
  s.help = std::move(help);
  s.choices = std::move(choices);
  s.log_slider = log_slider;
  return s;
}

Schema::Schema(std::string workload, std::vector<ParamSpec> specs)
    : workload_(std::move(workload)), specs_(std::move(specs)) {}

const ParamSpec* Schema::find(const std::string& name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

const ParamSpec& Schema::at(const std::string& name) const {
  if (const ParamSpec* s = find(name)) return *s;
  std::string known;
  for (const auto& s : specs_) known += (known.empty() ? "" : ", ") + s.name;
  throw Error("unknown parameter '" + name + "' for workload '" + workload_ + "' (known: " +
              known + ")");
}

ParamSet Schema::defaults() const { return ParamSet(this); }

ParamValue Schema::check_value(const ParamSpec& s, const ParamValue& v) {
  switch (s.type) {
    case ParamType::Int: {
      std::int64_t i;
      if (auto p = std::get_if<std::int64_t>(&v)) i = *p;
      else if (auto d = std::get_if<double>(&v); d && std::isfinite(*d) && std::floor(*d) == *d &&
                                                   std::fabs(*d) < 9.0e18)
        i = static_cast<std::int64_t>(*d);
      else bad(s, expected_text(s), format_value(v));
      if (s.has_range() && (double(i) < s.min || double(i) > s.max))
        bad(s, expected_text(s), format_value(v));
      return i;
    }
    case ParamType::Float: {
      double d;
      if (auto p = std::get_if<double>(&v)) d = *p;
      else if (auto i = std::get_if<std::int64_t>(&v)) d = double(*i);
      else bad(s, expected_text(s), format_value(v));
      if (!std::isfinite(d) || (s.has_range() && (d < s.min || d > s.max)))
        bad(s, expected_text(s), format_value(v));
      return d;
    }
    case ParamType::Bool:
      if (auto b = std::get_if<bool>(&v)) return *b;
      bad(s, expected_text(s), format_value(v));
    case ParamType::Enum: {
      auto str = std::get_if<std::string>(&v);
      if (!str) bad(s, expected_text(s), format_value(v));
      for (const auto& c : s.choices)
        if (c == *str) return *str;
      bad(s, expected_text(s), *str);
    }
    case ParamType::Path:
      if (auto str = std::get_if<std::string>(&v)) return *str;
      bad(s, expected_text(s), format_value(v));
  }
  bad(s, expected_text(s), format_value(v));
}

ParamValue Schema::parse_value(const ParamSpec& s, const std::string& text) {
  switch (s.type) {
    case ParamType::Int: {
      errno = 0;
      char* end = nullptr;
      long long i = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno == ERANGE) {
        // Accept "1e6"-style integers written as floats when they are exact.
        char* dend = nullptr;
        double d = std::strtod(text.c_str(), &dend);
        if (!text.empty() && *dend == '\0') return check_value(s, ParamValue(d));
        bad(s, expected_text(s), text);
      }
      return check_value(s, ParamValue(std::int64_t(i)));
    }
    case ParamType::Float: {
      char* end = nullptr;
      double d = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') bad(s, expected_text(s), text);
      return check_value(s, ParamValue(d));
    }
    case ParamType::Bool:
      if (text == "true" || text == "1" || text == "on" || text == "yes") return true;
      if (text == "false" || text == "0" || text == "off" || text == "no") return false;
      bad(s, expected_text(s), text);
    case ParamType::Enum:
    case ParamType::Path: return check_value(s, ParamValue(text));
  }
  bad(s, expected_text(s), text);
}

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
    throw Error("unknown parameter '" + name + "'");
  }
  return it->second;
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
