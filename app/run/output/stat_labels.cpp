// The stats' names, units and formats for people (stat_labels.hpp).
#include "output/stat_labels.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace simscope::app {

namespace {

using F = StatFormat;
using S = StatShow;

/// "3.7e-06" -> "3.7e-6", "1.2e+07" -> "1.2e7".
std::string compact_exponent(std::string s) {
  const std::size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mant = s.substr(0, e), exp = s.substr(e + 1);
  std::string sign;
  if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
    if (exp[0] == '-') sign = "-";
    exp.erase(0, 1);
  }
  const std::size_t nz = exp.find_first_not_of('0');
  exp = nz == std::string::npos ? "0" : exp.substr(nz);
  return mant + "e" + sign + exp;
}

std::string printf_g(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return compact_exponent(buf);
}

/// `a` >= 0 to 3 significant digits, and whether that rounded to `limit` or more.
std::string sig3(double a, double limit, bool& over) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", a);
  over = std::strtod(buf, nullptr) >= limit;
  return compact_exponent(buf);
}

std::string not_finite(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

std::string with_unit(std::string s, const std::string& unit) {
  return unit.empty() ? s : s + " " + unit;
}

}  // namespace

const std::vector<StatLabel>& stat_labels(const std::string& workload) {
  static const std::vector<StatLabel> none;
  const WorkloadDescriptor* d = find_workload_descriptor(workload);
  return d ? d->stat_labels : none;
}

const StatLabel* find_stat_label(const std::string& workload, const std::string& key) {
  for (const StatLabel& row : stat_labels(workload))
    if (key == row.key) return &row;
  return nullptr;
}

std::string format_si(double v, const std::string& unit) {
  if (!std::isfinite(v)) return with_unit(not_finite(v), unit);
  static const char* const kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  constexpr int kLast = 6;
  double a = std::fabs(v);
  int k = 0;
  while (k < kLast && a >= 1000) a /= 1000, ++k;
  bool over = false;
  std::string num = sig3(a, 1000, over);
  if (over && k < kLast) num = sig3(a / 1000, 1000, over), ++k;  // 999.7 -> "1 k"
  std::string s = (v < 0 ? "-" : "") + num;
  if (k > 0) s += std::string(" ") + kPrefix[k];
  if (!unit.empty()) s += " " + unit;
  return s;
}

std::string format_seconds(double s) {
  if (!std::isfinite(s) || s < 0) return with_unit(format_number(s), "s");
  if (s == 0) return "0 s";
  // 59.96 s rounds to "60 s"; from there on, minutes and seconds.
  if (s >= 59.95) {
    const long long total = std::llround(s);
    char buf[64];
    if (total < 3600) {
      const long long m = total / 60, r = total % 60;
      if (r == 0)
        std::snprintf(buf, sizeof buf, "%lld min", m);
      else
        std::snprintf(buf, sizeof buf, "%lld min %lld s", m, r);
    } else {
      const long long minutes = std::llround(s / 60);
      const long long h = minutes / 60, m = minutes % 60;
      if (m == 0)
        std::snprintf(buf, sizeof buf, "%lld h", h);
      else
        std::snprintf(buf, sizeof buf, "%lld h %lld min", h, m);
    }
    return buf;
  }
  static const struct {
    double scale;
    const char* name;
  } kUnits[] = {{1e-9, "ns"}, {1e-6, "µs"}, {1e-3, "ms"}, {1, "s"}};
  int u = 0;
  while (u < 3 && s >= kUnits[u + 1].scale) ++u;
  bool over = false;
  std::string num = sig3(s / kUnits[u].scale, 1000, over);
  if (over && u < 3) ++u, num = sig3(s / kUnits[u].scale, 1000, over);  // 999.7 ms -> "1 s"
  return num + " " + kUnits[u].name;
}

std::string format_bytes(double b) {
  if (!std::isfinite(b) || b < 0) return with_unit(format_number(b), "B");
  static const char* const kUnit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  constexpr int kLast = 5;
  if (b < 1024) return printf_g("%.0f", b) + " B";
  double a = b;
  int k = 0;
  while (k < kLast && a >= 1024) a /= 1024, ++k;
  bool over = false;
  std::string num = sig3(a, 1000, over);
  if (over && k < kLast) num = sig3(a / 1024, 1000, over), ++k;  // 1000 KiB -> "0.977 MiB"
  return num + " " + kUnit[k];
}

std::string format_count(double v) {
  if (!std::isfinite(v)) return not_finite(v);
  if (std::fabs(v) < 1e4)
    return v == std::floor(v) ? printf_g("%.0f", v) : printf_g("%.4g", v);
  return format_si(v);
}

std::string format_error(double v) {
  if (!std::isfinite(v)) return not_finite(v);
  if (v == 0) return "0";
  if (std::fabs(v) < 0.01) return printf_g("%.1e", v);
  return printf_g("%.2g", v);
}

std::string format_number(double v) {
  if (!std::isfinite(v)) return not_finite(v);
  return printf_g("%.4g", v);
}

std::string format_stat(const StatLabel& row, double v) {
  switch (row.format) {
    case F::Count: return with_unit(format_count(v), row.unit);
    case F::Rate: return format_si(v, row.unit);
    case F::Seconds: return format_seconds(v);
    case F::Bytes: return format_bytes(v);
    case F::Error: return with_unit(format_error(v), row.unit);
    case F::Number: return with_unit(format_number(v), row.unit);
    case F::Flag: return v != 0 ? row.on : row.off;
    case F::Text: return format_raw(v);
  }
  return format_raw(v);
}

std::string format_raw(double v) {
  if (!std::isfinite(v)) return not_finite(v);
  char buf[64];
  for (int p = 15; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::vector<StatLine> stat_lines(const RunResult& r) {
  std::vector<StatLine> lines;
  if (r.compute_seconds > 0)
    lines.push_back({"compute", format_seconds(r.compute_seconds), "timings.compute_s",
                     format_raw(r.compute_seconds)});
  for (const StatLabel& row : stat_labels(r.workload)) {
    if (row.show == S::Never) continue;
    std::string label = row.label;
    if (*row.renamed_when) {
      const auto w = r.stats.find(row.renamed_when);
      if (w != r.stats.end() && w->second != 0) label = row.renamed;
    }
    if (row.format == F::Text) {
      const auto it = r.stat_texts.find(row.key);
      if (it == r.stat_texts.end() || it->second.empty()) continue;
      lines.push_back({label, it->second, row.key, it->second, row.definition});
      continue;
    }
    const auto it = r.stats.find(row.key);
    if (it == r.stats.end()) continue;
    const double v = it->second;
    if (row.show == S::NonZero && v == 0) continue;
    if (row.show == S::NonNegative && v < 0) continue;
    std::string value = format_stat(row, v);
    if (value.empty()) continue;  // a flag with no text for its value
    lines.push_back({label, std::move(value), row.key, format_raw(v), row.definition});
  }
  return lines;
}

std::vector<StatLine> raw_stat_lines(const RunResult& r) {
  std::vector<StatLine> lines;
  for (const auto& [k, v] : r.stats) lines.push_back({k, format_raw(v), k, format_raw(v)});
  for (const auto& [k, t] : r.stat_texts) lines.push_back({k, t, k, t});
  return lines;
}

std::string stat_lines_text(const std::vector<StatLine>& lines) {
  std::string s;
  for (const StatLine& l : lines) s += l.label + ": " + l.value + "\n";
  return s;
}

}  // namespace simscope::app
