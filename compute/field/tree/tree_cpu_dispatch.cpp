// The dispatch point of the tree method's CPU kernels (multipoles, traversal, M2L, P2P, L2P): the active
// instruction-set level's (core/isa.hpp), each compiled from
// moments_cpu.cpp, tree_cpu.cpp and expansions.cpp.
#include "core/isa.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field::tree {

SIMSCOPE_ISA_DECLARE(void tree_evaluate(const SourceTree& s, const Targets& t,
                                        const IndexRange& r, const Options& o,
                                        const TreeRule& rule, std::vector<double>& acc,
                                        TreeStats& stats, std::uint64_t& skipped,
                                        Progress* progress, TreeWorkspace* workspace))
SIMSCOPE_ISA_DECLARE(void direct_fp64(const SourceTree& s, const double* x, const double* y,
                                      const double* z, std::size_t n, double eps2, double* acc))
SIMSCOPE_ISA_DECLARE(void moment_rows(SourceTree& t, bool single))
SIMSCOPE_ISA_DECLARE(void leaf_row(SourceTree& t, std::size_t cell))

void leaf_row(SourceTree& t, std::size_t cell) {
  SIMSCOPE_ISA_DISPATCH("tree method's multipoles", leaf_row(t, cell));
}

void moment_rows(SourceTree& t, bool single) {
  SIMSCOPE_ISA_DISPATCH("tree method's multipoles", moment_rows(t, single));
}

void tree_evaluate(const SourceTree& s, const Targets& t, const IndexRange& r, const Options& o,
                   const TreeRule& rule, std::vector<double>& acc, TreeStats& stats,
                   std::uint64_t& skipped, Progress* progress, TreeWorkspace* workspace) {
  SIMSCOPE_ISA_DISPATCH("tree method",
                        tree_evaluate(s, t, r, o, rule, acc, stats, skipped, progress, workspace));
}

void direct_fp64(const SourceTree& s, const double* x, const double* y, const double* z,
                 std::size_t n, double eps2, double* acc) {
  SIMSCOPE_ISA_DISPATCH("tree method's direct sums", direct_fp64(s, x, y, z, n, eps2, acc));
}

}  // namespace simscope::field::tree
