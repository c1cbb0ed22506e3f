#pragma once
// Wrapped text that stays inside the visible part of the current ImGui window.
//
// ImGui 1.86's TextWrapped wraps at the window's work rectangle. A window with
// ImGuiWindowFlags_HorizontalScrollbar, as the side panels use so a long label can be scrolled
// to, widens that rectangle to its content: one widget wider than the panel makes every wrapped
// line run under the vertical scrollbar with its last words cut. SIMSCOPE_TEXT_WRAPPED(fmt, ...)
// is TextWrapped with the wrap position at the visible right edge (the inner rectangle, less
// the padding). It keeps the format string a literal, so the compiler still checks it.
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <string>
#include <vector>

namespace simscope::app::gui {

/// Pushes a wrap position at the visible right edge of the current window's contents,
/// whatever its content width and horizontal scroll; window-local, as PushTextWrapPos takes it.
/// Pop it with ImGui::PopTextWrapPos().
inline void push_visible_wrap() {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  ImGui::PushTextWrapPos(w->InnerRect.Max.x - w->WindowPadding.x - w->Pos.x + w->Scroll.x);
}

/// Calls ImGui::SameLine() when a button labelled `next` still fits on this line, inside the
/// visible width. In narrow panels the button goes to the next line.
inline void same_line_if_room(const char* next) {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  const ImGuiStyle& st = ImGui::GetStyle();
  const float right = ImGui::GetItemRectMax().x + st.ItemSpacing.x + ImGui::CalcTextSize(next).x +
                      2 * st.FramePadding.x;
  if (right <= w->InnerRect.Max.x - w->WindowPadding.x) ImGui::SameLine();
}

/// The width from the cursor to the visible right edge of the current window's contents.
/// GetContentRegionAvail().x grows with the content once a panel scrolls sideways, so a widget
/// that fills it keeps the scroll it caused (e.g. when a vertical scrollbar appears); this does not.
inline float visible_avail_x() {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  return std::max(1.f, w->InnerRect.Max.x - w->WindowPadding.x - ImGui::GetCursorScreenPos().x);
}

/// Lays out `tokens` left to right as wrapped text inside the visible width, one space apart,
/// breaking lines only between tokens. TextWrapped also breaks after '.' and ',', which splits
/// numbers such as "-1.639" over two lines.
inline void text_tokens_wrapped(const std::vector<std::string>& tokens) {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  const float right = w->InnerRect.Max.x - w->WindowPadding.x;  // screen coordinates
  const float space = ImGui::CalcTextSize(" ").x;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (i > 0) {
      ImGui::SameLine(0, space);
      if (ImGui::GetCursorScreenPos().x + ImGui::CalcTextSize(tokens[i].c_str()).x > right)
        ImGui::NewLine();
    }
    ImGui::TextUnformatted(tokens[i].c_str());
  }
}

}  // namespace simscope::app::gui

#define SIMSCOPE_TEXT_WRAPPED(...)             \
  do {                                         \
    ::simscope::app::gui::push_visible_wrap(); \
    ImGui::TextWrapped(__VA_ARGS__);           \
    ImGui::PopTextWrapPos();                   \
  } while (0)
