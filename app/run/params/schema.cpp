#include "params/schema.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "core/trimmed.hpp"

namespace simscope {

namespace {

std::string range_text(const ParamSpec& s) {
  std::ostringstream o;
  o << "[" << format_value(ParamValue(s.min)) << ", " << format_value(ParamValue(s.max)) << "]";
  return o.str();
}

std::string choices_text(const ParamSpec& s) {
  std::string out;
  for (size_t i = 0; i < s.choices.size(); ++i) out += (i ? "|" : "") + s.choices[i];
  return out;
}

[[noreturn]] void bad(const ParamSpec& s, const std::string& expected, const std::string& got) {
  throw Error("parameter " + s.name + ": expected " + expected + ", got '" + quote_text(got) + "'");
}

std::string expected_text(const ParamSpec& s) {
  switch (s.type) {
    case ParamType::Int:
      return "an integer" + (s.has_range() ? " in " + range_text(s) : "");
    case ParamType::Float:
      return "a finite number" + (s.has_range() ? " in " + range_text(s) : "");
    case ParamType::Bool:
      return "true or false";
    case ParamType::Enum:
      return "one of " + choices_text(s);
    case ParamType::Path:
      return "a file path";
  }
  return "?";
}

/// 2^53: below it, a whole double stands for that integer alone. 2^53 itself is also the
/// rounding of 2^53 + 1.
constexpr double kMaxExactDouble = 9007199254740992.0;

/// [+-]digits and nothing else: no blanks, no hex, no suffix.
bool is_decimal_integer(const std::string& t) {
  std::size_t i = (!t.empty() && (t[0] == '+' || t[0] == '-')) ? 1 : 0;
  if (i == t.size()) return false;
  for (; i < t.size(); ++i)
    if (t[i] < '0' || t[i] > '9') return false;
  return true;
}

/// A decimal number [+-]digits[.digits][(e|E)[+-]digits], with at least one digit before the
/// exponent and no blanks, hex, inf or nan. Read locale-independently into `d`. Returns false
/// when the text is not of that form or its value overflows a double.
bool parse_decimal(const std::string& t, double& d) {
  std::size_t i = 0, digits = 0;
  auto run = [&] {
    std::size_t n = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++n;
    return n;
  };
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  digits += run();
  if (i < t.size() && t[i] == '.') ++i, digits += run();
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (run() == 0) return false;
  }
  if (i != t.size()) return false;
  const char* b = t.data() + (t[0] == '+');
  const auto [end, ec] = std::from_chars(b, t.data() + t.size(), d);
  return ec == std::errc() && end == t.data() + t.size() && std::isfinite(d);
}

/// i < lo and i > hi, compared exactly, not through double, which rounds above 2^53.
bool below(std::int64_t i, double lo) {
  if (lo <= -9223372036854775808.0) return false;  // nothing is below -2^63
  if (lo >= 9223372036854775808.0) return true;
  return i < static_cast<std::int64_t>(std::ceil(lo));
}
bool above(std::int64_t i, double hi) {
  if (hi >= 9223372036854775808.0) return false;  // 2^63 and more: every int64 is below
  if (hi < -9223372036854775808.0) return true;
  return i > static_cast<std::int64_t>(std::floor(hi));
}

}  // namespace

Schema::Schema(std::string workload, std::vector<ParamSpec> specs, std::vector<UseRule> rules)
    : workload_(std::move(workload)), specs_(std::move(specs)), rules_(std::move(rules)) {
  for (const UseRule& r : rules_) {  // a rule naming no parameter of the schema is a typo
    for (const ParamCondition& c : r.when) at(c.param);
    for (const std::string& n : r.unused) at(n);
  }
}

const ParamSpec* Schema::find(const std::string& name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

std::string Schema::names() const {
  std::string known;
  for (const auto& s : specs_) known += (known.empty() ? "" : ", ") + s.name;
  return known;
}

std::vector<KnownName> Schema::known_names() const {
  std::vector<KnownName> out;
  for (const auto& s : specs_) out.push_back({s.name, s.also});
  return out;
}

const ParamSpec& Schema::at(const std::string& name) const {
  if (const ParamSpec* s = find(name)) return *s;
  const std::string hint = did_you_mean(name, known_names());
  throw Error("unknown parameter '" + quote_text(name) + "' for workload '" + workload_ + "'" +
              (hint.empty() ? "" : " (" + hint + ")") + " (known: " + names() + ")");
}

ParamSet Schema::defaults() const { return ParamSet(this); }

ParamValue Schema::check_value(const ParamSpec& s, const ParamValue& v) {
  switch (s.type) {
    case ParamType::Int: {
      std::int64_t i;
      if (auto p = std::get_if<std::int64_t>(&v))
        i = *p;
      else if (auto d = std::get_if<double>(&v);
               d && std::isfinite(*d) && std::floor(*d) == *d && std::fabs(*d) < kMaxExactDouble)
        i = static_cast<std::int64_t>(*d);
      else
        bad(s, expected_text(s), format_value(v));
      if (s.has_range() && (below(i, s.min) || above(i, s.max)))
        bad(s, expected_text(s), format_value(v));
      return i;
    }
    case ParamType::Float: {
      double d;
      if (auto p = std::get_if<double>(&v))
        d = *p;
      else if (auto i = std::get_if<std::int64_t>(&v))
        d = double(*i);
      else
        bad(s, expected_text(s), format_value(v));
      if (!std::isfinite(d) || (s.has_range() && (d < s.min || d > s.max)))
        bad(s, expected_text(s), format_value(v));
      return d;
    }
    case ParamType::Bool:
      if (auto b = std::get_if<bool>(&v)) return *b;
      bad(s, expected_text(s), format_value(v));
    case ParamType::Enum: {
      auto str = std::get_if<std::string>(&v);
      if (!str) bad(s, expected_text(s), format_value(v));
      for (const auto& c : s.choices)
        if (c == *str) return *str;
      bad(s, expected_text(s), *str);
    }
    case ParamType::Path:
      if (auto str = std::get_if<std::string>(&v)) return *str;
      bad(s, expected_text(s), format_value(v));
  }
  bad(s, expected_text(s), format_value(v));
}

ParamValue Schema::parse_value(const ParamSpec& s, const std::string& raw) {
  // Blanks around a value are ignored for every type but paths; a file name may hold them.
  const std::string text = s.type == ParamType::Path ? raw : trimmed(raw);
  switch (s.type) {
    case ParamType::Int: {
      if (is_decimal_integer(text)) {
        std::int64_t i = 0;
        const char* b = text.data() + (text[0] == '+');
        const auto [end, ec] = std::from_chars(b, text.data() + text.size(), i);
        if (ec != std::errc() || end != text.data() + text.size()) bad(s, expected_text(s), raw);
        return check_value(s, ParamValue(i));
      }
      // "1e6"-style integers written as decimals, when exact: |d| < 2^53. From 2^53 on,
      // "9.007199254740993e15" would silently round to a neighbouring integer.
      double d = 0;
      if (!parse_decimal(text, d) || !(std::fabs(d) < kMaxExactDouble))
        bad(s, expected_text(s), raw);
      return check_value(s, ParamValue(d));
    }
    case ParamType::Float: {
      double d = 0;
      if (!parse_decimal(text, d)) bad(s, expected_text(s), raw);
      return check_value(s, ParamValue(d));
    }
    case ParamType::Bool:
      if (text == "true" || text == "1" || text == "on" || text == "yes") return true;
      if (text == "false" || text == "0" || text == "off" || text == "no") return false;
      bad(s, expected_text(s), raw);
    case ParamType::Enum:
      return check_value(s, ParamValue(text));
    case ParamType::Path:
      return check_value(s, ParamValue(text));
  }
  bad(s, expected_text(s), raw);
}

}  // namespace simscope
