// Networks of the oscillators workload (topology.hpp): ring lattices, Watts-Strogatz and
// Erdos-Renyi graphs, and the CSR invariants. Edge-list files: given_networks.cpp.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <new>

#include "core/error.hpp"
#include "oscillators/given_networks.hpp"
#include "oscillators/oscillators_internal.hpp"
#include "oscillators/topology.hpp"

namespace simscope::oscillators {

using detail::Rng;

double Topologies::degree(int member, int node) const {
  const std::int64_t b = begin(member, node), e = end(member, node);
  if (weight.empty()) return double(e - b);
  double d = 0;
  for (std::int64_t q = b; q < e; ++q) d += weight[std::size_t(q)];
  return d;
}

std::vector<std::pair<int, int>> Topologies::edges(int member) const {
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < nodes; ++i)
    for (std::int64_t q = begin(member, i); q < end(member, i); ++q)
      if (col[std::size_t(q)] > i) out.emplace_back(i, col[std::size_t(q)]);
  return out;
}

namespace {

void check_ring_k(int nodes, int k) {
  if (k < 2 || k % 2 != 0)
    throw Error("network.k must be even and >= 2 (k/2 neighbours on each side), got " +
                std::to_string(k));
  if (k >= nodes)
    throw Error("network.k = " + std::to_string(k) +
                " must be smaller than network.nodes = " + std::to_string(nodes));
}

void check_p(double p) {
  if (!(p >= 0 && p <= 1))
    throw Error("network.p must be a probability in [0, 1], got " + std::to_string(p));
}

/// Unsorted adjacency lists of one graph, reused between graphs to avoid allocation churn.
struct Adjacency {
  std::vector<std::vector<std::int32_t>> adj;
  void reset(int n) {
    adj.resize(std::size_t(n));
    for (auto& a : adj) a.clear();
  }
  bool has(int u, int v) const {
    const auto& a = adj[std::size_t(u)];
    return std::find(a.begin(), a.end(), v) != a.end();
  }
  void add(int u, int v) {
    adj[std::size_t(u)].push_back(v);
    adj[std::size_t(v)].push_back(u);
  }
  void remove(int u, int v) {
    auto drop = [](std::vector<std::int32_t>& a, int x) {
      auto it = std::find(a.begin(), a.end(), x);
      if (it != a.end()) a.erase(it);
    };
    drop(adj[std::size_t(u)], v);
    drop(adj[std::size_t(v)], u);
  }
  /// The rows, sorted and concatenated. `counts` receives each row's length.
  void emit(std::vector<std::int32_t>& cols, std::vector<std::int32_t>& counts) {
    cols.clear();
    counts.resize(adj.size());
    for (std::size_t i = 0; i < adj.size(); ++i) {
      std::sort(adj[i].begin(), adj[i].end());
      counts[i] = std::int32_t(adj[i].size());
      cols.insert(cols.end(), adj[i].begin(), adj[i].end());
    }
  }
};

void ring_lattice(Adjacency& g, int n, int k) {
  g.reset(n);
  for (int j = 1; j <= k / 2; ++j)
    for (int u = 0; u < n; ++u) g.add(u, (u + j) % n);
}

void watts_strogatz_graph(Adjacency& g, int n, int k, double p, Rng& rng) {
  ring_lattice(g, n, k);
  // As networkx.watts_strogatz_graph: for each j, each edge (u, u + j) is rewired with probability
  // p to (u, w), w uniform over nodes that are not u and not yet joined to u. Skipped when u is
  // joined to every other node.
  for (int j = 1; j <= k / 2; ++j)
    for (int u = 0; u < n; ++u) {
      if (!(rng.uniform() < p)) continue;
      if (int(g.adj[std::size_t(u)].size()) >= n - 1) continue;
      int w;
      do w = int(rng.below(std::uint64_t(n)));
      while (w == u || g.has(u, w));
      g.remove(u, (u + j) % n);
      g.add(u, w);
    }
}

void erdos_renyi_graph(Adjacency& g, int n, double p, Rng& rng) {
  g.reset(n);
  if (p <= 0 || n < 2) return;
  if (p >= 1) {
    for (int u = 0; u < n; ++u)
      for (int v = u + 1; v < n; ++v) g.add(u, v);
    return;
  }
  // Batagelj & Brandes (2005), algorithm for G(n, p): geometric skips over the pairs (v, w),
  // w < v, in lexicographic order.
  const double lp = std::log1p(-p);
  std::int64_t v = 1, w = -1;
  while (v < n) {
    const double lr = std::log1p(-rng.uniform());  // log of a uniform in (0, 1]
    const double skip = std::floor(lr / lp);
    if (skip > double(n) * double(n)) break;  // beyond the last pair
    w += 1 + std::int64_t(skip);
    while (w >= v && v < n) {
      w -= v;
      ++v;
    }
    if (v < n) g.add(int(v), int(w));
  }
}

/// Builds K graphs into one CSR with `make(adjacency, rng, member)`, in parallel with OpenMP.
/// Member k's random stream comes from (seed, k).
template <typename Make>
Topologies build(int nodes, int members, std::uint64_t seed, int first, Make make) {
  Topologies t;
  t.nodes = nodes;
  t.members = members;
  t.shared = false;
  std::vector<std::vector<std::int32_t>> cols(static_cast<std::size_t>(members));
  std::vector<std::vector<std::int32_t>> counts(static_cast<std::size_t>(members));
  try {
#pragma omp parallel
    {
      Adjacency g;
#pragma omp for schedule(dynamic, 64)
      for (int k = 0; k < members; ++k) {
        Rng rng(detail::member_seed(seed, first + k, 1));
        make(g, rng);
        g.emit(cols[std::size_t(k)], counts[std::size_t(k)]);
      }
    }
    std::size_t total = 0;
    for (const auto& c : cols) total += c.size();
    t.row_ptr.resize(std::size_t(members) * nodes + 1);
    t.col.resize(total);
    std::vector<std::size_t> start(static_cast<std::size_t>(members));
    std::size_t at = 0;
    for (int k = 0; k < members; ++k) {
      start[std::size_t(k)] = at;
      at += cols[std::size_t(k)].size();
    }
#pragma omp parallel for schedule(static)
    for (int k = 0; k < members; ++k) {
      std::int64_t off = std::int64_t(start[std::size_t(k)]);
      const auto& cnt = counts[std::size_t(k)];
      for (int i = 0; i < nodes; ++i) {
        t.row_ptr[std::size_t(k) * nodes + i] = off;
        off += cnt[std::size_t(i)];
      }
      std::copy(cols[std::size_t(k)].begin(), cols[std::size_t(k)].end(),
                t.col.begin() + std::ptrdiff_t(start[std::size_t(k)]));
      std::vector<std::int32_t>().swap(cols[std::size_t(k)]);
    }
    t.row_ptr.back() = std::int64_t(total);
  } catch (const std::bad_alloc&) {
    throw Error("cannot allocate memory for " + std::to_string(members) + " networks of " +
                std::to_string(nodes) + " nodes: lower ensemble.size or network.nodes");
  }
  return t;
}

Topologies one_graph(int nodes, int members, Adjacency& g) {
  Topologies t;
  t.nodes = nodes;
  t.members = members;
  t.shared = true;
  std::vector<std::int32_t> counts;
  g.emit(t.col, counts);
  t.row_ptr.resize(std::size_t(nodes) + 1);
  std::int64_t off = 0;
  for (int i = 0; i < nodes; ++i) {
    t.row_ptr[std::size_t(i)] = off;
    off += counts[std::size_t(i)];
  }
  t.row_ptr.back() = off;
  return t;
}

}  // namespace

Topologies ring(int nodes, int k, int members) {
  check_network_sizes(nodes, members);
  check_ring_k(nodes, k);
  Adjacency g;
  ring_lattice(g, nodes, k);
  return one_graph(nodes, members, g);
}

Topologies watts_strogatz(int nodes, int k, double p, int members, std::uint64_t seed,
                          int first_member) {
  check_network_sizes(nodes, members);
  check_ring_k(nodes, k);
  check_p(p);
  return build(nodes, members, seed, first_member,
               [&](Adjacency& g, Rng& rng) { watts_strogatz_graph(g, nodes, k, p, rng); });
}

Topologies erdos_renyi(int nodes, double p, int members, std::uint64_t seed,
                       int first_member) {
  check_network_sizes(nodes, members);
  check_p(p);
  return build(nodes, members, seed, first_member,
               [&](Adjacency& g, Rng& rng) { erdos_renyi_graph(g, nodes, p, rng); });
}

void validate(const Topologies& t) {
  check_network_sizes(t.nodes, t.members);
  const std::size_t G = std::size_t(t.graphs()), N = std::size_t(t.nodes);
  if (t.row_ptr.size() != G * N + 1)
    throw Error("topologies: row_ptr holds " + std::to_string(t.row_ptr.size()) +
                " offsets, expected graphs * nodes + 1 = " + std::to_string(G * N + 1));
  if (t.row_ptr.front() != 0 || t.row_ptr.back() != std::int64_t(t.col.size()))
    throw Error("topologies: row_ptr must start at 0 and end at col.size()");
  if (!t.weight.empty() && t.weight.size() != t.col.size())
    throw Error("topologies: weight must be empty or as long as col");
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t i = 0; i < N; ++i) {
      const std::int64_t b = t.row_ptr[g * N + i], e = t.row_ptr[g * N + i + 1];
      if (e < b) throw Error("topologies: row_ptr must not decrease");
      for (std::int64_t q = b; q < e; ++q) {
        const std::int32_t j = t.col[std::size_t(q)];
        const std::string at =
            "topologies: graph " + std::to_string(g) + ", node " + std::to_string(i) + ": ";
        if (j < 0 || std::size_t(j) >= N)
          throw Error(at + "neighbour " + std::to_string(j) + " out of range");
        if (std::size_t(j) == i) throw Error(at + "self-loop");
        if (q > b && t.col[std::size_t(q - 1)] >= j)
          throw Error(at + "neighbours must be sorted and distinct");
        const double w = t.weight.empty() ? 1.0 : t.weight[std::size_t(q)];
        if (!std::isfinite(w)) throw Error(at + "non-finite weight");
        // The mirror entry (j, i) with the same weight.
        const std::int64_t jb = t.row_ptr[g * N + std::size_t(j)],
                           je = t.row_ptr[g * N + std::size_t(j) + 1];
        const auto first = t.col.begin() + jb, last = t.col.begin() + je;
        const auto it = std::lower_bound(first, last, std::int32_t(i));
        if (it == last || *it != std::int32_t(i))
          throw Error(at + "edge to " + std::to_string(j) + " is not symmetric");
        const double wm = t.weight.empty() ? 1.0 : t.weight[std::size_t(it - t.col.begin())];
        if (wm != w) throw Error(at + "edge to " + std::to_string(j) + " has unequal weights");
      }
    }
}

}  // namespace simscope::oscillators
