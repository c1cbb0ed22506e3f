#pragma once
/// @file The app's view of a workload: a schema, a run that fills named output arrays, and the
/// 2-D image shown for one of them. Each workload of compute/ gets one adapter (field_workload).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "job/checkpoint.hpp"
#include "core/backend.hpp"
#include "core/progress.hpp"
#include "core/range.hpp"
#include "io/npy.hpp"
#include "io/output_spec.hpp"
#include "output/output_data.hpp"
#include "params/schema.hpp"
#include "job/run_command.hpp"
#include "output/stat_label.hpp"
#include "view/image_annotations.hpp"

namespace simscope::app {

/// One exported array, written as DIR/<name>.npy with `dtype`. Its values are converted once at
/// write time from the dtype they are held in. OutputData holds them in host or device memory
/// as float32, float64, int32 or uint8; a device output is copied to the host on first use.
/// Export, readouts and histograms read the host values; the view uploads from data.device()
/// when it is set.
struct OutputArray {
  std::string name;   ///< file stem, e.g. "magnitude"
  std::string label;  ///< for the colorbar, e.g. "|E|"
  std::string unit;   ///< e.g. "k*q/length^2"
  io::DType dtype = io::DType::Float32;  ///< the exported file's dtype
  std::vector<std::size_t> shape;        ///< numpy shape
  OutputData data;                       ///< product(shape) values, C order
  /// The values as float32, via OutputData::host().
  const std::vector<float>& host() const { return data.host(); }
};

/// The colormap and scale a workload gives an output's images, e.g. "twilight" and "linear" for
/// phases. Used while view.colormap and view.scale are at their defaults. Empty: the view's.
struct ViewHints {
  std::string colormap, scale;
};

/// A 2-D image for the plane view: value(i, j) = data[i * cols + j], i to the right, j up. The
/// values may be an output's own, shared without a copy on the device or the host, or made for
/// the image on the host, e.g. a box's mosaic.
struct ViewImage {
  int rows = 0, cols = 0;
  OutputData data;
  std::string label, unit;
  /// The workload's colormap and scale for this image (ViewHints): Workload::view_hints of its
  /// output, or a comparison's own.
  std::string colormap, scale;
  /// The workload's fixed range for this image, used while view.range is not "locked".
  /// Example: status codes 0..3 as -0.5..3.5, so a code keeps its colour whatever codes occur.
  /// lo == hi: none.
  double range_lo = 0, range_hi = 0;
  /// Signed values under a diverging colormap: while view.range is not "locked", the range is
  /// (-m, m) with m from |value| as view.range picks it (colour_range.hpp), not the fixed range.
  bool symmetric = false;
  /// What the view draws around and over the image: ImageAspect::Fill for arrays whose axes are
  /// not lengths, e.g. members x nodes (spatial planes keep square pixels); the titles of axes i
  /// and j with the coordinates of their first and last samples; labels of regions, e.g. the
  /// faces of a box mosaic, in fractions of the axes. to_render_settings (view_settings.hpp)
  /// copies it into the view's settings.
  ImageAnnotations annotations;
  /// Makes the range symmetric (`symmetric`) and sets the fixed range to [-m, m], m the largest
  /// finite |value|: a diverging colormap then puts zero at its neutral centre.
  void symmetric_range() {
    symmetric = true;
    double m = 0;
    for (float v : data.host())
      if (std::isfinite(v)) m = std::max(m, double(std::fabs(v)));
    if (m > 0) range_lo = -m, range_hi = m;
  }
  ViewHints hints() const { return {colormap, scale}; }
  void set_hints(const ViewHints& h) { colormap = h.colormap, scale = h.scale; }
};

/// Workload-specific data a run hands its GUI panel, e.g. lsq's inputs to plot a pixel's fit.
/// Each workload derives its own type (LsqPayload, OscillatorsPayload); its panel reads it back
/// typed with RunResult::payload_as.
struct RunPayload {
  virtual ~RunPayload() = default;
};

/// What a run of a work range (RunRequest::range) adds to its result for merging: the range of
/// the workload's independent axis it computed and that axis' length. Outputs along the axis
/// hold only that range's part (split_merge.hpp). `sums` carries, as fp64 vectors by name, what
/// the merge needs besides the outputs, e.g. the oscillators' per-block series sums.
struct RangePart {
  std::string axis;  ///< WorkAxis::name
  std::size_t begin = 0, end = 0, length = 0;
  std::map<std::string, std::vector<double>> sums;
};

/// What a run produced.
struct RunResult {
  std::string workload;
  ParamSet params;  ///< the parameters it ran with
  Backend backend = Backend::Cpu;
  /// The outputs, each where the workload left it (OutputArray::data). Device memory stays valid
  /// and unchanged while this result or a copy lives, whatever the workload runs or frees
  /// afterwards. So a view may redraw from it at any time, also after a cancelled run.
  std::vector<OutputArray> outputs;
  std::vector<std::string> warnings;    ///< e.g. "3 source-target coincidences skipped"
  std::map<std::string, double> stats;  ///< numbers for run.json, e.g. {"sources", 1e6}
  /// Words for run.json's stats beside the numbers, also Python's result.stats. Example: the
  /// field's {"method", "tree"}.
  std::map<std::string, std::string> stat_texts;
  double compute_seconds = 0;           ///< the kernel's wall time
  double total_seconds = 0;             ///< including loading/generating inputs
  bool preview = false;                 ///< a coarse preview of a later full result
  /// Set by runs of a work range (RunRequest::range) only.
  std::optional<RangePart> part;
  /// Workload-specific data for its GUI panel, or null. Read it with payload_as.
  std::shared_ptr<const RunPayload> payload;

  /// The payload as a `P`, the workload's RunPayload type. Null when there is none or it is
  /// another workload's.
  template <class P>
  const P* payload_as() const {
    return dynamic_cast<const P*>(payload.get());
  }

  const OutputArray* find(const std::string& name) const {
    for (const auto& o : outputs)
      if (o.name == name) return &o;
    return nullptr;
  }
};

/// Coordinates of a view image's samples, affine in the sample indices: coordinate c of sample
/// (i, j) is base[c] + i di[c] + j dj[c], named names[c].
struct SampleCoordinates {
  std::vector<std::string> names;
  std::vector<double> base, di, dj;
};

/// A file a workload takes as input, for drag and drop: its extensions and, for .npy files, the
/// shapes it accepts. A dropped file that fits sets `sets`; "{path}" stands for its path.
struct InputRole {
  std::vector<std::string> extensions;  ///< lower case, without the dot, e.g. {"npy"}
  /// For .npy files: whether a shape fits. Null: any shape.
  std::function<bool(const std::vector<std::size_t>& shape)> fits;
  std::vector<std::pair<std::string, std::string>> sets;  ///< parameter, value
};


/// How the GUI's centre shows a result. Plane: view_image() through the plane view. Custom: the
/// workload's WorkloadGui draws it, e.g. the oscillators' phase view.
enum class ViewKind { Plane, Custom };

/// What one run is asked to do besides computing with the parameters.
struct RunRequest {
  bool preview = false;  ///< a quick coarse result (e.g. a smaller grid) before the full one
  /// Whole from the headless front ends; Live for the GUI's automatic runs of a continuous()
  /// workload; Study, Step or Reset from its GUI panel.
  RunCommand command = RunCommand::Whole;
  /// Headless studies: keep a checkpoint and maybe resume from it. Null: none. Workloads
  /// without studies ignore it.
  std::shared_ptr<CheckpointRequest> checkpoint;
  /// A work range along the workload's independent axis (Workload::work_axis). The run computes
  /// only that part, and its result carries RunResult::part; Workload::merge_ranges joins the
  /// parts. Nothing: the whole run. Used with the empty command, in headless runs.
  std::optional<IndexRange> range;
  /// The axis `range` cuts. Empty: work_axis()'s; else one that Workload::split_axis() knows,
  /// e.g. the field's "sources".
  std::string axis;
  /// The window's runs (Worker::set_interactive): leave to follow_up() what does not change the
  /// result's first display, e.g. the field tree's measured error. The worker calls follow_up()
  /// after handing the result over. Headless, CLI and Python runs never set it.
  bool defer_checks = false;
};

/// A workload's independent axis for a given set of parameters: what work ranges cut.
struct WorkAxis {
  std::string name;        ///< "targets", "rows", "members"
  std::size_t length = 0;  ///< items along it
  /// Ranges must start and end on multiples of this, or at `length`. Example: the oscillators'
  /// study blocks. 1: anywhere.
  std::size_t granule = 1;
  /// Finer places where ranges may start and end, sorted from 0 to `length`, used when there
  /// are more ranges than granules (split_work). Empty: none. Example: the oscillators'
  /// reduction groups.
  std::vector<std::size_t> cuts;
  /// The parts are added, not joined, as in the field split by sources. RangePart::sums entries
  /// named "sum:..." are element-wise sums over the parts; a split across ranks reduces them to
  /// rank 0 rather than gathering each. Every range is run, empty ones too, so every part has
  /// them.
  bool reduced = false;
};

/// A workload as the app drives it. Implementations keep caches between runs, e.g. generated
/// sources and device buffers, so one instance must not run two jobs at once.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual const Schema& schema() const = 0;
  const std::string& name() const { return schema().workload(); }
  /// Runs with `params` on `backend`. Throws simscope::Error on bad input, with nothing else
  /// changed, and simscope::Cancelled.
  virtual RunResult run(const ParamSet& params, Backend backend, const RunRequest& request,
                        Progress* progress) = 0;
  /// Refuses, before anything is computed, parameters whose run could not give what they ask
  /// for, e.g. the field's view=error with method=direct. Throws simscope::Error naming the
  /// parameters and what is expected. The default accepts everything. The headless front ends
  /// call it; the window computes and says why the view is empty instead.
  virtual void check_params(const ParamSet& /*params*/) const {}
  /// True for live workloads whose runs advance a state, e.g. N integrator steps per run. The
  /// GUI submits the next run as soon as a result arrives, unless paused.
  virtual bool continuous(const ParamSet& /*params*/) const { return false; }
  /// How the GUI's centre shows a result with `params` (ViewKind).
  virtual ViewKind view_kind(const ParamSet& /*params*/) const { return ViewKind::Plane; }
  /// After a full run with RunRequest::defer_checks and nothing run since: returns the whole
  /// result again with what it left out, e.g. the field tree's measured error, its error view,
  /// and a tighter evaluation when that error exceeds the tolerance. Returns nothing when
  /// nothing was left out. Called on the worker thread after the run's result is handed over.
  /// Throws simscope::Cancelled.
  virtual std::optional<RunResult> follow_up(Progress* /*progress*/) { return std::nullopt; }
  /// The window's idle time (Worker::set_interactive): called on the worker thread after a full
  /// run and its follow-up are handed over while no newer request waits. Work that makes later
  /// runs faster without changing their results, e.g. the field tree's leaf multipoles
  /// (field::Evaluator::complete_cache), so that a first visit to a region costs no more than a
  /// second. A newer request cancels it (simscope::Cancelled); what is done stays done.
  virtual void warm_up(Progress* /*progress*/) {}
  /// The image shown for the parameter "view" of `result`. Throws simscope::Error.
  virtual ViewImage view_image(const RunResult& result, const std::string& view) const = 0;
  /// The colormap and scale of output `view`'s images (those view_image gives them), known
  /// before any result: the window's View panel shows them from the start. Default: none.
  virtual ViewHints view_hints(const std::string& /*view*/) const { return {}; }
  /// Physical coordinates of image sample (i, j) for the cursor readout, e.g. "x=1.2 y=-3 z=0".
  virtual std::string describe_sample(const RunResult& result, int i, int j) const = 0;
  /// The parameter that selects the shown output ("view").
  virtual std::string view_param() const { return "view"; }
  /// The independent axis a run with `params` can be split along (RunRequest::range). Length 0:
  /// none, the default. May load the inputs, e.g. lsq's cube. Throws simscope::Error on bad
  /// input.
  virtual WorkAxis work_axis(const ParamSet& /*params*/) { return {}; }
  /// The axis called `axis` (RunRequest::axis). Empty or work_axis()'s name gives work_axis().
  /// A workload with other axes overrides this, e.g. the field's "sources". Throws
  /// simscope::Error "<workload>: runs cannot be split by <axis> ..." for another name.
  virtual WorkAxis split_axis(const ParamSet& params, const std::string& axis);
  /// Merges the results of consecutive work ranges of one run, in axis order and covering it,
  /// into the whole run's result: outputs, stats and warnings as an unsplit run gives them
  /// (split_merge.hpp). Throws simscope::Error when the parts do not fit together. The default
  /// throws "<name>: runs cannot be split".
  virtual RunResult merge_ranges(std::vector<RunResult> parts) const;
  /// The axis that a run of `params` split across ranks cuts when the user leaves the choice to
  /// the program (--mpi-split auto). `share_bytes` is what one rank may use, 0 if unknown.
  /// Empty: work_axis()'s, the default, which does not load the inputs. May read the inputs'
  /// headers.
  virtual std::string choose_split(const ParamSet& /*params*/, double /*share_bytes*/) {
    return "";
  }
  /// The space coordinates of `result`'s view samples where they are more than the image's two
  /// axes, e.g. the field's planes in x, y, z. nullopt: the axes serve, the default. `axes`
  /// holds those axes as the profile reads them from the image's titles.
  virtual std::optional<SampleCoordinates> sample_coordinates(const RunResult& /*result*/,
                                                              const SampleCoordinates& /*axes*/)
      const {
    return std::nullopt;
  }
  /// A line the front ends show beside `result`, in the window's status bar or a screenshot's
  /// metadata, e.g. where lsq's method ran. Empty: none, the default.
  virtual std::string status_note(const RunResult& /*result*/) const { return ""; }
};

/// One exported output as a workload declares it: file stem, colorbar label, unit, dtype
/// (io/output_spec.hpp). A workload whose `view` shows its outputs takes them from its compute
/// module's single list, e.g. field::outputs() or lsq::outputs(), which also gives the view
/// choices.
using OutputSpec = io::OutputSpec;

/// A workload, registered once in workload_registry.cpp: its name, its factory and its outputs.
/// The CLI help, the GUI's switcher and the export list come from it. The GUI registers its
/// panel under the same name on its side (gui/workload_gui_registry.cpp), so this layer knows
/// nothing of the GUI.
struct WorkloadDescriptor {
  std::string name;
  std::function<std::unique_ptr<Workload>()> make;
  std::vector<OutputSpec> outputs;  ///< in export order
  /// The outputs' shapes in words for the CLI help, which lists the names from `outputs`, e.g.
  /// "float32 (grid.size, grid.size) for a plane, (6, n, n) for a box".
  std::string shapes;
  /// Every run.json stats key its runs give, once, in the "Last run" panel's order: the name,
  /// unit and format people read (stat_labels.hpp). Keys only Python's stats carry have rows too.
  std::vector<StatLabel> stat_labels;
  /// A line on a result's own figures that the window shows after its compute time, in the
  /// status bar and the log line of each result, e.g. the field tree's "tree build 12 ms, eval
  /// 30 ms, sample error 1.2e-06 rms, 3.4e-06 max". Empty or null: none.
  std::function<std::string(const RunResult&)> status_text;
  /// Whether the full (not preview) result `r` is whole enough to be the first full result that
  /// the window's --frames N and --screenshot wait for, e.g. a live oscillators frame once its
  /// time series plot a curve. Null: every full result is.
  std::function<bool(const RunResult& r)> first_full;
  /// Texts on a result that a screenshot of the window carries in its metadata, each under
  /// "simscope.<key>", e.g. the field's "tree_status" (status_text's) and "tree_rule". Null: none.
  std::function<std::map<std::string, std::string>(const RunResult&)> screenshot_texts;
  /// Headless runs keep a checkpoint and continue after an interruption with --resume: opens it
  /// for a run of `params` on `backend` into `out_dir` (open_checkpoint, checkpoint.hpp), e.g.
  /// the oscillators' studies (oscillators/study_checkpoint.hpp). Null: they keep none.
  std::function<std::shared_ptr<CheckpointRequest>(const ParamSet& params, Backend backend,
                                                   const std::string& out_dir, bool resume,
                                                   double interval_s)>
      open_checkpoint;
  /// --estimate: the line a headless run prints instead of running, projecting its time, e.g.
  /// the oscillators' study "simscope: estimate: ... about 1.2 s (0.00 h); the study was not
  /// run". Throws simscope::Error. Null: the workload has none (--estimate is refused).
  std::function<std::string(const ParamSet& params, Backend backend)> estimate;
  /// A run's work in `work_unit`s, for the progress line's rate and whole time, e.g. an
  /// oscillators study's K N steps "osc-steps". Null: none.
  std::function<double(const ParamSet& params)> work;
  std::string work_unit;
  /// The axes --mpi-split may name, work_axis()'s first. None or one: the work axis only.
  std::vector<std::string> split_axes;
  /// The input files a dropped file may be, tried in order.
  std::vector<InputRole> inputs;
  /// Those inputs in a few words, e.g. "sources .npy/.csv".
  std::string inputs_text;
  /// What a dropped .npy of no input's shape is told, e.g. "field takes sources as .npy of
  /// shape (P, 4) x, y, z, q or (P, 3), or CSV".
  std::string npy_expected;
  /// An empty OutputArray carrying output `name`'s spec: name, label, unit, dtype. Throws
  /// simscope::Error on a name not declared.
  OutputArray make_output(const std::string& name) const;
};

/// The registered workloads, in switcher order.
const std::vector<WorkloadDescriptor>& workloads();
/// The descriptor of workload `name`. Throws simscope::Error "unknown workload 'x' (known: ...)".
const WorkloadDescriptor& workload_descriptor(const std::string& name);
/// The descriptor of workload `name`, or null for a name not registered.
const WorkloadDescriptor* find_workload_descriptor(const std::string& name);
/// Names of the registered workloads, in switcher order.
const std::vector<std::string>& workload_names();
/// A new instance of workload `name`. Throws simscope::Error "unknown workload 'x' (known: field)".
std::unique_ptr<Workload> make_workload(const std::string& name);

}  // namespace simscope::app
