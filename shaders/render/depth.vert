#version 450
// The SSAO depth prepass: the opaque geometry's depth only, seen through the camera
// (push constants as `Draw` in material.glsl).
#include "frame_data.glsl"

layout(location = 0) in vec3 in_position;

layout(push_constant) uniform Draw {
    mat4 model;
    vec4 base_color;
    vec4 emissive;
    vec4 params;
    vec4 alpha;
} draw;

void main() {
    gl_Position = frame.view_proj * (draw.model * vec4(in_position, 1.0));
}
