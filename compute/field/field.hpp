#pragma once
/// @file The `field` workload: electric-style field of P point sources on sample targets.
///
/// E(x)   = k * sum_j q_j (y_j - x) / (|y_j - x|^2 + eps^2)^(3/2)
/// phi(x) = k * sum_j q_j / sqrt(|y_j - x|^2 + eps^2)
/// eps is the Plummer softening. With eps = 0, a target
/// exactly on a source skips that term and counts it. With k > 0, E points towards a positive
/// source, as gravity does. Use k < 0 for Coulomb's law.
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/device_view.hpp"
#include "core/precision.hpp"
#include "core/progress.hpp"
#include "core/range.hpp"
#include "io/npy.hpp"
#include "io/output_spec.hpp"

namespace simscope::field {

/// Accumulation precision; core/precision.hpp's type.
/// Fp32: fp32 terms, summed in fp32 over source tiles whose partial sums go into fp64
/// accumulators. Terms use coordinates relative to a local origin chosen in fp64 from the
/// targets: on each axis, the centre of their bounding box when it lies more than twice their
/// half-extent from 0, else 0. Positions are shifted in fp64, then rounded to fp32, so their
/// error is at most 6e-8 of their distance from that origin. Example: targets 0.01 from a
/// source at x = 1e6 are resolved. A coincidence is a target exactly on a source in fp64.
/// Fp64: targets as given, terms and sums in fp64; sources stay the fp32 values of Sources.
using Precision = simscope::Precision;

/// Point sources, structure of arrays, fp32, 16 bytes per source. Positions are stored in fp32
/// as given, so a position far from 0 is rounded to 6e-8 of its magnitude, e.g. 0.06 at 1e6.
/// The evaluators' local origin (see Precision) adds no further error.
struct Sources {
  std::vector<float> x, y, z, q;
  /// Changes whenever the content changes; device caches key on it and size().
  /// generate_sources() and load_sources() set a fresh process-wide value. 0 means unknown:
  /// a device evaluator then uploads the sources on every evaluate().
  std::uint64_t generation = 0;
  std::size_t size() const { return x.size(); }
};

/// Target points, structure of arrays, fp64. Count: grid.size^2, or 6 grid.size^2 for a box.
struct Targets {
  std::vector<double> x, y, z;
  std::size_t size() const { return x.size(); }
};

/// Sample geometry: a plane or the six faces of a box.
enum class PlaneKind { XY, XZ, YZ, Box };

struct Grid {
  PlaneKind kind = PlaneKind::XY;
  double offset = 0;      ///< plane: position on the normal axis; box: faces at +-|offset|
  int size = 128;         ///< samples per side (>= 2)
  double half_width = 1;  ///< samples cover [-half_width, +half_width], endpoints included
};

/// Targets of a grid; u_i = -hw + 2 hw i / (n-1), as numpy.linspace.
/// Plane XY: index i*n + j is (u_i, v_j, offset), u = x, v = y.
/// XZ: (u_i, offset, v_j), u = x, v = z. YZ: (offset, u_i, v_j), u = y, v = z.
/// Box: 6 faces in the order -x, +x, -y, +y, -z, +z; face f occupies [f*n*n, (f+1)*n*n).
/// Each face is laid out as the plane with the same normal: x faces as YZ, y as XZ, z as XY.
/// Faces sit at -|offset| and +|offset|; the sign of offset does not matter.
/// Throws simscope::Error when size < 2.
Targets make_targets(const Grid& grid);

/// Output shape of a grid: {n, n} for a plane, {6, n, n} for a box.
std::vector<std::size_t> grid_shape(const Grid& grid);

/// Evaluation settings.
struct Options {
  double k = 1.0;    ///< prefactor (e.g. Coulomb's constant)
  double eps = 0.0;  ///< softening length, >= 0
  Precision precision = Precision::Fp32;
  /// Tree method only: target relative RMS error of E, ||E_tree - E|| / ||E|| over the targets.
  /// Range [1e-7, 1e-3]; the schema's tree.tolerance. tree_rule() derives the expansion order
  /// and the acceptance criterion from it.
  double tolerance = 1e-5;
  /// Tree method only, for calibration and tests: expansion order in [1, 16] and opening angle
  /// in (0, 1) that replace tree_rule()'s. 0 means the rule's value.
  int tree_order = 0;
  double tree_theta = 0;
  /// Tree method only: number of targets sampled for the measured error, computed by direct
  /// fp64 sums at a random sample of the evaluated targets. -1: automatic, about 3e7
  /// source-target pairs, between 8 and 1024 targets. 0: no measurement. When the measured RMS
  /// error of E or of the potential exceeds `tolerance`, the evaluation is redone with a
  /// tighter setting; see TreeStats::refinements.
  std::int64_t error_samples = -1;
  /// Seed of that sample. 0: a seed hashed from the evaluation (target count and end points,
  /// source count, tolerance, eps). The same run draws the same sample, so it reaches the same
  /// rung and outputs; another plane or grid draws another sample.
  std::uint64_t error_seed = 0;
  /// Also return the fp64 sums (Result::sums64) before rounding to float32. The CPU evaluators,
  /// direct and tree, honour it; the CUDA ones leave sums64 empty. Runs split by sources need
  /// it to add partial fields in fp64.
  bool keep_sums64 = false;
  /// Tree method only: target indices, within the evaluated range and in any order, where
  /// Result::target_errors gets the per-target relative error of E against direct fp64 sums.
  /// Used for the error view's coarse subgrid (error_subgrid()). Empty: none. Each target
  /// costs P direct pairs, once per evaluation, after the ladder.
  std::vector<std::size_t> error_targets;
  /// Tree method only, for interactive use: evaluate() returns the outputs at the ladder's
  /// current rung with TreeStats::error_deferred set, no error measured and no target_errors.
  /// Evaluator::measure_deferred() then measures the error and climbs the ladder. Together the
  /// two calls give the same outputs, statistics and next rung as one evaluate() without it.
  /// Other methods ignore it.
  bool defer_error = false;
  /// Tree method only: start the ladder of tighter settings at its first rung, as a new
  /// evaluator does, even when the last evaluation was of the same sources and tolerance (the
  /// source tree is still kept). The outputs then do not depend on earlier evaluations: they
  /// equal a new evaluator's bit for bit. The Python module's Sources object sets it. Other
  /// methods ignore it.
  bool restart_ladder = false;
};

/// How the sums over the sources are formed.
/// Direct: every (source, target) pair, O(P T) work.
/// Tree: a fast multipole method (compute/field/tree/, tests/bench/NOTES.md "field tree").
/// O(P) to build the source tree once per source set, then about O(T + cells) per evaluation,
/// to Options::tolerance, with the error measured at sampled targets.
/// Tree with Precision::Fp64: expansions, multipoles and near field in fp64.
/// Tree with Precision::Fp32: expansions in fp64. For tolerances >= 1e-6, multipoles are stored
/// in fp32 and the near field is fp32 relative to each source cell's centre; the near field is
/// fp64 for cells of <= 8 sources and below 1e-6. Outputs are float32.
/// On the CPU at a fixed setting (error_samples 0, or tree_order and tree_theta given), work
/// ranges equal the whole evaluation bit for bit. With the measured error, each range may settle
/// on its own rung (TreeStats::theta, order), each within the tolerance.
/// Auto: direct while P x T is at most auto_direct_pairs(backend), else tree. On CUDA, auto
/// stays direct until the CUDA tree is proven on a GPU (NOTES.md).
enum class Method { Direct, Tree, Auto };

/// Statistics of a tree evaluation, in Result::tree. Zero or NaN for direct.
struct TreeStats {
  double build_seconds = 0;  ///< building the source tree and its multipoles in this call
                             ///< (0 when the kept tree served)
  double eval_seconds = 0;   ///< target tree, traversal, expansions and near field
  double error_seconds = 0;  ///< the sampled direct sums of the measured error
  /// Measured error of E over the sampled targets against direct fp64 sums. Compared are the
  /// tree's fp64 values, before the outputs' fp32 rounding, which adds up to 6e-8 relative.
  /// rms_rel_error = sqrt(mean over the sample |E_tree - E_direct|^2 / mean over all evaluated
  /// targets |E_tree|^2), i.e. ||E_tree - E|| / ||E||.
  /// max_rel_error = max over the sample |E_tree - E_direct| / |E_direct|. NaN when not measured.
  double rms_rel_error = NAN, max_rel_error = NAN;
  double rms_rel_error_potential = NAN;  ///< the same RMS measure for the potential
  std::size_t error_samples = 0;         ///< targets in that sample
  int order = 0;                         ///< expansion order used
  double theta = 0;                      ///< opening angle used
  std::uint64_t m2l = 0;                 ///< cell-cell expansions formed
  double p2p_pairs = 0;                  ///< source-target pairs summed directly (near field)
  double tree_bytes = 0;                 ///< memory held by the source tree
  int refinements = 0;  ///< evaluations redone tighter because the measured error was too large
  /// Evaluated with Options::defer_error: the error is not measured yet until
  /// Evaluator::measure_deferred(); error_samples is 0 and errors are NaN.
  bool error_deferred = false;
  /// The source tree of an earlier evaluation of the same source set (Sources::generation and
  /// size) served; false when this evaluation built it. build_seconds may still be > 0 then:
  /// the multipoles are recomputed for another order or precision.
  bool tree_kept = false;
};

/// Results: one float per target of the evaluated range for each output. Index i holds target
/// target_begin + i.
struct Result {
  std::vector<float> magnitude, ex, ey, ez, potential;
  /// False when the outputs stayed in device memory (Evaluator::keep_outputs_on_device). The
  /// five vectors are then empty, device_output() holds size() values of each, and
  /// device_nonfinite counts their non-finite values.
  bool on_host = true;
  /// With on_host false: count of non-finite values (inf, NaN) of each output, in
  /// output_names() order, counted on the device. Zeros otherwise.
  std::array<std::uint64_t, 5> device_nonfinite{};
  std::size_t target_begin = 0;            ///< first target of the range evaluated
  std::uint64_t skipped_coincidences = 0;  ///< (source, target) pairs skipped (eps = 0 only)
  double seconds = 0;                      ///< wall time of the evaluation
  Method method = Method::Direct;          ///< the method that computed it (never Auto)
  TreeStats tree;                          ///< method == Tree: its statistics
  /// method == Tree: per entry of Options::error_targets, |E_tree - E_direct| / |E_direct|.
  /// E_direct is the fp64 direct sum over every source; E_tree is the tree's fp64 value before
  /// fp32 rounding. 0 where both are 0, +inf where only E_direct is. Empty for direct or
  /// without error_targets.
  std::vector<float> target_errors;
  std::size_t size() const { return on_host ? magnitude.size() : device_count; }  ///< targets held
  std::size_t device_count = 0;  ///< with on_host false: the targets held in device memory
  /// With Options::keep_sums64 on a CPU evaluator: (targets, 4) Ex, Ey, Ez, phi per target in
  /// fp64, the values the float32 outputs are rounded from. Empty otherwise.
  std::vector<double> sums64;
};

/// The outputs in export order; the schema's `view` choices and the run layer's descriptor come
/// from this list. "magnitude" (|E|), "ex", "ey", "ez" in k*q/length^2; "potential" (phi) in
/// k*q/length. All float32.
const std::vector<io::OutputSpec>& outputs();
/// The names of outputs(), in export order: "magnitude", "ex", "ey", "ez", "potential".
const std::vector<std::string>& output_names();
/// The tree method's `error` output, the schema's `view` choice after output_names(): the
/// per-target relative error of |E| on a coarse subgrid (Result::target_errors). Unitless.
const io::OutputSpec& error_output();

/// The coarse subgrid of an n x n plane, or of each box face, where the `error` view measures
/// the tree's error. m x m samples at plane indices a_k = round(k (n - 1) / (m - 1)), k < m.
/// m = 1 gives the centre (n - 1) / 2; m is clamped to [1, n]. `targets` are flat indices into
/// make_targets(grid) in C order (face, a_i, a_k), ascending. m = 0 sizes it from the sources:
/// m = clamp(floor(sqrt(3e7 / P)), 3, 32), about 3e7 direct fp64 pairs like the error sample.
struct ErrorSubgrid {
  int m = 0;                         ///< samples per side
  std::vector<int> index;            ///< a_k, k < m
  std::vector<std::size_t> targets;  ///< flat target indices (faces x m x m)
};
/// Throws simscope::Error when m < 0.
ErrorSubgrid error_subgrid(const Grid& grid, int m, std::size_t sources);
/// The vector of `r` called `name` (one of output_names()); throws Error otherwise.
const std::vector<float>& output(const Result& r, const std::string& name);
/// Unit of output `name`: "k*q/length^2" for magnitude/ex/ey/ez, "k*q/length" for the
/// potential. Throws Error on an unknown name.
const char* output_unit(const std::string& name);

/// "direct", "tree", "auto"; "unknown" for a value outside the enum.
const char* to_string(Method m);
/// The method called `name`: "direct", "tree" or "auto". Throws simscope::Error listing the
/// known names.
Method method_from_string(const std::string& name);

/// The largest pair count P x T that Method::Auto evaluates directly on `backend`: 1e9 on the
/// CPU, 1e11 on CUDA. Throughput behind them: tests/bench/NOTES.md.
double auto_direct_pairs(Backend backend);
/// The method that `method` means for P sources and T targets on `backend`. Direct and Tree are
/// returned as given. Auto resolves by auto_direct_pairs() on the CPU, and to Direct on CUDA
/// until the CUDA tree is proven on a GPU.
Method resolve_method(Method method, Backend backend, std::size_t sources, std::size_t targets);

/// Expansion order and opening angle of the tree method for a tolerance. Source: tree_rule.cpp;
/// calibration in tests/bench/NOTES.md "field tree".
struct TreeRule {
  int order = 0;
  double theta = 0;
};
/// Throws simscope::Error unless tolerance is in [1e-7, 1e-3].
TreeRule tree_rule(double tolerance);

/// A field evaluator. Implementations by method and back end: direct CPU (OpenMP, the
/// reference); direct CUDA; tree CPU; tree CUDA (host-built trees and lists, device arithmetic,
/// device_output() null); auto on each back end, which picks per evaluation via
/// resolve_method() and keeps both evaluators and their caches.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual Backend backend() const = 0;
  virtual Method method() const { return Method::Direct; }
  /// Tree method: releases the kept source tree. The next evaluation rebuilds it.
  virtual void release_cache() {}
  /// Tree method: completes the kept cache so that later evaluations of the same sources and
  /// order do not pay for it, i.e. makes every leaf's multipole that is otherwise made on first
  /// use (the first evaluation near those leaves). Changes no output. Throws simscope::Cancelled
  /// between chunks of the work; what is done stays done. Does nothing without a kept tree.
  virtual void complete_cache(Progress* /*progress*/ = nullptr) {}
  /// Tree method, after evaluate() with Options::defer_error into `out` and nothing evaluated
  /// since: measures the error at the sample and at the error view's targets (out.tree,
  /// out.target_errors). Above the tolerance, evaluates again one rung tighter as evaluate()
  /// does, rewriting out's outputs. Returns true when the outputs were rewritten. Returns false
  /// when only out.tree and out.target_errors changed, or when nothing is deferred; `out` is
  /// then untouched. Throws simscope::Cancelled and drops the deferred state.
  virtual bool measure_deferred(Result& /*out*/, Progress* /*progress*/ = nullptr) {
    return false;
  }
  /// Computes all outputs for every target and resizes `out`'s vectors to targets.size().
  /// Units: k*q/length^2 for the field, k*q/length for the potential. out.seconds is wall time.
  /// Reports progress in [0,1]. Throws simscope::Cancelled when cancelled. Throws
  /// simscope::Error on invalid options (eps < 0 or non-finite, k non-finite; `out` untouched)
  /// or on device failures. After Cancelled or a device failure `out` may be partly written;
  /// evaluate into a scratch Result to keep the previous one.
  void evaluate(const Sources& sources, const Targets& targets, const Options& options, Result& out,
                Progress* progress = nullptr) {
    evaluate(sources, targets, IndexRange::all(), options, out, progress);
  }
  /// The same for the targets [range.begin, range.end) only; IndexRange::all() is every
  /// target. `out` gets range-size values per output and out.target_begin = range.begin.
  /// CPU: each target's values are bit-identical to the whole evaluation's, because the fp32
  /// local origin comes from the whole target set and the sources are split as for the whole
  /// set. So consecutive ranges merged by merge_target_ranges() equal the unsplit result.
  /// CUDA: they agree to rounding, since its fp64 sums are atomic adds in no fixed order.
  /// Throws simscope::Error, `out` untouched, when the range is not within [0, targets.size()),
  /// and as above.
  virtual void evaluate(const Sources& sources, const Targets& targets, const IndexRange& range,
                        const Options& options, Result& out, Progress* progress = nullptr) = 0;
  /// CUDA only: the last result's output `name` in device memory, the range's floats. Null on
  /// the CPU back end, before a result, or for an unknown name. Shared ownership: the memory
  /// stays allocated and unchanged while the pointer is held; later evaluate() calls write into
  /// another buffer. Used for CUDA-GL interop.
  virtual std::shared_ptr<const float> device_output(const std::string& /*name*/) const {
    return nullptr;
  }
  /// Asks a device evaluator to leave the outputs of later evaluations in device memory only
  /// when `keep` is true; false copies them into the Result's vectors, the default. Then
  /// Result::on_host is false and device_output() has the values. Returns whether it will. CPU
  /// evaluators always write host vectors and return false.
  virtual bool keep_outputs_on_device(bool /*keep*/) { return false; }
  /// Direct CUDA evaluator only: evaluate() of every target with sources and/or targets read
  /// from CUDA device memory, never staged through the host, e.g. a torch or CuPy CUDA tensor
  /// handed to the Python module. A non-null `device_sources` ((P,4) x,y,z,q, or (P,3) with
  /// q = 1) or `device_targets` ((T,3)) replaces the host `sources` or `targets` argument; pass
  /// empty ones. Views may have any strides, float32 or float64. One small kernel converts them
  /// into the evaluator's layout with the host readers' checks and messages
  /// (sources_from_strided, targets_from_strided): the first bad row, named by the view's name.
  /// The fp32 local origin follows local_origin's rule on the targets' bounding box, reduced
  /// on the device. Views must be on this evaluator's device(); the evaluator's stream waits
  /// for each view's DeviceView::stream. Results as evaluate()'s. Throws simscope::Error for a
  /// bad view (dimensions, dtype, device, alignment) or value, and as evaluate() does. The
  /// default implementation throws simscope::Error "field: inputs in CUDA device memory need
  /// the direct CUDA evaluator".
  virtual void evaluate_device(const Sources& sources, const Targets& targets,
                               const DeviceView* device_sources, const DeviceView* device_targets,
                               const Options& options, Result& out, Progress* progress = nullptr);
  /// CUDA only: the CUDA device of device_output()'s memory. -1 on the CPU back end.
  virtual int device() const { return -1; }
  /// CUDA only: peak device bytes allocated by this evaluator so far.
  virtual double peak_device_bytes() const { return 0; }
};

/// Creates the evaluator of `method` on `backend`. Throws simscope::Error when that pair does
/// not exist, listing available_evaluators(), or when the CUDA back end is not compiled or
/// cannot run.
std::unique_ptr<Evaluator> make_evaluator(Method method, Backend backend);
/// make_evaluator(Method::Direct, backend).
std::unique_ptr<Evaluator> make_evaluator(Backend backend);
/// The (method, back end) pairs that make_evaluator() knows, whether or not this machine can
/// run them; see cuda_status().
std::vector<std::pair<Method, Backend>> available_evaluators();

/// Merges results of consecutive target ranges into one Result starting at
/// parts[0].target_begin. Consecutive: parts[k + 1].target_begin == parts[k].target_begin +
/// parts[k].size(). Outputs and target_errors are concatenated in part order;
/// skipped_coincidences and seconds are summed. Tree statistics: times, counts and samples
/// summed, max_rel_error the largest, rms_rel_error the sample-weighted RMS of the parts',
/// tree_kept when every part's is;
/// method is the first part's. Throws simscope::Error when the parts are not consecutive or
/// none is given.
Result merge_target_ranges(const std::vector<Result>& parts);

/// Float64 brute-force reference for tests only: single thread, no tiling, OpenMP or SIMD.
/// Uses the targets as given, not rounded to fp32, whatever options.precision says. Terms with
/// r^2 == 0 are skipped and counted. Throws simscope::Error on invalid options.
void evaluate_reference(const Sources& sources, const Targets& targets, const Options& options,
                        Result& out);

// ---- sources -------------------------------------------------------------------------------

/// Generated distributions:
/// "uniform": uniform in the cube [-hw, hw]^3, q in [0.5, 1.5].
/// "gaussian": 8 Gaussian blobs of sigma hw/10 at random centres in [-hw/2, hw/2]^3, q = 1.
/// "dipoles": pairs +1/-1 separated by hw/50 in a random direction, centres uniform in the
/// cube; an odd count ends with a lone +1.
/// "lattice": cubic lattice of ceil(cbrt(count)) per side over [-hw, hw]^3, truncated to count,
/// q = +1/-1 alternating with the parity of i+j+k.
/// Deterministic for a given seed on every platform: std::mt19937_64 with simscope's own
/// uniform and normal transforms. Positions in units of length, rounded to fp32. Throws
/// simscope::Error on an unknown distribution, count < 1 or > 1e9, half_width not finite and
/// > 0, or when memory runs out.
Sources generate_sources(const std::string& distribution, std::size_t count, double half_width,
                         std::uint64_t seed);

/// Loads sources from .npy (float32/float64, shape (P,4) x,y,z,q or (P,3) with q = 1) or CSV
/// (columns x,y,z[,q], optional header). The extension decides: .npy or .csv, case-insensitive.
/// Readers: io::read_npy and io::read_csv. Throws simscope::Error naming the file and the
/// problem: wrong dtype or shape; non-finite coordinates or strengths, with the row (0-based
/// for .npy, "data row" 1-based for CSV); values beyond float32; empty file; no sources.
Sources load_sources(const std::string& path);
/// Sources of an array as read from a .npy file; load_sources uses it after reading, and the
/// Python module passes numpy arrays through it. float32/float64 of shape (P,4) or (P,3). Same
/// checks and messages, with `name` in place of the file name. Sets a fresh generation.
Sources sources_from_npy(const io::NpyArray& a, const std::string& name);
/// Arbitrary targets from an array of shape (T,3) x,y,z: float32 or float64, T >= 1, finite.
/// Throws simscope::Error starting with `name` for another dtype or shape, or for a non-finite
/// value, with its row.
Targets targets_from_npy(const io::NpyArray& a, const std::string& name);

// ---- source settings -----------------------------------------------------------------------

/// Where a run's sources come from: the file `file` when set (load_sources), else the
/// generator's settings (generate_sources).
struct SourceSpec {
  std::string file;  ///< .npy or CSV source file; empty: generated
  std::string distribution = "gaussian";
  std::size_t count = 20000;
  double half_width = 1.0;
  std::uint64_t seed = 1;
};

/// load_sources(spec.file) when it is set, else generate_sources(spec.distribution, spec.count,
/// spec.half_width, spec.seed). Throws simscope::Error as those do.
Sources make_sources(const SourceSpec& spec);

}  // namespace simscope::field
