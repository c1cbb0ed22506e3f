// The dispatch point of lsq's CPU solver (the lane-group Cholesky, Gram and path kernels of
// lsq/cpu/): the active instruction-set level's (core/isa.hpp).
#include "core/isa.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq::detail {

SIMSCOPE_ISA_DECLARE(std::unique_ptr<Solver> make_cpu_solver())

std::unique_ptr<Solver> make_cpu_solver() { SIMSCOPE_ISA_DISPATCH("lsq", make_cpu_solver()); }

}  // namespace simscope::lsq::detail
