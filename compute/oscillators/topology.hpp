#pragma once
/// @file Networks of the `oscillators` workload: K symmetric weighted graphs on N nodes in
/// compressed sparse rows, their generators, and the edge-list reader.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace simscope::oscillators {

/// The most nodes per network (N) and members (K) an ensemble may have: the generators, the
/// edge-list reader and the ensembles refuse more.
constexpr int kMaxNodes = 100000;
constexpr int kMaxMembers = 1000000;

/// K networks ("members") on the same N nodes: symmetric weighted adjacency matrices G in
/// compressed sparse row form, one after another. Row i of graph g holds node i's neighbours
/// col[e] for e in [row_ptr[g*N + i], row_ptr[g*N + i + 1]), sorted ascending, without i itself.
/// Each undirected edge is stored in both rows with the same weight.
/// When `shared` is true, one graph serves every member, e.g. ring or file.
/// Otherwise graph k is member k's.
struct Topologies {
  int nodes = 0;    ///< N
  int members = 0;  ///< K
  bool shared = false;
  std::vector<std::int64_t> row_ptr;  ///< graphs() * N + 1 offsets into col/weight
  std::vector<std::int32_t> col;      ///< neighbour indices, 0..N-1
  std::vector<double> weight;         ///< G_ij per entry; empty: every weight is 1

  int graphs() const { return shared ? 1 : members; }
  bool weighted() const { return !weight.empty(); }
  /// The graph index of member k; 0 when shared.
  int graph_of(int member) const { return shared ? 0 : member; }
  std::int64_t begin(int member, int node) const {
    return row_ptr[std::size_t(graph_of(member)) * nodes + node];
  }
  std::int64_t end(int member, int node) const {
    return row_ptr[std::size_t(graph_of(member)) * nodes + node + 1];
  }
  /// Weighted degree sum_j G_ij of node i in member k.
  double degree(int member, int node) const;
  /// Undirected edges of member k as (i, j) pairs with i < j, in row order.
  std::vector<std::pair<int, int>> edges(int member) const;
};

/// A ring lattice: every node joined to its k/2 nearest neighbours on each side, unit weights,
/// one graph for all K members. k must be even with 2 <= k < N.
/// Throws simscope::Error naming network.k or network.nodes otherwise.
Topologies ring(int nodes, int k, int members);

/// Watts & Strogatz (1998), "Collective dynamics of 'small-world' networks", Nature 393.
/// A ring lattice of degree k whose edges (u, u + j), j = 1..k/2, are each rewired with
/// probability p to (u, w), w uniform among nodes that are neither u nor joined to u, as in
/// networkx.watts_strogatz_graph. Unit weights. K different graphs: member k uses its own random
/// stream from (seed, k), so its graph does not depend on K or the thread count.
/// Throws simscope::Error for k odd, < 2 or >= N, or p outside [0, 1].
/// With `first_member` f > 0, returns members f .. f + members - 1 of that ensemble, a work range.
Topologies watts_strogatz(int nodes, int k, double p, int members, std::uint64_t seed,
                          int first_member = 0);

/// Erdos & Renyi (1959) and Gilbert (1959) G(N, p): each of the N(N-1)/2 node pairs is joined
/// with probability p. Sampled in O(N + edges) with the geometric skips of Batagelj & Brandes,
/// "Efficient generation of large random networks", Phys. Rev. E 71 (2005).
/// K different graphs, member k from (seed, k) as above. Unit weights.
/// Throws simscope::Error for p outside [0, 1]. `first_member` as for watts_strogatz.
Topologies erdos_renyi(int nodes, double p, int members, std::uint64_t seed, int first_member = 0);

/// One graph from an edge-list text file, shared by all K members. One undirected edge per line:
/// "i j" or "i j weight", with 0-based node indices separated by blanks or a comma.
/// Blank lines and lines starting with '#' are skipped. An edge listed twice, also as "j i",
/// counts once if the weights agree. A weight is any finite number, default 1. Negative weights
/// give repulsive coupling G_ij < 0; 0 keeps the edge without coupling. The Laplacian term
/// e/2 * sum_j G_ij (x_j - x_i) uses the weights as given, without normalisation.
/// Throws simscope::Error naming the file and the 1-based line for: a line that is not two
/// integers and an optional finite number, a node < 0 or >= N (network.nodes), a self-loop,
/// or the same edge with two different weights. Also throws for a missing or empty file.
Topologies load_edge_list(const std::string& path, int nodes, int members);

/// Checks the invariants documented on Topologies: sizes, sorted rows, indices in range, no
/// self-loops, symmetry with equal weights, finite weights. Throws simscope::Error saying what
/// is wrong. Generators and load_edge_list always produce valid topologies; use it for
/// hand-made ones.
void validate(const Topologies& t);

}  // namespace simscope::oscillators
