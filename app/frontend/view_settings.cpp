#include "view_settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "view/colour_range.hpp"

namespace simscope::app {
namespace {

/// The workload's annotations of its image (run layer) as the plane view draws them.
render::PlaneAnnotations to_render(const ImageAnnotations& a) {
  render::PlaneAnnotations r;
  r.aspect = a.aspect == ImageAspect::Fill ? render::Aspect::Fill : render::Aspect::Square;
  auto title = [](const AxisTitle& t) {
    return render::AxisTitle{t.name, t.show_range, t.first, t.last};
  };
  r.axis_i = title(a.axis_i);
  r.axis_j = title(a.axis_j);
  for (const RegionLabel& g : a.regions) {
    render::RegionLabel l;
    l.u0 = g.u0, l.v0 = g.v0, l.u1 = g.u1, l.v1 = g.v1;
    l.texts = g.texts;
    r.regions.push_back(std::move(l));
  }
  return r;
}

}  // namespace

render::ViewSettings to_render_settings(const ParamSet& view, const ViewImage& image,
                                        bool use_hints, const std::vector<std::string>& given) {
  render::ViewSettings s;
  s.colormap = view.get_string("view.colormap");
  s.log_scale = view.get_string("view.scale") == "log";
  s.min = view.get_double("view.min");
  s.max = view.get_double("view.max");
  s.colorbar = view.get_bool("view.colorbar");
  s.label = image.label;
  s.unit = image.unit;
  s.annotations = to_render(image.annotations);
  if (use_hints) {
    // A hint replaces a setting at its default that the user did not give.
    const Schema& vs = view.schema();
    auto hintable = [&](const std::string& name) {
      return view.get(name) == vs.at(name).default_value &&
             std::find(given.begin(), given.end(), name) == given.end();
    };
    if (!image.colormap.empty() && hintable("view.colormap")) s.colormap = image.colormap;
    if (!image.scale.empty() && hintable("view.scale")) s.log_scale = image.scale == "log";
  }
  // The workload's range for this image applies while the user has not locked one. A log scale the
  // user chose over a range through 0 keeps its own range of the positive values.
  const std::string mode = view.get_string("view.range");
  s.auto_range = mode != "locked";
  if (s.auto_range && image.range_lo < image.range_hi && !image.symmetric &&
      (!s.log_scale || image.range_lo > 0)) {
    s.auto_range = false;
    s.min = image.range_lo;
    s.max = image.range_hi;
  } else if (s.auto_range) {
    // From the data (colour_range.hpp), here for the window, view.png and sweep frames alike.
    if (const auto r = colour_range(image.data.host(), mode == "percentile", s.log_scale,
                                    image.symmetric && !s.log_scale)) {
      s.auto_range = false;
      std::tie(s.min, s.max) = *r;
    }
  }
  // The user's locked range on a log scale; the plane view refuses it in its own words.
  if (s.log_scale && view.get_string("view.range") == "locked" && !(s.min > 0))
    throw Error("view.range=locked on a log scale needs view.min > 0, got view.min = " +
                format_value(view.get("view.min")) + " (use view.scale=linear for a range " +
                "through 0)");
  return s;
}

bool apply_view_hints(ParamSet& view, const ViewHints& hints,
                      const std::vector<std::string>& given) {
  auto is_given = [&](const char* name) {
    return std::find(given.begin(), given.end(), name) != given.end();
  };
  bool changed = false;
  // The image's hint, else the schema's default: each output its own colormap and scale.
  auto apply = [&](const char* name, const std::string& hint) {
    const std::string value =
        hint.empty() ? std::get<std::string>(view.schema().at(name).default_value) : hint;
    if (is_given(name) || view.get_string(name) == value) return;
    view.set(name, value);
    changed = true;
  };
  apply("view.colormap", hints.colormap);
  apply("view.scale", hints.scale);
  return changed;
}

std::string log_scale_warning(const std::string& label, const std::vector<float>& values) {
  std::size_t nonpositive = 0, finite = 0;
  for (float v : values) {
    if (!std::isfinite(v)) continue;
    ++finite;
    if (v <= 0) ++nonpositive;
  }
  if (nonpositive == 0) return "";
  char share[64];
  std::snprintf(share, sizeof share, "%zu of %zu values (%.3g %%)", nonpositive, finite,
                100.0 * double(nonpositive) / double(finite));
  return "view.scale=log, but " + std::string(share) + " of " + label +
         " are <= 0: they have no logarithm and are drawn in the lowest colour, as values below "
         "the range (the colours show the value, not its magnitude |v|, and the range spans the "
         "positive values only); use view.scale=linear for signed outputs";
}

}  // namespace simscope::app
