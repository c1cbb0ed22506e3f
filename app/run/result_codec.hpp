#pragma once
/// @file A RunResult as bytes, to send a work range's result from one process to another
/// (distributed_run.hpp): workload, back end, outputs (spec, shape, values bit for bit),
/// warnings, stats, timings and RangePart. Not the parameters (every rank has them), nor the
/// payload or device memory (host results only). Little-endian, this build's layout: for
/// processes of one job, not a file format.
#include <string>

#include "workload.hpp"

namespace simscope::app {

/// The bytes of `r` (its outputs' host values).
std::string encode_result(const RunResult& r);

/// The result encoded in `bytes`, with `params` as its parameters. Throws simscope::Error
/// "a work range's result is truncated or corrupt" when the bytes are not encode_result's.
RunResult decode_result(const std::string& bytes, const ParamSet& params);

}  // namespace simscope::app
