// Which WorkloadGui each workload gets. Add a line when a workload gains GUI extras.
#include <map>

#include "workload_gui.hpp"

namespace simscope::app::gui {

std::string WorkloadGui::sample_index(const GuiState&, int i, int j) const {
  return "[i=" + std::to_string(i) + " j=" + std::to_string(j) + "]";
}

std::unique_ptr<WorkloadGui> make_field_gui();
std::unique_ptr<WorkloadGui> make_lsq_gui();
std::unique_ptr<WorkloadGui> make_oscillators_gui();

/// The GUI side of the workload registry (run/workload_registry.cpp), keyed by the
/// descriptor's name: the run layer stays free of GUI code.
const std::map<std::string, std::unique_ptr<WorkloadGui> (*)()>& gui_factories() {
  static const std::map<std::string, std::unique_ptr<WorkloadGui> (*)()> f = {
      {"field", make_field_gui}, {"lsq", make_lsq_gui}, {"oscillators", make_oscillators_gui}};
  return f;
}

std::unique_ptr<WorkloadGui> make_workload_gui(const std::string& name) {
  const auto it = gui_factories().find(name);
  return it != gui_factories().end() ? it->second() : std::make_unique<WorkloadGui>();
}

}  // namespace simscope::app::gui
