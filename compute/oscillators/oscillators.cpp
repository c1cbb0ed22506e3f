// Back-end-independent parts of the oscillators workload (model.hpp, ensemble.hpp, study.hpp):
// initial states, reference observables, studies, the checks shared by the back ends.
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/study.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <sstream>

#include "core/error.hpp"
#include "io/npy.hpp"
#include "oscillators/oscillators_internal.hpp"
#include "oscillators/sl_rhs.hpp"

namespace simscope::oscillators {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTwoPi = 6.283185307179586;

void alloc_state(State& s, int nodes, int members) {
  s.members = members;
  s.nodes = nodes;
  try {
    s.x.assign(std::size_t(members) * std::size_t(nodes), 0.0);
    s.y.assign(std::size_t(members) * std::size_t(nodes), 0.0);
  } catch (const std::bad_alloc&) {
    throw Error("cannot allocate the state of " + std::to_string(members) + " x " +
                std::to_string(nodes) + " oscillators: lower ensemble.size or network.nodes");
  }
}

}  // namespace

void Series::clear() {
  step.clear(), msd.clear(), order.clear(), finite.clear(), watch_msd.clear();
  watch_order.clear();
  group_msd.clear(), group_order.clear(), group_finite.clear();
}

// ---- states ------------------------------------------------------------------------------------

State initial_state(const std::string& kind, int nodes, int members, std::uint64_t seed,
                    int first_member) {
  if (kind != "random" && kind != "uniform_phase")
    throw Error("init: expected random, uniform_phase or file, got '" + kind + "'");
  if (nodes < 1 || members < 1)
    throw Error("initial state: network.nodes and ensemble.size must be >= 1");
  State s;
  alloc_state(s, nodes, members);
  const bool random = kind == "random";
#pragma omp parallel for schedule(static)
  for (int k = 0; k < members; ++k) {
    detail::Rng rng(detail::member_seed(seed, first_member + k, 2));
    for (int i = 0; i < nodes; ++i) {
      const std::size_t at = std::size_t(k) * nodes + i;
      if (random) {
        s.x[at] = rng.normal();
        s.y[at] = rng.normal();
      } else {
        const double th = kTwoPi * rng.uniform();
        s.x[at] = std::cos(th);
        s.y[at] = std::sin(th);
      }
    }
  }
  return s;
}

State load_initial_state(const std::string& path, int nodes, int members) {
  if (path.empty()) throw Error("init.file: no file given (init=file)");
  return initial_state_from_npy(io::read_npy(path, "float32 or float64 (the initial state)"), path,
                                nodes, members);
}

State initial_state_from_npy(const io::NpyArray& a, const std::string& path, int nodes,
                             int members) {
  if (a.dtype != io::DType::Float32 && a.dtype != io::DType::Float64)
    throw Error(path + ": init.file must hold float32 or float64 values, not " +
                io::to_string(a.dtype));
  const auto& sh = a.shape;
  const bool per_node = sh.size() == 2 && sh[0] == std::size_t(nodes) && sh[1] == 2;
  const bool per_member =
      sh.size() == 3 && sh[0] == std::size_t(members) && sh[1] == std::size_t(nodes) && sh[2] == 2;
  if (!per_node && !per_member)
    throw Error(path + ": init.file has shape " + a.shape_text() + "; expected (" +
                std::to_string(nodes) + ", 2) for every member or (" + std::to_string(members) +
                ", " + std::to_string(nodes) + ", 2) with network.nodes = " +
                std::to_string(nodes) + ", ensemble.size = " + std::to_string(members));
  const std::vector<double> v = a.to_double();
  for (std::size_t q = 0; q < v.size(); ++q)
    if (!std::isfinite(v[q])) {
      std::ostringstream m;
      m << path << ": init.file value " << v[q] << " at ";
      if (per_node)
        m << "[" << q / 2 << ", " << q % 2 << "]";
      else
        m << "[" << q / (2 * std::size_t(nodes)) << ", " << (q / 2) % std::size_t(nodes) << ", "
          << q % 2 << "]";
      m << " is not finite";
      throw Error(m.str());
    }
  State s;
  alloc_state(s, nodes, members);
  for (int k = 0; k < members; ++k)
    for (int i = 0; i < nodes; ++i) {
      const std::size_t src = per_node ? std::size_t(i) : std::size_t(k) * nodes + i;
      s.x[std::size_t(k) * nodes + i] = v[2 * src];
      s.y[std::size_t(k) * nodes + i] = v[2 * src + 1];
    }
  return s;
}

// ---- observables -------------------------------------------------------------------------------

double mean_square_deviation(const double* x, int n) {
  if (n <= 0) return 0;
  double m = 0;
  for (int i = 0; i < n; ++i) m += x[i];
  m /= n;
  double s = 0;
  for (int i = 0; i < n; ++i) s += (x[i] - m) * (x[i] - m);
  return s / n;
}

double order_parameter(const double* x, const double* y, int n) {
  if (n <= 0) return 0;
  double c = 0, s = 0;
  for (int i = 0; i < n; ++i) {
    const double r = std::hypot(x[i], y[i]);
    if (r > 0)
      c += x[i] / r, s += y[i] / r;
    else
      c += 1;  // theta = atan2(0, 0) = 0
  }
  return std::hypot(c, s) / n;
}

void DegreeSpread::add(const DegreeSpread& part) {
  if (part.nodes == 0) return;
  if (nodes == 0) {
    *this = part;
    return;
  }
  if (shared && part.shared) return;  // the same network again
  lo = std::min(lo, part.lo), hi = std::max(hi, part.hi);
  differ += part.differ, nodes += part.nodes, graphs += part.graphs;
  shared = false;
}

DegreeSpread degree_spread(const Topologies& t, double d) {
  DegreeSpread s;
  s.lo = std::numeric_limits<double>::infinity(), s.hi = -s.lo;
  s.shared = t.shared;
  s.graphs = t.graphs();
  for (int g = 0; g < t.graphs(); ++g)
    for (int i = 0; i < t.nodes; ++i) {
      const double deg = t.degree(g, i);
      s.lo = std::min(s.lo, deg), s.hi = std::max(s.hi, deg);
      s.differ += deg != d;
      ++s.nodes;
    }
  return s;
}

std::string literal_coupling_warning(const DegreeSpread& s, const Model& model) {
  if (model.form != CouplingForm::Literal || s.nodes == 0 || s.differ == 0) return "";
  std::ostringstream w;
  w.precision(6);
  const bool several = s.graphs > 1;
  w << "model.coupling_form=literal subtracts d x_i = " << model.degree << " x_i at every node, but "
    << (several ? "the networks'" : "the network's") << " node degrees ";
  if (s.lo == s.hi)
    w << "are all " << s.lo;
  else
    w << "range from " << s.lo << " to " << s.hi;
  w << " (" << s.differ << " of " << s.nodes << " nodes"
    << (several ? " over the " + std::to_string(s.graphs) + " networks" : std::string())
    << " differ from d): " << (several ? "their" : "its")
    << " coupling is not diffusive and differs from the Laplacian form "
       "(model.coupling_form=laplacian, each node's own degree)";
  return w.str();
}

std::string literal_coupling_warning(const Topologies& t, const Model& model) {
  if (model.form != CouplingForm::Literal || t.nodes == 0) return "";
  return literal_coupling_warning(degree_spread(t, model.degree), model);
}

void rates(const Topologies& t, int member, const Model& m, const double* x, const double* y,
           double* dx, double* dy) {
  const double he = m.coupling / 2;
  for (int i = 0; i < t.nodes; ++i) {
    double nsum = 0, deg = 0;
    for (std::int64_t q = t.begin(member, i); q < t.end(member, i); ++q) {
      const double w = t.weighted() ? t.weight[std::size_t(q)] : 1.0;
      nsum += w * x[t.col[std::size_t(q)]];
      deg += w;
    }
    detail::sl_rhs(x[i], y[i], nsum, 1.0 - he * m.self_weight(deg), m.omega, m.c, he, dx[i],
                   dy[i]);
  }
}

// ---- shared checks -----------------------------------------------------------------------------

namespace detail {

void check_load(const Topologies& t, const State& s, bool finite_state) {
  if (t.nodes < 1 || t.members < 1)
    throw Error("network.nodes and ensemble.size must be >= 1 (got " + std::to_string(t.nodes) +
                " nodes, " + std::to_string(t.members) + " members)");
  if (t.nodes > kMaxNodes || t.members > kMaxMembers)
    throw Error("network.nodes must be <= " + std::to_string(kMaxNodes) +
                " and ensemble.size <= " + std::to_string(kMaxMembers));
  if (double(t.nodes) * double(t.members) > kMaxOscillators)
    throw Error(
        "ensemble.size x network.nodes = " + std::to_string(std::int64_t(t.nodes) * t.members) +
        " oscillators is more than " + "the limit of 4e8; lower one of them");
  if (s.nodes != t.nodes || s.members != t.members ||
      s.x.size() != std::size_t(t.nodes) * std::size_t(t.members) || s.y.size() != s.x.size())
    throw Error("initial state of " + std::to_string(s.members) + " x " + std::to_string(s.nodes) +
                " does not match the " + std::to_string(t.members) + " networks of " +
                std::to_string(t.nodes) + " nodes");
  if (t.row_ptr.size() != std::size_t(t.graphs()) * t.nodes + 1)
    throw Error("topologies: row_ptr has the wrong size");
  if (t.weighted() && t.weight.size() != t.col.size())
    throw Error("topologies: weight and col differ in length");
  for (std::size_t q = 0; finite_state && q < s.x.size(); ++q)
    if (!std::isfinite(s.x[q]) || !std::isfinite(s.y[q]))
      throw Error("initial state: oscillator " + std::to_string(q % std::size_t(t.nodes)) +
                  " of member " + std::to_string(q / std::size_t(t.nodes)) + " is not finite");
}

void check_advance(double dt, std::int64_t steps, const Recording& rec) {
  if (!std::isfinite(dt) || !(dt > 0))
    throw Error("integrator.dt must be a finite number > 0, got " + std::to_string(dt));
  if (steps < 0) throw Error("integrator.steps must be >= 0, got " + std::to_string(steps));
  if (rec.every < 1) throw Error("record.every must be >= 1, got " + std::to_string(rec.every));
  if (rec.transient < 0)
    throw Error("integrator.transient must be >= 0, got " + std::to_string(rec.transient));
  if (rec.group < 0 || rec.chunk_members < 0)
    throw Error("oscillators: the reduction group and chunk member count must be >= 0, got " +
                std::to_string(rec.group) + " and " + std::to_string(rec.chunk_members));
}

std::int64_t steps_for_samples(std::int64_t first, std::int64_t every, std::int64_t cap) {
  const std::int64_t limit = (first / every + cap + 1) * every - 1 - first;
  return std::max<std::int64_t>(1, limit);
}

}  // namespace detail

EnsembleSnapshot Ensemble::snapshot() const {
  throw Error("oscillators: the " + std::string(to_string(backend())) +
              " back end cannot snapshot an ensemble");
}

void Ensemble::restore(const Topologies&, const EnsembleSnapshot&, Precision) {
  throw Error("oscillators: the " + std::string(to_string(backend())) +
              " back end cannot restore an ensemble");
}

std::unique_ptr<Ensemble> make_ensemble(Backend backend) {
  if (backend == Backend::Cpu) return detail::make_cpu_ensemble();
  const CudaStatus& s = cuda_status();
  if (!s.usable) throw Error("oscillators: the CUDA back end cannot run (" + s.reason + ")");
  return detail::make_cuda_ensemble();
}

#ifndef SIMSCOPE_HAVE_CUDA
namespace detail {
std::unique_ptr<Ensemble> make_cuda_ensemble() {
  throw Error("oscillators: the CUDA back end is not available (" + cuda_status().reason + ")");
}
}  // namespace detail
#endif

// ---- studies -----------------------------------------------------------------------------------

void validate(const StudyOptions& o) {
  if (!std::isfinite(o.dt) || !(o.dt > 0))
    throw Error("integrator.dt must be a finite number > 0, got " + std::to_string(o.dt));
  if (o.steps < 1) throw Error("integrator.steps must be >= 1, got " + std::to_string(o.steps));
  if (o.transient < 0 || o.transient >= o.steps)
    throw Error(
        "integrator.transient must be in [0, integrator.steps) so that some steps are "
        "averaged; got transient = " +
        std::to_string(o.transient) + ", steps = " + std::to_string(o.steps));
  if (o.every < 1) throw Error("record.every must be >= 1, got " + std::to_string(o.every));
  if (o.steps / o.every > detail::kMaxSamples)
    throw Error("record.every = " + std::to_string(o.every) + " would record " +
                std::to_string(o.steps / o.every) + " samples of msd_t/order_t (at most " +
                std::to_string(detail::kMaxSamples) + "): raise record.every");
  for (double v : {o.model.omega, o.model.c, o.model.coupling})
    if (!std::isfinite(v)) throw Error("model.omega, model.c and model.coupling must be finite");
  if (!std::isfinite(o.model.degree)) throw Error("model.coupling_degree must be finite");
}

void ensemble_mean(const std::vector<double>& v, double& mean, double& sem, std::int64_t& n) {
  n = 0;
  double s = 0;
  for (double a : v)
    if (std::isfinite(a)) s += a, ++n;
  mean = n > 0 ? s / double(n) : kNaN;
  if (n < 2) {
    sem = kNaN;
    return;
  }
  double ss = 0;
  for (double a : v)
    if (std::isfinite(a)) ss += (a - mean) * (a - mean);
  sem = std::sqrt(ss / double(n - 1)) / std::sqrt(double(n));
}

StudyResult run_study(Ensemble& e, const Topologies& t, const State& init, const StudyOptions& o,
                      Progress* progress) {
  validate(o);
  progress_check(progress);
  e.load(t, init, o.precision);
  Recording rec;
  rec.transient = o.transient;
  rec.every = o.every;
  Series series;
  const auto t0 = std::chrono::steady_clock::now();
  e.advance(o.model, o.dt, o.steps, rec, series, progress);
  StudyResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MemberStats ms = e.member_stats(o.transient);
  r.msd = std::move(ms.msd_mean);
  r.failed = std::move(ms.failed);
  r.failed_count = std::count(r.failed.begin(), r.failed.end(), std::uint8_t(1));
  r.msd_t = std::move(series.msd);
  r.order_t = std::move(series.order);
  r.finite_t = std::move(series.finite);
  r.final_state = e.state();
  ensemble_mean(r.msd, r.msd_mean, r.msd_sem, r.valid);
  r.peak_device_bytes = e.peak_device_bytes();
  return r;
}

}  // namespace simscope::oscillators
