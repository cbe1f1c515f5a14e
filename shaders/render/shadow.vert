#version 450
// The sun's shadow cascades: depth only, one cascade per draw (push constants, as `Draw`
// in material.glsl with the cascade in alpha.y).
#include "frame_data.glsl"

layout(location = 0) in vec3 in_position;

layout(push_constant) uniform Draw {
    mat4 model;
    vec4 base_color;
    vec4 emissive;
    vec4 params;
    vec4 alpha;           // y: the cascade
} draw;

void main() {
    int cascade = int(draw.alpha.y);
    gl_Position = frame.cascade_view_proj[cascade] * (draw.model * vec4(in_position, 1.0));
}
