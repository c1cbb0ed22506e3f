#pragma once
/// @file The `field` workload: electric-style field of P point sources on sample targets.
///
/// E(x)   = k * sum_j q_j (y_j - x) / (|y_j - x|^2 + eps^2)^(3/2)
/// phi(x) = k * sum_j q_j / sqrt(|y_j - x|^2 + eps^2)
/// (DESIGN.md section 1.1, the questioner's convention; the Plummer softening is eps. With
/// eps = 0 a target that coincides exactly with a source skips that term and counts it.) Note the
/// sign: with k > 0, E points towards a positive source (as gravity does); use k < 0 for
/// Coulomb's law, where E points away from a positive charge.
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

/// Accumulation precision. Fp32: fp32 terms, summed in fp32 over tiles of sources whose partial
/// sums are added into fp64 accumulators. The terms are computed in coordinates relative to a
/// local origin chosen in fp64 from the targets (the centre of their bounding box on each axis
/// where it lies more than twice the targets' half-extent from 0, else 0): targets and sources
/// are shifted in fp64 and then rounded to fp32, so positions carry an error of at most 6e-8 of
/// their distance from that origin, not of their coordinates' magnitude (targets 0.01 from a
/// source at x = 1e6 are resolved). A coincidence is a target exactly on a source in fp64
/// (fp32 rounding never makes one). Fp64: targets as given, terms and sums in fp64 (the sources
/// stay the fp32 values of Sources). (core/precision.hpp's type.)
using Precision = simscope::Precision;

/// Point sources, structure of arrays, fp32 (16 bytes per source). Positions are stored in fp32
/// as given (a loaded position far from 0 is rounded to 6e-8 of its magnitude when read: 0.06 at
/// 1e6); the evaluators' local origin (Precision) keeps the evaluation from adding more.
struct Sources {
  std::vector<float> x, y, z, q;
  /// Changes whenever the content changes (device caches key on it with size()).
  /// generate_sources() and load_sources() set a fresh process-wide value; 0 means "unknown":
  /// a device evaluator then uploads the sources on every evaluate().
  std::uint64_t generation = 0;
  std::size_t size() const { return x.size(); }
};

/// Target points, structure of arrays, fp64 (they are few: grid.size^2 or 6 grid.size^2).
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

/// Targets of a grid. Plane XY: index i*n + j is (u_i, v_j, offset) with u = x, v = y;
/// XZ: (u_i, offset, v_j) with u = x, v = z; YZ: (offset, u_i, v_j) with u = y, v = z;
/// u_i = -hw + 2 hw i / (n-1) (numpy.linspace). Box: 6 faces in the order -x, +x, -y, +y, -z, +z,
/// face f occupying [f*n*n, (f+1)*n*n), each laid out as the plane with the same normal
/// (x faces as YZ, y faces as XZ, z faces as XY) at -|offset| or +|offset|: the sign of offset
/// does not matter, so face 0 (-x) is always at x = -|offset|.
/// Throws simscope::Error when size < 2.
Targets make_targets(const Grid& grid);

/// Output shape of a grid: {n, n} for a plane, {6, n, n} for a box.
std::vector<std::size_t> grid_shape(const Grid& grid);

/// Evaluation settings.
struct Options {
  double k = 1.0;    ///< prefactor (e.g. Coulomb's constant)
  double eps = 0.0;  ///< softening length, >= 0
  Precision precision = Precision::Fp32;
  /// Tree method only: the target relative RMS error of E, ||E_tree - E|| / ||E|| over the
  /// targets, in [1e-7, 1e-3] (the schema's tree.tolerance). The expansion order and the
  /// acceptance criterion follow from it (tree_rule()).
  double tolerance = 1e-5;
  /// Tree method only, for calibration and tests: an expansion order in [1, 16] and an opening
  /// angle in (0, 1) that replace tree_rule()'s (0: the rule's).
  int tree_order = 0;
  double tree_theta = 0;
  /// Tree method only: targets sampled for the measured error (direct fp64 sums at a random
  /// sample of the evaluated targets); -1: automatic (about 3e7 source-target pairs, at least
  /// 8 and at most 1024 targets), 0: no measurement. When the measured RMS error of E or of
  /// the potential exceeds `tolerance`, the evaluation is redone with a tighter setting
  /// (TreeStats::refinements).
  std::int64_t error_samples = -1;
  /// Seed of that sample; 0: a seed hashed from the evaluation (targets' count and end points,
  /// sources' count, tolerance, eps), so the same run draws the same sample (and so reaches the
  /// same rung and outputs) and another plane or grid another sample.
  std::uint64_t error_seed = 0;
  /// Also return the fp64 sums (Result::sums64) before they are rounded to float32: the CPU
  /// evaluators (direct and tree) do; the CUDA ones leave sums64 empty. For runs split by
  /// sources, whose partial fields are added in fp64 (app/run, issue 13).
  bool keep_sums64 = false;
  /// Tree method only: targets (indices into the Targets, within the evaluated range, in any
  /// order) where Result::target_errors gets the per-target relative error of E against direct
  /// fp64 sums: the error view's coarse subgrid (error_subgrid()). Empty: none. Direct sums at
  /// these targets cost P pairs each, once per evaluation (after the ladder).
  std::vector<std::size_t> error_targets;
  /// Tree method only, for interactive use (the window): evaluate() returns the outputs at the
  /// rung where the ladder stands (TreeStats::error_deferred set, no error measured, no
  /// target_errors), and Evaluator::measure_deferred() measures the error afterwards and climbs
  /// the ladder from there. The two calls together give what one evaluate() without it gives
  /// (the same outputs, statistics and next rung). Other methods ignore it.
  bool defer_error = false;
};

/// How the sums over the sources are formed. Direct: every (source, target) pair, O(P T) work.
/// Tree: a fast multipole method (compute/field/tree/, tests/bench/NOTES.md "field tree"): O(P)
/// to build the tree of the sources once per source set, then about O(T + cells) per
/// evaluation, to Options::tolerance, with the error measured at sampled targets. Precision::Fp64:
/// expansions, multipoles and near field in fp64. Precision::Fp32: expansions in fp64 (multipoles
/// stored in fp32 for tolerances >= 1e-6), near field in fp32 relative to each source cell's
/// centre for tolerances >= 1e-6 (fp64 near sources, for cells of <= 8 sources and below 1e-6);
/// the outputs are float32 as always. Its work
/// ranges equal the whole evaluation bit for bit on the CPU at a fixed setting (error_samples 0,
/// or tree_order and tree_theta given); with the measured error each range may settle on its
/// own rung of the ladder (TreeStats::theta, order), every one within the tolerance. Auto: direct
/// while the pair count P x T is at most auto_direct_pairs(backend), else tree (on the CPU; on
/// CUDA auto stays direct until the CUDA tree has been proven on a GPU: NOTES.md).
enum class Method { Direct, Tree, Auto };

/// Statistics of a tree evaluation (Result::tree; zero/NaN for direct).
struct TreeStats {
  double build_seconds = 0;  ///< building the source tree and its multipoles in this call
                             ///< (0 when the kept tree served)
  double eval_seconds = 0;   ///< target tree, traversal, expansions and near field
  double error_seconds = 0;  ///< the sampled direct sums of the measured error
  /// Measured error of E over the sampled targets against direct fp64 sums (of the tree's
  /// fp64 values, before the outputs' fp32 rounding, which adds up to 6e-8 relative):
  /// sqrt(mean over the sample |E_tree - E_direct|^2 / mean over all evaluated targets
  /// |E_tree|^2) (the relative RMS error ||E_tree - E|| / ||E||, its norm from every target)
  /// and max over the sample |E_tree - E_direct| / |E_direct| (NaN when not measured).
  double rms_rel_error = NAN, max_rel_error = NAN;
  double rms_rel_error_potential = NAN;  ///< the same RMS measure for the potential
  std::size_t error_samples = 0;         ///< targets in that sample
  int order = 0;                         ///< expansion order used
  double theta = 0;                      ///< opening angle used
  std::uint64_t m2l = 0;                 ///< cell-cell expansions formed
  double p2p_pairs = 0;                  ///< source-target pairs summed directly (near field)
  double tree_bytes = 0;                 ///< memory held by the source tree
  int refinements = 0;  ///< evaluations redone tighter because the measured error was too large
  /// Evaluated with Options::defer_error: the error is not measured yet (error_samples 0,
  /// errors NaN) until Evaluator::measure_deferred().
  bool error_deferred = false;
};

/// Results: one float per target of the evaluated range for each output (index i holds target
/// target_begin + i).
struct Result {
  std::vector<float> magnitude, ex, ey, ez, potential;
  /// False when the outputs stayed in device memory (Evaluator::keep_outputs_on_device): the
  /// five vectors are then empty, device_output() holds size() values of each, and
  /// device_nonfinite counts their non-finite values.
  bool on_host = true;
  /// With on_host false: the number of non-finite (inf, NaN) values of each output, in
  /// output_names() order, counted on the device; zeros otherwise.
  std::array<std::uint64_t, 5> device_nonfinite{};
  std::size_t target_begin = 0;            ///< first target of the range evaluated
  std::uint64_t skipped_coincidences = 0;  ///< (source, target) pairs skipped (eps = 0 only)
  double seconds = 0;                      ///< wall time of the evaluation
  Method method = Method::Direct;          ///< the method that computed it (never Auto)
  TreeStats tree;                          ///< method == Tree: its statistics
  /// method == Tree: per entry of Options::error_targets, |E_tree - E_direct| / |E_direct| with
  /// E_direct the fp64 direct sum over every source at that target and E_tree the tree's fp64
  /// value (before the outputs' fp32 rounding); 0 where both are 0, +inf where only E_direct
  /// is. Empty for direct, or without error_targets.
  std::vector<float> target_errors;
  std::size_t size() const { return on_host ? magnitude.size() : device_count; }  ///< targets held
  std::size_t device_count = 0;  ///< with on_host false: the targets held in device memory
  /// With Options::keep_sums64 on a CPU evaluator: (targets, 4) Ex, Ey, Ez, phi per target in
  /// fp64, the values the float32 outputs are rounded from; empty otherwise.
  std::vector<double> sums64;
};

/// The outputs, in export order, the one list of them (the schema's `view` choices and the run
/// layer's descriptor come from it): "magnitude" (|E|), "ex", "ey", "ez" (Ex, Ey, Ez), in
/// k*q/length^2, and "potential" (phi), in k*q/length; float32.
const std::vector<io::OutputSpec>& outputs();
/// The names of outputs(), in export order: "magnitude", "ex", "ey", "ez", "potential".
const std::vector<std::string>& output_names();
/// The tree method's `error` output (the schema's `view` choice after output_names()): the
/// per-target relative error of |E| on a coarse subgrid (Result::target_errors), unitless.
const io::OutputSpec& error_output();

/// The coarse subgrid of an n x n plane (or of each face of a box) where the `error` view
/// measures the tree's error: m x m samples at plane indices a_k = round(k (n - 1) / (m - 1)),
/// k < m (m = 1: the centre (n - 1) / 2; m is clamped to [1, n]); `targets` are their flat
/// indices into make_targets(grid) in C order (face, a_i, a_k), ascending. For m = 0 the size
/// follows the sources: m = clamp(floor(sqrt(3e7 / P)), 3, 32) (about 3e7 direct fp64 pairs,
/// as many as the measured error's sample: Options::error_samples).
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

/// "direct", "tree", "auto" ("unknown" for a value outside the enum).
const char* to_string(Method m);
/// The method called `name` ("direct", "tree", "auto"). Throws simscope::Error listing the
/// known names.
Method method_from_string(const std::string& name);

/// The largest pair count P x T that Method::Auto evaluates directly on `backend`: 1e9 on the
/// CPU (about 0.2 s on 2 cores at 5.8e9 pairs/s), 1e11 on CUDA (about 50 ms at 2e12 pairs/s).
double auto_direct_pairs(Backend backend);
/// The method that `method` means for P sources and T targets on `backend`: Auto resolved by
/// auto_direct_pairs() on the CPU and as Direct on CUDA (until the CUDA tree is proven on a GPU),
/// Direct and Tree as given.
Method resolve_method(Method method, Backend backend, std::size_t sources, std::size_t targets);

/// The expansion order and opening angle of the tree method for a tolerance (tree_rule.cpp;
/// the calibration is in tests/bench/NOTES.md "field tree").
struct TreeRule {
  int order = 0;
  double theta = 0;
};
/// Throws simscope::Error unless tolerance is in [1e-7, 1e-3].
TreeRule tree_rule(double tolerance);

/// A field evaluator. Implementations (method, back end): (direct, CPU: OpenMP, the reference),
/// (direct, CUDA), (tree, CPU), (tree, CUDA: host-built trees and lists, device arithmetic; its
/// device_output() is null), and auto on each back end (which picks per evaluation,
/// resolve_method(), keeping both evaluators and their caches).
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual Backend backend() const = 0;
  virtual Method method() const { return Method::Direct; }
  /// Tree method: releases the kept source tree (the next evaluation rebuilds it).
  virtual void release_cache() {}
  /// Tree method, after an evaluate() with Options::defer_error into `out` (nothing evaluated
  /// since): measures the error at the sample and the error view's targets (out.tree,
  /// out.target_errors) and, above the tolerance, evaluates again one rung tighter as
  /// evaluate() does (rewriting out's outputs). Returns true when the outputs were rewritten;
  /// false when only out.tree and out.target_errors changed, or when nothing is deferred (then
  /// `out` is untouched). Throws simscope::Cancelled (the deferred state is dropped).
  virtual bool measure_deferred(Result& /*out*/, Progress* /*progress*/ = nullptr) {
    return false;
  }
  /// Computes all outputs for every target. Resizes `out`'s vectors to targets.size().
  /// Outputs are in units of k*q/length^2 (field) and k*q/length (potential); out.seconds is the
  /// wall time. Progress is reported in [0,1]; throws simscope::Cancelled when cancelled,
  /// simscope::Error on invalid options (eps < 0 or non-finite, k non-finite; `out` untouched)
  /// or device failures. After Cancelled or a device failure `out` may be partly written:
  /// evaluate into a scratch Result to keep the previous one.
  void evaluate(const Sources& sources, const Targets& targets, const Options& options, Result& out,
                Progress* progress = nullptr) {
    evaluate(sources, targets, IndexRange::all(), options, out, progress);
  }
  /// The same for the targets [range.begin, range.end) only (a work range: IndexRange::all() is
  /// every target): `out` gets range-size values per output, out.target_begin = range.begin.
  /// Each target's values are bit-identical to those of the whole evaluation on the CPU back
  /// end (the fp32 local origin comes from the WHOLE target set, and the CPU splits the sources
  /// as for the whole set), so results of consecutive ranges merged by merge_target_ranges()
  /// equal the unsplit result; on the CUDA back end they agree to rounding (its fp64 sums are
  /// atomic adds, in no fixed order). Throws simscope::Error (`out` untouched) when the range is
  /// not within [0, targets.size()), and as above.
  virtual void evaluate(const Sources& sources, const Targets& targets, const IndexRange& range,
                        const Options& options, Result& out, Progress* progress = nullptr) = 0;
  /// CUDA only: the last result's output `name` in device memory (its range's floats), null
  /// on the CPU back end, before a result, or for an unknown name. Shared ownership: the memory
  /// stays allocated and unchanged while the pointer is held, whatever later evaluate() calls do
  /// (they write into another buffer then). Used for CUDA-GL interop.
  virtual std::shared_ptr<const float> device_output(const std::string& /*name*/) const {
    return nullptr;
  }
  /// Asks a device evaluator to leave the outputs of later evaluations in device memory only
  /// (`keep`; false: copy them into the Result's vectors, the default): Result::on_host is false
  /// then and device_output() has the values. Returns whether it will; the CPU evaluators always
  /// write host vectors and return false.
  virtual bool keep_outputs_on_device(bool /*keep*/) { return false; }
  /// Direct CUDA evaluator only: evaluate() (every target) with the sources and/or the targets
  /// read from CUDA device memory, never staged through the host (issue 15: a torch/CuPy CUDA
  /// tensor handed to the Python module). A non-null `device_sources` (P,4) x,y,z,q or (P,3)
  /// with q = 1, or `device_targets` (T,3), replaces the host `sources` / `targets` argument
  /// (pass empty ones): any strides, float32 or float64; converted on the device by one small
  /// kernel into the evaluator's own layout, with the host readers' checks and messages
  /// (sources_from_strided / targets_from_strided: the first bad row, named by the view's
  /// name). The fp32 local origin comes from the targets' bounding box reduced on the device
  /// (local_origin's rule). The views must be on this evaluator's device(); the evaluator's
  /// stream waits for each view's DeviceView::stream. Results as evaluate()'s. Throws
  /// simscope::Error for a bad view (dimensions, dtype, device, alignment) or value, as
  /// evaluate() does otherwise; the default implementation (every other evaluator) throws
  /// simscope::Error "field: inputs in CUDA device memory need the direct CUDA evaluator".
  virtual void evaluate_device(const Sources& sources, const Targets& targets,
                               const DeviceView* device_sources, const DeviceView* device_targets,
                               const Options& options, Result& out, Progress* progress = nullptr);
  /// CUDA only: the CUDA device of device_output()'s memory (-1 on the CPU back end).
  virtual int device() const { return -1; }
  /// CUDA only: peak device bytes allocated by this evaluator so far.
  virtual double peak_device_bytes() const { return 0; }
};

/// Creates the evaluator of `method` on `backend`. Throws simscope::Error when that pair does
/// not exist (the message lists available_evaluators()), or when the CUDA back end was not
/// compiled or cannot run.
std::unique_ptr<Evaluator> make_evaluator(Method method, Backend backend);
/// make_evaluator(Method::Direct, backend).
std::unique_ptr<Evaluator> make_evaluator(Backend backend);
/// The (method, back end) pairs that make_evaluator() knows, whether or not this machine can run
/// them (cuda_status()).
std::vector<std::pair<Method, Backend>> available_evaluators();

/// The results of consecutive target ranges (parts[k + 1].target_begin == parts[k].target_begin
/// + parts[k].size()) as one Result from parts[0].target_begin: outputs (and target_errors, in
/// part order) concatenated,
/// skipped_coincidences and seconds summed; tree statistics: times, counts and samples summed,
/// max_rel_error the largest, rms_rel_error the sample-weighted RMS of the parts' (method: the
/// first part's). Throws simscope::Error when the parts are not
/// consecutive or none is given.
Result merge_target_ranges(const std::vector<Result>& parts);

/// Float64 brute-force reference (no tiling, no OpenMP, no SIMD; single thread): for tests only.
/// Uses the targets as given (not rounded to fp32) whatever options.precision says; terms with
/// r^2 == 0 are skipped and counted. Throws simscope::Error on invalid options.
void evaluate_reference(const Sources& sources, const Targets& targets, const Options& options,
                        Result& out);

// ---- sources -------------------------------------------------------------------------------

/// Generated distributions: "uniform" (uniform in the cube [-hw, hw]^3, q in [0.5, 1.5]),
/// "gaussian" (8 Gaussian blobs of sigma hw/10 at random centres in [-hw/2, hw/2]^3, q = 1),
/// "dipoles" (pairs +1/-1 separated by hw/50 in a random direction, centres uniform in the cube;
/// an odd count ends with a lone +1),
/// "lattice" (cubic lattice of ceil(cbrt(count)) per side over [-hw, hw]^3, truncated to count,
/// q = +1/-1 alternating with the parity of i+j+k). Deterministic for a given seed on every
/// platform (std::mt19937_64 with simscope's own uniform/normal transforms). Positions in units
/// of length, rounded to fp32. Throws simscope::Error on an unknown distribution name, count < 1
/// or > 1e9, half_width not finite and > 0, or when memory runs out.
Sources generate_sources(const std::string& distribution, std::size_t count, double half_width,
                         std::uint64_t seed);

/// Loads sources from .npy (float32/float64, shape (P,4) x,y,z,q or (P,3) with q = 1) or CSV
/// (columns x,y,z[,q], optional header). The extension decides (.npy / .csv, case-insensitive).
/// Throws simscope::Error naming the file and the problem: wrong dtype or shape, non-finite
/// coordinates or strengths (with the row: 0-based for .npy, "data row" 1-based for CSV), values
/// beyond float32, empty file, no sources. The readers are io::read_npy and io::read_csv.
Sources load_sources(const std::string& path);
/// The sources of an array as read from a .npy file (what load_sources does after reading;
/// the Python module passes numpy arrays through here): float32/float64 of shape (P,4) or (P,3),
/// the same checks and messages, `name` in place of the file name. Sets a fresh generation.
Sources sources_from_npy(const io::NpyArray& a, const std::string& name);
/// Arbitrary targets from an array of shape (T,3) x,y,z (float32 or float64, T >= 1, finite).
/// Throws simscope::Error starting with `name` for another dtype or shape, or a non-finite value
/// (with its row).
Targets targets_from_npy(const io::NpyArray& a, const std::string& name);

// ---- source settings -----------------------------------------------------------------------

/// Where a run's sources come from: the file `file` when it is set (load_sources), else the
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
