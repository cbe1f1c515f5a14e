#version 450
// One upsample step of the bloom chain: the smaller level, filtered with a 3x3 tent, added
// to the downsampled level of this size.
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform sampler2D low;
layout(set = 0, binding = 1) uniform sampler2D level;
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D dst;

layout(push_constant) uniform Up {
    vec2 low_texel;  // 1 / size of `low`
    float radius;    // tent radius in texels of `low`
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(dst);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    vec2 uv = (vec2(p) + 0.5) / vec2(size);
    vec2 d = pc.low_texel * pc.radius;
    vec3 s = textureLod(low, uv, 0.0).rgb * 4.0;
    s += (textureLod(low, uv + vec2(-d.x, 0.0), 0.0).rgb
        + textureLod(low, uv + vec2(d.x, 0.0), 0.0).rgb
        + textureLod(low, uv + vec2(0.0, -d.y), 0.0).rgb
        + textureLod(low, uv + vec2(0.0, d.y), 0.0).rgb) * 2.0;
    s += textureLod(low, uv + vec2(-d.x, -d.y), 0.0).rgb
       + textureLod(low, uv + vec2(d.x, -d.y), 0.0).rgb
       + textureLod(low, uv + vec2(-d.x, d.y), 0.0).rgb
       + textureLod(low, uv + vec2(d.x, d.y), 0.0).rgb;
    vec3 c = textureLod(level, uv, 0.0).rgb + s * (1.0 / 16.0);
    imageStore(dst, p, vec4(c, 1.0));
}
