#pragma once
/// @file Where an lsq run's method ran, in words, for LsqWorkload::status_note and the GUI's
/// status bar. run.json carries the same fact as stats "method_on_host" and "host_pixels".
#include <string>

#include "workload.hpp"

namespace simscope::app {

/// A note for a run whose method ran all or part of its work on the host although the CUDA
/// back end was selected, i.e. stats "method_on_host" = 1: lsq's per-pixel qr and svd, and the
/// downdate. Example: "method qr ran on the host (CPU) for 812 of 4096 pixels, not on CUDA".
/// Empty for every other run. The method is the parameter "method" when the schema has one;
/// the pixel counts come from stats "host_pixels" and "pixels" when the result has them.
std::string method_on_host_note(const RunResult& r);

}  // namespace simscope::app
