/// @file Numeric CSV reader. csv.hpp describes the accepted dialect.
#include "io/csv.hpp"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "core/trimmed.hpp"

namespace simscope::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(path + ": " + what);
}

/// Splits a line on ',' and trims each cell. Surrounding double quotes are removed.
std::vector<std::string_view> split_cells(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    std::string_view cell =
        trimmed_view(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"')
      cell = trimmed_view(cell.substr(1, cell.size() - 2));
    cells.push_back(cell);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

/// Parses a whole cell as a double, e.g. "1.5", "-2e3", "+4", "nan", "inf". False otherwise.
bool parse_number(std::string_view cell, double& out) {
  if (!cell.empty() && cell.front() == '+') {  // from_chars refuses a leading '+'
    cell.remove_prefix(1);
    if (!cell.empty() && (cell.front() == '+' || cell.front() == '-')) return false;
  }
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), out);
  // Out-of-range values become +-inf or 0, as strtod gives them. Callers check finiteness.
  if (ec == std::errc::result_out_of_range) {
    out = std::strtod(std::string(cell).c_str(), nullptr);
    return end == cell.data() + cell.size();
  }
  return ec == std::errc() && end == cell.data() + cell.size();
}

/// A cell for a one-line message: at most 40 characters, control characters as '?'.
std::string quote(std::string_view cell) {
  std::string s(cell.substr(0, 40));
  for (char& ch : s)
    if (static_cast<unsigned char>(ch) < 0x20) ch = '?';
  return cell.size() > 40 ? s + "..." : s;
}

}  // namespace

CsvTable read_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open (") + std::strerror(errno) + ")");
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte order mark

  CsvTable t;
  bool seen_first = false;    // the first non-blank, non-comment line was handled
  std::size_t cols_line = 0;  // line that fixed the column count
  std::size_t line_no = 0, pos = 0;
  while (pos <= text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view line = trimmed_view(std::string_view(text).substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;

    const auto cells = split_cells(line);
    if (!seen_first) {
      seen_first = true;
      // A header has no numbers at all. A first line mixing numbers and text is a data row with a
      // typo, reported below.
      bool header = true;
      double v;
      for (auto c : cells) header &= !c.empty() && !parse_number(c, v);
      if (header) {
        for (auto c : cells) t.header.emplace_back(c);
        t.cols = cells.size();
        cols_line = line_no;
        continue;
      }
    }
    if (t.cols == 0) {
      t.cols = cells.size();
      cols_line = line_no;
    }
    if (cells.size() != t.cols)
      fail(path, "line " + std::to_string(line_no) + ": " + std::to_string(cells.size()) +
                     " cells, expected " + std::to_string(t.cols) + " as on line " +
                     std::to_string(cols_line));
    for (std::size_t c = 0; c < cells.size(); ++c) {
      double v;
      if (cells[c].empty())
        fail(path, "line " + std::to_string(line_no) + ", column " + std::to_string(c + 1) +
                       ": empty cell; expected a number");
      if (!parse_number(cells[c], v))
        fail(path, "line " + std::to_string(line_no) + ", column " + std::to_string(c + 1) + ": '" +
                       quote(cells[c]) + "' is not a number");
      t.values.push_back(v);
    }
    ++t.rows;
  }
  if (t.rows == 0)
    fail(path, std::string(t.header.empty() ? "" : "only a header, ") +
                   "no data rows; expected lines of comma-separated numbers");
  return t;
}

}  // namespace simscope::io
