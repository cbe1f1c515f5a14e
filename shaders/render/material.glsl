// The material of a draw: push constants and the five textures of set 1 (glTF
// metallic-roughness). Shared by the G-buffer and the forward (transparent) shaders.
#ifndef TESSERA_MATERIAL_GLSL
#define TESSERA_MATERIAL_GLSL

layout(push_constant) uniform Draw {
    mat4 model;
    vec4 base_color;
    vec4 emissive;
    vec4 params;
    vec4 alpha;
} draw;

layout(set = 1, binding = 0) uniform sampler2D base_color_tex;
layout(set = 1, binding = 1) uniform sampler2D metallic_roughness_tex;
layout(set = 1, binding = 2) uniform sampler2D normal_tex;
layout(set = 1, binding = 3) uniform sampler2D occlusion_tex;
layout(set = 1, binding = 4) uniform sampler2D emissive_tex;

layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_tangent;
layout(location = 3) in vec2 in_uv;
#ifdef MOTION
layout(location = 4) in vec3 in_prev_world;   // where the surface point was last frame
#endif

struct Surface {
    vec4 base;            // linear colour and alpha
    vec3 normal;          // world space, facing the viewer side that is drawn
    float metallic;
    float roughness;
    float occlusion;
    vec3 emissive;
};

Surface surface() {
    Surface s;
    s.base = draw.base_color * texture(base_color_tex, in_uv);
    vec4 mr = texture(metallic_roughness_tex, in_uv);
    s.roughness = clamp(draw.params.y * mr.g, 0.0, 1.0);
    s.metallic = clamp(draw.params.x * mr.b, 0.0, 1.0);
    s.occlusion = mix(1.0, texture(occlusion_tex, in_uv).r, draw.params.w);
    s.emissive = draw.emissive.rgb * texture(emissive_tex, in_uv).rgb;
    vec3 n = normalize(in_normal);
    if (!gl_FrontFacing) {
        n = -n;
    }
    vec3 t = in_tangent.xyz - n * dot(n, in_tangent.xyz);
    if (dot(t, t) > 1e-8) {
        t = normalize(t);
        vec3 b = cross(n, t) * (in_tangent.w < 0.0 ? -1.0 : 1.0);
        vec3 tn = texture(normal_tex, in_uv).xyz * 2.0 - 1.0;
        tn.xy *= draw.params.z;
        n = normalize(mat3(t, b, n) * tn);
    }
    s.normal = n;
    return s;
}

// The motion vector of the surface point `world` (TAA), last frame at `prev_world` (the
// previous model matrix's: animated objects move): its current minus previous screen
// position in UV units, both unjittered.
vec2 surface_motion(vec3 world, vec3 prev_world) {
    vec4 now = frame.unjittered_view_proj * vec4(world, 1.0);
    vec4 before = frame.prev_view_proj * vec4(prev_world, 1.0);
    // NDC to UV: x right, y down (the viewport is flipped: NDC +Y is the top row).
    return (now.xy / now.w - before.xy / before.w) * vec2(0.5, -0.5);
}

#endif
