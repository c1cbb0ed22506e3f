#pragma once
/// @file ImGui widgets generated from a parameter Schema: one widget per ParamSpec (slider with
/// unit for numbers, combo for enums, checkbox, text field for paths), the help text as a
/// tooltip that waits (hover_tip.hpp), and a reset-to-default button. A parameter the current
/// values make unused (the schema's use rules) is drawn disabled, its reason first on hover.
#include <string>

#include "params/schema.hpp"

namespace simscope::app::gui {

/// Draws a widget for every parameter of `params`' schema. Returns true when a value changed.
/// A rejected value leaves the parameter as it was and puts the reason in `error`.
bool param_widgets(ParamSet& params, std::string& error);

/// The widget of one parameter, with the same contract.
bool param_widget(ParamSet& params, const ParamSpec& spec, std::string& error);

/// Parameter rows drawn since the last reset whose reset button ended past their panel's right
/// edge, i.e. a label or widget cut off and the panel scrolling sideways; and the rows drawn.
/// The window records them in its screenshots (simscope.panels) for the layout's tests, and
/// the rows drawn disabled (simscope.disabled).
struct ParamRowCount {
  int rows = 0, cut = 0;
  /// "name: not used: ... (why)" lines of the rows drawn disabled: parameters the run does not
  /// use by the schema's rules (Schema::unused_reason), shown with that reason on hover.
  std::string disabled;
};
ParamRowCount param_rows(bool reset);

}  // namespace simscope::app::gui
