// GGX importance sampling, shared by the specular prefilter and the BRDF table
// (`env_specular.comp`, `brdf_lut.comp`): a low-discrepancy sample sequence and the half
// vectors it maps to, distributed as D(h)·(n·h).
#ifndef TESSERA_GGX_SAMPLING_GLSL
#define TESSERA_GGX_SAMPLING_GLSL

// The i-th of n points of the Hammersley set in the unit square.
vec2 hammersley(uint i, uint n) {
    return vec2((float(i) + 0.5) / float(n), float(bitfieldReverse(i)) * 2.3283064365386963e-10);
}

// A half vector around the normal `n` for the unit-square sample `xi` and GGX `alpha`.
vec3 ggx_half_vector(vec2 xi, vec3 n, float alpha) {
    float a2 = alpha * alpha;
    float phi = 2.0 * 3.14159265358979 * xi.x;
    float cos_theta = sqrt((1.0 - xi.y) / (1.0 + (a2 - 1.0) * xi.y));
    float sin_theta = sqrt(max(1.0 - cos_theta * cos_theta, 0.0));
    vec3 h = vec3(cos(phi) * sin_theta, sin(phi) * sin_theta, cos_theta);
    vec3 up = abs(n.z) < 0.999 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
    vec3 x = normalize(cross(up, n));
    vec3 y = cross(n, x);
    return normalize(x * h.x + y * h.y + n * h.z);
}

#endif
