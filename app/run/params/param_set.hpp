#pragma once
/// @file The values of one workload's parameters (a ParamSet of its Schema).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "params/param_spec.hpp"

namespace simscope {

class Schema;

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
  /// Stores a typed value after checking type and range. Throws simscope::Error.
  void set(const std::string& name, const ParamValue& value);

  const ParamValue& get(const std::string& name) const;  ///< throws Error on unknown name
  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;  ///< Float (or Int, converted)
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;  ///< Enum or Path

  /// True when `name` holds its schema default. Throws Error on an unknown name.
  bool is_default(const std::string& name) const;
  /// The names among `names` whose values differ from their defaults, comma-separated; "" when
  /// none. These are the parameters a user set, for warnings that they are not used.
  std::string changed(const std::vector<std::string>& names) const;

  const std::map<std::string, ParamValue>& values() const { return values_; }
  bool operator==(const ParamSet& o) const { return values_ == o.values_; }
  bool operator!=(const ParamSet& o) const { return !(*this == o); }

 private:
  const Schema* schema_ = nullptr;
  std::map<std::string, ParamValue> values_;
};

}  // namespace simscope
