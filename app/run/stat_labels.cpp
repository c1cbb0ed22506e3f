// The stats' names, units and formats for people (stat_labels.hpp).
#include "stat_labels.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace simscope::app {

namespace {

using F = StatFormat;
using S = StatShow;

// One table per workload: every run.json stats key once, in the panel's order. docs/formats.md's
// "Stats in the window" lists the same rows; tests/run/test_stat_labels.cpp checks that each
// key a run gives has a row.
const std::vector<StatLabel> kField = {
    {"method", "method", F::Text},
    {"sources", "sources", F::Count},
    {"targets", "targets", F::Count},
    {"pairs", "pairs", F::Count, "", S::Never},
    {"pairs_per_s", "speed", F::Rate, "pairs/s", S::Present, "", "",
     "sources x targets / compute time: the pairs a direct sum evaluates, per second. A tree "
     "run evaluates far fewer (near pairs and expansions), so for it this is the direct sum's "
     "speed it matches, not work done.",
     "method_tree", "direct-equiv. speed"},
    {"skipped_coincidences", "skipped coincidences", F::Count, "", S::NonZero},
    {"peak_device_bytes", "device memory", F::Bytes, "", S::NonZero},
    {"method_tree", "tree method", F::Flag, "", S::Never, "yes", "no"},
    {"tree_order", "tree order", F::Count},
    {"tree_theta", "opening angle", F::Number},
    {"tree_build_seconds", "tree build", F::Seconds, "", S::NonZero},  // 0: a reused tree
    {"tree_preview_build_seconds", "preview's build", F::Seconds, "", S::NonZero},
    {"tree_eval_seconds", "tree eval", F::Seconds},
    {"tree_error_seconds", "error check", F::Seconds, "", S::NonZero},
    {"error_samples", "error sample", F::Count, "targets", S::NonZero, "", "",
     "The targets where the tree's E is compared with fp64 direct sums: one drawn at random in "
     "each of as many equal runs of the plane's rows. The sample error (RMS) and (max) are of "
     "this sample; the error view's subgrid is another check."},
    {"rms_rel_error", "sample error (RMS)", F::Error, "relative", S::Present, "", "",
     "||E_tree - E_direct|| / ||E||: the RMS of |E_tree - E_direct| over the error sample, "
     "divided by the RMS of |E| over all targets. tree.tolerance bounds it."},
    {"max_rel_error", "sample error (max)", F::Error, "relative", S::Present, "", "",
     "The largest |E_tree - E_direct| / |E_direct| of one target of the same error sample: "
     "larger than the RMS where |E| is small."},
    {"tolerance_met", "tolerance", F::Flag, "", S::Present, "met", "not met",
     "Met: the sample's RMS errors of E and of the potential are at most tree.tolerance."},
    {"error_pending", "error", F::Flag, "", S::NonZero, "being measured", ""},
    {"error_grid", "error grid", F::Count, "per side", S::Never},  // the error view says it
    {"sources_read_whole", "sources file", F::Flag, "", S::NonZero, "read whole", ""},
    // Python's only (simscope.field, simscope.Sources).
    {"tree_kept", "tree", F::Flag, "", S::Present, "kept", "built"},
    {"sources_conversions", "sources copies", F::Count, "", S::NonZero},
    {"targets_conversions", "targets copies", F::Count, "", S::NonZero},
    {"host_staging_bytes", "staged from device", F::Bytes, "", S::NonZero},
};

const std::vector<StatLabel> kLsq = {
    {"pixels", "pixels", F::Count},
    {"observations", "observations", F::Count},
    {"unknowns", "unknowns", F::Count},
    {"pixels_per_s", "speed", F::Rate, "pixels/s"},
    {"preview_stride", "preview stride", F::Count, "", S::NonZero},
    {"status_ok", "ok (status 0)", F::Count},
    {"status_underdetermined", "underdetermined", F::Count, "", S::NonZero},
    {"status_rank_deficient", "rank deficient", F::Count, "", S::NonZero},
    {"status_all_missing", "all missing", F::Count, "", S::NonZero},
    {"gap_free_pixels", "gap-free pixels", F::Count, "", S::NonZero},
    {"downdate_pixels", "downdated pixels", F::Count, "", S::NonZero},
    {"minnorm_pixels", "min-norm pixels", F::Count, "", S::NonZero},
    {"pattern_pixels", "shared-pattern pixels", F::Count, "", S::NonZero},
    {"fallback_pixels", "fallback pixels", F::Count, "", S::NonZero},
    {"host_pixels", "host pixels", F::Count, "", S::NonZero},
    {"design_rank", "design rank", F::Count, "", S::NonNegative},
    {"method_on_host", "method", F::Flag, "", S::NonZero, "ran on the host", ""},
    {"peak_device_bytes", "device memory", F::Bytes, "", S::NonZero},
    // Python's only (simscope.lsq).
    {"cube_copied_bytes", "cube copied", F::Bytes, "", S::NonZero},
    {"host_staging_bytes", "staged from device", F::Bytes, "", S::NonZero},
};

const std::vector<StatLabel> kOscillators = {
    // A live frame's (LiveStats).
    {"step", "step", F::Count},
    {"live_members", "live members", F::Count},
    // A study's (StudyStats); time and nodes both.
    {"members", "members", F::Count},
    {"valid_members", "valid members", F::Count, "", S::Never},
    {"nonfinite_members", "non-finite members", F::Count, "", S::NonZero},
    {"nodes", "nodes", F::Count},
    {"steps", "steps", F::Count},
    {"transient", "transient", F::Count, "steps", S::Never},  // parameters: the left panel
    {"averaged_steps", "averaged steps", F::Count, "", S::Never},
    {"record_every", "record every", F::Count, "steps", S::Never},
    {"samples", "samples", F::Count},
    {"dt", "dt", F::Number, "", S::Never},
    {"time", "model time", F::Number},
    {"order", "order R", F::Number},
    {"msd", "msd", F::Number},
    {"msd_mean", "msd (mean)", F::Number},
    {"msd_sem", "msd (std. error)", F::Number},
    {"final_msd", "final msd", F::Number},
    {"final_order", "final order R", F::Number},
    {"osc_steps", "oscillator steps", F::Count, "", S::Never},
    {"osc_steps_per_s", "speed", F::Rate, "osc. steps/s"},
    {"peak_device_bytes", "device memory", F::Bytes, "", S::NonZero},
    {"compute_s_earlier_sessions", "earlier sessions", F::Seconds},
    {"compute_s_all_sessions", "all sessions", F::Seconds},
    // Python's only.
    {"host_staging_bytes", "staged from device", F::Bytes, "", S::NonZero},
};

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
  if (workload == "field") return kField;
  if (workload == "lsq") return kLsq;
  if (workload == "oscillators") return kOscillators;
  return none;
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
