// The tree method's rules (field.hpp: tree_rule, auto_direct_pairs, resolve_method).
#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "field/field.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field {

TreeRule tree_rule(double tolerance) {
  if (!(tolerance >= 1e-7 && tolerance <= 1e-3))
    throw Error("field: tree.tolerance must be in [1e-7, 1e-3], got " + std::to_string(tolerance));
  // Calibrated (tests/bench/NOTES.md "field tree"): a fixed opening angle and the order that
  // keeps the RMS error of E below the tolerance on the hardest measured distribution.
  TreeRule r;
  r.theta = 0.5;
  const double digits = -std::log10(tolerance);
  r.order = std::clamp(int(std::ceil(2 * digits - 3 - 1e-9)), 4, 16);
  return r;
}

namespace tree {
TreeRule refine(const TreeRule& rule, int rung) {
  TreeRule r = rule;
  for (int i = 0; i > rung; --i) r.theta = std::min(0.7, r.theta / 0.85);
  for (int i = 0; i < rung; ++i) {
    if (r.theta * 0.8 >= 0.3)
      r.theta *= 0.8;
    else
      r.order = std::min(16, r.order + 2);
  }
  return r;
}
}  // namespace tree

double auto_direct_pairs(Backend backend) { return backend == Backend::Cuda ? 1e11 : 1e9; }

Method resolve_method(Method method, Backend backend, std::size_t sources, std::size_t targets) {
  if (method != Method::Auto) return method;
  // On CUDA auto stays direct until a GPU run proves the CUDA tree against the CPU tree and
  // direct. Status: tests/bench/NOTES.md.
  if (backend == Backend::Cuda) return Method::Direct;
  return double(sources) * double(targets) <= auto_direct_pairs(backend) ? Method::Direct
                                                                         : Method::Tree;
}

}  // namespace simscope::field
