#pragma once
/// @file The view panel's "Last run" section: the run's stats as a short table of named figures
/// with units (app/run/output/stat_labels.hpp lays down the names, units and formats), each row's raw
/// run.json value in its tooltip and copied by a click, and every raw stat in a collapsed
/// "All stats (run.json)" section with a "Copy all" button.
#include <map>
#include <string>
#include <vector>

#include "output/stat_labels.hpp"

namespace simscope::app::gui {

struct GuiState;

/// A table of named figures (the "Last run" section's): names greyed, each row's definition
/// and raw value (run.json's key, where it has one) on hover, the raw value copied by a click.
/// `id` is the table's ImGui id, e.g. "##last_run".
void draw_stat_table(const char* id, const std::vector<StatLine>& lines);
/// The "Last run" section for s.result (nothing without one), inside the view panel's window;
/// the run's warnings after it.
void draw_last_run(GuiState& s);
/// The lines the section shows, "label: value" one per line; empty without a result. The
/// screenshot's simscope.last_run (add_last_run_text).
std::string last_run_text(const GuiState& s);
/// Adds simscope.last_run to a screenshot's PNG text when there is a result.
void add_last_run_text(const GuiState& s, std::map<std::string, std::string>& text);

}  // namespace simscope::app::gui
