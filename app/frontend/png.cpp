#include "png.hpp"

#include <png.h>

#include <algorithm>

#include "core/error.hpp"
#include "io/atomic_file.hpp"

namespace simscope::app {
namespace {

[[noreturn]] void on_png_error(png_structp png, png_const_charp message) {
  *static_cast<std::string*>(png_get_error_ptr(png)) = message;
  png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

bool ascii(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (unsigned char)c < 0x80; });
}

}  // namespace

void write_png(const std::string& path, const std::vector<std::uint8_t>& rgba, int width,
               int height, const std::map<std::string, std::string>& text) {
  if (width <= 0 || height <= 0 || rgba.size() != std::size_t(width) * height * 4)
    throw Error(path + ": internal error: image buffer size does not match " +
                std::to_string(width) + "x" + std::to_string(height));
  io::AtomicFile out(path);
  std::string why;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &why, on_png_error,
                                            on_png_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    throw Error(path + ": cannot write PNG (out of memory)");
  }
  // Kept outside the setjmp scope: libpng's longjmp must not skip their destructors.
  std::vector<png_text> chunks;
  std::vector<png_bytep> rows(static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y)
    rows[std::size_t(y)] = const_cast<png_bytep>(rgba.data() + std::size_t(y) * width * 4);
  for (const auto& [key, value] : text) {
    png_text t{};
    t.compression = ascii(value) ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
    t.key = const_cast<png_charp>(key.c_str());
    t.text = const_cast<png_charp>(value.c_str());
    t.text_length = t.compression == PNG_TEXT_COMPRESSION_NONE ? value.size() : 0;
    t.itxt_length = t.compression == PNG_TEXT_COMPRESSION_NONE ? 0 : value.size();
    chunks.push_back(t);
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw Error(path + ": cannot write PNG (" + why + ")");
  }
  png_init_io(png, out.file());
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8, PNG_COLOR_TYPE_RGBA,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (!chunks.empty()) png_set_text(png, info, chunks.data(), int(chunks.size()));
  png_set_rows(png, info, rows.data());
  png_write_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
  png_destroy_write_struct(&png, &info);
  out.commit();
}

}  // namespace simscope::app
