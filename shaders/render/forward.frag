#version 450
// Transparent surfaces, shaded forward with the same lights and blended over the HDR target
// (premultiplied: the pipeline blends ONE, ONE_MINUS_SRC_ALPHA).
#include "common.glsl"
#include "material.glsl"
#include "shadow.glsl"

layout(location = 0) out vec4 out_hdr;

void main() {
    Surface s = surface();
    vec3 c = shade(in_world, s.normal, s.base.rgb, s.metallic, s.roughness, s.occlusion,
                   sun_shadow(in_world));
    out_hdr = vec4(c * s.base.a + s.emissive, s.base.a);
}
