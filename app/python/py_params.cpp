// The schema from Python (py_params.hpp).
#include "py_params.hpp"

#include <variant>

#include "params/c_numeric_locale.hpp"
#include "presets/presets.hpp"
#include "py_call.hpp"
#include "presets/shipped_presets.hpp"
#include "workload.hpp"

namespace simscope::python {

namespace {

py::object to_python(const ParamValue& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

py::list schema_list(const std::string& workload) {
  const Schema& s = app::make_workload(workload)->schema();
  py::list out;
  for (const ParamSpec& spec : s.specs()) {
    py::dict d;
    d["name"] = spec.name;
    d["keyword"] = [&] {
      std::string k = spec.name;
      for (char& c : k)
        if (c == '.') c = '_';
      return k;
    }();
    d["type"] = to_string(spec.type);
    d["default"] = to_python(spec.default_value);
    auto bound = [&](double v) -> py::object {
      if (!spec.has_range()) return py::none();
      if (spec.type == ParamType::Int) return py::int_(static_cast<long long>(v));
      return py::float_(v);
    };
    d["min"] = bound(spec.min);
    d["max"] = bound(spec.max);
    d["choices"] = spec.choices;
    d["unit"] = spec.unit;
    d["help"] = spec.help;
    d["also"] = spec.also;
    out.append(d);
  }
  return out;
}

}  // namespace

py::dict params_dict(const ParamSet& params) {
  py::dict d;
  for (const ParamSpec& spec : params.schema().specs())
    d[py::str(spec.name)] = to_python(params.get(spec.name));
  return d;
}

BackendChoice backend_from(const std::string& requested) { return choose_backend(requested); }

void bind_params(py::module_& m) {
  m.def(
      "workloads", [] { return app::workload_names(); },
      "The registered workloads, in the GUI's order.");
  m.def(
      "schema", [](const std::string& w) { return checked([&] { return schema_list(w); }); },
      py::call_guard<app::CNumericLocale>(), py::arg("workload"),
      "The schema of `workload`: a list of dicts (name, keyword, type, default, min, max, "
      "choices, unit, help, also: other words for it). Raises ValueError for an unknown workload.");
  m.def(
      "did_you_mean",
      [](const std::string& typed,
         const std::vector<std::pair<std::string, std::vector<std::string>>>& known) {
        std::vector<KnownName> names;
        for (const auto& [name, also] : known) names.push_back({name, also});
        return did_you_mean(typed, names);
      },
      py::arg("typed"), py::arg("known"),
      "\"did you mean 'a'?\" for the (name, other words) pairs of `known` nearest to `typed` "
      "(the CLI's rule, app/run/params/closest_names.hpp); empty when none is near.");
  m.def(
      "presets", [] { return checked([] { return app::shipped_presets(); }); },
      "The names of the shipped presets (resources/presets; --preset NAME).");
  m.def(
      "preset",
      [](const std::string& name) {
        return checked([&] {
          const std::string path = app::find_preset(name);
          const std::string w = app::preset_workload(path);
          ParamSet p = app::make_workload(w)->schema().defaults();
          app::load_preset(path, p);
          py::dict d;
          d["workload"] = w;
          d["path"] = path;
          d["params"] = params_dict(p);
          return d;
        });
      },
      py::call_guard<app::CNumericLocale>(), py::arg("name"),
      "A preset, shipped (by name) or a file: {workload, path, params (every parameter, dotted "
      "names)}. Raises ValueError with the CLI's message.");
  m.def(
      "check_params",
      [](const std::string& w, const Settings& settings) {
        return checked([&] {
          const auto wl = app::make_workload(w);
          return params_dict(params_from(wl->schema(), settings));
        });
      },
      py::call_guard<app::CNumericLocale>(), py::arg("workload"), py::arg("settings"),
      "The parameters of `workload` after applying the (name, text) settings, as a dict. "
      "Raises ValueError with the message of --set NAME=VALUE.");
}

}  // namespace simscope::python
