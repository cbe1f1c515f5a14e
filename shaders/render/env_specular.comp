#version 450
// `specular prefilter`: one mip of the specular environment, the sky cube map convolved with
// the GGX lobe of the mip's roughness (roughness = mip / (mips - 1), so mip 0 is the sky
// itself, a mirror's reflection), by importance sampling with the usual split-sum
// assumption n = v = r. The pass dispatches once per mip, each writing that mip's own view.
#include "cube.glsl"
#include "ggx_sampling.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0) uniform samplerCube sky_tex;
layout(set = 0, binding = 1, rgba16f) uniform writeonly imageCube specular_out;

layout(push_constant) uniform Prefilter {
    float roughness;
    uint samples;
} prefilter;

void main() {
    uint size = uint(imageSize(specular_out).x);
    uvec3 id = gl_GlobalInvocationID;
    if (id.x >= size || id.y >= size) {
        return;
    }
    vec3 n = cube_direction(id.z, id.xy, size);
    vec3 sum = vec3(0.0);
    float weight = 0.0;
    if (prefilter.roughness <= 0.0) {
        sum = textureLod(sky_tex, n, 0.0).rgb;
        weight = 1.0;
    } else {
        float alpha = prefilter.roughness * prefilter.roughness;
        for (uint i = 0u; i < prefilter.samples; ++i) {
            vec3 h = ggx_half_vector(hammersley(i, prefilter.samples), n, alpha);
            vec3 l = reflect(-n, h);
            float n_dot_l = dot(n, l);
            if (n_dot_l > 0.0) {
                sum += textureLod(sky_tex, l, 0.0).rgb * n_dot_l;
                weight += n_dot_l;
            }
        }
    }
    imageStore(specular_out, ivec3(id), vec4(sum / max(weight, 1e-6), 1.0));
}
