// The targets of a field run (field_targets.hpp).
#include "field/field_targets.hpp"

#include <algorithm>

#include "field/field_params.hpp"
#include "field/target_file.hpp"
#include "params/file_param.hpp"

namespace simscope::field {

bool scattered_targets(const ParamSet& p) { return !p.get_string("targets.file").empty(); }

TargetSet target_set(const ParamSet& p, bool preview) {
  return target_set(settings_from(p), preview);
}

std::vector<std::size_t> target_shape(const ParamSet& p) { return target_shape(settings_from(p)); }

TargetSet target_set(const Settings& s, bool preview) {
  TargetSet t;
  if (s.scattered()) {
    t.targets = app::read_file_param("targets.file", [&] { return load_targets(s.targets_file); });
    t.shape = {t.targets.size()};
    return t;
  }
  Grid g = s.grid;
  if (preview) g.size = std::max(16, std::min(g.size, g.size / 4));
  t.targets = make_targets(g);
  t.shape = grid_shape(g);
  t.grid = g;
  return t;
}

std::vector<std::size_t> target_shape(const Settings& s) {
  if (s.scattered())
    return {app::read_file_param("targets.file",
                                 [&] { return target_file_count(s.targets_file); })};
  return grid_shape(s.grid);
}

}  // namespace simscope::field
