// simscope.oscillators on numpy arrays.
// A study from an initial state (K, N, 2) or (N, 2), and a stepping Ensemble that advances n steps
// and reads the state and phases.
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>

#include "oscillators/ensemble.hpp"
#include "oscillators/given_networks.hpp"
#include "oscillators/model.hpp"
#include "oscillators/osc_device_state.hpp"
#include "oscillators/oscillators_params.hpp"
#include "oscillators/oscillators_workload.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "py_arrays.hpp"
#include "py_call.hpp"
#include "py_dlpack.hpp"
#include "py_locale.hpp"
#include "py_params.hpp"
#include "py_result.hpp"

namespace simscope::python {

namespace osc = simscope::oscillators;

namespace {

using app::interleave;  // the run layer's, as the CLI's study writes them (oscillators_workload)
using app::phases_of;

/// The view of `initial` when it is a CUDA array (DeviceArray); null otherwise.
/// Checked against the schema's network.nodes and ensemble.size (initial_state_from_npy's
/// messages) and the back end (require_cuda_backend).
const DeviceView* device_initial(const py::object& initial, const ParamSet& p, Backend backend) {
  if (!py::isinstance<DeviceArray>(initial)) return nullptr;
  const DeviceView& v = initial.cast<const DeviceArray&>().view();
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

/// The settings of generated networks, which networks given from Python replace.
const std::vector<std::string> kNetworkSettings = {"network.topology", "network.k", "network.p",
                                                   "network.seed", "network.file"};

/// The networks of a study or Ensemble: the schema's (make_topologies) when `networks` is None,
/// else the caller's, as simscope/_networks.py's entries() hands them over: (offsets (G + 1,),
/// i, j, w or None, matrix flags (G,), shared). G networks, one per member unless shared.
osc::Topologies topologies_from(const py::object& networks, const ParamSet& p) {
  if (networks.is_none()) return osc::make_topologies(p);
  using I64 = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
  using I32 = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;
  using F64 = py::array_t<double, py::array::c_style | py::array::forcecast>;
  using U8 = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;
  const auto t = networks.cast<py::tuple>();
  const I64 off = t[0].cast<I64>();
  const I32 i = t[1].cast<I32>(), j = t[2].cast<I32>();
  const bool weighted = !t[3].is_none();
  const F64 w = weighted ? t[3].cast<F64>() : F64(0);
  const U8 matrix = t[4].cast<U8>();
  const bool shared = t[5].cast<bool>();
  const std::size_t G = std::size_t(off.size()) - 1;
  std::vector<osc::NetworkEntries> nets(G);
  std::vector<std::string> names(G);
  for (std::size_t g = 0; g < G; ++g) {
    const auto a = std::size_t(off.at(g)), b = std::size_t(off.at(g + 1));
    osc::NetworkEntries& n = nets[g];
    n.form = matrix.at(g) ? osc::EntryForm::Matrix : osc::EntryForm::Edges;
    n.i.assign(i.data() + a, i.data() + b);
    n.j.assign(j.data() + a, j.data() + b);
    if (weighted) n.w.assign(w.data() + a, w.data() + b);
    names[g] = shared ? "networks" : "networks[" + std::to_string(g) + "]";
  }
  return osc::networks_from_entries(int(p.get_int("network.nodes")), nets, names,
                                    shared ? int(p.get_int("ensemble.size")) : 0);
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

osc::State initial_from(const py::object& initial, const ParamSet& p) {
  if (initial.is_none()) return osc::make_initial_state(p);
  return osc::initial_state_from_npy(to_npy(initial, "initial", "float32 or float64"), "initial",
                                     int(p.get_int("network.nodes")),
                                     int(p.get_int("ensemble.size")));
}

/// A study from an initial-state array, with the CLI study's outputs, warnings and stats
/// (app::fill_study_result).
py::dict study_arrays(const py::object& initial, const Settings& settings,
                      const std::string& backend, const py::object& progress,
                      const py::object& networks) {
  struct Job {
    ParamSet params;
    BackendChoice choice;
    osc::StudyOptions options;
    osc::Topologies topologies;
    osc::State init;
    const DeviceView* device_init = nullptr;  ///< a CUDA initial state, read in place
  };
  const auto t0 = std::chrono::steady_clock::now();
  Job job = checked([&] {
    Job j;
    j.params = params_from(osc::schema(), settings);
    j.choice = backend_from(backend);
    j.options = osc::study_options_from(j.params);
    osc::validate(j.options);
    j.topologies = topologies_from(networks, j.params);
    j.device_init = device_initial(initial, j.params, j.choice.backend);
    if (!j.device_init) j.init = initial_from(initial, j.params);
    return j;
  });
  osc::StudyResult s = call_released(
      [&](Progress* p) {
        if (job.device_init) cuda_select_device(job.device_init->device);  // the caller's
        auto ens = osc::make_ensemble(job.choice.backend);
        if (job.device_init) {
          DeviceInitialEnsemble dev(*ens, *job.device_init);
          return osc::run_study(dev, job.topologies, job.init, job.options, p);
        }
        return osc::run_study(*ens, job.topologies, job.init, job.options, p);
      },
      progress, job.choice.backend == Backend::Cuda,
      double(job.topologies.members) * double(job.topologies.nodes) * double(job.options.steps));
  app::RunResult r;
  r.workload = "oscillators";
  r.params = job.params;
  r.backend = job.choice.backend;
  for (std::string& w : unused_warnings(job.params, !networks.is_none()))
    r.warnings.push_back(std::move(w));
  app::fill_study_result(r, s, job.options);
  if (std::string w = osc::literal_coupling_warning(job.topologies, job.options.model); !w.empty())
    r.warnings.push_back(std::move(w));
  r.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // A CUDA initial state was read in place (load_device), so nothing was staged.
  r.stats["host_staging_bytes"] = 0;
  py::dict d = result_dict(std::move(r), job.choice.notice);
  d["input_route"] = job.device_init ? "device" : "host";
  return d;
}

/// An ensemble being integrated: osc::Ensemble with the schema's network, initial state, model, dt
/// and recording. One call at a time; others raise RuntimeError while one runs.
class Ensemble {
 public:
  Ensemble(const Settings& settings, const std::string& backend, const py::object& initial,
           const py::object& networks) {
    checked([&] {
      params_ = params_from(osc::schema(), settings);
      choice_ = backend_from(backend);
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
      return 0;
    });
  }

  py::dict advance(std::int64_t steps, const py::object& progress) {
    if (steps < 0) throw py::value_error("steps must be >= 0, got " + std::to_string(steps));
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock()) throw std::runtime_error("Ensemble: another thread is advancing it");
    osc::Recording rec;
    rec.transient = options_.transient;
    rec.every = options_.every;
    osc::Series series = call_released(
        [&](Progress* p) {
          osc::Series s;
          ensemble_->advance(options_.model, options_.dt, steps, rec, s, p);
          return s;
        },
        progress, choice_.backend == Backend::Cuda);
    const std::size_t T = series.size();
    py::dict d;
    d["step"] = numpy_from(std::move(series.step), {T});
    d["msd"] = numpy_from(std::move(series.msd), {T});
    d["order"] = numpy_from(std::move(series.order), {T});
    d["finite"] = numpy_from(std::move(series.finite), {T});
    return d;
  }

  std::int64_t step() const { return ensemble_->steps_done(); }
  py::array state() const {
    const osc::State s = ensemble_->state();
    return numpy_from(interleave(s), {std::size_t(s.members), std::size_t(s.nodes), 2});
  }
  py::array phases() const {
    const osc::State s = ensemble_->state();
    return numpy_from(phases_of(s), {std::size_t(s.members), std::size_t(s.nodes)});
  }
  py::array msd_mean() const {
    osc::MemberStats m = ensemble_->member_stats(options_.transient);
    const std::size_t K = m.msd_mean.size();
    return numpy_from(std::move(m.msd_mean), {K});
  }
  py::array failed() const {
    osc::MemberStats m = ensemble_->member_stats(options_.transient);
    const std::size_t K = m.failed.size();
    return numpy_from(std::move(m.failed), {K});
  }
  int members() const { return topologies_.members; }
  int nodes() const { return topologies_.nodes; }
  std::string backend() const { return to_string(choice_.backend); }
  std::string notice() const { return choice_.notice; }
  py::dict params() const { return params_dict(params_); }

 private:
  ParamSet params_;
  BackendChoice choice_;
  osc::StudyOptions options_;
  osc::Topologies topologies_;
  std::unique_ptr<osc::Ensemble> ensemble_;
  std::mutex busy_;
};

}  // namespace

void bind_oscillators(py::module_& m) {
  m.def("oscillators_study", &study_arrays, py::call_guard<CNumericLocale>(), py::arg("initial"), py::arg("settings"),
        py::arg("backend") = "auto", py::arg("progress") = py::none(),
        py::arg("networks") = py::none(),
        "An oscillators study from an initial-state array (see simscope.oscillators.study).");
  py::class_<Ensemble>(m, "Ensemble")
      .def(py::init<const Settings&, const std::string&, const py::object&, const py::object&>(),
           py::call_guard<CNumericLocale>(), py::arg("settings"), py::arg("backend") = "auto",
           py::arg("initial") = py::none(), py::arg("networks") = py::none())
      .def("advance", &Ensemble::advance, py::arg("steps"), py::arg("progress") = py::none())
      .def_property_readonly("step", &Ensemble::step)
      .def_property_readonly("state", &Ensemble::state)
      .def_property_readonly("phases", &Ensemble::phases)
      .def_property_readonly("msd_mean", &Ensemble::msd_mean)
      .def_property_readonly("failed", &Ensemble::failed)
      .def_property_readonly("members", &Ensemble::members)
      .def_property_readonly("nodes", &Ensemble::nodes)
      .def_property_readonly("backend", &Ensemble::backend)
      .def_property_readonly("notice", &Ensemble::notice)
      .def_property_readonly("params", &Ensemble::params);
}

}  // namespace simscope::python
