#version 450 core
// Range of a float buffer: minimum and maximum of the finite values, smallest positive finite
// value, and the count of finite values. Floats are compared as order-preserving uint keys
// (negative: all bits flipped; positive: sign bit set) so that atomicMin/atomicMax work.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Data { float data[]; };
layout(std430, binding = 1) buffer Result {
  uint key_min;
  uint key_max;
  uint key_min_positive;
  uint finite_count;
};
uniform uint u_count;

shared uint s_min, s_max, s_min_pos, s_count;

uint order_key(float v) {
  uint b = floatBitsToUint(v);
  return (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
}

void main() {
  if (gl_LocalInvocationIndex == 0u) {
    s_min = 0xffffffffu;
    s_max = 0u;
    s_min_pos = 0xffffffffu;
    s_count = 0u;
  }
  barrier();
  uint lmin = 0xffffffffu, lmax = 0u, lmin_pos = 0xffffffffu, lcount = 0u;
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint k = gl_GlobalInvocationID.x; k < u_count; k += stride) {
    float v = data[k];
    if ((floatBitsToUint(v) & 0x7f800000u) == 0x7f800000u) continue;  // NaN or Inf
    uint key = order_key(v);
    lmin = min(lmin, key);
    lmax = max(lmax, key);
    if (v > 0.0) lmin_pos = min(lmin_pos, key);
    lcount += 1u;
  }
  atomicMin(s_min, lmin);
  atomicMax(s_max, lmax);
  atomicMin(s_min_pos, lmin_pos);
  atomicAdd(s_count, lcount);
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    atomicMin(key_min, s_min);
    atomicMax(key_max, s_max);
    atomicMin(key_min_positive, s_min_pos);
    atomicAdd(finite_count, s_count);
  }
}
