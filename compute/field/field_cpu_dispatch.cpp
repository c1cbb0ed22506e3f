// The dispatch point of the direct sum's CPU kernels: the evaluator of the active
// instruction-set level (core/isa.hpp), each compiled from field_cpu.cpp.
#include "core/isa.hpp"
#include "field/field_internal.hpp"

namespace simscope::field::detail {

SIMSCOPE_ISA_DECLARE(std::unique_ptr<Evaluator> make_cpu_evaluator())

std::unique_ptr<Evaluator> make_cpu_evaluator() {
  SIMSCOPE_ISA_DISPATCH("field's direct sum", make_cpu_evaluator());
}

}  // namespace simscope::field::detail
