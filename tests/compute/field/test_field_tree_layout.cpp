// The source tree's memory layout (issue 12: <= 48 bytes per source beyond the input): which
// cells keep multipoles and in which precision, that they are the cells' own (a fp64 P2M of
// their sources), and the bytes() count the bench reports.
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
    // A multipole only where the sources outweigh it: terms(p) / 4 sources, at least 8.
    EXPECT_EQ(t.few, std::max<std::uint32_t>(8, std::uint32_t(terms(p)) / 4));
    const std::size_t N = std::size_t(terms(p)), C = t.oct.cells.size();
    EXPECT_EQ(t.single(), p <= kSingleMomentsOrder);
    std::size_t rows = 0, few = 0;
    std::vector<double> scratch(N), ref(N);
    double worst = 0;
    for (std::size_t c = 0; c < C; ++c) {
      const Cell& cell = t.oct.cells[c];
      if (cell.count() <= few_sources(p)) {
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

}  // namespace
}  // namespace simscope::field::tree
