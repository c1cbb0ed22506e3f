#pragma once
/// @file Internals of the field workload shared by its .cpp/.cu files. Not a public API.
#include <cstdint>
#include <memory>

#include "field/field.hpp"

namespace simscope::field::detail {

/// Returns a fresh, never-zero Sources::generation value from a process-wide atomic counter.
std::uint64_t next_generation();

/// Throws simscope::Error unless k is finite and eps is finite and >= 0.
void validate(const Options& options);

/// The checks every evaluator makes first: validate(options), then resolves `range` against
/// the targets. Throws simscope::Error when it is not within [0, targets.size()). Returns the
/// resolved range.
IndexRange checked_range(const Options& options, const Targets& targets, const IndexRange& range);

/// Writes target i's five outputs into `out` from the fp64 sums acc[0..2] = sum q (x - y) / r^3
/// and acc[3] = sum q / r, the evaluators' accumulator convention: E = -k acc[0..2], |E|,
/// phi = k acc[3].
void finalize(const double* acc, double k, Result& out, std::size_t i);

/// The OpenMP back end, in field_cpu.cpp.
std::unique_ptr<Evaluator> make_cpu_evaluator();

/// The CUDA back end, in field_cuda.cu. Linked only with SIMSCOPE_HAVE_CUDA.
std::unique_ptr<Evaluator> make_cuda_evaluator();

/// Resizes the five output vectors of `out` to n and marks it a direct result: method Direct,
/// tree statistics cleared. The tree evaluator sets its own afterwards.
void resize_outputs(Result& out, std::size_t n);

/// The local origin of an evaluation, computed in origin.cpp. Fp32 evaluators take targets and
/// sources relative to it: each difference in fp64, then rounded to fp32. The fp32 rounding
/// error is then relative to distances within the data, not to the coordinates.
struct Origin {
  double x = 0, y = 0, z = 0;
  bool is_zero() const { return x == 0 && y == 0 && z == 0; }
};

/// The origin rule shared by every back end, so that their results agree. Per axis: the centre
/// of the targets' bounding box on that axis when it lies more than 2 R from 0, else 0. R is
/// the largest half-extent of the bounding box over the three axes. All zero for
/// Precision::Fp64, where unshifted differences of fp64 targets and fp32 sources are most exact,
/// and for no targets. Zero on an axis whose centre is not finite.
/// Example: a plane centred at (0, 0, +-1000) with R = 995 stays unshifted and bit-identical; a
/// plane of half width 0.001 at x = 1e6 gets the origin (1e6 + 0.01, 0, 0). Where 0 is kept,
/// unshifted targets are at most 3 R in magnitude, so their fp32 rounding is within a factor 3
/// of the shifted one's.
Origin local_origin(const Targets& targets, Precision precision);
/// The same rule from the targets' bounding box, for `count` targets held in device memory.
/// lo[c] and hi[c] are the smallest and largest coordinates on axis c.
Origin local_origin(const double lo[3], const double hi[3], std::size_t count, Precision precision);

}  // namespace simscope::field::detail
