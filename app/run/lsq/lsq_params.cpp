// The lsq workload's parameter schema and its readers (lsq_params.hpp).
#include "lsq/lsq_params.hpp"

#include "core/error.hpp"
#include "lsq/cube_file.hpp"
#include "lsq/observed_mask.hpp"
#include "params/file_param.hpp"

namespace simscope::lsq {

namespace {

constexpr double kNoMin = 1, kNoMax = 0;  // min > max: no range

Schema build() {
  using T = ParamType;
  std::vector<ParamSpec> s;
  s.push_back(
      param_spec("data.file", T::Path, std::string(), kNoMin, kNoMax, "",
                 "Data cube: .npy of shape (M, H, W), float32 or float64, NaN = missing; needs "
                 "design.file. Empty uses the generator."));
  s.push_back(param_spec("data.mask", T::Path, std::string(), kNoMin, kNoMax, "",
                         "Observed entries of data.file: .npy of the cube's shape (M, H, W), "
                         "bool (or 0/1 integers), true where observed; where false the "
                         "observation is missing, as NaN in the cube. Empty: NaN alone marks "
                         "gaps."));
  s.push_back(param_spec("design.file", T::Path, std::string(), kNoMin, kNoMax, "",
                         "Design matrix A: .npy of shape (M, N) or CSV with M rows of N numbers. "
                         "Without data.file, synthetic data are made with this A."));
  s.push_back(param_spec("synth.height", T::Int, std::int64_t(256), 1, 8192, "pixels",
                         "Rows of the synthetic cube (H).", {}, true));
  s.push_back(param_spec("synth.width", T::Int, std::int64_t(256), 1, 8192, "pixels",
                         "Columns of the synthetic cube (W).", {}, true));
  s.push_back(param_spec("synth.observations", T::Int, std::int64_t(100), 1,
                         double(kMaxObservations), "",
                         "Observations per pixel (M, e.g. bands or time samples).", {}, true));
  s.push_back(param_spec("synth.unknowns", T::Int, std::int64_t(50), 1, double(kMaxUnknowns), "",
                         "Unknowns per pixel (N, columns of the synthetic A)."));
  s.push_back(
      param_spec("synth.nan_fraction", T::Float, 0.2, 0, 1, "",
                 "Fraction of the synthetic cube's entries set to NaN (missing), at random."));
  s.push_back(param_spec("synth.noise", T::Float, 0.01, 0, 1e6, "",
                         "Standard deviation of the Gaussian noise added to the synthetic data."));
  s.push_back(param_spec("synth.seed", T::Int, std::int64_t(1), 0, 9007199254740992.0, "",
                         "Seed of the generator (maps, design, noise and gaps)."));
  s.push_back(
      param_spec("synth.design", T::Enum, std::string("random"), kNoMin, kNoMax, "",
                 "Synthetic A: standard normal entries, Legendre polynomials, or overlapping "
                 "Gaussian bands.",
                 {"random", "polynomial", "gaussian_bands"}));
  s.push_back(
      param_spec("method", T::Enum, std::string("auto"), kNoMin, kNoMax, "",
                 "auto: per pixel the cheapest of downdate, Cholesky + refinement and the "
                 "row-Gram minimum-norm path, SVD where ill-conditioned; normal: Cholesky "
                 "only; downdate: Sherman-Morrison-Woodbury downdate of A^T A (CPU); qr / svd: "
                 "per-pixel QR or SVD (slow). Rank-deficient pixels always get the minimum-norm "
                 "solution.",
                 {"auto", "normal", "qr", "svd", "downdate"}));
  s.push_back(
      param_spec("lambda", T::Float, 0.0, 0, 1e12, "",
                 "Tikhonov (ridge) regularisation weight: minimise |A x - b|^2 + lambda |x|^2 "
                 "(0: none). Its unit is the square of the design matrix A's (none for a "
                 "dimensionless A, as the synthetic designs are)."));
  s.push_back(param_spec("precision", T::Enum, std::string("fp64"), kNoMin, kNoMax, "",
                         "Working precision of the Gram path's matrices and Cholesky factors "
                         "(vectors and the refinement are float64; the downdate and minimum-norm "
                         "paths are float64 in either precision; fp32 sums gap-free pixels' "
                         "solutions from float32 products): fp64 ~1e-12 relative error, fp32 "
                         "~1e-7 (a float32 solution) on well-conditioned pixels.",
                         {"fp32", "fp64"}));
  s.push_back(
      param_spec("view", T::Enum, std::string("solution"), kNoMin, kNoMax, "",
                 "Map shown: a component of the solution, the RMS residual, the observed count, "
                 "the status (0 ok, 1 underdetermined, 2 rank-deficient, 3 all missing) or the "
                 "condition estimate.",
                 io::output_names_of(outputs())));
  s.push_back(param_spec("view.component", T::Int, std::int64_t(0), 0, double(kMaxUnknowns - 1), "",
                         "Which unknown x_k the solution view shows (0-based)."));
  // The inputs override the generator (make_problem). data.file overrides every synth.*
  // setting; design.file alone overrides the design's shape and kind, since A gives M and N.
  using C = ParamCondition;
  std::vector<UseRule> rules = {
      {{{"data.file", C::Op::Set, ""}},
       {"synth.height", "synth.width", "synth.observations", "synth.unknowns", "synth.nan_fraction",
        "synth.noise", "synth.seed", "synth.design"},
       "they make the synthetic cube, which the given cube replaces"},
      {{{"design.file", C::Op::Set, ""}, {"data.file", C::Op::Unset, ""}},
       {"synth.observations", "synth.unknowns", "synth.design"},
       "the synthetic data take M, N and A from design.file"},
      {{{"data.file", C::Op::Unset, ""}},
       {"data.mask"},
       "it masks data.file's cube; synthetic cubes have their gaps from synth.nan_fraction"},
      {{{"view", C::Op::NotEquals, "solution"}},
       {"view.component"},
       "it picks the unknown x_k that the solution view shows"}};
  // The words of the field and of users' own code for these (refusals suggest the name).
  set_also(s, "lambda", {"lam", "ridge", "alpha", "regularization"});
  set_also(s, "synth.observations", {"n_obs", "n_observations"});
  set_also(s, "synth.unknowns", {"n_unknowns", "n_params"});
  return Schema("lsq", std::move(s), std::move(rules));
}

}  // namespace

const Schema& schema() {
  static const Schema s = build();
  return s;
}

Options options_from(const ParamSet& p) {
  Options o;
  const std::string& m = p.get_string("method");
  o.method = m == "normal"     ? Method::Normal
             : m == "qr"       ? Method::Qr
             : m == "svd"      ? Method::Svd
             : m == "downdate" ? Method::Downdate
                               : Method::Auto;
  o.precision = p.get_string("precision") == "fp32" ? Precision::Fp32 : Precision::Fp64;
  o.lambda = p.get_double("lambda");
  o.float32_solution = o.precision == Precision::Fp32;  // exported as float32: written so
  return o;
}

Synth make_problem(const ParamSet& p) {
  const std::string& data = p.get_string("data.file");
  const std::string& design = p.get_string("design.file");
  if (!data.empty()) {
    // The data file first (its header only: the cube is read last): a missing or unreadable
    // cube is named before design.file is asked for or read.
    app::read_file_param("data.file", [&] {
      check_cube_file(data);
      return 0;
    });
    if (design.empty())
      throw Error("design.file: needed with data.file (the (M, N) design matrix A)");
    Synth s;
    s.design = app::read_file_param("design.file", [&] { return load_design(design); });
    // The mask first: an entry it marks missing is missing whatever it holds (inf included),
    // as simscope.lsq(cube, A, mask=...) solves it; then inf is refused where observed.
    const std::string& mask = p.get_string("data.mask");
    s.cube = app::read_file_param("data.file", [&] { return load_cube(data, mask.empty()); });
    if (!mask.empty()) {
      app::read_file_param("data.mask", [&] {
        apply_observed_mask(s.cube, io::read_npy(mask, "bool (or 0/1 integers)"), mask);
        return 0;
      });
      app::read_file_param("data.file", [&] {
        refuse_inf_entries(s.cube, data);
        return 0;
      });
    }
    if (s.cube.m != s.design.m)
      throw Error(data + " has M = " + std::to_string(s.cube.m) + " observations per pixel but " +
                  design + " has " + std::to_string(s.design.m) +
                  " rows; A must have shape (M, N) with the cube's M");
    return s;
  }
  SynthSpec spec;
  spec.height = std::size_t(p.get_int("synth.height"));
  spec.width = std::size_t(p.get_int("synth.width"));
  spec.m = std::size_t(p.get_int("synth.observations"));
  spec.n = std::size_t(p.get_int("synth.unknowns"));
  spec.nan_fraction = p.get_double("synth.nan_fraction");
  spec.noise = p.get_double("synth.noise");
  spec.seed = std::uint64_t(p.get_int("synth.seed"));
  spec.design = p.get_string("synth.design");
  if (!design.empty()) {
    const Design d = app::read_file_param("design.file", [&] { return load_design(design); });
    return generate(spec, &d);
  }
  return generate(spec);
}

}  // namespace simscope::lsq
