#version 450
// Forward shading with the deferred path's lights (`shade()`, the sun's cascades).
// Default: transparent surfaces, blended over the HDR target (premultiplied: the pipeline
// blends ONE, ONE_MINUS_SRC_ALPHA). OPAQUE: the forward path's opaque and alpha-masked
// surfaces, written as the deferred lighting would light them (emission + lit colour, ambient
// × SSAO with SSAO); MOTION (TAA, single-sampled only) also writes the motion vector, as the
// G-buffer does.
#include "common.glsl"
#include "material.glsl"
#include "shadow.glsl"
#include "lit.glsl"

layout(location = 0) out vec4 out_hdr;
#ifdef MOTION
layout(location = 1) out vec2 out_motion;     // R16G16_SFLOAT: UV now - UV last frame
#endif

void main() {
    Surface s = surface();
#ifdef OPAQUE
    if (draw.alpha.x >= 0.0 && s.base.a < draw.alpha.x) {
        discard;
    }
    vec3 c = shade(in_world, s.normal, s.base.rgb, s.metallic, s.roughness,
                   s.occlusion * ambient_occlusion(), sun_shadow(in_world));
    out_hdr = vec4(s.emissive + c, 1.0);
#ifdef MOTION
    out_motion = surface_motion(in_world, in_prev_world);
#endif
#else
    // A fully transparent texel without emission adds exactly nothing under ONE,
    // ONE_MINUS_SRC_ALPHA: skip its lighting (the lights are already the cluster's only).
    if (s.base.a <= 0.0 && all(equal(s.emissive, vec3(0.0)))) {
        discard;
    }
    vec3 c = shade(in_world, s.normal, s.base.rgb, s.metallic, s.roughness, s.occlusion,
                   sun_shadow(in_world));
    out_hdr = vec4(c * s.base.a + s.emissive, s.base.a);
#endif
}
