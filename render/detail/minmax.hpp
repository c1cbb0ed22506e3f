#pragma once
/// @file Internal: the range of a GL float buffer, reduced on the GPU (shaders/minmax.comp).
#include <glad/gl.h>

#include <cstddef>
#include <memory>

namespace simscope::render::detail {

/// Result of MinMax::reduce(). When finite_count == 0 the other members are meaningless;
/// when has_positive is false there is no finite value > 0.
struct DataRange {
  double min = 0, max = 0;  ///< of the finite values
  double min_positive = 0;  ///< smallest finite value > 0
  bool has_positive = false;
  size_t finite_count = 0;
};

/// A compute-shader reduction over a buffer of floats; the only readback is 16 bytes.
class MinMax {
 public:
  MinMax();  ///< needs a current GL 4.5 context
  ~MinMax();
  MinMax(const MinMax&) = delete;
  MinMax& operator=(const MinMax&) = delete;

  /// The range of the first `count` floats of GL buffer `buffer`. Throws RenderError.
  DataRange reduce(GLuint buffer, size_t count);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simscope::render::detail
