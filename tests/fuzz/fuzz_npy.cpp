// Fuzzes io::read_npy (compute/io/npy.cpp): any bytes as a .npy file. Beyond "no crash": an
// accepted array holds exactly product(shape) * itemsize bytes, no more than the file has
// (a header claiming more is refused before allocating: -malloc_limit_mb catches it), and
// every refusal is a simscope::Error (fuzz_support.hpp).
#include "fuzz_support.hpp"
#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = simscope::fuzz::write_input(data, size, ".npy");
  simscope::fuzz::expect_ok_or_error([&] {
    const simscope::io::NpyArray a = simscope::io::read_npy(path);
    const std::size_t isz = a.dtype == simscope::io::DType::UInt8                                ? 1
                            : a.dtype == simscope::io::DType::Float32 || a.dtype == simscope::io::DType::Int32 ? 4
                                                                                                  : 8;
    simscope::fuzz::check(a.data.size() <= size, "more data bytes than the file holds");
    simscope::fuzz::check(a.data.size() == a.size() * isz, "data size != product(shape) * itemsize");
    const std::vector<double> v = a.to_double();
    simscope::fuzz::check(v.size() == a.size(), "to_double() size != size()");
    simscope::fuzz::check(!a.shape_text().empty(), "empty shape_text()");
  });
  return 0;
}
