// The user's own networks (given_networks.hpp): entries to CSR topologies, edge-list files,
// .npy adjacency matrices and stacks, folders of per-member files.
#include "oscillators/given_networks.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <sstream>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "core/trimmed.hpp"
#include "io/npy.hpp"

namespace simscope::oscillators {

namespace fs = std::filesystem;

namespace {

/// Splits on blanks and commas.
std::vector<std::string> fields(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (std::isspace(static_cast<unsigned char>(ch)) || ch == ',') {
      if (!cur.empty()) out.push_back(cur), cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool parse_index(const std::string& s, long long& v) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  v = std::strtoll(s.c_str(), &end, 10);
  return *end == '\0' && errno != ERANGE;
}

std::string number(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

/// One directed CSR entry.
struct Entry {
  std::int32_t row, col;
  double w;
  bool operator<(const Entry& o) const { return row != o.row ? row < o.row : col < o.col; }
};

/// The directed entries of one network, sorted by (row, col), each undirected edge in both
/// rows, checked as networks_from_entries documents.
std::vector<Entry> directed_entries(int nodes, const NetworkEntries& n, const std::string& name) {
  const EntryForm form = n.form;
  const std::size_t E = n.i.size();
  if (n.j.size() != E || (!n.w.empty() && n.w.size() != E))
    throw Error(name + ": i, j and w must have the same length");
  std::vector<Entry> out;
  out.reserve(form == EntryForm::Edges ? 2 * E : E);
  for (std::size_t e = 0; e < E; ++e) {
    const std::int32_t a = n.i[e], b = n.j[e];
    const double w = n.w.empty() ? 1.0 : n.w[e];
    for (std::int32_t v : {a, b})
      if (v < 0 || v >= nodes)
        throw Error(name + ": node " + std::to_string(v) + " is out of range: network.nodes = " +
                    std::to_string(nodes) + " allows 0.." + std::to_string(nodes - 1));
    if (!std::isfinite(w))
      throw Error(name + ": the weight of " + std::to_string(a) + "-" + std::to_string(b) +
                  " is not finite (" + number(w) + ")");
    if (form == EntryForm::Matrix && w == 0) continue;
    if (a == b && form == EntryForm::Matrix)
      throw Error(name + ": G[" + std::to_string(a) + ", " + std::to_string(a) + "] = " +
                  number(w) + " on the diagonal: a node is not coupled to itself (set the "
                  "diagonal to 0)");
    if (a == b)
      throw Error(name + ": self-loop " + std::to_string(a) + " " + std::to_string(b) +
                  " (a node is not coupled to itself)");
    if (form == EntryForm::Edges) {
      out.push_back({std::min(a, b), std::max(a, b), w});
    } else {
      out.push_back({a, b, w});
    }
  }
  std::sort(out.begin(), out.end());
  if (form == EntryForm::Edges) {
    // Undirected edges (min, max): one listed twice counts once when the weights agree.
    std::size_t u = 0;
    for (std::size_t e = 0; e < out.size(); ++e) {
      if (u > 0 && out[u - 1].row == out[e].row && out[u - 1].col == out[e].col) {
        if (out[u - 1].w != out[e].w)
          throw Error(name + ": edge " + std::to_string(out[e].row) + "-" +
                      std::to_string(out[e].col) + " given twice, with weights " +
                      number(out[u - 1].w) + " and " + number(out[e].w));
        continue;
      }
      out[u++] = out[e];
    }
    out.resize(u);
    const std::size_t undirected = out.size();
    for (std::size_t e = 0; e < undirected; ++e) out.push_back({out[e].col, out[e].row, out[e].w});
    std::sort(out.begin(), out.end());
    return out;
  }
  for (std::size_t e = 0; e < out.size(); ++e) {
    if (e > 0 && out[e - 1].row == out[e].row && out[e - 1].col == out[e].col)
      throw Error(name + ": entry G[" + std::to_string(out[e].row) + ", " +
                  std::to_string(out[e].col) + "] given twice");
    const Entry mirror{out[e].col, out[e].row, 0};
    const auto it = std::lower_bound(out.begin(), out.end(), mirror);
    const bool found = it != out.end() && it->row == mirror.row && it->col == mirror.col;
    if (!found || it->w != out[e].w)
      throw Error(name + ": G is not symmetric: G[" + std::to_string(out[e].row) + ", " +
                  std::to_string(out[e].col) + "] = " + number(out[e].w) + " but G[" +
                  std::to_string(mirror.row) + ", " + std::to_string(mirror.col) + "] = " +
                  number(found ? it->w : 0.0) +
                  " (an undirected network's adjacency matrix equals its transpose)");
  }
  return out;
}

/// Natural order of file names: runs of digits compare by value, so net2 < net10.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      std::string x = a.substr(i, i2 - i), y = b.substr(j, j2 - j);
      x.erase(0, std::min(x.find_first_not_of('0'), x.size()));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i2, j = j2;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

bool is_npy(const fs::path& p) {
  std::string e = p.extension().string();
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e == ".npy";
}

/// The member files of folder `dir`, in natural name order: regular files not starting with '.'.
std::vector<fs::path> folder_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.empty() || n[0] == '.') continue;
    std::error_code ec2;
    if (it->is_regular_file(ec2)) files.push_back(it->path());
  }
  if (ec) throw Error("network.file: " + dir.string() + ": cannot list the folder (" + ec.message() + ")");
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return natural_less(a.filename().string(), b.filename().string());
  });
  if (files.empty())
    throw Error("network.file: the folder " + dir.string() +
                " holds no files; expected one network per member (.npy adjacency matrices or "
                "edge lists)");
  return files;
}

const char* kAdjacencyDtypes = "float64, float32, int64, int32 or uint8 (an adjacency matrix)";

void check_matrix_size(const std::string& path, const std::string& shape, std::size_t m,
                       int nodes) {
  if (m != std::size_t(nodes))
    throw Error("network.file: " + path + " holds adjacency matrices of " + std::to_string(m) +
                " nodes, shape " + shape + ", but network.nodes is " + std::to_string(nodes) +
                ": set network.nodes=" + std::to_string(m));
}

/// Member k's entries from one file of a folder.
NetworkEntries file_entries(const fs::path& p, int nodes) {
  const std::string path = p.string();
  if (!is_npy(p)) return read_edge_list(path, nodes);
  const io::NpyArray a = io::read_npy(path, kAdjacencyDtypes);
  if (a.shape.size() != 2 || a.shape[0] != a.shape[1])
    throw Error("network.file: " + path + " has shape " + a.shape_text() +
                "; expected one (N, N) adjacency matrix per file of the folder");
  check_matrix_size(path, a.shape_text(), a.shape[0], nodes);
  const std::vector<double> g = a.to_double();
  return matrix_entries(g.data(), nodes, path);
}

void check_member_count(const std::string& path, const std::string& what, int count,
                        int members) {
  if (count != members)
    throw Error("network.file: " + path + " holds " + std::to_string(count) + " " + what +
                ", one per member, but ensemble.size is " + std::to_string(members) +
                ": set ensemble.size=" + std::to_string(count));
}

}  // namespace

void check_network_sizes(int nodes, int members) {
  if (nodes < 1 || nodes > kMaxNodes)
    throw Error("network.nodes must be in [1, " + std::to_string(kMaxNodes) + "], got " +
                std::to_string(nodes));
  if (members < 1 || members > kMaxMembers)
    throw Error("ensemble.size must be in [1, " + std::to_string(kMaxMembers) + "], got " +
                std::to_string(members));
}

Topologies networks_from_entries(int nodes, const std::vector<NetworkEntries>& nets,
                                 const std::vector<std::string>& names, int members) {
  const int G = int(nets.size());
  const int K = G == 1 && members > 1 ? members : G;
  check_network_sizes(nodes, K);
  if (names.size() != nets.size()) throw Error("networks: one name per network expected");
  Topologies t;
  t.nodes = nodes;
  t.members = K;
  t.shared = G == 1 && members > 0;
  bool weighted = false;
  for (const auto& n : nets) weighted = weighted || !n.w.empty();
  try {
    t.row_ptr.assign(std::size_t(G) * nodes + 1, 0);
    for (int g = 0; g < G; ++g) {
      const std::vector<Entry> e =
          directed_entries(nodes, nets[std::size_t(g)], names[std::size_t(g)]);
      const std::size_t base = std::size_t(g) * nodes;
      std::int64_t off = t.row_ptr[base];
      std::size_t q = 0;
      for (int i = 0; i < nodes; ++i) {
        t.row_ptr[base + std::size_t(i)] = off;
        while (q < e.size() && e[q].row == i) {
          t.col.push_back(e[q].col);
          if (weighted) t.weight.push_back(e[q].w);
          ++q, ++off;
        }
      }
      t.row_ptr[base + std::size_t(nodes)] = off;
    }
  } catch (const std::bad_alloc&) {
    throw Error("cannot allocate memory for " + std::to_string(G) + " networks of " +
                std::to_string(nodes) + " nodes: lower ensemble.size or network.nodes");
  }
  return t;
}

NetworkEntries matrix_entries(const double* g, int nodes, const std::string& name) {
  NetworkEntries out;
  out.form = EntryForm::Matrix;
  const std::size_t N = std::size_t(nodes);
  for (std::size_t a = 0; a < N; ++a)
    for (std::size_t b = 0; b < N; ++b) {
      const double v = g[a * N + b];
      if (!std::isfinite(v))
        throw Error(name + ": G[" + std::to_string(a) + ", " + std::to_string(b) + "] = " +
                    number(v) + " is not finite");
      if (v == 0) continue;
      if (a == b)
        throw Error(name + ": G[" + std::to_string(a) + ", " + std::to_string(a) + "] = " +
                    number(v) + " on the diagonal: a node is not coupled to itself (set the "
                    "diagonal to 0)");
      out.i.push_back(std::int32_t(a));
      out.j.push_back(std::int32_t(b));
      out.w.push_back(v);
    }
  return out;
}

NetworkEntries read_edge_list(const std::string& path, int nodes) {
  if (path.empty()) throw Error("network.file: no edge-list file given (network.topology=file)");
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the edge-list file (network.file)");
  struct Seen {
    double weight;
    long line;
  };
  std::map<std::pair<int, int>, Seen> edges;
  std::string raw;
  long line = 0;
  bool weighted = false;
  while (std::getline(in, raw)) {
    ++line;
    const std::string s = trimmed(raw);
    if (s.empty() || s[0] == '#') continue;
    const auto f = fields(s);
    const std::string where = path + ": line " + std::to_string(line) + ": ";
    if (f.size() < 2 || f.size() > 3)
      throw Error(where + "expected 'i j' or 'i j weight' (0-based node indices), got '" +
                  quote_text(s) + "'");
    long long a = 0, b = 0;
    if (!parse_index(f[0], a) || !parse_index(f[1], b))
      throw Error(where + "node indices must be integers, got '" + quote_text(s) + "'");
    for (long long v : {a, b})
      if (v < 0 || v >= nodes)
        throw Error(where + "node " + std::to_string(v) + " is out of range: network.nodes = " +
                    std::to_string(nodes) + " allows 0.." + std::to_string(nodes - 1));
    if (a == b)
      throw Error(where + "self-loop " + std::to_string(a) + " " + std::to_string(b) +
                  " (a node is not coupled to itself)");
    double w = 1.0;
    if (f.size() == 3) {
      char* end = nullptr;
      w = std::strtod(f[2].c_str(), &end);
      if (*end != '\0' || !std::isfinite(w))
        throw Error(where + "the weight must be a finite number, got '" + quote_text(f[2]) + "'");
      weighted = true;
    }
    const std::pair<int, int> key(int(std::min(a, b)), int(std::max(a, b)));
    auto it = edges.find(key);
    if (it != edges.end()) {
      if (it->second.weight != w) {
        std::ostringstream m;
        m << where << "edge " << key.first << "-" << key.second << " listed again with weight " << w
          << ", but line " << it->second.line << " gave " << it->second.weight;
        throw Error(m.str());
      }
      continue;
    }
    edges[key] = Seen{w, line};
  }
  if (in.bad()) throw Error(path + ": read error");
  if (edges.empty())
    throw Error(path +
                ": no edges (an uncoupled network needs no file: set model.coupling=0 "
                "with another network.topology)");
  NetworkEntries out;
  for (const auto& [key, seen] : edges) {
    out.i.push_back(key.first);
    out.j.push_back(key.second);
    if (weighted) out.w.push_back(seen.weight);
  }
  return out;
}

Topologies load_edge_list(const std::string& path, int nodes, int members) {
  check_network_sizes(nodes, members);
  return networks_from_entries(nodes, {read_edge_list(path, nodes)}, {path}, members);
}

int count_networks(const std::string& path) {
  if (path.empty()) throw Error("network.file: no file given (network.topology=file)");
  std::error_code ec;
  if (fs::is_directory(path, ec)) return int(folder_files(path).size());
  if (!is_npy(path)) return 0;
  const io::NpyHeader h = io::read_npy_header(path, kAdjacencyDtypes);
  if (h.shape.size() == 3) return int(h.shape[0]);
  return 0;
}

Topologies load_networks(const std::string& path, int nodes, int members, int first, int count) {
  if (count <= 0) count = members - first;
  check_network_sizes(nodes, members);
  if (first < 0 || count < 1 || first + count > members)
    throw Error("network.file: members " + std::to_string(first) + " .. " +
                std::to_string(first + count - 1) + " are outside ensemble.size = " +
                std::to_string(members));
  if (path.empty()) throw Error("network.file: no file given (network.topology=file)");
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error("network.file: " + path +
                ": no such file or folder (an edge list, a .npy adjacency matrix or stack, or a "
                "folder of them)");
  if (fs::is_directory(path, ec)) {
    const std::vector<fs::path> files = folder_files(path);
    check_member_count(path, "network files", int(files.size()), members);
    std::vector<NetworkEntries> nets;
    std::vector<std::string> names;
    for (int k = first; k < first + count; ++k) {
      names.push_back(files[std::size_t(k)].string());
      nets.push_back(file_entries(files[std::size_t(k)], nodes));
    }
    return networks_from_entries(nodes, nets, names, count);
  }
  if (!is_npy(path)) return load_edge_list(path, nodes, count);
  const io::NpyHeader h = io::read_npy_header(path, kAdjacencyDtypes);
  const bool stack = h.shape.size() == 3;
  if ((h.shape.size() != 2 && !stack) || h.shape[h.shape.size() - 1] != h.shape[h.shape.size() - 2])
    throw Error("network.file: " + path + " has shape " + h.shape_text() +
                "; expected an (N, N) adjacency matrix for every member or a (K, N, N) stack, "
                "one per member");
  check_matrix_size(path, h.shape_text(), h.shape.back(), nodes);
  if (!stack) {
    const std::vector<double> g = io::read_npy(path, kAdjacencyDtypes).to_double();
    return networks_from_entries(nodes, {matrix_entries(g.data(), nodes, path)}, {path}, count);
  }
  check_member_count(path, "adjacency matrices", int(h.shape[0]), members);
  // Read in slices of members, so the dense matrices of a large stack are never held at once.
  const std::size_t NN = std::size_t(nodes) * std::size_t(nodes);
  const int slice = int(std::max<std::size_t>(1, (std::size_t(1) << 24) / NN));
  std::vector<NetworkEntries> nets;
  std::vector<std::string> names;
  for (int a = first; a < first + count; a += slice) {
    const int b = std::min(first + count, a + slice);
    const std::vector<double> g =
        io::read_npy_rows(path, std::size_t(a), std::size_t(b), kAdjacencyDtypes).to_double();
    for (int k = a; k < b; ++k) {
      names.push_back(path + " [" + std::to_string(k) + "]");
      nets.push_back(matrix_entries(g.data() + std::size_t(k - a) * NN, nodes, names.back()));
    }
  }
  return networks_from_entries(nodes, nets, names, count);
}

}  // namespace simscope::oscillators
