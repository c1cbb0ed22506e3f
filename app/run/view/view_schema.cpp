#include "view/view_schema.hpp"

#include "core/error.hpp"

namespace simscope::app {

const Schema& view_schema() {
  // view.min / view.max given with a range from the data: a warning (Schema::unused_warnings).
  static const char* const kWhy =
      "view.min and view.max apply only with the locked range, view.range=locked";
  static const std::vector<UseRule> rules = {
      {{{"view.range", ParamCondition::Op::Equals, "percentile"}}, {"view.min", "view.max"}, kWhy},
      {{{"view.range", ParamCondition::Op::Equals, "minmax"}}, {"view.min", "view.max"}, kWhy}};
  static const Schema schema(
      "view",
      {
          {"view.colormap", ParamType::Enum, std::string("viridis"), 1, 0,
           {"viridis", "inferno", "magma", "plasma", "turbo", "coolwarm", "gray", "twilight"}, "",
           "Colormap of the plane view (twilight is cyclic, coolwarm diverging)."},
          {"view.scale", ParamType::Enum, std::string("log"), 1, 0, {"linear", "log"}, "",
           "Linear or log10 colour scale; with log, values <= 0 show in the lowest colour."},
          {"view.range", ParamType::Enum, std::string("percentile"), 1, 0,
           {"percentile", "minmax", "locked"}, "",
           "percentile: the 0.5th..99.5th percentile of the finite values, so a few extreme "
           "values (a source beside the plane) do not flatten the picture; minmax: their min "
           "and max; locked: view.min..view.max. Signed outputs under a diverging colormap "
           "stay centred on 0: -m..m, m the 99.5th percentile (or the max) of |value|."},
          {"view.min", ParamType::Float, 0.0, -1e300, 1e300, {}, "",
           "Lower end of the locked range (data units)."},
          {"view.max", ParamType::Float, 1.0, -1e300, 1e300, {}, "",
           "Upper end of the locked range (data units)."},
          {"view.colorbar", ParamType::Bool, true, 1, 0, {}, "", "Draw the colorbar."},
      },
      rules);
  return schema;
}

void check_view_params(const ParamSet& view) {
  if (view.get_string("view.range") != "locked") return;
  const double lo = view.get_double("view.min"), hi = view.get_double("view.max");
  if (lo < hi) return;
  throw Error("view.range=locked needs view.min < view.max, got view.min = " +
              format_value(view.get("view.min")) +
              " and view.max = " + format_value(view.get("view.max")));
}

}  // namespace simscope::app
