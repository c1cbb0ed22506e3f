// The window's fonts (fonts.hpp).
#include "fonts.hpp"

#include <filesystem>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace simscope::app::gui {
namespace {

float g_scale = 1.f;

/// Latin-1, Greek, general punctuation (…, ′), super- and subscripts (⁻³), letterlike symbols,
/// arrows and mathematical operators (±, ≤, √, ∞).
const ImWchar kRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2010, 0x205E, 0x2070, 0x209F,
                           0x2100, 0x214F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0};

}  // namespace

std::string ui_font_path() {
  // A file that does not exist is passed over, since ImGui asserts on a font file it cannot read.
  std::error_code ec;
  if (const char* env = std::getenv("SIMSCOPE_FONT");
      env && *env && std::filesystem::is_regular_file(env, ec))
    return env;
  for (const char* p :
       {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf"})
    if (std::filesystem::exists(p, ec)) return p;
  return "";
}

float ui_scale() { return g_scale; }

float choose_ui_scale(float content_scale) {
  if (const char* file = std::getenv("SIMSCOPE_UI_SCALE_FILE"); file && *file) {
    if (std::FILE* f = std::fopen(file, "r")) {
      float v = 0;
      const bool ok = std::fscanf(f, "%f", &v) == 1;
      std::fclose(f);
      if (ok && v >= 0.5f && v <= 4.f) return v;
    }
  }
  if (const char* env = std::getenv("SIMSCOPE_UI_SCALE"); env && *env) {
    const float v = std::strtof(env, nullptr);
    if (v >= 0.5f && v <= 4.f) return v;
  }
  return content_scale > 0 ? content_scale : 1.f;
}

std::string bake_fonts(float scale, bool upload) {
  g_scale = scale;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  io.FontGlobalScale = 1.f;
  const std::string path = ui_font_path();
  const float px = std::round(13.f * scale);  // ImGui's own size: the layout keeps its metrics
  std::string note;
  ImFont* font = nullptr;
  if (!path.empty()) {
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.PixelSnapH = true;
    font = io.Fonts->AddFontFromFileTTF(path.c_str(), px, &cfg, kRanges);
    char buf[256];
    std::snprintf(buf, sizeof buf, "UI font %s at %.0f px (scale %.2g)", path.c_str(), px, scale);
    note = buf;
  }
  if (!font) {  // ImGui's 13 px bitmap font at a whole multiple: no blur
    ImFontConfig cfg;
    cfg.SizePixels = 13.f * std::max(1.f, std::round(scale));
    io.Fonts->AddFontDefault(&cfg);
    note = "UI font: no TTF found (install fonts-dejavu-core), the bitmap font at " +
           std::to_string(int(cfg.SizePixels)) + " px";
  }
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  ImGui::StyleColorsDark(&style);
  style.ScaleAllSizes(scale);
  if (upload) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  return note;
}

}  // namespace simscope::app::gui
