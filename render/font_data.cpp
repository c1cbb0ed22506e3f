// The embedded TTF (font_data.hpp): the assembler's .incbin copies the file named by
// SIMSCOPE_VIEW_FONT_FILE into read-only data.
#include "render/font_data.hpp"

#ifndef SIMSCOPE_VIEW_FONT_FILE
#error "SIMSCOPE_VIEW_FONT_FILE must name the TTF file to embed"
#endif

#define SIMSCOPE_STR2(x) #x
#define SIMSCOPE_STR(x) SIMSCOPE_STR2(x)

asm(".section .rodata\n"
    ".balign 16\n"
    ".global simscope_view_font_begin\n"
    "simscope_view_font_begin:\n"
    ".incbin \"" SIMSCOPE_STR(SIMSCOPE_VIEW_FONT_FILE) "\"\n"
    ".global simscope_view_font_end\n"
    "simscope_view_font_end:\n"
    ".byte 0\n"
    ".previous\n");

extern "C" const unsigned char simscope_view_font_begin[];
extern "C" const unsigned char simscope_view_font_end[];

namespace simscope::render {

std::span<const unsigned char> view_font_ttf() {
  return {simscope_view_font_begin, simscope_view_font_end};
}

}  // namespace simscope::render
