// Host-side checks of an initial state in device memory (osc_device_state.hpp).
#include "oscillators/osc_device_state.hpp"

#include <cstdint>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"

namespace simscope::oscillators {

void check_initial_view(const DeviceView& v, int nodes, int members) {
  const bool floats = v.dtype == io::DType::Float32 || v.dtype == io::DType::Float64;
  const auto& sh = v.shape;
  const bool per_node = sh.size() == 2 && sh[0] == std::size_t(nodes) && sh[1] == 2;
  const bool per_member =
      sh.size() == 3 && sh[0] == std::size_t(members) && sh[1] == std::size_t(nodes) && sh[2] == 2;
  if (!floats || (!per_node && !per_member)) {
    io::NpyArray a;  // the reader throws for these before it reads a value
    a.dtype = v.dtype, a.shape = v.shape;
    try {
      initial_state_from_npy(a, v.name, nodes, members);
    } catch (const Error& e) {
      throw InputError(e.what());
    }
  }
  v.check_aligned();
}

void throw_nonfinite_initial(const DeviceView& v, std::size_t q, double value) {
  std::ostringstream m;  // initial_state_from_npy's wording
  m << v.name << ": init.file value " << value << " at ";
  if (v.ndim() == 2) {
    m << "[" << q / 2 << ", " << q % 2 << "]";
  } else {
    const std::size_t nodes = v.shape[1];
    m << "[" << q / (2 * nodes) << ", " << (q / 2) % nodes << ", " << q % 2 << "]";
  }
  m << " is not finite";
  throw InputError(m.str());
}

void Ensemble::load_device(const Topologies&, const DeviceView&, Precision) {
  throw Error(
      "oscillators: an initial state in CUDA device memory needs the CUDA back end "
      "(backend=cuda)");
}

}  // namespace simscope::oscillators
