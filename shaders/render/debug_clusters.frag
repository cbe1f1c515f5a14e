#version 450
// Debug view: lights per cluster as a heat map. Each pixel finds its surface's cluster from
// depth with the rule the lit shaders use (`cluster_of`) and shows how many lights touch it:
// black none, then blue → green → yellow → red at 32 and more; magenta where the count is
// above the cluster's cap (lights dropped). Pixels with no surface show the farthest slice.
#define CLUSTERED
#include "common.glsl"

layout(set = 0, binding = 3) uniform sampler2D depth_tex;

layout(location = 0) out vec4 out_color;

layout(push_constant) uniform Rotate {
    vec2 logical; // pre-rotation: the logical (upright) size in pixels
    float turns;  // pre-rotation: quarter turns clockwise the presentation applies
} pc;

// Pre-rotation (crates/render/src/frame/rotate.rs): with `turns` quarter turns the pass
// renders the physical extent, and each pixel shows the upright pixel the presentation puts
// there: the full-screen UV of that upright pixel's centre (Y up, as `in_uv`). Computed
// from the pixel's index at every rotation (not the interpolated `in_uv`, which a turned
// render area would not reproduce bit for bit), so the turned picture is the upright one.
vec2 upright_uv(vec2 logical, float turns_f) {
    int turns = int(turns_f + 0.5);
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 l = ivec2(logical + 0.5);
    ivec2 s = p;
    if (turns == 1) {
        s = ivec2(l.x - 1 - p.y, p.x);
    } else if (turns == 2) {
        s = ivec2(l.x - 1 - p.x, l.y - 1 - p.y);
    } else if (turns == 3) {
        s = ivec2(p.y, l.y - 1 - p.x);
    }
    vec2 c = (vec2(s) + 0.5) / logical;
    return vec2(c.x, 1.0 - c.y);
}

vec3 heat(float t) {
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.5 * t * 2.0 - 1.0, 2.0 - abs(4.0 * t - 2.0), 1.5 - 3.0 * t), 0.0, 1.0);
}

void main() {
    vec2 uv = upright_uv(pc.logical, pc.turns);
    float depth = texture(depth_tex, vec2(uv.x, 1.0 - uv.y)).r;
    vec4 ndc = vec4(uv * 2.0 - 1.0, max(depth, 1e-7), 1.0);
    vec4 world = frame.inv_view_proj * ndc;
    uint base_index = cluster_of(world.xyz / world.w) * (frame.cluster_grid.w + 1u);
    uint count = light_clusters.data[base_index];
    vec3 c = count == 0u ? vec3(0.0) : heat(float(count) / 32.0);
    if (count > frame.cluster_grid.w) {
        c = vec3(1.0, 0.0, 1.0);
    }
    out_color = vec4(c, 1.0);
}
