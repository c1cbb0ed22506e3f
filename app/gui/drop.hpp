#pragma once
/// @file Files dropped onto the window via GLFW's drop callback. Each goes through plan_drop
/// (drop_plan.hpp) into the matching file parameter, a preset load, or a run.json's parameters,
/// switching workload first when the preset or run is another's. A file that fits nothing gets
/// its message in the status bar.
#include <string>
#include <vector>

struct GLFWwindow;

namespace simscope::app::gui {

struct GuiState;

struct DropState {
  std::vector<std::string> after_switch;  ///< presets / runs to apply once their workload is shown
};

/// Installs the drop callback on `window`. Paths are queued; handle_drops applies them.
void install_drop_callback(GLFWwindow* window);
/// Applies the files dropped since the last call. Call once a frame, before the panels.
void handle_drops(GuiState& s);

}  // namespace simscope::app::gui
