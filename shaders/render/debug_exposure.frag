#version 450
// Debug view: the auto exposure, drawn over the lit frame in a panel at the bottom left:
// the luminance histogram of the frame (bars, bin 0 = black pixels leftmost, scaled to the
// fullest bin), the adapted luminance (a white line at its bin) and the exposure multiplier
// (a yellow bar along the top, on a log2 scale from 1/64 to 64). Outside the panel the pass
// keeps the frame (it discards; the output is loaded).
#include "exposure.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Histogram {
    uint bins[];
} histogram;

layout(set = 0, binding = 1, std430) readonly buffer ExposureState {
    vec4 value;  // x: exposure, y: adapted luminance, z: frames adapted, w: last mean
} state;

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_color;

void main() {
    // The panel: the left 45% of the output, the bottom 30% (in_uv.y is 0 at the bottom).
    vec2 p = vec2(in_uv.x / 0.45, in_uv.y / 0.30);
    if (p.x > 1.0 || p.y > 1.0) {
        discard;
    }
    vec3 c = vec3(0.02);
    uint peak = 1u;
    for (uint i = 0u; i < BINS; ++i) {
        peak = max(peak, histogram.bins[i]);
    }
    uint bin = min(uint(p.x * float(BINS)), BINS - 1u);
    float h = float(histogram.bins[bin]) / float(peak);
    if (p.y < 0.85 * h) {
        c = vec3(0.25, 0.55, 0.9);
    }
    // The adapted luminance's bin.
    float lum_bin = 1.0 + (log2(max(state.value.y, 1e-6)) - LOG_MIN) / LOG_RANGE * float(BINS - 1u);
    if (abs(p.x * float(BINS) - lum_bin) < 0.35 && p.y < 0.85) {
        c = vec3(1.0);
    }
    // The exposure multiplier.
    float e = clamp((log2(max(state.value.x, 1e-6)) + 6.0) / 12.0, 0.0, 1.0);
    if (p.y > 0.9 && p.y < 0.97) {
        c = p.x < e ? vec3(1.0, 0.85, 0.1) : vec3(0.15);
    }
    out_color = vec4(c, 1.0);
}
