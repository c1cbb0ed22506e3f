#pragma once
/// @file The working precision shared by all workloads, so it means the same to every front end.
/// Each workload documents what it computes in: field.hpp, lsq.hpp, oscillators.hpp.
/// Schema strings: "fp32" and "fp64".
namespace simscope {

enum class Precision { Fp32, Fp64 };

/// "fp32" or "fp64", as in the schema.
const char* to_string(Precision p);

}  // namespace simscope
