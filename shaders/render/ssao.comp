#version 450
// Screen-space ambient occlusion at half resolution. Each output texel reads the depth
// texel under its centre (the G-buffer's full-resolution depth or the half-resolution
// prepass: any ratio), rebuilds the view-space point and its normal from neighbouring
// depths, and sums the occlusion of 12 samples on a rotated spiral within `ssao.x` metres:
// max(cos(angle to the sample) - bias, 0), weighted down with distance. 1: unoccluded.
#include "frame_data.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2, r32f) uniform writeonly image2D ao_out;

const int SAMPLES = 12;

// The view-space point of depth texel `t` (reversed Z with the far plane at infinity:
// NDC depth = near / view depth). Row 0 is the top (NDC y = +1).
vec3 view_point(ivec2 t, ivec2 size, out bool sky) {
    float z = texelFetch(depth_tex, clamp(t, ivec2(0), size - 1), 0).r;
    sky = z <= 0.0;
    float d = frame.proj.z / max(z, 1e-7);
    vec2 uv = (vec2(t) + 0.5) / vec2(size);
    vec2 ndc = vec2(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0);
    return vec3(ndc * frame.proj.xy * d, -d);
}

void main() {
    ivec2 o = ivec2(gl_GlobalInvocationID.xy);
    ivec2 out_size = imageSize(ao_out);
    if (any(greaterThanEqual(o, out_size))) {
        return;
    }
    ivec2 size = textureSize(depth_tex, 0);
    ivec2 t = min(ivec2((vec2(o) + 0.5) * vec2(size) / vec2(out_size)), size - 1);
    bool sky;
    vec3 p = view_point(t, size, sky);
    if (sky) {
        imageStore(ao_out, o, vec4(1.0));
        return;
    }
    // The normal from the nearer neighbour on each axis (no smearing across edges).
    bool s0, s1;
    vec3 px = view_point(t + ivec2(1, 0), size, s0) - p;
    vec3 nx = p - view_point(t - ivec2(1, 0), size, s1);
    vec3 dx = abs(px.z) < abs(nx.z) ? px : nx;
    vec3 py = view_point(t + ivec2(0, 1), size, s0) - p;
    vec3 ny = p - view_point(t - ivec2(0, 1), size, s1);
    vec3 dy = abs(py.z) < abs(ny.z) ? py : ny;
    vec3 n = normalize(cross(dx, dy));
    if (dot(n, p) > 0.0) {
        n = -n;
    }
    float radius = frame.ssao.x;
    float depth = -p.z;
    // The radius in depth texels at this depth.
    float r_px = clamp(radius * 0.5 * float(size.y) / (frame.proj.y * depth), 1.0, 48.0);
    // Interleaved gradient noise rotates the spiral per pixel (the blur averages it out).
    float rot = 6.2831853 * fract(52.9829189 * fract(dot(vec2(o), vec2(0.06711056, 0.00583715))));
    float occlusion = 0.0;
    for (int i = 0; i < SAMPLES; ++i) {
        float f = (float(i) + 0.5) / float(SAMPLES);
        float a = rot + float(i) * 2.39996323;
        ivec2 s = t + ivec2(round(vec2(cos(a), sin(a)) * f * r_px));
        if (s == t) {
            continue;
        }
        bool ssky;
        vec3 q = view_point(s, size, ssky);
        if (ssky) {
            continue;
        }
        vec3 v = q - p;
        float vv = dot(v, v);
        float cosine = dot(v, n) * inversesqrt(max(vv, 1e-8));
        float w = clamp(1.0 - vv / (radius * radius), 0.0, 1.0);
        occlusion += max(cosine - frame.ssao.z, 0.0) * w;
    }
    float ao = clamp(1.0 - frame.ssao.y * occlusion / float(SAMPLES), 0.0, 1.0);
    imageStore(ao_out, o, vec4(ao));
}
