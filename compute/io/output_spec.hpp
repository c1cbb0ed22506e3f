#pragma once
/// @file One exported output of a workload, declared once in compute/.
/// Each workload's list, e.g. field::outputs(), gives its schema's `view` choices.
/// The run layer's workload descriptors in app/run take the same list as their outputs.
#include <string>
#include <vector>

#include "io/npy.hpp"

namespace simscope::io {

/// An output: file stem, colorbar label, unit and dtype of its .npy.
struct OutputSpec {
  std::string name;   ///< file stem, e.g. "magnitude"
  std::string label;  ///< for the colorbar, e.g. "|E|"
  std::string unit;   ///< e.g. "k*q/length^2"; empty: none
  DType dtype = DType::Float32;
};

/// The names of `outputs`, in order.
inline std::vector<std::string> output_names_of(const std::vector<OutputSpec>& outputs) {
  std::vector<std::string> names;
  for (const OutputSpec& o : outputs) names.push_back(o.name);
  return names;
}

/// The names of `outputs` joined by ", ", for messages such as "known: a, b, c".
inline std::string joined_names(const std::vector<OutputSpec>& outputs) {
  std::string s;
  for (const OutputSpec& o : outputs) s += (s.empty() ? "" : ", ") + o.name;
  return s;
}

}  // namespace simscope::io
