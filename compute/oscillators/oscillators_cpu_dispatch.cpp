// The CPU ensemble's level-independent part: its dispatch point, which makes the active
// instruction-set level's ensemble (core/isa.hpp; each compiled from oscillators_cpu.cpp), and
// the process-wide schedule settings and counter that every level's kernels read
// (oscillators_internal.hpp).
#include <atomic>

#include "core/isa.hpp"
#include "oscillators/oscillators_internal.hpp"

namespace simscope::oscillators::detail {

SIMSCOPE_ISA_DECLARE(std::unique_ptr<Ensemble> make_cpu_ensemble())

SIMSCOPE_ISA_DECLARE(int cpu_lane_width())

std::unique_ptr<Ensemble> make_cpu_ensemble() {
  SIMSCOPE_ISA_DISPATCH("oscillators", make_cpu_ensemble());
}
int cpu_lane_width() { SIMSCOPE_ISA_DISPATCH("oscillators", cpu_lane_width()); }

namespace {
std::atomic<std::size_t> g_table_cache_bytes{std::size_t(512) << 20};
std::atomic<bool> g_lanes{true};
std::atomic<std::int64_t> g_lane_groups{0};
std::atomic<bool> g_fused{true};
std::atomic<std::int64_t> g_fused_groups{0};
}  // namespace

std::size_t cpu_table_cache_bytes() { return g_table_cache_bytes.load(); }
void set_cpu_table_cache_bytes(std::size_t bytes) { g_table_cache_bytes = bytes; }
bool cpu_lanes() { return g_lanes.load(); }
void set_cpu_lanes(bool on) { g_lanes = on; }
std::int64_t cpu_lane_groups_run() { return g_lane_groups.load(); }
void count_cpu_lane_group() { g_lane_groups.fetch_add(1, std::memory_order_relaxed); }
bool cpu_fused() { return g_fused.load(); }
void set_cpu_fused(bool on) { g_fused = on; }
std::int64_t cpu_fused_groups_run() { return g_fused_groups.load(); }
void count_cpu_fused_group() { g_fused_groups.fetch_add(1, std::memory_order_relaxed); }

}  // namespace simscope::oscillators::detail
