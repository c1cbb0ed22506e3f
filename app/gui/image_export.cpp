// Images of the centre view at any size (image_export.hpp).
#include "image_export.hpp"
#include "file_names.hpp"

#include <filesystem>
#include <glad/gl.h>
#include <imgui.h>

#include <cstdio>

#include "fonts.hpp"
#include "gui_state.hpp"
#include "hover_tip.hpp"
#include "image_size.hpp"
#include "params/params_json.hpp"
#include "png.hpp"
#include "png_metadata.hpp"
#include "render/caption.hpp"
#include "render/offscreen.hpp"

namespace simscope::app::gui {

void draw_image_size_controls(GuiState& s) {
  ImageExportState& e = s.image_export;
  ImGui::Separator();
  if (ImGui::SmallButton("Image at size... (I)")) e.open_popup = true;
  if (hover_tip_due())
    ImGui::SetTooltip("Save the centre view rendered offscreen at any size, or export at it");
  if (e.open_popup) {
    e.open_popup = false;
    e.text = std::to_string(e.export_w > 0 ? e.export_w : e.view_w) + "x" +
             std::to_string(e.export_h > 0 ? e.export_h : e.view_h);
    ImGui::OpenPopup("Image size");
  }
  if (!ImGui::BeginPopupModal("Image size", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ImGui::Text("Size of the view image, W x H pixels (the view: %d x %d):", e.view_w, e.view_h);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s", e.text.c_str());
  ImGui::SetNextItemWidth(200);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  const bool enter =
      ImGui::InputText("##size", buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue);
  e.text = buf;
  GLint max_rb = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_rb);
  ImGui::TextDisabled("this GL renders up to %d x %d (GL_MAX_RENDERBUFFER_SIZE)", max_rb, max_rb);
  const bool save = ImGui::Button("Save view image (Enter)") || enter;
  ImGui::SameLine();
  const bool for_export = ImGui::Button("Export data at this size");
  ImGui::SameLine();
  const bool cancel =
      ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
  if (save || for_export) {
    try {
      const auto [w, h] = parse_image_size(e.text);
      if (save) e.want_w = w, e.want_h = h;
      if (for_export) {
        e.export_w = w, e.export_h = h;
        ++s.want_export;
      }
    } catch (const std::exception& err) {
      action_failed(s, err.what());
    }
    ImGui::CloseCurrentPopup();
  } else if (cancel) {
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

std::vector<std::uint8_t> render_view_offscreen(GuiState& s, int w, int h,
                                                const std::string& caption) {
  std::vector<std::uint8_t> rgba;
  render::Offscreen target(w, h);  // names the GL limit when the size exceeds it
  target.bind();
  const bool plane = s.worker->workload().view_kind(s.params) == ViewKind::Plane;
  // A plane's caption goes in a strip of its own above it, never over its title or colorbar;
  // the phase view's goes in its free bottom-left corner.
  const int strip = plane && !caption.empty() ? render::caption_strip_height(ui_scale()) : 0;
  if (plane)
    s.plane->draw(0, 0, w, std::max(1, h - strip));
  else
    s.extras->draw_view(s, 0, 0, w, h);
  target.bind();  // (a workload's view may have bound its own)
  if (plane)
    render::draw_caption_strip(caption, w, h, ui_scale(), s.plane->background());
  else
    render::draw_caption(caption, w, h, ui_scale(), render::CaptionCorner::BottomLeft);
  rgba = target.read_rgba();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return rgba;
}

void save_requested_view_image(GuiState& s) {
  ImageExportState& e = s.image_export;
  if (e.want_w <= 0 || e.want_h <= 0) return;
  const int w = e.want_w, h = e.want_h;
  e.want_w = e.want_h = 0;
  if (!s.result) {
    action_failed(s, "no result to draw yet");
    return;
  }
  try {
    const std::vector<std::uint8_t> rgba = render_view_offscreen(s, w, h);
    const std::string path = unused_name("simscope-view-" + local_timestamp(), ".png");
    std::map<std::string, std::string> text = png_metadata(s.workload_name, s.params);
    text["simscope.view_params"] = to_text(s.view);
    write_png(path, rgba, w, h, text);
    action_done(
        s, "saved view image " + path + " (" + std::to_string(w) + " x " + std::to_string(h) + ")");
  } catch (const std::exception& err) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    action_failed(s, std::string("view image ") + std::to_string(w) + " x " + std::to_string(h) +
                         ": " + err.what());
  }
}

std::pair<int, int> export_image_size(const GuiState& s) {
  const ImageExportState& e = s.image_export;
  if (e.export_w > 0 && e.export_h > 0) return {e.export_w, e.export_h};
  return {1024, 832};
}

}  // namespace simscope::app::gui
