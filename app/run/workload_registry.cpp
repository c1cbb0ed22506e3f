// The registry of workloads the app offers (switcher order).
#include "core/error.hpp"
#include "workload.hpp"

namespace simscope::app {

std::unique_ptr<Workload> make_field_workload();
std::unique_ptr<Workload> make_lsq_workload();
std::unique_ptr<Workload> make_oscillators_workload();

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names = {"field", "lsq", "oscillators"};
  return names;
}

std::unique_ptr<Workload> make_workload(const std::string& name) {
  if (name == "field") return make_field_workload();
  if (name == "lsq") return make_lsq_workload();
  if (name == "oscillators") return make_oscillators_workload();
  std::string known;
  for (const auto& n : workload_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown workload '" + name + "' (known: " + known + ")");
}

}  // namespace simscope::app
