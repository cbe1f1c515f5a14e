// Shared by the renderer's shaders: the per-frame constants (set 0), the point lights and
// the Cook-Torrance GGX BRDF. Included with `#include "common.glsl"`.

#ifndef TESSERA_COMMON_GLSL
#define TESSERA_COMMON_GLSL

const float PI = 3.14159265358979;

#include "frame_data.glsl"
#include "environment.glsl"

struct PointLight {
    vec4 position_range;  // xyz: world position, w: range (0: unbounded)
    vec4 color;           // rgb: colour × intensity
    vec4 spot;            // xyz: direction a spot light points, w: cos(outer cone); -2: no cone
    vec4 spot_inner;      // x: cos(inner cone)
};

// Set 0, binding 1: the frame's point lights.
layout(set = 0, binding = 1, std430) readonly buffer PointLights {
    PointLight lights[];
} point_lights;

float d_ggx(float n_dot_h, float alpha) {
    float a2 = alpha * alpha;
    float f = (n_dot_h * a2 - n_dot_h) * n_dot_h + 1.0;
    return a2 / (PI * f * f + 1e-7);
}

// Height-correlated Smith visibility (the G term over 4 N·L N·V).
float v_smith_ggx(float n_dot_v, float n_dot_l, float alpha) {
    float a2 = alpha * alpha;
    float gv = n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2);
    float gl = n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2);
    return 0.5 / (gv + gl + 1e-7);
}

vec3 f_schlick(float v_dot_h, vec3 f0) {
    return f0 + (1.0 - f0) * pow(1.0 - v_dot_h, 5.0);
}

// Radiance reflected towards `v` from light arriving along `l` with `radiance`.
vec3 brdf(vec3 n, vec3 v, vec3 l, vec3 radiance, vec3 base, float metallic, float roughness) {
    float n_dot_l = clamp(dot(n, l), 0.0, 1.0);
    if (n_dot_l <= 0.0) {
        return vec3(0.0);
    }
    vec3 h = normalize(v + l);
    float n_dot_v = clamp(abs(dot(n, v)), 1e-4, 1.0);
    float n_dot_h = clamp(dot(n, h), 0.0, 1.0);
    float v_dot_h = clamp(dot(v, h), 0.0, 1.0);
    float alpha = max(roughness * roughness, 2e-3);
    vec3 f0 = mix(vec3(0.04), base, metallic);
    vec3 f = f_schlick(v_dot_h, f0);
    vec3 specular = d_ggx(n_dot_h, alpha) * v_smith_ggx(n_dot_v, n_dot_l, alpha) * f;
    vec3 diffuse = (1.0 - f) * (1.0 - metallic) * base / PI;
    return (diffuse + specular) * radiance * n_dot_l;
}

// Inverse-square falloff windowed to zero at the light's range.
float falloff(float dist, float range) {
    float inv = 1.0 / max(dist * dist, 1e-4);
    if (range <= 0.0) {
        return inv;
    }
    float r = dist / range;
    float w = clamp(1.0 - r * r * r * r, 0.0, 1.0);
    return inv * w * w;
}

#ifdef CLUSTERED
// Set 0, binding 2 (CLUSTERS_BINDING where a shader's set 0 is laid out otherwise): the light
// clusters (`light_clustering.comp`): per cluster a count and `cluster_grid.w` light indices,
// ascending.
#ifndef CLUSTERS_BINDING
#define CLUSTERS_BINDING 2
#endif
layout(set = 0, binding = CLUSTERS_BINDING, std430) readonly buffer LightClusters {
    uint data[];
} light_clusters;

// The cluster of world point `p`: the same tile and slice rule `light_clustering.comp`
// bounds (a view-space froxel; the first slice reaches the eye, the last is unbounded).
uint cluster_of(vec3 p) {
    vec3 v = (frame.view * vec4(p, 1.0)).xyz;
    float d = max(-v.z, 1e-6);
    vec2 ndc = v.xy / (d * frame.proj.xy);
    ivec2 tiles = ivec2(frame.cluster_grid.xy);
    ivec2 t = clamp(ivec2(floor((ndc * 0.5 + 0.5) * vec2(tiles))), ivec2(0), tiles - 1);
    int slices = int(frame.cluster_grid.z);
    float s = log(d / frame.proj.z) / log(frame.proj.w / frame.proj.z) * float(slices);
    int slice = clamp(int(floor(s)), 0, slices - 1);
    return uint(t.x + tiles.x * (t.y + tiles.y * slice));
}
#endif

// Point light `i` on surface point `p` (normal `n`, towards the eye `v`).
vec3 point_light(uint i, vec3 p, vec3 n, vec3 v, vec3 base, float metallic, float roughness) {
    PointLight pl = point_lights.lights[i];
    vec3 d = pl.position_range.xyz - p;
    float dist = length(d);
    float att = falloff(dist, pl.position_range.w);
    if (pl.spot.w > -1.5) {
        // KHR_lights_punctual's smooth cone: 0 outside the outer cone, 1 inside the inner.
        float cd = dot(normalize(pl.spot.xyz), -d / max(dist, 1e-4));
        float t = clamp((cd - pl.spot.w) / max(pl.spot_inner.x - pl.spot.w, 1e-4), 0.0, 1.0);
        att *= t * t;
    }
    if (att > 0.0) {
        return brdf(n, v, d / max(dist, 1e-4), pl.color.rgb * att, base, metallic, roughness);
    }
    return vec3(0.0);
}

// Every light of the frame on one surface point: the sun (`sun_visibility`: 0 in its
// shadow), the point lights (those of the point's cluster when CLUSTERED: the others add
// exactly 0 there, so the sum is the same in the same order) and ambient × `occlusion`:
// image-based (`environment.glsl`) when `frame.flags.z`, else a hemisphere of
// `frame.ambient`.
vec3 shade(vec3 p, vec3 n, vec3 base, float metallic, float roughness, float occlusion,
           float sun_visibility) {
    vec3 v = normalize(frame.camera_pos.xyz - p);
    vec3 c = vec3(0.0);
    if (frame.sun_direction.w > 0.0 && sun_visibility > 0.0) {
        c += brdf(n, v, -normalize(frame.sun_direction.xyz), frame.sun_color.rgb, base, metallic,
                  roughness) * sun_visibility;
    }
#ifdef CLUSTERED
    uint base_index = cluster_of(p) * (frame.cluster_grid.w + 1u);
    uint count = min(light_clusters.data[base_index], frame.cluster_grid.w);
    for (uint k = 0u; k < count; ++k) {
        c += point_light(light_clusters.data[base_index + 1u + k], p, n, v, base, metallic,
                         roughness);
    }
#else
    for (uint i = 0u; i < frame.counts.x; ++i) {
        c += point_light(i, p, n, v, base, metallic, roughness);
    }
#endif
    if (frame.flags.z != 0u) {
        // Image-based: the sky's irradiance and prefiltered reflections.
        c += environment_light(n, v, base, metallic, roughness) * occlusion;
    } else {
        // Hemisphere ambient: sky from above, a darker ground from below.
        float up = n.y * 0.5 + 0.5;
        vec3 ambient = frame.ambient.rgb * mix(frame.ambient.a, 1.0, up);
        c += ambient * base * (1.0 - 0.5 * metallic) * occlusion;
    }
    return c;
}

#endif
