// The headless interop path end to end: the CUDA field evaluator computes a plane, the plane goes
// into a GL pixel buffer through InteropBuffer (CUDA-GL interop on the EGL device platform, the
// device->host copy elsewhere), is read back from GL and exported as .npy; that file must equal
// the CPU back end's plane within the field's error bound. Skips where no CUDA device is usable.
#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "field/field.hpp"
#include "io/npy.hpp"
#include "render/interop_buffer.hpp"
#include "render_test_support.hpp"
#include "../compute/test_cuda_skip.hpp"

namespace simscope::render {
namespace {

using test::RenderTest;

/// max |a - b| / max |ref| (the field tests' plane error).
double plane_error(const std::vector<float>& a, const std::vector<float>& ref) {
  double d = 0, m = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    d = std::max(d, std::fabs(double(a[i]) - double(ref[i])));
    m = std::max(m, std::fabs(double(ref[i])));
  }
  return m > 0 ? d / m : d;
}

std::vector<float> npy_floats(const std::string& path) {
  const io::NpyArray a = io::read_npy(path);
  EXPECT_EQ(a.dtype, io::DType::Float32);
  std::vector<float> v(a.data.size() / sizeof(float));
  std::memcpy(v.data(), a.data.data(), v.size() * sizeof(float));
  return v;
}

TEST_F(RenderTest, FieldPlaneFromCudaThroughGlBufferEqualsCpu) {
  SKIP_WITHOUT_CUDA();
  // 20,000 Gaussian-blob sources on a 96 x 96 xy plane through the blobs (odd sizes on purpose).
  const field::Sources sources = field::generate_sources("gaussian", 20000, 1.0, 7);
  field::Grid grid;
  grid.size = 96;
  grid.offset = 0.05;
  const field::Targets targets = field::make_targets(grid);
  field::Options options;
  options.eps = 1e-3;
  const size_t n = targets.size();

  field::Result cpu, cuda, ref;
  field::make_evaluator(Backend::Cpu)->evaluate(sources, targets, options, cpu);
  auto gpu = field::make_evaluator(Backend::Cuda);
  gpu->evaluate(sources, targets, options, cuda);
  // fp32 mode rounds the targets to fp32 (field.hpp): the float64 reference gets the same points.
  field::Targets rounded = targets;
  for (auto* v : {&rounded.x, &rounded.y, &rounded.z})
    for (double& c : *v) c = double(float(c));
  field::evaluate_reference(sources, rounded, options, ref);

  for (const std::string name : {"magnitude", "ex", "potential"}) {
    const std::shared_ptr<const float> device = gpu->device_output(name);
    ASSERT_NE(device, nullptr) << name;
    InteropBuffer buffer;
    buffer.upload_device(device.get(), n);  // what PlaneView::set_data_device does
    if (context_->vendor().find("NVIDIA") != std::string::npos)  // else Mesa: the host copy
      EXPECT_EQ(buffer.path(), "cuda-gl interop") << buffer.fallback_reason();
    std::vector<float> from_gl(n);
    glGetNamedBufferSubData(buffer.gl_buffer(), 0, GLsizeiptr(n * sizeof(float)), from_gl.data());
    ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));

    const std::string dir = SIMSCOPE_RENDER_TEST_OUT;
    const std::string gl_path = dir + "/interop_field_" + name + "_cuda.npy";
    const std::string cpu_path = dir + "/interop_field_" + name + "_cpu.npy";
    io::write_npy(gl_path, from_gl.data(), field::grid_shape(grid));
    io::write_npy(cpu_path, field::output(cpu, name).data(), field::grid_shape(grid));
    const std::vector<float> exported = npy_floats(gl_path);
    const std::vector<float> expected = npy_floats(cpu_path);
    ASSERT_EQ(exported.size(), n);
    // The GL buffer holds exactly what the evaluator copied to the host.
    EXPECT_EQ(exported, field::output(cuda, name)) << name;
    // Each back end is within 1e-6 of float64 (field.hpp's bound), so they agree within 2e-6.
    EXPECT_LE(plane_error(exported, field::output(ref, name)), 1e-6) << name;
    EXPECT_LE(plane_error(exported, expected), 2e-6) << name;
    std::printf("[ info ] %s: path %s, vs CPU %.2e, vs float64 %.2e\n", name.c_str(),
                buffer.path().c_str(), plane_error(exported, expected),
                plane_error(exported, field::output(ref, name)));
  }
}

}  // namespace
}  // namespace simscope::render
