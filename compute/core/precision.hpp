#pragma once
/// @file The working precision of every workload (field, lsq, oscillators): one type, so that a
/// run's precision means the same thing to every front end. What each precision computes in is
/// documented by each workload (field.hpp, lsq.hpp, oscillators.hpp); the schema strings are
/// "fp32" and "fp64".
namespace simscope {

enum class Precision { Fp32, Fp64 };

/// "fp32" or "fp64" (the schema's strings).
const char* to_string(Precision p);

}  // namespace simscope
