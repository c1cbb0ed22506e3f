// The field workload's parameter schema: names, defaults, ranges, units, readers and parse
// errors.
#include "test_field_util.hpp"

namespace simscope::field {
namespace {

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

TEST(FieldParams, ParseErrorsNameTheParameter) {
  ParamSet p = schema().defaults();
  for (const char* bad : {"0", "1000000", "1", "abc", "2.5"}) {
    const std::string m = test::error_of([&] { p.set_from_string("grid.size", bad); });
    EXPECT_NE(m.find("grid.size"), std::string::npos) << bad;
    EXPECT_NE(m.find(bad), std::string::npos) << m;
  }
  EXPECT_NE(test::error_of([&] { p.set_from_string("grid.sise", "64"); }).find("unknown parameter"),
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
  EXPECT_NE(test::error_of([&] {
              p.set_from_string("sources.seed", "9007199254740993");
            }).find("parameter sources.seed: expected an integer in [0, 9007199254740992]"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { p.set_from_string("grid.size", "0x40"); }).find("got '0x40'"),
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
  p.set_from_string("sources.file", (test::tmp_dir() / "missing.npy").string());
  EXPECT_NE(test::error_of([&] { make_sources(p); }).find("missing.npy"), std::string::npos);
}

}  // namespace
}  // namespace simscope::field
