#version 450
// Light clustering: one invocation per view-space cluster (a froxel: a screen tile ×
// an exponential depth slice) tests every point light's sphere against the cluster's
// view-space AABB and writes how many touch it and the indices (ascending) of the first
// `cluster_grid.w` of them (a count above that shows an overflow in the heat map).
// The test is conservative: the sphere is padded, so that float rounding at a tile or slice
// boundary never drops a light that reaches a pixel (an extra light adds exactly 0 there).
// Each workgroup moves the lights into view space 64 at a time, through shared memory.
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

// A batch of lights in view space (xyz: centre, w: padded range; < 0: unbounded), loaded
// once per workgroup instead of once per cluster.
shared vec4 batch[64];

void main() {
    uvec3 g = frame.cluster_grid.xyz;
    uint c = gl_GlobalInvocationID.x;
    bool in_grid = c < g.x * g.y * g.z;
    uint x = c % g.x;
    uint y = (c / g.x) % g.y;
    uint z = c / (g.x * g.y);
    float near = slice_start(z);
    float far = z + 1u >= g.z ? 1e30 : slice_start(z + 1u);
    // The tile's NDC rectangle, as view-space x / depth and y / depth.
    vec2 lo = (vec2(x, y) / vec2(g.xy) * 2.0 - 1.0) * frame.proj.xy;
    vec2 hi = (vec2(x + 1u, y + 1u) / vec2(g.xy) * 2.0 - 1.0) * frame.proj.xy;
    vec3 mn = vec3(min(min(lo * near, lo * far), min(hi * near, hi * far)), -far);
    vec3 mx = vec3(max(max(lo * near, lo * far), max(hi * near, hi * far)), -near);
    uint cap = frame.cluster_grid.w;
    uint base = c * (cap + 1u);
    uint count = 0u;
    uint lights = frame.counts.x;
    for (uint first = 0u; first < lights; first += 64u) {
        uint i = first + gl_LocalInvocationIndex;
        if (i < lights) {
            vec4 pr = point_lights.lights[i].position_range;
            vec3 l = (frame.view * vec4(pr.xyz, 1.0)).xyz;
            batch[gl_LocalInvocationIndex] = vec4(l, pr.w <= 0.0 ? -1.0 : pr.w * 1.02 + 0.05);
        }
        barrier();
        uint n = min(64u, lights - first);
        for (uint k = 0u; in_grid && k < n; ++k) {
            vec4 b = batch[k];
            vec3 q = clamp(b.xyz, mn, mx) - b.xyz;
            if (b.w < 0.0 || dot(q, q) <= b.w * b.w) {
                if (count < cap) {
                    light_clusters.data[base + 1u + count] = first + k;
                }
                count += 1u;
            }
        }
        barrier();
    }
    if (in_grid) {
        light_clusters.data[base] = count;
    }
}
