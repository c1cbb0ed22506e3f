#pragma once
/// @file What the window saves of what it shows: screenshots (key S, --screenshot) with what the
/// window showed in their text chunks, and exports (key E) of the shown result with view.png.
#include <string>

#include "output/run_manifest.hpp"

namespace simscope::app::gui {

struct GuiState;

/// How the centre shows the plane, as run.json's render.view records it: output, colormap and
/// scale in use, colour range. No output where the centre shows a workload's own view.
RenderInfo shown_view(const GuiState& s, const std::string& context);
/// Saves the window's framebuffer, fb_w x fb_h, as the PNG `path` with the parameters, the
/// view, the hover readout and the status line in its text chunks. Returns false, with the
/// status bar saying why, when it cannot.
bool save_screenshot(GuiState& s, const std::string& path, int fb_w, int fb_h);
/// Exports the shown full result into simscope-export-<time>/: outputs, run.json and the centre
/// view as view.png (export_image_size), and a pinned comparison. The status bar says where, or
/// why not.
void export_data(GuiState& s);

}  // namespace simscope::app::gui
