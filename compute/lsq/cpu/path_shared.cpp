// The shared path: lanes without gaps take x = op b with the shared SVD's operator.
#include "core/isa.hpp"
#include "lsq/cpu/lane_group.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN
namespace {

template <class T, int V>
class SharedPath final : public Path<T, V> {
 public:
  using VD = typename LaneGroup<T, V>::VD;

  explicit SharedPath(const Problem<T>&) {}

  Kind kind() const override { return kShared; }

  void solve(LaneGroup<T, V>& g) override {
    g.op_times_b(g.pb.op8.data(), [&](int k, const VD& c) {
      for (int v = 0; v < V; ++v)
        if (g.kind[v] == kShared) g.x[std::size_t(k) * V + v] = c[v];
    });
  }
};

}  // namespace

SIMSCOPE_LSQ_CPU_PATH(make_shared_path, SharedPath)

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
