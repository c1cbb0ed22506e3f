#pragma once
/// @file Undo and redo of the window's parameter changes (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y), one
/// history per workload (GuiState::undo, UndoStack). Edits, preset loads and resets alike. A
/// slider drag or a text edit is one step once the widget is let go.
namespace simscope::app::gui {

struct GuiState;

/// Records the parameters as they stand, once no widget is active. Call once a frame, after the
/// panels.
void track_undo(GuiState& s);
/// Restores the parameters before the last change of this workload. The status bar names the
/// parameters that changed back, or says "nothing to undo".
void undo_params(GuiState& s);
/// Restores the change last undone.
void redo_params(GuiState& s);

}  // namespace simscope::app::gui
