#version 450
// Tone mapping in compute (`post = "compute"`, crates/render/src/frame/post.rs): the math of
// tonemap.frag (exposure, the early bloom added before the curve, ACES: tonemap.glsl) from
// HDR read at the same texel. Without OUTPUT it writes the linear result into `ldr`
// (RGBA16F, render size), which TAA or the last post pass read; with OUTPUT (nothing
// follows: no AA, scale 1, no late bloom) it writes the sRGB-encoded result into an RGBA8
// UNORM image copied into the output afterwards, channels swapped when `bgra` is set (a BGRA
// output: the copy moves bytes as they are); a UNORM output gets the values unencoded, as a
// UNORM attachment would.
#include "tonemap.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform sampler2D hdr_in;
#ifdef AUTO_EXPOSURE
layout(set = 0, binding = 1, std430) readonly buffer Exposure {
    vec4 value; // x: exposure, y: adapted luminance, z: frames adapted, w: last average
} exposure_buf;
#define BLOOM_BINDING 2
#else
#define BLOOM_BINDING 1
#endif
#ifdef BLOOM_ADD
layout(set = 0, binding = BLOOM_BINDING) uniform sampler2D bloom;
#define TARGET_BINDING (BLOOM_BINDING + 1)
#else
#define TARGET_BINDING BLOOM_BINDING
#endif
#ifdef OUTPUT
layout(set = 0, binding = TARGET_BINDING, rgba8) uniform writeonly image2D target;
#else
layout(set = 0, binding = TARGET_BINDING, rgba16f) uniform writeonly image2D target;
#endif

layout(push_constant) uniform Tonemap {
    float exposure;   // fixed exposure, or the compensation on the adapted one
    float bloom;      // bloom intensity
    vec2 inv_size;    // 1 / render size
    float exposure_valid; // AUTO_EXPOSURE: 1 when the buffer holds a previous frame's value
    float bgra;       // OUTPUT: 1 to store the channels in B, G, R order
    float encode;     // OUTPUT: 1 to encode sRGB (an sRGB output), 0 for a UNORM one
    float pad;
    // Pre-rotation (crates/render/src/frame/rotate.rs; OUTPUT only, else 0 turns): the
    // logical (upright) size, and the quarter turns clockwise the presentation applies.
    // `target` then has the physical extent; each texel takes the upright texel shown there.
    vec2 logical;
    float turns;
} pc;

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
    vec3 hdr = texelFetch(hdr_in, s, 0).rgb;
    float e = pc.exposure;
#ifdef AUTO_EXPOSURE
    // Before any adaptation (a new history): exposure 1, the adaptation's starting point.
    e *= pc.exposure_valid > 0.5 ? exposure_buf.value.x : 1.0;
#endif
#ifdef BLOOM_ADD
    hdr += textureLod(bloom, (vec2(s) + 0.5) * pc.inv_size, 0.0).rgb * pc.bloom;
#endif
    vec3 c = aces(hdr * e);
#ifdef OUTPUT
    c = pc.encode > 0.5 ? srgb_encode(c) : c;
    c = pc.bgra > 0.5 ? c.bgr : c;
#endif
    imageStore(target, p, vec4(c, 1.0));
}
