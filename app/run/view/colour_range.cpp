#include "colour_range.hpp"

#include <algorithm>
#include <cmath>

namespace simscope::app {

std::optional<double> percentile_of(std::vector<float>& values, double p) {
  if (values.empty()) return std::nullopt;
  const double pos = (double(values.size()) - 1) * std::clamp(p, 0.0, 100.0) / 100.0;
  const std::size_t k = std::size_t(std::floor(pos));
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(k), values.end());
  const double below = values[k];
  if (k + 1 >= values.size() || pos == double(k)) return below;
  // The next rank: the smallest value after the k-th, which nth_element left unordered there.
  const double above = *std::min_element(values.begin() + std::ptrdiff_t(k) + 1, values.end());
  return below + (pos - double(k)) * (above - below);
}

std::optional<std::pair<double, double>> colour_range(const std::vector<float>& values,
                                                      bool percentiles, bool log_scale,
                                                      bool symmetric) {
  std::vector<float> kept;
  kept.reserve(values.size());
  for (float v : values) {
    if (!std::isfinite(v) || (log_scale && !(v > 0))) continue;
    kept.push_back(symmetric ? std::fabs(v) : v);
  }
  if (kept.empty()) return std::nullopt;
  if (symmetric) {
    const double m = percentiles ? *percentile_of(kept, kRangeHighPercentile)
                                 : double(*std::max_element(kept.begin(), kept.end()));
    if (!(m > 0)) return std::pair{-1.0, 1.0};
    return std::pair{-m, m};
  }
  double lo, hi;
  if (percentiles) {
    hi = *percentile_of(kept, kRangeHighPercentile);
    lo = *percentile_of(kept, kRangeLowPercentile);
  } else {
    const auto [a, b] = std::minmax_element(kept.begin(), kept.end());
    lo = *a, hi = *b;
  }
  if (lo < hi) return std::pair{lo, hi};
  if (log_scale) return std::pair{lo / std::sqrt(10.0), lo * std::sqrt(10.0)};
  return std::pair{lo - 0.5, hi + 0.5};
}

}  // namespace simscope::app
