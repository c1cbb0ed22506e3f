#include "params/param_spec.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace simscope {

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::Int:
      return "int";
    case ParamType::Float:
      return "float";
    case ParamType::Bool:
      return "bool";
    case ParamType::Enum:
      return "enum";
    case ParamType::Path:
      return "path";
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

void set_also(std::vector<ParamSpec>& specs, const std::string& name,
              std::vector<std::string> words) {
  for (auto& s : specs)
    if (s.name == name) {
      s.also = std::move(words);
      return;
    }
  throw std::logic_error("set_also: no parameter " + name);
}

}  // namespace simscope
