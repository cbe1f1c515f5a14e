// Cube-map texel directions, shared by the environment passes that write a cube face by
// face (`env_*.comp`): face f of a Vulkan cube view, in the order +X, -X, +Y, -Y, +Z, -Z.
#ifndef TESSERA_CUBE_GLSL
#define TESSERA_CUBE_GLSL

// The world direction through the centre of texel `texel` of face `face` of a cube map whose
// faces are `size` texels wide (the sampling rule of the Vulkan spec's cube map table,
// inverted: s and t run from -1 to 1 across the face).
vec3 cube_direction(uint face, uvec2 texel, uint size) {
    vec2 st = (vec2(texel) + 0.5) / float(size) * 2.0 - 1.0;
    float s = st.x;
    float t = st.y;
    vec3 d;
    switch (face) {
    case 0u: d = vec3(1.0, -t, -s); break;
    case 1u: d = vec3(-1.0, -t, s); break;
    case 2u: d = vec3(s, 1.0, t); break;
    case 3u: d = vec3(s, -1.0, -t); break;
    case 4u: d = vec3(s, -t, 1.0); break;
    default: d = vec3(-s, -t, -1.0); break;
    }
    return normalize(d);
}

// The solid angle of texel `texel` of a face `size` texels wide (the exact area of its
// projection onto the unit sphere), so sums over texels integrate over directions.
float cube_texel_solid_angle(uvec2 texel, uint size) {
    float inv = 1.0 / float(size);
    vec2 a = (vec2(texel) * inv) * 2.0 - 1.0;
    vec2 b = a + 2.0 * inv;
    // The area of the spherical rectangle from the origin to (x, y) on the face z = 1.
    #define AREA(x, y) atan((x) * (y), sqrt((x) * (x) + (y) * (y) + 1.0))
    return AREA(a.x, a.y) - AREA(a.x, b.y) - AREA(b.x, a.y) + AREA(b.x, b.y);
    #undef AREA
}

#endif
