#pragma once
/// @file Undo / redo of the window's parameter changes (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y), one
/// history per workload (GuiState::undo, UndoStack): edits, preset loads and resets alike; a
/// slider drag or a text edit is one step once the widget is let go.
namespace simscope::app::gui {

struct GuiState;

/// Records the parameters as they stand, once no widget is active (call once a frame, after the
/// panels).
void track_undo(GuiState& s);
/// Restores the parameters before the last change of this workload (the status bar names the
/// parameters that changed back; "nothing to undo" when none).
void undo_params(GuiState& s);
/// Restores the change last undone.
void redo_params(GuiState& s);

}  // namespace simscope::app::gui
