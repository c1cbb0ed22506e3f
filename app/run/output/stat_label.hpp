#pragma once
/// @file One row of a workload's stats table: how a run.json stats key is named, written and
/// shown for people. Each workload declares its table in its folder (e.g.
/// field/field_stat_labels.cpp) and hands it over in WorkloadDescriptor::stat_labels;
/// stat_labels.hpp formats the rows.

namespace simscope::app {

/// How a stat's value is written (format_stat).
enum class StatFormat {
  Count,    ///< a whole number: exact below 10000, else 3 significant digits with k, M, G
  Rate,     ///< 3 significant digits with k, M, G, T, then the unit, e.g. "6.69 G pairs/s"
  Seconds,  ///< ns, µs, ms or s with 3 significant digits; "2 min 5 s", "1 h 2 min" above 60 s
  Bytes,    ///< B, KiB, MiB, GiB, TiB with 3 significant digits
  Error,    ///< a relative error: 2 significant digits, "3.7e-6" below 0.01
  Number,   ///< 4 significant digits, e.g. a mean or a step size
  Flag,     ///< 1 or 0 as StatLabel::on or StatLabel::off
  Text,     ///< a stat text (RunResult::stat_texts), as it is
};

/// When a row is shown, besides the stat being present in the result.
enum class StatShow {
  Present,      ///< whenever the result has it
  NonZero,      ///< when not 0: e.g. device bytes on the CPU back end, counts of rare cases
  NonNegative,  ///< when >= 0 (-1 marks "unused")
  Never,        ///< only in the raw list (e.g. pairs, which the rate implies)
};

/// One row of a workload's table.
struct StatLabel {
  const char* key;    ///< the run.json stats key
  const char* label;  ///< the panel's name, e.g. "speed"
  StatFormat format;
  const char* unit = "";  ///< after the number, e.g. "pairs/s"; Flag: see on/off
  StatShow show = StatShow::Present;
  const char* on = "";   ///< Flag: the text for 1
  const char* off = "";  ///< Flag: the text for 0
  /// What the figure is, in a sentence or two: the panel's hover text. Example: the sample
  /// error (max) is "the largest |E_tree - E_direct| / |E_direct| of one target of the sample".
  const char* definition = "";
  /// When the stat `renamed_when` is present and not 0, the panel's name is `renamed` instead,
  /// e.g. a tree run's pairs_per_s is the "direct-equiv. speed" (direct-equivalent), not work
  /// done.
  const char* renamed_when = "";
  const char* renamed = "";
};

}  // namespace simscope::app
