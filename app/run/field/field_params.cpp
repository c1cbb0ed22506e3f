// The field workload's parameter schema and its readers (field_params.hpp).
#include "field/field_params.hpp"

#include <cmath>

#include "field/sources.hpp"
#include "params/file_param.hpp"

namespace simscope::field {

namespace {

constexpr double kNoMin = 1, kNoMax = 0;  // min > max: no range
constexpr double kBig = 1e12;             // bound of lengths and offsets

Schema build() {
  using T = ParamType;
  std::vector<ParamSpec> s;
  s.push_back(
      param_spec("sources.file", T::Path, std::string(), kNoMin, kNoMax, "",
                 "Source file: .npy of shape (P,4) x,y,z,q or (P,3) with q = 1, or CSV with "
                 "columns x,y,z[,q]; empty uses the generator."));
  s.push_back(
      param_spec("sources.distribution", T::Enum, std::string("gaussian"), kNoMin, kNoMax, "",
                 "Generated sources: uniform box, 8 Gaussian blobs, +q/-q dipole pairs or a "
                 "cubic lattice of alternating charges.",
                 {"uniform", "gaussian", "dipoles", "lattice"}));
  s.push_back(param_spec("sources.count", T::Int, std::int64_t(20000), 1, 1e9, "",
                         "Number of generated sources.", {}, true));
  s.push_back(param_spec("sources.seed", T::Int, std::int64_t(1), 0, 9007199254740992.0, "",
                         "Seed of the source generator (the same seed gives the same sources)."));
  s.push_back(param_spec("sources.half_width", T::Float, 1.0, 1e-9, kBig, "length",
                         "Generated sources lie in the cube [-half_width, half_width]^3.", {},
                         true));
  s.push_back(param_spec("k", T::Float, 1.0, kNoMin, kNoMax, "",
                         "Prefactor of the field and potential, e.g. Coulomb's constant."));
  s.push_back(param_spec("eps", T::Float, 0.0, 0, kBig, "length",
                         "Plummer softening length; 0 skips (and counts) exact source-target "
                         "coincidences."));
  s.push_back(param_spec("plane", T::Enum, std::string("xy"), kNoMin, kNoMax, "",
                         "Sample geometry: an axis-aligned plane or the six faces of a box.",
                         {"xy", "xz", "yz", "box"}));
  s.push_back(
      param_spec("plane.offset", T::Float, 0.0, -kBig, kBig, "length",
                 "Position of the plane on its normal axis (box: faces at +-|offset|, the sign "
                 "is ignored; 0 gives the cube of faces at +-grid.half_width)."));
  s.back().drag_scale = "grid.half_width";  // a drag from 0 crosses the plane's width
  s.push_back(param_spec("grid.size", T::Int, std::int64_t(128), 2, 4096, "",
                         "Samples per side of the plane (endpoints included).", {}, true));
  s.push_back(param_spec("grid.half_width", T::Float, 1.5, 1e-9, kBig, "length",
                         "Samples cover [-half_width, half_width] on both axes of the plane.", {},
                         true));
  s.push_back(param_spec("targets.file", T::Path, std::string(), kNoMin, kNoMax, "",
                         "Target points instead of the plane or box: .npy of shape (T, 3) x, y, z "
                         "(float32/float64) or CSV with columns x, y, z. Outputs have shape (T,), "
                         "in the file's order; headless runs also write outputs.csv. The window "
                         "draws planes and boxes only."));
  s.push_back(
      param_spec("precision", T::Enum, std::string("fp32"), kNoMin, kNoMax, "",
                 "fp32: fp32 terms summed per tile into fp64; fp64: terms and sums in double "
                 "(sources are stored as float32 in both).",
                 {"fp32", "fp64"}));
  s.push_back(param_spec(
      "method", T::Enum, std::string("auto"), kNoMin, kNoMax, "",
      "Summation: direct (every source-target pair), tree (fast multipole method to "
      "tree.tolerance, error measured at sampled targets) or auto (on the CPU direct up to 1e9 "
      "source-target pairs and tree above; on CUDA direct until its tree is proven on a GPU).",
      {"auto", "direct", "tree"}));
  s.push_back(param_spec("tree.tolerance", T::Float, 1e-5, 1e-7, 1e-3, "",
                         "Tree method: target relative RMS error of the field; sets the "
                         "expansion order and opening angle.",
                         {}, true));
  s.push_back(param_spec("tree.error_grid", T::Int, std::int64_t(0), 0, 64, "",
                         "Tree method: samples per side of the error view's subgrid (the "
                         "per-target error against fp64 direct sums); 0: automatic, 3..32 by "
                         "the source count (about 3e7 direct pairs)."));
  std::vector<std::string> views = output_names();
  views.push_back(error_output().name);
  s.push_back(param_spec("view", T::Enum, std::string("magnitude"), kNoMin, kNoMax, "",
                         "Output shown: field magnitude |E|, a component of E, the potential, "
                         "or (tree method) the relative error of |E| on a coarse subgrid.",
                         views));
  // With a source file, the generator's settings are not used.
  using C = ParamCondition;
  std::vector<UseRule> rules = {
      {{{"sources.file", C::Op::Set, ""}},
       {"sources.distribution", "sources.count", "sources.seed", "sources.half_width"},
       "settings of generated sources"},
      {{{"method", C::Op::Equals, "direct"}},
       {"tree.tolerance", "tree.error_grid"},
       "direct sums are exact"},
      {{{"targets.file", C::Op::Set, ""}},
       {"plane", "plane.offset", "grid.size", "grid.half_width", "tree.error_grid"},
       "the targets are the file's points"}};
  // The words of the field and of users' own code for these (refusals suggest the name).
  set_also(s, "k", {"factor"});
  set_also(s, "eps", {"epsilon", "softening"});
  set_also(s, "sources.count", {"n_sources", "nsources", "points"});
  set_also(s, "grid.size", {"resolution", "n_grid", "points"});  // points per side
  return Schema("field", std::move(s), std::move(rules));
}

}  // namespace

const Schema& schema() {
  static const Schema s = build();
  return s;
}

Grid grid_from(const ParamSet& p) {
  Grid g;
  const std::string& kind = p.get_string("plane");
  g.kind = kind == "xz"    ? PlaneKind::XZ
           : kind == "yz"  ? PlaneKind::YZ
           : kind == "box" ? PlaneKind::Box
                           : PlaneKind::XY;
  g.offset = p.get_double("plane.offset");
  g.size = int(p.get_int("grid.size"));
  g.half_width = p.get_double("grid.half_width");
  // Box: faces at +-|offset|, so that face 0 (-x) lies at negative x whatever the sign. A box
  // through the origin would put every face on the same planes: offset 0 means the cube.
  if (g.kind == PlaneKind::Box) g.offset = g.offset == 0 ? g.half_width : std::fabs(g.offset);
  return g;
}

Options options_from(const ParamSet& p) {
  Options o;
  o.k = p.get_double("k");
  o.eps = p.get_double("eps");
  o.precision = p.get_string("precision") == "fp64" ? Precision::Fp64 : Precision::Fp32;
  o.tolerance = p.get_double("tree.tolerance");
  return o;
}

Method method_from(const ParamSet& p) { return method_from_string(p.get_string("method")); }

SourceSpec source_spec_from(const ParamSet& p) {
  SourceSpec s;
  s.file = p.get_string("sources.file");
  s.distribution = p.get_string("sources.distribution");
  s.count = std::size_t(p.get_int("sources.count"));
  s.half_width = p.get_double("sources.half_width");
  s.seed = std::uint64_t(p.get_int("sources.seed"));
  return s;
}

Sources make_sources(const ParamSet& p) {
  return app::read_file_param("sources.file", [&] { return make_sources(source_spec_from(p)); });
}

std::size_t source_count(const ParamSet& p) {
  return app::read_file_param("sources.file", [&] { return source_count(source_spec_from(p)); });
}

Sources make_source_rows(const ParamSet& p, const IndexRange& rows) {
  return app::read_file_param("sources.file",
                              [&] { return make_source_rows(source_spec_from(p), rows); });
}

Settings settings_from(const ParamSet& p) {
  Settings s;
  s.grid = grid_from(p);
  s.targets_file = p.get_string("targets.file");
  s.sources = source_spec_from(p);
  s.options = options_from(p);
  s.method = method_from(p);
  s.error_grid = int(p.get_int("tree.error_grid"));
  s.view = p.get_string("view");
  return s;
}

Sources make_sources(const Settings& s) {
  return app::read_file_param("sources.file", [&] { return make_sources(s.sources); });
}

std::size_t source_count(const Settings& s) {
  return app::read_file_param("sources.file", [&] { return source_count(s.sources); });
}

Sources make_source_rows(const Settings& s, const IndexRange& rows) {
  return app::read_file_param("sources.file", [&] { return make_source_rows(s.sources, rows); });
}

}  // namespace simscope::field
