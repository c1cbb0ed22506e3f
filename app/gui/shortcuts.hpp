#pragma once
/// @file The window's keyboard shortcuts (F1 lists them): Ctrl+Q and Esc close, Space pauses,
/// S screenshots, E exports, R resets the view, Ctrl+Z / Ctrl+Y undo and redo, 1/2/3 switch the
/// workload, and the keys of the panels (I, A, D, H, P, Ctrl+O, Ctrl+S).

struct GLFWwindow;

namespace simscope::app {
class KeyPresses;
}

namespace simscope::app::gui {

struct GuiState;

/// Acts on the presses queued since the last frame (KeyPresses), then clears them. Skipped while
/// ImGui takes the keyboard, i.e. a text field has focus; but Ctrl+Q closes `window` always,
/// and Esc closes the help window, else `window` unless a popup is open or ImGui takes the
/// keyboard (Esc there leaves the popup or the text field). Screenshots and exports are counted
/// into s.want_screenshot and s.want_export, every tap, for after the frame is drawn.
void handle_keys(GuiState& s, KeyPresses& keys, GLFWwindow* window);

}  // namespace simscope::app::gui
