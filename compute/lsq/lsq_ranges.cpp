// Merging the results of row ranges (lsq.hpp: merge_row_ranges).
#include <algorithm>

#include "core/error.hpp"
#include "lsq/lsq.hpp"

namespace simscope::lsq {

Result merge_row_ranges(const std::vector<Result>& parts) {
  if (parts.empty()) throw Error("lsq: merge_row_ranges needs at least one part");
  const Result& first = parts.front();
  Result out;
  out.n = first.n;
  out.width = first.width;
  out.row_begin = first.row_begin;
  for (const Result& r : parts) {
    if (r.n != out.n || r.width != out.width)
      throw Error("lsq: merge_row_ranges: a part has " + std::to_string(r.n) + " unknowns and " +
                  std::to_string(r.width) + " columns, expected " + std::to_string(out.n) +
                  " and " + std::to_string(out.width));
    if (r.row_begin != out.row_begin + out.height)
      throw Error("lsq: merge_row_ranges: a part starts at row " + std::to_string(r.row_begin) +
                  ", expected " + std::to_string(out.row_begin + out.height) +
                  " (parts must be consecutive)");
    out.height += r.height;
  }
  const std::size_t P = out.pixels();
  // Float32 solutions (Options::float32_solution) merge into solution32.
  const bool f32 =
      std::any_of(parts.begin(), parts.end(), [](const Result& r) { return !r.solution32.empty(); });
  auto merge = [&](auto& dst, auto part) {
    dst.reserve(out.n * P);
    for (std::size_t k = 0; k < out.n; ++k)
      for (const Result& r : parts) {
        const auto& src = part(r);
        const auto from = src.begin() + std::ptrdiff_t(k * r.pixels());
        dst.insert(dst.end(), from, from + std::ptrdiff_t(r.pixels()));
      }
  };
  if (f32)
    merge(out.solution32, [](const Result& r) -> const BigVector<float>& { return r.solution32; });
  else
    merge(out.solution, [](const Result& r) -> const BigVector<double>& { return r.solution; });
  out.host_inf_counted = true;
  for (const Result& r : parts) {
    out.residual.insert(out.residual.end(), r.residual.begin(), r.residual.end());
    out.count.insert(out.count.end(), r.count.begin(), r.count.end());
    out.status.insert(out.status.end(), r.status.begin(), r.status.end());
    out.condition.insert(out.condition.end(), r.condition.begin(), r.condition.end());
    for (std::size_t s = 0; s < out.status_counts.size(); ++s)
      out.status_counts[s] += r.status_counts[s];
    out.fallback_pixels += r.fallback_pixels;
    out.shared_pixels += r.shared_pixels;
    out.downdate_pixels += r.downdate_pixels;
    out.minnorm_pixels += r.minnorm_pixels;
    out.pattern_pixels += r.pattern_pixels;
    out.host_pixels += r.host_pixels;
    out.shared_rank = std::max(out.shared_rank, r.shared_rank);
    out.host_inf_counted = out.host_inf_counted && r.host_inf_counted;
    for (int k = 0; k < 2; ++k) out.host_inf[std::size_t(k)] += r.host_inf[std::size_t(k)];
    out.seconds += r.seconds;
  }
  if (!out.host_inf_counted) out.host_inf = {};
  return out;
}

}  // namespace simscope::lsq
