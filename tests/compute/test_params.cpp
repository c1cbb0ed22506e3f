// The parameter schema: parsing, ranges, choices, error messages naming the parameter.
#include <gtest/gtest.h>

#include <functional>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/params.hpp"

namespace simscope {
namespace {

const Schema& test_schema() {
  static const Schema s("demo", {
                                    {"n", ParamType::Int, std::int64_t(8), 2, 4096, {}, "", "count"},
                                    {"x", ParamType::Float, 0.5, 0, 1, {}, "length", "pos"},
                                    {"mode", ParamType::Enum, std::string("a"), 1, 0, {"a", "b"}, "", "m"},
                                    {"on", ParamType::Bool, false, 1, 0, {}, "", "flag"},
                                    {"file", ParamType::Path, std::string(), 1, 0, {}, "", "f"},
                                });
  return s;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Params, DefaultsAndTypedGetters) {
  ParamSet p = test_schema().defaults();
  EXPECT_EQ(p.get_int("n"), 8);
  EXPECT_DOUBLE_EQ(p.get_double("x"), 0.5);
  EXPECT_EQ(p.get_string("mode"), "a");
  EXPECT_FALSE(p.get_bool("on"));
  EXPECT_EQ(p.get_string("file"), "");
}

TEST(Params, ParsesTextOfEveryType) {
  ParamSet p = test_schema().defaults();
  p.set_from_string("n", "4096");
  p.set_from_string("x", "0.25");
  p.set_from_string("mode", "b");
  p.set_from_string("on", "true");
  p.set_from_string("file", "/tmp/a b.npy");
  EXPECT_EQ(p.get_int("n"), 4096);
  EXPECT_DOUBLE_EQ(p.get_double("x"), 0.25);
  EXPECT_EQ(p.get_string("mode"), "b");
  EXPECT_TRUE(p.get_bool("on"));
  EXPECT_EQ(p.get_string("file"), "/tmp/a b.npy");
  p.set_from_string("n", "1e3");  // an exact integer written as a float
  EXPECT_EQ(p.get_int("n"), 1000);
}

TEST(Params, RejectsOutOfRangeAndBadTextNamingTheParameter) {
  ParamSet p = test_schema().defaults();
  EXPECT_EQ(error_of([&] { p.set_from_string("n", "0"); }),
            "parameter n: expected an integer in [2, 4096], got '0'");
  EXPECT_NE(error_of([&] { p.set_from_string("n", "1000000"); }).find("[2, 4096]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { p.set_from_string("n", "2.5"); }).find("parameter n"),
            std::string::npos);
  EXPECT_NE(error_of([&] { p.set_from_string("x", "nan"); }).find("finite"), std::string::npos);
  EXPECT_NE(error_of([&] { p.set_from_string("x", "abc"); }).find("got 'abc'"), std::string::npos);
  EXPECT_NE(error_of([&] { p.set_from_string("mode", "c"); }).find("one of a|b"),
            std::string::npos);
  EXPECT_NE(error_of([&] { p.set_from_string("on", "maybe"); }).find("true or false"),
            std::string::npos);
  EXPECT_EQ(p, test_schema().defaults()) << "rejected values leave the set unchanged";
}

TEST(Params, UnknownParameterListsTheKnownOnes) {
  ParamSet p = test_schema().defaults();
  const std::string e = error_of([&] { p.set_from_string("nn", "3"); });
  EXPECT_NE(e.find("unknown parameter 'nn' for workload 'demo'"), std::string::npos) << e;
  EXPECT_NE(e.find("n, x, mode, on, file"), std::string::npos) << e;
}

TEST(Params, FormatValueReadsBackExactly) {
  for (double d : {0.1, 1.0 / 3.0, 1e-300, 123456789.123, -0.0}) {
    const std::string t = format_value(ParamValue(d));
    EXPECT_EQ(std::strtod(t.c_str(), nullptr), d) << t;
  }
  EXPECT_EQ(format_value(ParamValue(0.1)), "0.1");
  EXPECT_EQ(format_value(ParamValue(std::int64_t(42))), "42");
  EXPECT_EQ(format_value(ParamValue(true)), "true");
}

TEST(Backend, ChoiceFollowsTheRequest) {
  EXPECT_EQ(choose_backend("cpu").backend, Backend::Cpu);
  EXPECT_NE(error_of([] { choose_backend("gpu"); }).find("expected auto, cpu or cuda"),
            std::string::npos);
  const CudaStatus& s = cuda_status();
  if (s.usable) {
    EXPECT_EQ(choose_backend("auto").backend, Backend::Cuda);
  } else {
    const BackendChoice c = choose_backend("auto");
    EXPECT_EQ(c.backend, Backend::Cpu);
    EXPECT_NE(c.notice.find("CPU"), std::string::npos);
    EXPECT_NE(error_of([] { choose_backend("cuda"); }).find("no usable CUDA device"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace simscope
