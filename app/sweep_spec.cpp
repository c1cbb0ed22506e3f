// The sweep's specification (sweep.hpp): parsing NAME=START:STOP:FRAMES, the frames' parameter
// sets and their captions. Pure parameter logic (Qt Core for the number parsing, no GL), so the
// command-line checks (session.cpp) and their fuzz harness use it without the renderer.
#include <QString>
#include <QStringList>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "sweep.hpp"

namespace simscope::app {

SweepSpec parse_sweep(const std::string& text) {
  const std::string expected =
      "--sweep expects NAME=START:STOP:FRAMES (a numeric parameter, two numbers and an integer "
      "number of frames 2 ... 100000), got '" +
      text + "'";
  const QString t = QString::fromStdString(text);
  const int eq = t.indexOf('=');
  if (eq <= 0) throw Error(expected);
  const QStringList parts = t.mid(eq + 1).split(':');
  if (parts.size() != 3) throw Error(expected);
  SweepSpec s;
  s.param = t.left(eq).trimmed().toStdString();
  bool ok1 = false, ok2 = false, ok3 = false;
  s.start = parts[0].trimmed().toDouble(&ok1);
  s.stop = parts[1].trimmed().toDouble(&ok2);
  s.frames = parts[2].trimmed().toInt(&ok3);
  if (!ok1 || !ok2 || !ok3 || !std::isfinite(s.start) || !std::isfinite(s.stop) || s.frames < 2 ||
      s.frames > 100000)
    throw Error(expected);
  return s;
}

std::vector<ParamSet> sweep_params(const ParamSet& base, const SweepSpec& spec) {
  const ParamSpec& ps = base.schema().at(spec.param);  // unknown: the schema's message
  if (ps.type != ParamType::Int && ps.type != ParamType::Float)
    throw Error("--sweep: parameter " + spec.param + " is " + to_string(ps.type) +
                ", not a number (sweep an int or float parameter)");
  // Both ends first: a value outside the parameter's range is named as the start or stop.
  // `base` with the swept parameter at v (an Int parameter rounded to the nearest integer).
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
