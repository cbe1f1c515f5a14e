#version 450
// The last post pass: the tone-mapped image (render size, sRGB: sampling decodes) scaled
// bilinearly to the output, with FXAA when `fxaa` is set (fxaa.glsl). BLOOM adds the
// tile-friendly bloom (from the tone-mapping pass's HDR copy) after the curve, as a screen
// blend; AUTO_EXPOSURE scales it by the adapted exposure.
layout(set = 0, binding = 0) uniform sampler2D ldr;
#ifdef BLOOM
layout(set = 0, binding = 1) uniform sampler2D bloom;
#ifdef AUTO_EXPOSURE
layout(set = 0, binding = 2, std430) readonly buffer Exposure {
    vec4 value;
} exposure_buf;
#endif
#endif

layout(push_constant) uniform Post {
    vec2 inv_output;  // 1 / output size
    vec2 ldr_texel;   // 1 / render size
    float fxaa;       // 1: anti-alias
    float bloom;      // bloom intensity
    float exposure;   // fixed exposure, or the compensation on the adapted one
    float exposure_valid; // AUTO_EXPOSURE: 1 when the buffer holds a previous frame's value
    // Pre-rotation (crates/render/src/frame/rotate.rs): the logical (upright) size in
    // pixels, and the quarter turns clockwise the presentation applies (0..3). The pass
    // renders the physical extent; each texel takes the upright texel shown there.
    vec2 logical;
    float turns;
} pc;

layout(location = 0) out vec4 out_color;

vec3 tap(vec2 uv) {
    return textureLod(ldr, uv, 0.0).rgb;
}

#include "fxaa.glsl"
#include "tonemap.glsl"

// The upright pixel centre the presentation shows at physical pixel centre `frag`: the
// same index remap as the old copy, so the texel is the upright frame's exactly.
vec2 upright_coord(vec2 frag) {
    int turns = int(pc.turns + 0.5);
    if (turns == 0) {
        return frag;
    }
    ivec2 p = ivec2(frag);
    ivec2 size = ivec2(pc.logical + 0.5);
    ivec2 s;
    if (turns == 1) {
        s = ivec2(size.x - 1 - p.y, p.x);
    } else if (turns == 2) {
        s = ivec2(size.x - 1 - p.x, size.y - 1 - p.y);
    } else {
        s = ivec2(p.y, size.y - 1 - p.x);
    }
    return vec2(s) + 0.5;
}

void main() {
    vec2 uv = upright_coord(gl_FragCoord.xy) * pc.inv_output;
    vec3 c = pc.fxaa > 0.5 ? fxaa(uv, pc.ldr_texel) : tap(uv);
#ifdef BLOOM
    float e = pc.exposure;
#ifdef AUTO_EXPOSURE
    // Before any adaptation (a new history): exposure 1, the adaptation's starting point.
    e *= pc.exposure_valid > 0.5 ? exposure_buf.value.x : 1.0;
#endif
    vec3 b = aces(textureLod(bloom, uv, 0.0).rgb * pc.bloom * e);
    c = 1.0 - (1.0 - c) * (1.0 - b);
#endif
    out_color = vec4(c, 1.0);
}
