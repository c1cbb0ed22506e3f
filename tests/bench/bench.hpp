#pragma once
/// @file simscope-bench: shared pieces. Each workload's bench lives in its own file and registers
/// itself with a static `Registration` (bench_field.cpp, later bench_lsq.cpp, ...).
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace simscope::bench {

/// A command-line mistake: main prints it with the usage hint and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& m) : std::runtime_error(m) {}
};

/// `--name value` pairs after the workload name. Every flag takes exactly one value.
class Args {
 public:
  /// Parses argv-style words; `known` lists the accepted flags (without "--").
  /// Throws UsageError on an unknown flag, a missing value or a repeated flag.
  Args(const std::vector<std::string>& words, const std::vector<std::string>& known);
  std::string str(const std::string& flag, const std::string& def) const;
  /// A positive integer (accepts 1e6 style when exact); throws UsageError otherwise.
  std::int64_t count(const std::string& flag, std::int64_t def) const;
  /// A finite number in [lo, hi]; throws UsageError otherwise.
  double number(const std::string& flag, double def, double lo, double hi) const;
  /// One of `choices`; throws UsageError otherwise.
  std::string choice(const std::string& flag, const std::string& def,
                     const std::vector<std::string>& choices) const;

 private:
  std::map<std::string, std::string> values_;
};

/// A flat JSON object, printed on one line in insertion order.
class Json {
 public:
  Json& add(const std::string& key, const std::string& value);
  Json& add(const std::string& key, const char* value) { return add(key, std::string(value)); }
  Json& add(const std::string& key, double value);
  Json& add(const std::string& key, std::int64_t value);
  Json& add(const std::string& key, std::uint64_t value);
  std::string str() const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

/// Peak resident set size of this process in bytes (getrusage ru_maxrss * 1024).
std::int64_t peak_rss_bytes();
/// User + system CPU seconds of this process so far, all threads (getrusage): with wall times,
/// how much of the shared machine a step got.
double process_cpu_seconds();
/// "model name" of /proc/cpuinfo and the OpenMP thread count, e.g. "AMD EPYC (2 threads)".
std::string cpu_description();
/// Median of `v` (the upper median for even sizes); 0 for an empty vector.
double median(std::vector<double> v);

/// One registered bench.
struct Bench {
  std::string name;   ///< workload name, the first argument
  std::string usage;  ///< one line: "field --backend cpu|cuda --sources P ..."
  std::string help;   ///< several lines: what is measured, each flag, the JSON keys
  int (*run)(const std::vector<std::string>& args) = nullptr;  ///< prints the JSON; exit status
};

/// The registry, in registration order.
std::vector<Bench>& registry();

/// Registers a bench at static-initialisation time: `static Registration r{Bench{...}};`.
struct Registration {
  explicit Registration(Bench b) { registry().push_back(std::move(b)); }
};

}  // namespace simscope::bench
