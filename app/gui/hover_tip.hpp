#pragma once
/// @file Tooltips that wait: a help text shows once the pointer has rested on its item for
/// kHoverTipDelay seconds, and never while an item is active (a slider being dragged, a text field
/// being typed in), so a tooltip does not cover the widget in use.
namespace simscope::app::gui {

/// Seconds the pointer rests on an item before its tooltip shows.
inline constexpr double kHoverTipDelay = 0.5;

/// True when the last item's tooltip is due: hovered (disabled items too) for kHoverTipDelay
/// seconds without interruption and no item active. Call it once per frame for each item with a
/// tooltip, right after the item, in place of ImGui::IsItemHovered().
bool hover_tip_due();

/// True while the pointer rests on an item whose tooltip is not due yet (the window should draw
/// again in kHoverTipDelay seconds even without input).
bool hover_tip_waiting();

/// Shows `text` as the tooltip of the last item, wrapped at `width_em` font sizes (explicit line
/// breaks kept). ImGui::SetTooltip does not wrap: a text wrap position pushed before it belongs to
/// the calling window, not to the tooltip's, so a long help line ran off the screen.
void wrapped_tooltip(const char* text, float width_em = 30.0f);

}  // namespace simscope::app::gui
