#pragma once
/// @file A RunResult as bytes, for sending a work range's result between processes.
/// Holds workload, back end, outputs (spec, shape, values bit for bit), warnings, stats, timings
/// and RangePart. Leaves out the parameters, which every rank has, the payload and device memory.
/// Little-endian in this build's layout: for processes of one job, not a file format.
#include <string>

#include "workload.hpp"

namespace simscope::app {

/// The bytes of `r`, with its outputs' host values.
std::string encode_result(const RunResult& r);

/// Decodes `bytes` into a result with `params` as its parameters.
/// Throws simscope::Error "a work range's result is truncated or corrupt" when the bytes are not
/// encode_result's.
RunResult decode_result(const std::string& bytes, const ParamSet& params);

}  // namespace simscope::app
