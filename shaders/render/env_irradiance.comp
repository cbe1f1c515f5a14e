#version 450
// `irradiance`: the sky cube map's diffuse irradiance as nine spherical-harmonic
// coefficients (bands 0-2, Ramamoorthi and Hanrahan 2001), already convolved with the
// clamped cosine: irradiance(n) = Σ coefficient_i · Y_i(n) (see `environment.glsl`). One
// workgroup: each invocation sums a fixed share of the texels, weighted by solid angle, and
// the shares are added in a fixed order, so the result is the same on every run.
#include "cube.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) uniform samplerCube sky_tex;
layout(set = 0, binding = 1, std430) writeonly buffer Irradiance {
    vec4 coefficients[9];
} irradiance;

// Texels per face side summed (the cube map's own size or less: the sky is smooth).
const uint GRID = 32u;

shared vec3 partial[64][9];

void main() {
    uint me = gl_LocalInvocationID.x;
    vec3 c[9];
    for (int k = 0; k < 9; ++k) {
        c[k] = vec3(0.0);
    }
    for (uint t = me; t < 6u * GRID * GRID; t += 64u) {
        uint face = t / (GRID * GRID);
        uvec2 texel = uvec2(t % GRID, (t / GRID) % GRID);
        vec3 d = cube_direction(face, texel, GRID);
        vec3 l = textureLod(sky_tex, d, 0.0).rgb * cube_texel_solid_angle(texel, GRID);
        c[0] += l * 0.282095;
        c[1] += l * 0.488603 * d.y;
        c[2] += l * 0.488603 * d.z;
        c[3] += l * 0.488603 * d.x;
        c[4] += l * 1.092548 * d.x * d.y;
        c[5] += l * 1.092548 * d.y * d.z;
        c[6] += l * 0.315392 * (3.0 * d.z * d.z - 1.0);
        c[7] += l * 1.092548 * d.x * d.z;
        c[8] += l * 0.546274 * (d.x * d.x - d.y * d.y);
    }
    for (int k = 0; k < 9; ++k) {
        partial[me][k] = c[k];
    }
    barrier();
    if (me < 9u) {
        vec3 sum = vec3(0.0);
        for (uint i = 0u; i < 64u; ++i) {
            sum += partial[i][me];
        }
        // The clamped cosine's convolution per band: π, 2π/3, π/4.
        float band = me == 0u ? 3.14159265 : (me < 4u ? 2.0943951 : 0.7853982);
        irradiance.coefficients[me] = vec4(sum * band, 0.0);
    }
}
