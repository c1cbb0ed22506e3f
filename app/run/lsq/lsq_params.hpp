#pragma once
/// @file The lsq workload's parameter schema and the readers that turn a ParamSet of it into
/// compute/lsq's Options and problem.
#include "lsq/lsq.hpp"
#include "params/schema.hpp"

namespace simscope::lsq {

/// The lsq workload's parameters: data.file, design.file, synth.height, synth.width,
/// synth.observations, synth.unknowns, synth.nan_fraction, synth.noise, synth.seed,
/// synth.design, method, lambda, precision, view, view.component.
const Schema& schema();

/// Options from a validated ParamSet of schema().
Options options_from(const ParamSet& p);

/// The problem a ParamSet asks for: data.file with design.file when data.file is set, and both
/// are needed; the generator with design.file's A when only design.file is set; else the
/// generator alone. `truth` is empty for file data. Throws simscope::Error as the loaders do;
/// a data.file that cannot be read is named before a missing or unreadable design.file.
Synth make_problem(const ParamSet& p);

}  // namespace simscope::lsq
