#pragma once
/// @file The interactive window: GLFW + Dear ImGui around the render/ plane view.
#include "run_options.hpp"

namespace simscope::app {

/// Opens the window and runs until it is closed, or until --frames N frames are drawn. Returns
/// the exit status. Throws simscope::Error when no window can be opened: no display, or no
/// OpenGL 4.5.
int run_gui(const RunOptions& options);

}  // namespace simscope::app
