#version 450
// Light clustering: one invocation per view-space cluster (a froxel: a screen tile ×
// an exponential depth slice) tests every point light's sphere against the cluster's
// view-space AABB and writes the count and the indices (ascending) of those that touch it.
// The test is conservative: the sphere is padded, so that float rounding at a tile or slice
// boundary never drops a light that reaches a pixel (an extra light adds exactly 0 there).
#include "common.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 2, std430) writeonly buffer LightClusters {
    uint data[];
} light_clusters;

// View depth where slice `k` begins (slice 0 begins at the eye; the last ends at infinity).
float slice_start(uint k) {
    if (k == 0u) {
        return 0.0;
    }
    float n = frame.proj.z;
    return n * pow(frame.proj.w / n, float(k) / float(frame.cluster_grid.z));
}

void main() {
    uvec3 g = frame.cluster_grid.xyz;
    uint c = gl_GlobalInvocationID.x;
    if (c >= g.x * g.y * g.z) {
        return;
    }
    uint x = c % g.x;
    uint y = (c / g.x) % g.y;
    uint z = c / (g.x * g.y);
    float near = slice_start(z);
    float far = z + 1u == g.z ? 1e30 : slice_start(z + 1u);
    // The tile's NDC rectangle, as view-space x / depth and y / depth.
    vec2 lo = (vec2(x, y) / vec2(g.xy) * 2.0 - 1.0) * frame.proj.xy;
    vec2 hi = (vec2(x + 1u, y + 1u) / vec2(g.xy) * 2.0 - 1.0) * frame.proj.xy;
    vec3 mn = vec3(min(min(lo * near, lo * far), min(hi * near, hi * far)), -far);
    vec3 mx = vec3(max(max(lo * near, lo * far), max(hi * near, hi * far)), -near);
    uint cap = frame.cluster_grid.w;
    uint base = c * (cap + 1u);
    uint count = 0u;
    for (uint i = 0u; i < frame.counts.x && count < cap; ++i) {
        vec4 pr = point_lights.lights[i].position_range;
        bool touches = pr.w <= 0.0;
        if (!touches) {
            vec3 l = (frame.view * vec4(pr.xyz, 1.0)).xyz;
            vec3 q = clamp(l, mn, mx) - l;
            float r = pr.w * 1.02 + 0.05;
            touches = dot(q, q) <= r * r;
        }
        if (touches) {
            light_clusters.data[base + 1u + count] = i;
            count += 1u;
        }
    }
    light_clusters.data[base] = count;
}
