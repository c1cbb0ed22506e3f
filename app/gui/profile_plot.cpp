// The line profile's plot (axes with render/'s ticks, the curve, the value under the cursor)
// and its CSV.
#include <filesystem>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "explore.hpp"
#include "file_names.hpp"
#include "gui_state.hpp"
#include "xy_plot.hpp"

namespace simscope::app::gui {

void update_profile(GuiState& s) {
  ExploreState& e = s.explore;
  const PlaneSamples* ps = explore_samples(s);
  if (!ps || !e.have_line) {
    e.profile.reset();
    return;
  }
  if (e.profile && e.profile_serial == s.result_serial) return;
  const auto clampi = [&](double f) { return std::clamp(f, 0.0, double(ps->rows - 1)); };
  const auto clampj = [&](double f) { return std::clamp(f, 0.0, double(ps->cols - 1)); };
  try {
    e.profile = line_profile(*ps, clampi(ps->fi_of(e.u0)), clampj(ps->fj_of(e.v0)),
                             clampi(ps->fi_of(e.u1)), clampj(ps->fj_of(e.v1)));
  } catch (const std::exception&) {
    e.profile.reset();
  }
  e.shown_column = shown_column_name(*s.result, s.worker->workload().view_param(),
                                     s.params.get_string(s.worker->workload().view_param()));
  if (ps->column(e.shown_column) < 0 && !ps->columns.empty())
    e.shown_column = ps->columns.front().name;
  e.profile_serial = s.result_serial;
}

void save_profile_csv(GuiState& s) {
  update_profile(s);
  if (!s.explore.profile) {
    action_failed(s, "no line profile to save: shift-drag a line across the plane first");
    return;
  }
  const std::string path = unused_name("simscope-profile-" + local_timestamp(), ".csv");
  try {
    write_profile_csv(path, *s.explore.profile);
    action_done(s, "saved profile " + path);
  } catch (const std::exception& e) {
    action_failed(s, e.what());
  }
}

void draw_profile_plot(const Profile& p, int column, const std::string& y_title, float scale) {
  (void)scale;
  std::vector<double> d, v;
  d.reserve(p.rows.size()), v.reserve(p.rows.size());
  for (const auto& r : p.rows) d.push_back(r[0]), v.push_back(r[std::size_t(column)]);
  XyPlotOptions o;
  o.x_title = "distance along the line";
  o.y_title = y_title;
  o.hover_text = [&](std::size_t k) {
    const auto& r = p.rows[k];
    std::string coords;
    for (int c = 1; c < p.first_value_column; ++c) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s%s=%.5g", c > 1 ? " " : "",
                    p.header[std::size_t(c)].c_str(), r[std::size_t(c)]);
      coords += buf;
    }
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s = %.6g\ndistance %.5g  %s",
                  p.header[std::size_t(column)].c_str(), r[std::size_t(column)], r[0],
                  coords.c_str());
    return std::string(buf);
  };
  draw_xy_plot("##profile_plot", d, v, o);
}

}  // namespace simscope::app::gui
