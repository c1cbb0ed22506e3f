// The user's own networks (given_networks.hpp): .npy adjacency stacks and matrices written by
// numpy, folders of per-member files in natural order, work ranges, and the refusals.
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "oscillators/given_networks.hpp"
#include "test_osc_util.hpp"

namespace simscope::oscillators {
namespace {

namespace fs = std::filesystem;
using test::error_of;
using test::tmp_dir;

/// Member k's couplings as {(i, j): G_ij} over i < j, read from the CSR rows (both directions
/// must agree: validate()).
std::map<std::pair<int, int>, double> couplings(const Topologies& t, int k) {
  validate(t);
  std::map<std::pair<int, int>, double> out;
  for (int i = 0; i < t.nodes; ++i)
    for (auto q = t.begin(k, i); q < t.end(k, i); ++q) {
      const int j = t.col[std::size_t(q)];
      if (j > i) out[{i, j}] = t.weighted() ? t.weight[std::size_t(q)] : 1.0;
    }
  return out;
}

/// numpy's expectations: lines "k i j w" for every nonzero G_ij, i < j, of member k.
std::vector<std::map<std::pair<int, int>, double>> expected(const fs::path& file, int members) {
  std::vector<std::map<std::pair<int, int>, double>> out(static_cast<std::size_t>(members));
  std::ifstream in(file);
  int k, i, j;
  double w;
  while (in >> k >> i >> j >> w) out[std::size_t(k)][{i, j}] = w;
  return out;
}

class GivenNetworks : public ::testing::Test {
 protected:
  static constexpr int K = 5, N = 12;
  static fs::path dir() { return tmp_dir() / "given_networks"; }
  static void SetUpTestSuite() {
    fs::remove_all(dir());
    fs::create_directories(dir() / "folder");
    fs::create_directories(dir() / "empty");
    // K random symmetric networks with weights, some int64, one with isolated nodes; a folder
    // of net1.npy, net2.txt, net10.npy, ... in a name order that differs from natural order.
    const std::string code = R"(
import numpy as np, os
d = )" + std::string("'") + dir().string() + R"('
rng = np.random.default_rng(7)
K, N = 5, 12
G = np.zeros((K, N, N))
for k in range(K):
    a = np.triu((rng.random((N, N)) < 0.3) * rng.integers(1, 4, (N, N)).astype(float), 1)
    if k == 2: a *= -0.5          # repulsive weights
    if k == 4: a[:, 6:] = 0        # nodes 6.. isolated
    G[k] = a + a.T
np.save(d + '/stack.npy', G)
np.save(d + '/stack_int.npy', G.astype(np.int64) * 0 + (G != 0).astype(np.int64))
np.save(d + '/one.npy', G[1].astype(np.float32))
with open(d + '/expected.txt', 'w') as f:
    for k in range(K):
        for i, j in zip(*np.nonzero(np.triu(G[k], 1))):
            f.write('%d %d %d %r\n' % (k, i, j, G[k, i, j]))
names = ['net1.npy', 'net2.txt', 'net10.npy', 'net3.npy', 'net04.npy']   # natural: 1 2 3 04 10
order = [0, 1, 4, 2, 3]                                                    # member of each file
for name, k in zip(names, order):
    if name.endswith('.txt'):
        with open(d + '/folder/' + name, 'w') as f:
            for i, j in zip(*np.nonzero(np.triu(G[k], 1))):
                f.write('%d %d %r\n' % (i, j, G[k, i, j]))
    else:
        np.save(d + '/folder/' + name, G[k])
open(d + '/folder/.hidden', 'w').write('not a network')
A = G[0].copy(); A[0, 3] = 2; A[3, 0] = 1; np.save(d + '/asym.npy', A)
B = G[0].copy(); B[4, 4] = 1; np.save(d + '/diag.npy', B)
C = G[0].copy(); C[1, 2] = C[2, 1] = np.nan; np.save(d + '/nan.npy', C)
np.save(d + '/flat.npy', np.zeros((N, N + 1)))
)";
    ASSERT_EQ(simscope::test::run_numpy_reference(code), 0);
  }
};

TEST_F(GivenNetworks, StackGivesEachMemberItsMatrix) {
  const auto want = expected(dir() / "expected.txt", K);
  const Topologies t = load_networks((dir() / "stack.npy").string(), N, K);
  EXPECT_FALSE(t.shared);
  EXPECT_EQ(t.members, K);
  for (int k = 0; k < K; ++k) EXPECT_EQ(couplings(t, k), want[std::size_t(k)]) << "member " << k;
  EXPECT_EQ(t.degree(4, 7), 0.0);  // an isolated node
  // A work range reads members 2..4 only; member k is the same.
  const Topologies r = load_networks((dir() / "stack.npy").string(), N, K, 2, 3);
  EXPECT_EQ(r.members, 3);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(couplings(r, k), want[std::size_t(k + 2)]);
  // An integer stack: unit couplings where G is nonzero.
  const Topologies u = load_networks((dir() / "stack_int.npy").string(), N, K);
  for (int k = 0; k < K; ++k) {
    auto ones = want[std::size_t(k)];
    for (auto& [e, w] : ones) w = 1.0;
    EXPECT_EQ(couplings(u, k), ones);
  }
}

TEST_F(GivenNetworks, OneMatrixIsSharedByEveryMember) {
  const auto want = expected(dir() / "expected.txt", K);
  const Topologies t = load_networks((dir() / "one.npy").string(), N, 9);
  EXPECT_TRUE(t.shared);
  EXPECT_EQ(t.members, 9);
  EXPECT_EQ(couplings(t, 8), want[1]);
}

TEST_F(GivenNetworks, FolderInNaturalNameOrderWithMixedFiles) {
  const auto want = expected(dir() / "expected.txt", K);
  const Topologies t = load_networks((dir() / "folder").string(), N, K);
  EXPECT_FALSE(t.shared);
  // net1, net2 (text), net3, net04, net10 hold members 0, 1, 2, 3, 4.
  for (int k = 0; k < K; ++k) EXPECT_EQ(couplings(t, k), want[std::size_t(k)]) << "member " << k;
  const Topologies r = load_networks((dir() / "folder").string(), N, K, 1, 2);
  EXPECT_EQ(couplings(r, 0), want[1]);
  EXPECT_EQ(couplings(r, 1), want[2]);
  EXPECT_EQ(count_networks((dir() / "folder").string()), K);
  EXPECT_EQ(count_networks((dir() / "stack.npy").string()), K);
  EXPECT_EQ(count_networks((dir() / "one.npy").string()), 0);
}

TEST_F(GivenNetworks, RefusalsNameTheFileAndWhatToSet) {
  auto msg = [](const std::string& f, int nodes, int members) {
    return error_of([&] { load_networks((dir() / f).string(), nodes, members); });
  };
  EXPECT_NE(msg("stack.npy", N, 4).find("set ensemble.size=5"), std::string::npos);
  EXPECT_NE(msg("folder", N, 7).find("set ensemble.size=5"), std::string::npos);
  EXPECT_NE(msg("stack.npy", 10, K).find("set network.nodes=12"), std::string::npos);
  const std::string asym = msg("asym.npy", N, 1);
  EXPECT_NE(asym.find("not symmetric"), std::string::npos) << asym;
  EXPECT_NE(asym.find("G[0, 3] = 2 but G[3, 0] = 1"), std::string::npos) << asym;
  EXPECT_NE(msg("diag.npy", N, 1).find("G[4, 4] = 1 on the diagonal"), std::string::npos);
  EXPECT_NE(msg("nan.npy", N, 1).find("not finite"), std::string::npos);
  EXPECT_NE(msg("flat.npy", N, 1).find("expected an (N, N) adjacency matrix"), std::string::npos);
  EXPECT_NE(msg("empty", N, 1).find("holds no files"), std::string::npos);
  for (const char* f : {"asym.npy", "empty", "stack.npy", "folder"})
    EXPECT_NE(msg(f, N, 3).find(f), std::string::npos) << f;
}

TEST(GivenNetworkEntries, EdgesAndMatricesFromArrays) {
  // Edges may come once or in both directions; a matrix needs both, equal.
  NetworkEntries e;
  e.i = {0, 2, 1};
  e.j = {1, 1, 0};
  const Topologies t = networks_from_entries(3, {e}, {"networks[0]"});
  EXPECT_EQ(t.edges(0), (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}));
  e.w = {1, 2, 3};
  EXPECT_NE(error_of([&] { networks_from_entries(3, {e}, {"networks[0]"}); })
                .find("networks[0]: edge 0-1 given twice, with weights 1 and 3"),
            std::string::npos);
  NetworkEntries m;
  m.form = EntryForm::Matrix;
  m.i = {0, 1, 1, 2};
  m.j = {1, 0, 2, 1};
  m.w = {0.5, 0.5, 2, 0};
  EXPECT_NE(error_of([&] { networks_from_entries(3, {m}, {"networks[1]"}); })
                .find("networks[1]: G is not symmetric: G[1, 2] = 2 but G[2, 1] = 0"),
            std::string::npos);
  NetworkEntries out_of_range;
  out_of_range.i = {0};
  out_of_range.j = {3};
  EXPECT_NE(error_of([&] { networks_from_entries(3, {out_of_range}, {"n"}); })
                .find("node 3 is out of range: network.nodes = 3"),
            std::string::npos);
  // Two members, one weighted: the other's couplings are 1.
  e.w.clear();
  m.w = {0.5, 0.5, 2, 2};
  const Topologies two = networks_from_entries(3, {e, m}, {"a", "b"});
  EXPECT_FALSE(two.shared);
  EXPECT_EQ(couplings(two, 0), (std::map<std::pair<int, int>, double>{{{0, 1}, 1}, {{1, 2}, 1}}));
  EXPECT_EQ(couplings(two, 1),
            (std::map<std::pair<int, int>, double>{{{0, 1}, 0.5}, {{1, 2}, 2}}));
}

}  // namespace
}  // namespace simscope::oscillators
