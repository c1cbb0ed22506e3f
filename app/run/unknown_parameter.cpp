#include "unknown_parameter.hpp"

#include "core/quote.hpp"
#include "view_schema.hpp"

namespace simscope::app {

std::string unknown_parameter_message(const Schema& workload, const std::string& name) {
  return "unknown parameter '" + quote_text(name) + "' for workload '" + workload.workload() +
         "' (known: " + workload.names() +
         "; view parameters (every workload): " + view_schema().names() + "; see --list-params " +
         workload.workload() + ")";
}

}  // namespace simscope::app
