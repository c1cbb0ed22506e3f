// Source generators (count, range, charges, determinism) and source files (.npy written by
// numpy, CSV), including the bad inputs that must be refused with a message naming the file.
#include "test_field_util.hpp"

namespace simscope::field {
namespace {

namespace fs = std::filesystem;
using test::error_of;

void expect_in_box(const Sources& s, double lim) {
  for (std::size_t j = 0; j < s.size(); ++j) {
    ASSERT_LE(std::fabs(s.x[j]), lim) << j;
    ASSERT_LE(std::fabs(s.y[j]), lim) << j;
    ASSERT_LE(std::fabs(s.z[j]), lim) << j;
  }
}

TEST(FieldSources, UniformCountRangeCharges) {
  const Sources s = generate_sources("uniform", 10001, 2.0, 42);
  ASSERT_EQ(s.size(), 10001u);
  EXPECT_EQ(s.x.size(), s.q.size());
  expect_in_box(s, 2.0);
  double mean = 0;
  for (float q : s.q) {
    EXPECT_GE(q, 0.5f);
    EXPECT_LE(q, 1.5f);
  }
  for (float x : s.x) mean += x;
  EXPECT_NEAR(mean / double(s.size()), 0.0, 0.1);
  EXPECT_NE(s.generation, 0u);
}

TEST(FieldSources, GaussianDipolesLattice) {
  const Sources g = generate_sources("gaussian", 8000, 1.0, 1);
  ASSERT_EQ(g.size(), 8000u);
  for (float q : g.q) EXPECT_EQ(q, 1.0f);
  expect_in_box(g, 0.5 + 0.1 * 7);  // centres in [-hw/2, hw/2], sigma hw/10: 7 sigma
  const Sources d = generate_sources("dipoles", 1001, 1.0, 1);
  ASSERT_EQ(d.size(), 1001u);
  for (std::size_t j = 0; j + 1 < d.size(); j += 2) {
    EXPECT_EQ(d.q[j], 1.0f);
    EXPECT_EQ(d.q[j + 1], -1.0f);
    const double dx = d.x[j] - d.x[j + 1], dy = d.y[j] - d.y[j + 1], dz = d.z[j] - d.z[j + 1];
    EXPECT_NEAR(std::sqrt(dx * dx + dy * dy + dz * dz), 1.0 / 50, 1e-6);
  }
  EXPECT_EQ(d.q[1000], 1.0f);  // the odd count's lone charge
  expect_in_box(d, 1.0 + 1.0 / 100);
  const Sources l = generate_sources("lattice", 30, 1.0, 1);  // 4 per side, truncated to 30
  ASSERT_EQ(l.size(), 30u);
  expect_in_box(l, 1.0);
  EXPECT_EQ(l.x[0], -1.0f);
  EXPECT_EQ(l.z[0], -1.0f);
  EXPECT_EQ(l.z[3], 1.0f);
  EXPECT_NEAR(l.z[1], -1.0 / 3, 1e-7);
  EXPECT_EQ(l.q[0], 1.0f);
  EXPECT_EQ(l.q[1], -1.0f);
  EXPECT_EQ(l.q[4], -1.0f);  // (0, 1, 0)
  const Sources one = generate_sources("lattice", 1, 1.0, 1);
  EXPECT_EQ(one.x[0], 0.0f);
  EXPECT_EQ(generate_sources("lattice", 27, 1.0, 1).x[26], 1.0f);  // exactly 3 per side
}

TEST(FieldSources, DeterministicFromSeed) {
  for (const char* dist : {"uniform", "gaussian", "dipoles"}) {
    const Sources a = generate_sources(dist, 500, 1.0, 7), b = generate_sources(dist, 500, 1.0, 7);
    const Sources c = generate_sources(dist, 500, 1.0, 8);
    EXPECT_EQ(a.x, b.x) << dist;
    EXPECT_EQ(a.z, b.z) << dist;
    EXPECT_EQ(a.q, b.q) << dist;
    EXPECT_NE(a.x, c.x) << dist;
    EXPECT_NE(a.generation, b.generation);  // same content, but each call stamps a new value
  }
  // Pinned values: the generators must not change silently (presets and studies name seeds).
  // std::mt19937_64 is fully specified and the transforms are simscope's own, so these hold on
  // every platform.
  const Sources u = generate_sources("uniform", 2, 1.0, 1);
  EXPECT_FLOAT_EQ(u.x[0], -0.732246697f);
  EXPECT_FLOAT_EQ(u.y[0], -0.727185905f);
  EXPECT_FLOAT_EQ(u.z[1], -0.0584957339f);
  EXPECT_FLOAT_EQ(u.q[1], 0.574425042f);
  const Sources g = generate_sources("gaussian", 2, 1.0, 1);
  EXPECT_FLOAT_EQ(g.x[0], -0.299359709f);
  EXPECT_FLOAT_EQ(g.z[1], 0.358070105f);
}

TEST(FieldSources, GeneratorErrors) {
  EXPECT_NE(error_of([] { generate_sources("plasma", 10, 1, 1); }).find("plasma"),
            std::string::npos);
  EXPECT_THROW(generate_sources("uniform", 0, 1, 1), Error);
  EXPECT_THROW(generate_sources("uniform", 2000000000, 1, 1), Error);
  EXPECT_THROW(generate_sources("uniform", 10, 0, 1), Error);
  EXPECT_THROW(generate_sources("uniform", 10, INFINITY, 1), Error);
}

fs::path tmp(const std::string& name) { return test::tmp_dir() / name; }

// numpy writes the files; the loader reads them back.
TEST(FieldSources, LoadNpyWrittenByNumpy) {
  const std::string f4 = tmp("p4.npy").string(), f3 = tmp("p3.npy").string(),
                    ff = tmp("fortran_be.npy").string();
  ASSERT_EQ(test::run_numpy("a = np.arange(20, dtype=np.float64).reshape(5, 4) / 8 - 1\n"
                            "np.save('" +
                            f4 +
                            "', a)\n"
                            "np.save('" +
                            f3 +
                            "', a[:, :3].astype(np.float32))\n"
                            "np.save('" +
                            ff + "', np.asfortranarray(a.astype('>f4')))\n"),
            0);
  for (const std::string& f : {f4, ff}) {
    const Sources s = load_sources(f);
    ASSERT_EQ(s.size(), 5u) << f;
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(s.x[i], float((4 * i + 0) / 8.0 - 1)) << f;
      EXPECT_EQ(s.y[i], float((4 * i + 1) / 8.0 - 1)) << f;
      EXPECT_EQ(s.z[i], float((4 * i + 2) / 8.0 - 1)) << f;
      EXPECT_EQ(s.q[i], float((4 * i + 3) / 8.0 - 1)) << f;
    }
    EXPECT_NE(s.generation, 0u);
  }
  const Sources s3 = load_sources(f3);
  ASSERT_EQ(s3.size(), 5u);
  EXPECT_EQ(s3.z[4], float(18 / 8.0 - 1));
  for (float q : s3.q) EXPECT_EQ(q, 1.0f);
  // The extension is case-insensitive.
  fs::copy_file(f4, tmp("UPPER.NPY"), fs::copy_options::overwrite_existing);
  EXPECT_EQ(load_sources(tmp("UPPER.NPY").string()).size(), 5u);
}

TEST(FieldSources, LoadCsv) {
  test::write_text(tmp("h.csv"), "x,y,z,q\n0.5, 1, -2, 3\n\n1,2,3,-4\n");
  const Sources a = load_sources(tmp("h.csv").string());
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a.x[0], 0.5f);
  EXPECT_EQ(a.z[0], -2.0f);
  EXPECT_EQ(a.q[1], -4.0f);
  test::write_text(tmp("n.csv"), "1,2,3\n4,5,6\n7,8,9\n");
  const Sources b = load_sources(tmp("n.csv").string());
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b.y[2], 8.0f);
  EXPECT_EQ(b.q[2], 1.0f);
}

/// The message of load_sources(path): must name the file and contain `what`.
void expect_refused(const fs::path& p, const std::string& what) {
  const std::string m = error_of([&] { load_sources(p.string()); });
  EXPECT_NE(m.find(p.filename().string()), std::string::npos) << "no file name in: " << m;
  EXPECT_NE(m.find(what), std::string::npos) << "'" << what << "' not in: " << m;
}

TEST(FieldSources, BadNpyRefused) {
  const auto p = [](const char* n) { return tmp(n).string(); };
  ASSERT_EQ(test::run_numpy("np.save('" + p("i8.npy") +
                            "', np.zeros((3, 4), np.int8))\n"
                            "np.save('" +
                            p("i4.npy") +
                            "', np.zeros((3, 4), np.int32))\n"
                            "np.save('" +
                            p("obj.npy") +
                            "', np.array([[1, 'a', None, 2]], dtype=object), "
                            "allow_pickle=True)\n"
                            "np.save('" +
                            p("shape5.npy") +
                            "', np.zeros(5))\n"
                            "np.save('" +
                            p("cols5.npy") +
                            "', np.zeros((4, 5)))\n"
                            "np.save('" +
                            p("rows0.npy") +
                            "', np.zeros((0, 4), np.float32))\n"
                            "a = np.zeros((4, 4)); a[2, 1] = np.nan\n"
                            "np.save('" +
                            p("nan.npy") +
                            "', a)\n"
                            "a = np.zeros((4, 3), np.float32); a[3, 2] = -np.inf\n"
                            "np.save('" +
                            p("inf.npy") +
                            "', a)\n"
                            "a = np.zeros((2, 4)); a[1, 0] = 1e300\n"
                            "np.save('" +
                            p("big.npy") + "', a)\n"),
            0);
  expect_refused(tmp("i8.npy"), "int8");
  expect_refused(tmp("i4.npy"), "int32");
  expect_refused(tmp("obj.npy"), "");
  expect_refused(tmp("shape5.npy"), "(P,4) or (P,3) expected, got (5,)");
  expect_refused(tmp("cols5.npy"), "got (4, 5)");
  expect_refused(tmp("rows0.npy"), "no sources");
  expect_refused(tmp("nan.npy"), "row 2");
  expect_refused(tmp("nan.npy"), "nan");
  expect_refused(tmp("inf.npy"), "row 3");
  expect_refused(tmp("inf.npy"), "-inf");
  expect_refused(tmp("big.npy"), "float32");
  test::write_text(tmp("empty.npy"), "");
  expect_refused(tmp("empty.npy"), "");
  expect_refused(tmp("does_not_exist.npy"), "");
}

TEST(FieldSources, BadCsvAndExtensionRefused) {
  test::write_text(tmp("text.csv"), "1,2,3\n4,abc,6\n");
  expect_refused(tmp("text.csv"), "abc");
  test::write_text(tmp("empty.csv"), "");
  expect_refused(tmp("empty.csv"), "");
  test::write_text(tmp("header_only.csv"), "x,y,z\n");
  expect_refused(tmp("header_only.csv"), "no data rows");
  test::write_text(tmp("two.csv"), "1,2\n3,4\n");
  expect_refused(tmp("two.csv"), "x,y,z or x,y,z,q expected");
  test::write_text(tmp("nan.csv"), "1,2,3\n4,5,nan\n");
  expect_refused(tmp("nan.csv"), "data row 2");
  test::write_text(tmp("sources.txt"), "1,2,3\n");
  expect_refused(tmp("sources.txt"), ".npy or .csv");
}

}  // namespace
}  // namespace simscope::field
