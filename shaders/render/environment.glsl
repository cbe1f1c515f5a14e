// The environment the lit shaders see: the sky's prefiltered specular cube map (mip 0 is the
// sky itself), its diffuse irradiance as spherical harmonics and the split-sum BRDF table
// (the `environment` passes, crates/render/src/frame/environment.rs). Set ENV_SET (3 by
// default), bindings ENV_BINDING (0 by default) to ENV_BINDING + 2.
#ifndef TESSERA_ENVIRONMENT_GLSL
#define TESSERA_ENVIRONMENT_GLSL

#ifndef ENV_SET
#define ENV_SET 3
#endif
#ifndef ENV_BINDING
#define ENV_BINDING 0
#endif

layout(set = ENV_SET, binding = ENV_BINDING) uniform samplerCube env_specular;
layout(set = ENV_SET, binding = ENV_BINDING + 1, std430) readonly buffer EnvIrradiance {
    vec4 coefficients[9];
} env_irradiance;
layout(set = ENV_SET, binding = ENV_BINDING + 2) uniform sampler2D env_brdf;

// The sky's irradiance on a surface facing `n` (from the nine SH coefficients).
vec3 env_irradiance_at(vec3 n) {
    vec3 e = env_irradiance.coefficients[0].rgb * 0.282095
        + env_irradiance.coefficients[1].rgb * (0.488603 * n.y)
        + env_irradiance.coefficients[2].rgb * (0.488603 * n.z)
        + env_irradiance.coefficients[3].rgb * (0.488603 * n.x)
        + env_irradiance.coefficients[4].rgb * (1.092548 * n.x * n.y)
        + env_irradiance.coefficients[5].rgb * (1.092548 * n.y * n.z)
        + env_irradiance.coefficients[6].rgb * (0.315392 * (3.0 * n.z * n.z - 1.0))
        + env_irradiance.coefficients[7].rgb * (1.092548 * n.x * n.z)
        + env_irradiance.coefficients[8].rgb * (0.546274 * (n.x * n.x - n.y * n.y));
    return max(e, vec3(0.0));
}

// Image-based ambient light leaving a surface towards `v`: diffuse irradiance × albedo plus
// the prefiltered radiance around the reflection × (f0 · A + B) from the BRDF table.
vec3 environment_light(vec3 n, vec3 v, vec3 base, float metallic, float roughness) {
    float n_dot_v = clamp(abs(dot(n, v)), 1e-4, 1.0);
    vec3 f0 = mix(vec3(0.04), base, metallic);
    vec2 ab = textureLod(env_brdf, vec2(n_dot_v, roughness), 0.0).rg;
    vec3 specular_weight = f0 * ab.x + ab.y;
    float lod = roughness * float(textureQueryLevels(env_specular) - 1);
    vec3 specular = textureLod(env_specular, reflect(-v, n), lod).rgb;
    vec3 diffuse = (1.0 - specular_weight) * (1.0 - metallic) * base / 3.14159265358979;
    return diffuse * env_irradiance_at(n) + specular * specular_weight;
}

// The sky seen along `d` (unit): the environment's mip 0 (the sky cube map without the sun)
// and the sun's disk, 0.5° across (`frame.sun_direction`: the direction its light travels).
vec3 environment_sky(vec3 d) {
    vec3 c = textureLod(env_specular, d, 0.0).rgb;
    if (frame.sun_direction.w > 0.0) {
        float cos_angle = dot(d, -normalize(frame.sun_direction.xyz));
        // A soft-edged disk of the sun's colour × 20 (not its true radiance: a 0.27° disk at
        // the sun's illuminance would be tens of thousands of times the sky, a flare the tone
        // mapper and TAA cannot take).
        float disk = smoothstep(0.99998806, 0.99999263, cos_angle);
        c += frame.sun_color.rgb * (20.0 * disk);
    }
    return c;
}

#endif
