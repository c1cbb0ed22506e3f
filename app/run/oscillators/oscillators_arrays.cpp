// The oscillators workload on a caller's arrays (oscillators_arrays.hpp).
#include "oscillators/oscillators_arrays.hpp"

#include "arrays/device_arrays.hpp"
#include "oscillators/given_networks.hpp"
#include "oscillators/model.hpp"
#include "oscillators/osc_device_state.hpp"
#include "oscillators/oscillators_params.hpp"
#include "oscillators/oscillators_workload.hpp"

namespace simscope::app {

namespace osc = simscope::oscillators;

namespace {

/// The view of `initial` when it is a CUDA array; null otherwise.
/// Checked against the schema's network.nodes and ensemble.size (initial_state_from_npy's
/// messages) and the back end (require_cuda_backend).
const DeviceView* device_initial(const ArrayInput& initial, const ParamSet& p, Backend backend) {
  if (initial.kind != ArrayInput::Kind::Device) return nullptr;
  const DeviceView& v = *initial.device;
  osc::check_initial_view(v, int(p.get_int("network.nodes")), int(p.get_int("ensemble.size")));
  require_cuda_backend(v, backend);
  require_visible_device(v);
  return &v;
}

/// An ensemble whose load() reads the initial state from device memory (Ensemble::load_device of
/// `inner` with `view`). run_study() then integrates a CUDA array without a host copy. Everything
/// else is `inner`'s.
class DeviceInitialEnsemble final : public osc::Ensemble {
 public:
  DeviceInitialEnsemble(osc::Ensemble& inner, const DeviceView& view) : e_(inner), v_(view) {}
  Backend backend() const override { return e_.backend(); }
  void load(const osc::Topologies& t, const osc::State&, Precision p) override {
    e_.load_device(t, v_, p);
  }
  void advance(const osc::Model& m, double dt, std::int64_t steps, const osc::Recording& rec,
               osc::Series& out, Progress* progress) override {
    e_.advance(m, dt, steps, rec, out, progress);
  }
  std::int64_t steps_done() const override { return e_.steps_done(); }
  osc::State state() const override { return e_.state(); }
  osc::MemberStats member_stats(std::int64_t transient) const override {
    return e_.member_stats(transient);
  }
  osc::Frame frame(int members) override { return e_.frame(members); }
  double peak_device_bytes() const override { return e_.peak_device_bytes(); }
  int max_nodes() const override { return e_.max_nodes(); }

 private:
  osc::Ensemble& e_;
  const DeviceView& v_;
};

/// The settings of generated networks, which networks given by the caller replace.
const std::vector<std::string> kNetworkSettings = {"network.topology", "network.k", "network.p",
                                                   "network.seed", "network.file"};

/// The networks of a study or ensemble: the schema's (make_topologies) when `networks` is null,
/// else the caller's.
osc::Topologies topologies_from(const GivenNetworks* networks, const ParamSet& p) {
  if (!networks) return osc::make_topologies(p);
  const GivenNetworks& g = *networks;
  std::vector<osc::NetworkEntries> nets(g.count);
  std::vector<std::string> names(g.count);
  for (std::size_t k = 0; k < g.count; ++k) {
    const auto a = std::size_t(g.offsets[k]), b = std::size_t(g.offsets[k + 1]);
    osc::NetworkEntries& n = nets[k];
    n.form = g.matrix[k] ? osc::EntryForm::Matrix : osc::EntryForm::Edges;
    n.i.assign(g.i + a, g.i + b);
    n.j.assign(g.j + a, g.j + b);
    if (g.w) n.w.assign(g.w + a, g.w + b);
    names[k] = g.shared ? "networks" : "networks[" + std::to_string(k) + "]";
  }
  return osc::networks_from_entries(int(p.get_int("network.nodes")), nets, names,
                                    g.shared ? int(p.get_int("ensemble.size")) : 0);
}

/// The schema's warnings about settings a run does not use; with networks given, also that
/// the settings of generated networks are not used.
std::vector<std::string> unused_warnings(const ParamSet& p, bool networks_given) {
  if (!networks_given) return osc::schema().unused_warnings(p);
  ParamSet rest = p;  // the network settings as their defaults: the arrays replace them
  for (const std::string& n : kNetworkSettings) rest.set(n, osc::schema().at(n).default_value);
  std::vector<std::string> out = osc::schema().unused_warnings(rest);
  if (std::string u = unused_by_arrays(p, "networks are given", kNetworkSettings); !u.empty())
    out.insert(out.begin(), std::move(u));
  return out;
}

osc::State initial_from(const ArrayInput& initial, const ParamSet& p) {
  if (!initial.given()) return osc::make_initial_state(p);
  return osc::initial_state_from_npy(initial.copy, "initial", int(p.get_int("network.nodes")),
                                     int(p.get_int("ensemble.size")));
}

}  // namespace

StudyArrays::StudyArrays(const Settings& settings, const std::string& backend)
    : t0_(std::chrono::steady_clock::now()) {
  params_ = params_from(osc::schema(), settings);
  choice_ = choose_backend(backend);
  options_ = osc::study_options_from(params_);
  osc::validate(options_);
}

void StudyArrays::take(const ArrayInput& initial, const GivenNetworks* networks) {
  topologies_ = topologies_from(networks, params_);
  networks_given_ = networks != nullptr;
  device_init_ = device_initial(initial, params_, choice_.backend);
  if (!device_init_) init_ = initial_from(initial, params_);
}

double StudyArrays::units() const {
  return double(topologies_.members) * double(topologies_.nodes) * double(options_.steps);
}

void StudyArrays::run(Progress* progress) {
  if (device_init_) cuda_select_device(device_init_->device);  // the caller's
  auto ens = osc::make_ensemble(choice_.backend);
  if (device_init_) {
    DeviceInitialEnsemble dev(*ens, *device_init_);
    study_ = osc::run_study(dev, topologies_, init_, options_, progress);
  } else {
    study_ = osc::run_study(*ens, topologies_, init_, options_, progress);
  }
}

RunResult StudyArrays::result() {
  RunResult r;
  r.workload = "oscillators";
  r.params = params_;
  r.backend = choice_.backend;
  for (std::string& w : unused_warnings(params_, networks_given_))
    r.warnings.push_back(std::move(w));
  fill_study_result(r, study_, options_);
  if (std::string w = osc::literal_coupling_warning(topologies_, options_.model); !w.empty())
    r.warnings.push_back(std::move(w));
  r.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  // A CUDA initial state was read in place (load_device), so nothing was staged.
  r.stats["host_staging_bytes"] = 0;
  return r;
}

EnsembleArrays::EnsembleArrays(const Settings& settings, const std::string& backend,
                               const ArrayInput& initial, const GivenNetworks* networks) {
  params_ = params_from(osc::schema(), settings);
  choice_ = choose_backend(backend);
  options_ = osc::study_options_from(params_);
  topologies_ = topologies_from(networks, params_);
  if (const DeviceView* v = device_initial(initial, params_, choice_.backend)) {
    // Made and loaded on the caller's device on a thread of its own, leaving this thread's
    // device unchanged. Read in place, no host copy.
    ensemble_ = on_device(v->device, [&] {
      auto e = osc::make_ensemble(choice_.backend);
      e->load_device(topologies_, *v, options_.precision);
      return e;
    });
  } else {
    ensemble_ = osc::make_ensemble(choice_.backend);
    ensemble_->load(topologies_, initial_from(initial, params_), options_.precision);
  }
}

EnsembleSeries EnsembleArrays::advance(std::int64_t steps, Progress* progress) {
  osc::Recording rec;
  rec.transient = options_.transient;
  rec.every = options_.every;
  osc::Series s;
  ensemble_->advance(options_.model, options_.dt, steps, rec, s, progress);
  EnsembleSeries out;
  out.step = std::move(s.step);
  out.msd = std::move(s.msd);
  out.order = std::move(s.order);
  out.finite = std::move(s.finite);
  return out;
}

std::vector<double> EnsembleArrays::state() const { return interleave(ensemble_->state()); }

std::vector<double> EnsembleArrays::phases() const { return phases_of(ensemble_->state()); }

std::vector<double> EnsembleArrays::msd_mean() const {
  return ensemble_->member_stats(options_.transient).msd_mean;
}

std::vector<std::uint8_t> EnsembleArrays::failed() const {
  return ensemble_->member_stats(options_.transient).failed;
}

}  // namespace simscope::app
