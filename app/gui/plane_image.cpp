// The plane view's image (plane_image.hpp).
#include "plane_image.hpp"

#include <algorithm>
#include <cmath>

#include "gui_state.hpp"
#include "view_settings.hpp"
#include "view_upload.hpp"

namespace simscope::app::gui {
namespace {

/// The view panel's histogram of the shown image: 64 bins over the view's range, on its scale.
void compute_histogram(GuiState& s) {
  s.histogram.assign(64, 0.f);
  if (!s.plane) return;
  auto [lo, hi] = s.plane->range();
  const bool log = s.plane->settings().log_scale;  // the view's, or the image's own choice
  if (log) {
    lo = std::log10(std::max(lo, 1e-300));
    hi = std::log10(std::max(hi, 1e-300));
  }
  s.histogram_range = s.plane->range();
  // The histogram needs the values on the host: a device image is downloaded here, once.
  const std::vector<float>& values = s.image.data.host();
  s.log_note = log ? log_scale_warning(s.image.label, values) : "";
  if (!(hi > lo)) return;
  for (float v : values) {
    if (!std::isfinite(v) || (log && v <= 0)) continue;
    const double t = ((log ? std::log10(double(v)) : double(v)) - lo) / (hi - lo);
    const int b = std::clamp(int(t * 64), 0, 63);
    s.histogram[b] += 1;
  }
}

/// The output's colormap and scale (its own default: diverging for signed values, else
/// sequential) go into the view parameters on a newly chosen output (`key`), so the panel shows
/// what is drawn. A colormap the user chose sticks; a scale until the output changes.
void hint_view(GuiState& s, const ViewHints& hints, const std::string& key) {
  if (key == s.hinted_for) return;
  std::vector<std::string> keep = s.view_given;  // --set view.*: for the first image
  if (s.colormap_chosen) keep.push_back("view.colormap");
  apply_view_hints(s.view, hints, keep);
  s.view_given.clear();
  s.hinted_for = key;
}

}  // namespace

void hint_view_before_result(GuiState& s) {
  const Workload& w = s.worker->workload();
  const std::string& which = s.params.get_string(w.view_param());
  hint_view(s, w.view_hints(which), s.workload_name + "/" + which);
}

void refresh_image(GuiState& s) {
  s.image_dirty = false;
  if (!s.result) return;
  const std::string view_param = s.worker->workload().view_param();
  const std::string& which = s.params.get_string(view_param);
  try {
    s.image = s.worker->workload().view_image(*s.result, which);
    const std::string compared = apply_compare(s, which);  // A, B - A...: compare_panel.cpp
    hint_view(s, s.image.hints(), s.workload_name + "/" + which + compared);
    s.plane->set_settings(to_render_settings(s.view, s.image, false));
    // The image shares the result's values, device memory included, which the evaluator never
    // writes again while the result holds it. So it is safe to read while a job runs or after a
    // cancelled one. A comparison (compare_shown) is an image made on the host.
    upload_image(*s.plane, s.image);
    compute_histogram(s);
    s.view_message.clear();
  } catch (const std::exception& e) {
    // Nothing of the earlier image stays, since its colorbar would be a stray one: a message
    // instead.
    s.error = e.what();
    s.view_message = e.what();
    s.image = ViewImage{};
    s.histogram.clear();
    s.log_note.clear();
  }
}

}  // namespace simscope::app::gui
