#pragma once
/// @file The doubles one SIMD register holds at the instruction-set level that the including
/// kernel file is compiled for (core/isa.hpp): 8 at x86-64-v4 (AVX-512), 4 at v3 (AVX2), 2 at
/// v2 and baseline (SSE2). Lane groups of this width stay in registers; wider GCC vectors are
/// split through the stack and stall on store forwarding (tests/bench/NOTES.md,
/// "Instruction-set levels"). Each unit gets its own value (internal linkage).

namespace simscope {

#if defined(__AVX512F__)
constexpr int kRegisterDoubles = 8;
#elif defined(__AVX__)
constexpr int kRegisterDoubles = 4;
#else
constexpr int kRegisterDoubles = 2;
#endif

}  // namespace simscope
