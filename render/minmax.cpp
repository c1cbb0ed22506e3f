#include "render/detail/minmax.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "render/detail/gl_check.hpp"
#include "render/detail/shader.hpp"
#include "render/error.hpp"

namespace simscope::render::detail {

namespace {

float from_key(uint32_t key) {
  const uint32_t bits = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

}  // namespace

struct MinMax::Impl {
  ShaderProgram program{"minmax.comp"};
  GLint count_loc = program.uniform("u_count");
  GLuint result = 0;
};

MinMax::MinMax() : impl_(std::make_unique<Impl>()) {
  glCreateBuffers(1, &impl_->result);
  glNamedBufferStorage(impl_->result, 4 * sizeof(uint32_t), nullptr, GL_DYNAMIC_STORAGE_BIT);
  check_gl("creating the min/max result buffer");
}

MinMax::~MinMax() {
  if (impl_ && impl_->result != 0) glDeleteBuffers(1, &impl_->result);
}

DataRange MinMax::reduce(GLuint buffer, size_t count) {
  if (count > 0xffffffffu) throw RenderError("min/max: more than 2^32 values");
  const uint32_t init[4] = {0xffffffffu, 0u, 0xffffffffu, 0u};
  glNamedBufferSubData(impl_->result, 0, sizeof init, init);
  glUseProgram(impl_->program.id());
  glUniform1ui(impl_->count_loc, static_cast<GLuint>(count));
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, buffer, 0,
                    static_cast<GLsizeiptr>(std::max<size_t>(count, 1) * sizeof(float)));
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, impl_->result);
  const size_t groups = std::clamp<size_t>((count + 255) / 256, 1, 1024);
  glDispatchCompute(static_cast<GLuint>(groups), 1, 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  uint32_t out[4] = {};
  glGetNamedBufferSubData(impl_->result, 0, sizeof out, out);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, 0);
  glUseProgram(0);
  check_gl("min/max reduction (compute shader)");
  DataRange r;
  r.finite_count = out[3];
  if (r.finite_count > 0) {
    r.min = from_key(out[0]);
    r.max = from_key(out[1]);
  }
  r.has_positive = out[2] != 0xffffffffu;
  if (r.has_positive) r.min_positive = from_key(out[2]);
  return r;
}

}  // namespace simscope::render::detail
