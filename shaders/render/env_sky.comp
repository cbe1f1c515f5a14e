#version 450
// `sky cubemap`: the sky around the scene into a cube map, one invocation per texel of each
// face (z: the face). With a sun, single scattering (atmosphere.glsl) scaled by the sun's
// colour × illuminance; without one, the scene's ambient as a gradient, brighter looking up
// (the look of the frames before the sky existed). Runs only when the sun or the ambient
// change: the cube map is a persistent resource.
#include "cube.glsl"
#include "atmosphere.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rgba16f) uniform writeonly imageCube sky_out;

layout(push_constant) uniform Sky {
    vec4 to_sun;     // xyz: unit direction towards the sun, w: 1 when there is a sun
    vec4 sun_color;  // rgb: colour × illuminance
    vec4 ambient;    // rgb: the sky's ambient without a sun
} sky;

void main() {
    uint size = uint(imageSize(sky_out).x);
    uvec3 id = gl_GlobalInvocationID;
    if (id.x >= size || id.y >= size) {
        return;
    }
    vec3 d = cube_direction(id.z, id.xy, size);
    vec3 l;
    if (sky.to_sun.w > 0.0) {
        l = sky_radiance(d, normalize(sky.to_sun.xyz)) * sky.sun_color.rgb;
    } else {
        l = sky.ambient.rgb * mix(0.35, 1.2, clamp(d.y * 0.5 + 0.5, 0.0, 1.0));
    }
    imageStore(sky_out, ivec3(id), vec4(l, 1.0));
}
