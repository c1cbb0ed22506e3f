/// Tests of compute/io/csv: header detection, comments, blank lines, CRLF, whitespace, and the
/// messages for ragged rows, text cells and files without data.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/csv.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using simscope::io::CsvTable;
using simscope::io::read_csv;

namespace {

fs::path tmp_dir() { return simscope::test::scratch_dir(); }

/// Writes `text` verbatim to a scratch file and returns its path.
std::string write_file(const std::string& name, const std::string& text) {
  const std::string p = (tmp_dir() / name).string();
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

/// The message of the simscope::Error thrown by read_csv(path) ("" and a failure if none).
std::string error_of(const std::string& path) {
  try {
    read_csv(path);
  } catch (const simscope::Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "message is not one line: " << m;
    return m;
  }
  ADD_FAILURE() << "no simscope::Error for " << path;
  return "";
}

TEST(Csv, NoHeader) {
  const CsvTable t = read_csv(write_file("plain.csv", "1,2,3\n4,5,6.5\n"));
  EXPECT_TRUE(t.header.empty());
  EXPECT_EQ(t.rows, 2u);
  EXPECT_EQ(t.cols, 3u);
  EXPECT_EQ(t.values, (std::vector<double>{1, 2, 3, 4, 5, 6.5}));
}

TEST(Csv, HeaderCommentsBlankLinesCrlfAndWhitespace) {
  const std::string text =
      "\xEF\xBB\xBF# exported by a tool\r\n"
      "\r\n"
      " x , y ,\"z\",q\r\n"
      "  1.5 , -2e3 ,\t0.25,+4\r\n"
      "   # a comment inside\r\n"
      "\r\n"
      "-0.5,1E-2,7,8";  // no final newline
  const CsvTable t = read_csv(write_file("header.csv", text));
  EXPECT_EQ(t.header, (std::vector<std::string>{"x", "y", "z", "q"}));
  EXPECT_EQ(t.rows, 2u);
  EXPECT_EQ(t.cols, 4u);
  EXPECT_EQ(t.values, (std::vector<double>{1.5, -2000, 0.25, 4, -0.5, 0.01, 7, 8}));
}

TEST(Csv, NonFiniteCellsAreNumbers) {
  const CsvTable t = read_csv(write_file("nonfinite.csv", "nan,inf\n-inf,NaN\n1e999,-Infinity\n"));
  ASSERT_EQ(t.values.size(), 6u);
  EXPECT_TRUE(t.header.empty());
  EXPECT_TRUE(std::isnan(t.values[0]));
  EXPECT_EQ(t.values[1], INFINITY);
  EXPECT_EQ(t.values[2], -INFINITY);
  EXPECT_TRUE(std::isnan(t.values[3]));
  EXPECT_EQ(t.values[4], INFINITY);
  EXPECT_EQ(t.values[5], -INFINITY);
}

TEST(Csv, RaggedRowNamesTheLine) {
  const std::string m = error_of(write_file("ragged.csv", "x,y,z\n1,2,3\n# c\n4,5\n"));
  EXPECT_NE(m.find("ragged.csv"), std::string::npos) << m;
  EXPECT_NE(m.find("line 4"), std::string::npos) << m;
  EXPECT_NE(m.find("2 cells, expected 3"), std::string::npos) << m;
}

TEST(Csv, TextCellNamesLineAndColumn) {
  const std::string m = error_of(write_file("text.csv", "x,y\n1,2\r\n\r\n3, abc \r\n"));
  EXPECT_NE(m.find("text.csv: line 4, column 2: 'abc' is not a number"), std::string::npos) << m;
  const std::string e = error_of(write_file("emptycell.csv", "1,,3\n"));
  EXPECT_NE(e.find("line 1, column 2: empty cell"), std::string::npos) << e;
}

TEST(Csv, TypoInTheFirstRowIsNotTakenForAHeader) {
  // "1x" is a typo in a data row, not a header: the row must not vanish silently.
  const std::string m = error_of(write_file("typo.csv", "0,0,0.5,1x\n0,0,-0.5,-1\n"));
  EXPECT_NE(m.find("typo.csv: line 1, column 4: '1x' is not a number"), std::string::npos) << m;
}

TEST(Csv, NoDataRows) {
  for (const auto& [name, text] :
       std::vector<std::pair<std::string, std::string>>{{"empty.csv", ""},
                                                        {"only_header.csv", "x,y,z\n"},
                                                        {"only_comments.csv", "# a\n\n# b\n"},
                                                        {"blank.csv", "\r\n  \n"}}) {
    const std::string m = error_of(write_file(name, text));
    EXPECT_NE(m.find(name), std::string::npos) << m;
    EXPECT_NE(m.find("no data rows"), std::string::npos) << m;
  }
}

TEST(Csv, MissingFile) {
  const std::string m = error_of((tmp_dir() / "nope.csv").string());
  EXPECT_NE(m.find("nope.csv: cannot open"), std::string::npos) << m;
}

}  // namespace
