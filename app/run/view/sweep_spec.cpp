#include "view/sweep_spec.hpp"

#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "core/number_text.hpp"

namespace simscope::app {

SweepSpec parse_sweep(const std::string& text) {
  const std::string expected =
      "--sweep expects NAME=START:STOP:FRAMES (a numeric parameter, two numbers and an integer "
      "number of frames 2 ... 100000), got '" +
      text + "'";
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw Error(expected);
  std::vector<std::string> parts;
  for (std::size_t a = eq + 1;;) {
    const auto colon = text.find(':', a);
    parts.push_back(text.substr(a, colon == std::string::npos ? std::string::npos : colon - a));
    if (colon == std::string::npos) break;
    a = colon + 1;
  }
  if (parts.size() != 3) throw Error(expected);
  SweepSpec s;
  s.param = trimmed(text.substr(0, eq));
  const bool ok = parse_number(parts[0], s.start) && parse_number(parts[1], s.stop) &&
                  parse_number(parts[2], s.frames);
  if (!ok || !std::isfinite(s.start) || !std::isfinite(s.stop) || s.frames < 2 ||
      s.frames > 100000)
    throw Error(expected);
  return s;
}

std::vector<ParamSet> sweep_params(const ParamSet& base, const SweepSpec& spec) {
  const ParamSpec& ps = base.schema().at(spec.param);  // unknown: the schema's message
  if (ps.type != ParamType::Int && ps.type != ParamType::Float)
    throw Error("--sweep: parameter " + spec.param + " is " + to_string(ps.type) +
                ", not a number (sweep an int or float parameter)");
  // Both ends first, so a value outside the parameter's range is named as the start or stop.
  // `base` with the swept parameter at v; Int parameters rounded to the nearest integer.
  auto at = [&](double v) {
    ParamSet p = base;
    if (ps.type == ParamType::Int)
      p.set(spec.param, std::int64_t(std::llround(v)));
    else
      p.set(spec.param, v);
    return p;
  };
  for (const auto& [what, v] : {std::pair{"start", spec.start}, std::pair{"stop", spec.stop}}) {
    try {
      at(v);
    } catch (const std::exception& e) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.10g", v);
      throw Error(std::string("--sweep ") + what + " " + buf + ": " + e.what());
    }
  }
  std::vector<ParamSet> out;
  for (int f = 0; f < spec.frames; ++f) {
    const double v = spec.start + (spec.stop - spec.start) * f / (spec.frames - 1);
    try {
      out.push_back(at(v));
    } catch (const std::exception& e) {
      throw Error("--sweep frame " + std::to_string(f) + ": " + e.what());
    }
  }
  return out;
}

std::string sweep_caption(const SweepSpec& spec, const ParamSet& frame, std::size_t k) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s = %.6g  (frame %zu of %d)", spec.param.c_str(),
                frame.get_double(spec.param), k + 1, spec.frames);
  return buf;
}

}  // namespace simscope::app
