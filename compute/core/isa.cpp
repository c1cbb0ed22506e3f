// The kernels' instruction-set level: detection (GCC's __builtin_cpu_supports, which checks the
// operating system's support of the AVX and AVX-512 registers too), SIMSCOPE_ISA, and the
// process-wide choice.
#include "core/isa.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "core/error.hpp"

namespace simscope {

namespace {

std::mutex g_mutex;
std::atomic<int> g_level{-1};  // -1: not resolved yet
std::string g_chosen_by;        // guarded by g_mutex

std::string built_names() {
  std::string s;
  for (IsaLevel l : built_isa_levels()) s += (s.empty() ? "" : ", ") + std::string(isa_name(l));
  return s;
}

std::string accepted_names() {
  const auto built = built_isa_levels();
  if (built.size() == 1) return std::string("'") + isa_name(built[0]) + "' (this build's only level)";
  return "v2, v3 or v4";
}

bool is_built(IsaLevel level) {
  for (IsaLevel l : built_isa_levels())
    if (l == level) return true;
  return false;
}

/// Throws unless `level` is built and this CPU runs it; `what` names the setting.
void check_usable(IsaLevel level, const std::string& what) {
  if (!is_built(level))
    throw Error(what + ": this build holds CPU kernels for " + built_names() + " only, not " +
                isa_name(level) +
                (built_isa_levels().size() == 1 && level != IsaLevel::Native &&
                         built_isa_levels()[0] == IsaLevel::Native
                     ? " (it was built with SIMSCOPE_NATIVE=ON: build with -DSIMSCOPE_NATIVE=OFF "
                       "for the portable levels)"
                     : ""));
  if (!cpu_supports(level))
    throw Error(what + ": this CPU does not support " + isa_name(level) + " (it supports up to " +
                [] {
                  std::string best = "none of " + built_names();
                  for (IsaLevel l : built_isa_levels())
                    if (cpu_supports(l)) best = isa_name(l);
                  return best;
                }() +
                ")");
}

}  // namespace

const char* isa_name(IsaLevel level) {
  switch (level) {
    case IsaLevel::Baseline: return "baseline";
    case IsaLevel::V2: return "x86-64-v2";
    case IsaLevel::V3: return "x86-64-v3";
    case IsaLevel::V4: return "x86-64-v4";
    case IsaLevel::Native: return "native";
  }
  return "?";
}

std::vector<IsaLevel> built_isa_levels() {
#if SIMSCOPE_ISA_SET == 1
  return {IsaLevel::V2, IsaLevel::V3, IsaLevel::V4};
#elif SIMSCOPE_ISA_SET == 2
  return {IsaLevel::Native};
#else
  return {IsaLevel::Baseline};
#endif
}

bool cpu_supports(IsaLevel level) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)  // GCC >= 12's level names
  __builtin_cpu_init();
  switch (level) {
    case IsaLevel::V2: return __builtin_cpu_supports("x86-64-v2") > 0;
    case IsaLevel::V3: return __builtin_cpu_supports("x86-64-v3") > 0;
    case IsaLevel::V4: return __builtin_cpu_supports("x86-64-v4") > 0;
    default: return true;
  }
#else
  return level == IsaLevel::Baseline || level == IsaLevel::Native;
#endif
}

IsaLevel parse_isa_level(std::string_view text, std::string_view what) {
  std::string t(text);
  if (t.rfind("x86-64-", 0) == 0) t = t.substr(7);
  if (t == "v2") return IsaLevel::V2;
  if (t == "v3") return IsaLevel::V3;
  if (t == "v4") return IsaLevel::V4;
  if (t == "native") return IsaLevel::Native;
  if (t == "baseline") return IsaLevel::Baseline;
  throw Error(std::string(what) + "='" + std::string(text) + "': expected " + accepted_names());
}

IsaLevel isa_level() {
  const int cached = g_level.load(std::memory_order_acquire);
  if (cached >= 0) return IsaLevel(cached);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_level.load() >= 0) return IsaLevel(g_level.load());
  IsaLevel level;
  std::string chosen_by;
  const char* env = std::getenv("SIMSCOPE_ISA");
  if (env && *env) {
    level = parse_isa_level(env, "SIMSCOPE_ISA");
    check_usable(level, std::string("SIMSCOPE_ISA=") + env);
    chosen_by = std::string("SIMSCOPE_ISA=") + env;
  } else {
    bool found = false;
    for (IsaLevel l : built_isa_levels())
      if (cpu_supports(l)) level = l, found = true;
    if (!found)
      throw Error(std::string("this CPU supports none of the levels the CPU kernels were built "
                              "for (") +
                  built_names() + ")");
    chosen_by = built_isa_levels().size() == 1 ? "this build's only level" : "this CPU's highest";
  }
  g_chosen_by = chosen_by;
  g_level.store(int(level), std::memory_order_release);
  return level;
}

std::string isa_chosen_by() {
  isa_level();
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_chosen_by;
}

void set_isa_level(IsaLevel level, const std::string& reason) {
  check_usable(level, reason);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_chosen_by = reason;
  g_level.store(int(level), std::memory_order_release);
}

std::string isa_summary() {
  const IsaLevel level = isa_level();
  return std::string("CPU kernels: ") + isa_name(level) + " (" + isa_chosen_by() +
         "; built: " + built_names() + ")";
}

void isa_unreachable(const char* family) {
  std::fprintf(stderr, "simscope: %s: no CPU kernels for level %s in this build (a bug)\n", family,
               isa_name(isa_level()));
  std::abort();
}

}  // namespace simscope
