// Fuzzes io::read_csv (compute/io/csv.cpp): any bytes as a CSV file. Beyond "no crash": an
// accepted table has rows * cols values, at most one per input byte, and a header (when there is
// one) of cols names; every refusal is a simscope::Error (fuzz_support.hpp).
#include "fuzz_support.hpp"
#include "io/csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = simscope::fuzz::write_input(data, size, ".csv");
  simscope::fuzz::expect_ok_or_error([&] {
    const simscope::io::CsvTable t = simscope::io::read_csv(path);
    simscope::fuzz::check(t.rows > 0 && t.cols > 0, "accepted an empty table");
    simscope::fuzz::check(t.values.size() == t.rows * t.cols, "values.size() != rows * cols");
    simscope::fuzz::check(t.values.size() <= size, "more values than input bytes");
    simscope::fuzz::check(t.header.empty() || t.header.size() == t.cols, "header size != cols");
  });
  return 0;
}
