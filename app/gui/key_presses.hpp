#pragma once
/// @file Key presses queued from GLFW's key callback for the window's shortcuts.
///
/// Dear ImGui 1.86 (Debian's) keeps only whether a key is down at the start of a frame. So a
/// press and its release that both arrive between two frames, a quick tap or xdotool, never show
/// up in ImGui::IsKeyPressed. This queue records every GLFW_PRESS as it arrives (GLFW docs, "Key
/// input": the key callback); the frame reads and clears it. ImGui's GLFW back end chains to a
/// key callback installed before ImGui_ImplGlfw_InitForOpenGL(window, true), so ImGui still
/// gets every event.
#include <utility>
#include <vector>

struct GLFWwindow;

namespace simscope::app {

class KeyPresses {
 public:
  /// Installs the key callback on `window`. Call before ImGui_ImplGlfw_InitForOpenGL. One
  /// instance at a time, since the callback finds it through a static pointer. It must outlive
  /// the window's event processing. Throws simscope::Error when another instance exists.
  explicit KeyPresses(GLFWwindow* window);
  ~KeyPresses();
  KeyPresses(const KeyPresses&) = delete;
  KeyPresses& operator=(const KeyPresses&) = delete;

  /// Whether `key`, a GLFW_KEY_* code, was pressed since the last clear() with exactly the
  /// modifiers `mods` among Shift, Control, Alt and Super (GLFW_MOD_* bits). Caps Lock and Num
  /// Lock are ignored. Key repeats do not count.
  bool pressed(int key, int mods = 0) const { return count(key, mods) > 0; }
  /// How many times `key` was pressed since the last clear(), matched as pressed() does. Taps
  /// quicker than a frame each count.
  int count(int key, int mods = 0) const;
  /// Forgets the presses read this frame.
  void clear() { presses_.clear(); }
  /// Records a press, as the callback does. Also used by tests.
  void record(int key, int mods) { presses_.emplace_back(key, mods); }

 private:
  static void on_key(GLFWwindow* window, int key, int scancode, int action, int mods);
  std::vector<std::pair<int, int>> presses_;
};

}  // namespace simscope::app
