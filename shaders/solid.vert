#version 450 core
// Coloured triangles in viewport pixels (origin bottom-left): text glyph quads, ticks, frames.
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_color;
uniform vec2 u_viewport;
out vec4 v_color;

void main() {
  v_color = a_color;
  gl_Position = vec4(a_pos / u_viewport * 2.0 - 1.0, 0.0, 1.0);
}
