// The status bar at the bottom of the window.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/bytes.hpp"
#include "gui_state.hpp"
#include "hover_tip.hpp"
#include "job/projection.hpp"
#include "view_upload.hpp"
#include "visible_wrap.hpp"

namespace simscope::app::gui {

bool progress_shown(const GuiState& s) {
  // Work that takes a while. Live workloads run many short jobs, which must not flicker.
  return s.worker && s.worker->busy() && s.worker->elapsed_seconds() > 0.25;
}

namespace {
/// The log scale's note applies: the centre shows the plane on a log scale over values <= 0.
bool log_note_shown(const GuiState& s) {
  return !s.log_note.empty() && s.plane && s.plane->settings().log_scale && s.worker &&
         s.worker->workload().view_kind(s.params) == ViewKind::Plane;
}
}  // namespace

std::string status_line(const GuiState& s) {
  if (!s.error.empty()) return "error: " + s.error;
  if (!s.info.empty()) return s.info;
  if (s.result && !s.result->warnings.empty()) return "warning: " + s.result->warnings.front();
  if (log_note_shown(s)) return "warning: " + s.log_note;
  return "";
}

std::string result_status(const GuiState& s) {
  if (!s.result) return "";
  const WorkloadDescriptor* d = find_workload_descriptor(s.result->workload);
  return d && d->status_text ? d->status_text(*s.result) : "";
}

std::string upload_status(const GuiState& s) {
  if (!s.worker) return "upload: none yet";
  const bool plane = s.worker->workload().view_kind(s.params) == ViewKind::Plane;
  const std::string path = plane ? (s.plane ? s.plane->upload_path() : "")
                                 : (s.extras ? s.extras->upload_path() : "");
  std::string t = "upload: " + upload_path_words(path);
  if (plane && s.result) t += " (" + outputs_location(*s.result) + ")";
  return t;
}

void action_failed(GuiState& s, const std::string& message) {
  s.error = message;
  s.action_error = message;
  std::fprintf(stderr, "simscope: error: %s\n", message.c_str());
}

void action_done(GuiState& s, const std::string& message) {
  if (!s.action_error.empty() && s.error == s.action_error) s.error.clear();
  s.action_error.clear();
  s.info = message;
  std::fprintf(stderr, "simscope: %s\n", message.c_str());
}

void draw_status_bar(GuiState& s, float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
  ImGui::Begin("##status", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  const CudaStatus& cs = cuda_status();
  const bool cuda = s.backend.backend == Backend::Cuda;
  ImGui::Text("%s%s", cuda ? ("CUDA: " + cs.device).c_str() : cpu_device_name().c_str(),
              s.paused ? "  [paused]" : "");
  if (hover_tip_due()) wrapped_tooltip(s.backend.notice.c_str());
  // The workload's note on the result, e.g. lsq's method that ran on the host under CUDA.
  if (const std::string note = s.result && s.worker ? s.worker->workload().status_note(*s.result) : ""; !note.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("|");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1.f, 0.8f, 0.3f, 1.f), "%s", note.c_str());
  }
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  ImGui::Text("%s", upload_status(s).c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  if (s.result && s.result_preview_seconds > 0 && !s.result->preview)  // and its preview's
    ImGui::Text("compute %.1f ms + preview %.1f ms", s.result->compute_seconds * 1e3,
                s.result_preview_seconds * 1e3);
  else if (s.result)
    ImGui::Text("compute %.1f ms%s", s.result->compute_seconds * 1e3,
                s.result->preview ? " (preview)" : "");
  else
    ImGui::Text("compute -");
  if (const std::string t = result_status(s); !t.empty()) {  // e.g. the field's tree method
    ImGui::SameLine();
    ImGui::Text("(%s)", t.c_str());
  }
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::SameLine();
  ImGui::Text("%.0f FPS", ImGui::GetIO().Framerate);
  if (cuda) {
    ImGui::SameLine();
    ImGui::TextDisabled("|");
    ImGui::SameLine();
    ImGui::Text("device mem %s", format_bytes(cuda_memory_used_bytes()).c_str());
  }
  if (progress_shown(s)) {
    ImGui::SameLine();
    ImGui::TextDisabled("|");
    ImGui::SameLine();
    const double f = s.worker->progress(), t = s.worker->elapsed_seconds();
    char overlay[64];
    if (const auto eta = eta_from_start(f, t))
      std::snprintf(overlay, sizeof overlay, "%.0f%%  ETA %.1f s", 100 * f, *eta);
    else
      std::snprintf(overlay, sizeof overlay, "working %.1f s", t);
    ImGui::ProgressBar(float(f), ImVec2(200, 0), overlay);
    ImGui::SameLine();
    if (ImGui::SmallButton("cancel")) s.worker->cancel();
  }
  const std::string view_param = s.worker ? s.worker->workload().view_param() : "view";
  if (s.result && s.worker && !s.worker->busy() && s.error.empty()) {
    ParamSet shown = s.result->params, wanted = s.params;
    shown.set(view_param, wanted.get(view_param));
    if (shown != wanted)
      ImGui::TextColored(ImVec4(1.f, 0.8f, 0.3f, 1.f),
                         "shown: the result of earlier parameters (the newer run was cancelled%s)",
                         s.paused ? " or paused" : "");
  }
  if (!s.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.45f, 0.4f, 1.f));
    SIMSCOPE_TEXT_WRAPPED("error: %s", s.error.c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine();
    if (ImGui::SmallButton("dismiss")) s.error.clear();
  } else if (!s.info.empty()) {
    ImGui::TextDisabled("%s", s.info.c_str());
  } else if (s.result && !s.result->warnings.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.8f, 0.3f, 1.f));
    SIMSCOPE_TEXT_WRAPPED("warning: %s", s.result->warnings.front().c_str());
    ImGui::PopStyleColor();
  } else if (log_note_shown(s)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.8f, 0.3f, 1.f));
    SIMSCOPE_TEXT_WRAPPED("warning: %s", s.log_note.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::End();
}

namespace {
/// The help's line of the switcher's keys, one per registered workload:
/// "  1 2 3     switch workload (field, lsq, oscillators)".
std::string switch_keys_line() {
  std::string keys, names;
  const std::vector<std::string>& all = workload_names();
  for (std::size_t k = 0; k < all.size() && k < 9; ++k) {
    if (k) keys += ' ', names += ", ";
    keys += std::to_string(k + 1);
    names += all[k];
  }
  keys.resize(std::max<std::size_t>(keys.size() + 1, 10), ' ');
  return "  " + keys + "switch workload (" + names + ")\n";
}
}  // namespace

void draw_help(GuiState& s) {
  if (!s.show_help) return;
  if (ImGui::Begin("Help", &s.show_help, ImGuiWindowFlags_AlwaysAutoResize)) {
    static const std::string text =
        "Keys\n"
        "  Space     pause / run (no recomputation while paused)\n"
        "  S         screenshot of the window (PNG)\n"
        "  E         export the data (.npy + run.json + view.png)\n"
        "  R         reset the view: percentile range (view.range's default), no zoom\n"
        "  H         hide / show the panels\n" +
        switch_keys_line() +
        "  Ctrl+O    load a preset     Ctrl+S  save a preset\n"
        "  Ctrl+Z    undo a parameter change   Ctrl+Shift+Z / Ctrl+Y  redo\n"
        "  A         pin this result as A      D  compare: B, A, B - A, (B - A) / |A|\n"
        "  I         the view as an image at any size\n"
        "  P         save the line profile as CSV\n"
        "  F1        this help (Esc closes it)\n"
        "  Ctrl+Q    quit           Esc  quit (outside text fields, popups and this help)\n"
        "\n"
        "Mouse: hover the plane for the value and coordinates under the cursor;\n"
        "left-click probes every output at that sample (lsq: the pixel inspector),\n"
        "Shift+drag draws a line profile; wheel zooms about the cursor, right-drag pans.\n"
        "Drop a .npy/.csv, edge list, preset or run.json onto the window to load it.\n"
        "The R button beside a parameter resets it to its default; a number field\n"
        "without a slider changes by dragging (Ctrl+click types a value).";
    ImGui::TextUnformatted(text.c_str());
  }
  ImGui::End();
}

}  // namespace simscope::app::gui
