#pragma once
/// @file One exported output of a workload as compute/ declares it, once: each workload's list
/// (field::outputs(), lsq::outputs()) gives its schema's `view` choices, and the run layer's
/// workload descriptors (app/run) take it as their outputs, so an output is named in one place.
#include <string>
#include <vector>

#include "io/npy.hpp"

namespace simscope::io {

/// An output: file stem, colorbar label, unit, dtype of its .npy.
struct OutputSpec {
  std::string name;   ///< file stem, e.g. "magnitude"
  std::string label;  ///< for the colorbar, e.g. "|E|"
  std::string unit;   ///< e.g. "k*q/length^2"; empty: none
  DType dtype = DType::Float32;
};

/// The names of `outputs`, in their order.
inline std::vector<std::string> output_names_of(const std::vector<OutputSpec>& outputs) {
  std::vector<std::string> names;
  for (const OutputSpec& o : outputs) names.push_back(o.name);
  return names;
}

/// The names of `outputs` joined by ", " (for messages: "known: a, b, c").
inline std::string joined_names(const std::vector<OutputSpec>& outputs) {
  std::string s;
  for (const OutputSpec& o : outputs) s += (s.empty() ? "" : ", ") + o.name;
  return s;
}

}  // namespace simscope::io
