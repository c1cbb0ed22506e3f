#pragma once
/// @file Reading numeric CSV tables: comma separated, with an optional header line of names.
#include <cstddef>
#include <string>
#include <vector>

namespace simscope::io {

/// A numeric table: rows x cols values in row-major order.
struct CsvTable {
  std::vector<std::string> header;  ///< column names when the first line was a header, else empty
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;       ///< rows * cols
};

/// Reads `path`. The first line is a header when none of its cells is a number.
/// A first line mixing numbers and text is a data row, and its text cell an error.
/// Blank lines and lines starting with '#' are skipped; whitespace around cells is ignored.
/// Every data row must have the same number of cells.
/// Throws simscope::Error for an empty file, or naming the file, line and column,
/// e.g. "sources.csv: line 7, column 2: 'abc' is not a number".
CsvTable read_csv(const std::string& path);

}  // namespace simscope::io
