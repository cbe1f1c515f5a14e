#version 450
// Vertex deformation (morph targets, skins): one invocation per deformed vertex reads its
// rest vertex and skin influences (uploaded with the scene), its draw's offsets and morph
// deltas, and this frame's joint matrices and morph weights, and writes the deformed vertex
// into `animated vertices`, which the geometry passes then read as their vertex buffer.
// The arithmetic is `tessera_scene::deform::Deform::apply`'s (the CPU reference): position
// and normal morphed (sum of weight x delta), then skinned (sum of weight x joint matrix),
// the normal renormalised and the tangent made orthogonal to it again.

layout(local_size_x = 64) in;

// `tessera_scene::Vertex`, 48 bytes, as plain floats (std430 puts a vec3 on 16 bytes).
struct Vertex {
    float px, py, pz;
    float nx, ny, nz;
    float tx, ty, tz, tw;
    float u, v;
};

// `tessera_scene::deform_gpu::DeformVertex`, 80 bytes.
struct DeformVertex {
    Vertex rest;
    uint draw;
    uint joints01;
    uint joints23;
    uint local_index;
    float w0, w1, w2, w3;
};

// `tessera_scene::deform_gpu::DeformDraw`, 32 bytes.
struct DeformDraw {
    uint joints;
    uint joint_base;
    uint targets;
    uint weight_base;
    uint delta_base;
    uint vertex_count;
    uint pad0, pad1;
};

// `tessera_scene::deform_gpu::MorphDelta`, 24 bytes.
struct MorphDelta {
    float px, py, pz;
    float nx, ny, nz;
};

layout(set = 0, binding = 0, std430) readonly buffer DeformVertices {
    DeformVertex v[];
} deform_vertices;

layout(set = 0, binding = 1, std430) readonly buffer DeformDraws {
    DeformDraw d[];
} deform_draws;

layout(set = 0, binding = 2, std430) readonly buffer MorphDeltas {
    MorphDelta d[];
} morph_deltas;

// Joint matrices (four columns each) and morph weights (four to a vec4), per instance.
layout(set = 0, binding = 3, std430) readonly buffer DeformFrame {
    vec4 data[];
} deform_frame;

layout(set = 0, binding = 4, std430) writeonly buffer AnimatedVertices {
    Vertex v[];
} animated;

layout(push_constant) uniform Push {
    uint count;
} push;

mat4 joint_matrix(DeformDraw d, uint j) {
    if (j >= d.joints) {
        return mat4(1.0);
    }
    uint b = d.joint_base + 4u * j;
    return mat4(deform_frame.data[b], deform_frame.data[b + 1u], deform_frame.data[b + 2u],
                deform_frame.data[b + 3u]);
}

// `tessera_scene::geometry::any_perpendicular`.
vec3 any_perpendicular(vec3 n) {
    vec3 axis = abs(n.x) < 0.9 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0);
    vec3 t = axis - n * dot(n, axis);
    float l = length(t);
    return l > 0.0 ? t / l : vec3(0.0, 0.0, 1.0);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) {
        return;
    }
    DeformVertex dv = deform_vertices.v[i];
    DeformDraw d = deform_draws.d[dv.draw];
    Vertex r = dv.rest;
    vec3 rest_n = vec3(r.nx, r.ny, r.nz);
    vec3 p = vec3(r.px, r.py, r.pz);
    vec3 n = rest_n;
    for (uint k = 0u; k < d.targets; k++) {
        float w = deform_frame.data[d.weight_base + k / 4u][k % 4u];
        if (w != 0.0) {
            MorphDelta m = morph_deltas.d[d.delta_base + k * d.vertex_count + dv.local_index];
            p += vec3(m.px, m.py, m.pz) * w;
            n += vec3(m.nx, m.ny, m.nz) * w;
        }
    }
    vec3 t = vec3(r.tx, r.ty, r.tz);
    if (d.joints > 0u) {
        uint js[4] = uint[4](dv.joints01 & 0xffffu, dv.joints01 >> 16, dv.joints23 & 0xffffu,
                             dv.joints23 >> 16);
        float ws[4] = float[4](dv.w0, dv.w1, dv.w2, dv.w3);
        mat4 skin = mat4(0.0);
        for (int k = 0; k < 4; k++) {
            if (ws[k] != 0.0) {
                skin += joint_matrix(d, js[k]) * ws[k];
            }
        }
        p = (skin * vec4(p, 1.0)).xyz;
        n = mat3(skin) * n;
        t = mat3(skin) * t;
    }
    float nl = length(n);
    n = nl > 0.0 && !isinf(nl) && !isnan(nl) ? n / nl : rest_n;
    vec3 o = t - n * dot(n, t);
    float ol = length(o);
    o = ol > 0.0 && !isinf(ol) && !isnan(ol) ? o / ol : any_perpendicular(n);
    animated.v[i] = Vertex(p.x, p.y, p.z, n.x, n.y, n.z, o.x, o.y, o.z, r.tw, r.u, r.v);
}
