// Fuzzes io::read_npy (compute/io/npy.cpp): any bytes as a .npy file. Beyond "no crash": an
// accepted array holds exactly product(shape) * itemsize bytes, no more than the file has
// (a header claiming more is refused before allocating: -malloc_limit_mb catches it), it writes
// (write_npy, for the dtypes it writes) and reads back as itself, and every refusal is a
// simscope::Error (fuzz_support.hpp). read_npy_header and read_npy_rows (some row ranges) agree
// with it.
#include <algorithm>
#include <utility>

#include "fuzz_support.hpp"
#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = simscope::fuzz::write_input(data, size, ".npy");
  simscope::fuzz::expect_ok_or_error([&] {
    const simscope::io::NpyArray a = simscope::io::read_npy(path);
    const std::size_t isz =
        a.dtype == simscope::io::DType::UInt8                                              ? 1
        : a.dtype == simscope::io::DType::Float32 || a.dtype == simscope::io::DType::Int32 ? 4
                                                                                           : 8;
    simscope::fuzz::check(a.data.size() <= size, "more data bytes than the file holds");
    simscope::fuzz::check(a.data.size() == a.size() * isz,
                          "data size != product(shape) * itemsize");
    const std::vector<double> v = a.to_double();
    simscope::fuzz::check(v.size() == a.size(), "to_double() size != size()");
    simscope::fuzz::check(!a.shape_text().empty(), "empty shape_text()");
    // The header reader and the row reader agree with it: rows [b, e) are a's bytes of them.
    if (!a.shape.empty()) {
      const simscope::io::NpyHeader h = simscope::io::read_npy_header(path);
      simscope::fuzz::check(h.dtype == a.dtype && h.shape == a.shape,
                            "read_npy_header's dtype or shape differs from read_npy's");
      const std::size_t P = a.shape[0], row = P > 0 ? a.data.size() / P : 0;
      for (const auto& [b, e] :
           {std::pair{std::size_t(0), P}, {P / 3, P - P / 3}, {P / 2, std::min(P, P / 2 + 1)}}) {
        const simscope::io::NpyArray r = simscope::io::read_npy_rows(path, b, e);
        simscope::fuzz::check(
            r.dtype == a.dtype && r.data.size() == (e - b) * row &&
                std::equal(r.data.begin(), r.data.end(), a.data.begin() + std::ptrdiff_t(b * row)),
            "read_npy_rows' rows differ from read_npy's");
      }
    }
    using simscope::io::DType;
    // No writer for int64; write_npy writes format 1.0, whose header holds at most 65535 bytes
    // (numpy arrays have at most 64 dimensions, far below that).
    if (a.dtype == DType::Int64 || a.shape.size() > 64) return;
    const std::string out = path + ".out.npy";
    const void* p = a.data.data();
    try {
      switch (a.dtype) {
        case DType::Float32:
          simscope::io::write_npy(out, static_cast<const float*>(p), a.shape);
          break;
        case DType::Float64:
          simscope::io::write_npy(out, static_cast<const double*>(p), a.shape);
          break;
        case DType::Int32:
          simscope::io::write_npy(out, static_cast<const std::int32_t*>(p), a.shape);
          break;
        default:
          simscope::io::write_npy(out, static_cast<const std::uint8_t*>(p), a.shape);
      }
      const simscope::io::NpyArray b = simscope::io::read_npy(out);
      simscope::fuzz::check(b.dtype == a.dtype && b.shape == a.shape && b.data == a.data,
                            "an array read, written and read again changed");
    } catch (const simscope::Error& e) {
      simscope::fuzz::fail("an array that was read cannot be written and read back", e.what());
    }
  });
  return 0;
}
