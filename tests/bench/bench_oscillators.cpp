// simscope-bench oscillators: RK4 steps of Stuart-Landau network ensembles (compute/oscillators).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

#include "bench.hpp"
#include "core/backend.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/oscillators_internal.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"

namespace simscope::bench {
namespace {

using namespace simscope::oscillators;

/// The process's CPU time (all threads): on a shared, loaded machine a steadier measure of the
/// work than the wall clock (which counts the time the threads wait for a core).
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// The three load averages of /proc/loadavg, e.g. "2.1 1.9 1.5"; empty when unreadable.
std::string load_average() {
  std::string s;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    double a = 0, b = 0, c = 0;
    if (std::fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
      s = buf;
    }
    std::fclose(f);
  }
  return s;
}

/// --mode marginal: the study kernel's marginal rate on four topologies, one JSON line each.
/// For each, load() + advance() of S1 and of S2 steps are timed `repeat` times, interleaved;
/// the rate is K N (S2 - S1) / (t(S2) - t(S1)) of the medians, so building the networks'
/// tables, the first chunk and other per-load costs cancel.
int run_marginal(const Args& a) {
  const std::string prec = a.choice("precision", "fp64", {"fp64", "fp32"});
  const int N = int(a.count("nodes", 100));
  const int K = int(a.count("members", 100000));
  const std::int64_t s2 = a.count("steps", 320), s1 = a.count("steps1", 64);
  if (s2 <= s1) throw UsageError("--steps must exceed --steps1");
  const int repeat = int(a.count("repeat", 3));
  const std::int64_t every = a.count("every", 100);
  const auto seed = std::uint64_t(a.count("seed", 1));
  const double dt = a.number("dt", 0.01, 1e-9, 10);
  const std::string only = a.choice("topology", "all", {"all", "ring", "watts_strogatz"});
  const bool lanes = a.choice("lanes", "on", {"on", "off"}) == "on";
  detail::set_cpu_lanes(lanes);
  const Precision precision = prec == "fp32" ? Precision::Fp32 : Precision::Fp64;
  const Model m{1.0, 1.0, 0.2};
  struct Case {
    const char* name;
    bool ring;
    int k;
    double p;
  };
  // ring k = 4 is Watts-Strogatz k = 4 with nothing rewired: the same degree and arithmetic
  // per node, no irregular neighbours, so it bounds what k = 4 p = 0.1 can reach.
  const Case cases[] = {{"ring k=2", true, 2, 0},
                        {"ring k=4", true, 4, 0},
                        {"watts_strogatz k=4 p=0.1", false, 4, 0.1},
                        {"watts_strogatz k=2 p=0.2", false, 2, 0.2}};
  const State s0 = initial_state("random", N, K, seed);
  for (const Case& c : cases) {
    if ((only == "ring" && !c.ring) || (only == "watts_strogatz" && c.ring)) continue;
    const Topologies t = c.ring ? ring(N, c.k, K) : watts_strogatz(N, c.k, c.p, K, seed);
    auto e = make_ensemble(Backend::Cpu);
    Recording rec;
    rec.transient = 0;
    rec.every = every;
    std::vector<double> w1, w2, c1, c2;
    double msd = 0;
    for (int r = 0; r < repeat; ++r)
      for (const std::int64_t s : {s1, s2}) {
        Series out;
        const auto t0 = std::chrono::steady_clock::now();
        const double cpu0 = cpu_now();
        e->load(t, s0, precision);
        e->advance(m, dt, s, rec, out);
        const double w = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double cs = cpu_now() - cpu0;
        (s == s1 ? w1 : w2).push_back(w);
        (s == s1 ? c1 : c2).push_back(cs);
        double mean = 0, sem = 0;
        std::int64_t n = 0;
        ensemble_mean(e->member_stats(0).msd_mean, mean, sem, n);
        if (s == s2) msd = mean;
      }
    const double work = double(K) * N * double(s2 - s1);
    const double dw = median(w2) - median(w1), dc = median(c2) - median(c1);
    Json j;
    j.add("workload", "oscillators")
        .add("mode", "marginal")
        .add("backend", "cpu")
        .add("device", cpu_description())
        .add("precision", prec)
        .add("lanes", lanes ? "on" : "off")
        .add("topology", c.name)
        .add("nodes", std::int64_t(N))
        .add("members", std::int64_t(K))
        .add("steps1", s1)
        .add("steps2", s2)
        .add("seconds1", median(w1))
        .add("seconds2", median(w2))
        .add("marginal_osc_steps_per_s", dw > 0 ? work / dw : 0.0)
        .add("marginal_osc_steps_per_cpu_s", dc > 0 ? work / dc : 0.0)
        .add("msd_mean", msd)
        .add("repeat", std::int64_t(repeat))
        .add("loadavg", load_average())
        .add("definition",
             "marginal rate = K N (S2 - S1) / (t(S2) - t(S1)), t(S) = median wall (cpu: process "
             "CPU) seconds of load() + advance(S steps)");
    std::printf("%s\n", j.str().c_str());
    std::fflush(stdout);
  }
  return 0;
}

int run_oscillators(const std::vector<std::string>& words) {
  const Args a(words, {"mode", "backend", "precision", "nodes", "members", "steps", "steps1",
                       "topology", "k", "p", "repeat", "every", "seed", "dt", "lanes"});
  const std::string mode = a.choice("mode", "single", {"single", "study", "marginal"});
  if (mode == "marginal") return run_marginal(a);
  const bool single = mode == "single";
  const std::string backend_name = a.choice("backend", "cpu", {"cpu", "cuda", "auto"});
  const BackendChoice choice = choose_backend(backend_name);
  const bool cuda = choice.backend == Backend::Cuda;
  const std::string prec = a.choice("precision", "fp64", {"fp64", "fp32"});
  const int N = int(a.count("nodes", 100));
  const int K = single ? int(a.count("members", 1)) : int(a.count("members", cuda ? 16384 : 256));
  const std::int64_t steps =
      a.count("steps", single ? (cuda ? 1000000 : 20000) : (cuda ? 20000 : 2000));
  const std::string topo = a.choice("topology", single ? "ring" : "watts_strogatz",
                                    {"ring", "watts_strogatz", "erdos_renyi"});
  const int k = int(a.count("k", single ? 2 : 4));
  const double p = a.number("p", 0.1, 0, 1);
  const int repeat = int(a.count("repeat", 3));
  const std::int64_t every = a.count("every", 100);
  const auto seed = std::uint64_t(a.count("seed", 1));
  const double dt = a.number("dt", 0.01, 1e-9, 10);
  // The CPU kernels with one SIMD lane per member (default) or every member on its own (the
  // schedule before them: the same results, for a side-by-side figure in one binary).
  const bool lanes = a.choice("lanes", "on", {"on", "off"}) == "on";
  detail::set_cpu_lanes(lanes);

  const Topologies t = topo == "ring"             ? ring(N, k, K)
                       : topo == "watts_strogatz" ? watts_strogatz(N, k, p, K, seed)
                                                  : erdos_renyi(N, p, K, seed);
  const State s0 = initial_state("random", N, K, seed);
  const Model m{1.0, 1.0, 0.2};  // the anchors' w, c, e
  const Precision precision = prec == "fp32" ? Precision::Fp32 : Precision::Fp64;
  auto e = make_ensemble(choice.backend);
  Recording rec;
  rec.transient = 0;  // msd every step, as the original averaged it
  rec.every = every;

  std::vector<double> secs, cpu_secs;
  double msd = 0;
  for (int r = 0; r < repeat; ++r) {
    e->load(t, s0, precision);
    Series s;
    e->advance(m, dt, std::min<std::int64_t>(100, steps), rec, s);  // warm-up, first chunk sizes
    e->load(t, s0, precision);
    s.clear();
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_now();
    e->advance(m, dt, steps, rec, s);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpu_secs.push_back(cpu_now() - c0);
    double mean = 0, sem = 0;
    std::int64_t n = 0;
    ensemble_mean(e->member_stats(0).msd_mean, mean, sem, n);
    msd = mean;
  }
  const double sec = median(secs);
  const double osc_steps = double(N) * K * double(steps);

  Json j;
  j.add("workload", "oscillators")
      .add("mode", mode)
      .add("backend", to_string(choice.backend))
      .add("device", cuda ? cuda_status().device : cpu_description())
      .add("precision", prec)
      .add("nodes", std::int64_t(N))
      .add("members", std::int64_t(K))
      .add("steps", steps)
      .add("lanes", lanes ? "on" : "off")
      .add("topology", topo + (topo == "erdos_renyi" ? "" : " k=" + std::to_string(k)) +
                           (topo == "ring" ? "" : " p=" + std::to_string(p)));
  if (single) j.add("seconds_per_1e6_steps", sec / double(steps) * 1e6);
  j.add("osc_steps_per_s", osc_steps / sec)
      .add("seconds", sec)
      .add("cpu_seconds", median(cpu_secs))
      .add("osc_steps_per_cpu_s", osc_steps / median(cpu_secs))
      .add("repeat", std::int64_t(repeat))
      .add("msd_mean", msd)
      .add("peak_rss_bytes", peak_rss_bytes())
      .add("peak_device_bytes", e->peak_device_bytes())
      .add("setup", "w=1 c=1 e=0.2 dt=" + std::to_string(dt) + ", x,y standard normal (seed " +
                        std::to_string(seed) +
                        "), RK4 with msd accumulated every step and R/msd sampled every " +
                        std::to_string(every) + " steps; seconds: median of advance() over " +
                        "the runs, after a 100-step warm-up");
  std::printf("%s\n", j.str().c_str());
  return 0;
}

const Registration reg{Bench{
    "oscillators",
    "oscillators [--mode single|study|marginal] [--backend cpu|cuda|auto] [--precision fp64|fp32] "
    "[--nodes N] [--members K] [--steps S] [--topology ring|watts_strogatz|erdos_renyi] [--k K] "
    "[--p P] [--every E] [--repeat R] [--lanes on|off]",
    "  RK4 steps of K Stuart-Landau networks of N oscillators (compute/oscillators), with the\n"
    "  observables on: msd of every step accumulated into each member's time average, R and\n"
    "  msd sampled every --every steps (default 100). w = 1, c = 1, e = 0.2, dt = 0.01 (the\n"
    "  anchors'), initial x, y standard normal.\n"
    "  --mode single (default): one network (K = 1), by default the original ring of N = 100\n"
    "       with two neighbours (k = 2): seconds_per_1e6_steps. Defaults: 20000 steps on cpu,\n"
    "       1e6 on cuda.\n"
    "  --mode study: K members (default 256 cpu, 16384 cuda) of Watts-Strogatz networks\n"
    "       (k = 4, p = 0.1), 2000 (cpu) / 20000 (cuda) steps: osc_steps_per_s = K N S / s.\n"
    "  --mode marginal: the study kernel's marginal rate on the CPU, one JSON line per topology:\n"
    "       ring k = 2, ring k = 4 (Watts-Strogatz k = 4 with nothing rewired: its regular bound),\n"
    "       Watts-Strogatz k = 4 p = 0.1 and k = 2 p = 0.2 (--topology all, default;\n"
    "       ring or watts_strogatz for some), K = --members (default 1e5), N = 100. load() +\n"
    "       advance() of --steps1 S1 (default 64) and --steps S2 (default 320) steps, timed\n"
    "       --repeat times interleaved; marginal_osc_steps_per_s = K N (S2 - S1) / (t(S2) - t(S1))\n"
    "       of the median wall times (per-load costs such as building the tables cancel),\n"
    "       marginal_osc_steps_per_cpu_s the same of the process's CPU time; loadavg at the end.\n"
    "  --backend cpu|cuda|auto (default cpu)   --precision fp64 (default) | fp32\n"
    "  --repeat R  timed runs after a 100-step warm-up; seconds is their median (default 3)\n"
    "  --lanes on|off  cpu: groups of 8 members one SIMD lane per member (default on), or every\n"
    "       member on its own (the schedule before; results identical)\n"
    "  JSON keys: workload, mode, backend, device, precision, nodes, members, steps, lanes,\n"
    "  topology, seconds_per_1e6_steps (single), osc_steps_per_s, seconds, cpu_seconds (the\n"
    "  process's CPU time over the same runs, median), osc_steps_per_cpu_s (per CPU second:\n"
    "  steadier on a loaded machine; x threads for the wall rate on an idle one), repeat,\n"
    "  msd_mean (ensemble mean of the time-averaged msd, a sanity value), peak_rss_bytes\n"
    "  (getrusage), peak_device_bytes (CUDA ensemble's peak allocation; 0 on cpu), setup.\n",
    run_oscillators}};

}  // namespace
}  // namespace simscope::bench
