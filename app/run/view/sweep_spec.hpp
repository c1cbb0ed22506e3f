#pragma once
/// @file A parameter sweep: one numeric parameter stepped from START to STOP over FRAMES runs.
/// Used by --sweep NAME=START:STOP:FRAMES and the window's sweep panel.
#include <string>
#include <vector>

#include "params/schema.hpp"

namespace simscope::app {

/// A sweep: `param` from `start` to `stop` in `frames` evenly spaced values, both ends included.
struct SweepSpec {
  std::string param;
  double start = 0, stop = 0;
  int frames = 0;  ///< >= 2
};

/// Parses "NAME=START:STOP:FRAMES", FRAMES an integer 2 ... 100000.
/// Throws simscope::Error "--sweep expects NAME=START:STOP:FRAMES ..." naming the text.
SweepSpec parse_sweep(const std::string& text);

/// The sweep's parameter sets: `base` with the parameter at each value.
/// Int parameters are rounded to the nearest integer. Throws simscope::Error naming the parameter
/// when it is not an Int or Float parameter of the schema, or a value is outside its range.
std::vector<ParamSet> sweep_params(const ParamSet& base, const SweepSpec& spec);

/// Caption for frame k (0-based): "NAME = VALUE  (frame k+1 of FRAMES)".
std::string sweep_caption(const SweepSpec& spec, const ParamSet& frame, std::size_t k);

}  // namespace simscope::app
