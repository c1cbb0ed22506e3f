// The oscillators workload's parameter schema and its readers (oscillators_params.hpp: schema,
// model_from, study_options_from, precision_from, make_topologies, make_initial_state).
#include "oscillators/oscillators_params.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "oscillators/given_networks.hpp"
#include "params/file_param.hpp"

namespace simscope::oscillators {

namespace {

constexpr double kNoMin = 1, kNoMax = 0;  // min > max: no range
constexpr double kMaxSeed = 9007199254740992.0;

Schema build() {
  using T = ParamType;
  std::vector<ParamSpec> s;
  s.push_back(param_spec("network.nodes", T::Int, std::int64_t(100), 1, kMaxNodes, "",
                         "N: oscillators per network (CUDA: at most 2048).", {}, true));
  s.push_back(param_spec("network.topology", T::Enum, std::string("watts_strogatz"), kNoMin, kNoMax,
                         "",
                         "Network: ring lattice of degree k, Watts-Strogatz small world (k, p), "
                         "Erdos-Renyi G(N, p), or your own networks from network.file.",
                         {"ring", "watts_strogatz", "erdos_renyi", "file"}));
  s.push_back(param_spec("network.k", T::Int, std::int64_t(4), 2, 10000, "",
                         "Ring and Watts-Strogatz degree: k/2 neighbours on each side (even, < N); "
                         "k = 2 is the original ring."));
  s.push_back(param_spec("network.p", T::Float, 0.1, 0, 1, "",
                         "Watts-Strogatz rewiring probability; Erdos-Renyi edge probability."));
  s.push_back(param_spec("network.file", T::Path, std::string(), kNoMin, kNoMax, "",
                         "Your networks for network.topology=file: an edge list (one edge 'i j "
                         "[weight]' per line, 0-based, '#' comments) or a .npy (N, N) adjacency "
                         "matrix, one graph for all members; a .npy (K, N, N) stack or a folder "
                         "of K such files (natural name order), one per member. Weights: any "
                         "finite number (negative: repulsive coupling)."));
  s.push_back(
      param_spec("network.seed", T::Int, std::int64_t(1), 0, kMaxSeed, "",
                 "Seed of the random networks: member k's graph depends on (seed, k) only."));
  s.push_back(
      param_spec("ensemble.size", T::Int, std::int64_t(16), 1, kMaxMembers, "",
                 "K: networks (members) in the ensemble; the live view integrates the first "
                 "64.",
                 {}, true));
  s.push_back(
      param_spec("model.omega", T::Float, 1.0, -1000, 1000, "1/time",
                 "w: linear frequency of dz/dt = (1 + i w) z - (1 - i c)|z|^2 z + coupling."));
  s.push_back(param_spec("model.c", T::Float, 1.0, -1000, 1000, "",
                         "c: nonlinear frequency shift; an uncoupled oscillator turns at w + c."));
  s.push_back(
      param_spec("model.coupling", T::Float, 0.2, -1000, 1000, "1/time",
                 "e: coupling strength on x, (e/2) sum_j G_ij (x_j - x_i) (or the form "
                 "model.coupling_form gives)."));
  s.push_back(param_spec(
      "model.coupling_form", T::Enum, std::string("laplacian"), kNoMin, kNoMax, "",
      "laplacian: (e/2) sum_j G_ij (x_j - x_i), diffusive; literal: (e/2)(G.X - d X), the "
      "original question's '(G.X - 2X) e/2' with d = model.coupling_degree, equal to the "
      "Laplacian only where every node's degree is d (a warning says when not).",
      {"laplacian", "literal"}));
  s.push_back(param_spec("model.coupling_degree", T::Float, 2.0, 0, 1e6, "",
                         "d of model.coupling_form=literal: the weight of a node's own x in its "
                         "coupling, the same for every node (2 in '(G.X - 2X) e/2')."));
  s.push_back(
      param_spec("init", T::Enum, std::string("random"), kNoMin, kNoMax, "",
                 "Initial state: x, y standard normal; on the limit cycle with uniform random "
                 "phases; or init.file.",
                 {"random", "uniform_phase", "file"}));
  s.push_back(param_spec("init.seed", T::Int, std::int64_t(1), 0, kMaxSeed, "",
                         "Seed of the initial states: member k's depends on (seed, k) only."));
  s.push_back(
      param_spec("init.file", T::Path, std::string(), kNoMin, kNoMax, "",
                 "For init=file: .npy of x, y with shape (N, 2) for every member or (K, N, 2) "
                 "(a study's state.npy)."));
  s.push_back(
      param_spec("integrator.dt", T::Float, 0.01, 1e-9, 10, "time", "RK4 step size.", {}, true));
  s.push_back(param_spec("integrator.steps", T::Int, std::int64_t(20000), 1, 1e10, "",
                         "RK4 steps of a study (headless run or the Run study button).", {}, true));
  s.push_back(
      param_spec("integrator.transient", T::Int, std::int64_t(5000), 0, 1e10, "",
                 "Steps left out of each member's time-averaged msd (< integrator.steps; "
                 "left at its default, a study of at most 5000 steps leaves out a quarter)."));
  s.push_back(param_spec(
      "record.every", T::Int, std::int64_t(10), 1, 1e9, "",
      "Sample interval (steps) of the series msd_t and order_t and the live plots.", {}, true));
  s.push_back(
      param_spec("precision", T::Enum, std::string("fp64"), kNoMin, kNoMax, "",
                 "fp64 (the original's) or fp32 state and RK4 stages; observables are summed "
                 "in fp64.",
                 {"fp64", "fp32"}));
  s.push_back(param_spec("live.steps_per_frame", T::Int, std::int64_t(5), 1, 1e6, "",
                         "Live view: RK4 steps per drawn frame.", {}, true));
  s.push_back(param_spec("live.topology", T::Int, std::int64_t(0), 0, kLiveMembers - 1, "",
                         "Member shown live (0-based, among the first 64 members): the phase "
                         "view draws its network and the plots follow its R(t) and msd(t)."));
  s.push_back(param_spec("live.history", T::Int, std::int64_t(2000), 10, 1000000, "",
                         "Live view: samples kept in the R(t) and msd(t) plots.", {}, true));
  s.push_back(
      param_spec("view", T::Enum, std::string("oscillators"), kNoMin, kNoMax, "",
                 "Centre view: the oscillators (phase view; the image shows the phases), or the "
                 "(K, N) map of phases or amplitudes.",
                 {"oscillators", "phases", "amplitudes"}));
  // A file is read only when its selector picks it; the generators' settings are not used when
  // the file is.
  using C = ParamCondition;
  std::vector<UseRule> rules = {
      {{{"network.topology", C::Op::NotEquals, "file"}},
       {"network.file"},
       "set network.topology=file to read the edge list"},
      {{{"network.topology", C::Op::Equals, "file"}},
       {"network.k", "network.p", "network.seed"},
       "settings of generated networks"},
      {{{"init", C::Op::NotEquals, "file"}}, {"init.file"}, "set init=file to start from the file"},
      {{{"model.coupling_form", C::Op::NotEquals, "literal"}},
       {"model.coupling_degree"},
       "set model.coupling_form=literal to use it"},
      {{{"init", C::Op::Equals, "file"}}, {"init.seed"}, "it seeds generated initial states"}};
  // The words of the field and of users' own code for these (refusals suggest the name).
  set_also(s, "model.omega", {"w"});
  set_also(s, "model.coupling", {"e", "epsilon"});
  set_also(s, "model.coupling_form", {"2x"});
  // K networks (README's table); "k" alone is network.k, the ring's neighbours.
  set_also(s, "network.k", {"k"});
  set_also(s, "ensemble.size", {"K", "members", "batch", "n_networks", "topologies",
                                "n_topologies"});
  set_also(s, "network.nodes", {"n", "n_nodes"});
  return Schema("oscillators", std::move(s), std::move(rules));
}

}  // namespace

const Schema& schema() {
  static const Schema s = build();
  return s;
}

Model model_from(const ParamSet& p) {
  Model m;
  m.omega = p.get_double("model.omega");
  m.c = p.get_double("model.c");
  m.coupling = p.get_double("model.coupling");
  m.form = p.get_string("model.coupling_form") == "literal" ? CouplingForm::Literal
                                                            : CouplingForm::Laplacian;
  m.degree = p.get_double("model.coupling_degree");
  return m;
}

Precision precision_from(const ParamSet& p) {
  return p.get_string("precision") == "fp32" ? Precision::Fp32 : Precision::Fp64;
}

StudyOptions study_options_from(const ParamSet& p) {
  StudyOptions o;
  o.model = model_from(p);
  o.dt = p.get_double("integrator.dt");
  o.steps = p.get_int("integrator.steps");
  o.transient = p.get_int("integrator.transient");
  // Left at its default, the transient follows a study too short for it: a quarter of its steps
  // (fill_study_result says so).
  if (p.is_default("integrator.transient") && o.transient >= o.steps) o.transient = o.steps / 4;
  o.every = p.get_int("record.every");
  o.precision = precision_from(p);
  return o;
}

Settings settings_from(const ParamSet& p) {
  Settings s;
  s.study = study_options_from(p);
  s.transient = p.get_int("integrator.transient");
  s.members = int(p.get_int("ensemble.size"));
  s.nodes = int(p.get_int("network.nodes"));
  s.live_topology = p.get_int("live.topology");
  s.live_history = p.get_int("live.history");
  s.steps_per_frame = p.get_int("live.steps_per_frame");
  return s;
}

Topologies make_topologies(const ParamSet& p, int members, int first_member) {
  const int K = members > 0 ? members : int(p.get_int("ensemble.size"));
  const int N = int(p.get_int("network.nodes"));
  const std::string& kind = p.get_string("network.topology");
  const std::int64_t k = p.get_int("network.k");
  const int kk = int(std::min<std::int64_t>(k, 1 << 30));
  const auto seed = std::uint64_t(p.get_int("network.seed"));
  if (kind == "ring") return ring(N, kk, K);
  if (kind == "watts_strogatz")
    return watts_strogatz(N, kk, p.get_double("network.p"), K, seed, first_member);
  if (kind == "erdos_renyi")
    return erdos_renyi(N, p.get_double("network.p"), K, seed, first_member);
  return app::read_file_param("network.file", [&] {
    return load_networks(p.get_string("network.file"), N, int(p.get_int("ensemble.size")),
                         first_member, K);
  });
}

State make_initial_state(const ParamSet& p, int members, int first_member) {
  const int K = members > 0 ? members : int(p.get_int("ensemble.size"));
  const int N = int(p.get_int("network.nodes"));
  const std::string& kind = p.get_string("init");
  if (kind == "file") {
    // A (K, N, 2) file serves a live view of its first members too.
    const int file_members = int(p.get_int("ensemble.size"));
    State s = app::read_file_param("init.file", [&] {
      return load_initial_state(p.get_string("init.file"), N, file_members);
    });
    if (first_member > 0 || K != file_members) {
      const std::size_t a = std::size_t(first_member) * N, b = a + std::size_t(K) * N;
      if (b > s.x.size())
        throw Error("init.file: members " + std::to_string(first_member) + " .. " +
                    std::to_string(first_member + K - 1) + " are past the file's " +
                    std::to_string(file_members));
      s.members = K;
      s.x = std::vector<double>(s.x.begin() + std::ptrdiff_t(a), s.x.begin() + std::ptrdiff_t(b));
      s.y = std::vector<double>(s.y.begin() + std::ptrdiff_t(a), s.y.begin() + std::ptrdiff_t(b));
    }
    return s;
  }
  return initial_state(kind, N, K, std::uint64_t(p.get_int("init.seed")), first_member);
}

}  // namespace simscope::oscillators
