#version 450
// The last post pass in compute (`post = "compute"`): post.frag's math (the tone-mapped
// image scaled bilinearly to the output, FXAA when `fxaa` is set, the late bloom's screen
// blend) from the linear `ldr` (RGBA16F) or TAA's history, written sRGB-encoded into an RGBA8
// UNORM image that a transfer pass copies into the output; channels swapped when `bgra` is
// set (a BGRA output: the copy moves bytes as they are); unencoded for a UNORM output.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform sampler2D ldr;
#ifdef BLOOM
layout(set = 0, binding = 1) uniform sampler2D bloom;
#ifdef AUTO_EXPOSURE
layout(set = 0, binding = 2, std430) readonly buffer Exposure {
    vec4 value;
} exposure_buf;
#define TARGET_BINDING 3
#else
#define TARGET_BINDING 2
#endif
#else
#define TARGET_BINDING 1
#endif
layout(set = 0, binding = TARGET_BINDING, rgba8) uniform writeonly image2D target;

layout(push_constant) uniform Post {
    vec2 inv_output;  // 1 / output size
    vec2 ldr_texel;   // 1 / render size
    float fxaa;       // 1: anti-alias
    float bloom;      // bloom intensity
    float exposure;   // fixed exposure, or the compensation on the adapted one
    float exposure_valid; // AUTO_EXPOSURE: 1 when the buffer holds a previous frame's value
    float bgra;       // 1: store the channels in B, G, R order
    float encode;     // 1: encode sRGB (an sRGB output), 0 for a UNORM one
    // Pre-rotation (crates/render/src/frame/rotate.rs): the logical (upright) size in
    // pixels, and the quarter turns clockwise the presentation applies (0..3). `target`
    // then has the physical extent; each texel takes the upright texel shown there.
    vec2 logical;
    float turns;
} pc;

vec3 tap(vec2 uv) {
    return textureLod(ldr, uv, 0.0).rgb;
}

#include "fxaa.glsl"
#include "tonemap.glsl"

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(target);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    // The upright texel the presentation shows at physical texel p (crates/render/src/frame/rotate.rs).
    ivec2 l = ivec2(pc.logical + 0.5);
    int turns = int(pc.turns + 0.5);
    ivec2 s = p;
    if (turns == 1) {
        s = ivec2(l.x - 1 - p.y, p.x);
    } else if (turns == 2) {
        s = ivec2(l.x - 1 - p.x, l.y - 1 - p.y);
    } else if (turns == 3) {
        s = ivec2(p.y, l.y - 1 - p.x);
    }
    vec2 uv = (vec2(s) + 0.5) * pc.inv_output;
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
    c = pc.encode > 0.5 ? srgb_encode(c) : c;
    c = pc.bgra > 0.5 ? c.bgr : c;
    imageStore(target, p, vec4(c, 1.0));
}
