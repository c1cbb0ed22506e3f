// The parameter schema: parsing, ranges, choices, error messages naming the parameter.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/quote.hpp"
#include "params/schema.hpp"

namespace simscope {
namespace {

const Schema& test_schema() {
  static const Schema s("demo",
                        {
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

// QA: "0x40" was read as 64 (strtod's hex), " 64" was accepted but "64 " refused, and a seed of
// 2^53 + 1 passed a maximum of 2^53 (compared through double).
TEST(Params, NumbersAreDecimalWithBlanksIgnoredAtBothEnds) {
  ParamSet p = test_schema().defaults();
  for (const char* t : {" 64", "64 ", " 64 ", "\t64\n", "+64", "64", "6.4e1"}) {
    p.set("n", std::int64_t(8));
    EXPECT_NO_THROW(p.set_from_string("n", t)) << "'" << t << "'";
    EXPECT_EQ(p.get_int("n"), 64) << "'" << t << "'";
  }
  for (const char* t : {" 0.25", "0.25 ", "+.25", "2.5e-1", "25E-2"}) {
    p.set("x", 0.5);
    EXPECT_NO_THROW(p.set_from_string("x", t)) << "'" << t << "'";
    EXPECT_EQ(p.get_double("x"), 0.25) << "'" << t << "'";
  }
  p = test_schema().defaults();
  for (const char* t : {"0x40", "0X40", "6 4", "64abc", "1e", "e3", "", " ", "--64", "+-64",
                        "0x1p6", "inf", "nan", "64,0", "6.5", "٦٤"}) {
    const std::string e = error_of([&] { p.set_from_string("n", t); });
    EXPECT_NE(e.find("parameter n: expected an integer"), std::string::npos)
        << "'" << t << "': " << e;
  }
  p.set_from_string("n", "64.");  // a decimal number whose value is an exact integer
  EXPECT_EQ(p.get_int("n"), 64);
  for (const char* t : {"0x0.4p0", "0x1", "1e", ".", "-", "inf", "-inf", "nan", "1e999", "0.25x",
                        "0. 25", "0,25"}) {
    const std::string e = error_of([&] { p.set_from_string("x", t); });
    EXPECT_NE(e.find("parameter x: expected a finite number"), std::string::npos)
        << "'" << t << "': " << e;
  }
  EXPECT_EQ(error_of([&] { p.set_from_string("n", "0x40"); }),
            "parameter n: expected an integer in [2, 4096], got '0x40'");
  p.set_from_string("mode", " b ");
  p.set_from_string("on", "true ");
  EXPECT_EQ(p.get_string("mode"), "b");
  EXPECT_TRUE(p.get_bool("on"));
  p.set_from_string("file", " spaced name.npy ");  // paths are taken as given
  EXPECT_EQ(p.get_string("file"), " spaced name.npy ");
}

TEST(Params, IntegerRangesAreCheckedExactly) {
  const Schema s("demo",
                 {{"seed", ParamType::Int, std::int64_t(1), 0, 9007199254740992.0, {}, "", "seed"},
                  {"any", ParamType::Int, std::int64_t(0), 1, 0, {}, "", "no range"}});
  ParamSet p = s.defaults();
  p.set_from_string("seed", "9007199254740992");
  EXPECT_EQ(p.get_int("seed"), 9007199254740992);
  for (const char* t : {"9007199254740993", "9223372036854775807", "9223372036854775808",
                        "99999999999999999999", "-1", "9.007199254740993e15", "1e16"}) {
    const std::string e = error_of([&] { p.set_from_string("seed", t); });
    EXPECT_NE(e.find("expected an integer in [0, 9007199254740992]"), std::string::npos)
        << t << ": " << e;
  }
  EXPECT_EQ(p.get_int("seed"), 9007199254740992) << "refused values leave the value unchanged";
  EXPECT_THROW(p.set("seed", ParamValue(std::int64_t(9007199254740993))), Error);
  EXPECT_THROW(p.set("seed", ParamValue(9007199254740992.0)), Error)
      << "a double of 2^53 may stand for 2^53 + 1";
  p.set_from_string("any", "-9223372036854775808");
  EXPECT_EQ(p.get_int("any"), std::numeric_limits<std::int64_t>::min());
  p.set_from_string("any", "9223372036854775807");
  EXPECT_EQ(p.get_int("any"), std::numeric_limits<std::int64_t>::max());
  EXPECT_THROW(p.set_from_string("any", "9223372036854775808"), Error);
}

TEST(Params, UnknownParameterListsTheKnownOnes) {
  ParamSet p = test_schema().defaults();
  const std::string e = error_of([&] { p.set_from_string("nn", "3"); });
  EXPECT_NE(e.find("unknown parameter 'nn' for workload 'demo'"), std::string::npos) << e;
  EXPECT_NE(e.find("n, x, mode, on, file"), std::string::npos) << e;
}

// Found by tests/fuzz (fuzz_set_value): a value or a name holding a newline split the message
// over two lines, and a value of any length came back whole.
TEST(Params, MessagesQuoteTheTextOnOneLine) {
  ParamSet p = test_schema().defaults();
  EXPECT_EQ(error_of([&] { p.set_from_string("mode", "\"xy\nxy"); }),
            "parameter mode: expected one of a|b, got '\"xy?xy'");
  EXPECT_EQ(
      error_of([&] { p.set_from_string("x", std::string(400, '1')); }),
      "parameter x: expected a finite number in [0, 1], got '" + std::string(80, '1') + "...'");
  const std::string e = error_of([&] { p.set_from_string("a\nb\r", "1"); });
  EXPECT_NE(e.find("unknown parameter 'a?b?' for workload 'demo'"), std::string::npos) << e;
}

TEST(QuoteText, ControlCharactersAndLongTextOnOneLine) {
  EXPECT_EQ(quote_text("plain"), "plain");
  EXPECT_EQ(quote_text(std::string("a\0b\tc\x7f", 6)), "a?b?c?");
  EXPECT_EQ(quote_text("r\xc3\xa9sum\xc3\xa9"), "r\xc3\xa9sum\xc3\xa9") << "UTF-8 kept as written";
  EXPECT_EQ(quote_text(std::string(80, 'a')), std::string(80, 'a'));
  EXPECT_EQ(quote_text(std::string(81, 'a')), std::string(80, 'a') + "...");
  // A cut inside a 2-byte UTF-8 character falls before it.
  EXPECT_EQ(quote_text(std::string(79, 'a') + "\xc3\xa9zz"), std::string(79, 'a') + "...");
  EXPECT_EQ(quote_text("abcdef", 3), "abc...");
}

TEST(Params, ChangedNamesTheValuesOffTheirDefaults) {
  ParamSet p = test_schema().defaults();
  EXPECT_TRUE(p.is_default("n"));
  EXPECT_EQ(p.changed({"n", "x", "mode"}), "");
  p.set_from_string("x", "0.25");
  p.set_from_string("mode", "b");
  EXPECT_FALSE(p.is_default("x"));
  EXPECT_EQ(p.changed({"n", "x", "mode"}), "x, mode");
  p.set_from_string("x", "0.5");  // back at the default
  EXPECT_EQ(p.changed({"n", "x", "mode"}), "mode");
  EXPECT_THROW(p.is_default("nn"), Error);
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
