// simscope-bench: one JSON object per run for each workload's kernels (see NOTES.md).
// The workloads register themselves (bench_field.cpp, ...); this file parses the command line.
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "bench.hpp"

namespace simscope::bench {

std::vector<Bench>& registry() {
  static std::vector<Bench> r;
  return r;
}

Args::Args(const std::vector<std::string>& words, const std::vector<std::string>& known) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + w + "'");
    std::string flag = w.substr(2), value;
    const auto eq = flag.find('=');
    if (eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    } else {
      if (i + 1 >= words.size()) throw UsageError("--" + flag + " needs a value");
      value = words[++i];
    }
    if (std::find(known.begin(), known.end(), flag) == known.end())
      throw UsageError("unknown option --" + flag);
    if (values_.count(flag)) throw UsageError("--" + flag + " given twice");
    values_[flag] = value;
  }
}

std::string Args::str(const std::string& flag, const std::string& def) const {
  auto it = values_.find(flag);
  return it == values_.end() ? def : it->second;
}

std::int64_t Args::count(const std::string& flag, std::int64_t def) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return def;
  const std::string& t = it->second;
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !(d >= 1) || d > 9e15 || std::floor(d) != d)
    throw UsageError("--" + flag + ": expected a positive integer, got '" + t + "'");
  return std::int64_t(d);
}

double Args::number(const std::string& flag, double def, double lo, double hi) const {
  const std::string t = str(flag, "");
  if (t.empty()) return def;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (*end || !std::isfinite(v) || v < lo || v > hi)
    throw UsageError("--" + flag + ": expected a number in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "], got '" + t + "'");
  return v;
}

std::string Args::choice(const std::string& flag, const std::string& def,
                         const std::vector<std::string>& choices) const {
  const std::string v = str(flag, def);
  if (std::find(choices.begin(), choices.end(), v) != choices.end()) return v;
  std::string all;
  for (const auto& c : choices) all += (all.empty() ? "" : "|") + c;
  throw UsageError("--" + flag + ": expected " + all + ", got '" + v + "'");
}

namespace {
std::string quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else
      o += c;
  }
  return o + "\"";
}
}  // namespace

Json& Json::add(const std::string& k, const std::string& v) {
  items_.emplace_back(k, quote(v));
  return *this;
}
Json& Json::add(const std::string& k, double v) {
  char buf[32];
  if (std::isfinite(v))
    std::snprintf(buf, sizeof buf, "%.6g", v);
  else
    std::snprintf(buf, sizeof buf, "null");
  items_.emplace_back(k, buf);
  return *this;
}
Json& Json::add(const std::string& k, std::int64_t v) {
  items_.emplace_back(k, std::to_string(v));
  return *this;
}
Json& Json::add(const std::string& k, std::uint64_t v) {
  items_.emplace_back(k, std::to_string(v));
  return *this;
}
std::string Json::str() const {
  std::string o = "{";
  for (std::size_t i = 0; i < items_.size(); ++i)
    o += (i ? ", " : "") + quote(items_[i].first) + ": " + items_[i].second;
  return o + "}";
}

std::int64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return std::int64_t(u.ru_maxrss) * 1024;
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

std::string cpu_description() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model = "CPU";
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model + " (" + std::to_string(omp_get_max_threads()) + " threads)";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace simscope::bench

namespace {

void print_help() {
  using simscope::bench::registry;
  std::printf(
      "simscope-bench: times simscope's compute kernels and prints ONE JSON object on stdout.\n"
      "No GUI, no GL, no Qt. Errors go to stderr (exit 1); usage errors exit with status 2.\n\n"
      "Usage:\n  simscope-bench --help\n");
  for (const auto& b : registry()) std::printf("  simscope-bench %s\n", b.usage.c_str());
  for (const auto& b : registry()) std::printf("\n%s:\n%s", b.name.c_str(), b.help.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace simscope::bench;
  std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    std::fprintf(stderr, "simscope-bench: missing workload (try --help)\n");
    return 2;
  }
  if (words[0] == "--help" || words[0] == "-h" || words[0] == "help") {
    print_help();
    return 0;
  }
  for (const auto& b : registry()) {
    if (b.name != words[0]) continue;
    std::vector<std::string> rest(words.begin() + 1, words.end());
    if (std::find(rest.begin(), rest.end(), "--help") != rest.end()) {
      std::printf("Usage: simscope-bench %s\n\n%s", b.usage.c_str(), b.help.c_str());
      return 0;
    }
    try {
      return b.run(rest);
    } catch (const UsageError& e) {
      std::fprintf(stderr, "simscope-bench %s: %s\nusage: simscope-bench %s\n", b.name.c_str(),
                   e.what(), b.usage.c_str());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "simscope-bench %s: error: %s\n", b.name.c_str(), e.what());
      return 1;
    }
  }
  std::string names;
  for (const auto& b : registry()) names += (names.empty() ? "" : ", ") + b.name;
  std::fprintf(stderr, "simscope-bench: unknown workload '%s' (known: %s; try --help)\n",
               words[0].c_str(), names.c_str());
  return 2;
}
