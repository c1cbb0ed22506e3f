// The source tree's memory layout (issue 12: <= 48 bytes per source beyond the input): which
// cells keep multipoles and in which precision, that they are the cells' own (a fp64 P2M of
// their sources), and the bytes() count the bench reports.
#include <cstdio>

#include "field/tree/expansions.hpp"
#include "field/tree/source_tree.hpp"
#include "test_field_util.hpp"

namespace simscope::field::tree {
namespace {

TEST(FieldTreeLayout, MultipolesPerCellAndPrecision) {
  const Sources s = generate_sources("gaussian", 30000, 750, 4);
  SourceTree t = build_source_tree(s);
  for (int p : {7, 11}) {
    compute_moments(t, p);
    // A multipole only for cells of more than terms(p) x (bytes per term) / 24 sources, and
    // more than 8: order 7 in fp32 20, order 11 (fp64 storage) 121.
    EXPECT_EQ(t.few, p == 7 ? 20u : 121u);
    const std::size_t N = std::size_t(terms(p)), C = t.oct.cells.size();
    EXPECT_EQ(t.single(), p <= kSingleMomentsOrder);
    std::size_t rows = 0, few = 0;
    std::vector<double> scratch(2 * N), ref(N);
    double worst = 0;
    for (std::size_t c = 0; c < C; ++c) {
      const Cell& cell = t.oct.cells[c];
      if (cell.count() <= t.few) {
        EXPECT_EQ(t.slot[c], kNoMoment) << c;
        ++few;
        continue;
      }
      ASSERT_EQ(t.slot[c], rows++) << c;
      // The stored multipole equals a fp64 P2M of the cell's sources (fp32 rounding at most).
      std::fill(ref.begin(), ref.end(), 0.0);
      p2m(multi_index(p), cell.centre, t.x.data() + cell.begin, t.y.data() + cell.begin,
          t.z.data() + cell.begin, t.q.data() + cell.begin, int(cell.count()), ref.data());
      // Relative to each term's bound sum |q| r^|k| / k! (r: the cell's radius): M2M of the
      // children and P2M of the whole cell agree to rounding of that size.
      const double* M = t.moment(c, scratch.data());
      const MultiIndex& mi = multi_index(p);
      double qa = 0;
      for (std::uint32_t j = cell.begin; j < cell.end; ++j) qa += std::fabs(double(t.q[j]));
      for (std::size_t k = 0; k < N; ++k) {
        double f = 1;
        for (int a : {mi.kx[k], mi.ky[k], mi.kz[k]})
          for (int b = 2; b <= a; ++b) f *= b;
        const double bound = qa * std::pow(cell.radius, mi.degree[k]) / f;
        worst = std::max(worst, std::fabs(M[k] - ref[k]) / bound);
      }
    }
    EXPECT_GT(few, 0u);  // the Gaussian's outskirts have cells of few sources
    EXPECT_LT(worst, p <= kSingleMomentsOrder ? 1e-6 : 1e-9) << p;
    const double bytes = double(t.size) * 16 + double(C) * (sizeof(Cell) + 4 + 4) +
                         double(rows * N) * (t.single() ? 4 : 8);
    EXPECT_EQ(t.bytes(), bytes);
    EXPECT_EQ(t.single() ? t.moments32.size() : t.moments.size(), rows * N);
    EXPECT_TRUE(t.single() ? t.moments.empty() : t.moments32.empty());
  }
}

// The tree's memory stays within 48 bytes per source beyond the input's 16 at the orders the
// tolerances >= 1e-6 and their ladder use, in fp32 and fp64 storage, on the distributions of
// the tests and on uniform sets whose leaves sit just above the counts that keep a multipole
// (37 per leaf: order 9 fp32; 21: order 7 fp32; 74 per level-3 cell: order 9 fp64).
TEST(FieldTreeLayout, AtMost48BytesPerSource) {
  struct Case {
    const char* distribution;
    std::size_t n;
  };
  for (const Case& c : {Case{"uniform", 37 * 4096}, Case{"uniform", 21 * 4096},
                        Case{"uniform", 41 * 4096}, Case{"uniform", 74 * 512},
                        Case{"gaussian", 100000}, Case{"dipoles", 100000},
                        Case{"lattice", 100000}}) {
    const Sources s = generate_sources(c.distribution, c.n, 750, 7);
    SourceTree t = build_source_tree(s);
    double worst = 0;
    int worst_p = 0;
    bool worst_fp64 = false;
    for (int p : {3, 5, 7, 9, 11, 13})
      for (bool fp64 : {false, true}) {
        compute_moments(t, p, fp64);
        const double per_source = t.bytes() / double(c.n);
        EXPECT_LE(per_source, 48.0)
            << c.distribution << " " << c.n << " sources, order " << p << (fp64 ? " fp64" : " fp32");
        if (per_source > worst) worst = per_source, worst_p = p, worst_fp64 = fp64;
      }
    std::printf("[ info ] %-8s %6zu sources: at most %.1f bytes per source (order %d, %s)\n",
                c.distribution, c.n, worst, worst_p, worst_fp64 ? "fp64" : "fp32");
  }
}

}  // namespace
}  // namespace simscope::field::tree
