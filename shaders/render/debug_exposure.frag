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

layout(location = 0) out vec4 out_color;

layout(push_constant) uniform Rotate {
    vec2 logical; // pre-rotation: the logical (upright) size in pixels
    float turns;  // pre-rotation: quarter turns clockwise the presentation applies
} pc;

// Pre-rotation (crates/render/src/frame/rotate.rs): with `turns` quarter turns the pass
// renders the physical extent, and each pixel shows the upright pixel the presentation puts
// there: the full-screen UV of that upright pixel's centre (Y up, as `in_uv`). Computed
// from the pixel's index at every rotation (not the interpolated `in_uv`, which a turned
// render area would not reproduce bit for bit), so the turned picture is the upright one.
vec2 upright_uv(vec2 logical, float turns_f) {
    int turns = int(turns_f + 0.5);
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 l = ivec2(logical + 0.5);
    ivec2 s = p;
    if (turns == 1) {
        s = ivec2(l.x - 1 - p.y, p.x);
    } else if (turns == 2) {
        s = ivec2(l.x - 1 - p.x, l.y - 1 - p.y);
    } else if (turns == 3) {
        s = ivec2(p.y, l.y - 1 - p.x);
    }
    vec2 c = (vec2(s) + 0.5) / logical;
    return vec2(c.x, 1.0 - c.y);
}

void main() {
    // The panel: the left 45% of the output, the bottom 30% (in_uv.y is 0 at the bottom).
    vec2 uv = upright_uv(pc.logical, pc.turns);
    vec2 p = vec2(uv.x / 0.45, uv.y / 0.30);
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
