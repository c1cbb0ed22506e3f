#include "view_settings.hpp"

#include "core/error.hpp"

namespace simscope::app {

render::ViewSettings to_render_settings(const ParamSet& view, const ViewImage& image,
                                        bool use_hints) {
  render::ViewSettings s;
  s.colormap = view.get_string("view.colormap");
  s.log_scale = view.get_string("view.scale") == "log";
  s.auto_range = view.get_string("view.range") == "auto";
  s.min = view.get_double("view.min");
  s.max = view.get_double("view.max");
  s.colorbar = view.get_bool("view.colorbar");
  s.label = image.label;
  s.unit = image.unit;
  s.annotations = image.annotations;
  // The workload's choice for this image while the user has not picked another.
  if (s.auto_range && image.range_lo < image.range_hi) {
    s.auto_range = false;
    s.min = image.range_lo;
    s.max = image.range_hi;
  }
  if (use_hints) {
    const Schema& vs = view.schema();
    if (!image.colormap.empty() &&
        view.get("view.colormap") == vs.at("view.colormap").default_value)
      s.colormap = image.colormap;
    if (!image.scale.empty() && view.get("view.scale") == vs.at("view.scale").default_value)
      s.log_scale = image.scale == "log";
  }
  // The user's locked range on a log scale (the plane view refuses it in its own words).
  if (s.log_scale && view.get_string("view.range") == "locked" && !(s.min > 0))
    throw Error("view.range=locked on a log scale needs view.min > 0, got view.min = " +
                format_value(view.get("view.min")) +
                " (use view.scale=linear for a range "
                "through 0)");
  return s;
}

}  // namespace simscope::app

namespace simscope::app {

bool apply_view_hints(ParamSet& view, const ViewImage& image) {
  bool changed = false;
  if (!image.colormap.empty() && view.get_string("view.colormap") != image.colormap) {
    view.set("view.colormap", image.colormap);
    changed = true;
  }
  if (!image.scale.empty() && view.get_string("view.scale") != image.scale) {
    view.set("view.scale", image.scale);
    changed = true;
  }
  return changed;
}

}  // namespace simscope::app
