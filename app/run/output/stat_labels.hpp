#pragma once
/// @file The names, units and formats of a run's stats for people: one table per workload
/// (WorkloadDescriptor::stat_labels, rows as stat_label.hpp declares them) that maps each run.json stats key (RunResult::stats and stat_texts, unchanged) to a label, a unit
/// and a format, and the formatting helpers (SI prefixes, seconds, bytes, 2-3 significant
/// digits). The window's "Last run" panel lays out stat_lines(); docs/formats.md's "Stats in the
/// window" tables list the same rows. No GUI dependency, so that a headless printout or Python
/// may reuse it.
#include <string>
#include <vector>

#include "output/stat_label.hpp"
#include "workload.hpp"

namespace simscope::app {

/// The table of `workload` (WorkloadDescriptor::stat_labels), rows in the panel's order. Empty
/// for a workload without one or a name not registered. Keys only Python's stats carry (tree_kept, host_staging_bytes,
/// ...) have rows too.
const std::vector<StatLabel>& stat_labels(const std::string& workload);
/// The row of `key` in `workload`'s table, or null.
const StatLabel* find_stat_label(const std::string& workload, const std::string& key);

/// `v` with an SI prefix (k, M, G, T; none below 1000) to 3 significant digits, then " unit"
/// when `unit` is not empty. Example: format_si(6.69277e9, "pairs/s") is "6.69 G pairs/s".
std::string format_si(double v, const std::string& unit = "");
/// Seconds: "850 ns", "12.5 µs", "63.4 ms", "1.34 s", "2 min 5 s", "1 h 2 min".
std::string format_seconds(double s);
/// Bytes: "512 B", "1.5 KiB", "231 MiB", "1.25 GiB".
std::string format_bytes(double b);
/// A count: exact below 10000 ("4096"), else format_si ("65.5 k", "1 M").
std::string format_count(double v);
/// A relative error: "3.7e-6", "0.012", "0.25".
std::string format_error(double v);
/// 4 significant digits, exponents without padding: "0.1234", "1.5e-7".
std::string format_number(double v);
/// `v` as `row` writes it (Text rows: use the stat text itself). Flags: on when v != 0.
std::string format_stat(const StatLabel& row, double v);
/// `v` with the fewest digits that read back as it (up to 17): the raw value users copy.
std::string format_raw(double v);

/// One line of the panel.
struct StatLine {
  std::string label;  ///< e.g. "speed"
  std::string value;  ///< e.g. "6.69 G pairs/s"
  std::string key;    ///< the run.json key, e.g. "pairs_per_s" ("timings.compute_s": compute)
  std::string raw;    ///< the raw value, format_raw, or the text
  std::string definition = {};  ///< StatLabel::definition; may be empty
};

/// The panel's lines for `r`: "compute" (r.compute_seconds, run.json's timings.compute_s) when
/// above 0, then the rows of r.workload's table that `r` has and their StatShow lets through,
/// each under its name (StatLabel::renamed where that applies) with its definition.
/// Stats the table does not name are left out (raw_stat_lines lists every one).
std::vector<StatLine> stat_lines(const RunResult& r);
/// Every stat of `r` raw, sorted by key: the numbers (format_raw), then the texts.
std::vector<StatLine> raw_stat_lines(const RunResult& r);
/// Lines as text, "label: value" one per line (a headless printout, the screenshot's text).
std::string stat_lines_text(const std::vector<StatLine>& lines);

}  // namespace simscope::app
