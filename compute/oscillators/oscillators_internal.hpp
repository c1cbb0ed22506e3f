#pragma once
/// @file Internals of the oscillators workload shared by its .cpp and .cu files. Not a public API.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "oscillators/ensemble.hpp"

namespace simscope::oscillators::detail {

/// The msd time average is summed in windows of this many steps, aligned to the global step, and
/// each complete window is added to the total. The sum therefore does not depend on chunking.
constexpr std::int64_t kMsdWindow = 1024;
/// The most oscillators (members x nodes: state memory) load() accepts; members and nodes alone:
/// kMaxMembers and kMaxNodes (topology.hpp).
constexpr double kMaxOscillators = 4e8;
/// The longest series a study may record, T = steps / every.
constexpr std::int64_t kMaxSamples = 10000000;

// ---- random numbers ----------------------------------------------------------------------------

/// SplitMix64 (Steele, Lea & Flood 2014), used to seed the generators.
inline std::uint64_t splitmix64(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The seed of member k's stream `stream` from a user seed. Streams: 1 topology, 2 initial state.
inline std::uint64_t member_seed(std::uint64_t seed, int member, std::uint64_t stream) {
  std::uint64_t s = seed ^ (stream * 0xd1b54a32d192ed03ull);
  const std::uint64_t a = splitmix64(s);
  std::uint64_t t = a ^ (std::uint64_t(member) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull);
  return splitmix64(t);
}

/// xoshiro256** (Blackman & Vigna 2018) with portable uniform and normal transforms.
/// A seed gives the same numbers with any compiler and library, up to libm's log and cos in
/// normal().
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }
  std::uint64_t next() {
    const std::uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3], s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  ///< [0, 1)
  /// Uniform integer in [0, n) for n >= 1, by rejection, without modulo bias.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = ~std::uint64_t(0) - (~std::uint64_t(0) % n);
    for (;;) {
      const std::uint64_t r = next();
      if (r < limit) return r % n;
    }
  }
  double normal() {  ///< Box-Muller, one value per call
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// ---- shared checks -----------------------------------------------------------------------------

/// Checks what load() is given: sizes, limits, and a finite state unless `finite_state` is false.
/// A restored snapshot may hold failed members' non-finite states. Throws simscope::Error.
void check_load(const Topologies& t, const State& s, bool finite_state = true);
/// Checks advance()'s arguments; messages name integrator.dt and record.every. Throws Error.
void check_advance(double dt, std::int64_t steps, const Recording& rec);
/// The largest number of steps from global step `first` such that at most `cap` samples, i.e.
/// multiples of `every`, fall in (first, first + steps]. At least 1.
std::int64_t steps_for_samples(std::int64_t first, std::int64_t every, std::int64_t cap);
/// Samples in (first, first + steps].
inline std::int64_t samples_in(std::int64_t first, std::int64_t steps, std::int64_t every) {
  return (first + steps) / every - first / every;
}

// ---- back ends ---------------------------------------------------------------------------------

/// The CPU ensemble of the active instruction-set level (core/isa.hpp; oscillators_cpu.cpp, one
/// per level, and oscillators_cpu_dispatch.cpp, which also keeps the settings below).
std::unique_ptr<Ensemble> make_cpu_ensemble();
/// Bytes the CPU ensemble may spend keeping members' own neighbour tables between chunks.
/// Default 512 MiB. Results do not depend on it: a table not kept is rebuilt identically at
/// each chunk. 0 rebuilds every table at every chunk; tests compare both. Read by load() and
/// restore().
std::size_t cpu_table_cache_bytes();
void set_cpu_table_cache_bytes(std::size_t bytes);
/// Whether the CPU ensemble integrates groups of kLanes members whose tables share a form (ELL, or
/// a ring lattice of one half-width), one SIMD lane per member (cpu_lanes.hpp). Default on. Results do not depend on it: each lane
/// performs the per-member operations. Off, every member is integrated on its own; tests compare
/// both. Read by advance().
bool cpu_lanes();
void set_cpu_lanes(bool on);
/// Members per lane group at the active level (cpu_lanes.hpp's kLanes: 8, 4 or 2).
int cpu_lane_width();
/// Number of (group, chunk) integrations the lane kernels have run in this process.
/// A counter for tests of which networks take the lanes.
std::int64_t cpu_lane_groups_run();
/// Adds one to cpu_lane_groups_run(); called by the lane kernels.
void count_cpu_lane_group();
/// Whether lane groups of unweighted ELL tables and of unit-weight rings of half-width <= 3 run
/// fused, each node's neighbour sum and stage in one pass (cpu_lanes.hpp, fused_stage_lanes).
/// Default on. Results do not depend on it; tests compare both. Read by advance().
bool cpu_fused();
void set_cpu_fused(bool on);
/// Number of (group, chunk) integrations run fused in this process (a counter for tests).
std::int64_t cpu_fused_groups_run();
void count_cpu_fused_group();
/// Linked only with SIMSCOPE_HAVE_CUDA (oscillators_cuda.cu).
std::unique_ptr<Ensemble> make_cuda_ensemble();

// ---- CUDA launch plan: pure C++, so CPU tests cover it -----------------------------------------

/// How the CUDA kernel lays K members of N nodes over thread blocks. Each block integrates B
/// members; each member gets P consecutive threads. Thread l of a member owns nodes l, l + P, ...,
/// npl of them; the last ones may be missing. threads = B * P rounded up to a multiple of 32.
struct LaunchPlan {
  int npl = 1;
  int P = 1;
  int B = 1;
  int threads = 32;
  int parts = 2;           ///< partial-sum slots per member (warps a member spans, bounded)
  std::size_t smem = 0;    ///< dynamic shared memory per block, bytes
  double utilization = 0;  ///< N * B / (threads * npl): the fraction of thread slots with a node
  int blocks = 0;          ///< ceil(K / B)
};

/// Nodes per thread with compiled kernels, and the largest block each may use, as set by the
/// kernels' __launch_bounds__: npl <= 4 allows 512 threads, i.e. <= 128 registers; npl 5 and 8
/// allow 192 threads and 2 blocks per SM, <= 168 registers. npl 4, 5 and 8 spill registers;
/// see tests/bench/NOTES.md. Measure them on a GPU (SIMSCOPE_OSC_NPL) before relying on them.
constexpr int kNplChoices[] = {1, 2, 4, 5, 8};
constexpr int max_threads_for_npl(int npl) { return npl <= 4 ? 512 : 192; }
constexpr int min_blocks_for_npl(int npl) { return npl <= 4 ? 1 : 2; }
/// The largest N the CUDA kernel takes, one block per member: 2048.
constexpr int kCudaMaxNodes = 2048;
/// Dynamic shared memory per block: partial sums of B * parts * 4 doubles, shift of B doubles,
/// and two stage buffers of B * N values of `elem` bytes.
std::size_t plan_smem(int nodes, int B, int parts, std::size_t elem);
/// Chooses the plan. Few members, K < 2 * sms: one member per block, with the smallest npl that
/// keeps the block at <= 256 threads, for latency. Many members: the highest slot utilisation in
/// 5 % steps, with at least two blocks per SM and blocks of <= 256 threads, then the npl
/// preferred for registers (oscillators_launch.cpp). Throws simscope::Error when N > kCudaMaxNodes.
LaunchPlan choose_plan(int nodes, int members, int sms, std::size_t elem,
                       std::size_t smem_limit = 48 * 1024);
/// A given layout, for tuning on a GPU via SIMSCOPE_OSC_NPL and SIMSCOPE_OSC_B.
/// Throws simscope::Error for an npl without a kernel or a block above its limit.
LaunchPlan plan_for(int nodes, int members, int npl, int B, std::size_t elem);

}  // namespace simscope::oscillators::detail
