#include "render_test_support.hpp"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace simscope::render::test {

std::string save_png(const Image& image, const std::string& name) {
  const std::string path = std::string(SIMSCOPE_RENDER_TEST_OUT) + "/" + name;
  if (stbi_write_png(path.c_str(), image.w, image.h, 4, image.rgba.data(), image.w * 4) == 0) {
    ADD_FAILURE() << "could not write " << path;
  }
  return path;
}

}  // namespace simscope::render::test
