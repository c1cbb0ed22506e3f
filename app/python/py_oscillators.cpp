// simscope.oscillators on numpy arrays (or a CUDA initial state): a study from an initial state
// (K, N, 2) or (N, 2), and a stepping Ensemble that advances n steps and reads the state and
// phases; the arrays handed to the run layer's entry points (app/run/oscillators/
// oscillators_arrays.hpp).
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>

#include "oscillators/oscillators_arrays.hpp"
#include "params/c_numeric_locale.hpp"
#include "py_arrays.hpp"
#include "py_call.hpp"
#include "py_params.hpp"
#include "py_result.hpp"
#include "workload.hpp"

namespace simscope::python {

namespace {

/// The caller's networks as simscope/_networks.py's entries() hands them over: (offsets
/// (G + 1,), i, j, w or None, matrix flags (G,), shared), as arrays of the run layer's types,
/// held here while the call reads them.
class Networks {
 public:
  explicit Networks(const py::object& networks) {
    if (networks.is_none()) return;
    const auto t = networks.cast<py::tuple>();
    off_ = t[0].cast<I64>();
    i_ = t[1].cast<I32>(), j_ = t[2].cast<I32>();
    if (!t[3].is_none()) w_ = t[3].cast<F64>();
    matrix_ = t[4].cast<U8>();
    given_.emplace();
    given_->count = std::size_t(off_.size()) - 1;
    given_->offsets = off_.data();
    given_->i = i_.data();
    given_->j = j_.data();
    given_->w = t[3].is_none() ? nullptr : w_.data();
    given_->matrix = matrix_.data();
    given_->shared = t[5].cast<bool>();
  }
  /// Null when None was given: the schema's networks.
  const app::GivenNetworks* get() const { return given_ ? &*given_ : nullptr; }

 private:
  using I64 = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
  using I32 = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;
  using F64 = py::array_t<double, py::array::c_style | py::array::forcecast>;
  using U8 = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;
  I64 off_;
  I32 i_, j_;
  F64 w_;
  U8 matrix_;
  std::optional<app::GivenNetworks> given_;
};

/// A study from an initial-state array (app::StudyArrays), as the result dict.
py::dict study_arrays(const py::object& initial, const app::Settings& settings,
                      const std::string& backend, const py::object& progress,
                      const py::object& networks) {
  auto study = checked([&] {
    auto s = std::make_unique<app::StudyArrays>(settings, backend);
    const Networks given(networks);
    s->take(copy_input(initial, "initial", "float32 or float64"), given.get());
    return s;
  });
  call_released(
      [&](Progress* p) {
        study->run(p);
        return 0;
      },
      progress, study->choice().backend == Backend::Cuda, study->units(),
      app::workload_descriptor("oscillators").work_unit);
  py::dict d = result_dict(study->result(), study->choice().notice);
  d["input_route"] = study->input_route();
  return d;
}

/// An ensemble being integrated (app::EnsembleArrays). One call at a time; others raise
/// RuntimeError while one runs.
class Ensemble {
 public:
  Ensemble(const app::Settings& settings, const std::string& backend, const py::object& initial,
           const py::object& networks) {
    ensemble_ = checked([&] {
      const Networks given(networks);
      return std::make_unique<app::EnsembleArrays>(
          settings, backend, copy_input(initial, "initial", "float32 or float64"), given.get());
    });
  }

  py::dict advance(std::int64_t steps, const py::object& progress) {
    if (steps < 0) throw py::value_error("steps must be >= 0, got " + std::to_string(steps));
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock()) throw std::runtime_error("Ensemble: another thread is advancing it");
    app::EnsembleSeries series = call_released(
        [&](Progress* p) { return ensemble_->advance(steps, p); }, progress,
        ensemble_->choice().backend == Backend::Cuda);
    const std::size_t T = series.step.size();
    py::dict d;
    d["step"] = numpy_from(std::move(series.step), {T});
    d["msd"] = numpy_from(std::move(series.msd), {T});
    d["order"] = numpy_from(std::move(series.order), {T});
    d["finite"] = numpy_from(std::move(series.finite), {T});
    return d;
  }

  std::int64_t step() const { return ensemble_->step(); }
  py::array state() const {
    return numpy_from(ensemble_->state(),
                      {std::size_t(members()), std::size_t(nodes()), std::size_t(2)});
  }
  py::array phases() const {
    return numpy_from(ensemble_->phases(), {std::size_t(members()), std::size_t(nodes())});
  }
  py::array msd_mean() const {
    std::vector<double> m = ensemble_->msd_mean();
    const std::size_t K = m.size();
    return numpy_from(std::move(m), {K});
  }
  py::array failed() const {
    std::vector<std::uint8_t> f = ensemble_->failed();
    const std::size_t K = f.size();
    return numpy_from(std::move(f), {K});
  }
  int members() const { return ensemble_->members(); }
  int nodes() const { return ensemble_->nodes(); }
  std::string backend() const { return to_string(ensemble_->choice().backend); }
  std::string notice() const { return ensemble_->choice().notice; }
  py::dict params() const { return params_dict(ensemble_->params()); }

 private:
  std::unique_ptr<app::EnsembleArrays> ensemble_;
  std::mutex busy_;
};

}  // namespace

void bind_oscillators(py::module_& m) {
  m.def("oscillators_study", &study_arrays, py::call_guard<app::CNumericLocale>(),
        py::arg("initial"), py::arg("settings"), py::arg("backend") = "auto",
        py::arg("progress") = py::none(), py::arg("networks") = py::none(),
        "An oscillators study from an initial-state array (see simscope.oscillators.study).");
  py::class_<Ensemble>(m, "Ensemble")
      .def(py::init<const app::Settings&, const std::string&, const py::object&,
                    const py::object&>(),
           py::call_guard<app::CNumericLocale>(), py::arg("settings"),
           py::arg("backend") = "auto", py::arg("initial") = py::none(),
           py::arg("networks") = py::none())
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
