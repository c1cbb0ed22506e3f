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

/// The OpenMP back end (field_cpu.cpp).
std::unique_ptr<Evaluator> make_cpu_evaluator();

/// The CUDA back end (field_cuda.cu); only linked when SIMSCOPE_HAVE_CUDA.
std::unique_ptr<Evaluator> make_cuda_evaluator();

/// Resizes the five output vectors of `out` to n.
void resize_outputs(Result& out, std::size_t n);

}  // namespace simscope::field::detail
