#version 450 core
// The scalar plane through a colormap (u_mode 0), or the colorbar's gradient (u_mode 1).
// Data texture: R32F, width = cols (index j), height = rows (index i); element (i, j) is drawn
// at horizontal position i and vertical position j, so the texture is read transposed.
in vec2 v_uv;
out vec4 frag_color;

layout(binding = 0) uniform sampler2D u_data;
layout(binding = 1) uniform sampler1D u_cmap;  // 256 RGB entries, fetched without filtering
uniform int u_mode;         // 0: data, 1: colorbar (t = v_uv.y)
uniform bool u_log;         // log10 scale
uniform vec2 u_range;       // (lo, hi): data units, or log10 of them in log scale
uniform vec3 u_nan_color;   // colour of NaN samples
uniform vec4 u_window;      // zoom: (u0, v0, du, dv), the shown part of the data in [0, 1]

// Linear interpolation between table entries, as Colormap::sample() does on the CPU.
vec3 colormap(float t) {
  float x = clamp(t, 0.0, 1.0) * 255.0;
  int k = min(int(floor(x)), 254);
  float f = x - float(k);
  return mix(texelFetch(u_cmap, k, 0).rgb, texelFetch(u_cmap, k + 1, 0).rgb, f);
}

void main() {
  if (u_mode == 1) {
    frag_color = vec4(colormap(v_uv.y), 1.0);
    return;
  }
  ivec2 size = textureSize(u_data, 0);  // (cols, rows)
  vec2 uv = u_window.xy + v_uv * u_window.zw;
  int i = clamp(int(floor(uv.x * float(size.y))), 0, size.y - 1);
  int j = clamp(int(floor(uv.y * float(size.x))), 0, size.x - 1);
  float v = texelFetch(u_data, ivec2(j, i), 0).r;
  // NaN / Inf tests on the bits: immune to compilers that assume finite floats.
  uint bits = floatBitsToUint(v) & 0x7fffffffu;
  if (bits > 0x7f800000u) {
    frag_color = vec4(u_nan_color, 1.0);
    return;
  }
  float t;
  if (bits == 0x7f800000u) {
    t = v > 0.0 ? 1.0 : 0.0;                 // +-Inf: top or bottom colour
  } else if (u_log) {
    // Values <= 0 have no logarithm: they take the bottom colour, like values below the range.
    t = v > 0.0 ? (log2(v) * 0.30102999566398120 - u_range.x) / (u_range.y - u_range.x) : 0.0;
  } else {
    t = (v - u_range.x) / (u_range.y - u_range.x);
  }
  frag_color = vec4(colormap(t), 1.0);
}
