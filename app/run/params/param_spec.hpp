#pragma once
/// @file One parameter of a workload's schema: its type, default, range, choices, unit and help,
/// and the text form of its values.
#include <cstdint>
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

/// Renders a value as text that Schema::parse_value() reads back exactly; doubles use %.17g.
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
  /// GUI hint for a relative drag: the parameter whose value is this one's natural size, so a
  /// drag from near 0 moves at 0.5 % of it per pixel (plane.offset: grid.half_width). Empty: 1.
  std::string drag_scale = {};
  /// Other words for it in the field or in users' code (model.omega: "w"); a refusal of one of
  /// them suggests this name, and --list-params shows them.
  std::vector<std::string> also = {};
  bool has_range() const { return min <= max; }
};

/// Builds a ParamSpec in one call; the workloads' schemas are lists of these. Pass min > max
/// for no range.
ParamSpec param_spec(std::string name, ParamType type, ParamValue default_value, double min,
                     double max, std::string unit, std::string help,
                     std::vector<std::string> choices = {}, bool log_slider = false);

/// Sets the other words of the spec named `name` in `specs` (ParamSpec::also). Throws
/// std::logic_error when no spec has that name.
void set_also(std::vector<ParamSpec>& specs, const std::string& name,
              std::vector<std::string> words);

}  // namespace simscope
