#pragma once
// Wrapped text that stays inside the visible part of the current ImGui window.
//
// ImGui 1.86's TextWrapped wraps at the window's work rectangle, which a window with
// ImGuiWindowFlags_HorizontalScrollbar (the side panels, so that a long label can be scrolled
// to) widens to its content: one widget wider than the panel and every wrapped line ran under
// the vertical scrollbar, its last words cut. SIMSCOPE_TEXT_WRAPPED(fmt, ...) is TextWrapped
// with the wrap position at the visible right edge (the inner rectangle, less the padding), and
// keeps the format string a literal, so the compiler still checks it.
#include <imgui.h>
#include <imgui_internal.h>

namespace simscope::app::gui {

/// Pushes a wrap position (window-local, as PushTextWrapPos takes it) at the visible right edge
/// of the current window's contents, whatever its content width and horizontal scroll; pop it
/// with ImGui::PopTextWrapPos().
inline void push_visible_wrap() {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  ImGui::PushTextWrapPos(w->InnerRect.Max.x - w->WindowPadding.x - w->Pos.x + w->Scroll.x);
}

}  // namespace simscope::app::gui

#define SIMSCOPE_TEXT_WRAPPED(...)             \
  do {                                         \
    ::simscope::app::gui::push_visible_wrap(); \
    ImGui::TextWrapped(__VA_ARGS__);           \
    ImGui::PopTextWrapPos();                   \
  } while (0)
