// Fuzzes oscillators::load_edge_list (compute/oscillators/topology.cpp). The first input byte
// chooses network.nodes (1..64) and the second ensemble.size (1..4); the rest is the edge-list
// file. Beyond "no crash": an accepted network passes oscillators::validate (sorted, symmetric,
// in range, no self-loops, finite weights) and has no more edges than the file has lines;
// every refusal is a simscope::Error (fuzz_support.hpp).
#include <algorithm>

#include "fuzz_support.hpp"
#include "oscillators/topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const int nodes = 1 + data[0] % 64, members = 1 + data[1] % 4;
  const std::string path = simscope::fuzz::write_input(data + 2, size - 2, ".edges");
  simscope::fuzz::expect_ok_or_error([&] {
    const auto t = simscope::oscillators::load_edge_list(path, nodes, members);
    simscope::fuzz::check(t.nodes == nodes && t.members == members, "wrong nodes or members");
    try {
      simscope::oscillators::validate(t);
    } catch (const simscope::Error& e) {
      simscope::fuzz::fail("load_edge_list returned a network validate() refuses", e.what());
    }
    const std::size_t lines = std::size_t(std::count(data + 2, data + size, '\n')) + 1;
    simscope::fuzz::check(t.col.size() <= 2 * lines, "more edges than lines in the file");
  });
  return 0;
}
