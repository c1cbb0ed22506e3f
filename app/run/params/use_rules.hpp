#pragma once
/// @file A schema's rules of use: which settings make which parameters unused.
#include <string>
#include <vector>

namespace simscope {

class ParamSet;

/// A condition on one parameter, a use rule's "when". Set: the value differs from its default;
/// for a Path, a file is named. Unset: the opposite. Equals / NotEquals: its value, as
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
///                      warning per unused parameter. Meant for a parameter that a selector
///                      must pick, e.g. a file read only with topology=file.
/// Later conditions only narrow the rule, e.g. "and data.file is not set".
struct UseRule {
  std::vector<ParamCondition> when;
  std::vector<std::string> unused;
  std::string why;
};

}  // namespace simscope
