#version 450
// Scene geometry: the G-buffer and transparent passes draw every primitive through this
// shader. Per-draw data comes in push constants (crates/render/src/frame/geometry.rs).
// OBJECT_MOTION (devices with 192 bytes of push constants): the draw's previous-frame model
// matrix follows the material constants, and the previous world position (TAA's motion
// vectors) comes from it; without it an animated object's motion is the camera's only.
#include "common.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_tangent;
layout(location = 3) in vec2 in_uv;

layout(push_constant) uniform Draw {
    mat4 model;
    vec4 base_color;
    vec4 emissive;        // rgb: emissive factor
    vec4 params;          // x: metallic, y: roughness, z: normal scale, w: occlusion strength
    vec4 alpha;           // x: mask cutoff (< 0: no mask)
#ifdef OBJECT_MOTION
    mat4 prev_model;      // the model matrix of the previous frame
#endif
} draw;

layout(location = 0) out vec3 out_world;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec4 out_tangent;
layout(location = 3) out vec2 out_uv;
layout(location = 4) out vec3 out_prev_world;

void main() {
    vec4 world = draw.model * vec4(in_position, 1.0);
    // The normal matrix: the inverse transpose of the model's upper 3×3.
    mat3 normal_matrix = transpose(inverse(mat3(draw.model)));
    out_world = world.xyz;
    out_normal = normalize(normal_matrix * in_normal);
    out_tangent = vec4(normalize(mat3(draw.model) * in_tangent.xyz), in_tangent.w);
    out_uv = in_uv;
#ifdef OBJECT_MOTION
    out_prev_world = (draw.prev_model * vec4(in_position, 1.0)).xyz;
#else
    out_prev_world = world.xyz;
#endif
    gl_Position = frame.view_proj * world;
}
