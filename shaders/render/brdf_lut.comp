#version 450
// `brdf lut`: the split-sum table of the specular BRDF integrated over the hemisphere,
// indexed by (n·v, roughness): specular ambient = prefiltered radiance × (f0 · A + B), with
// the same GGX distribution and height-correlated Smith visibility as `brdf()` in
// common.glsl. Computed once: the table depends on nothing in the scene.
#include "ggx_sampling.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rg16f) uniform writeonly image2D lut_out;

const uint SAMPLES = 256u;

float visibility(float n_dot_v, float n_dot_l, float alpha) {
    float a2 = alpha * alpha;
    float gv = n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2);
    float gl = n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2);
    return 0.5 / (gv + gl + 1e-7);
}

void main() {
    ivec2 size = imageSize(lut_out);
    ivec2 id = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(id, size))) {
        return;
    }
    float n_dot_v = (float(id.x) + 0.5) / float(size.x);
    float roughness = (float(id.y) + 0.5) / float(size.y);
    float alpha = max(roughness * roughness, 2e-3);
    vec3 v = vec3(sqrt(1.0 - n_dot_v * n_dot_v), 0.0, n_dot_v);
    vec3 n = vec3(0.0, 0.0, 1.0);
    vec2 ab = vec2(0.0);
    for (uint i = 0u; i < SAMPLES; ++i) {
        vec3 h = ggx_half_vector(hammersley(i, SAMPLES), n, alpha);
        vec3 l = reflect(-v, h);
        float n_dot_l = l.z;
        float n_dot_h = max(h.z, 0.0);
        float v_dot_h = max(dot(v, h), 0.0);
        if (n_dot_l > 0.0) {
            // pdf(l) = D · (n·h) / (4 v·h), so the estimator of BRDF · (n·l) / pdf is
            // V · 4 (n·l)(v·h) / (n·h) times the Fresnel term, split into f0's scale and bias.
            float g = visibility(n_dot_v, n_dot_l, alpha) * 4.0 * n_dot_l * v_dot_h
                / max(n_dot_h, 1e-6);
            float fc = pow(1.0 - v_dot_h, 5.0);
            ab += vec2((1.0 - fc) * g, fc * g);
        }
    }
    imageStore(lut_out, id, vec4(ab / float(SAMPLES), 0.0, 0.0));
}
