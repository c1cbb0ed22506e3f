// The schema's rules of use (use_rules.hpp: ParamCondition; schema.hpp: Schema::used,
// Schema::unused_warnings).
#include "params/use_rules.hpp"

#include <algorithm>

#include "params/schema.hpp"

namespace simscope {

bool ParamCondition::holds(const ParamSet& p) const {
  switch (op) {
    case Op::Set:
      return !p.is_default(param);
    case Op::Unset:
      return p.is_default(param);
    case Op::Equals:
      return format_value(p.get(param)) == value;
    case Op::NotEquals:
      return format_value(p.get(param)) != value;
  }
  return false;
}

namespace {
bool applies(const UseRule& r, const ParamSet& p) {
  for (const ParamCondition& c : r.when)
    if (!c.holds(p)) return false;
  return !r.when.empty();
}
}  // namespace

bool Schema::used(const ParamSet& p, const std::string& name) const {
  at(name);
  for (const UseRule& r : rules_)
    for (const std::string& n : r.unused)
      if (n == name && applies(r, p)) return false;
  return true;
}

std::string Schema::unused_reason(const ParamSet& p, const std::string& name) const {
  at(name);
  for (const UseRule& r : rules_) {
    if (std::find(r.unused.begin(), r.unused.end(), name) == r.unused.end() || !applies(r, p))
      continue;
    const ParamCondition& c = r.when.front();
    const std::string value = format_value(p.get(c.param));
    using Op = ParamCondition::Op;
    const std::string cond = c.op == Op::Equals      ? c.param + "=" + value
                             : c.op == Op::NotEquals ? c.param + " is '" + value + "'"
                             : c.op == Op::Unset     ? c.param + " is not set"
                                                     : c.param + " is set";
    return "not used: " + cond + " (" + r.why + ")";
  }
  return "";
}

std::vector<std::string> Schema::unused_warnings(const ParamSet& p) const {
  std::vector<std::string> out;
  for (const UseRule& r : rules_) {
    if (!applies(r, p)) continue;
    const ParamCondition& c = r.when.front();
    if (c.op == ParamCondition::Op::NotEquals) {
      for (const std::string& n : r.unused)
        if (!p.is_default(n))
          out.push_back(n + " is not used: " + c.param + " is '" + format_value(p.get(c.param)) +
                        "' (" + r.why + ")");
      continue;
    }
    const std::string list = p.changed(r.unused);
    if (list.empty()) continue;
    const std::string cond = c.op == ParamCondition::Op::Equals ? c.param + "=" + c.value
                             : c.op == ParamCondition::Op::Unset ? c.param + " is not set"
                                                                 : c.param + " is set";
    out.push_back(cond + ", so " + list + (list.find(',') == std::string::npos ? " is" : " are") +
                  " not used (" + r.why + ")");
  }
  return out;
}

}  // namespace simscope
