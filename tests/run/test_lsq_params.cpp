// The lsq workload's parameter schema and its readers: names, defaults, options_from and
// make_problem (file inputs, design.file alone, the generator).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/npy.hpp"
#include "lsq/lsq_params.hpp"

namespace simscope::lsq {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

std::filesystem::path dir() {
  static const std::filesystem::path d =
      std::filesystem::path(SIMSCOPE_TEST_TMP) / ("lsq_params_" + std::to_string(::getpid()));
  return d;
}

std::string path(const std::string& name) { return (dir() / name).string(); }

/// A (6, 3, 4) cube, a (6, 2) design as .npy and as CSV, and a (7, 2) design.
void write_files() {
  std::filesystem::create_directories(dir());
  std::vector<double> cube(6 * 3 * 4), a6(6 * 2), a7(7 * 2);
  for (std::size_t i = 0; i < cube.size(); ++i) cube[i] = 0.25 * double(i % 7) - 0.5;
  for (std::size_t i = 0; i < a6.size(); ++i) a6[i] = 1.0 + double(i);
  for (std::size_t i = 0; i < a7.size(); ++i) a7[i] = 2.0 - double(i);
  io::write_npy(path("f_cube.npy"), cube.data(), {6, 3, 4});
  io::write_npy(path("f_A.npy"), a6.data(), {6, 2});
  io::write_npy(path("f_A_7.npy"), a7.data(), {7, 2});
  std::ofstream(path("f_A.csv")) << "u,v\n1,2\n3,4\n5,6\n7,8\n9,10\n11,12\n";
}

TEST(LsqParams, MakeProblemFromParameters) {
  write_files();
  ParamSet p = schema().defaults();
  p.set("data.file", path("f_cube.npy"));
  EXPECT_TRUE(contains(error_of([&] { make_problem(p); }), "design.file"));
  p.set("design.file", path("f_A_7.npy"));
  const std::string mismatch = error_of([&] { make_problem(p); });
  EXPECT_TRUE(contains(mismatch, "M = 6") && contains(mismatch, "7 rows")) << mismatch;
  p.set("design.file", path("f_A.npy"));
  const Synth s = make_problem(p);
  EXPECT_EQ(s.cube.m, 6u);
  EXPECT_EQ(s.design.n, 2u);
  EXPECT_TRUE(s.truth.empty());
  // design.file alone: synthetic data made with that A.
  ParamSet q = schema().defaults();
  q.set("design.file", path("f_A.csv"));
  q.set("synth.height", std::int64_t(5));
  q.set("synth.width", std::int64_t(4));
  const Synth t = make_problem(q);
  EXPECT_EQ(t.cube.m, 6u);
  EXPECT_EQ(t.design.n, 2u);
  EXPECT_EQ(t.truth.size(), 2u * 20);
}

// The data file is named first: a missing cube before design.file is asked for or read.
TEST(LsqParams, AFileThatCannotBeReadIsNamedByItsParameter) {
  write_files();
  ParamSet p = schema().defaults();
  p.set("data.file", std::string("/nonexistent/cube.npy"));
  const std::string alone = error_of([&] { make_problem(p); });
  EXPECT_EQ(alone.rfind("data.file: /nonexistent/cube.npy: cannot open", 0), 0u) << alone;
  p.set("design.file", std::string("/nonexistent/A.npy"));
  const std::string both = error_of([&] { make_problem(p); });
  EXPECT_EQ(both.rfind("data.file: /nonexistent/cube.npy: cannot open", 0), 0u) << both;
  p.set("data.file", path("f_A.npy"));  // a .npy, but no cube: its shape is named, not design.file
  const std::string flat = error_of([&] { make_problem(p); });
  EXPECT_EQ(flat.rfind("data.file: " + path("f_A.npy") + ": shape (6, 2) has 2 dimensions", 0), 0u)
      << flat;
  p.set("data.file", path("f_cube.npy"));
  const std::string design = error_of([&] { make_problem(p); });
  EXPECT_EQ(design.rfind("design.file: /nonexistent/A.npy: cannot open", 0), 0u) << design;
}

TEST(LsqParams, ParametersAndOptions) {
  const Schema& s = schema();
  EXPECT_EQ(s.workload(), "lsq");
  for (const char* n :
       {"data.file", "design.file", "synth.height", "synth.width", "synth.observations",
        "synth.unknowns", "synth.nan_fraction", "synth.noise", "synth.seed", "synth.design",
        "method", "lambda", "precision", "view", "view.component"})
    EXPECT_NE(s.find(n), nullptr) << n;
  ParamSet p = s.defaults();
  EXPECT_EQ(p.get_string("precision"), "fp64");
  EXPECT_EQ(p.get_string("view"), "solution");
  EXPECT_THROW(p.set_from_string("lambda", "-1"), Error);
  EXPECT_THROW(p.set_from_string("method", "lu"), Error);
  p.set_from_string("method", "qr");
  p.set_from_string("precision", "fp32");
  p.set_from_string("lambda", "0.25");
  const Options o = options_from(p);
  EXPECT_EQ(o.method, Method::Qr);
  EXPECT_EQ(o.precision, Precision::Fp32);
  EXPECT_EQ(o.lambda, 0.25);
}

TEST(LsqParams, ViewComponentIsUsedByTheSolutionViewOnly) {
  // The window draws view.component disabled with this reason in the other views, and the CLI
  // warns about a component set for them.
  ParamSet p = schema().defaults();
  EXPECT_EQ(p.schema().unused_reason(p, "view.component"), "");
  p.set("view.component", std::int64_t(3));
  EXPECT_TRUE(p.schema().unused_warnings(p).empty());
  for (const char* v : {"residual", "count", "status", "condition"}) {
    p.set("view", std::string(v));
    EXPECT_EQ(p.schema().unused_reason(p, "view.component"),
              std::string("not used: view is '") + v +
                  "' (it picks the unknown x_k that the solution view shows)");
    const std::vector<std::string> w = p.schema().unused_warnings(p);
    ASSERT_EQ(w.size(), 1u) << v;
    EXPECT_EQ(w[0], std::string("view.component is not used: view is '") + v +
                        "' (it picks the unknown x_k that the solution view shows)");
  }
  p.set("view.component", std::int64_t(0));  // at its default: no warning
  EXPECT_TRUE(p.schema().unused_warnings(p).empty());
}

TEST(LsqParams, DowndateMethod) {
  ParamSet p = schema().defaults();
  p.set_from_string("method", "downdate");
  EXPECT_EQ(options_from(p).method, Method::Downdate);
}

}  // namespace
}  // namespace simscope::lsq
