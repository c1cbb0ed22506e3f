// Fuzzes oscillators::load_initial_state, the init.file reader (compute/oscillators/
// oscillators.cpp, on top of io::read_npy). The first input byte chooses network.nodes (1..8),
// the second ensemble.size (1..4); the rest is the .npy file. Beyond "no crash": an accepted
// state holds nodes * members finite x and y values; every refusal is a simscope::Error.
#include <cmath>

#include "fuzz_support.hpp"
#include "oscillators/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const int nodes = 1 + data[0] % 8, members = 1 + data[1] % 4;
  const std::string path = simscope::fuzz::write_input(data + 2, size - 2, ".npy");
  simscope::fuzz::expect_ok_or_error([&] {
    const auto s = simscope::oscillators::load_initial_state(path, nodes, members);
    const std::size_t n = std::size_t(nodes) * std::size_t(members);
    simscope::fuzz::check(s.x.size() == n && s.y.size() == n, "state of the wrong size");
    for (std::size_t i = 0; i < n; ++i)
      simscope::fuzz::check(std::isfinite(s.x[i]) && std::isfinite(s.y[i]), "non-finite state");
  });
  return 0;
}
