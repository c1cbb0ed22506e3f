// The target tree shared by the tree method's back ends (tree_internal.hpp: TargetTree).
#include "field/tree/tree_internal.hpp"

namespace simscope::field::tree {

TargetTree build_target_tree(const Targets& t, const IndexRange& r, int leaf_size) {
  TargetTree tt;
  tt.tree = build_octree(t.x.data(), t.y.data(), t.z.data(), t.size(), leaf_size);
  tt.range = r;
  tt.prefix.assign(t.size() + 1, 0);
  for (std::size_t i = 0; i < t.size(); ++i)
    tt.prefix[i + 1] = tt.prefix[i] + (tt.target_in(std::uint32_t(i)) ? 1 : 0);
  return tt;
}

}  // namespace simscope::field::tree
