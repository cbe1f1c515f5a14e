#version 450
// One downsample step of the bloom chain: a 4x4 box of the source (four bilinear taps) into
// a level of half its size. THRESHOLD (the chain's first step, from the HDR colour) keeps
// only what is brighter than `threshold`, with a soft knee, and clamps fireflies.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D dst;

layout(push_constant) uniform Down {
    vec2 src_texel;  // 1 / source size
    float threshold;
    float knee;
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(dst);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    vec2 uv = (vec2(p) + 0.5) / vec2(size);
    vec2 t = pc.src_texel;
    vec3 c = textureLod(src, uv + vec2(-t.x, -t.y), 0.0).rgb
           + textureLod(src, uv + vec2(t.x, -t.y), 0.0).rgb
           + textureLod(src, uv + vec2(-t.x, t.y), 0.0).rgb
           + textureLod(src, uv + vec2(t.x, t.y), 0.0).rgb;
    c *= 0.25;
#ifdef THRESHOLD
    c = min(c, vec3(64.0));
    float bright = max(c.r, max(c.g, c.b));
    float soft = clamp(bright - pc.threshold + pc.knee, 0.0, 2.0 * pc.knee);
    soft = soft * soft / (4.0 * pc.knee + 1e-5);
    c *= max(soft, bright - pc.threshold) / max(bright, 1e-5);
#endif
    imageStore(dst, p, vec4(c, 1.0));
}
