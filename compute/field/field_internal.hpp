#pragma once
/// @file Internals of the field workload shared by its .cpp/.cu files (not a public API).
#include <cstdint>
#include <memory>

#include "field/field.hpp"

namespace simscope::field::detail {

/// A fresh, never-zero Sources::generation value (process-wide atomic counter).
std::uint64_t next_generation();

/// Throws simscope::Error unless k is finite and eps is finite and >= 0.
void validate(const Options& options);

/// The checks every evaluator makes first: validate(options), then `range` resolved against
/// the targets (resolve(): Error when it is not within [0, targets.size())). Returns the range.
IndexRange checked_range(const Options& options, const Targets& targets, const IndexRange& range);

/// Writes target i's five outputs into `out` from the fp64 sums acc[0..3] = sum q (x - y) / r^3,
/// sum q / r (the evaluators' accumulator convention): E = -k acc[0..2], |E|, phi = k acc[3].
void finalize(const double* acc, double k, Result& out, std::size_t i);

/// The OpenMP back end (field_cpu.cpp).
std::unique_ptr<Evaluator> make_cpu_evaluator();

/// The CUDA back end (field_cuda.cu); only linked when SIMSCOPE_HAVE_CUDA.
std::unique_ptr<Evaluator> make_cuda_evaluator();

/// Resizes the five output vectors of `out` to n, and marks it a direct result (method Direct,
/// tree statistics cleared; the tree evaluator sets its own afterwards).
void resize_outputs(Result& out, std::size_t n);

/// The local origin of an evaluation (origin.cpp): fp32 evaluators compute at the targets and
/// sources relative to it, each difference taken in fp64 and then rounded to fp32, so that the
/// fp32 rounding error is relative to the distances within the data, not to the coordinates.
struct Origin {
  double x = 0, y = 0, z = 0;
  bool is_zero() const { return x == 0 && y == 0 && z == 0; }
};

/// The origin rule shared by every back end (their results must agree): per axis, the centre of
/// the targets' bounding box on that axis when it lies more than 2 R from 0 (R: the largest
/// half-extent of the bounding box over the three axes), else 0; all zero for Precision::Fp64
/// (differences of fp64 targets and fp32 sources are most exact unshifted), for no targets, and
/// on an axis whose centre is not finite. Hence the seed's planes (centre (0, 0, +-1000), R = 995)
/// keep the unshifted, bit-identical arithmetic, while a plane of half width 0.001 at x = 1e6
/// gets the origin (1e6 + 0.01, 0, 0). Where 0 is kept, the unshifted target coordinates are at
/// most 3 R in magnitude, so their fp32 rounding is within a factor 3 of the shifted one's.
Origin local_origin(const Targets& targets, Precision precision);
/// The same rule from the targets' bounding box (lo[c], hi[c]: the smallest and largest
/// coordinate on axis c of `count` targets), for targets held in device memory.
Origin local_origin(const double lo[3], const double hi[3], std::size_t count, Precision precision);

}  // namespace simscope::field::detail
