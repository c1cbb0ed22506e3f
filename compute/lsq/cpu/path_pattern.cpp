// The pattern path: lanes whose observed rows are a shared pattern's (pattern.hpp) take
// x = op b with that pattern's operator, one product per distinct pattern in the group.
#include "core/isa.hpp"
#include "lsq/cpu/lane_group.hpp"
#include "lsq/cpu/pattern.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN
namespace {

template <class T, int V>
class PatternPath final : public Path<T, V> {
 public:
  using VD = typename LaneGroup<T, V>::VD;

  explicit PatternPath(const Problem<T>&) {}

  Kind kind() const override { return kPattern; }

  void solve(LaneGroup<T, V>& g) override {
    bool done[V] = {};
    for (int u = 0; u < V; ++u) {
      if (g.kind[u] != kPattern || done[u]) continue;
      const Pattern* p = g.pattern[u];
      for (int v = u; v < V; ++v) done[v] = done[v] || (g.kind[v] == kPattern && g.pattern[v] == p);
      g.op_times_b(p->op8.data(), [&](int k, const VD& c) {
        for (int v = 0; v < V; ++v)
          if (g.kind[v] == kPattern && g.pattern[v] == p) g.x[std::size_t(k) * V + v] = c[v];
      });
    }
  }
};

}  // namespace

SIMSCOPE_LSQ_CPU_PATH(make_pattern_path, PatternPath)

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
