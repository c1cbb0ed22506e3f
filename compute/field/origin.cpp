// The local origin of a field evaluation (field_internal.hpp: local_origin).
//
// One origin per evaluation, not per target tile. A tile is a run of consecutive target
// indices, a strip of rows across the whole plane, so its bounding box is nearly as wide as the
// plane's; a per-tile origin would gain little and make every back end shift each source tile
// once per origin. Sources are shifted where they are read: per tile of 1024 on the CPU, while
// filling shared memory on CUDA. So the shift needs no second copy and never re-uploads.
#include <algorithm>
#include <cmath>

#include "field/field_internal.hpp"

namespace simscope::field::detail {

Origin local_origin(const Targets& t, Precision precision) {
  if (precision != Precision::Fp32 || t.size() == 0) return Origin{};
  const std::vector<double>* axes[3] = {&t.x, &t.y, &t.z};
  double lo[3], hi[3];
  for (int c = 0; c < 3; ++c) {
    const auto [l, h] = std::minmax_element(axes[c]->begin(), axes[c]->end());
    lo[c] = *l, hi[c] = *h;
  }
  return local_origin(lo, hi, t.size(), precision);
}

Origin local_origin(const double lo[3], const double hi[3], std::size_t count,
                    Precision precision) {
  Origin o;
  if (precision != Precision::Fp32 || count == 0) return o;
  double centre[3], half[3];
  for (int c = 0; c < 3; ++c) {
    centre[c] = 0.5 * lo[c] + 0.5 * hi[c];  // no overflow near DBL_MAX
    half[c] = 0.5 * hi[c] - 0.5 * lo[c];
  }
  const double R = std::max({half[0], half[1], half[2]});
  double* out[3] = {&o.x, &o.y, &o.z};
  for (int c = 0; c < 3; ++c)
    if (std::isfinite(centre[c]) && std::isfinite(R) && std::fabs(centre[c]) > 2 * R)
      *out[c] = centre[c];
  return o;
}

}  // namespace simscope::field::detail
