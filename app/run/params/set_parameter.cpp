#include "params/set_parameter.hpp"

#include "core/error.hpp"
#include "core/quote.hpp"
#include "params/unknown_parameter.hpp"

namespace simscope::app {

void set_parameter(ParamSet& params, ParamSet& view, const std::string& kv) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos)
    throw Error("--set expects NAME=VALUE, got '" + quote_text(kv) + "'");
  const std::string name = kv.substr(0, eq), value = kv.substr(eq + 1);
  if (params.schema().find(name))
    params.set_from_string(name, value);
  else if (view.schema().find(name))
    view.set_from_string(name, value);
  else
    throw Error(unknown_parameter_message(params.schema(), name));
}

}  // namespace simscope::app
