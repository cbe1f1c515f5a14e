#version 450
// Deferred lighting in compute (`--lighting compute`): the same surfaces and the same `shade()`
// as lighting.frag, one invocation per pixel, with the G-buffer and depth sampled at that
// pixel instead of read as input attachments. It writes every pixel of HDR (a storage image):
// the G-buffer's emission plus the lit colour where depth was written, the sky elsewhere, so
// nothing clears HDR first and the G-buffer is read only where the G-buffer pass covered it.
// Set 0 as the pass declares it: the frame constants, the point lights, the shadow atlas, the
// G-buffer, depth, emission, HDR, the environment (environment.glsl: specular, irradiance,
// BRDF table), then the variant's clusters (CLUSTERED) and SSAO (SSAO).
#define LIT_COMPUTE
#define SHADOW_SET 0
#define SHADOW_BINDING 2
#define ENV_SET 0
#define ENV_BINDING 9
#ifdef CLUSTERED
#define CLUSTERS_BINDING 12
#define SSAO_BINDING 13
#else
#define SSAO_BINDING 12
#endif
#include "common.glsl"
#include "shadow.glsl"
#include "lit.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 3) uniform sampler2D albedo_tex;
layout(set = 0, binding = 4) uniform sampler2D normal_tex;
layout(set = 0, binding = 5) uniform sampler2D material_tex;
layout(set = 0, binding = 6) uniform sampler2D depth_tex;
layout(set = 0, binding = 7) uniform sampler2D emission_tex;
layout(set = 0, binding = 8, r11f_g11f_b10f) uniform writeonly image2D hdr_out;

void main() {
    ivec2 size = imageSize(hdr_out);
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(pixel, size))) {
        return;
    }
    // The pixel's centre in window coordinates (gl_FragCoord's), and its UV as the raster
    // pass's full-screen triangle has it: every pass draws with a Y-up viewport, so UV's
    // y = 0 is the bottom row.
    vec2 centre = vec2(pixel) + 0.5;
    vec2 uv = vec2(centre.x / float(size.x), 1.0 - centre.y / float(size.y));
    float depth = texelFetch(depth_tex, pixel, 0).r;
    if (depth <= 0.0) {
        imageStore(hdr_out, pixel, vec4(sky(uv), 0.0));
        return;
    }
    vec3 p = world_at(uv, depth);
    vec3 base = texelFetch(albedo_tex, pixel, 0).rgb;
    vec3 n = normalize(texelFetch(normal_tex, pixel, 0).xyz * 2.0 - 1.0);
    vec3 m = texelFetch(material_tex, pixel, 0).rgb;
    vec3 emission = texelFetch(emission_tex, pixel, 0).rgb;
    vec3 lit = shade(p, n, base, m.r, m.g, m.b * ambient_occlusion_at(centre), sun_shadow(p));
    imageStore(hdr_out, pixel, vec4(emission + lit, 0.0));
}
