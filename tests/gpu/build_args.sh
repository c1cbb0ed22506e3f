# shellcheck shell=bash
# The GPU run's build, shared by run.sh (there), run.sh --plan and build_costs.sh (here):
# gpu_build_args, the configure flags every machine gives, and gpu_build_targets, the targets
# the run uses (nothing else is built there).
# One instruction-set level (SIMSCOPE_NATIVE=ON): the CPU kernels compile once, not three times;
# the run checks the CUDA paths against them, not the levels (CI's setup.isa_symbols and
# test_isa do that).
gpu_build_args=(-DCMAKE_BUILD_TYPE=Release -DSIMSCOPE_APP=OFF -DSIMSCOPE_NATIVE=ON)
# test_compute and test_render (ctest -L 'compute|render', the field kernels, the sanitizer),
# the interop bench (its smoke test and the bench step), test_split_merge (the run layer's
# CudaBackend.*), the Python module (pytest -k cuda) and simscope-bench.
gpu_build_targets=(test_compute test_render simscope-interop-bench test_split_merge
                   simscope_python simscope-bench)
