#version 450
// Debug view: lights per cluster as a heat map. Each pixel finds its surface's cluster from
// depth with the rule the lit shaders use (`cluster_of`) and shows how many lights touch it:
// black none, then blue → green → yellow → red at 32 and more; magenta where the count is
// above the cluster's cap (lights dropped). Pixels with no surface show the farthest slice.
#define CLUSTERED
#include "common.glsl"

layout(set = 0, binding = 3) uniform sampler2D depth_tex;

layout(location = 0) in vec2 in_uv;
layout(location = 0) out vec4 out_color;

vec3 heat(float t) {
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.5 * t * 2.0 - 1.0, 2.0 - abs(4.0 * t - 2.0), 1.5 - 3.0 * t), 0.0, 1.0);
}

void main() {
    float depth = texture(depth_tex, vec2(in_uv.x, 1.0 - in_uv.y)).r;
    vec4 ndc = vec4(in_uv * 2.0 - 1.0, max(depth, 1e-7), 1.0);
    vec4 world = frame.inv_view_proj * ndc;
    uint base_index = cluster_of(world.xyz / world.w) * (frame.cluster_grid.w + 1u);
    uint count = light_clusters.data[base_index];
    vec3 c = count == 0u ? vec3(0.0) : heat(float(count) / 32.0);
    if (count > frame.cluster_grid.w) {
        c = vec3(1.0, 0.0, 1.0);
    }
    out_color = vec4(c, 1.0);
}
