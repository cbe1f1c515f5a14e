// What the deferred lighting pass and the forward path's opaque surfaces share beyond
// `shade()`: ambient occlusion at a pixel (SSAO, set 0 binding 3) and the sky where no
// surface is (the environment's, `environment.glsl`). One copy, so forward and deferred light a surface with the same code.
#ifndef TESSERA_LIT_GLSL
#define TESSERA_LIT_GLSL

#include "common.glsl"

#ifdef SSAO
#ifndef SSAO_BINDING
#define SSAO_BINDING 3
#endif
layout(set = 0, binding = SSAO_BINDING) uniform sampler2D ssao_tex;

// The half-resolution AO at the full-resolution pixel whose centre is `pixel` (window
// coordinates, as gl_FragCoord): bilinear over its four nearest texels (texelFetch: R32_SFLOAT
// need not support linear filtering).
float ambient_occlusion_at(vec2 pixel) {
    ivec2 size = textureSize(ssao_tex, 0);
    // Half-resolution texel i covers full-resolution pixels 2i and 2i + 1.
    vec2 f = pixel * 0.5 - 0.5;
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
float ambient_occlusion_at(vec2 pixel) {
    return 1.0;
}
#endif

#ifndef LIT_COMPUTE
// The AO at this fragment.
float ambient_occlusion() {
    return ambient_occlusion_at(gl_FragCoord.xy);
}
#endif

// The world position at screen UV `uv` and reversed-Z depth `depth` (0, the far plane at
// infinity, is nudged to a point far along the ray).
vec3 world_at(vec2 uv, float depth) {
    vec4 world = frame.inv_view_proj * vec4(uv * 2.0 - 1.0, max(depth, 1e-7), 1.0);
    return world.xyz / world.w;
}

// The sky seen through screen UV `uv` (`environment.glsl`).
vec3 sky(vec2 uv) {
    return environment_sky(normalize(world_at(uv, 0.0) - frame.camera_pos.xyz));
}

#endif
