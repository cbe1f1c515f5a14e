#version 450
// The luminance histogram of the frame, at half resolution (one bilinear tap per 2x2
// pixels): counts per bin in workgroup memory, then one atomic add per bin and workgroup
// into the storage buffer (cleared by the frame's fill). Integer counts: the same result in
// any order.
#include "exposure.glsl"
layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, std430) buffer Histogram {
    uint bins[BINS];
} histogram;

layout(push_constant) uniform Grid {
    uvec2 size;     // sample grid (half the source)
    vec2 inv_size;  // 1 / grid
} pc;

shared uint local_bins[BINS];

void main() {
    uint i = gl_LocalInvocationIndex;
    if (i < BINS) {
        local_bins[i] = 0u;
    }
    barrier();
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x < pc.size.x && p.y < pc.size.y) {
        vec3 c = textureLod(src, (vec2(p) + 0.5) * pc.inv_size, 0.0).rgb;
        float lum = dot(c, vec3(0.2126, 0.7152, 0.0722));
        uint bin = 0u;
        if (lum > 1e-4) {
            float t = (log2(lum) - LOG_MIN) / LOG_RANGE;
            bin = 1u + uint(clamp(t * float(BINS - 1u), 0.0, float(BINS - 2u)));
        }
        atomicAdd(local_bins[bin], 1u);
    }
    barrier();
    if (i < BINS && local_bins[i] > 0u) {
        atomicAdd(histogram.bins[i], local_bins[i]);
    }
}
