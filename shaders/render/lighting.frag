#version 450
// Deferred lighting: reads the G-buffer and depth of the same pixel as input attachments
// (tile memory when the graph merges the passes), reconstructs the world position from depth
// and adds the lit colour to the HDR target (additive blending). Pixels with no surface
// (reversed-Z depth 0: the far plane at infinity) get the sky. Variants (defines): CLUSTERED
// loops over the pixel's light cluster only; SSAO multiplies ambient by the blurred
// half-resolution ambient occlusion (set 0, binding 3), upsampled bilinearly.
#include "common.glsl"
#include "shadow.glsl"

layout(input_attachment_index = 0, set = 1, binding = 0) uniform subpassInput albedo_in;
layout(input_attachment_index = 1, set = 1, binding = 1) uniform subpassInput normal_in;
layout(input_attachment_index = 2, set = 1, binding = 2) uniform subpassInput material_in;
layout(input_attachment_index = 3, set = 1, binding = 3) uniform subpassInput depth_in;

#ifdef SSAO
layout(set = 0, binding = 3) uniform sampler2D ssao_tex;

// The half-resolution AO at this full-resolution pixel: bilinear over its four nearest texels
// (texelFetch: R32_SFLOAT need not support linear filtering).
float ambient_occlusion() {
    ivec2 size = textureSize(ssao_tex, 0);
    // Half-resolution texel i covers full-resolution pixels 2i and 2i + 1.
    vec2 f = gl_FragCoord.xy * 0.5 - 0.5;
    ivec2 i = ivec2(floor(f));
    vec2 w = f - vec2(i);
    ivec2 hi = size - 1;
    float a = texelFetch(ssao_tex, clamp(i, ivec2(0), hi), 0).r;
    float b = texelFetch(ssao_tex, clamp(i + ivec2(1, 0), ivec2(0), hi), 0).r;
    float c = texelFetch(ssao_tex, clamp(i + ivec2(0, 1), ivec2(0), hi), 0).r;
    float d = texelFetch(ssao_tex, clamp(i + ivec2(1, 1), ivec2(0), hi), 0).r;
    return mix(mix(a, b, w.x), mix(c, d, w.x), w.y);
}
#else
float ambient_occlusion() {
    return 1.0;
}
#endif

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_hdr;

void main() {
    float depth = subpassLoad(depth_in).r;
    vec4 ndc = vec4(in_uv * 2.0 - 1.0, max(depth, 1e-7), 1.0);
    vec4 world = frame.inv_view_proj * ndc;
    vec3 p = world.xyz / world.w;
    if (depth <= 0.0) {
        vec3 dir = normalize(p - frame.camera_pos.xyz);
        float t = clamp(dir.y * 0.5 + 0.5, 0.0, 1.0);
        out_hdr = vec4(frame.ambient.rgb * mix(0.35, 1.2, t), 0.0);
        return;
    }
    vec3 base = subpassLoad(albedo_in).rgb;
    vec3 n = normalize(subpassLoad(normal_in).xyz * 2.0 - 1.0);
    vec3 m = subpassLoad(material_in).rgb;
    out_hdr = vec4(shade(p, n, base, m.r, m.g, m.b * ambient_occlusion(), sun_shadow(p)), 0.0);
}
