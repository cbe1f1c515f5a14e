#version 450
// G-buffer: the opaque and alpha-masked surfaces' attributes, and their emission straight
// into the HDR target (lighting adds to it). MOTION (TAA) also writes the motion vector: the
// surface's current minus previous screen position in UV units, both unjittered.
#include "common.glsl"
#include "material.glsl"

layout(location = 0) out vec4 out_albedo;     // R8G8B8A8_SRGB
layout(location = 1) out vec4 out_normal;     // A2B10G10R10_UNORM: world normal × 0.5 + 0.5
layout(location = 2) out vec4 out_material;   // R8G8B8A8_UNORM: metallic, roughness, occlusion
layout(location = 3) out vec4 out_hdr;        // emission
#ifdef MOTION
layout(location = 4) out vec2 out_motion;     // R16G16_SFLOAT: UV now - UV last frame
#endif

void main() {
    Surface s = surface();
    if (draw.alpha.x >= 0.0 && s.base.a < draw.alpha.x) {
        discard;
    }
    out_albedo = vec4(s.base.rgb, 1.0);
    out_normal = vec4(s.normal * 0.5 + 0.5, 0.0);
    out_material = vec4(s.metallic, s.roughness, s.occlusion, 0.0);
    out_hdr = vec4(s.emissive, 1.0);
#ifdef MOTION
    out_motion = surface_motion(in_world, in_prev_world);
#endif
}
