#pragma once
/// @file The instruction-set level the CPU kernels run at, chosen once per process.
///
/// A portable build (the default, SIMSCOPE_NATIVE=OFF) compiles each CPU kernel family (the field's
/// direct-sum tiles, the tree's traversal and P2P, lsq's lane-group solver, the oscillators'
/// lanes) three times, for the x86-64 psABI levels v2 (SSE4.2), v3 (AVX2 + FMA) and v4 (AVX-512),
/// in the level's own translation units and namespace (isa_v2, isa_v3, isa_v4; see
/// cmake/SimscopeIsa.cmake). The rest of the program is built for baseline x86-64. The level is
/// the highest one the CPU supports, or the one SIMSCOPE_ISA names (v2, v3 or v4), or the one
/// set_isa_level sets (under MPI: the lowest among the ranks). Each family's dispatch point
/// calls its kernels at isa_level(); kernels already made keep theirs.
/// A SIMSCOPE_NATIVE=ON build holds one level, "native" (-march=native); a build for another
/// processor than x86-64 holds one, "baseline".
#include <string>
#include <string_view>
#include <vector>

namespace simscope {

/// A level the CPU kernels can be built for.
enum class IsaLevel : int { Baseline = 0, V2 = 2, V3 = 3, V4 = 4, Native = 10 };

/// "x86-64-v2", "x86-64-v3", "x86-64-v4", "native" (-march=native) or "baseline".
const char* isa_name(IsaLevel level);

/// The levels this build holds kernels for, lowest first.
std::vector<IsaLevel> built_isa_levels();

/// Whether this CPU (and its operating system, for AVX-512's registers) runs code of `level`.
/// Always true for Baseline and Native (a native build runs where it was built).
bool cpu_supports(IsaLevel level);

/// The level the kernels run at. Resolved at the first call: SIMSCOPE_ISA when set, else the
/// highest built level this CPU supports. Throws simscope::Error naming SIMSCOPE_ISA when it
/// is not a built level or this CPU lacks it, and when the CPU supports no built level.
IsaLevel isa_level();

/// Why isa_level() is what it is: "this CPU's highest", "SIMSCOPE_ISA=v3", or the reason given
/// to set_isa_level.
std::string isa_chosen_by();

/// Makes `level` the level of kernels made from now on; `reason` is what isa_chosen_by() says.
/// Throws simscope::Error when this build does not hold it or this CPU lacks it.
void set_isa_level(IsaLevel level, const std::string& reason = "set by the program");

/// Reads "v2", "v3", "v4" (or "x86-64-v2" ...), "native" or "baseline". Throws simscope::Error
/// naming `what` and the accepted names otherwise.
IsaLevel parse_isa_level(std::string_view text, std::string_view what);

/// One line for --version and logs, e.g. "CPU kernels: x86-64-v4 (this CPU's highest; built:
/// x86-64-v2, x86-64-v3, x86-64-v4)".
std::string isa_summary();

/// Aborts with a message: a dispatch point reached a level that is not built (a bug).
[[noreturn]] void isa_unreachable(const char* family);

}  // namespace simscope

// Dispatch points (compute/ .cpp files only; SIMSCOPE_ISA_SET is a private definition of
// simscope_compute). SIMSCOPE_ISA_FOR_EACH(X, args...) expands X(level, args...) for each built
// level's namespace suffix; SIMSCOPE_ISA_DECLARE(decl) declares decl in each level's namespace;
// SIMSCOPE_ISA_DISPATCH(family, call) returns isa_<level>::call for the active level.
#if defined(SIMSCOPE_ISA_SET)
#if SIMSCOPE_ISA_SET == 1
#define SIMSCOPE_ISA_FOR_EACH(X, ...) X(v2, __VA_ARGS__) X(v3, __VA_ARGS__) X(v4, __VA_ARGS__)
#elif SIMSCOPE_ISA_SET == 2
#define SIMSCOPE_ISA_FOR_EACH(X, ...) X(native, __VA_ARGS__)
#else
#define SIMSCOPE_ISA_FOR_EACH(X, ...) X(baseline, __VA_ARGS__)
#endif
#define SIMSCOPE_ISA_ENUM_v2 ::simscope::IsaLevel::V2
#define SIMSCOPE_ISA_ENUM_v3 ::simscope::IsaLevel::V3
#define SIMSCOPE_ISA_ENUM_v4 ::simscope::IsaLevel::V4
#define SIMSCOPE_ISA_ENUM_native ::simscope::IsaLevel::Native
#define SIMSCOPE_ISA_ENUM_baseline ::simscope::IsaLevel::Baseline
#define SIMSCOPE_ISA_DECLARE_ONE_(L, ...) \
  namespace isa_##L {                     \
  __VA_ARGS__;                            \
  }
#define SIMSCOPE_ISA_DECLARE(...) SIMSCOPE_ISA_FOR_EACH(SIMSCOPE_ISA_DECLARE_ONE_, __VA_ARGS__)
#define SIMSCOPE_ISA_CASE_(L, ...) \
  case SIMSCOPE_ISA_ENUM_##L:      \
    return isa_##L::__VA_ARGS__;
#define SIMSCOPE_ISA_DISPATCH(family, ...)                                  \
  switch (::simscope::isa_level()) {                                        \
    SIMSCOPE_ISA_FOR_EACH(SIMSCOPE_ISA_CASE_, __VA_ARGS__) default : break; \
  }                                                                         \
  ::simscope::isa_unreachable(family)
#endif

// In a level's own translation units (SIMSCOPE_ISA_NS is isa_v2, isa_v3, ...; the build defines
// it), SIMSCOPE_ISA_BEGIN/END open and close an inline namespace of that name around the
// declarations of functions that the level's units define for one another, so that each level
// has its own; elsewhere they are empty.
#if defined(SIMSCOPE_ISA_NS)
#define SIMSCOPE_ISA_BEGIN inline namespace SIMSCOPE_ISA_NS {
#define SIMSCOPE_ISA_END }
#else
#define SIMSCOPE_ISA_BEGIN
#define SIMSCOPE_ISA_END
#endif
