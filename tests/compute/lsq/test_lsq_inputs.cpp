// Inputs of the lsq workload: cube and design files written by numpy (good and bad) and the
// synthetic generator.
#include <cstring>

#include "test_lsq_util.hpp"

namespace simscope::lsq {
namespace {

using test::error_of;
using test::run_numpy;
using test::tmp_dir;

std::string path(const std::string& name) { return (tmp_dir() / name).string(); }

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

class LsqFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ok_ = run_numpy(R"(
rng = np.random.default_rng(1)
np.save(d + '/f_cube.npy', rng.standard_normal((6, 3, 4)))
np.save(d + '/f_cube_fortran.npy', np.asfortranarray(rng.standard_normal((6, 3, 4)).astype(np.float32)))
np.save(d + '/f_cube_int.npy', np.ones((6, 3, 4), np.int32))
np.save(d + '/f_cube_i2.npy', np.ones((6, 3, 4), np.int16))
np.save(d + '/f_cube_f2.npy', np.ones((6, 3, 4), np.float16))
np.save(d + '/f_cube_2d.npy', rng.standard_normal((6, 12)))
c = rng.standard_normal((6, 3, 4)); c[2, 1, 3] = np.inf; np.save(d + '/f_cube_inf.npy', c)
np.save(d + '/f_A.npy', rng.standard_normal((6, 2)))
np.save(d + '/f_A_int.npy', np.arange(12, dtype=np.int64).reshape(6, 2))
np.save(d + '/f_A_col.npy', rng.standard_normal(6))
a = rng.standard_normal((6, 2)); a[4, 1] = np.nan; np.save(d + '/f_A_nan.npy', a)
np.save(d + '/f_A_3d.npy', rng.standard_normal((6, 2, 1)))
np.save(d + '/f_A_7.npy', rng.standard_normal((7, 2)))
open(d + '/f_A.csv', 'w').write('u,v\n1,2\n3,4\n5,6\n7,8\n9,10\n11,12\n')
open(d + '/f_A_text.csv', 'w').write('1,2\n3,x\n')
open(d + '/f_A_inf.csv', 'w').write('1,2\n3,inf\n')
open(d + '/f_A.txt', 'w').write('1 2\n')
)") == 0;
  }
  void SetUp() override {
    if (!ok_) GTEST_SKIP() << "numpy (" << SIMSCOPE_PYTHON << ") is needed for this test";
  }
  static bool ok_;
};
bool LsqFiles::ok_ = false;

TEST_F(LsqFiles, GoodCubesAndDesigns) {
  const Cube c = load_cube(path("f_cube.npy"));
  EXPECT_EQ(c.m, 6u);
  EXPECT_EQ(c.height, 3u);
  EXPECT_EQ(c.width, 4u);
  EXPECT_EQ(c.dtype, io::DType::Float64);
  EXPECT_NE(c.generation, 0u);
  const Cube f = load_cube(path("f_cube_fortran.npy"));
  EXPECT_EQ(f.dtype, io::DType::Float32);
  EXPECT_EQ(f.pixels(), 12u);
  const Design a = load_design(path("f_A.npy"));
  EXPECT_EQ(a.m, 6u);
  EXPECT_EQ(a.n, 2u);
  const Design ai = load_design(path("f_A_int.npy"));
  EXPECT_EQ(ai.at(5, 1), 11.0);
  const Design col = load_design(path("f_A_col.npy"));
  EXPECT_EQ(col.n, 1u);
  const Design csv = load_design(path("f_A.csv"));
  EXPECT_EQ(csv.m, 6u);
  EXPECT_EQ(csv.at(2, 1), 6.0);
}

TEST_F(LsqFiles, BadFilesNameTheProblem) {
  struct Case {
    std::function<void()> f;
    std::vector<std::string> words;
  };
  const std::vector<Case> cases = {
      {[] { load_cube(path("f_cube_int.npy")); },
       {"f_cube_int.npy", "int32", "float32 or float64"}},
      {[] { load_cube(path("f_cube_2d.npy")); }, {"f_cube_2d.npy", "(6, 12)", "(M, H, W)"}},
      {[] { load_cube(path("f_cube_inf.npy")); }, {"[2, 1, 3]", "inf"}},
      {[] { load_cube(path("nope.npy")); }, {"nope.npy"}},
      {[] { load_cube(path("f_A.csv")); }, {".npy"}},
      {[] { load_design(path("f_A_nan.npy")); }, {"A[4, 1]", "nan", "finite"}},
      {[] { load_design(path("f_A_3d.npy")); }, {"(6, 2, 1)", "2-D"}},
      {[] { load_design(path("f_A_text.csv")); }, {"f_A_text.csv", "'x'"}},
      {[] { load_design(path("f_A_inf.csv")); }, {"data row 2, column 2", "inf"}},
      {[] { load_design(path("f_A.txt")); }, {"f_A.txt", ".npy or .csv"}},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(c.f);
    ASSERT_FALSE(msg.empty());
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;  // one line
    for (const auto& w : c.words) EXPECT_TRUE(contains(msg, w)) << msg << " lacks " << w;
  }
}

// QA: an int16 or float16 cube was refused with "expected float32, float64, int32, int64 or
// uint8", though the cube takes only float32/float64: the message lists what the cube accepts.
TEST_F(LsqFiles, UnreadableCubeDtypeNamesWhatTheCubeAccepts) {
  for (const char* f : {"f_cube_i2.npy", "f_cube_f2.npy"}) {
    const std::string msg = error_of([&] { load_cube(path(f)); });
    EXPECT_TRUE(contains(msg, f) && contains(msg, "float32 or float64")) << msg;
    EXPECT_TRUE(contains(msg, std::string(f) == "f_cube_i2.npy" ? "int16" : "float16")) << msg;
    for (const char* other : {"int32", "int64", "uint8"})
      EXPECT_FALSE(contains(msg, other)) << msg << " lists " << other;
  }
  // The design matrix takes any dtype the reader reads, and says so.
  const std::string design = error_of([] { load_design(path("f_cube_i2.npy")); });
  EXPECT_TRUE(contains(design, "int16") && contains(design, "int32, int64 or uint8")) << design;
}

TEST(LsqSynth, DeterministicAndAsAsked) {
  SynthSpec s;
  s.height = 40, s.width = 30, s.m = 25, s.n = 6, s.nan_fraction = 0.3, s.noise = 0.0;
  const Synth a = generate(s), b = generate(s);
  EXPECT_EQ(a.cube.bytes, b.cube.bytes);
  EXPECT_EQ(a.design.a, b.design.a);
  EXPECT_EQ(a.cube.dtype, io::DType::Float32);
  std::size_t nans = 0;
  for (std::size_t k = 0; k < a.cube.size(); ++k) nans += std::isnan(a.cube.f32()[k]);
  EXPECT_NEAR(double(nans) / double(a.cube.size()), 0.3, 0.02);
  // Without noise the data are A x (rounded to float32).
  const std::size_t P = a.cube.pixels();
  for (std::size_t p = 0; p < P; p += 97)
    for (std::size_t i = 0; i < s.m; ++i) {
      const double v = a.cube.at(i, p);
      if (std::isnan(v)) continue;
      double ax = 0;
      for (std::size_t k = 0; k < s.n; ++k) ax += a.design.at(i, k) * a.truth[k * P + p];
      EXPECT_NEAR(v, ax, 1e-6 * (1 + std::fabs(ax)));
    }
  s.seed = 2;
  EXPECT_NE(generate(s).cube.bytes, a.cube.bytes);
}

TEST(LsqSynth, Designs) {
  const Design poly = make_design("polynomial", 9, 3, 1);
  EXPECT_DOUBLE_EQ(poly.at(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(poly.at(0, 1), -1.0);
  EXPECT_DOUBLE_EQ(poly.at(8, 2), 1.0);   // P2(1) = 1
  EXPECT_DOUBLE_EQ(poly.at(4, 2), -0.5);  // P2(0)
  const Design bands = make_design("gaussian_bands", 11, 3, 1);
  EXPECT_DOUBLE_EQ(bands.at(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(bands.at(5, 1), 1.0);
  EXPECT_LT(bands.at(10, 0), 1e-3);
  EXPECT_TRUE(contains(error_of([] { make_design("fourier", 3, 3, 1); }), "fourier"));
  // Every generated design recovers its maps from noise-free (float32) data. (Legendre
  // polynomials at equispaced points get ill-conditioned fast: N = 50 with 20 % gaps reaches
  // cond(A_p) ~ 1e8, where float32 data no longer determine x; N = 20 stays near 10.)
  for (const char* kind : {"random", "polynomial", "gaussian_bands"}) {
    SynthSpec s;
    s.height = 8, s.width = 9, s.m = 100, s.n = 20, s.design = kind, s.noise = 0;
    const Synth syn = generate(s);
    Result r;
    make_solver(Backend::Cpu)->solve(syn.cube, syn.design, Options{}, r);
    double worst = 0;
    for (std::size_t p = 0; p < 72; ++p)
      worst = std::max(worst, test::pixel_error(r, syn.truth, p));
    EXPECT_LE(worst, 1e-5) << kind;
    EXPECT_EQ(r.status_counts[kOk], 72u) << kind;
  }
}

TEST(LsqMemory, CubeLargerThanMemoryIsRefused) {
  SynthSpec s;
  s.height = 8192, s.width = 8192, s.m = 65536, s.n = 2;  // 16 TiB
  const std::string msg = error_of([&] { generate(s); });
  EXPECT_TRUE(contains(msg, "TiB") || contains(msg, "GiB")) << msg;
  EXPECT_TRUE(contains(msg, "available")) << msg;
  EXPECT_GT(available_host_bytes(), 1e6);
}

}  // namespace
}  // namespace simscope::lsq
