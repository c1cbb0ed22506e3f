// The window's keyboard shortcuts (shortcuts.hpp).
#include "shortcuts.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdio>

#include "gui_state.hpp"
#include "key_presses.hpp"
#include "runs.hpp"
#include "undo.hpp"
#include "view/view_schema.hpp"

namespace simscope::app::gui {

void handle_keys(GuiState& s, KeyPresses& keys, GLFWwindow* window) {
  const bool captured = ImGui::GetIO().WantCaptureKeyboard;
  const auto quit = [&](const char* key) {
    std::fprintf(stderr, "simscope: %s: closing the window\n", key);
    glfwSetWindowShouldClose(window, GLFW_TRUE);
  };
  if (keys.pressed(GLFW_KEY_Q, GLFW_MOD_CONTROL)) quit("Ctrl+Q");
  if (keys.pressed(GLFW_KEY_ESCAPE)) {
    if (s.show_help)
      s.show_help = false;
    else if (!captured && !ImGui::GetIO().WantTextInput &&
             !ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId))
      quit("Esc");
  }
  auto pressed = [&](int key, int mods = 0) { return !captured && keys.pressed(key, mods); };
  // Toggles flip once per press: two quick presses inside one frame cancel out.
  auto toggled = [&](int key) { return !captured && keys.count(key) % 2 == 1; };
  if (pressed(GLFW_KEY_O, GLFW_MOD_CONTROL)) s.open_preset_popup = true;
  if (pressed(GLFW_KEY_S, GLFW_MOD_CONTROL)) s.save_preset_popup = true;
  if (toggled(GLFW_KEY_SPACE)) {
    s.paused = !s.paused;
    if (!s.paused && s.params != s.submitted) submit(s);
  }
  if (!captured) s.want_screenshot += keys.count(GLFW_KEY_S);  // every tap, also several per frame
  if (!captured) s.want_export += keys.count(GLFW_KEY_E);
  if (pressed(GLFW_KEY_R)) {  // reset the view: the default range (percentile), no zoom
    s.view.set("view.range", view_schema().at("view.range").default_value);
    s.zoom = 1, s.zoom_cu = s.zoom_cv = 0.5;
    s.image_dirty = true;
  }
  if (pressed(GLFW_KEY_P)) s.explore.want_save_csv = true;    // the line profile's CSV
  if (pressed(GLFW_KEY_Z, GLFW_MOD_CONTROL)) undo_params(s);  // undo.cpp
  if (pressed(GLFW_KEY_Z, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT) ||
      pressed(GLFW_KEY_Y, GLFW_MOD_CONTROL))
    redo_params(s);
  if (pressed(GLFW_KEY_I)) s.image_export.open_popup = true;  // view image at any size
  if (pressed(GLFW_KEY_A)) pin_result(s);                     // compare: pin as A
  if (pressed(GLFW_KEY_D)) cycle_compare_mode(s);             // B, A, B - A, (B - A) / |A|
  if (toggled(GLFW_KEY_H)) s.show_panels = !s.show_panels;
  for (int k = 0; k < 3; ++k)
    if (pressed(GLFW_KEY_1 + k) && k < int(workload_names().size()))
      s.switch_to = workload_names()[k];
  if (toggled(GLFW_KEY_F1)) s.show_help = !s.show_help;
  keys.clear();
}

}  // namespace simscope::app::gui
