#pragma once
/// @file Parameter schema: one description per workload parameter that drives the GUI panel,
/// the `--set NAME=VALUE` command line, JSON presets and export metadata. Including this header
/// gives ParamSpec, ParamSet and the use rules too.
#include <string>
#include <vector>

#include "params/closest_names.hpp"
#include "params/param_set.hpp"
#include "params/param_spec.hpp"
#include "params/use_rules.hpp"

namespace simscope {

/// The parameters of one workload, in display order.
class Schema {
 public:
  Schema(std::string workload, std::vector<ParamSpec> specs, std::vector<UseRule> rules = {});

  const std::string& workload() const { return workload_; }
  const std::vector<ParamSpec>& specs() const { return specs_; }
  /// The parameter names in display order, comma-separated: "grid.size, plane, ...".
  std::string names() const;
  /// Each parameter's name and other words, in display order (for closest_names).
  std::vector<KnownName> known_names() const;
  /// The spec named `name`, or nullptr.
  const ParamSpec* find(const std::string& name) const;
  /// The spec named `name`. Throws simscope::Error "unknown parameter 'x' for workload 'w'
  /// (did you mean 'y'?) (known: ...)" otherwise; the suggestion only when one is near.
  const ParamSpec& at(const std::string& name) const;
  /// Every parameter at its default.
  ParamSet defaults() const;

  /// The rules of use (UseRule), in the order their warnings are given.
  const std::vector<UseRule>& use_rules() const { return rules_; }
  /// False when a rule whose conditions hold for `params` lists `name` as unused. Throws Error
  /// on an unknown name.
  bool used(const ParamSet& params, const std::string& name) const;
  /// One warning per rule that holds and lists parameters changed from their defaults, with
  /// texts as UseRule shows, in rule order. None when every setting given is used.
  std::vector<std::string> unused_warnings(const ParamSet& params) const;
  /// Why the run does not use `name` with `params`, from the first rule that holds and lists
  /// it, as "not used: sources.file is set (settings of generated sources)"; "" when it is used.
  /// The window draws such parameters disabled with this as their hover text. Throws Error on
  /// an unknown name.
  std::string unused_reason(const ParamSet& params, const std::string& name) const;

  /// Parses text into a value of spec's type, checking the range or choices. Blanks around the
  /// text are ignored, except for paths, which are taken as given.
  /// Int: decimal digits with an optional sign, or an exact integer written as a decimal number
  /// such as "1e6", below 2^53 in magnitude. Int ranges are checked exactly in int64.
  /// Float: a decimal number [+-]digits[.digits][e[+-]digits], read independently of the locale.
  /// Hex, inf, nan and any other character are refused. Throws simscope::Error, e.g.
  /// "parameter grid.size: expected an integer in [2, 4096], got '0'".
  static ParamValue parse_value(const ParamSpec& spec, const std::string& text);
  /// Checks a typed value against spec: type, range, choices. Throws simscope::Error. A double
  /// given for an Int must be a whole number of magnitude below 2^53.
  static ParamValue check_value(const ParamSpec& spec, const ParamValue& value);

 private:
  std::string workload_;
  std::vector<ParamSpec> specs_;
  std::vector<UseRule> rules_;
};

}  // namespace simscope
