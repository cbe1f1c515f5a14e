#version 450
// Deferred lighting: reads the G-buffer and depth of the same pixel as input attachments
// (tile memory when the graph merges the passes), reconstructs the world position from depth
// and adds the lit colour to the HDR target (additive blending). Pixels with no surface
// (reversed-Z depth 0: the far plane at infinity) get the sky. Variants (defines): CLUSTERED
// loops over the pixel's light cluster only; SSAO multiplies ambient by the blurred
// half-resolution ambient occlusion (set 0, binding 3), upsampled bilinearly (lit.glsl, shared
// with the forward path).
#include "common.glsl"
#include "shadow.glsl"
#include "lit.glsl"

layout(input_attachment_index = 0, set = 1, binding = 0) uniform subpassInput albedo_in;
layout(input_attachment_index = 1, set = 1, binding = 1) uniform subpassInput normal_in;
layout(input_attachment_index = 2, set = 1, binding = 2) uniform subpassInput material_in;
layout(input_attachment_index = 3, set = 1, binding = 3) uniform subpassInput depth_in;

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_hdr;

void main() {
    float depth = subpassLoad(depth_in).r;
    if (depth <= 0.0) {
        out_hdr = vec4(sky(in_uv), 0.0);
        return;
    }
    vec3 p = world_at(in_uv, depth);
    vec3 base = subpassLoad(albedo_in).rgb;
    vec3 n = normalize(subpassLoad(normal_in).xyz * 2.0 - 1.0);
    vec3 m = subpassLoad(material_in).rgb;
    out_hdr = vec4(shade(p, n, base, m.r, m.g, m.b * ambient_occlusion(), sun_shadow(p)), 0.0);
}
