#include "params/unknown_parameter.hpp"

#include "core/quote.hpp"
#include "view/view_schema.hpp"

namespace simscope::app {

std::string unknown_parameter_message(const Schema& workload, const std::string& name) {
  auto known = workload.known_names();
  for (auto& k : view_schema().known_names()) known.push_back(std::move(k));
  const std::string hint = did_you_mean(name, known);
  const std::string head =
      "unknown parameter '" + quote_text(name) + "' for workload '" + workload.workload() + "'";
  if (!hint.empty())
    return head + " (" + hint + "); --list-params " + workload.workload() + " lists them all";
  return head + " (known: " + workload.names() + "; view parameters (every workload): " +
         view_schema().names() + "; see --list-params " + workload.workload() + ")";
}

}  // namespace simscope::app
