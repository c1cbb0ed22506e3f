// The field window extras: the hover readout's index into the exported arrays. A plane has
// (n, n) arrays; a box has (6, n, n) ones, whose faces the view lays out as a 3 x 2 mosaic.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gui_state.hpp"
#include "hover_tip.hpp"
#include "visible_wrap.hpp"
#include "workload_gui.hpp"

namespace simscope::app::gui {
namespace {

class FieldGui final : public WorkloadGui {
 public:
  /// The tree method's error view beside the field: the subgrid's median and largest per-target
  /// relative error, where the largest is, and a button that switches the centre to it and
  /// back. Labelled as the subgrid check it is, apart from the error sample's RMS and max of
  /// "Last run".
  void draw_panel(GuiState& s) override {
    const OutputArray* e = s.result ? s.result->find("error") : nullptr;
    const OutputArray* xyz = s.result ? s.result->find("error_xyz") : nullptr;
    if (!e || !xyz || e->shape.empty()) return;
    std::vector<float> v = e->host();
    if (v.empty() || xyz->data.size() != 3 * v.size()) return;
    ImGui::Separator();
    const int m = int(e->shape.back());
    ImGui::TextDisabled("Error map: %d x %d subgrid check", m, m);
    if (hover_tip_due())
      ImGui::SetTooltip(
          "Per target of a %d x %d subgrid of the plane: |E_tree - E_direct| / |E_direct|, "
          "against fp64 direct sums.\nA check apart from the error sample of \"Last run\", "
          "whose RMS tree.tolerance bounds:\nper-target ratios are large where |E| is small.",
          m, m);
    const std::size_t worst = std::size_t(std::max_element(v.begin(), v.end()) - v.begin());
    const double largest = v[worst];
    std::vector<float> sorted = v;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    // Wrapped between words, so that a narrow panel (1280 x 800) cuts no number.
    const auto g = [](const char* fmt, double v) {
      char b[48];
      std::snprintf(b, sizeof b, fmt, v);
      return std::string(b);
    };
    text_tokens_wrapped({"per target:", g("median %.2g,", double(sorted[sorted.size() / 2])),
                         g("max %.2g", largest)});
    text_tokens_wrapped({"max at", g("x=%.4g", xyz->data.at(3 * worst)),
                         g("y=%.4g", xyz->data.at(3 * worst + 1)),
                         g("z=%.4g", xyz->data.at(3 * worst + 2))});
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
