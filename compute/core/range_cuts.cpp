#include "core/range_cuts.hpp"

#include "core/error.hpp"

namespace simscope {

std::vector<IndexRange> split_at_cuts(const std::vector<std::size_t>& cuts, std::size_t parts) {
  if (parts == 0) throw Error("split_at_cuts: the number of parts must be at least 1");
  if (cuts.empty() || cuts.front() != 0) throw Error("split_at_cuts: the cuts must start at 0");
  for (std::size_t c = 1; c < cuts.size(); ++c)
    if (cuts[c] <= cuts[c - 1]) throw Error("split_at_cuts: the cuts must increase");
  const std::size_t n = cuts.back();
  std::vector<IndexRange> out;
  std::size_t prev = 0, c = 0;
  for (std::size_t k = 0; k < parts; ++k) {
    std::size_t end = n;
    if (k + 1 < parts) {
      const double target = double(k + 1) * double(n) / double(parts);
      const auto dist = [&](std::size_t i) {
        const double d = double(cuts[i]) - target;
        return d < 0 ? -d : d;
      };
      while (c + 1 < cuts.size() && dist(c + 1) < dist(c)) ++c;
      end = cuts[c] > prev ? cuts[c] : prev;
    }
    out.push_back({prev, end});
    prev = end;
  }
  return out;
}

}  // namespace simscope
