#include "png_metadata.hpp"

#include "params/params_json.hpp"

namespace simscope::app {

std::map<std::string, std::string> png_metadata(const std::string& workload,
                                                const ParamSet& params) {
  return {{"Software", "simscope " SIMSCOPE_VERSION},
          {"simscope.workload", workload},
          {"simscope.params", to_text(params)}};
}

}  // namespace simscope::app
