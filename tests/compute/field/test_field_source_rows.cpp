// Parts of a source set (field/sources.hpp): rows [b, e) of a generated set bit for bit those
// of the whole set, and rows of source files (written by numpy: C and Fortran order, float32
// and float64, both byte orders, more rows than one read chunk) equal to the whole file's with
// the values numpy wrote; a bad row seen only by the range holding it; the whole file's
// truncation seen by every range; ranges beyond the set refused with a message naming it.
#include <cstring>

#include "field/sources.hpp"
#include "test_field_util.hpp"

namespace simscope::field {
namespace {

namespace fs = std::filesystem;
using test::error_of;

fs::path tmp(const std::string& name) { return test::tmp_dir() / name; }

/// Rows [b, e) of `s`.
Sources slice(const Sources& s, std::size_t b, std::size_t e) {
  Sources out;
  for (auto [dst, src] : {std::pair{&out.x, &s.x}, {&out.y, &s.y}, {&out.z, &s.z}, {&out.q, &s.q}})
    dst->assign(src->begin() + std::ptrdiff_t(b), src->begin() + std::ptrdiff_t(e));
  return out;
}

/// Whether a and b hold the same bits (float == would equate -0 and 0).
bool same_bits(const Sources& a, const Sources& b) {
  auto eq = [](const std::vector<float>& u, const std::vector<float>& v) {
    return u.size() == v.size() &&
           (u.empty() || std::memcmp(u.data(), v.data(), 4 * u.size()) == 0);
  };
  return eq(a.x, b.x) && eq(a.y, b.y) && eq(a.z, b.z) && eq(a.q, b.q);
}

/// Ranges of [0, n): the whole, halves, thirds with odd starts, single rows, empty ones.
std::vector<IndexRange> ranges_of(std::size_t n) {
  std::vector<IndexRange> r = {{0, n}, {0, n / 2}, {n / 2, n}, {n, n}, {0, 0}, {n - 1, n}};
  for (std::size_t parts : {3, 4, 7})
    for (const IndexRange& p : split_evenly(n, parts)) r.push_back(p);
  if (n > 3) r.push_back({1, 2}), r.push_back({3, n - 1});
  return r;
}

// Every distribution, odd and even counts (dipoles: ranges starting at a pair's second member
// and ending at its first), the lattice's truncated cube: each range equals that slice of the
// whole set bit for bit; the ranges of a split cover the set.
TEST(FieldSourceRows, GeneratedRangesAreSlicesOfTheWholeSet) {
  for (const char* dist : {"uniform", "gaussian", "dipoles", "lattice"})
    for (std::size_t n : {1, 2, 9, 30, 1001}) {
      const Sources whole = generate_sources(dist, n, 1.5, 42);
      for (const IndexRange& r : ranges_of(n)) {
        const Sources part = generate_source_rows(dist, n, 1.5, 42, r);
        EXPECT_TRUE(same_bits(part, slice(whole, r.begin, r.end)))
            << dist << " of " << n << ", rows [" << r.begin << ", " << r.end << ")";
        EXPECT_NE(part.generation, 0u);
      }
      const Sources tail =
          generate_source_rows(dist, n, 1.5, 42, IndexRange{n / 2, IndexRange::kToEnd});
      EXPECT_TRUE(same_bits(tail, slice(whole, n / 2, n))) << dist << ": to the end";
    }
  // A range far into a large set: the stream is skipped, not replayed (still bit-identical).
  const Sources big = generate_sources("gaussian", 300000, 1.0, 3);
  EXPECT_TRUE(same_bits(generate_source_rows("gaussian", 300000, 1.0, 3, {299990, 300000}),
                        slice(big, 299990, 300000)));
}

TEST(FieldSourceRows, GeneratedRangeErrors) {
  const std::string m = error_of([] { generate_source_rows("uniform", 10, 1, 1, {4, 11}); });
  EXPECT_NE(m.find("sources [4, 11) asked for, sources.count is 10"), std::string::npos) << m;
  EXPECT_NE(error_of([] {
              generate_source_rows("uniform", 10, 1, 1, {5, 4});
            }).find("[5, 4)"),
            std::string::npos);
  // The generator's own checks come first, as generate_sources makes them.
  EXPECT_NE(error_of([] {
              generate_source_rows("plasma", 10, 1, 1, {0, 1});
            }).find("plasma"),
            std::string::npos);
  EXPECT_THROW(generate_source_rows("uniform", 0, 1, 1, {0, 0}), Error);
  EXPECT_THROW(generate_source_rows("uniform", 10, -1, 1, {0, 1}), Error);
}

/// Source files written by numpy: value of element (i, c) = ((4 i + c) % 1999) / 8 - 100.
void write_files() {
  static bool done = false;
  if (done) return;
  const std::string d = test::tmp_dir().string() + "/";
  ASSERT_EQ(test::run_numpy("d = '" + d + "'\n" + R"(
def vals(n, cols, dt):
    i = np.arange(n * 4).reshape(n, 4)
    return (((i % 1999) / 8.0) - 100.0)[:, :cols].astype(dt)
np.save(d + 'rows_c8.npy', vals(1000, 4, np.float64))
np.save(d + 'rows_f4be.npy', np.asfortranarray(vals(1000, 3, '>f4')))
np.save(d + 'rows_f8f.npy', np.asfortranarray(vals(1000, 4, np.float64)))
np.save(d + 'rows_big.npy', vals(300001, 4, np.float32))  # more than one chunk of 2^18 rows
a = vals(1000, 4, np.float64); a[700, 2] = np.nan
np.save(d + 'rows_nan.npy', a)
np.save(d + 'rows_trunc.npy', vals(1000, 4, np.float64))
raw = open(d + 'rows_trunc.npy', 'rb').read()
open(d + 'rows_trunc.npy', 'wb').write(raw[:len(raw) - 8])  # the last value cut short
np.savetxt(d + 'rows.csv', vals(50, 4, np.float64), delimiter=',')
)"),
            0);
  done = true;
}

float value(std::size_t i, std::size_t c) {
  return float(double((4 * i + c) % 1999) / 8.0 - 100.0);
}

TEST(FieldSourceRows, FileRangesAreTheFileRows) {
  write_files();
  struct F {
    const char* name;
    std::size_t rows, cols;
  };
  for (const F& f :
       {F{"rows_c8.npy", 1000, 4}, F{"rows_f4be.npy", 1000, 3}, F{"rows_f8f.npy", 1000, 4},
        F{"rows_big.npy", 300001, 4}, F{"rows.csv", 50, 4}}) {
    SCOPED_TRACE(f.name);
    const std::string path = tmp(f.name).string();
    EXPECT_EQ(source_file_count(path), f.rows);
    EXPECT_EQ(source_rows_readable(path), std::string(f.name).ends_with(".npy"));
    const Sources whole = load_sources(path);
    ASSERT_EQ(whole.size(), f.rows);
    for (std::size_t i = 0; i < f.rows; i += 997) {  // the values numpy wrote
      EXPECT_EQ(whole.x[i], value(i, 0)) << i;
      EXPECT_EQ(whole.z[i], value(i, 2)) << i;
      EXPECT_EQ(whole.q[i], f.cols == 4 ? value(i, 3) : 1.0f) << i;
    }
    std::vector<IndexRange> rs = ranges_of(f.rows);
    if (f.rows > 262144) rs.push_back({100, 290000});  // across the chunk boundary
    for (const IndexRange& r : rs) {
      const Sources part = load_source_rows(path, r);
      EXPECT_TRUE(same_bits(part, slice(whole, r.begin, r.end)))
          << "rows [" << r.begin << ", " << r.end << ")";
      EXPECT_NE(part.generation, 0u);
    }
  }
}

// A bad row is seen by the range that holds it (its file row named), not by the others; a
// truncated file by every range (the header's size against the file's), an empty one too.
TEST(FieldSourceRows, FileErrorsOfARange) {
  write_files();
  const std::string nan = tmp("rows_nan.npy").string(), trunc = tmp("rows_trunc.npy").string();
  EXPECT_EQ(load_source_rows(nan, {0, 700}).size(), 700u);
  EXPECT_EQ(load_source_rows(nan, {701, 1000}).size(), 299u);
  std::string m = error_of([&] { load_source_rows(nan, {500, 1000}); });
  EXPECT_NE(m.find("rows_nan.npy: row 700: non-finite z value (nan)"), std::string::npos) << m;
  for (const IndexRange& r : std::vector<IndexRange>{{0, 0}, {0, 10}, {990, 1000}}) {
    m = error_of([&] { load_source_rows(trunc, r); });
    EXPECT_NE(m.find("rows_trunc.npy: truncated: header says 32000 bytes of data, file has 31992"),
              std::string::npos)
        << m;
  }
  m = error_of([&] { source_file_count(trunc); });
  EXPECT_NE(m.find("rows_trunc.npy: truncated"), std::string::npos) << m;
  m = error_of([&] { load_source_rows(tmp("rows_c8.npy").string(), {5, 1001}); });
  EXPECT_NE(m.find("rows_c8.npy: sources [5, 1001) asked for, the file has 1000"),
            std::string::npos)
      << m;
  m = error_of([&] { load_source_rows(tmp("rows.csv").string(), {0, 51}); });
  EXPECT_NE(m.find("rows.csv: sources [0, 51) asked for, the file has 50"), std::string::npos) << m;
  // The shape and dtype checks of load_sources, from the header alone.
  ASSERT_EQ(test::run_numpy("np.save('" + tmp("rows_i4.npy").string() +
                            "', np.zeros((3, 4), np.int32))\nnp.save('" +
                            tmp("rows_cols5.npy").string() + "', np.zeros((4, 5)))\n"),
            0);
  m = error_of([&] { load_source_rows(tmp("rows_i4.npy").string(), {0, 0}); });
  EXPECT_NE(m.find("dtype int32 is not supported for sources"), std::string::npos) << m;
  m = error_of([&] { source_file_count(tmp("rows_cols5.npy").string()); });
  EXPECT_NE(m.find("(P,4) or (P,3) expected, got (4, 5)"), std::string::npos) << m;
  m = error_of([&] { source_file_count(tmp("rows.txt").string()); });
  EXPECT_NE(m.find(".npy or .csv"), std::string::npos) << m;
}

// The SourceSpec forms: the count without loading, the rows of a file or of the generator.
TEST(FieldSourceRows, FromSourceSpec) {
  write_files();
  SourceSpec spec;
  spec.distribution = "dipoles";
  spec.count = 77;
  EXPECT_EQ(source_count(spec), 77u);
  EXPECT_TRUE(same_bits(make_source_rows(spec, {13, 40}), slice(make_sources(spec), 13, 40)));
  spec.file = tmp("rows_f8f.npy").string();
  EXPECT_EQ(source_count(spec), 1000u);
  EXPECT_TRUE(same_bits(make_source_rows(spec, {333, 667}), slice(make_sources(spec), 333, 667)));
  spec.file = tmp("absent.npy").string();
  EXPECT_NE(error_of([&] { source_count(spec); }).find("absent.npy: cannot open"),
            std::string::npos);
}

}  // namespace
}  // namespace simscope::field
