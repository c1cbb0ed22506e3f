// A call's parameters from (name, text) settings (call_settings.hpp).
#include "arrays/call_settings.hpp"

namespace simscope::app {

ParamSet params_from(const Schema& schema, const Settings& settings) {
  ParamSet p = schema.defaults();
  for (const auto& [name, text] : settings) {
    schema.at(name);  // "unknown parameter 'x' for workload 'w' (known: ...)"
    p.set_from_string(name, text);
  }
  return p;
}

std::string unused_by_arrays(const ParamSet& params, const std::string& given,
                             const std::vector<std::string>& names, const std::string& why) {
  const std::string list = params.changed(names);
  if (list.empty()) return "";
  return given + ", so " + list + (list.find(',') == std::string::npos ? " is" : " are") +
         " not used" + (why.empty() ? "" : " (" + why + ")");
}

}  // namespace simscope::app
