// The field window extras: the hover readout's index into the exported arrays (a plane's
// (n, n) arrays, or a box's (6, n, n) ones, whose faces the view lays out as a 3 x 2 mosaic).
#include <string>

#include "gui_state.hpp"
#include "workload_gui.hpp"

namespace simscope::app::gui {
namespace {

class FieldGui final : public WorkloadGui {
 public:
  std::string sample_index(const GuiState& s, int i, int j) const override {
    const OutputArray* o = s.result ? s.result->find(s.params.get_string("view")) : nullptr;
    if (!o || o->shape.size() != 3 || o->shape[1] == 0) return WorkloadGui::sample_index(s, i, j);
    // Box: mosaic column i / n holds faces 2c (bottom row, j < n) and 2c + 1 (top row).
    const int n = int(o->shape[1]);
    const int face = (i / n) * 2 + (j / n);
    static const char* names[6] = {"-x", "+x", "-y", "+y", "-z", "+z"};
    return "[face=" + std::to_string(face) + " (" + names[face % 6] +
           ") i=" + std::to_string(i % n) + " j=" + std::to_string(j % n) + "]";
  }
};

}  // namespace

std::unique_ptr<WorkloadGui> make_field_gui() { return std::make_unique<FieldGui>(); }

}  // namespace simscope::app::gui
