#pragma once
/// @file The field workload on a caller's arrays (simscope.field, simscope.Sources): sources
/// (P,4)/(P,3) with charges (P,) beside (P,3), and targets (T,3), host or CUDA, or the schema's
/// generator and plane/box grid, evaluated by compute/field's evaluator with the CLI's outputs,
/// warnings and stats (fill_field_result); and a source set kept with its evaluator (and so the
/// source tree) across calls, as the field workload keeps its sources and evaluator between runs.
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrays/array_input.hpp"
#include "arrays/call_settings.hpp"
#include "field/field.hpp"
#include "workload.hpp"

namespace simscope::app {

/// How a field call takes its inputs:
///   - "host": no CUDA input.
///   - "device": CUDA inputs read in place by the direct CUDA evaluator
///     (Evaluator::evaluate_device).
///   - "staged": the method resolves to the tree, whose CUDA evaluator builds trees on the host.
///     Each CUDA input is copied to the host once, counted in stats["host_staging_bytes"].
/// `first_device_input` is the first CUDA input, sources before targets, or null.
/// Throws simscope::Error naming that argument when `backend` is not CUDA.
std::string field_route(Backend backend, const DeviceView* first_device_input,
                        field::Method method, std::size_t sources, std::size_t targets);
/// field_route with the method by its name ("auto", "direct", "tree"); throws simscope::Error
/// for another name.
std::string field_route(Backend backend, const DeviceView* first_device_input,
                        const std::string& method, std::size_t sources, std::size_t targets);

/// A source set kept across field evaluations with its evaluator, and so with the source tree
/// the tree method builds (compute/field/tree: kept while the set's Sources::generation is the
/// same). The evaluator is made again when a call asks for another method or back end (which
/// drops the tree). Each call restarts the tree's ladder (Options::restart_ladder), so its
/// outputs equal a new call's bit for bit. Not for two threads at once.
class KeptSources {
 public:
  /// `sources` (P,4)/(P,3) as FieldArrays reads them, with `charges` (None, or InPlace (P,)
  /// float32/float64 beside (P,3)); a Device array is checked and copied to the host once
  /// (staging_bytes). Throws simscope::Error with FieldArrays' messages.
  KeptSources(const ArrayInput& sources, const ArrayInput& charges);
  /// Drops the evaluator and its tree (the next call builds it again).
  void release() { evaluator_.reset(); }

  std::size_t size() const { return sources_.size(); }
  /// Copies of the sources on their way in: 1 read in place, 2 with a caller's copy first.
  int conversions() const { return conversions_; }
  /// Bytes of a CUDA array copied to the host.
  double staging_bytes() const { return staging_bytes_; }
  /// x, y, z of each source, (P, 3) C order, float32.
  std::vector<float> positions() const;
  /// q of each source, (P,).
  const std::vector<float>& charges() const { return sources_.q; }

 private:
  friend class FieldArrays;
  field::Sources sources_;
  int conversions_ = 0;
  double staging_bytes_ = 0;
  std::unique_ptr<field::Evaluator> evaluator_;
};

/// One field call on a caller's arrays: made and given its arrays on the caller's thread,
/// evaluated on a worker (evaluate), its result taken once (result).
class FieldArrays {
 public:
  /// The call's parameters and back end; throws simscope::Error with the CLI's messages.
  /// `device_results`: leave the outputs in device memory when the CUDA evaluator computes them
  /// (the caller gave CUDA arrays).
  FieldArrays(const Settings& settings, const std::string& backend, bool device_results);

  /// Takes the inputs, checked and converted: `sources` (None: the schema's generator, or
  /// `held`'s sources when `held` is set), `charges` (None, or InPlace beside (P,3) sources) and
  /// `targets` (None: the schema's plane, box or targets.file). Host arrays are converted once
  /// into the evaluators' layout (InPlace: through their strides; Copy: from the caller's copy);
  /// CUDA arrays are read in place on route "device" or copied to the host once on "staged"
  /// (field_route). Warns about the settings the arrays replace. Throws simscope::Error with the
  /// readers' messages, naming "sources", "charges" and "targets".
  void take(const ArrayInput& sources, const ArrayInput& charges, KeptSources* held,
            const ArrayInput& targets);

  /// Evaluates on the calling thread, with `held`'s evaluator when one was given (else a new
  /// one), on the caller's device for CUDA inputs read in place.
  void evaluate(Progress* progress);

  /// The CLI's result of the evaluation with the stats of how the inputs came in:
  /// sources_conversions and targets_conversions (copies of each input on its way to the
  /// evaluator: 1 the conversion into its layout, 2 with a caller's copy first, 0 generated or
  /// held), host_staging_bytes (CUDA inputs copied to the host), and tree_kept (1 when the tree
  /// of an earlier call served). Once, after evaluate.
  RunResult result();

  const BackendChoice& choice() const { return choice_; }
  /// "host", "device" or "staged" (field_route).
  const std::string& route() const { return route_; }
  /// The device the outputs are on (device_results), or -1 on the host.
  int results_device() const { return device_; }

 private:
  const field::Sources& host_sources() const { return held_ ? held_->sources_ : sources_; }

  ParamSet params_;
  BackendChoice choice_;
  field::Sources sources_;
  /// The kept sources (and evaluator) of a KeptSources, or null: `sources_`.
  KeptSources* held_ = nullptr;
  field::Targets targets_;
  std::vector<std::size_t> shape_;  ///< of each output: (T,) for given targets, else the grid's
  std::optional<field::Grid> grid_;  ///< the grid of the targets, when they are the schema's
  field::Options options_;
  field::Method method_ = field::Method::Direct;  ///< the schema's "method" (auto, direct, tree)
  bool device_results_ = false;
  std::vector<std::string> unused_;  ///< warnings about settings the arrays override
  /// CUDA inputs read in place by the direct CUDA evaluator (route "device"): the caller's.
  const DeviceView* device_sources_ = nullptr;
  const DeviceView* device_targets_ = nullptr;
  std::size_t source_count_ = 0;   ///< P, wherever the sources are
  double host_staging_bytes_ = 0;  ///< bytes of CUDA inputs copied to the host ("staged")
  int source_conversions_ = 0, target_conversions_ = 0;
  std::string route_ = "host";
  int device_ = -1;
  RunResult result_;
};

}  // namespace simscope::app
