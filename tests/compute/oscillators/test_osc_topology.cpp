// Networks of the oscillators workload: generators (degrees, symmetry, no self-loops,
// reproducible from the seed), edge-list files (end to end and bad ones), layouts.
#include <algorithm>
#include <map>
#include <set>

#include "oscillators/topology.hpp"
#include "test_osc_util.hpp"

namespace simscope::oscillators {
namespace {

using test::error_of;
using test::write_text;

/// The generic invariants (validate()) plus: every member's edge count.
std::vector<std::size_t> edge_counts(const Topologies& t) {
  validate(t);
  std::vector<std::size_t> out;
  for (int k = 0; k < t.members; ++k) out.push_back(t.edges(k).size());
  return out;
}

TEST(OscTopology, RingDegreesAndNeighbours) {
  for (int k : {2, 4, 6}) {
    const Topologies t = ring(20, k, 7);
    EXPECT_TRUE(t.shared);
    EXPECT_EQ(t.graphs(), 1);
    EXPECT_EQ(edge_counts(t)[0], std::size_t(20 * k / 2));
    for (int i = 0; i < 20; ++i) {
      EXPECT_EQ(t.degree(3, i), double(k));
      std::set<int> nb;
      for (auto q = t.begin(3, i); q < t.end(3, i); ++q) nb.insert(t.col[std::size_t(q)]);
      for (int d = 1; d <= k / 2; ++d) {
        EXPECT_TRUE(nb.count((i + d) % 20)) << "node " << i << " +" << d;
        EXPECT_TRUE(nb.count((i + 20 - d) % 20)) << "node " << i << " -" << d;
      }
    }
  }
  EXPECT_NE(error_of([] { ring(10, 3, 1); }).find("network.k"), std::string::npos);
  EXPECT_NE(error_of([] { ring(10, 10, 1); }).find("network.nodes"), std::string::npos);
  EXPECT_NE(error_of([] { ring(10, 0, 1); }).find("network.k"), std::string::npos);
}

TEST(OscTopology, WattsStrogatzKeepsEdgeCountAndRewires) {
  const int N = 100, k = 4, K = 50;
  const Topologies t = watts_strogatz(N, k, 0.1, K, 7);
  EXPECT_FALSE(t.shared);
  const auto counts = edge_counts(t);  // symmetric, sorted, no self-loops, in range
  long rewired = 0;
  for (int m = 0; m < K; ++m) {
    EXPECT_EQ(counts[std::size_t(m)], std::size_t(N * k / 2)) << "member " << m;
    double deg = 0;
    for (int i = 0; i < N; ++i) deg += t.degree(m, i);
    EXPECT_DOUBLE_EQ(deg / N, double(k));
    for (const auto& [i, j] : t.edges(m)) {
      const int d = std::min(j - i, N - (j - i));
      if (d > k / 2) ++rewired;
    }
  }
  // About p * N k / 2 = 20 rewired edges per member (some land on lattice distances).
  const double per = double(rewired) / K;
  EXPECT_GT(per, 10);
  EXPECT_LT(per, 30);
  // p = 0 is the lattice, p = 1 rewires (almost) everything.
  const Topologies lattice = watts_strogatz(N, k, 0.0, 2, 7), r = ring(N, k, 2);
  EXPECT_EQ(lattice.edges(1), r.edges(0));
  EXPECT_NE(watts_strogatz(N, k, 1.0, 1, 7).edges(0), r.edges(0));
}

TEST(OscTopology, ErdosRenyiDensityAndExtremes) {
  const int N = 200, K = 20;
  const double p = 0.05;
  const Topologies t = erdos_renyi(N, p, K, 3);
  const auto counts = edge_counts(t);
  double mean = 0;
  for (auto c : counts) mean += double(c);
  mean /= K;
  const double expect = p * N * (N - 1) / 2;  // 995, sd ~31 per member, ~7 for the mean
  EXPECT_NEAR(mean, expect, 40);
  EXPECT_EQ(edge_counts(erdos_renyi(30, 0.0, 2, 1))[0], 0u);
  EXPECT_EQ(edge_counts(erdos_renyi(30, 1.0, 2, 1))[1], std::size_t(30 * 29 / 2));
  EXPECT_NE(error_of([] { erdos_renyi(10, 1.5, 1, 1); }).find("network.p"), std::string::npos);
}

TEST(OscTopology, ReproducibleFromSeedAndIndependentOfK) {
  const Topologies a = watts_strogatz(60, 4, 0.3, 8, 99), b = watts_strogatz(60, 4, 0.3, 3, 99);
  const Topologies c = watts_strogatz(60, 4, 0.3, 8, 100);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(a.edges(k), b.edges(k)) << "member " << k;
  EXPECT_EQ(a.col, watts_strogatz(60, 4, 0.3, 8, 99).col);
  EXPECT_NE(a.col, c.col);
  EXPECT_NE(a.edges(0), a.edges(1));  // K different networks
  const Topologies e1 = erdos_renyi(60, 0.1, 5, 4), e2 = erdos_renyi(60, 0.1, 2, 4);
  EXPECT_EQ(e1.edges(1), e2.edges(1));
  EXPECT_NE(e1.edges(0), e1.edges(1));
}

TEST(OscTopology, EdgeListFile) {
  const auto path = write_text("edges.txt",
                               "# a weighted triangle and a tail\n"
                               "0 1 2.5\n"
                               "\n"
                               "1,2\n"
                               "  2   0   0.5 \n"
                               "3 2\n"
                               "2 3\n");  // listed twice: counts once
  const Topologies t = load_edge_list(path.string(), 5, 4);
  validate(t);
  EXPECT_TRUE(t.shared);
  EXPECT_TRUE(t.weighted());
  EXPECT_EQ(t.members, 4);
  const auto e = t.edges(2);
  EXPECT_EQ(e, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}, {2, 3}}));
  EXPECT_DOUBLE_EQ(t.degree(0, 0), 3.0);
  EXPECT_DOUBLE_EQ(t.degree(0, 2), 0.5 + 1 + 1);
  EXPECT_DOUBLE_EQ(t.degree(0, 4), 0.0);  // an isolated node
  // Unweighted file: no weight vector.
  EXPECT_FALSE(load_edge_list(write_text("u.txt", "0 1\n1 2\n").string(), 3, 1).weighted());
}

TEST(OscTopology, BadEdgeListsNameTheLine) {
  struct Case {
    const char* text;
    std::vector<const char*> words;
  };
  const std::vector<Case> cases = {
      {"0 1\n1 7\n", {"line 2", "node 7", "network.nodes = 5"}},
      {"0 1\n-1 2\n", {"line 2", "-1"}},
      {"0 1\n2 2\n", {"line 2", "self-loop"}},
      {"0 1\n# c\n1 x\n", {"line 3", "integers"}},
      {"0 1 2 3\n", {"line 1", "'i j' or 'i j weight'"}},
      {"0\n", {"line 1"}},
      {"0 1 nan\n", {"line 1", "weight"}},
      {"0 1 abc\n", {"line 1", "weight"}},
      {"0 1 1\n1 0 2\n", {"line 2", "line 1", "weight"}},
      {"# nothing\n\n", {"no edges"}},
      {"", {"no edges"}},
  };
  int n = 0;
  for (const auto& c : cases) {
    const auto path = write_text("bad" + std::to_string(n++) + ".txt", c.text);
    const std::string msg = error_of([&] { load_edge_list(path.string(), 5, 1); });
    ASSERT_FALSE(msg.empty()) << "no error for: " << c.text;
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    for (const char* w : c.words) EXPECT_NE(msg.find(w), std::string::npos) << msg << " / " << w;
  }
  EXPECT_NE(error_of([] { load_edge_list("/nonexistent/e.txt", 5, 1); }).find("cannot open"),
            std::string::npos);
  EXPECT_NE(error_of([] { load_edge_list("", 5, 1); }).find("network.file"), std::string::npos);
}

// Found by tests/fuzz (fuzz_edge_list): a bad line came back whole in the message (60 kB of it
// for a long line), control characters included.
TEST(OscTopology, BadLinesAreQuotedShortOnOneLine) {
  const auto path = write_text("long.txt", std::string(60000, 'x') + " y\n");
  const std::string msg = error_of([&] { load_edge_list(path.string(), 5, 1); });
  EXPECT_EQ(msg, path.string() + ": line 1: node indices must be integers, got '" +
                     std::string(80, 'x') + "...'");
  const auto ctl = write_text("ctl.txt", "0 1\n0\x01 1 2 3 4\n");
  EXPECT_EQ(
      error_of([&] { load_edge_list(ctl.string(), 5, 1); }),
      ctl.string() +
          ": line 2: expected 'i j' or 'i j weight' (0-based node indices), got '0? 1 2 3 4'");
  const auto w = write_text("w.txt", "0 1 " + std::string(200, '9') + "e\n");
  const std::string mw = error_of([&] { load_edge_list(w.string(), 5, 1); });
  EXPECT_NE(mw.find("the weight must be a finite number, got '" + std::string(80, '9') + "...'"),
            std::string::npos)
      << mw;
}

TEST(OscTopology, ValidateCatchesBrokenCsr) {
  Topologies t = ring(6, 2, 1);
  validate(t);
  Topologies asym = t;
  asym.col[0] = 2;  // node 0 -> 2 without 2 -> 0
  EXPECT_FALSE(error_of([&] { validate(asym); }).empty());
  Topologies loop = t;
  loop.col[0] = 0;
  EXPECT_NE(error_of([&] { validate(loop); }).find("self-loop"), std::string::npos);
  Topologies w = t;
  w.weight.assign(t.col.size(), 1.0);
  w.weight[0] = 2.0;
  EXPECT_NE(error_of([&] { validate(w); }).find("unequal"), std::string::npos);
}


}  // namespace
}  // namespace simscope::oscillators
