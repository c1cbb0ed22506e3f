#pragma once
/// @file The view panel's "Last run" section: the run's stats as a short table of named figures
/// with units (app/run/output/stat_labels.hpp lays down the names, units and formats), each row's raw
/// run.json value in its tooltip and copied by a click, and every raw stat in a collapsed
/// "All stats (run.json)" section with a "Copy all" button.
#include <map>
#include <string>

namespace simscope::app::gui {

struct GuiState;

/// The "Last run" section for s.result (nothing without one), inside the view panel's window;
/// the run's warnings after it.
void draw_last_run(GuiState& s);
/// The lines the section shows, "label: value" one per line; empty without a result. The
/// screenshot's simscope.last_run (add_last_run_text).
std::string last_run_text(const GuiState& s);
/// Adds simscope.last_run to a screenshot's PNG text when there is a result.
void add_last_run_text(const GuiState& s, std::map<std::string, std::string>& text);

}  // namespace simscope::app::gui
