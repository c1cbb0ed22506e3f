// The field workload on a caller's arrays (field_arrays.hpp).
#include "field/field_arrays.hpp"

#include "arrays/device_arrays.hpp"
#include "core/shape_text.hpp"
#include "field/device_inputs.hpp"
#include "field/field_params.hpp"
#include "field/field_result.hpp"
#include "field/field_targets.hpp"
#include "field/strided_inputs.hpp"

namespace simscope::app {

namespace {

using Clock = std::chrono::steady_clock;

/// Sets the q of `s` from `charges`, InPlace (P,) float32/float64 (any stride), with the checks
/// of a source array's column q. Throws simscope::Error naming "charges".
void set_charges(field::Sources& s, const ArrayInput& charges) {
  const std::size_t P = s.size();
  if (charges.shape.size() != 1 || charges.shape[0] != P)
    throw Error("charges: expected (P,) = (" + std::to_string(P) + ",), got " +
                shape_text(charges.shape));
  field::charges_from_strided(s, charges.data, charges.dtype, charges.strides[0], "charges");
}

/// The sources of `in` (InPlace: a 2-D float32/float64 array, converted once through its
/// strides; Copy: the caller's C-order copy, one more) in the evaluators' layout, fp32
/// structure of arrays. With `charges` given, `in` must be (P,3) positions and q comes from
/// them. Checks and messages are field::sources_from_npy's.
field::Sources sources_of(const ArrayInput& in, int& conversions, const ArrayInput& charges) {
  field::Sources s;
  std::size_t cols = 0;
  if (in.kind == ArrayInput::Kind::InPlace) {
    conversions = 1;
    cols = in.shape[1];
    if (!charges.given() || cols != 4)  // (P,4) with charges: refused below, before reading
      s = field::sources_from_strided(in.data, in.dtype, in.shape[0], cols, in.strides[0],
                                      in.strides[1], "sources");
  } else {
    conversions = 2;
    cols = in.copy.shape.size() == 2 ? in.copy.shape[1] : 0;
    if (!charges.given() || cols != 4) s = field::sources_from_npy(in.copy, "sources");
  }
  if (charges.given()) {
    if (cols == 4)
      throw Error(
          "sources: a (P,4) array holds the charges in its column q, and charges= gives them "
          "too: pass (P,3) positions with charges=, or the (P,4) array alone");
    set_charges(s, charges);
  }
  return s;
}

/// The (T,3) targets of `in` in the evaluators' fp64 structure of arrays, read as sources_of
/// does.
field::Targets targets_of(const ArrayInput& in, int& conversions) {
  if (in.kind == ArrayInput::Kind::InPlace) {
    conversions = 1;
    return field::targets_from_strided(in.data, in.dtype, in.shape[0], in.shape[1],
                                       in.strides[0], in.strides[1], "targets");
  }
  conversions = 2;
  return field::targets_from_npy(in.copy, "targets");
}

/// A CUDA array copied to the host once (into `bytes`), as an InPlace input over them in C
/// order; adds the bytes to `staged`.
ArrayInput staged(const DeviceView& v, std::vector<std::uint8_t>& bytes, double& staged) {
  bytes = host_copy(v);
  staged += double(bytes.size());
  ArrayInput in;
  in.kind = ArrayInput::Kind::InPlace;
  in.data = bytes.data();
  in.dtype = v.dtype;
  in.shape = v.shape;
  in.strides.resize(v.shape.size());
  std::ptrdiff_t stride = std::ptrdiff_t(v.itemsize());
  for (std::size_t d = v.shape.size(); d-- > 0;) {
    in.strides[d] = stride;
    stride *= std::ptrdiff_t(v.shape[d]);
  }
  return in;
}

}  // namespace

std::string field_route(Backend backend, const DeviceView* first_device_input,
                        field::Method method, std::size_t sources, std::size_t targets) {
  if (!first_device_input) return "host";
  require_cuda_backend(*first_device_input, backend);
  return field::resolve_method(method, Backend::Cuda, sources, targets) == field::Method::Direct
             ? "device"
             : "staged";
}

std::string field_route(Backend backend, const DeviceView* first_device_input,
                        const std::string& method, std::size_t sources, std::size_t targets) {
  return field_route(backend, first_device_input, field::method_from_string(method), sources,
                     targets);
}

KeptSources::KeptSources(const ArrayInput& sources, const ArrayInput& charges) {
  if (!sources.given()) throw Error("sources: expected an array (P,4), or (P,3) positions");
  if (sources.kind == ArrayInput::Kind::Device) {
    field::check_sources_view(*sources.device);
    std::vector<std::uint8_t> bytes;
    sources_ = sources_of(staged(*sources.device, bytes, staging_bytes_), conversions_, charges);
  } else {
    sources_ = sources_of(sources, conversions_, charges);
  }
}

std::vector<float> KeptSources::positions() const {
  std::vector<float> v(3 * sources_.size());
  for (std::size_t i = 0; i < sources_.size(); ++i)
    v[3 * i] = sources_.x[i], v[3 * i + 1] = sources_.y[i], v[3 * i + 2] = sources_.z[i];
  return v;
}

FieldArrays::FieldArrays(const Settings& settings, const std::string& backend,
                         bool device_results) {
  params_ = params_from(field::schema(), settings);
  choice_ = choose_backend(backend);
  options_ = field::options_from(params_);
  method_ = field::method_from(params_);
  device_results_ = device_results;
}

void FieldArrays::take(const ArrayInput& sources, const ArrayInput& charges, KeptSources* held,
                       const ArrayInput& targets) {
  held_ = held;
  const DeviceView* dsrc = sources.kind == ArrayInput::Kind::Device ? sources.device : nullptr;
  const DeviceView* dtgt = targets.kind == ArrayInput::Kind::Device ? targets.device : nullptr;
  // CUDA inputs: the views' checks first, with the host readers' messages, then the route.
  if (dsrc) field::check_sources_view(*dsrc);
  if (dtgt) field::check_targets_view(*dtgt);
  // P and T for method=auto's pair count; a host array's rows come from its shape.
  std::size_t T = targets.rows();
  if (!targets.given()) {  // the schema's plane or box, or targets.file
    T = 1;
    for (std::size_t d : field::target_shape(params_)) T *= d;
  }
  const std::size_t P0 = held                ? held->size()
                         : !sources.given() ? std::size_t(params_.get_int("sources.count"))
                                            : sources.rows();
  const DeviceView* first = dsrc ? dsrc : dtgt;
  route_ = field_route(choice_.backend, first, method_, P0, T);
  // CUDA positions with charges=: both are read on the host, as the tree reads its inputs.
  if (dsrc && charges.given()) route_ = "staged";
  if (dsrc) require_visible_device(*dsrc);
  if (dtgt) require_visible_device(*dtgt);
  std::vector<std::uint8_t> bytes;  // a staged CUDA input's host copy, while it is converted
  if (!held) {  // else the kept sources
    if (dsrc && route_ == "device")
      device_sources_ = dsrc;
    else if (dsrc)
      sources_ = sources_of(staged(*dsrc, bytes, host_staging_bytes_), source_conversions_,
                            charges);
    else if (sources.given())
      sources_ = sources_of(sources, source_conversions_, charges);
    else if (charges.given())
      throw Error("charges: given without sources (pass (P,3) positions with charges=)");
    else
      sources_ = field::make_sources(params_);
  }
  source_count_ = dsrc && route_ == "device" ? dsrc->shape[0] : host_sources().size();
  if (!targets.given()) {
    field::TargetSet ts = field::target_set(params_);
    grid_ = ts.grid;
    targets_ = std::move(ts.targets);
    shape_ = std::move(ts.shape);
  } else if (dtgt && route_ == "device") {
    device_targets_ = dtgt;
    shape_ = {dtgt->shape[0]};
  } else {
    targets_ = dtgt ? targets_of(staged(*dtgt, bytes, host_staging_bytes_), target_conversions_)
                    : targets_of(targets, target_conversions_);
    shape_ = {targets_.size()};
  }
  // Settings that the arrays replace are not used.
  std::vector<std::string> unused;
  if (held || sources.given())
    unused.push_back(unused_by_arrays(params_, "sources are given as an array",
                                      {"sources.file", "sources.distribution", "sources.count",
                                       "sources.seed", "sources.half_width"}));
  if (targets.given())
    unused.push_back(unused_by_arrays(params_, "targets are given as an array",
                                      {"targets.file", "plane", "plane.offset", "grid.size",
                                       "grid.half_width", "tree.error_grid"}));
  for (std::string& u : unused)
    if (!u.empty()) unused_.push_back(std::move(u));
  if (held) {
    options_.restart_ladder = true;  // each call as a new evaluator evaluates it
    // The field workload's rule (field_workload.cpp): another method or back end, another
    // evaluator.
    auto& kept = held->evaluator_;
    if (!kept || kept->backend() != choice_.backend || kept->method() != method_) {
      kept.reset();  // free the old tree first
      kept = field::make_evaluator(method_, choice_.backend);
    }
  }
}

void FieldArrays::evaluate(Progress* progress) {
  const auto t0 = Clock::now();
  field::Evaluator* kept = held_ ? held_->evaluator_.get() : nullptr;
  // CUDA inputs (route "device"): the direct CUDA evaluator reads them in place.
  // method=auto resolves to it for them (field_route).
  const bool device_inputs = device_sources_ || device_targets_;
  if (device_inputs)  // the caller's device (this is the caller's worker thread)
    cuda_select_device((device_sources_ ? device_sources_ : device_targets_)->device);
  std::unique_ptr<field::Evaluator> fresh;
  field::Evaluator* evaluator = device_inputs ? nullptr : kept;
  if (!evaluator) {
    fresh = field::make_evaluator(device_inputs ? field::Method::Direct : method_,
                                  choice_.backend);
    evaluator = fresh.get();
  }
  // CUDA DLPack results stay where the evaluator computed them.
  if (device_results_ && evaluator->keep_outputs_on_device(true))
    device_ = evaluator->device();
  else if (evaluator == kept)
    evaluator->keep_outputs_on_device(false);  // an earlier call's choice does not hold
  // On the schema's grid the tree measures its error on the error view's subgrid, as the CLI
  // does.
  std::optional<field::ErrorSubgrid> sub;
  if (grid_ && !device_inputs) {
    sub = field::error_subgrid(*grid_, int(params_.get_int("tree.error_grid")), source_count_);
    options_.error_targets = sub->targets;
  }
  field::Result fr;
  if (device_inputs)
    evaluator->evaluate_device(host_sources(), targets_, device_sources_, device_targets_,
                               options_, fr, progress);
  else
    evaluator->evaluate(host_sources(), targets_, options_, fr, progress);
  RunResult r;
  r.workload = "field";
  r.params = params_;
  r.backend = choice_.backend;
  fill_field_result(r, fr, *evaluator, shape_, source_count_);
  if (sub && fr.method == field::Method::Tree)
    add_error_outputs(fr, targets_, options_.error_targets, error_shape(*grid_, sub->m), r);
  // Whether the source tree of an earlier call served (a KeptSources'): 1, or 0 when this call
  // built it. A Python key (run.json's headless runs always build).
  if (fr.method == field::Method::Tree) r.stats["tree_kept"] = fr.tree.tree_kept ? 1 : 0;
  r.warnings.insert(r.warnings.end(), unused_.begin(), unused_.end());
  r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  result_ = std::move(r);
}

RunResult FieldArrays::result() {
  RunResult r = std::move(result_);
  // Copies of each input on its way to the evaluator: 1 is the conversion into its layout, 2
  // adds the caller's copy, 0 means generated (or held by a KeptSources).
  r.stats["sources_conversions"] = held_ ? 0 : source_conversions_;
  r.stats["targets_conversions"] = target_conversions_;
  // Bytes of CUDA inputs copied to the host: 0 on route "device", their size on "staged".
  // The call's route names it.
  r.stats["host_staging_bytes"] = host_staging_bytes_;
  return r;
}

}  // namespace simscope::app
