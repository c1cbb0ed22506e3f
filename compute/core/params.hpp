#pragma once
/// @file Parameter schema: one description per workload parameter that drives the GUI panel,
/// the `--set NAME=VALUE` command line, JSON presets and export metadata.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace simscope {

/// Kinds of parameter. Path is a file name (empty = none); Enum is one of `choices`.
enum class ParamType { Int, Float, Bool, Enum, Path };

/// A parameter value: int64 for Int, double for Float, bool for Bool, string for Enum/Path.
using ParamValue = std::variant<std::int64_t, double, bool, std::string>;

/// Name of a ParamType as shown by `--list-params` ("int", "float", "bool", "enum", "path").
const char* to_string(ParamType t);

/// Renders a value as text that parse_value() reads back exactly (doubles with %.17g).
std::string format_value(const ParamValue& v);

/// One parameter of a workload.
struct ParamSpec {
  std::string name;  ///< dotted name, e.g. "grid.size"
  ParamType type = ParamType::Float;
  ParamValue default_value;          ///< of the variant alternative that matches `type`
  double min = 0, max = 0;           ///< inclusive range for Int/Float (ignored when min > max)
  std::vector<std::string> choices;  ///< Enum only
  std::string unit;                  ///< e.g. "length", "1/length^2"; empty when dimensionless
  std::string help;                  ///< one sentence shown as tooltip and in --list-params
  bool log_slider = false;           ///< GUI hint: logarithmic slider
  bool has_range() const { return min <= max; }
};

/// Builds a ParamSpec in one call (the workloads' schemas are lists of these). Pass min > max
/// (e.g. kNoRange) for no range.
ParamSpec param_spec(std::string name, ParamType type, ParamValue default_value, double min,
                     double max, std::string unit, std::string help,
                     std::vector<std::string> choices = {}, bool log_slider = false);

class Schema;
class ParamSet;

/// A condition on one parameter (a use rule's "when"): Set / Unset: the value differs from / is
/// its default (for a Path: a file is named / none is); Equals / NotEquals: its value, as
/// format_value writes it, is / is not `value`.
struct ParamCondition {
  enum class Op { Set, Unset, Equals, NotEquals };
  std::string param;
  Op op = Op::Set;
  std::string value;
  bool holds(const ParamSet& params) const;  ///< throws Error on an unknown parameter
};

/// "When every condition of `when` holds, the parameters `unused` are not used by the run."
/// The schema's rules drive the warnings about settings a run ignores (Schema::unused_warnings)
/// and which parameters take part in cache keys (Schema::used). `why` ends the warning:
///   when[0] Set:       "sources.file is set, so sources.count is not used (WHY)"
///   when[0] Equals:    "network.topology=file, so network.k, network.p are not used (WHY)"
///   when[0] NotEquals: "network.file is not used: network.topology is 'ring' (WHY)", one
///                      warning per unused parameter (the rule of a parameter that a selector
///                      must pick, e.g. a file read only with topology=file).
/// Later conditions only narrow the rule (e.g. "and data.file is not set").
struct UseRule {
  std::vector<ParamCondition> when;
  std::vector<std::string> unused;
  std::string why;
};

/// Values for every parameter of one schema, by name. Built from Schema::defaults().
class ParamSet {
 public:
  ParamSet() = default;
  explicit ParamSet(const Schema* schema);

  const Schema& schema() const { return *schema_; }
  bool has_schema() const { return schema_ != nullptr; }

  /// Parses `text` according to the parameter's type and range and stores it.
  /// Throws simscope::Error naming the parameter, the expected form and the text given.
  void set_from_string(const std::string& name, const std::string& text);
  /// Stores a typed value after checking type and range (throws simscope::Error).
  void set(const std::string& name, const ParamValue& value);

  const ParamValue& get(const std::string& name) const;  ///< throws Error on unknown name
  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;  ///< Float (or Int, converted)
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;  ///< Enum or Path

  /// True when `name` holds its schema default (throws Error on an unknown name).
  bool is_default(const std::string& name) const;
  /// The names among `names` whose values differ from their defaults, comma-separated ("" when
  /// none): the parameters a user set, for warnings that they are not used.
  std::string changed(const std::vector<std::string>& names) const;

  const std::map<std::string, ParamValue>& values() const { return values_; }
  bool operator==(const ParamSet& o) const { return values_ == o.values_; }
  bool operator!=(const ParamSet& o) const { return !(*this == o); }

 private:
  const Schema* schema_ = nullptr;
  std::map<std::string, ParamValue> values_;
};

/// The parameters of one workload, in display order.
class Schema {
 public:
  Schema(std::string workload, std::vector<ParamSpec> specs, std::vector<UseRule> rules = {});

  const std::string& workload() const { return workload_; }
  const std::vector<ParamSpec>& specs() const { return specs_; }
  /// The parameter names in display order, comma-separated ("grid.size, plane, ...").
  std::string names() const;
  /// The spec named `name`, or nullptr.
  const ParamSpec* find(const std::string& name) const;
  /// The spec named `name`; throws simscope::Error "unknown parameter 'x' for workload 'w'
  /// (known: ...)" otherwise.
  const ParamSpec& at(const std::string& name) const;
  /// Every parameter at its default.
  ParamSet defaults() const;

  /// The rules of use (UseRule), in the order their warnings are given.
  const std::vector<UseRule>& use_rules() const { return rules_; }
  /// False when a rule whose conditions hold for `params` lists `name` as unused. Throws Error
  /// on an unknown name.
  bool used(const ParamSet& params, const std::string& name) const;
  /// One warning per rule that holds and lists parameters changed from their defaults (texts as
  /// UseRule shows), in rule order; none when every setting given is used.
  std::vector<std::string> unused_warnings(const ParamSet& params) const;

  /// Parses text into a value of spec's type, checking the range/choices. Blanks around the
  /// text are ignored (except for paths, taken as given). Int: decimal digits with an optional
  /// sign, or an exact integer written as a decimal number such as "1e6" (below 2^53 in
  /// magnitude); Float: a decimal number ([+-]digits[.digits][e[+-]digits]), read independently
  /// of the locale. Hex, inf, nan and any other character are refused; Int ranges are checked
  /// exactly (int64, not through double). Throws simscope::Error:
  /// "parameter grid.size: expected an integer in [2, 4096], got '0'".
  static ParamValue parse_value(const ParamSpec& spec, const std::string& text);
  /// Checks a typed value against spec (type, range, choices); throws simscope::Error. A double
  /// given for an Int must be a whole number of magnitude below 2^53.
  static ParamValue check_value(const ParamSpec& spec, const ParamValue& value);

 private:
  std::string workload_;
  std::vector<ParamSpec> specs_;
  std::vector<UseRule> rules_;
};

}  // namespace simscope
