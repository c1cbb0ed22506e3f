#pragma once
/// @file The user's own networks for the `oscillators` workload: K graphs given as edge lists or
/// adjacency matrices, from arrays (Python) or files (an edge list, a .npy adjacency matrix or
/// stack of them, a folder with one file per member).
#include <cstdint>
#include <string>
#include <vector>

#include "oscillators/topology.hpp"

namespace simscope::oscillators {

/// How NetworkEntries are read.
/// Edges: each entry is an undirected edge i-j, given once or in both directions with the same
/// weight; a weight of 0 keeps the edge without coupling (as load_edge_list).
/// Matrix: the nonzero entries of a symmetric adjacency matrix G: (i, j) and (j, i) both
/// present with equal values; entries of value 0 are skipped.
enum class EntryForm { Edges, Matrix };

/// One network's couplings as entries (i, j, G_ij), 0-based nodes.
struct NetworkEntries {
  std::vector<std::int32_t> i, j;
  std::vector<double> w;  ///< G_ij per entry; empty: every G_ij is 1
  EntryForm form = EntryForm::Edges;
};

/// K networks on N nodes: member k's graph from nets[k], K = nets.size(). One entry list with
/// `members` > 0 is one graph shared by all `members` (Topologies::shared). `names[k]` names
/// nets[k] in messages, e.g. "networks[3]" or a file's path.
/// The result is weighted (Topologies::weight) when any list carries weights.
/// Throws simscope::Error naming nets[k] for: a node outside [0, N) (network.nodes), a
/// self-loop (a nonzero diagonal entry), a non-finite weight, an edge given twice with two
/// weights (Edges), an entry given twice or without its equal mirror entry (Matrix: "G is not
/// symmetric"). Also for N or K out of range (network.nodes, ensemble.size).
Topologies networks_from_entries(int nodes, const std::vector<NetworkEntries>& nets,
                                 const std::vector<std::string>& names, int members = 0);

/// Throws simscope::Error naming network.nodes or ensemble.size unless 1 <= N <= kMaxNodes and
/// 1 <= K <= kMaxMembers: the generators' and loaders' check of the sizes.
void check_network_sizes(int nodes, int members);

/// The nonzero entries of the dense N x N row-major adjacency matrix `g`, EntryForm::Matrix.
/// Throws simscope::Error naming `name` for a non-finite value or a nonzero diagonal entry.
NetworkEntries matrix_entries(const double* g, int nodes, const std::string& name);

/// Reads the edges of an edge-list text file: "i j" or "i j weight" per line, as load_edge_list
/// (topology.hpp) documents, with its messages. EntryForm::Edges; `w` is empty when no line
/// gives a weight. Throws simscope::Error as load_edge_list does.
NetworkEntries read_edge_list(const std::string& path, int nodes);

/// The networks that network.file names, for members [first, first + count) of an ensemble of
/// `members` (K) networks on `nodes` (N) nodes. `path` is one of:
/// - an edge-list text file: one graph for every member (load_edge_list);
/// - a .npy adjacency matrix of shape (N, N): one graph for every member;
/// - a .npy stack of shape (K, N, N): member k's matrix at [k];
/// - a folder of K files, one per member in natural name order (net2 before net10; hidden files
///   skipped), each a .npy (N, N) adjacency matrix or an edge-list text file.
/// .npy values of any dtype read_npy reads (float32/64, int32/64, uint8); matrices must be
/// symmetric with a zero diagonal. Only the range's files and matrices are read.
/// Throws simscope::Error naming network.file and the file for an unreadable file, a shape
/// other than (N, N) or (K, N, N), a count of networks other than K ("set ensemble.size=F")
/// or a size other than N ("set network.nodes=M"), and the checks of networks_from_entries.
Topologies load_networks(const std::string& path, int nodes, int members, int first = 0,
                         int count = 0);

/// The number of networks `path` holds as load_networks reads it: 0 for one graph shared by
/// every member (an edge list or an (N, N) matrix), F for a stack or a folder of F.
/// Throws simscope::Error as load_networks does for a missing or unreadable path.
int count_networks(const std::string& path);

}  // namespace simscope::oscillators
