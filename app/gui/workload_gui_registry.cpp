// Which WorkloadGui each workload gets. Add a line when a workload gains GUI extras.
#include "workload_gui.hpp"

namespace simscope::app::gui {

std::string WorkloadGui::sample_index(const GuiState&, int i, int j) const {
  return "[i=" + std::to_string(i) + " j=" + std::to_string(j) + "]";
}

std::unique_ptr<WorkloadGui> make_field_gui();
std::unique_ptr<WorkloadGui> make_lsq_gui();
std::unique_ptr<WorkloadGui> make_oscillators_gui();

std::unique_ptr<WorkloadGui> make_workload_gui(const std::string& name) {
  if (name == "field") return make_field_gui();
  if (name == "lsq") return make_lsq_gui();
  if (name == "oscillators") return make_oscillators_gui();
  return std::make_unique<WorkloadGui>();
}

}  // namespace simscope::app::gui
