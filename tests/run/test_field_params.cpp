// The field workload's parameter schema: names, defaults, ranges, units, readers and parse
// errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "field/field_params.hpp"

namespace simscope::field {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FieldParams, NamesInOrderWithHelp) {
  const std::vector<std::string> expected = {"sources.file",
                                             "sources.distribution",
                                             "sources.count",
                                             "sources.seed",
                                             "sources.half_width",
                                             "k",
                                             "eps",
                                             "plane",
                                             "plane.offset",
                                             "grid.size",
                                             "grid.half_width",
                                             "targets.file",
                                             "precision",
                                             "method",
                                             "tree.tolerance",
                                             "tree.error_grid",
                                             "view"};
  std::vector<std::string> names;
  for (const auto& s : schema().specs()) {
    names.push_back(s.name);
    EXPECT_FALSE(s.help.empty()) << s.name;
    EXPECT_EQ(s.help.back(), '.') << s.name;  // one sentence
  }
  EXPECT_EQ(names, expected);
  EXPECT_EQ(schema().workload(), "field");
}

TEST(FieldParams, DefaultsTypesUnits) {
  const Schema& s = schema();
  const ParamSet p = s.defaults();
  EXPECT_EQ(p.get_int("sources.count"), 20000);
  EXPECT_EQ(s.at("sources.count").max, 1e9);
  EXPECT_EQ(p.get_int("grid.size"), 128);
  EXPECT_EQ(s.at("grid.size").min, 2);
  EXPECT_EQ(s.at("grid.size").max, 4096);
  EXPECT_EQ(p.get_string("sources.file"), "");
  EXPECT_EQ(s.at("sources.file").type, ParamType::Path);
  EXPECT_EQ(p.get_double("k"), 1.0);
  EXPECT_EQ(p.get_double("eps"), 0.0);
  EXPECT_EQ(p.get_string("precision"), "fp32");
  EXPECT_EQ(p.get_string("view"), "magnitude");
  EXPECT_EQ(s.at("sources.distribution").choices,
            (std::vector<std::string>{"uniform", "gaussian", "dipoles", "lattice"}));
  EXPECT_EQ(s.at("plane").choices, (std::vector<std::string>{"xy", "xz", "yz", "box"}));
  EXPECT_EQ(s.at("view").choices,
            (std::vector<std::string>{"magnitude", "ex", "ey", "ez", "potential", "error"}));
  EXPECT_EQ(p.get_int("tree.error_grid"), 0);
  EXPECT_EQ(s.at("tree.error_grid").max, 64);
  for (const char* len : {"eps", "plane.offset", "grid.half_width", "sources.half_width"})
    EXPECT_EQ(s.at(len).unit, "length") << len;
  EXPECT_STREQ(output_unit("magnitude"), "k*q/length^2");
  EXPECT_STREQ(output_unit("ez"), "k*q/length^2");
  EXPECT_STREQ(output_unit("potential"), "k*q/length");
  EXPECT_THROW(output_unit("phi"), Error);
}

TEST(FieldParams, ASourceFileThatCannotBeReadIsNamedByItsParameter) {
  ParamSet p = schema().defaults();
  p.set("sources.file", std::string("/nonexistent/charges.npy"));
  for (const std::string& m : {error_of([&] { make_sources(p); }),
                               error_of([&] { source_count(p); })})
    EXPECT_EQ(m.rfind("sources.file: /nonexistent/charges.npy: cannot open", 0), 0u) << m;
}

TEST(FieldParams, ParseErrorsNameTheParameter) {
  ParamSet p = schema().defaults();
  for (const char* bad : {"0", "1000000", "1", "abc", "2.5"}) {
    const std::string m = error_of([&] { p.set_from_string("grid.size", bad); });
    EXPECT_NE(m.find("grid.size"), std::string::npos) << bad;
    EXPECT_NE(m.find(bad), std::string::npos) << m;
  }
  EXPECT_NE(error_of([&] { p.set_from_string("grid.sise", "64"); }).find("unknown parameter"),
            std::string::npos);
  EXPECT_THROW(p.set_from_string("eps", "-1"), Error);
  EXPECT_THROW(p.set_from_string("k", "nan"), Error);
  EXPECT_THROW(p.set_from_string("plane", "xw"), Error);
  EXPECT_THROW(p.set_from_string("sources.count", "0"), Error);
  EXPECT_THROW(p.set_from_string("sources.count", "2e9"), Error);
  p.set_from_string("sources.count", "1e6");
  EXPECT_EQ(p.get_int("sources.count"), 1000000);
}

// QA: sources.seed=9007199254740993 (above the stated maximum 2^53) was accepted, and
// grid.size=0x40 read as 64.
TEST(FieldParams, SeedMaximumAndHexRefused) {
  ParamSet p = schema().defaults();
  p.set_from_string("sources.seed", "9007199254740992");
  EXPECT_EQ(p.get_int("sources.seed"), 9007199254740992);
  EXPECT_NE(error_of([&] {
              p.set_from_string("sources.seed", "9007199254740993");
            }).find("parameter sources.seed: expected an integer in [0, 9007199254740992]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { p.set_from_string("grid.size", "0x40"); }).find("got '0x40'"),
            std::string::npos);
  p.set_from_string("grid.size", "64 ");
  EXPECT_EQ(p.get_int("grid.size"), 64);
}

TEST(FieldParams, GridOptionsAndSourcesFromParams) {
  ParamSet p = schema().defaults();
  p.set_from_string("plane", "box");
  p.set_from_string("plane.offset", "2.5");
  p.set_from_string("grid.size", "64");
  p.set_from_string("grid.half_width", "3");
  p.set_from_string("k", "8.99e9");
  p.set_from_string("eps", "0.01");
  p.set_from_string("precision", "fp64");
  const Grid g = grid_from(p);
  EXPECT_EQ(g.kind, PlaneKind::Box);
  EXPECT_EQ(g.offset, 2.5);
  EXPECT_EQ(g.size, 64);
  EXPECT_EQ(g.half_width, 3.0);
  const Options o = options_from(p);
  EXPECT_EQ(o.k, 8.99e9);
  EXPECT_EQ(o.eps, 0.01);
  EXPECT_EQ(o.precision, Precision::Fp64);
  for (const char* kind : {"xy", "xz", "yz"}) {
    p.set_from_string("plane", kind);
    const PlaneKind want = std::string(kind) == "xy"   ? PlaneKind::XY
                           : std::string(kind) == "xz" ? PlaneKind::XZ
                                                       : PlaneKind::YZ;
    EXPECT_EQ(grid_from(p).kind, want);
  }
  p.set_from_string("sources.count", "1234");
  p.set_from_string("sources.distribution", "dipoles");
  const Sources s = make_sources(p);
  EXPECT_EQ(s.size(), 1234u);
  EXPECT_EQ(s.q[0], 1.0f);
  EXPECT_EQ(s.q[1], -1.0f);
  const std::string missing = (std::filesystem::path(SIMSCOPE_TEST_TMP) / "missing.npy").string();
  p.set_from_string("sources.file", missing);
  EXPECT_NE(error_of([&] { make_sources(p); }).find("missing.npy"), std::string::npos);
}

// QA: plane=box with plane.offset=-1 put the face labelled -x at x = +1: the faces are at
// +-|offset| whatever the sign (test_field_targets.cpp checks those faces), and offset 0 gives
// the cube of faces at +-grid.half_width.
TEST(FieldParams, BoxOffsetIsItsMagnitude) {
  for (double off : {-1.0, 1.0, -2.5}) {
    ParamSet p = schema().defaults();
    p.set("plane", std::string("box"));
    p.set("plane.offset", off);
    EXPECT_EQ(grid_from(p).offset, std::fabs(off)) << off;
  }
  ParamSet p = schema().defaults();
  p.set("plane", std::string("box"));
  p.set("grid.half_width", 2.0);
  EXPECT_EQ(grid_from(p).offset, 2.0);
}

TEST(FieldParams, SourceSpecFromParams) {
  ParamSet p = schema().defaults();
  SourceSpec d = source_spec_from(p);
  EXPECT_EQ(d.file, "");
  EXPECT_EQ(d.distribution, "gaussian");
  EXPECT_EQ(d.count, 20000u);
  EXPECT_EQ(d.half_width, 1.0);
  EXPECT_EQ(d.seed, 1u);
  p.set_from_string("sources.file", "a.npy");
  p.set_from_string("sources.distribution", "lattice");
  p.set_from_string("sources.count", "77");
  p.set_from_string("sources.half_width", "2.5");
  p.set_from_string("sources.seed", "9");
  const SourceSpec s = source_spec_from(p);
  EXPECT_EQ(s.file, "a.npy");
  EXPECT_EQ(s.distribution, "lattice");
  EXPECT_EQ(s.count, 77u);
  EXPECT_EQ(s.half_width, 2.5);
  EXPECT_EQ(s.seed, 9u);
  p.set_from_string("sources.file", "");
  EXPECT_EQ(source_count(p), 77u);
  EXPECT_EQ(make_source_rows(p, {10, 20}).size(), 10u);
}

TEST(FieldParams, TreeParameters) {
  const Schema& sc = schema();
  ParamSet p = sc.defaults();
  EXPECT_EQ(p.get_string("method"), "auto");
  EXPECT_EQ(sc.at("method").choices, (std::vector<std::string>{"auto", "direct", "tree"}));
  EXPECT_EQ(p.get_double("tree.tolerance"), 1e-5);
  EXPECT_EQ(sc.at("tree.tolerance").min, 1e-7);  // float32 outputs show ~3e-8 RMS rounding
  EXPECT_EQ(sc.at("tree.tolerance").max, 1e-3);
  EXPECT_EQ(method_from(p), Method::Auto);
  EXPECT_EQ(options_from(p).tolerance, 1e-5);
  p.set_from_string("method", "tree");
  p.set_from_string("tree.tolerance", "1e-7");
  EXPECT_EQ(method_from(p), Method::Tree);
  EXPECT_EQ(options_from(p).tolerance, 1e-7);
  for (const char* bad : {"1e-2", "1e-9", "0", "abc"})
    EXPECT_NE(error_of([&] { p.set_from_string("tree.tolerance", bad); }).find("tree.tolerance"),
              std::string::npos)
        << bad;
  EXPECT_NE(error_of([&] { p.set_from_string("method", "fmm"); }).find("method"),
            std::string::npos);
}

}  // namespace
}  // namespace simscope::field
