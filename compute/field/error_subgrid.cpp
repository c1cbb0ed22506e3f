// The tree method's error view: its output's spec and the coarse subgrid of a plane or box where
// it is measured (field.hpp: error_output, error_subgrid).
#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "field/field.hpp"

namespace simscope::field {

const io::OutputSpec& error_output() {
  static const io::OutputSpec spec{"error", "|E| rel. error (tree vs fp64 direct)", ""};
  return spec;
}

ErrorSubgrid error_subgrid(const Grid& grid, int m, std::size_t sources) {
  if (m < 0) throw Error("field: tree.error_grid must be >= 0, got " + std::to_string(m));
  const int n = grid.size;
  if (m == 0) {
    const double P = double(std::max<std::size_t>(sources, 1));
    m = int(std::clamp(std::floor(std::sqrt(3e7 / P)), 3.0, 32.0));
  }
  m = std::clamp(m, 1, std::max(n, 1));
  ErrorSubgrid g;
  g.m = m;
  for (int k = 0; k < m; ++k)
    g.index.push_back(m == 1 ? (n - 1) / 2
                             : int(std::lround(double(k) * double(n - 1) / double(m - 1))));
  const int faces = grid.kind == PlaneKind::Box ? 6 : 1;
  const std::size_t nn = std::size_t(n) * std::size_t(n);
  for (int f = 0; f < faces; ++f)
    for (int a : g.index)
      for (int b : g.index) g.targets.push_back(std::size_t(f) * nn + std::size_t(a) * n + b);
  return g;
}

}  // namespace simscope::field
