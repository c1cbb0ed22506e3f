#include "session.hpp"

#include <sstream>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "params/set_parameter.hpp"
#include "presets/presets.hpp"
#include "view/sweep_spec.hpp"
#include "view/view_schema.hpp"

namespace simscope::app {

void check_command_line(const RunOptions& o) {
  if (!o.list_params.empty()) make_workload(o.list_params);  // throws "unknown workload ..."
  std::string name = o.workload;
  if (name.empty() && !o.preset.empty()) {
    try {
      name = preset_workload(o.preset);
      make_workload(name);
    } catch (const Error&) {
      return;  // a bad preset is a bad input file: make_session reports it (exit 1)
    }
  }
  if (name.empty()) name = workload_names().front();  // the registry's first
  const auto w = make_workload(name);
  ParamSet params = w->schema().defaults(), view = view_schema().defaults();
  for (const std::string& kv : o.sets) set_parameter(params, view, kv);
  // View settings are checked together, e.g. a reversed locked range. With a preset, which may
  // set the other end, make_session checks them; a preset is an input file, exit 1.
  if (o.preset.empty()) check_view_params(view);
  // A headless run refuses combinations it cannot serve before computing; the window shows why its
  // view is empty instead. With a preset, make_session checks them (exit 1).
  if (o.headless && o.preset.empty()) w->check_params(params);
  for (const std::string& kv : o.pin_sets) {  // --pin-set NAME=VALUE: A's parameters
    const auto eq = kv.find('=');
    ParamSet a = params;
    try {
      a.set_from_string(kv.substr(0, eq), kv.substr(eq + 1));
    } catch (const std::exception& e) {
      throw Error("--pin-set " + kv + ": " + e.what());
    }
  }
  if (!o.sweep.empty()) sweep_params(params, parse_sweep(o.sweep));  // range, type: up front
}

Session make_session(const RunOptions& o) {
  std::string name = o.workload;
  if (!o.preset.empty()) {
    const std::string from_preset = preset_workload(o.preset);
    if (name.empty())
      name = from_preset;
    else if (name != from_preset)
      throw Error(o.preset + ": preset is for workload '" + quote_text(from_preset) +
                  "', but --workload is '" + quote_text(name) + "'");
  }
  if (name.empty()) name = workload_names().front();  // the registry's first
  Session s;
  try {
    s.workload = make_workload(name);
  } catch (const Error& e) {
    if (o.preset.empty() || !o.workload.empty()) throw;
    throw Error(o.preset + ": " + e.what());
  }
  s.params = s.workload->schema().defaults();
  s.view = view_schema().defaults();
  if (!o.preset.empty()) load_preset(o.preset, s.params, &s.view);
  for (const std::string& kv : o.sets) {
    set_parameter(s.params, s.view, kv);
    const std::string name = kv.substr(0, kv.find('='));
    if (s.view.schema().find(name)) s.view_given.push_back(name);
  }
  try {
    check_view_params(s.view);
  } catch (const Error& e) {
    if (o.preset.empty()) throw;
    throw Error(o.preset + ": " + e.what());
  }
  if (o.headless) {
    try {
      s.workload->check_params(s.params);
    } catch (const Error& e) {
      if (o.preset.empty()) throw;
      throw Error(o.preset + ": " + e.what());
    }
  }
  s.backend = choose_backend(o.backend);
  return s;
}

std::string list_params_text(const std::string& workload) {
  const auto w = make_workload(workload);
  std::ostringstream out;
  out << "Parameters of workload '" << workload << "' (set with --set NAME=VALUE):\n\n";
  for (const Schema* schema : {&w->schema(), &view_schema()}) {
    if (schema == &view_schema()) out << "\nView parameters (every workload):\n\n";
    for (const ParamSpec& s : schema->specs()) {
      out << "  " << s.name << "  (" << to_string(s.type);
      if (s.type == ParamType::Enum) {
        out << ": ";
        for (size_t i = 0; i < s.choices.size(); ++i) out << (i ? "|" : "") << s.choices[i];
      }
      if ((s.type == ParamType::Int || s.type == ParamType::Float) && s.has_range())
        out << " in [" << format_value(ParamValue(s.min)) << ", " << format_value(ParamValue(s.max))
            << "]";
      out << ")\n";
      out << "      default: "
          << (format_value(s.default_value).empty() ? "(none)" : format_value(s.default_value));
      if (!s.unit.empty()) out << "   unit: " << s.unit;
      out << "\n      " << s.help << "\n";
      if (!s.also.empty()) {
        out << "      also called:";
        for (size_t i = 0; i < s.also.size(); ++i) out << (i ? ", " : " ") << s.also[i];
        out << "\n";
      }
    }
  }
  return out.str();
}

}  // namespace simscope::app
