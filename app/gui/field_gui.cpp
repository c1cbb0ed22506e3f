// The field window extras: the error view's subgrid check; the hover readout's index into the
// exported arrays. A plane has
// (n, n) arrays; a box has (6, n, n) ones, whose faces the view lays out as a 3 x 2 mosaic.
#include <imgui.h>

#include <string>
#include <vector>

#include "field/field_status.hpp"
#include "gui_state.hpp"
#include "stats_panel.hpp"
#include "workload_gui.hpp"

namespace simscope::app::gui {
namespace {

class FieldGui final : public WorkloadGui {
 public:
  /// The tree method's error view beside the field: its subgrid check (field_subgrid_check:
  /// the targets, the median and max per-target error, where the max is), named apart from the
  /// error sample's figures of "Last run", and a button that switches the centre to the error
  /// view and back.
  void draw_panel(GuiState& s) override {
    if (!s.result) return;
    const std::vector<StatLine> check = field_subgrid_check(*s.result);
    if (check.empty()) return;
    ImGui::Separator();
    ImGui::TextDisabled("Error map (view 'error')");
    draw_stat_table("##subgrid_check", check);
    const bool shown = s.params.get_string("view") == "error";
    if (ImGui::Button(shown ? "Show |E|" : "Show the error view")) {
      s.params.set("view", std::string(shown ? "magnitude" : "error"));
      s.image_dirty = true;
    }
  }

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
