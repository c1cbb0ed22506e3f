// Fuzzes the workloads' data-file readers on top of read_npy / read_csv: field::load_sources
// (sources.file, .npy or .csv), lsq::load_cube (data.file, .npy) and lsq::load_design
// (design.file, .npy or .csv). Input byte 0 chooses the reader and file type; the rest is the
// file. Beyond "no crash": accepted data is no larger than the file justifies (a value per byte
// of CSV, or the .npy's data), shapes match the storage; every refusal is a simscope::Error.
#include "field/field.hpp"
#include "fuzz_support.hpp"
#include "lsq/lsq.hpp"

using namespace simscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int pick = data[0] % 5;
  const std::string path = pick == 1 || pick == 4 ? fuzz::write_input(data + 1, size - 1, ".csv")
                                                  : fuzz::write_input(data + 1, size - 1, ".npy");
  fuzz::expect_ok_or_error([&] {
    if (pick <= 1) {
      const field::Sources s = field::load_sources(path);
      fuzz::check(s.y.size() == s.size() && s.z.size() == s.size() && s.q.size() == s.size(),
                  "sources x, y, z, q of different lengths");
      fuzz::check(s.size() * 4 <= size, "more sources than the file justifies");
    } else if (pick == 2) {
      const lsq::Cube c = lsq::load_cube(path);
      fuzz::check(c.size() > 0, "accepted an empty cube");
      fuzz::check(c.bytes.size() == c.size() * (c.dtype == io::DType::Float32 ? 4 : 8),
                  "cube storage does not match its shape");
      fuzz::check(c.bytes.size() <= size, "cube larger than the file");
    } else {
      const lsq::Design d = lsq::load_design(path);
      fuzz::check(d.a.size() == d.m * d.n, "design storage does not match its shape");
      fuzz::check(d.a.size() <= size, "more design entries than input bytes");
    }
  });
  return 0;
}
